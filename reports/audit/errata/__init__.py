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

import re
import tomllib
from collections.abc import Callable
from pathlib import Path

# importing the checks registers their evidence functions with evidence.check
from reports.audit import (
    checks,  # noqa: F401
    evidence,
)

REGISTRY = Path(__file__).with_name("registry.toml")
NONCLAIMS = Path(__file__).with_name("nonclaims.toml")
VERDICTS = ("correct", "error", "imprecise", "reported")
SCOPES = ("transformer-math", "history", "other")
NEEDS_CORRECTION = ("error", "imprecise")
SHOWN_IN_FULL = ("error", "imprecise", "reported")
# the versions an evidence function must hold (right) and fail (wrong) with, by verdict
VERSIONS_BY_VERDICT = {"correct": ("note", "foil"), "error": ("correction", "note"),
                       "imprecise": ("correction", "note"), "reported": ("note", "source")}
MAX_QUOTE = 60
# English field -> its Chinese twin; a record carries both or neither.
BILINGUAL = {"reason": "reason_zh", "correction_text": "correction_text_zh",
             "missing_condition": "missing_condition_zh", "reading": "reading_zh",
             "rejudged": "rejudged_zh"}
# a formula -> the same LaTeX with the words inside \text{} in Chinese, for the Chinese edition;
# optional, but only beside its formula, and its math the formula's own
FORMULA_ZH = {"claim_latex": "claim_latex_zh", "correction_latex": "correction_latex_zh",
              "source_latex": "source_latex_zh"}
_TEXT_GROUP = re.compile(r"\\text\{[^}]*\}")
_REQUIRED = ("id", "note", "quote", "claim_latex", "scope", "verdict", "reason", "reason_zh")
_OPTIONAL = ("evidence", "correction_latex", "correction_text", "correction_text_zh",
             "missing_condition", "missing_condition_zh", "source_latex", "claim_group",
             "reading", "reading_zh", "sources", "see_also", "cross_check",
             "rejudged_from", "rejudged", "rejudged_zh",
             *FORMULA_ZH.values())
_ID = re.compile(r"^[A-Za-z0-9_.-]+$")
_NOTE = re.compile(r"^[^/\\]+\.txt$")
# a reason that reads a word of the note otherwise than literally says so, and names the reading
_READS_AS = re.compile(r"\bread(?:s|ing)? (?:as|like)\b|\bRead,? |读作|来读", re.I)


class ErrataError(ValueError):
    """The registry does not have the documented shape."""


def _formula_twin(rec: dict, en: str, zh: str, where: str) -> None:
    """A formula's Chinese twin stands beside its formula and differs only inside \\text{}."""
    if rec.get(zh) is None:
        return
    _text(rec, zh, where, required=True)
    if rec.get(en) is None:
        raise ErrataError(f"{where}: {zh!r} expected beside {en!r}, which the record lacks")
    if _TEXT_GROUP.sub("", rec[zh]) != _TEXT_GROUP.sub("", rec[en]):
        raise ErrataError(f"{where}: {zh!r} expected the math of {en!r} with only the words "
                          f"inside \\text{{}} translated, got other math: {rec[zh]!r}")


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
                return (f"{key} expected to name the source ({NAMES_SOURCE[lang]!r}) whose error "
                        "the note reports, got none")
        return None
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


def _verdict_fields(rec: dict, where: str) -> None:
    """What each verdict requires and forbids."""
    verdict = rec["verdict"]
    needs = verdict in NEEDS_CORRECTION or verdict == "reported"
    for key in ("correction_latex", "correction_text", "correction_text_zh"):
        _text(rec, key, where, required=needs)
    for key, wanted in (("missing_condition", "imprecise"), ("missing_condition_zh", "imprecise"),
                        ("source_latex", "reported")):
        _text(rec, key, where, required=verdict == wanted)
        if verdict != wanted and rec.get(key) is not None:
            raise ErrataError(f"{where}: {key} is for verdict {wanted!r} only, got verdict "
                              f"{verdict!r}")
    if verdict == "imprecise":
        # the summary reads "the note's version holds <condition>"
        if not rec["missing_condition"].startswith("only "):
            raise ErrataError(f"{where}: missing_condition expected a clause beginning 'only ', "
                              f"got {rec['missing_condition'][:40]!r}")
        if not rec["missing_condition_zh"].startswith("只"):
            raise ErrataError(f"{where}: missing_condition_zh expected a clause beginning 「只」, "
                              f"got {rec['missing_condition_zh'][:20]!r}")


def _rejudged(rec: dict, where: str) -> None:
    """A verdict reviewed again keeps the earlier verdict and the reason for the change (or
    for keeping it), in both languages, so that the report can show them."""
    was = rec.get("rejudged_from")
    if was is None:
        if rec.get("rejudged") is not None:
            raise ErrataError(f"{where}: 'rejudged' expected beside 'rejudged_from' (the earlier "
                              "verdict), got none")
        return
    if was not in VERDICTS:
        raise ErrataError(f"{where}: rejudged_from expected one of {list(VERDICTS)}, got {was!r}")
    _text(rec, "rejudged", where, required=True)


