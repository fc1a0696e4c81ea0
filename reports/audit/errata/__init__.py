"""The errata registry: one audited claim of the lecture notes per record, with its evidence.

:func:`read` parses and validates ``registry.toml``; :func:`read_nonclaims` the sentences marked
as containing no checkable claim (``nonclaims.toml``); :func:`load` (in :mod:`.load`) runs the
evidence and returns the report's data. A record has two independent classifications: its
*scope* (transformer-math, history, other) and its *verdict* (correct, error, imprecise). Every
human-language field comes in English and Chinese in the same record (``reason`` and
``reason_zh``, ``correction_text`` and ``correction_text_zh``); math is shared.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path

# importing the check modules registers their evidence functions with evidence.check
from reports.audit import evidence
from reports.audit.errata import (  # noqa: F401
    checks_attention,
    checks_history,
    checks_misc,
    checks_new,
    checks_optim,
    checks_training,
)

REGISTRY = Path(__file__).with_name("registry.toml")
NONCLAIMS = Path(__file__).with_name("nonclaims.toml")
VERDICTS = ("correct", "error", "imprecise")
SCOPES = ("transformer-math", "history", "other")
NEEDS_CORRECTION = ("error", "imprecise")
MAX_QUOTE = 60
# English field -> its Chinese twin; a record carries both or neither.
BILINGUAL = {"reason": "reason_zh", "correction_text": "correction_text_zh"}
_REQUIRED = ("id", "note", "quote", "claim_latex", "scope", "verdict", "reason", "reason_zh",
             "evidence")
_OPTIONAL = ("correction_latex", "correction_text", "correction_text_zh", "see_also",
             "cross_check")
_ID = re.compile(r"^[A-Za-z0-9_.-]+$")
_NOTE = re.compile(r"^[^/\\]+\.txt$")


class ErrataError(ValueError):
    """The registry does not have the documented shape."""


# Words by which a reason declares the note wrong (for a `correct` record) or right (for an
# erratum); a reason may explain, qualify or recompute, but never contradict its own verdict.
SAYS_WRONG = {
    "en": ("is wrong", "are wrong", "incorrect", "mistake", "erroneous", "in error", "overstat",
           "misleading", "should be", "not jointly", "rather than jointly", "fails", "typo"),
    "zh": ("错误", "有误", "说法不对", "不正确", "并非", "言过其实", "夸大", "误导", "应为",
           "不成立", "笔误", "漏掉"),
}
SAYS_RIGHT = {
    "en": ("recomputed", "is correct", "holds as stated", "exactly right", "definition of"),
    "zh": ("重算", "完全正确", "说法正确", "的定义"),
}


# ASCII stand-ins for math (mu_q, sqrt(d_k), m_hat, q^T k, E^T e_i, \\frac outside $…$):
# prose must put math in $…$ LaTeX so that HTML and PDF typeset it.
_MATH = re.compile(r"\$[^$]*\$")
_PSEUDO_TEX = re.compile(r"(?<![\w])(?:[A-Za-z]+_(?:\{|[A-Za-z0-9]+)|sqrt\(|[A-Za-z]\^(?:\{|\w)"
                         r"|\\[A-Za-z]+)")


def pseudo_tex(text: str) -> list[str]:
    """ASCII pseudo-TeX found outside the ``$…$`` spans of ``text``."""
    return _PSEUDO_TEX.findall(_MATH.sub(" ", text or ""))


def contradiction(rec: dict) -> str | None:
    """The first word of ``rec``'s reason that contradicts its verdict, or None."""
    words = SAYS_WRONG if rec["verdict"] == "correct" else SAYS_RIGHT
    for lang, key in (("en", "reason"), ("zh", "reason_zh")):
        text = (rec.get(key) or "").lower()
        hit = next((w for w in words[lang] if w in text), None)
        if hit:
            return f"{key} says {hit!r}, which contradicts verdict {rec['verdict']!r}"
    if rec["verdict"] == "correct" and (rec.get("correction_text") or rec.get("correction_latex")):
        return "verdict 'correct' but a correction is given"
    return None


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


def _quote(rec: dict, where: str) -> None:
    if not _NOTE.match(rec["note"]):
        raise ErrataError(f"{where}: note expected a .txt file name, got {rec['note']!r}")
    quote = rec["quote"]
    if len(quote) > MAX_QUOTE:
        raise ErrataError(f"{where}: quote expected at most {MAX_QUOTE} characters, "
                          f"got {len(quote)}")
    if "\n" in quote or quote != quote.strip():
        raise ErrataError(f"{where}: quote expected one line without outer spaces, got {quote!r}")


