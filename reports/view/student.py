"""The student edition's view: a few derivations per topic, in teaching order, each with its
main steps, one line of evidence, the notes' errata on it and its figure.

The topics and their derivations are data (``reports/render/student.toml``); the words are in
``ui.toml`` (section ``[student]``). Every number is formatted here, as a formula
(:func:`sci`), so templates only lay the view out. Nothing visible names a claim id, a module
or a record id: anchors are short (``t3``, ``t3-e1``), links to the full report use its
anchors in ``href`` only.
"""

from __future__ import annotations

import math
import re
import tomllib
from functools import cache
from pathlib import Path

from reports.render import i18n
from reports.render.katex import Prose, Tex, prose
from reports.view import edition, errata, model

STUDENT = Path(__file__).resolve().parent.parent / "render" / "student.toml"
FILES = {"en": "student.html", "zh": "student.zh.html"}
PDFS = {"en": "report.en.pdf", "zh": "report.zh.pdf"}
# the verdicts shown inline: what a student must not take from the notes as written
INLINE_VERDICTS = errata.FULL_VERDICTS
_SLOT = re.compile(r"\{(\w+)\}")


@cache
def topics_data() -> list[dict]:
    return tomllib.loads(STUDENT.read_text(encoding="utf-8"))["topic"]


def sci(x: float, digits: int = 2) -> Tex:
    """``x`` as a number a reader reads: 0.25, 3.1 × 10⁻⁴ (a formula, never ``3.1e-04``)."""
    m, exp = model.sci_parts(x, digits)
    if exp is None:
        return Tex(m)
    return Tex(f"10^{{{exp}}}" if m == "1" else f"{m}\\times 10^{{{exp}}}")


def fill(template: str, label: str, **slots: str | Tex | Prose) -> Prose:
    """``template`` (ui text, inline ``$…$`` allowed) with each ``{name}`` replaced by a slot:
    a string as text, a formula as a formula, prose as its parts."""
    out: list[str | Tex] = []
    for part in prose(template, label).parts:
        if not isinstance(part, str):
            out.append(part)
            continue
        pos = 0
        for m in _SLOT.finditer(part):
            out.append(part[pos:m.start()])
            value = slots[m.group(1)]
            if isinstance(value, Prose):
                out.extend(value.parts)
            else:
                out.append(value)
            pos = m.end()
        out.append(part[pos:])
    merged: list[str | Tex] = []
    for p in out:
        if isinstance(p, str) and merged and isinstance(merged[-1], str):
            merged[-1] += p
        elif p != "":
            merged.append(p)
    return Prose(tuple(merged))


def _deciding(rec: dict) -> float:
    return rec[rec["decides"]]


def evidence_line(claim: dict, checks: list[dict], s: dict) -> Prose:
    """One line: how the derivation was verified, and the cross-check nearest its tolerance
    (its deciding error, absolute or relative, beside that tolerance)."""
    status = s[f"status_{claim['status'].replace(' ', '_')}"]
    if not checks:
        return fill(s["evidence_nocheck"], "evidence", status=status)
    worst = max(checks, key=lambda r: (_deciding(r) / r["tolerance"] if r["tolerance"]
                                       else math.inf, r["id"]))
    passed = sum(r["passed"] for r in checks)
    return fill(s["evidence_checks"], "evidence", status=status,
                passed=str(passed), total=str(len(checks)),
                error=sci(_deciding(worst)), tolerance=sci(worst["tolerance"], 1),
                measure=s[f"measure_{worst['decides']}"])


def _claim(claim: dict, checks: list[dict], lang: str, t: dict, full: str) -> dict:
    c = edition._claim(claim, checks, [], lang, t)
    return {"title": c["title"], "status": c["status"], "statement": c["statement"],
            "definitions": c["definitions"],
            "steps": [{"tex": st["tex"], "rule": st["rule"], "by": st["by"],
                       "failed": st["status"] == "failed"} for st in c["steps"]],
            "evidence": evidence_line(claim, checks, t["student"]),
            "href": f"{full}#{c['anchor']}"}


def _cited(rec: dict) -> list[str]:
    ids = [rec["evidence"]["ref"]] if rec["evidence"]["kind"] == "claim" else []
    return list(dict.fromkeys(ids + list(rec.get("see_also") or [])))


def topic_of(rec: dict, modules: dict[str, str]) -> str | None:
    """The key of the first topic that shows a claim the erratum cites, else the first whose
    modules hold one; None when it cites none of them."""
    cited = _cited(rec)
    for topic in topics_data():
        if any(cid in topic["claims"] for cid in cited):
            return topic["key"]
    for topic in topics_data():
        if any(modules.get(cid) in topic["modules"] for cid in cited):
            return topic["key"]
    return None


