"""Report data: its shape, its validation, and the view both renderers draw from.

Report data is plain JSON (see ``tests/fixtures/report_data.json``)::

    {"claims": [ChainResult.to_dict(), ...], "crosschecks": [record, ...],
     "plot_data": {...}, "training": {...}, "errata": {"records": [...], "summary": {...}}}

A claim is printed as its author wrote it: the statement, steps and result with its definitions
folded, and the definitions themselves (``"definitions"``: [{name, latex, symbol, text}], optional).

Everything a template shows is decided here, so templates only lay it out.
"""

from __future__ import annotations

import math
import re
from typing import Any

from derivations.engine.core.status import NUMERIC_OUTCOMES as NUMERIC
from derivations.engine.core.status import STATUSES as CLAIM_STATUS
from derivations.engine.core.status import SYMBOLIC_OUTCOMES as SYMBOLIC
from numeric.crosscheck.core import DECIDES, Kind
from reports.render.katex import Tex

# a claim's conditions (derivations.engine.core.conditions): given to both routes, where values are
# drawn, random variables and the family of distributions they are checked under
CONDITION_KINDS = ("symbol", "hypothesis", "index", "sampled", "random")
DISTRIBUTIONS = ("any", "normal")
VERDICTS = ("correct", "error", "imprecise", "reported", "out-of-scope")
# an erratum's formulas; each may come with a Chinese twin, "<key>_zh" (its \text{} translated)
FORMULAS = ("claim_latex", "correction_latex", "source_latex")
# the reader's own claims (``make reports CLAIMS=...``): an optional section of the data, shown
# as a topic of its own
USER_CLAIMS = "user_claims"
YOURS = "yours"
SECTIONS = ("claims", "crosschecks", "plot_data", "training", "errata")
# a cross-check's kind (numeric.crosscheck.core.Kind), in the order the report groups them
CHECK_KINDS = tuple(k.value for k in Kind)
INDEPENDENT_KINDS = tuple(k.value for k in Kind if k.independent)
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
    # the notation it is written in (older data has none)
    defined = _get(claim, "definitions", list, where) if "definitions" in claim else []
    for i, x in enumerate(defined):
        for key in ("name", "latex", "text"):
            _get(x, key, str, f"{where}.definitions[{i}]")
        if "symbol" in x:  # how a step cites it (older data cites it by name)
            _get(x, "symbol", str, f"{where}.definitions[{i}]")
    for i, c in enumerate(_get(claim, "conditions", list, where)):
        cw = f"{where}.conditions[{i}]"
        if not isinstance(c, dict):
            raise ReportDataError(f"{cw}: expected dict, got {type(c).__name__}")
        _get(c, "latex", str, cw)
        if _choice(c, "kind", CONDITION_KINDS, cw) == "random":
            _choice(c, "distribution", DISTRIBUTIONS, cw)
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
        step_status = _choice(step, "status", CLAIM_STATUS, sw)
        _get(step, "points", int, sw)
        stop = step.get("timed_out")
        if step_status == "timed out" or stop is not None:
            tw = f"{sw}.timed_out"
            if step_status != "timed out":
                raise ReportDataError(f"{tw}: expected null for a step that is {step_status!r}, "
                                      f"got {stop!r:.60}")
            _get(step, "timed_out", dict, sw)
            _choice(stop, "route", ("symbolic", "numeric"), tw)
            _choice(stop, "by", ("operations", "backstop", "work", "digits", "size"), tw)
            _get(stop, "limit", (int, float), tw)
            _get(stop, "points", int, tw)
        cx = _get(step, "counterexample", (dict, type(None)), sw)
        if cx is not None:
            _get(cx, "point", dict, f"{sw}.counterexample")
            _get(cx, "previous", str, f"{sw}.counterexample")
            _get(cx, "current", str, f"{sw}.counterexample")


# computed: the facts shown once; source: the formula of a note's source; foil: a wrong variant
# a correct claim's evidence rejects; cited: the literature a record rests on
EVIDENCE_VERSIONS = ("note", "correction", "independent", "computed", "source", "foil", "cited")


def _validate_evidence_view(view: dict, where: str) -> None:
    """The audit's evidence view, when present: rows of {version, label{en,zh}, value{en,zh},
    math, passed} and a summary {en, zh}; an older plain-string value is shown as is. A row
    that judges nothing (computed facts, cited sources) has ``passed`` None."""
    if "rows" not in view:
        return
    for i, row in enumerate(_get(view, "rows", list, where)):
        rw = f"{where}.rows[{i}]"
        _choice(row, "version", EVIDENCE_VERSIONS, rw)
        label = _get(row, "label", dict, rw)
        _get(label, "en", str, f"{rw}.label")
        value = _get(row, "value", (str, dict), rw)
        if isinstance(value, dict):  # {en, zh?}: the same facts in both languages
            _get(value, "en", str, f"{rw}.value")
        _get(row, "math", str, rw)
        _get(row, "passed", (bool, type(None)), rw)
    if "summary" in view:
        _get(_get(view, "summary", dict, where), "en", str, f"{where}.summary")


