"""The view of one edition (English or Chinese): everything a template shows, decided here.

Words come from ``reports.render.i18n`` (data); numbers and formulas from the report data.
Templates only lay the view out: no lookups, no arithmetic, no formatting of numbers there.
"""

from __future__ import annotations

from typing import Any

from reports.render import i18n
from reports.render.katex import Prose, Tex, prose
from reports.view import model
from reports.view.errata import (
    FULL_VERDICTS,
    anchor,
    erratum,
    location,
    note_title,
    notes_summary,
    plain,
)
from reports.view.figures import caption as figure_caption

FILES = {"en": "index.html", "zh": "index.zh.html"}



def _timed_out(stop: dict | None, t: dict) -> str | None:
    """What stopped a timed-out step, in the edition's words; None for any other step."""
    if not stop:
        return None
    key = f"timed_out_{stop['route']}_{stop['by']}"
    limit = f"{stop['limit']:g}" if stop["by"] == "backstop" else f"{stop['limit']:,}"
    return t["claim"][key].format(limit=limit, points=stop.get("points", 0))

def _text(t: i18n.Text, label: str) -> Prose:
    if t.engine:  # the engine's own words: shown as written, a $ is a dollar
        return Prose((t.text,), t.missing)
    return prose(t.text, label, t.missing)


def _crosscheck(rec: dict, t: dict, lang: str) -> dict:
    power = rec.get("power")
    return {
        "id": rec["id"],
        "kind": rec["kind"],
        "kind_label": t["check"][rec["kind"]],
        # the sentence is written here, from the record's fields, in the edition's language
        "compared": _text(i18n.crosscheck(rec, lang), f"cross-check {rec['id']!r} compared"),
        "max_abs": model.number_view(rec["max_abs"]),
        "max_rel": model.number_view(rec["max_rel"]),
        "tolerance": model.number_view(rec["tolerance"], 2),
        # which error is compared with the tolerance (shown in bold): max_abs or max_rel
        "decides": rec.get("decides", "max_rel"),
        "passed": rec["passed"],
        # Monte Carlo power: what a plausible wrong formula would give, and that it would fail
        "power": None if not power else {
            "formula": Tex(power["formula"], False, f"cross-check {rec['id']!r} power"),
            "value": format(power["value"], ".4g"),
            "would_fail": bool(power["would_fail"]),
        },
    }


def _check_groups(records: list[dict], t: dict, lang: str) -> list[dict]:
    rows = [_crosscheck(r, t, lang) for r in records]
    groups = []
    for key, independent in (("independent", True), ("identity", False)):
        members = [r for r in rows if (r["kind"] in model.INDEPENDENT_KINDS) == independent]
        if members:
            groups.append({"key": key, "label": t["check"][f"{key}_group"], "rows": members,
                           "count": t["check"]["group_passed"].format(
                               n=f"{sum(r['passed'] for r in members)}/{len(members)}")})
    return groups


