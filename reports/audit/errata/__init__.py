"""The errata registry: one audited claim of the lecture notes per record, with its evidence.

:func:`read` parses and validates ``registry.toml``; :func:`read_nonclaims` the sentences marked
as containing no checkable claim (``nonclaims.toml``); :func:`view.load` runs the evidence and
returns the report's data. A record has two independent classifications: its *scope*
(transformer-math, history, other) and its *verdict*:

    correct    the note's statement holds; its evidence must also reject a wrong variant
    error      the note's statement is false; a correction replaces it
    imprecise  it holds only under a condition the note leaves out (``missing_condition``)
    reported   the note itself reports an error of its source and gives the right form

Every human-language field comes in English and Chinese in the same record (``reason`` and
``reason_zh``, …); math is shared. A record rests on a computation (``evidence``) or, for
history and practice, on the literature (``sources``); a record with sources and no evidence is
source-based and shown as such.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

# importing the checks registers their evidence functions with evidence.check
from reports.audit import (
    checks,  # noqa: F401
    evidence,
    registry,
)

REGISTRY = Path(__file__).with_name("registry.toml")
NONCLAIMS = Path(__file__).with_name("nonclaims.toml")
VERDICTS = registry.VERDICTS
SCOPES = registry.SCOPES
NEEDS_CORRECTION = ("error", "imprecise")
SHOWN_IN_FULL = ("error", "imprecise", "reported")
VERSIONS_BY_VERDICT = registry.VERSIONS_BY_VERDICT
MAX_QUOTE = registry.MAX_QUOTE
BILINGUAL = registry.BILINGUAL
FORMULA_ZH = registry.FORMULA_ZH
_ID = registry.ID
# a reason that reads a word of the note otherwise than literally says so, and names the reading
_READS_AS = re.compile(r"\bread(?:s|ing)? (?:as|like)\b|\bRead,? |读作|来读", re.I)

ErrataError = registry.RegistryError


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
# a `reported` reason names whose error it is
NAMES_SOURCE = {"en": "source", "zh": "原文"}


# ASCII stand-ins for math (mu_q, sqrt(d_k), m_hat, q^T k, E^T e_i, \\frac outside $…$):
# prose must put math in $…$ LaTeX so that HTML and PDF typeset it.
_MATH = re.compile(r"\$[^$]*\$")
_PSEUDO_TEX = re.compile(r"(?<![\w])(?:[A-Za-z]+_(?:\{|[A-Za-z0-9]+)|sqrt\(|[A-Za-z]\^(?:\{|\w)"
                         r"|\\[A-Za-z]+)")


def pseudo_tex(text: str) -> list[str]:
    """ASCII pseudo-TeX found outside the ``$…$`` spans of ``text``."""
    return _PSEUDO_TEX.findall(_MATH.sub(" ", text or ""))


def contradiction(rec: dict) -> str | None:
    """The first word of ``rec``'s reason that contradicts its verdict, or None. A `reported`
    record may call the error a slip, but must say it is the source's."""
    if rec["verdict"] == "reported":
        for lang, key in (("en", "reason"), ("zh", "reason_zh")):
            if NAMES_SOURCE[lang] not in (rec.get(key) or "").lower():
                return (f"{key}: expected to name the source ({NAMES_SOURCE[lang]!r}) whose "
                        "error the note reports, got none")
        return None
    words = SAYS_WRONG if rec["verdict"] == "correct" else SAYS_RIGHT
    for lang, key in (("en", "reason"), ("zh", "reason_zh")):
        text = (rec.get(key) or "").lower()
        hit = next((w for w in words[lang] if w in text), None)
        if hit:
            return f"{key}: says {hit!r}, which contradicts verdict {rec['verdict']!r}"
    return None


def evidence_function(name: str) -> tuple[Callable, str]:
    """The evidence computation registered as ``name`` and its dotted reference."""
    fn = evidence.CHECKS[name]
    return fn, f"{fn.__module__}.{name}"


def derivation_ids() -> frozenset[str]:
    """Claim ids of the `derivations` package, which records may cite as further reading."""
    import derivations  # the claim modules are heavy; only validation needs them

    return frozenset(d.id for d in derivations.claims())


def _house(rec: dict, where: str) -> None:
    """The house style of the project's records, on top of the schema."""
    for key in (*BILINGUAL, *BILINGUAL.values()):
        found = pseudo_tex(rec.get(key))
        if found:
            raise ErrataError(f"{where}: {key}: expected math as $…$ LaTeX, got ASCII {found}")
    if _READS_AS.search(rec["reason"]) and rec.get("reading") is None:
        raise ErrataError(f"{where}: reading: the reason reads the note's words otherwise than "
                          "literally; expected 'reading' and 'reading_zh' stating the literal "
                          "word and the reading, got none")
    clash = contradiction(rec)
    if clash:
        raise ErrataError(f"{where}: {clash}")
    unknown_ids = [s for s in rec.get("see_also") or [] if s not in derivation_ids()]
    if unknown_ids:
        raise ErrataError(f"{where}: see_also: expected derivation ids, got unknown "
                          f"{unknown_ids}")