def _validate_crosscheck(rec: Any, w: str, ids: set[str]) -> None:
    """A cross-check record (``numeric.crosscheck.core.Record.to_dict()``): its fields, from
    which the report writes its sentence."""
    if _get(rec, "claim", str, w) not in ids:
        raise ReportDataError(f"{w}.claim: expected one of the claim ids, got {rec['claim']!r}")
    _get(rec, "id", str, w)
    _choice(rec, "kind", CHECK_KINDS, w)
    _get(rec, "compared", str, w)
    _get(rec, "tensor", (str, type(None)), w)
    values = _get(rec, "values", dict, w)
    for name in values:
        _get(values, name, (str, int, float), f"{w}.values")
    for key in ("max_abs", "max_rel", "tolerance"):
        _get(rec, key, (int, float), w)
    _choice(rec, "decides", DECIDES, w)
    _get(rec, "passed", bool, w)
    power = _get(rec, "power", dict, w) if "power" in rec else None
    if power is not None:
        _get(power, "formula", str, f"{w}.power")
        _get(power, "value", (int, float), f"{w}.power")
        _get(power, "would_fail", bool, f"{w}.power")


def _validate_user_claims(data: dict) -> None:
    """``data[USER_CLAIMS]`` (optional) is a list of claims, each valid and with an id of its
    own."""
    if USER_CLAIMS not in data:
        return
    if not isinstance(data[USER_CLAIMS], list):
        raise ReportDataError(f"report data.{USER_CLAIMS}: expected list, got "
                              f"{type(data[USER_CLAIMS]).__name__}")
    ids = {c.get("id") for c in data["claims"] if isinstance(c, dict)}
    for i, claim in enumerate(data[USER_CLAIMS]):
        _validate_claim(claim, f"{USER_CLAIMS}[{i}]")
        if not isinstance(claim.get("zh", {}), dict):  # its own Chinese, optional
            raise ReportDataError(f"{USER_CLAIMS}[{i}].zh: expected dict, got "
                                  f"{type(claim['zh']).__name__}")
        if claim["id"] in ids:
            raise ReportDataError(f"{USER_CLAIMS}[{i}].id: duplicate id {claim['id']!r}")
        ids.add(claim["id"])


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
    _validate_user_claims(data)
    for i, rec in enumerate(_get(data, "crosschecks", list, "report data")):
        _validate_crosscheck(rec, f"crosschecks[{i}]", ids)
    _get(data, "plot_data", dict, "report data")
    training = _get(data, "training", dict, "report data")
    _get(training, "steps", list, "training")
    _get(training, "loss", list, "training")
    errata = _get(data, "errata", dict, "report data")
    for i, rec in enumerate(_get(errata, "records", list, "errata")):
        w = f"errata.records[{i}]"
        for key in ("id", "note", "quote"):
            _get(rec, key, str, w)
        # the note's statement as a formula (a record of your own notes may have none) and the
        # quote with its math between $ (where the note's own math typesets)
        _get(rec, "claim_latex", (str, type(None)), w)
        if "quote_prose" in rec:
            _get(rec, "quote_prose", (str, type(None)), w)
        _choice(rec, "verdict", VERDICTS, w)
        _get(rec, "correction_latex", (str, type(None)), w)
        for key in FORMULAS:
            if f"{key}_zh" in rec:
                _get(rec, f"{key}_zh", (str, type(None)), w)
        _get(rec, "correction_text", (str, type(None)), w)
        ev = _get(rec, "evidence", dict, w)
        for key in ("kind", "ref", "detail"):
            _get(ev, key, str, f"{w}.evidence")
        _get(ev, "passed", bool, f"{w}.evidence")
        _validate_evidence_view(rec.get("evidence_view") or ev, f"{w}.evidence")
        see_also = rec.get("see_also", [])  # optional: claim ids to link to
        if not isinstance(see_also, list) or not all(isinstance(i, str) for i in see_also):
            raise ReportDataError(f"{w}.see_also: expected list of claim ids, got {see_also!r:.60}")
    _get(errata, "summary", dict, "errata")


def sci_parts(x: float, digits: int = 2) -> tuple[str, int | None]:
    """``x`` as a reader reads it, (mantissa, power of ten): (0.25, None), ("3.1", -4) for
    3.1 × 10⁻⁴ — never ``3.1e-04``. ``digits`` significant digits below 10⁻² and from 10⁴ on,
    one more in between."""
    if x == 0:
        return "0", None
    if 1e-2 <= abs(x) < 1e4:
        return format(x, f".{digits + 1}g"), None
    exp = math.floor(math.log10(abs(x)))
    mant = x / 10**exp
    if round(mant, digits - 1) >= 10:  # 9.96e-5 rounds up to 10 × 10⁻⁵
        mant, exp = mant / 10, exp + 1
    return format(mant, f".{digits - 1}f").rstrip("0").rstrip("."), exp