def _claim(claim: dict, checks: list[dict], cited_by: list[dict], lang: str, t: dict,
           user: bool = False, anchors: dict[str, str] | None = None) -> dict:
    """A claim's view in ``lang``.  A shipped claim's words come from the tables keyed by its
    id; a reader's claim (``user``) takes only its own ``zh`` (never a shipped claim's text for
    a name it happens to share), its English shown as written where it gives none, and the
    claim marked once (``untranslated``) rather than every string."""
    cid = claim["id"]
    base = model.claim_view(claim, checks)
    premises = claim.get("premises", {})
    words = _Own(claim.get("zh") or {}, lang) if user else _Shipped(cid, lang)
    names: dict[str, Prose] = {}
    assumptions = []
    for a, av in zip(claim["assumptions"], base["assumptions"], strict=True):
        name, text = words.assumption(a["name"], a["text"], cited=a["name"] in premises)
        names[a["name"]] = _text(name, f"claim {cid!r} assumption name")
        cites = None
        if a["name"] in premises:  # a cited claim: its title is the name; the text links it
            text = i18n.Text(t["claim"]["proved_as"], engine=True)
            cites = (anchors or {}).get(a["name"])
        formula = words.assumption_latex(a["name"], a["latex"])
        if formula != a["latex"]:
            av = {**av, "tex": Tex(formula, av["tex"].display, av["tex"].label)}
        assumptions.append({**av, "name": names[a["name"]],
                            "kind_label": t["claim"].get(av["kind"], av["kind"]),
                            "text": _text(text, f"claim {cid!r} assumption text"),
                            "cites": cites})
    # a step that folds or unfolds a definition cites it by its name, a formula
    definitions = [{**x, "text": _text(words.definition(x["text"]),
                                       f"claim {cid!r} definition text")}
                   for x in base["definitions"]]
    # cited by its symbol, as a textbook does: ḡ, Z_c (a name is the engine's handle)
    names.update({x["name"]: Prose((x["symbol"],)) if x["symbol"] else plain(x["name"])
                  for x in base["definitions"]})
    steps = [{**sv, "rule": _text(words.rule(s["rule"]), f"claim {cid!r} rule"),
              # SymPy evaluates as it builds: a step it turned into the one before says so
              "same_as_previous": prose(t["claim"]["same_as_previous"].format(
                  n=s["index"] - 1), f"claim {cid!r} step {s['index']}")
              if s["index"] > 1 and s["latex"] == claim["steps"][s["index"] - 2]["latex"]
              else None,
              "by": [names.get(b, plain(b)) for b in s["by"]],
              "symbolic_label": t["status"][s["symbolic"]],
              "numeric_label": t["status"][s["numeric"]],
              "points_label": t["claim"]["points"].format(n=sv["points"]),
              "timed_out": _timed_out(s.get("timed_out"), t)}
             for s, sv in zip(claim["steps"], base["steps"], strict=True)]
    return {**base, "title": _text(words.title(claim["title"]), f"claim {cid!r}"),
            "status_label": t["status"][claim["status"]],
            "assumptions": assumptions, "definitions": definitions, "steps": steps,
            "check_groups": _check_groups(checks, t, lang),
            "cited_by": cited_by, "untranslated": user and words.untranslated}


class _Shipped:
    """The words of a shipped claim: the i18n tables, keyed by its id."""

    untranslated = False

    def __init__(self, cid: str, lang: str):
        self.cid, self.lang = cid, lang

    def title(self, english: str) -> i18n.Text:
        return i18n.title(self.cid, english, self.lang)

    def rule(self, english: str) -> i18n.Text:
        return i18n.rule(self.cid, english, self.lang)

    def assumption(self, name: str, text: str, cited: bool) -> tuple[i18n.Text, i18n.Text]:
        return i18n.assumption(self.cid, name, text, self.lang, cited=cited)

    def assumption_latex(self, name: str, latex: str) -> str:
        return i18n.assumption_latex(self.cid, name, latex, self.lang)

    def definition(self, english: str) -> i18n.Text:
        return i18n.definition(english, self.lang)


class _Own:
    """The words of a reader's claim: its own ``zh`` only; its English, unmarked, where that
    gives none (``untranslated`` then says so once, for the whole claim)."""

    def __init__(self, zh: dict, lang: str):
        self.zh, self.lang, self.untranslated = zh, lang, False

    def _pick(self, chinese: str | None, english: str) -> i18n.Text:
        if self.lang == "en" or not chinese:
            self.untranslated |= self.lang != "en"
            return i18n.Text(english, engine=True)
        return i18n.Text(chinese, engine=True)

    def title(self, english: str) -> i18n.Text:
        return self._pick(self.zh.get("title"), english)

    def rule(self, english: str) -> i18n.Text:
        return self._pick(self.zh.get("rules", {}).get(english), english)

    def assumption(self, name: str, text: str, cited: bool) -> tuple[i18n.Text, i18n.Text]:
        own = self.zh.get("assumptions", {}).get(name, {})
        if cited:  # a cited claim is named by its id, as written
            return i18n.Text(name, engine=True), i18n.Text(text, engine=True)
        return self._pick(own.get("name"), name), self._pick(own.get("text"), text)

    def assumption_latex(self, name: str, latex: str) -> str:
        return latex

    def definition(self, english: str) -> i18n.Text:
        if not english:
            return i18n.Text(english, engine=True)
        return self._pick(self.zh.get("definitions", {}).get(english), english)


