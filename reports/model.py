"""Report data: its shape, its validation, and the view both renderers draw from.

Report data is plain JSON (see ``tests/fixtures/report_data.json``)::

    {"claims": [ChainResult.to_dict(), ...], "crosschecks": [record, ...],
     "plot_data": {...}, "training": {...}, "errata": {"records": [...], "summary": {...}}}

Everything a template shows is decided here, so templates only lay it out.
"""

from __future__ import annotations

import re
from typing import Any

from reports.render.katex import Tex

CLAIM_STATUS = ("proved", "numeric", "failed")
SYMBOLIC = ("zero", "inconclusive", "timeout", "error")
NUMERIC = ("agree", "disagree")
VERDICTS = ("correct", "error", "imprecise", "out-of-scope")
SECTIONS = ("claims", "crosschecks", "plot_data", "training", "errata")
_ID = re.compile(r"^[A-Za-z0-9_.-]+$")


LONG_INLINE_TEX = 90  # characters of LaTeX source


class ReportDataError(ValueError):
    """Report data does not have the documented shape."""


def _type_name(types: type | tuple[type, ...]) -> str:
    if isinstance(types, tuple):
        return " or ".join(t.__name__ for t in types)
    return types.__name__


def _get(obj: Any, key: str, types: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict):
        raise ReportDataError(f"{where}: expected dict, got {type(obj).__name__} {obj!r:.60}")
    if key not in obj:
        raise ReportDataError(f"{where}: missing key {key!r} (expected {_type_name(types)})")
    value = obj[key]
    # bool is an int in Python; a count or index given as true/false is still wrong.
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
        raise ReportDataError(
            f"{where}.{key}: expected {_type_name(types)}, got {type(value).__name__} {value!r:.60}"
        )
    return value


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _choice(obj: dict, key: str, allowed: tuple[str, ...], where: str) -> str:
    value = _get(obj, key, str, where)
    if value not in allowed:
        raise ReportDataError(f"{where}.{key}: expected one of {list(allowed)}, got {value!r}")
    return value


def _validate_claim(claim: Any, where: str) -> None:
    if not isinstance(claim, dict):
        raise ReportDataError(f"{where}: expected dict, got {type(claim).__name__}")
    cid = _get(claim, "id", str, where)
    if not _ID.match(cid):
        raise ReportDataError(f"{where}.id: expected letters, digits, '_', '.', '-', got {cid!r}")
    for key in ("title", "module", "statement"):
        _get(claim, key, str, where)
    status = _choice(claim, "status", CLAIM_STATUS, where)
    _get(claim, "seconds", (int, float), where)
    failed_step = _get(claim, "failed_step", (int, type(None)), where)
    if status == "failed" and failed_step is None:
        raise ReportDataError(f"{where}: status 'failed' needs failed_step, got None")
    for i, a in enumerate(_get(claim, "assumptions", list, where)):
        for key in ("name", "text", "latex"):
            _get(a, key, str, f"{where}.assumptions[{i}]")
    steps = _get(claim, "steps", list, where)
    if not steps:
        raise ReportDataError(f"{where}.steps: expected at least one step, got []")
    for i, step in enumerate(steps):
        sw = f"{where}.steps[{i}]"
        _get(step, "index", int, sw)
        _get(step, "latex", str, sw)
        _get(step, "rule", str, sw)
        _get(step, "by", list, sw)
        _choice(step, "symbolic", SYMBOLIC, sw)
        _choice(step, "numeric", NUMERIC, sw)
        _choice(step, "status", CLAIM_STATUS, sw)
        _get(step, "points", int, sw)
        cx = _get(step, "counterexample", (dict, type(None)), sw)
        if cx is not None:
            _get(cx, "point", dict, f"{sw}.counterexample")
            _get(cx, "previous", str, f"{sw}.counterexample")
            _get(cx, "current", str, f"{sw}.counterexample")


