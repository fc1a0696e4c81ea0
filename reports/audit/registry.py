"""The errata registry's one schema, and its loader.

A registry is a TOML file of ``[[record]]`` tables, one per audited statement of a note, and an
optional ``[notes."FILE"]`` table per note with its ``title``.  The project's audit of the
lecture notes (``reports/audit/errata/registry.toml``) and the audit of your own notes
(``python -m reports audit``, README "Audit your own notes") are read by this module, and so is
either by ``python -m reports.audit.notes check``.  A record's fields:

    id                 letters, digits, '_', '.', '-'; unique in the file
    note               a file of the notes folder (the project's: a ``.txt`` file)
    quote              verbatim from the note: one line, at most 60 characters, no outer spaces
    verdict            correct | error | imprecise | reported (the note reports its source's error)
    scope              transformer-math | history | other
    reason             why, in prose: inline math between ``$…$``
    evidence           what the verdict rests on, a reference:
                         ``claim:ID``   a claim: of your ``--claims`` files, or a shipped one
                         ``check:NAME`` a function ``NAME()`` of your ``--claims`` files
                         ``NAME``       an evidence function registered with
                                        ``reports.audit.evidence.check`` (it runs both versions)
                       for an erratum it is the correction's, for a correct record the note's;
                       a record with ``sources`` may have none (source-based: not computed)
    note_version       the note's statement as written, as ``claim:ID`` or ``check:NAME``, for
                       verdicts error and imprecise: its failure is the finding, shown as "The
                       note's version — does not hold" (one that holds is shown to, and the
                       summary says the evidence is not as the verdict expects)
    claim_latex        the note's statement as a formula
    correction_text    the correction in words (prose, like ``reason``)
    correction_latex   the correction as a formula; error, imprecise and reported need one of
                       the two (for reported: the note's own right form)
    missing_condition  imprecise only: the condition the note leaves out, a clause beginning
                       "only " (Chinese: 「只」)
    source_latex       reported only: the source's wrong form
    reading            when a word of the note is read otherwise than literally: which, and how
    see_also           [claim ids]: related claims, yours or shipped
    sources            [{cite, locator}]: the literature; a history record rests on sources alone
    cross_check        a second registered evidence function (of the corrected, or correct, claim)
    claim_group        records stating the same claim share a group, and a group one verdict

Every prose field has a Chinese twin ``<field>_zh`` (``reason_zh``, ``correction_text_zh``,
``missing_condition_zh``, ``reading_zh``); every formula one whose words inside ``\\text{}`` are
Chinese (``claim_latex_zh``, ``correction_latex_zh``, ``source_latex_zh``).  A twin stands only
beside its English; without one the Chinese edition shows the English, marked untranslated.

:data:`YOURS` checks this schema.  :data:`PROJECT`, for the project's own registry, adds the
house rules: every record has ``claim_latex``, every prose field its Chinese twin, an erratum its
correction in words and as a formula, an imprecise record its missing condition, a reported one
its source's form; evidence is a registered function; and ``reports.audit.errata.RULES`` adds
the house style (math as ``$…$``, a reason that does not contradict its verdict, a reading
named, one verdict per group).  :func:`load` reads a file; :func:`validate` checks
parsed data; both raise :class:`RegistryError` with one line naming the record, the field, what
was expected and what to do.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

VERDICTS = ("correct", "error", "imprecise", "reported")
SCOPES = ("transformer-math", "history", "other")
CORRECTED = ("error", "imprecise", "reported")  # the verdicts that come with a correction
MAX_QUOTE = 60
# English prose field -> its Chinese twin
BILINGUAL = {"reason": "reason_zh", "correction_text": "correction_text_zh",
             "missing_condition": "missing_condition_zh", "reading": "reading_zh",
             "rejudged": "rejudged_zh"}
# a formula -> the same LaTeX with the words inside \text{} in Chinese
FORMULA_ZH = {"claim_latex": "claim_latex_zh", "correction_latex": "correction_latex_zh",
              "source_latex": "source_latex_zh"}
REQUIRED = ("id", "note", "quote", "verdict", "scope", "reason")
OPTIONAL = ("reason_zh", "evidence", "note_version", "claim_latex", "correction_latex",
            "correction_text", "correction_text_zh", "missing_condition",
            "missing_condition_zh", "source_latex", "claim_group", "reading", "reading_zh",
            "sources", "see_also", "cross_check", "rejudged_from", "rejudged", "rejudged_zh",
            *FORMULA_ZH.values())
FIELDS = REQUIRED + OPTIONAL
# names a registry of an earlier release used, and the field that holds the same now
RENAMED = {"correction": "correction_text", "correction_zh": "correction_text_zh"}
# the versions a registered evidence function must hold (right) and fail (wrong) with, by verdict
VERSIONS_BY_VERDICT = {"correct": ("note", "foil"), "error": ("correction", "note"),
                       "imprecise": ("correction", "note"), "reported": ("note", "source")}
# the verdicts whose note's version fails (so that it can be given as note_version)
NOTE_FAILS = ("error", "imprecise")
ID = re.compile(r"^[A-Za-z0-9_.-]+$")
REFERENCE = re.compile(r"^(?:(claim|check):)?([A-Za-z0-9_.-]+)$")
_TEXT_GROUP = re.compile(r"\\text\{[^}]*\}")


class RegistryError(ValueError):
    """The registry does not have the documented shape; one line naming where and what to do."""


@dataclass(frozen=True)
class Rules:
    """What a registry must hold beyond the schema.  ``house``: more checks of one record
    (``house(rec, where)`` raises RegistryError) and of all (``house_all(records)``)."""

    name: str
    formula_required: bool = False  # claim_latex on every record
    chinese_required: bool = False  # every prose field's Chinese twin
    full_correction: bool = False  # an erratum's correction in words and as a formula
    # a registered function must find its quoted words in the record's quote, so that what it
    # computes is the note's own statement
    quote_read: bool = False
    evidence_kinds: tuple[str, ...] = ("claim", "check", "function")
    note_file: re.Pattern = re.compile(r"^[^/\\]+$")
    note_file_hint: str = "a file name in the notes folder, without a folder"
    house: Callable[[dict, str], None] | None = field(default=None, compare=False)
    house_all: Callable[[list[dict]], None] | None = field(default=None, compare=False)


YOURS = Rules("yours")
PROJECT = Rules("project", formula_required=True, chinese_required=True, full_correction=True,
                quote_read=True,
                evidence_kinds=("function",), note_file=re.compile(r"^[^/\\]+\.txt$"),
                note_file_hint="a .txt file name")


@dataclass(frozen=True)
class Registry:
    """A registry read: its records (every field present, None where absent; ``see_also`` and
    ``sources`` lists) and the notes' titles it gives."""

    records: list[dict]
    titles: dict[str, str]