def _choice(rec: dict, key: str, choices: tuple, where: str) -> None:
    if rec[key] not in choices:
        raise ErrataError(f"{where}: {key} expected one of {list(choices)}, got {rec[key]!r}")


def _check_name(rec: dict, key: str, where: str) -> None:
    name = rec.get(key)
    if name is None:
        return
    if not isinstance(name, str) or name not in evidence.CHECKS:
        raise ErrataError(f"{where}: {key} expected a function registered with "
                          f"reports.audit.evidence.check, got {name!r}")


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
        for key in _REQUIRED[1:]:
            _text(rec, key, where, required=True)
        _quote(rec, where)
        _choice(rec, "verdict", VERDICTS, where)
        _choice(rec, "scope", SCOPES, where)
        needs = rec["verdict"] in NEEDS_CORRECTION
        for key in ("correction_latex", "correction_text", "correction_text_zh"):
            _text(rec, key, where, required=needs)
        for en, zh in BILINGUAL.items():
            if (rec.get(en) is None) != (rec.get(zh) is None):
                have, lack = (en, zh) if rec.get(en) is not None else (zh, en)
                raise ErrataError(f"{where}: {have!r} expected its translation {lack!r}, "
                                  "got none")
        for key in (*BILINGUAL, *BILINGUAL.values()):
            found = pseudo_tex(rec.get(key))
            if found:
                raise ErrataError(f"{where}: {key} expected math as $…$ LaTeX, got ASCII {found}")
        clash = contradiction(rec)
        if clash:
            raise ErrataError(f"{where}: {clash}")
        _check_name(rec, "evidence", where)
        _check_name(rec, "cross_check", where)
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


def _parse(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ErrataError(f"registry {path}: cannot read ({exc.strerror})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ErrataError(f"registry {path}: {exc}") from None


def read(path: Path | str | None = None) -> list[dict]:
    """Parse and validate the registry without running any evidence."""
    return validate(_parse(Path(path) if path is not None else REGISTRY))


def read_titles(path: Path | str | None = None) -> dict[str, str]:
    """{note file: its title} from the registry's ``[notes]`` table."""
    raw = _parse(Path(path) if path is not None else REGISTRY).get("notes", {})
    if not isinstance(raw, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("title"), str) for v in raw.values()):
        raise ErrataError(f"registry: [notes] expected {{file = {{title = str}}}}, got {raw!r:.80}")
    return {name: v["title"] for name, v in raw.items()}


def validate_nonclaims(raw: object) -> list[dict]:
    """Sentences marked as holding no checkable claim: {id, note, quote, kind, reason(_zh)}."""
    if not isinstance(raw, dict) or not isinstance(raw.get("kinds"), dict):
        raise ErrataError("nonclaims: expected a [kinds] table")
    kinds = raw["kinds"]
    for key, kind in kinds.items():
        if not (isinstance(kind, dict) and isinstance(kind.get("en"), str)
                and isinstance(kind.get("zh"), str) and kind["en"] and kind["zh"]):
            raise ErrataError(f"nonclaims: kind {key!r} expected en and zh reasons, got {kind!r}")
    out = []
    for group in raw.get("note", []):
        note = group.get("name", "")
        for i, mark in enumerate(group.get("marks", [])):
            where = f"nonclaims {note} #{i + 1}"
            if not (isinstance(mark, list) and len(mark) == 2 and all(
                    isinstance(m, str) for m in mark)):
                raise ErrataError(f"{where}: expected [quote, kind], got {mark!r}")
            quote, kind = mark
            if kind not in kinds:
                raise ErrataError(f"{where}: kind expected one of {sorted(kinds)}, got {kind!r}")
            rec = {"id": f"{note[:3]}-nc-{i + 1}", "note": note, "quote": quote, "kind": kind,
                   "reason": kinds[kind]["en"], "reason_zh": kinds[kind]["zh"]}
            _quote(rec, where)
            out.append(rec)
    return out


def read_nonclaims(path: Path | str | None = None) -> list[dict]:
    return validate_nonclaims(_parse(Path(path) if path is not None else NONCLAIMS))


def run_evidence(name: str, version: str = "correction") -> dict:
    """Run one evidence computation; an exception is reported as a failed check, not raised."""
    fn, ref = evidence_function(name)
    try:
        result = fn(version)
        passed, detail, detail_zh = bool(result.passed), str(result.detail), result.detail_zh
    except Exception as exc:  # noqa: BLE001 — a crashing check must show up as failed
        passed, detail = False, f"raised {type(exc).__name__}: {exc}"
        detail_zh = f"计算出错：{type(exc).__name__}: {exc}"
    return {"kind": "computation", "ref": ref, "passed": passed, "detail": detail,
            "detail_zh": detail_zh}