def validate(data: Any) -> None:
    """Raise ReportDataError naming the first field that is missing or of the wrong type."""
    if not isinstance(data, dict):
        raise ReportDataError(f"report data: expected dict, got {type(data).__name__}")
    for key in SECTIONS:
        if key not in data:
            raise ReportDataError(f"report data: missing key {key!r} (expected {list(SECTIONS)})")
    ids = set()
    for i, claim in enumerate(_get(data, "claims", list, "report data")):
        _validate_claim(claim, f"claims[{i}]")
        if claim["id"] in ids:
            raise ReportDataError(f"claims[{i}].id: duplicate id {claim['id']!r}")
        ids.add(claim["id"])
    for i, rec in enumerate(_get(data, "crosschecks", list, "report data")):
        w = f"crosschecks[{i}]"
        if _get(rec, "claim", str, w) not in ids:
            raise ReportDataError(f"{w}.claim: expected one of the claim ids, got {rec['claim']!r}")
        _get(rec, "id", str, w)
        _get(rec, "compared", str, w)
        for key in ("max_abs", "max_rel", "tolerance"):
            _get(rec, key, (int, float), w)
        _get(rec, "passed", bool, w)
    _get(data, "plot_data", dict, "report data")
    training = _get(data, "training", dict, "report data")
    _get(training, "steps", list, "training")
    _get(training, "loss", list, "training")
    errata = _get(data, "errata", dict, "report data")
    for i, rec in enumerate(_get(errata, "records", list, "errata")):
        w = f"errata.records[{i}]"
        for key in ("id", "note", "quote", "claim_latex"):
            _get(rec, key, str, w)
        _choice(rec, "verdict", VERDICTS, w)
        _get(rec, "correction_latex", (str, type(None)), w)
        _get(rec, "correction_text", (str, type(None)), w)
        ev = _get(rec, "evidence", dict, w)
        for key in ("kind", "ref", "detail"):
            _get(ev, key, str, f"{w}.evidence")
        _get(ev, "passed", bool, f"{w}.evidence")
        see_also = rec.get("see_also", [])  # optional: claim ids to link to
        if not isinstance(see_also, list) or not all(isinstance(i, str) for i in see_also):
            raise ReportDataError(f"{w}.see_also: expected list of claim ids, got {see_also!r:.60}")
    _get(errata, "summary", dict, "errata")


def _anchor(claim_id: str) -> str:
    return "claim-" + claim_id.replace(".", "-")


def _crosscheck_status(checks: list[dict]) -> str:
    if not checks:
        return "none"
    return "passed" if all(c["passed"] for c in checks) else "failed"


def _step_view(claim_id: str, step: dict) -> dict:
    cx = step["counterexample"]
    return {
        "index": step["index"],
        "tex": Tex(step["latex"], True, f"claim {claim_id!r} step {step['index']}"),
        "rule": step["rule"],
        "by": step["by"],
        "symbolic": step["symbolic"],
        "numeric": step["numeric"],
        "status": step["status"],
        "points": step["points"],
        "counterexample": None
        if cx is None
        else {
            "point": sorted(cx["point"].items()),
            "previous": cx["previous"],
            "current": cx["current"],
        },
    }


def _claim_view(claim: dict, checks: list[dict]) -> dict:
    cid = claim["id"]
    last = claim["steps"][-1]
    return {
        "id": cid,
        "anchor": _anchor(cid),
        "title": claim["title"],
        "module": claim["module"],
        "status": claim["status"],
        "seconds": f"{claim['seconds']:.2f}",
        "failed_step": claim["failed_step"],
        "statement": Tex(claim["statement"], True, f"claim {cid!r} statement"),
        "assumptions": [
            {
                "name": a["name"],
                "text": a["text"],
                # a lemma is a true identity or an earlier claim, not something assumed
                "kind": a.get("kind", "hypothesis"),
                "premise": claim.get("premises", {}).get(a["name"]),
                # a long premise gets a display line: inline \left(...\right) cannot break
                "tex": Tex(a["latex"], len(a["latex"]) > LONG_INLINE_TEX,
                           f"claim {cid!r} assumption {a['name']!r}"),
            }
            for a in claim["assumptions"]
        ],
        "steps": [_step_view(cid, s) for s in claim["steps"]],
        "final": Tex(last["latex"], True, f"claim {cid!r} final result"),
        "crosschecks": [
            {
                "id": c["id"],
                "compared": c["compared"],
                "max_abs": f"{c['max_abs']:.3e}",
                "max_rel": f"{c['max_rel']:.3e}",
                "tolerance": f"{c['tolerance']:.1e}",
                "passed": c["passed"],
            }
            for c in checks
        ],
        "crosscheck_status": _crosscheck_status(checks),
        "crosscheck_count": f"{sum(c['passed'] for c in checks)}/{len(checks)}",
    }


# Errors and imprecisions are shown in full, side by side; the claims found correct or out of
# scope only as one row each, so a reader sees they were checked without paging through them.
FULL_VERDICTS = ("error", "imprecise")


def _erratum_anchor(rec_id: str) -> str:
    return "erratum-" + re.sub(r"[^A-Za-z0-9_-]", "-", rec_id)


