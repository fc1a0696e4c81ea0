"""Run the registry's evidence and shape the audit for the renderer.

Each record gains its note's title, a locator of its quote (line, sentence, column, short
context), and ``evidence_view``: rows, each already formatted, so the renderer computes nothing.
The contract::

    {"rows": [{"version": "computed" | "note" | "correction" | "source" | "foil"
                          | "independent" | "cited",
               "label": {"en": str, "zh": str}, "value": {"en": str, "zh": str},
               "math": str, "passed": bool | None}],
     "summary": {"en": str, "zh": str}}

``computed`` shows the facts once; each version's row shows only what that version states, and
its label says whether it holds (``passed``). ``cited`` lists the sources of a record; it and
``computed`` carry no pass mark (``passed`` None). A value is prose with inline ``$…$`` math,
rendered from the typed evidence in both languages with the same numbers and formulas; a value
whose Chinese text is missing has no ``zh`` key (the report marks it untranslated and the i18n
test fails).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from reports.audit import errata, evidence, notes

REPO = Path(__file__).resolve().parents[3]
LABELS = {
    "computed": {"en": "Computed", "zh": "计算结果"},
    "check": {"en": "Independent check", "zh": "独立核验"},
    "derivation": {"en": "Derivation", "zh": "推导"},
    "cited": {"en": "Sources, not computed", "zh": "依据文献，非计算"},
    "sources": {"en": "Sources", "zh": "文献"},
}
# whose statement a row judges; a reported record's "note" row is the note's own fix
VERSION_NAMES = {
    "note": {"en": "The note's version", "zh": "讲义的说法"},
    "correction": {"en": "The correction", "zh": "更正后的说法"},
    "source": {"en": "The source's formula", "zh": "原文的写法"},
    "foil": {"en": "A wrong variant", "zh": "错误的变体"},
    "note_fix": {"en": "The note's correction", "zh": "讲义给出的改正"},
}
HOLDS = {"en": ("does not hold", "holds"), "zh": ("不成立", "成立")}
DASH = {"en": " — ", "zh": "——"}
# rows in the order a reader follows the argument: what the note says, then what holds instead
ORDER = {"correct": ("note", "foil"), "error": ("note", "correction"),
         "imprecise": ("note", "correction"), "reported": ("source", "note")}
# whether each of those versions holds when the verdict is borne out
EXPECTED = {"correct": (True, False), "error": (False, True), "imprecise": (False, True),
            "reported": (False, True)}
_LIST_REPR = re.compile(r"\[((?:'[^']*'(?:, )?)+)\]")


def notes_dir(given: Path | str | None = None) -> Path | None:
    """The directory of the audited notes: the argument, $AUDIT_NOTES_DIR, or ``shared/notes``
    beside the checkout (or beside its parent, for a worktree); None when none exists."""
    if given is not None:
        return Path(given)
    env = os.environ.get("AUDIT_NOTES_DIR")
    for cand in ([Path(env)] if env else []) + [REPO.parent / "shared" / "notes",
                                                 REPO.parent.parent / "shared" / "notes"]:
        if cand.is_dir():
            return cand
    return None


def plain(detail: str) -> str:
    """A computed detail as prose: yes/no for booleans, ∞ and NaN, lists without quotes."""
    detail = _LIST_REPR.sub(lambda m: "[" + m.group(1).replace("'", "") + "]", detail)
    for word, text in (("True", "yes"), ("False", "no"), ("inf", "∞"), ("nan", "NaN")):
        detail = re.sub(rf"\b{word}\b", text, detail)
    return detail


def value(run: dict) -> dict[str, str]:
    """An evidence run's full detail (facts, then the version's statement) in both languages."""
    return {"en": plain(run["detail"]), "zh": plain(run["detail_zh"])}


def rendered(facts: list[dict]) -> dict[str, str]:
    return {lang: plain(evidence.render_facts(facts, lang)) for lang in evidence.LANGS}


def _version_label(version: str, verdict: str, passed: bool) -> dict[str, str]:
    name = VERSION_NAMES["note_fix" if verdict == "reported" and version == "note" else version]
    return {lang: name[lang] + DASH[lang] + HOLDS[lang][passed] for lang in evidence.LANGS}


def citations(sources: list[dict]) -> dict[str, str]:
    """The sources of a record as one line: the same citations in both editions."""
    text = "; ".join(f"{s['cite']}, {s['locator']}" for s in sources)
    return {"en": text, "zh": text}


_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def value_problems(where: str, value: dict, same_math: bool = True) -> list[str]:
    """What keeps ``value`` from being one record in two languages: a missing or empty Chinese
    text, ASCII pseudo-TeX outside ``$…$``, or numbers or formulas that differ between the two
    (not asked of a cited derivation's title, whose translation claims.toml checks)."""
    en, zh = value.get("en") or "", value.get("zh") or ""
    if not zh.strip():
        return [f"{where}: value {en[:60]!r} has no Chinese text (zh)"]
    out = []
    for lang, text in (("en", en), ("zh", zh)):
        found = errata.pseudo_tex(text)
        if found:
            out.append(f"{where}: {lang} value has ASCII pseudo-TeX {found} outside $…$")
    if same_math and sorted(_NUMBER.findall(en)) != sorted(_NUMBER.findall(zh)):
        out.append(f"{where}: numbers differ: en {sorted(_NUMBER.findall(en))}, "
                   f"zh {sorted(_NUMBER.findall(zh))}")
    if same_math and sorted(errata._MATH.findall(en)) != sorted(errata._MATH.findall(zh)):
        out.append(f"{where}: formulas differ between en and zh")
    return out


def untranslated_values(records: list[dict]) -> list[str]:
    """Every evidence value and summary of the loaded audit that fails :func:`value_problems`."""
    gaps = []
    for rec in records:
        view = rec["evidence_view"]
        for i, row in enumerate(view["rows"]):
            gaps += value_problems(f"{rec['id']} row {i + 1} ({row['version']})", row["value"],
                                   same_math=row["label"] != LABELS["derivation"])
        gaps += value_problems(f"{rec['id']} summary", view["summary"])
    return gaps


def _derivation_value(cid: str, status: str) -> dict[str, str]:
    """A cited derivation by its title and status, in both languages."""
    from reports.render import i18n

    words = {lang: i18n.ui(lang)["status"].get(status, status) for lang in i18n.LANGS}
    english = i18n.english_title(cid)
    titles = {lang: i18n.title(cid, english, lang) for lang in i18n.LANGS}
    out = {"en": f"“{titles['en'].text}”: {words['en']}"}
    if not titles["zh"].missing:
        out["zh"] = f"「{titles['zh'].text}」：{words['zh']}"
    return out


def _derivation_status(ids: list[str], known: Mapping[str, str]) -> dict[str, str]:
    """The status of each claim in ``ids``: from ``known`` (claim id -> status, e.g. the build's
    derive stage), verifying only the claims it lacks."""
    found = {i: known[i] for i in ids if i in known}
    todo = [i for i in ids if i not in found]
    if todo:
        import derivations

        found.update((res.id, res.status) for res in derivations.verify_all(todo))
    return {i: found[i] for i in ids}


def _summary(rec: dict, rows: list[dict], tail: dict[str, str]) -> dict[str, str]:
    """One sentence per language on what the rows show, by verdict; when a run came out other
    than the verdict expects, the sentence says what happened instead."""
    verdict = rec["verdict"]
    if rec["evidence"] is None:
        n = len(rec["sources"])
        said = ({"en": f": the note's version holds {rec['missing_condition']}",
                 "zh": f"：讲义的说法{rec['missing_condition_zh']}"}
                if verdict == "imprecise" else {"en": "", "zh": ""})
        sources = f"{n} source" + ("s" if n != 1 else "")
        return {"en": f"Source-based, not computed ({sources}){said['en']}{tail['en']}.",
                "zh": f"依据文献，非计算（共 {n} 篇）{said['zh']}{tail['zh']}。"}
    shown = {r["version"]: r["passed"] for r in rows if r["version"] in ORDER[verdict]}
    first, second = ORDER[verdict]
    if (shown[first], shown[second]) != EXPECTED[verdict]:
        said = {lang: ("，" if lang == "zh" else ", ").join(
            VERSION_NAMES[v][lang] + ("" if lang == "zh" else " ") + HOLDS[lang][shown[v]]
            for v in (first, second)) for lang in evidence.LANGS}
        return {"en": f"Not as the verdict expects: {said['en']}{tail['en']}.",
                "zh": f"与判定不符：{said['zh']}{tail['zh']}。"}
    if verdict == "correct":
        return {"en": f"The note's version holds and a wrong variant does not{tail['en']}.",
                "zh": f"讲义的说法成立，错误的变体不成立{tail['zh']}。"}
    if verdict == "error":
        return {"en": "The computation contradicts the note's version and supports the "
                      f"correction{tail['en']}.",
                "zh": f"计算结果否定讲义的说法，支持更正后的说法{tail['zh']}。"}
    if verdict == "imprecise":
        return {"en": f"The note's version holds {rec['missing_condition']}; the correction, "
                      f"which states that condition, holds{tail['en']}.",
                "zh": f"讲义的说法{rec['missing_condition_zh']}；补上这一条件的更正成立"
                      f"{tail['zh']}。"}
    return {"en": f"The source's formula does not hold; the note's own correction holds"
                  f"{tail['en']}.",
            "zh": f"原文的写法不成立；讲义给出的改正成立{tail['zh']}。"}


def run_key(rec: dict, name: str, version: str) -> tuple[str, str, str]:
    """Where a record's run of check ``name`` for ``version`` is kept: the version its quote
    states depends on which of the check's quoted words are the record's."""
    fn = evidence.CHECKS[name]
    said = evidence.said_for(fn, rec["quote"]) if version == fn.quoted else None
    return name, version, said.fragment if said is not None else ""


def _quoted(run: dict) -> dict[str, str]:
    """How a run read the note's words (its quote, shown above, gives them), in each language:
    it opens the row of the version the quote states; nothing when the words were their own
    number or formula."""
    reads = (run.get("said") or {}).get("reads")
    if not reads:
        return {"en": "", "zh": ""}
    return {"en": f"read as: {reads[0]} — ", "zh": f"读作：{reads[1]}——"}


def evidence_view(rec: dict, runs: dict, statuses: dict[str, str]) -> dict:
    """Rows for the computed facts, the versions the verdict compares, the independent checks
    and the sources; and a summary."""
    rows = []
    if rec["evidence"] is not None:
        fn = evidence.CHECKS[rec["evidence"]]
        first = runs[run_key(rec, rec["evidence"], fn.right)]
        if first["facts"]:
            rows.append({"version": "computed", "label": LABELS["computed"],
                         "value": rendered(first["facts"]), "math": "", "passed": None})
        maths = {"note": rec["claim_latex"], "correction": rec["correction_latex"] or "",
                 "source": rec["source_latex"] or "", "foil": ""}
        if rec["verdict"] == "reported":
            maths["note"] = rec["correction_latex"]
        for version in ORDER[rec["verdict"]]:
            run = runs[run_key(rec, rec["evidence"], version)]
            said, claim = _quoted(run), rendered([run["claim"]])
            rows.append({"version": version,
                         "label": _version_label(version, rec["verdict"], run["passed"]),
                         "value": {lg: said[lg] + claim[lg] for lg in claim},
                         "math": maths[version], "passed": run["passed"]})
    if rec["cross_check"]:
        fn = evidence.CHECKS[rec["cross_check"]]
        other = runs[(rec["cross_check"], fn.right, "")]
        rows.append({"version": "independent", "label": LABELS["check"],
                     "value": value(other), "math": "", "passed": other["passed"]})
    for cid in rec["see_also"]:
        rows.append({"version": "independent", "label": LABELS["derivation"],
                     "value": _derivation_value(cid, statuses[cid]), "math": "",
                     "passed": statuses[cid] in ("proved", "numeric")})
    if rec["sources"]:
        rows.append({"version": "cited",
                     "label": LABELS["cited" if rec["evidence"] is None else "sources"],
                     "value": citations(rec["sources"]), "math": "", "passed": None})
    indep = [r for r in rows if r["version"] == "independent"]
    ok = sum(r["passed"] for r in indep)
    tail = {"en": f"; {ok} of {len(indep)} independent checks pass" if indep else "",
            "zh": f"；独立核验 {len(indep)} 项中 {ok} 项通过" if indep else ""}
    return {"rows": rows, "summary": _summary(rec, rows, tail)}


def evidence_runs(records: list[dict]) -> list[dict]:
    """Every evidence computation the records name, run once: ``{"name", "version", **run}``
    (JSON data, so that a build can run them in another process)."""
    runs: dict[tuple[str, str, str], dict] = {}
    for rec in records:
        wanted = []
        if rec["evidence"]:
            fn = evidence.CHECKS[rec["evidence"]]
            wanted += [(run_key(rec, rec["evidence"], v), rec["quote"])
                       for v in (fn.right, fn.wrong)]
        if rec["cross_check"]:
            wanted.append(((rec["cross_check"], evidence.CHECKS[rec["cross_check"]].right, ""),
                           None))
        for key, quote in wanted:
            if key not in runs:
                runs[key] = errata.run_evidence(key[0], key[1], quote if key[2] else None)
    return [{"name": n, "version": v, "quote_words": w, **run}
            for (n, v, w), run in runs.items()]


def load(path: Path | str | None = None, notes_path: Path | str | None = None,
         statuses: Mapping[str, str] | None = None, runs: list[dict] | None = None) -> dict:
    """Validated records with evidence run (both versions), titles, locators and per-note
    verdict counts: {"records", "summary", "notes"}.  ``statuses`` (claim id -> status) are
    derivation results already computed; only the ``see_also`` claims it lacks are verified.
    ``runs``: :func:`evidence_runs` of the same registry, already run."""
    records = errata.read(path)
    titles = errata.read_titles(path)
    directory = notes_dir(notes_path)
    texts = {}
    if directory is not None:
        for name in sorted({r["note"] for r in records}):
            try:
                texts[name] = notes.read_note(directory, name)
            except notes.NotesError:
                pass
    runs_by = {(r["name"], r["version"], r["quote_words"]): {
        k: v for k, v in r.items() if k not in ("name", "version", "quote_words")}
               for r in (evidence_runs(records) if runs is None else runs)}
    for name, text in texts.items():  # the note's own title wins; the registry's is the fallback
        try:
            titles[name] = notes.title(text)
        except notes.NotesError:
            pass
    statuses = _derivation_status(sorted({c for r in records for c in r["see_also"]}),
                                  statuses or {})
    out, summary = [], {}
    for rec in records:
        text = texts.get(rec["note"])
        if rec["evidence"] is not None:
            main = dict(runs_by[run_key(rec, rec["evidence"],
                                        evidence.CHECKS[rec["evidence"]].right)])
        else:
            main = {"kind": "sources", "ref": "", "passed": True,
                    "detail": citations(rec["sources"])["en"]}
        out.append({
            **{k: rec[k] for k in ("id", "note", "quote", "claim_latex", "scope", "verdict",
                                    "reason", "reason_zh", "correction_latex",
                                    "correction_text", "correction_text_zh", "source_latex",
                                    "missing_condition", "missing_condition_zh", "reading",
                                    "reading_zh", "claim_group", "rejudged_from", "rejudged",
                                    "rejudged_zh", *errata.FORMULA_ZH.values())},
            "note_title": titles.get(rec["note"], rec["note"]),
            "locator": notes.locate(text, rec["quote"]) if text is not None else None,
            "see_also": list(rec["see_also"]),
            "sources": list(rec["sources"]),
            "evidence": main,
            "evidence_view": evidence_view(rec, runs_by, statuses),
        })
        counts = summary.setdefault(rec["note"], {})
        counts[rec["verdict"]] = counts.get(rec["verdict"], 0) + 1
    # how much of each note the audit covers: its sentences holding a record or a no-claim mark
    marks = errata.read_nonclaims() if path is None else []
    covered = {name: notes.note_coverage(name, text, records, marks)["view"]
               for name, text in texts.items()}
    return {"records": out, "summary": summary,
            "notes": {n: {"title": t, **({"coverage": covered[n]} if n in covered else {})}
                      for n, t in sorted(titles.items())}}