def _counts(claims: list[dict]) -> dict[str, int]:
    return {st: sum(c["status"] == st for c in claims) for st in model.CLAIM_STATUS}


def _parts(counts: dict[str, int], t: dict) -> str:
    """Every status that occurs, and failed always: "0 failed" is news too."""
    return t["meta"]["comma"].join(t["count"][st].format(n=n) for st, n in counts.items()
                                    if n or st == "failed")


def section_numbers(claims: list[dict]) -> dict[str, str]:
    """Each claim's number in the full report's PDF, ``"topic.claim"`` (§4.2): its topics in the
    order their modules first occur, each claim a numbered subsection of its topic. The student
    edition prints it beside its mark, so that a reader of that PDF alone finds the evidence."""
    modules = list(dict.fromkeys(c["module"] for c in claims))
    out: dict[str, str] = {}
    for i, module in enumerate(modules, start=1):
        for j, c in enumerate((c for c in claims if c["module"] == module), start=1):
            out[c["id"]] = f"{i}.{j}"
    return out


def build_view(data: dict, figures: list[dict], lang: str = "en",
               meta: dict | None = None) -> dict:
    """The view of edition ``lang`` of ``data`` (validated here)."""
    model.validate(data)
    t = i18n.ui(lang)
    records = data["errata"]["records"]
    titles = {r["note"]: r["note_title"] for r in records if r.get("note_title")}
    titles.update({n: v["title"] for n, v in (data["errata"].get("notes") or {}).items()
                   if isinstance(v, dict) and v.get("title")})
    by_claim: dict[str, list[dict]] = {}
    for rec in data["crosschecks"]:
        by_claim.setdefault(rec["claim"], []).append(rec)
    anchors = {c["id"]: model.claim_anchor(c["id"])
               for c in data["claims"] + data.get(model.USER_CLAIMS, [])}
    cited: dict[str, list[dict]] = {}
    for rec in records:
        ids = [rec["evidence"]["ref"]] if rec["evidence"]["kind"] == "claim" else []
        for cid in dict.fromkeys(ids + list(rec.get("see_also") or [])):
            if cid in anchors:
                # named by where it stands, as the jump lists do; the id is the link's title
                where = location(rec, t)
                note = note_title(rec["note"], t, titles)
                cited.setdefault(cid, []).append({
                    "id": rec["id"], "anchor": anchor("erratum-", rec["id"]),
                    "verdict": rec["verdict"],
                    "label": t["errata"]["cited_label"].format(note=note, where=where or "")
                    .strip()})
    claims = [_claim(c, by_claim.get(c["id"], []), cited.get(c["id"], []), lang, t,
                     anchors=anchors) for c in data["claims"]]
    # the reader's own claims (--claims): one more topic, laid out like every other; an erratum
    # of the reader's notes may cite one as its evidence
    yours = [_claim(c, [], cited.get(c["id"], []), lang, t, user=True, anchors=anchors)
             for c in data.get(model.USER_CLAIMS, [])]
    by_id = {c["id"]: c for c in claims + yours}
    topics = []
    for module in dict.fromkeys(c["module"] for c in claims):
        topics.append({"id": module, "anchor": anchor("topic-", module),
                       "name": t["topic"].get(module, t["topic"]["other"]),
                       "claims": [c for c in claims if c["module"] == module]})
    if yours:
        topics.append({"id": model.YOURS, "anchor": anchor("topic-", model.YOURS),
                       "name": t["topic"][model.YOURS], "claims": yours})
    checks = data["crosschecks"]
    independent = [c for c in checks if c["kind"] in model.INDEPENDENT_KINDS]
    identity = [c for c in checks if c["kind"] not in model.INDEPENDENT_KINDS]
    full = [erratum(r, by_id, lang, t) for v in FULL_VERDICTS for r in records
            if r["verdict"] == v]
    checked = []
    for note in sorted(dict.fromkeys(r["note"] for r in records)):
        # compact rows: the quote is the locator, no formulas
        rows = [{**erratum(r, by_id, lang, t), "claim": None, "correction": None}
                for r in records if r["note"] == note and r["verdict"] not in FULL_VERDICTS]
        if rows:
            checked.append({"note": note, "title": note_title(note, t, titles), "rows": rows,
                            "anchor": anchor("note-", note)})
    meta = meta or {}
    other = "zh" if lang == "en" else "en"
    # the reader's claims count like the shipped ones, and are counted once more on their own
    counts = _counts(claims + yours)
    accuracy = data["training"].get("accuracy")
    line = "claim_line" if len(claims) + len(yours) == 1 else "claims_line"
    summary = [t["summary"][line].format(n=len(claims) + len(yours), parts=_parts(counts, t))]
    if yours and claims:  # a report of yours alone says it once
        summary.append(t["summary"]["yours_line"].format(n=len(yours),
                                                         parts=_parts(_counts(yours), t)))
    if checks:  # a report of the reader's claims only has none
        summary.append(t["summary"]["checks_line"].format(
            independent=f"{sum(c['passed'] for c in independent)}/{len(independent)}",
            identity=f"{sum(c['passed'] for c in identity)}/{len(identity)}"))
    if accuracy is not None:
        summary.append(t["summary"]["training_line"].format(accuracy=f"{accuracy:.3f}"))
    return {
        "lang": lang, "t": t, "title": t["meta"]["title"],
        "file": FILES[lang], "other_file": FILES[other],
        "date": meta.get("date", ""), "version": meta.get("version", ""),
        "claims": claims, "topics": topics,
        "counts": counts, "summary": summary, "statuses": list(model.CLAIM_STATUS),
        "failed_claims": [c for c in claims + yours if c["status"] == "failed"],
        "crosschecks_passed": sum(c["passed"] for c in checks),
        "crosschecks_total": len(checks),
        "independent": f"{sum(c['passed'] for c in independent)}/{len(independent)}",
        "identity": f"{sum(c['passed'] for c in identity)}/{len(identity)}",
        "crosschecks_failed": [c for c in checks if not c["passed"]],
        "figures": [{**f, "file": model.figure_stem(f["name"], lang),
                     "title": _text(i18n.Text(t["figure"][f"{f['name']}_title"]),
                                         f"figure {f['name']}"),
                     "caption": _text(i18n.Text(figure_caption(
                         f["name"], t["figure"][f"{f['name']}_caption"], t,
                         data.get("plot_data") or {})),
                                      f"figure {f['name']} caption")} for f in figures],
        "errata": full, "errata_checked": checked,
        # what a report of your own claims or notes lacks is left out, not shown empty
        "has_errata": bool(records), "has_crosschecks": bool(checks),
        # "the same check rejects a wrong variant" holds of an audit whose correct records all
        # run one; of yours, the guide says what each entry's rows say
        "verdict_guide": t["guide"]["verdicts"] if all(
            any(r["version"] == "foil"
                for r in (rec.get("evidence_view") or rec["evidence"]).get("rows", ()))
            or rec["verdict"] != "correct" or rec["evidence"]["kind"] == "sources"
            for rec in records) else t["guide"]["verdicts_rows"],
        "notes_summary": notes_summary(records, t, titles, data["errata"].get("notes"),
                                       data.get("notes_reading"), lang),
        "training_accuracy": None if data["training"].get("accuracy") is None
        else f"{data['training']['accuracy']:.3f}",
    }


def formulas(view: dict) -> list[Tex]:
    """Every formula of the view in page order, prose included (what KaTeX typesets)."""
    out: list[Tex] = []

    def walk(node: Any) -> None:
        if isinstance(node, Tex):
            out.append(node)
        elif isinstance(node, Prose):
            out.extend(p for p in node.parts if isinstance(p, Tex))
        elif isinstance(node, dict):
            for key, value in node.items():
                if key != "t":
                    walk(value)
        elif isinstance(node, list | tuple):
            for value in node:
                walk(value)

    walk(view)
    return out
