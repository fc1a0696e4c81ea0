"""Run the registry's evidence and shape the audit for the renderer.

Each record gains its note's title, a locator of its quote (line, column, short context), and
``evidence_view``: rows for the note's version, the correction and the independent checks, each
already formatted, so the renderer computes nothing. The contract::

    {"rows": [{"version": "note" | "correction" | "independent",
               "label": {"en": str, "zh": str}, "value": {"en": str, "zh": str},
               "math": str, "passed": bool}],
     "summary": {"en": str, "zh": str}}

A value is prose with inline ``$…$`` math, in both languages with the same numbers and formulas;
a value whose Chinese text is missing has no ``zh`` key (the report marks it untranslated and the
i18n test fails).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from reports.audit import errata, notes

REPO = Path(__file__).resolve().parents[3]
LABELS = {
    "note": {"en": "The note's version", "zh": "讲义的说法"},
    "correction": {"en": "The correction", "zh": "更正后的说法"},
    "check": {"en": "Independent check", "zh": "独立核对"},
    "derivation": {"en": "Derivation", "zh": "推导"},
}
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


def _kept(value: str, limit: int = 160) -> int:
    """How many leading clauses of the English ``value`` fit in ``limit`` characters (≥ 1)."""
    clauses = value.split("; ")
    size = len(clauses[0])
    for n, clause in enumerate(clauses[1:], start=1):
        size += 2 + len(clause)
        if size > limit:
            return n
    return len(clauses)


def _compact(value: str, kept: int, sep: str = "; ") -> str:
    """The first ``kept`` clauses of ``value`` (both languages keep the same clauses)."""
    clauses = value.split(sep)
    return sep.join(clauses[:kept]) + (sep + "…" if kept < len(clauses) else "")


def value(run: dict) -> dict[str, str]:
    """An evidence run's detail as a bilingual value ({en} alone when zh is missing)."""
    out = {"en": plain(run["detail"])}
    if run.get("detail_zh"):
        out["zh"] = plain(run["detail_zh"])
    return out


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


def evidence_view(rec: dict, runs: dict, statuses: dict[str, str]) -> dict:
    """Rows for the note's version, the correction (errata only) and the independent checks."""
    erratum = rec["verdict"] in errata.NEEDS_CORRECTION
    note = runs[(rec["evidence"], "note")]
    rows = [{"version": "note", "label": LABELS["note"], "value": value(note),
             "math": rec["claim_latex"], "passed": note["passed"]}]
    if erratum:
        fixed = runs[(rec["evidence"], "correction")]
        rows.append({"version": "correction", "label": LABELS["correction"],
                     "value": value(fixed), "math": rec["correction_latex"],
                     "passed": fixed["passed"]})
    if rec["cross_check"]:
        other = runs[(rec["cross_check"], "correction")]
        rows.append({"version": "independent", "label": LABELS["check"],
                     "value": value(other), "math": "", "passed": other["passed"]})
    for cid in rec["see_also"]:
        rows.append({"version": "independent", "label": LABELS["derivation"],
                     "value": _derivation_value(cid, statuses[cid]), "math": "",
                     "passed": statuses[cid] in ("proved", "numeric")})
    indep = [r for r in rows if r["version"] == "independent"]
    ok = sum(r["passed"] for r in indep)
    tail_en = f"; {ok} of {len(indep)} independent checks pass" if indep else ""
    tail_zh = f"；独立核对 {len(indep)} 项中 {ok} 项通过" if indep else ""
    if erratum:
        word_en = {True: "passes", False: "fails"}
        word_zh = {True: "成立", False: "不成立"}
        summary = {
            "en": f"The note's version {word_en[rows[0]['passed']]}, the correction "
                  f"{word_en[rows[1]['passed']]}{tail_en}.",
            "zh": f"讲义的说法{word_zh[rows[0]['passed']]}，更正后的说法"
                  f"{word_zh[rows[1]['passed']]}{tail_zh}。",
        }
    else:
        shown = rows[0]["value"]
        kept = _kept(shown["en"])
        summary = {"en": f"{'Holds' if rows[0]['passed'] else 'Fails'}: "
                         f"{_compact(shown['en'], kept)}{tail_en}."}
        if "zh" in shown:
            summary["zh"] = (f"{'成立' if rows[0]['passed'] else '不成立'}："
                             f"{_compact(shown['zh'], kept, sep='；')}{tail_zh}。")
    return {"rows": rows, "summary": summary}


def evidence_runs(records: list[dict]) -> list[dict]:
    """Every evidence computation the records name, run once: ``{"name", "version", **run}``
    (JSON data, so that a build can run them in another process)."""
    runs: dict[tuple[str, str], dict] = {}
    for rec in records:
        for name, version in ((rec["evidence"], "note"), (rec["evidence"], "correction"),
                              (rec["cross_check"], "correction")):
            if name and (name, version) not in runs:
                runs[(name, version)] = errata.run_evidence(name, version)
    return [{"name": n, "version": v, **run} for (n, v), run in runs.items()]


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
    runs_by = {(r["name"], r["version"]): {k: v for k, v in r.items()
                                           if k not in ("name", "version")}
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
        out.append({
            **{k: rec[k] for k in ("id", "note", "quote", "claim_latex", "scope", "verdict",
                                    "reason", "reason_zh", "correction_latex",
                                    "correction_text", "correction_text_zh")},
            "note_title": titles.get(rec["note"], rec["note"]),
            "locator": notes.locate(text, rec["quote"]) if text is not None else None,
            "see_also": list(rec["see_also"]),
            "evidence": dict(runs_by[(rec["evidence"], "correction")]),
            "evidence_view": evidence_view(rec, runs_by, statuses),
        })
        counts = summary.setdefault(rec["note"], {})
        counts[rec["verdict"]] = counts.get(rec["verdict"], 0) + 1
    return {"records": out, "summary": summary,
            "notes": {n: {"title": t} for n, t in sorted(titles.items())}}