def number_view(x: float, digits: int = 3) -> dict:
    """A number for a table cell, laid out by each renderer: {m, e} (e None: no power of ten)."""
    m, e = sci_parts(x, digits)
    return {"m": m, "e": e}


# the figures of two panels side by side on paper (stacked in their narrow drawing)
FIGURE_PANELS = {"adam_moments": 2, "saturation": 2}


def figure_stem(name: str, lang: str, variant: str = "", narrow: bool = False) -> str:
    """A figure's file name without extension in ``lang``: each language has its own drawing
    (the words inside it are translated); the English one keeps the bare name. A ``variant``
    ("student") is the drawing of an edition that writes the figure's letters its own way;
    ``narrow``, its drawing for a phone's width (SVG only)."""
    base = f"{name}-{variant}" if variant else name
    base = f"{base}-narrow" if narrow else base
    return base if lang == "en" else f"{base}-{lang}"


def claim_anchor(claim_id: str) -> str:
    return "claim-" + claim_id.replace(".", "-")


def _crosscheck_status(checks: list[dict]) -> str:
    if not checks:
        return "none"
    return "passed" if all(c["passed"] for c in checks) else "failed"


_ENTRY = re.compile(r"^(.+)\[(\d+),(\d+)\]$")  # a matrix entry drawn: "A[0,1]"


def _rows(text: str) -> list[list[str]] | None:
    """A matrix value written as nested lists, "[[1, 2], [3, 4]]", as rows of entries."""
    if not (text.startswith("[[") and text.endswith("]]")):
        return None
    rows = [[x.strip() for x in row.split(",")] for row in text[2:-2].split("], [")]
    return rows if len({len(r) for r in rows}) == 1 else None


def point_view(point: dict) -> list[tuple[str, str, list[list[str]] | None]]:
    """A counterexample's point as (name, value, rows): sizes and indices first (whole numbers
    under a plain name), then scalars, then each matrix as one entry with its rows (its entries
    ``A[i,j]`` gathered), in the order they come."""
    sizes, scalars, matrices = [], [], {}
    for name, value in point.items():
        entry = _ENTRY.match(name)
        if entry:
            cells = matrices.setdefault(entry.group(1), {})
            cells[int(entry.group(2)), int(entry.group(3))] = str(value)
        elif "[" not in name and re.fullmatch(r"-?\d+", str(value)):
            sizes.append((name, str(value), None))
        else:
            scalars.append((name, str(value), None))
    out = sizes + scalars
    for name, cells in matrices.items():
        n_rows = 1 + max(i for i, _ in cells)
        n_cols = 1 + max(j for _, j in cells)
        rows = [[cells.get((i, j), "?") for j in range(n_cols)] for i in range(n_rows)]
        out.append((name, "[" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]", rows))
    return out


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
            "point": point_view(cx["point"]),
            "previous": cx["previous"],
            "current": cx["current"],
            "previous_rows": _rows(cx["previous"]),
            "current_rows": _rows(cx["current"]),
        },
    }


def _conditions_view(cid: str, conditions: list[dict]) -> list[dict]:
    """The lines of a claim's conditions, those with formulas only: [{"label": key of the
    claim texts, "formulas": [Tex, ...]}] — symbol assumptions and index ranges together (both
    routes take them as given), then the random variables, then the value ranges."""
    random = [c for c in conditions if c["kind"] == "random"]
    lines = [("hypotheses", [c for c in conditions if c["kind"] == "hypothesis"]),
             ("given", [c for c in conditions if c["kind"] in ("symbol", "index")]),
             (f"random_{random[0]['distribution']}" if random else "random", random),
             ("sampled", [c for c in conditions if c["kind"] == "sampled"])]
    return [{"label": label,
             "formulas": [Tex(c["latex"], False, f"claim {cid!r} condition") for c in chosen]}
            for label, chosen in lines if chosen]


def claim_view(claim: dict, checks: list[dict]) -> dict:
    cid = claim["id"]
    last = claim["steps"][-1]
    return {
        "id": cid,
        "anchor": claim_anchor(cid),
        "title": claim["title"],
        "module": claim["module"],
        "status": claim["status"],
        "failed_step": claim["failed_step"],
        "statement": Tex(claim["statement"], True, f"claim {cid!r} statement"),
        "definitions": [{"name": x["name"], "text": x["text"],
                         "tex": Tex(x["latex"], False, f"claim {cid!r} definition {x['name']!r}"),
                         "symbol": Tex(x["symbol"], False, f"claim {cid!r} definition symbol")
                         if x.get("symbol") else None}
                        for x in claim.get("definitions", ())],
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
        "conditions": _conditions_view(cid, claim["conditions"]),
        "steps": [_step_view(cid, s) for s in claim["steps"]],
        "final": Tex(last["latex"], True, f"claim {cid!r} final result"),
        "crosscheck_status": _crosscheck_status(checks),
        "crosscheck_count": f"{sum(c['passed'] for c in checks)}/{len(checks)}",
    }
