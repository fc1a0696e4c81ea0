"""The errata's view, shared by both editions and the student edition: an erratum's card (the
note's words and formula, the correction, the reasons, the evidence of each version), where its
quote stands, and the by-note table with each note's coverage.  Words come from the edition's
ui strings ``t``; formulas are shown as each language has them (``*_zh`` twins)."""

from __future__ import annotations

import re

from reports.render.katex import Prose, Tex, prose
from reports.view import model

FULL_VERDICTS = ("error", "imprecise", "reported")


def plain(text: str) -> Prose:
    """Text from the engine or the registry: shown as is, never parsed for $."""
    return Prose((text,))


def anchor(prefix: str, ident: str) -> str:
    return prefix + re.sub(r"[^A-Za-z0-9_-]", "-", ident)


def note_title(file: str, t: dict, titles: dict[str, str] | None = None) -> str:
    """A note by its title: the audit's, else the report's own list, else its file name."""
    return (titles or {}).get(file) or t["notes"].get(file, file)


def _evidence(rec: dict, lang: str, t: dict) -> dict:
    """Rows of the evidence view {version, label, value, math, passed} and a summary.

    The audit's view (``evidence.rows``) is used when present; older data has one result,
    shown as the correction's (or the claim's) row with an honest note that the note's own
    version was not run separately.
    """
    ev = rec["evidence"]
    shown = {rec["claim_latex"], rec.get("correction_latex")}
    # the audit's rows carry the registry's formulas as written; each edition shows its own
    twin = {rec[k]: formula(rec, k, lang) for k in model.FORMULAS if rec.get(k)}
    audit_view = rec.get("evidence_view") or (ev if "rows" in ev else {})
    rows_in = audit_view.get("rows")
    if rows_in:
        rows = []
        for r in rows_in:
            # the audit's label names the version in the reader's language
            label = r["label"].get(lang)
            rows.append({"version": r["version"],
                         "version_label": label or t["errata"][f"{r['version']}_version"],
                         "label": None, "value": _value(r["value"], lang,
                                                       f"erratum {rec['id']!r} evidence"),
                         # the card shows the note's and the corrected formula already
                         "math": Tex(twin.get(r["math"], r["math"]), False,
                                     f"erratum {rec['id']!r} evidence")
                         if r.get("math") and r["math"] not in shown else None,
                         "passed": r["passed"],
                         # a reference to the literature, shown in the source's own language
                         "reference": r["version"] == "cited"})
        summary = audit_view.get("summary") or {}
        return {"rows": rows, "summary": _value(summary, lang, f"erratum {rec['id']!r} summary")
                if summary else None,
                # a correction shown without the note's own version deserves the remark; a
                # reported typo (source, note), a correct claim (note, foil) or a source-based
                # record (cited) does not
                "note_run": any(r["version"] == "note" for r in rows_in)
                or not any(r["version"] == "correction" for r in rows_in)}
    version = "correction" if rec["verdict"] in FULL_VERDICTS else "independent"
    row = {"version": version, "version_label": t["errata"][f"{version}_version"],
           "label": plain(ev["kind"]), "value": plain(ev["detail"]), "math": None,
           "passed": ev["passed"], "reference": False}
    return {"rows": [row], "summary": None, "note_run": False}


def _value(value: str | dict, lang: str, label: str) -> Prose:
    """An evidence value {en, zh} in ``lang``, inline ``$…$`` typeset; the English marked
    missing when ``lang`` is absent. A plain string (older data) is shown as written."""
    if isinstance(value, str):
        return plain(value)
    text = value.get(lang) or value["en"]
    return prose(text, label, missing=lang not in value)


def zh_twin(rec: dict, key: str, lang: str, math: bool = False) -> Prose | None:
    """``rec[key]`` in ``lang`` (its ``_zh`` twin for Chinese); with ``math``, the registry's
    prose convention: inline formulas between ``$`` (checked by KaTeX like every formula)."""
    english = rec.get(key)
    if not english:
        return None
    twin = english if lang == "en" else rec.get(f"{key}_zh")
    text = twin or english
    label = f"erratum {rec.get('id')!r} {key}"
    if math:
        return prose(text, label, missing=not twin)
    return Prose((text,), missing=not twin)


def location(rec: dict, t: dict) -> str | None:
    """Where the quote stands: its sentence in a note flattened to one line (where a line
    number says nothing), else its line."""
    loc = rec.get("locator") or {}
    if loc.get("unit") == "sentence" and loc.get("sentence"):
        return t["errata"]["sentence"].format(loc["sentence"])
    line = rec.get("line") or loc.get("line")
    return t["errata"]["line"].format(line) if line else None


def formula(rec: dict, key: str, lang: str) -> str | None:
    """A record's formula as edition ``lang`` shows it: for Chinese its ``_zh`` twin, the same
    LaTeX with the words inside ``\\text{}`` translated, where the registry gives one."""
    return (lang == "zh" and rec.get(f"{key}_zh")) or rec.get(key)