def reference(value: str) -> tuple[str, str]:
    """(kind, name) of an evidence reference: ("claim", ID), ("check", NAME), ("function",
    NAME)."""
    m = REFERENCE.match(value)
    if m is None:
        raise ValueError(f"not a reference: {value!r}")
    return m.group(1) or "function", m.group(2)


def _text(rec: dict, key: str, where: str, required: bool = False) -> str | None:
    value = rec.get(key)
    if value is None:
        if required:
            raise RegistryError(f"{where}: {key}: missing (expected a non-empty string)")
        return None
    if not isinstance(value, str) or not value.strip():
        raise RegistryError(f"{where}: {key}: expected a non-empty string, got {value!r:.60}")
    return value


def _registered(name: str) -> Callable | None:
    from reports.audit import checks, evidence  # noqa: F401 - importing registers the checks

    return evidence.CHECKS.get(name)


def evidence_said(fn: Callable, quote: str):
    from reports.audit import evidence

    return evidence.said_for(fn, quote)


def _reference(rec: dict, key: str, rules: Rules, where: str) -> None:
    value = rec.get(key)
    if value is None:
        return
    kinds = rules.evidence_kinds if key == "evidence" else ("claim", "check")
    shapes = {"claim": "'claim:ID'", "check": "'check:FUNCTION'",
              "function": "the name of a function registered with reports.audit.evidence.check"}
    wanted = " or ".join(shapes[k] for k in kinds)
    if not isinstance(value, str) or REFERENCE.match(value) is None \
            or reference(value)[0] not in kinds:
        raise RegistryError(f"{where}: {key}: expected {wanted}, got {value!r:.60}")
    kind, name = reference(value)
    if kind == "function" and _registered(name) is None:
        hint = (f"; write 'claim:{name}' or 'check:{name}' for a claim or a function of your "
                "--claims files" if "claim" in kinds else "")
        raise RegistryError(f"{where}: {key}: expected {wanted}, got {value!r}, which is no "
                            f"registered function{hint}")