def _links(rec: dict, claims: dict[str, dict]) -> list[dict]:
    """Claims of this report that back the record: its evidence if that is a claim, then
    its ``see_also`` derivations (those not in the report have nowhere to link to)."""
    ids = [rec["evidence"]["ref"]] if rec["evidence"]["kind"] == "claim" else []
    ids += [i for i in rec.get("see_also") or [] if i not in ids]
    return [{"id": i, "anchor": claims[i]["anchor"], "title": claims[i]["title"]}
            for i in ids if i in claims]


def _erratum_view(rec: dict, claims: dict[str, dict]) -> dict:
    corr = rec["correction_latex"]
    return {
        "id": rec["id"],
        "anchor": _erratum_anchor(rec["id"]),
        "note": rec["note"],
        "quote": rec["quote"],
        "claim": Tex(rec["claim_latex"], False, f"erratum {rec['id']!r} claim"),
        "verdict": rec["verdict"],
        "correction": Tex(corr, False, f"erratum {rec['id']!r} correction") if corr else None,
        # The registry explains an erratum in its correction text, and sometimes adds a reason.
        "why": [t for t in (rec["correction_text"], rec.get("reason")) if t],
        "evidence": dict(rec["evidence"]),
        "links": _links(rec, claims),
    }


def _checked_view(rec: dict, claims: dict[str, dict]) -> dict:
    """One compact row: no formulas, the quote serves as the locator in the note."""
    return {
        "id": rec["id"],
        "anchor": _erratum_anchor(rec["id"]),
        "note": rec["note"],
        "quote": rec["quote"],
        "verdict": rec["verdict"],
        "reason": rec.get("reason") or "",
        "evidence": dict(rec["evidence"]),
        "links": _links(rec, claims),
    }


def _errata_views(records: list[dict], claims: dict[str, dict]) -> tuple[list[dict], list[dict]]:
    """Errors before imprecisions, each in registry order; checked rows grouped by note."""
    full = [_erratum_view(r, claims) for v in FULL_VERDICTS for r in records if r["verdict"] == v]
    notes = list(dict.fromkeys(r["note"] for r in records if r["verdict"] not in FULL_VERDICTS))
    checked = [
        {"note": note, "rows": [_checked_view(r, claims) for r in records
                                if r["note"] == note and r["verdict"] not in FULL_VERDICTS]}
        for note in sorted(notes)
    ]
    return full, checked


def build_view(data: dict, figures: list[dict]) -> dict:
    """Validate ``data`` and turn it into the view shared by the HTML and LaTeX templates.

    ``figures`` is the list from ``reports.plots.render`` (name, title, caption).
    """
    validate(data)
    by_claim: dict[str, list[dict]] = {}
    for rec in data["crosschecks"]:
        by_claim.setdefault(rec["claim"], []).append(rec)
    claims = [_claim_view(c, by_claim.get(c["id"], [])) for c in data["claims"]]
    counts = {s: sum(c["status"] == s for c in claims) for s in CLAIM_STATUS}
    checks = data["crosschecks"]
    summary = data["errata"]["summary"]
    errata_full, errata_checked = _errata_views(data["errata"]["records"],
                                                {c["id"]: c for c in claims})
    verdict_cols = [v for v in VERDICTS if any(v in row for row in summary.values())]
    return {
        "title": "Transformer derivations: verification report",
        "claims": claims,
        "counts": counts,
        "failed_claims": [c for c in claims if c["status"] == "failed"],
        "crosschecks_passed": sum(c["passed"] for c in checks),
        "crosschecks_total": len(checks),
        "crosschecks_failed": [c for c in checks if not c["passed"]],
        "figures": figures,
        "errata": errata_full,
        "errata_checked": errata_checked,
        "errata_summary": {
            "columns": verdict_cols,
            "rows": [
                {"note": note, "counts": [row.get(v, 0) for v in verdict_cols]}
                for note, row in sorted(summary.items())
            ],
            "totals": [sum(row.get(v, 0) for row in summary.values()) for v in verdict_cols],
        },
        "training_accuracy": data["training"].get("accuracy"),
    }


def formulas(view: dict) -> list[Tex]:
    """Every formula in the view, in page order (what the HTML renderer typesets)."""
    out: list[Tex] = []

    def walk(node: Any) -> None:
        if isinstance(node, Tex):
            out.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list | tuple):
            for value in node:
                walk(value)

    walk({"claims": view["claims"], "errata": view["errata"]})
    return out