def erratum(rec: dict, claims: dict[str, dict], lang: str, t: dict) -> dict:
    corr = formula(rec, "correction_latex", lang)
    claim = formula(rec, "claim_latex", lang)
    words = zh_twin(rec, "correction_text", lang, math=True)
    ids = [rec["evidence"]["ref"]] if rec["evidence"]["kind"] == "claim" else []
    ids += [i for i in rec.get("see_also") or [] if i not in ids]
    return {
        "id": rec["id"], "anchor": anchor("erratum-", rec["id"]),
        "note": rec["note"], "note_title": rec.get("note_title") or note_title(rec["note"], t),
        "quote": rec["quote"],
        # the quote with the note's math typeset, where the audit found it typesets
        "quote_prose": prose(rec["quote_prose"], f"erratum {rec['id']!r} quote")
        if rec.get("quote_prose") else None,
        "location": location(rec, t),
        "context": rec.get("context"),
        "scope": None if rec.get("scope", "transformer-math") == "transformer-math"
        else t["scope"].get(rec["scope"], rec["scope"]),
        "claim": Tex(claim, False, f"erratum {rec['id']!r} claim") if claim else None,
        "verdict": rec["verdict"], "verdict_label": t["verdict"][rec["verdict"]],
        "correction": Tex(corr, False, f"erratum {rec['id']!r} correction") if corr else None,
        # a correction given in words only stands where the formula would
        "correction_words": None if corr else words,
        "why": [p for p in (words if corr else None,
                            zh_twin(rec, "reason", lang, math=True),
                            zh_twin(rec, "reading", lang, math=True),
                            zh_twin(rec, "rejudged", lang, math=True)) if p],
        "evidence": _evidence(rec, lang, t),
        "links": [{"id": i, "anchor": claims[i]["anchor"], "title": claims[i]["title"]}
                  for i in ids if i in claims],
    }


def _coverage(cov: dict | None, t: dict) -> str | None:
    """How much of a note the audit covers, in the edition's words."""
    if not cov or not cov.get("sentences"):
        return None
    key = "coverage_marks" if cov.get("marks") else "coverage"
    return t["errata"][key].format(covered=cov["covered"], sentences=cov["sentences"],
                                   share=f"{100 * cov['covered'] / cov['sentences']:.0f}")


def _reading(note: str, reading: dict | None, t: dict, lang: str) -> dict | None:
    """What the notes reader made of a LaTeX note: its counts per verdict and its annotated
    page (``reading``: {file: NoteResult.to_dict()}, the report's notes stage)."""
    got = (reading or {}).get(note)
    if not got:
        return None
    from derivations.notes.model import MARKS
    from derivations.notes.model import VERDICTS as NOTE_VERDICTS

    counts = got["counts"]
    parts = ", ".join(f"{counts[v]} {MARKS[v]} {v}" for v in NOTE_VERDICTS if counts.get(v))
    stem = note.rsplit(".", 1)[0]
    return {"line": t["errata"]["reader_line"].format(n=len(got["formulas"]), parts=parts),
            "href": f"notes/{stem}{'' if lang == 'en' else '.zh'}.html",
            "link": t["errata"]["reader_link"]}


def notes_summary(records: list[dict], t: dict, titles: dict[str, str],
                   about: dict | None = None, reading: dict | None = None,
                   lang: str = "en") -> dict:
    """Per note: its verdict counts, its full entries by where they stand, how much of it
    the audit covers (``about``: the audit's notes, {file: {title, coverage}}) and, for a LaTeX
    note, what the notes reader made of it (``reading``)."""
    verdicts = [v for v in model.VERDICTS if any(r["verdict"] == v for r in records)]
    notes = sorted(dict.fromkeys(r["note"] for r in records))
    rows = []
    for note in notes:
        mine = [r for r in records if r["note"] == note]
        info = (about or {}).get(note)
        rows.append({"note": note, "title": note_title(note, t, titles),
                     "anchor": anchor("note-", note),
                     "coverage": _coverage(info.get("coverage") if isinstance(info, dict)
                                           else None, t),
                     "counts": [sum(r["verdict"] == v for r in mine) for v in verdicts],
                     "reading": _reading(note, reading, t, lang),
                     # each entry named by where it stands in the note, in the edition's words
                     "full": [{"id": r["id"], "anchor": anchor("erratum-", r["id"]),
                               "label": location(r, t) or r["id"], "verdict": r["verdict"]}
                              for v in FULL_VERDICTS for r in mine if r["verdict"] == v]})
    return {"columns": [t["verdict"][v] for v in verdicts], "verdicts": verdicts, "rows": rows,
            "totals": [sum(r["verdict"] == v for r in records) for v in verdicts]}