def note_and_quote(rec: dict, rules: Rules, where: str) -> None:
    """The note is a file name the rules allow; the quote one short line (also of the notes'
    no-claim marks)."""
    if not rules.note_file.match(rec["note"]):
        raise RegistryError(f"{where}: note: expected {rules.note_file_hint}, got "
                            f"{rec['note']!r}")
    quote = rec["quote"]
    if len(quote) > MAX_QUOTE:
        raise RegistryError(f"{where}: quote: expected at most {MAX_QUOTE} characters, got "
                            f"{len(quote)}; quote a shorter part that still finds the place")
    if "\n" in quote or quote != quote.strip():
        raise RegistryError(f"{where}: quote: expected one line without outer spaces, got "
                            f"{quote!r:.80}")


def _choice(rec: dict, key: str, choices: tuple, where: str) -> None:
    if rec[key] not in choices:
        raise RegistryError(f"{where}: {key}: expected one of {list(choices)}, got {rec[key]!r}")


def _twins(rec: dict, rules: Rules, where: str) -> None:
    """A Chinese twin stands beside its English (the project's records carry both); a
    formula's twin differs from it only inside \\text{}."""
    for en, zh in BILINGUAL.items():
        if rec.get(zh) is not None and rec.get(en) is None:
            raise RegistryError(f"{where}: {zh}: expected beside {en}, which the record lacks")
        if rules.chinese_required and rec.get(en) is not None and rec.get(zh) is None:
            raise RegistryError(f"{where}: {en}: expected its translation {zh}, got none")
    for en, zh in FORMULA_ZH.items():
        if _text(rec, zh, where) is None:
            continue
        if rec.get(en) is None:
            raise RegistryError(f"{where}: {zh}: expected beside {en}, which the record lacks")
        if _TEXT_GROUP.sub("", rec[zh]) != _TEXT_GROUP.sub("", rec[en]):
            raise RegistryError(f"{where}: {zh}: expected the math of {en} with only the words "
                                f"inside \\text{{}} translated, got other math: {rec[zh]!r}")


def _by_verdict(rec: dict, rules: Rules, where: str) -> None:
    """What each verdict requires and forbids."""
    verdict = rec["verdict"]
    corrected = verdict in CORRECTED
    if rules.full_correction:
        for key in ("correction_latex", "correction_text", "correction_text_zh"):
            _text(rec, key, where, required=corrected)
    elif corrected and not (rec.get("correction_text") or rec.get("correction_latex")):
        raise RegistryError(f"{where}: correction_text: missing (expected for verdict "
                            f"{verdict!r}: the correction in words, or correction_latex as a "
                            "formula)")
    if not corrected:
        given = next((k for k in ("correction_text", "correction_latex") if rec.get(k)), None)
        if given:
            raise RegistryError(f"{where}: {given}: expected none for verdict {verdict!r} (a "
                                f"correct statement needs no correction), got "
                                f"{rec[given]!r:.60}")
    for key, wanted in (("missing_condition", "imprecise"), ("source_latex", "reported")):
        _text(rec, key, where, required=rules.full_correction and verdict == wanted)
        if verdict != wanted and rec.get(key) is not None:
            raise RegistryError(f"{where}: {key}: is for verdict {wanted!r} only, got verdict "
                                f"{verdict!r}")
    # the summary reads "the note's version holds <condition>"
    if rec.get("missing_condition") and not rec["missing_condition"].startswith("only "):
        raise RegistryError(f"{where}: missing_condition: expected a clause beginning 'only ', "
                            f"got {rec['missing_condition'][:40]!r}")
    if rec.get("missing_condition_zh") and not rec["missing_condition_zh"].startswith("只"):
        raise RegistryError(f"{where}: missing_condition_zh: expected a clause beginning 「只」, "
                            f"got {rec['missing_condition_zh'][:20]!r}")
    if rec.get("note_version") is not None and verdict not in NOTE_FAILS:
        raise RegistryError(f"{where}: note_version: is for verdicts {list(NOTE_FAILS)} (the "
                            f"note's statement fails), got verdict {verdict!r}; for a correct "
                            "record the evidence is the note's version")