def _erratum(rec: dict, lang: str, t: dict, anchor: str, full: str) -> dict:
    e = errata.erratum(rec, {}, lang, t)
    return {"anchor": anchor, "href": f"{full}#{e['anchor']}",
            "note_title": e["note_title"], "location": e["location"], "quote": e["quote"],
            "verdict": e["verdict"], "verdict_label": e["verdict_label"],
            "note_formula": e["claim"], "corrected": e["correction"], "why": e["why"],
            # an imprecise statement: the condition the note leaves out
            "missing": errata.zh_twin(rec, "missing_condition", lang, math=True),
            "evidence": [{"label": r["version_label"], "value": r["value"],
                          "passed": r["passed"],
                          "reference": r["reference"]}
                         for r in e["evidence"]["rows"]]}


def build_view(data: dict, figures: list[dict], lang: str = "en",
               meta: dict | None = None) -> dict:
    """The student edition ``lang`` of ``data``."""
    model.validate(data)
    t = i18n.ui(lang)
    s = t["student"]
    full = edition.FILES[lang]
    claims = {c["id"]: c for c in data["claims"]}
    modules = {c["id"]: c["module"] for c in data["claims"]}
    checks: dict[str, list[dict]] = {}
    for rec in data["crosschecks"]:
        checks.setdefault(rec["claim"], []).append(rec)
    errata: dict[str, list[dict]] = {}
    for rec in data["errata"]["records"]:
        if rec["verdict"] in INLINE_VERDICTS:
            key = topic_of(rec, modules)
            errata.setdefault(key or "", []).append(rec)
    pictures = {f["name"]: f for f in figures}
    topics = []
    for n, topic in enumerate(topics_data(), start=1):
        key, anchor = topic["key"], f"t{n}"
        shown = [_claim(claims[cid], checks.get(cid, []), lang, t, full)
                 for cid in topic["claims"] if cid in claims]
        fig = pictures.get(topic.get("figure", ""))
        topics.append({
            "key": key, "anchor": anchor, "number": n,
            "number_label": s["section_number"].format(n=n),
            "name": prose(s[f"topic_{key}"], f"student topic {key}"),
            "intro": prose(s[f"intro_{key}"], f"student intro {key}"),
            "claims": shown,
            "errata": [_erratum(r, lang, t, f"{anchor}-e{i}", full)
                       for i, r in enumerate(errata.get(key, []), start=1)],
            "figure": None if fig is None else {
                "name": fig["name"], "file": model.figure_stem(fig["name"], lang),
                "title": prose(t["figure"][f"{fig['name']}_title"], f"figure {fig['name']}"),
                "caption": prose(t["figure"][f"{fig['name']}_caption"],
                                 f"figure {fig['name']} caption")},
        })
    other = [_erratum(r, lang, t, f"e{i}", full)
             for i, r in enumerate(errata.get("", []), start=1)]
    meta = meta or {}
    counted = [r for r in data["errata"]["records"]]
    return {
        "lang": lang, "t": t, "s": s, "title": s["title"],
        "file": FILES[lang], "other_file": FILES["zh" if lang == "en" else "en"],
        "full_file": full, "full_pdf": PDFS[lang],
        "date": meta.get("date", ""), "version": meta.get("version", ""),
        "topics": topics, "other_errata": other,
        "counts": fill(s["counts"], "student counts", claims=str(len(data["claims"])),
                       shown=str(sum(len(x["claims"]) for x in topics)),
                       errata=str(sum(r["verdict"] in INLINE_VERDICTS for r in counted)),
                       records=str(len(counted))),
    }


def visible_text(view: dict) -> list[str]:
    """Every string of the view a reader sees (formulas and link targets excluded)."""
    out: list[str] = []

    def walk(node: object, key: str = "") -> None:
        if isinstance(node, Prose):
            out.extend(p if isinstance(p, str) else p.text for p in node.parts
                       if not isinstance(p, Tex))
        elif isinstance(node, str):
            if key not in ("href", "anchor", "key", "file", "other_file", "full_file",
                           "full_pdf", "lang", "name", "status", "verdict", "date", "version"):
                out.append(node)
        elif isinstance(node, dict):
            for k, v in node.items():
                if k not in ("t", "s"):
                    walk(v, k)
        elif isinstance(node, list | tuple):
            for v in node:
                walk(v, key)

    walk(view)
    return out
