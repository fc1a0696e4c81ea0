"""The errata registry: one audited claim of the lecture notes per record, with its evidence.

:func:`load` validates ``registry.toml``, runs every record's evidence computation with the
correction, and returns ``{"records": [...], "summary": {note: {verdict: count}}}`` in the shape
the report renderer consumes. ``evidence.passed`` is True when the computation supports the
registry's version of the claim (the correction for errata, the note's statement otherwise).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path

# importing the check modules registers their evidence functions with evidence.check
from reports.audit import evidence
from reports.audit.errata import checks_attention, checks_misc, checks_training  # noqa: F401

REGISTRY = Path(__file__).with_name("registry.toml")
VERDICTS = ("correct", "error", "imprecise", "out-of-scope")
NEEDS_CORRECTION = ("error", "imprecise")
MAX_QUOTE = 60
_REQUIRED = ("id", "note", "quote", "claim_latex", "verdict", "evidence")
_OPTIONAL = ("reason", "correction_latex", "correction_text", "see_also")
_ID = re.compile(r"^[A-Za-z0-9_.-]+$")
_NOTE = re.compile(r"^[^/\\]+\.txt$")


class ErrataError(ValueError):
    """The registry does not have the documented shape."""


def evidence_function(name: str) -> tuple[Callable, str]:
    """The evidence computation registered as ``name`` and its dotted reference."""
    fn = evidence.CHECKS[name]
    return fn, f"{fn.__module__}.{name}"


def derivation_ids() -> frozenset[str]:
    """Claim ids of the `derivations` package, which records may cite as further reading."""
    import derivations  # the claim modules are heavy; only validation needs them

    return frozenset(d.id for d in derivations.claims())


def _text(rec: dict, key: str, where: str, *, required: bool) -> str | None:
    val = rec.get(key)
    if val is None:
        if required:
            raise ErrataError(f"{where}: missing {key!r} (expected a non-empty string)")
        return None
    if not isinstance(val, str) or not val.strip():
        raise ErrataError(f"{where}: {key!r} expected a non-empty string, got {val!r:.60}")
    return val


def validate(raw: object) -> list[dict]:
    """Check parsed registry data; return its records with every optional key present."""
    if not isinstance(raw, dict) or not isinstance(raw.get("record"), list):
        raise ErrataError("registry: expected a list of [[record]] tables, got "
                          f"{type(raw.get('record') if isinstance(raw, dict) else raw).__name__}")
    records, seen = [], set()
    known_ids = derivation_ids()
    for i, rec in enumerate(raw["record"]):
        where = f"record #{i + 1}"
        if not isinstance(rec, dict):
            raise ErrataError(f"{where}: expected a table, got {type(rec).__name__}")
        rid = _text(rec, "id", where, required=True)
        if not _ID.match(rid):
            raise ErrataError(f"{where}: id expected letters, digits, '_', '.', '-', got {rid!r}")
        where = f"record {rid!r}"
        if rid in seen:
            raise ErrataError(f"{where}: duplicate id")
        seen.add(rid)
        unknown = sorted(set(rec) - set(_REQUIRED) - set(_OPTIONAL))
        if unknown:
            raise ErrataError(f"{where}: unknown keys {unknown} (expected some of "
                              f"{list(_REQUIRED + _OPTIONAL)})")
        for key in ("note", "quote", "claim_latex", "verdict", "evidence"):
            _text(rec, key, where, required=True)
        if not _NOTE.match(rec["note"]):
            raise ErrataError(f"{where}: note expected a .txt file name, got {rec['note']!r}")
        quote = rec["quote"]
        if len(quote) > MAX_QUOTE:
            raise ErrataError(f"{where}: quote expected at most {MAX_QUOTE} characters, "
                              f"got {len(quote)}")
        if "\n" in quote or quote != quote.strip():
            raise ErrataError(f"{where}: quote expected one line without outer spaces, "
                              f"got {quote!r}")
        verdict = rec["verdict"]
        if verdict not in VERDICTS:
            raise ErrataError(f"{where}: verdict expected one of {list(VERDICTS)}, got {verdict!r}")
        needs = verdict in NEEDS_CORRECTION
        for key in ("correction_latex", "correction_text"):
            _text(rec, key, where, required=needs)
        if not needs:
            _text(rec, "reason", where, required=True)
        try:
            evidence_function(rec["evidence"])
        except KeyError:
            raise ErrataError(f"{where}: evidence expected a function registered with "
                              f"reports.audit.evidence.check, got {rec['evidence']!r}") from None
        see_also = rec.get("see_also", [])
        if not isinstance(see_also, list) or not all(isinstance(s, str) for s in see_also):
            raise ErrataError(f"{where}: see_also expected a list of derivation ids, "
                              f"got {see_also!r}")
        unknown_ids = [s for s in see_also if s not in known_ids]
        if unknown_ids:
            raise ErrataError(f"{where}: see_also expected derivation ids, got unknown "
                              f"{unknown_ids}")
        records.append({k: rec.get(k) for k in _REQUIRED + _OPTIONAL} | {"see_also": see_also})
    return records


def read(path: Path | str | None = None) -> list[dict]:
    """Parse and validate the registry without running any evidence."""
    path = Path(path) if path is not None else REGISTRY
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ErrataError(f"registry {path}: cannot read ({exc.strerror})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ErrataError(f"registry {path}: {exc}") from None
    return validate(raw)


def run_evidence(name: str, version: str = "correction") -> dict:
    """Run one evidence computation; an exception is reported as a failed check, not raised."""
    fn, ref = evidence_function(name)
    try:
        result = fn(version)
        passed, detail = bool(result.passed), str(result.detail)
    except Exception as exc:  # noqa: BLE001 — a crashing check must show up as failed
        passed, detail = False, f"raised {type(exc).__name__}: {exc}"
    return {"kind": "computation", "ref": ref, "passed": passed, "detail": detail}


def load(path: Path | str | None = None) -> dict:
    """Validated records with evidence run, plus per-note verdict counts."""
    records = read(path)
    cache: dict[str, dict] = {}
    out, summary = [], {}
    for rec in records:
        if rec["evidence"] not in cache:
            cache[rec["evidence"]] = run_evidence(rec["evidence"])
        out.append({
            "id": rec["id"],
            "note": rec["note"],
            "quote": rec["quote"],
            "claim_latex": rec["claim_latex"],
            "verdict": rec["verdict"],
            "correction_latex": rec["correction_latex"],
            "correction_text": rec["correction_text"],
            "reason": rec["reason"],
            "see_also": list(rec["see_also"]),
            "evidence": dict(cache[rec["evidence"]]),
        })
        counts = summary.setdefault(rec["note"], {})
        counts[rec["verdict"]] = counts.get(rec["verdict"], 0) + 1
    return {"records": out, "summary": summary}