def _basis(rec: dict, rules: Rules, where: str) -> None:
    """A record rests on a computation whose versions fit its verdict, or on sources; history
    rests on sources alone."""
    sources = rec.get("sources")
    if sources is not None and (not isinstance(sources, list) or not sources or not all(
            isinstance(s, dict) and set(s) == {"cite", "locator"}
            and all(isinstance(v, str) and v.strip() for v in s.values()) for s in sources)):
        raise RegistryError(f"{where}: sources: expected a non-empty list of {{cite, locator}} "
                            f"tables, got {sources!r:.80}")
    name = rec.get("evidence")
    if rec["scope"] == "history" and (name is not None or not sources
                                      or rec.get("note_version") is not None):
        raise RegistryError(f"{where}: a history record expected sources and no evidence "
                            f"(history is not computed), got evidence {name!r} and "
                            f"{len(sources or [])} sources; give sources = [{{cite = \"…\", "
                            "locator = \"…\"}]")
    if name is None:
        if not sources:
            what = ("a registered function" if rules.evidence_kinds == ("function",)
                    else "'claim:ID', 'check:FUNCTION' or a registered function")
            raise RegistryError(f"{where}: evidence: missing (expected {what}, or sources for "
                                "a source-based record)")
        if rec.get("note_version") is not None:
            raise RegistryError(f"{where}: note_version: expected beside evidence, which the "
                                "record lacks")
        return
    _reference(rec, "evidence", rules, where)
    _reference(rec, "note_version", rules, where)
    kind, ref = reference(name)
    if kind == "function":
        fn = _registered(ref)
        wanted = VERSIONS_BY_VERDICT[rec["verdict"]]
        if (fn.right, fn.wrong) != wanted:
            raise RegistryError(f"{where}: evidence: {ref!r} holds with {fn.right!r} and fails "
                                f"with {fn.wrong!r}, expected {wanted[0]!r} and {wanted[1]!r} "
                                f"for verdict {rec['verdict']!r}")
        if rules.quote_read and evidence_said(fn, rec["quote"]) is None:
            raise RegistryError(f"{where}: evidence: {ref!r} reads none of this record's words: "
                                f"expected one of its quoted fragments "
                                f"{[x.fragment for x in fn.saids]} in the quote {rec['quote']!r} "
                                "(add a Said to the check)")
        if rec.get("note_version") is not None:
            raise RegistryError(f"{where}: note_version: expected none beside the registered "
                                f"function {ref!r}, which runs the note's version itself")


def _rejudged(rec: dict, where: str) -> None:
    """A verdict reviewed again keeps the earlier verdict and the reason for the change (or
    for keeping it), in both languages, so that the report can show them."""
    was = rec.get("rejudged_from")
    if was is None:
        if rec.get("rejudged") is not None:
            raise RegistryError(f"{where}: rejudged: expected beside 'rejudged_from' (the earlier "
                                "verdict), got none")
        return
    if was not in VERDICTS:
        raise RegistryError(f"{where}: rejudged_from: expected one of {list(VERDICTS)}, "
                            f"got {was!r}")
    _text(rec, "rejudged", where, required=True)