def _groups(records: list[dict]) -> None:
    """Records on the same claim share a group, and a group has one verdict: identical claims
    and shared evidence functions must agree."""
    by_group: dict[str, dict] = {}
    for rec in records:
        group = rec.get("claim_group")
        if group is None:
            continue
        if not isinstance(group, str) or not _ID.match(group):
            raise ErrataError(f"record {rec['id']!r}: claim_group: expected letters, digits, "
                              f"'_', '.', '-', got {group!r}")
        first = by_group.setdefault(group, rec)
        if first["verdict"] != rec["verdict"]:
            raise ErrataError(f"record {rec['id']!r}: claim_group: {group!r} expected one "
                              f"verdict, got {rec['verdict']!r} here and {first['verdict']!r} "
                              f"for {first['id']!r}")
    seen: dict[tuple[str, str], dict] = {}
    for rec in records:
        for key in ("claim_latex", "evidence"):
            if rec.get(key) is None:
                continue
            other = seen.setdefault((key, rec[key]), rec)
            if other is rec:
                continue
            if key == "claim_latex" and (rec.get("claim_group") is None
                                         or rec.get("claim_group") != other.get("claim_group")):
                raise ErrataError(f"record {rec['id']!r}: claim_latex: states the same claim as "
                                  f"{other['id']!r}, expected both in one claim_group")
            if other["verdict"] != rec["verdict"]:
                raise ErrataError(f"record {rec['id']!r}: {key}: {rec[key]!r} is shared with "
                                  f"{other['id']!r}, expected the same verdict, got "
                                  f"{rec['verdict']!r} and {other['verdict']!r}")


# the project's registry: the schema and the house rules
RULES = dataclasses.replace(registry.PROJECT, house=_house, house_all=_groups)


def validate(raw: object) -> list[dict]:
    """Check parsed registry data; return its records with every optional key present."""
    return registry.validate(raw, RULES).records


def _parse(path: Path) -> dict:
    return registry.parse(path)


def read(path: Path | str | None = None) -> list[dict]:
    """Parse and validate the project's registry (or one at ``path`` by the same rules)
    without running any evidence."""
    return registry.load(Path(path) if path is not None else REGISTRY, RULES).records


def read_titles(path: Path | str | None = None) -> dict[str, str]:
    """{note file: its title} from the registry's ``[notes]`` table."""
    return registry.titles(_parse(Path(path) if path is not None else REGISTRY))


# kinds of no-claim mark that point to the record covering what they say: [quote, kind, id]
CITING_KINDS = ("recap", "paraphrase", "analogy")


def validate_nonclaims(raw: object) -> list[dict]:
    """Sentences marked as holding no checkable claim: {id, note, quote, kind, cites,
    reason(_zh)}; a recap (a summary line restating a recorded claim) names that record."""
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
            if not (isinstance(mark, list) and len(mark) in (2, 3) and all(
                    isinstance(m, str) for m in mark)):
                raise ErrataError(f"{where}: expected [quote, kind] or [quote, kind, record id], "
                                  f"got {mark!r}")
            quote, kind, *cites = mark
            if kind not in kinds:
                raise ErrataError(f"{where}: kind expected one of {sorted(kinds)}, got {kind!r}")
            if cites and kind not in CITING_KINDS:
                raise ErrataError(f"{where}: a record id is for kinds {list(CITING_KINDS)}, got "
                                  f"kind {kind!r}")
            if kind == "recap" and not cites:
                raise ErrataError(f"{where}: a recap expected the id of the record it restates, "
                                  "got none")
            rec = {"id": f"{note[:3]}-nc-{i + 1}", "note": note, "quote": quote, "kind": kind,
                   "cites": cites[0] if cites else None,
                   "reason": kinds[kind]["en"], "reason_zh": kinds[kind]["zh"]}
            registry.note_and_quote(rec, registry.PROJECT, where)
            out.append(rec)
    return out


def read_nonclaims(path: Path | str | None = None) -> list[dict]:
    return validate_nonclaims(_parse(Path(path) if path is not None else NONCLAIMS))


def cited_problems(records: list[dict], marks: list[dict]) -> list[str]:
    """Marks that cite a record which does not exist, or recap a claim not judged correct (a
    summary line restating an erratum needs a record of its own, with that verdict)."""
    by_id = {r["id"]: r for r in records}
    out = []
    for mark in marks:
        cited = mark.get("cites")
        if cited is None:
            continue
        if cited not in by_id:
            out.append(f"{mark['id']} ({mark['quote'][:30]!r}): cites {cited!r}, expected a "
                       "record id of the registry")
        elif mark["kind"] == "recap" and by_id[cited]["verdict"] != "correct":
            out.append(f"{mark['id']} ({mark['quote'][:30]!r}): recaps {cited!r}, whose verdict "
                       f"is {by_id[cited]['verdict']!r}; expected 'correct' (a restated erratum "
                       "needs a record)")
    return out


def run_evidence(name: str, version: str | None = None, quote: str | None = None) -> dict:
    """Run one evidence computation for ``version`` (default: the version it must hold with) and
    return its typed result as JSON data, with its sentences rendered in both languages; an
    exception is reported as a failed run, not raised. ``quote``: the record's quote, whose
    words (the check's :class:`~reports.audit.evidence.Said` found in it) give the input of the
    version the quote states; without it, the check's first."""
    fn, ref = evidence_function(name)
    version = version or fn.right
    said = evidence.said_for(fn, quote) if quote is not None else None
    try:
        result = fn(version, said=said).to_json()
    except Exception as exc:  # noqa: BLE001 — a crashing check must show up as failed
        result = {"passed": False, "version": version, "facts": [],
                  "claim": evidence.Fact("raised", error=evidence.Text(
                      f"{type(exc).__name__}: {exc}")).to_json()}
    out = {"kind": "computation", "ref": ref, **result,
           "detail": evidence.render_result(result, "en"),
           "detail_zh": evidence.render_result(result, "zh")}
    if said is not None and version == fn.quoted:
        out["said"] = {"fragment": said.fragment, "reads": list(said.reads or ())}
    return out