def _basis(rec: dict, where: str) -> None:
    """A record rests on a computation whose versions fit its verdict, or on sources; history
    rests on sources alone."""
    sources = rec.get("sources")
    if sources is not None and (not isinstance(sources, list) or not sources or not all(
            isinstance(s, dict) and set(s) == {"cite", "locator"}
            and all(isinstance(v, str) and v.strip() for v in s.values()) for s in sources)):
        raise ErrataError(f"{where}: sources expected a non-empty list of {{cite, locator}} "
                          f"tables, got {sources!r:.80}")
    name = rec.get("evidence")
    if rec["scope"] == "history" and (name is not None or not sources):
        raise ErrataError(f"{where}: a history record expected sources and no evidence "
                          f"function (history is not computed), got evidence {name!r} and "
                          f"{len(sources or [])} sources")
    if name is None:
        if not sources:
            raise ErrataError(f"{where}: missing 'evidence' (expected a registered function, or "
                              "sources for a source-based record)")
        return
    _check_name(rec, "evidence", where)
    fn = evidence.CHECKS[name]
    if evidence.said_for(fn, rec["quote"]) is None:
        raise ErrataError(f"{where}: evidence {name!r} reads none of this record's words: "
                          f"expected one of its quoted fragments {[x.fragment for x in fn.saids]} "
                          f"in the quote {rec['quote']!r} (add a Said to the check)")
    wanted = VERSIONS_BY_VERDICT[rec["verdict"]]
    if (fn.right, fn.wrong) != wanted:
        raise ErrataError(f"{where}: evidence {name!r} holds with {fn.right!r} and fails with "
                          f"{fn.wrong!r}, expected {wanted[0]!r} and {wanted[1]!r} for verdict "
                          f"{rec['verdict']!r}")


def _groups(records: list[dict]) -> None:
    """Records on the same claim share a group, and a group has one verdict: identical claims
    and shared evidence functions must agree."""
    by_group: dict[str, dict] = {}
    for rec in records:
        group = rec.get("claim_group")
        if group is None:
            continue
        if not isinstance(group, str) or not _ID.match(group):
            raise ErrataError(f"record {rec['id']!r}: claim_group expected letters, digits, '_', "
                              f"'.', '-', got {group!r}")
        first = by_group.setdefault(group, rec)
        if first["verdict"] != rec["verdict"]:
            raise ErrataError(f"record {rec['id']!r}: claim_group {group!r} expected one verdict, "
                              f"got {rec['verdict']!r} here and {first['verdict']!r} for "
                              f"{first['id']!r}")
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
                raise ErrataError(f"record {rec['id']!r}: states the same claim_latex as "
                                  f"{other['id']!r}, expected both in one claim_group")
            if other["verdict"] != rec["verdict"]:
                raise ErrataError(f"record {rec['id']!r}: {key} {rec[key]!r} is shared with "
                                  f"{other['id']!r}, expected the same verdict, got "
                                  f"{rec['verdict']!r} and {other['verdict']!r}")


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
        _verdict_fields(rec, where)
        for en, zh in BILINGUAL.items():
            if (rec.get(en) is None) != (rec.get(zh) is None):
                have, lack = (en, zh) if rec.get(en) is not None else (zh, en)
                raise ErrataError(f"{where}: {have!r} expected its translation {lack!r}, "
                                  "got none")
        for en, zh in FORMULA_ZH.items():
            _formula_twin(rec, en, zh, where)
        for key in (*BILINGUAL, *BILINGUAL.values()):
            found = pseudo_tex(rec.get(key))
            if found:
                raise ErrataError(f"{where}: {key} expected math as $…$ LaTeX, got ASCII {found}")
        if _READS_AS.search(rec["reason"]) and rec.get("reading") is None:
            raise ErrataError(f"{where}: the reason reads the note's words otherwise than "
                              "literally; expected 'reading' and 'reading_zh' stating the "
                              "literal word and the reading, got none")
        _rejudged(rec, where)
        clash = contradiction(rec)
        if clash:
            raise ErrataError(f"{where}: {clash}")
        _basis(rec, where)
        _check_name(rec, "cross_check", where)
        see_also = rec.get("see_also", [])
        if not isinstance(see_also, list) or not all(isinstance(s, str) for s in see_also):
            raise ErrataError(f"{where}: see_also expected a list of derivation ids, "
                              f"got {see_also!r}")
        unknown_ids = [s for s in see_also if s not in known_ids]
        if unknown_ids:
            raise ErrataError(f"{where}: see_also expected derivation ids, got unknown "
                              f"{unknown_ids}")
        records.append({k: rec.get(k) for k in _REQUIRED + _OPTIONAL}
                       | {"see_also": see_also, "sources": rec.get("sources") or []})
    _groups(records)
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
            _quote(rec, where)
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