def _record(rec: object, i: int, seen: set, rules: Rules, file: str) -> dict:
    where = f"{file}record #{i + 1}"
    if not isinstance(rec, dict):
        raise RegistryError(f"{where}: expected a table, got {type(rec).__name__}")
    rid = _text(rec, "id", where, required=True)
    if not ID.match(rid):
        raise RegistryError(f"{where}: id: expected letters, digits, '_', '.', '-', got {rid!r}")
    where = f"{file}record {rid!r}"
    if rid in seen:
        raise RegistryError(f"{where}: id: expected a new id, got one used before")
    seen.add(rid)
    for key in sorted(set(rec) - set(FIELDS)):
        hint = (f"; the field is {RENAMED[key]} now" if key in RENAMED
                else f" (expected some of {list(FIELDS)})")
        raise RegistryError(f"{where}: {key}: unknown field{hint}")
    for key in REQUIRED[1:]:
        _text(rec, key, where, required=True)
    for key in OPTIONAL:
        if key not in ("sources", "see_also"):
            _text(rec, key, where, required=(key == "claim_latex" and rules.formula_required)
                  or (key == "reason_zh" and rules.chinese_required))
    note_and_quote(rec, rules, where)
    _choice(rec, "verdict", VERDICTS, where)
    _choice(rec, "scope", SCOPES, where)
    _by_verdict(rec, rules, where)
    _twins(rec, rules, where)
    _rejudged(rec, where)
    if rules.house:
        rules.house(rec, where)
    _basis(rec, rules, where)
    if rec.get("cross_check") is not None and _registered(rec["cross_check"]) is None:
        raise RegistryError(f"{where}: cross_check: expected a function registered with "
                            f"reports.audit.evidence.check, got {rec['cross_check']!r}")
    see_also = rec.get("see_also", [])
    if not isinstance(see_also, list) or not all(isinstance(s, str) for s in see_also):
        raise RegistryError(f"{where}: see_also: expected a list of claim ids, got "
                            f"{see_also!r:.60}")
    return {k: rec.get(k) for k in FIELDS} | {"see_also": see_also,
                                              "sources": rec.get("sources") or []}


def validate(raw: object, rules: Rules = YOURS, file: str = "") -> Registry:
    """Check parsed registry data (``file`` names it in messages)."""
    at = f"{file}: " if file else ""
    if not isinstance(raw, dict) or not isinstance(raw.get("record"), list) or not raw["record"]:
        got = raw.get("record") if isinstance(raw, dict) else raw
        raise RegistryError(f"{at or 'registry: '}record: expected at least one [[record]] "
                            f"table, got {type(got).__name__ if got is not None else 'none'}")
    unknown = sorted(set(raw) - {"record", "notes"})
    if unknown:
        raise RegistryError(f"{at or 'registry: '}{unknown[0]}: unknown table (expected "
                            "[[record]] and [notes.\"FILE\"])")
    seen: set[str] = set()
    records = [_record(rec, i, seen, rules, at) for i, rec in enumerate(raw["record"])]
    if rules.house_all:
        rules.house_all(records)
    return Registry(records, titles(raw, file))


def titles(raw: dict, file: str = "") -> dict[str, str]:
    """{note file: its title} from the ``[notes."FILE"]`` tables."""
    given = raw.get("notes", {})
    at = f"{file}: " if file else "registry: "
    if not isinstance(given, dict):
        raise RegistryError(f"{at}notes: expected tables [notes.\"FILE\"] with title = \"…\", "
                            f"got {type(given).__name__}")
    for name, value in given.items():
        if not isinstance(value, dict) or not isinstance(value.get("title"), str) \
                or set(value) != {"title"}:
            raise RegistryError(f"{at}notes.{name}: expected a table with title = \"…\" only, "
                                f"got {value!r:.60}")
    return {name: value["title"] for name, value in given.items()}


def parse_text(text: str, name: str = "registry") -> dict:
    """The TOML of ``text``, or RegistryError naming ``name``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RegistryError(f"{name}: expected TOML, got: {exc}") from None


def parse(path: Path) -> dict:
    """The TOML of ``path``, or RegistryError naming the file."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise RegistryError(f"{path}: cannot read ({exc.strerror})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RegistryError(f"{path}: expected TOML, got: {exc}") from None


def load(path: Path | str, rules: Rules = YOURS) -> Registry:
    """Read and check the registry at ``path`` (nothing is computed)."""
    path = Path(path)
    return validate(parse(path), rules, path.name)
