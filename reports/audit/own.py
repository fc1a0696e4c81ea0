"""``python -m reports audit NOTES_DIR --registry FILE [--claims FILE.py ...] [--out DIR]``: the
errata report of your own lecture notes.

The registry is TOML, one ``[[record]]`` per audited statement of a note::

    [notes."attention.md"]          # optional; the title is otherwise the note's first line
    title = "Attention, briefly"

    [[record]]
    id = "tanh-derivative"           # letters, digits, '_', '.', '-'
    note = "attention.md"            # a file in NOTES_DIR
    quote = "1 + tanh²(x)"           # verbatim from the note, one line, at most 60 characters
    verdict = "error"                # correct | error | imprecise | reported
    scope = "transformer-math"       # transformer-math | history | other
    reason = "Differentiating tanh gives $1 - \\tanh^2 x$."   # inline math between $
    correction = "The derivative is $1 - \\tanh^2(x)$."       # for error, imprecise, reported
    evidence = "claim:my_tanh_derivative"   # or "check:function_name"
    # optional: reason_zh, correction_zh, claim_latex, correction_latex, see_also = [claim ids]

Evidence ``claim:ID`` is a claim of the ``--claims`` files: it is verified and the erratum shows
its status (a failed or numeric claim says so, and the evidence does not pass unless the claim is
proved).  ``check:NAME`` is a function ``NAME()`` of those files returning a bool or
``(bool, detail)``, ``detail`` a str or ``{"en": ..., "zh": ...}``; an exception it raises is shown
as a failed check.  A file may hold checks only.  Chinese is shown where the record gives it
(``reason_zh``, ``correction_zh``), else the English, marked.

Every user mistake — a quote not in its note, an unknown claim or check, a malformed record — is
one line naming the record and the field, exit 2.  The coverage of each note (sentences carrying
a record) is measured and printed.  Reuses :mod:`reports.audit.notes` (sentences, locating
quotes, coverage) and the report's errata section.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from derivations.cli import Parser
from reports.audit import notes as notes_mod

VERDICTS = ("correct", "error", "imprecise", "reported")
SCOPES = ("transformer-math", "history", "other")
NEEDS_CORRECTION = ("error", "imprecise", "reported")
REQUIRED = ("id", "note", "quote", "verdict", "scope", "reason", "evidence")
OPTIONAL = ("correction", "correction_zh", "reason_zh", "claim_latex", "correction_latex",
            "see_also")
MAX_QUOTE = 60
_ID = re.compile(r"^[A-Za-z0-9_.-]+$")
_EVIDENCE = re.compile(r"^(claim|check):([A-Za-z0-9_.-]+)$")
DEFAULT_OUT = Path("notes-audit")


class AuditError(ValueError):
    """A mistake in the user's registry, notes or files: one line naming the record and field."""


def _parse(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AuditError(f"{path}: cannot read ({exc.strerror})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise AuditError(f"{path}: expected TOML, got: {exc}") from None


def _field(rec: dict, key: str, where: str, required: bool = True) -> str | None:
    value = rec.get(key)
    if value is None:
        if required:
            raise AuditError(f"{where}: {key}: missing (expected a non-empty string)")
        return None
    if not isinstance(value, str) or not value.strip():
        raise AuditError(f"{where}: {key}: expected a non-empty string, got {value!r:.60}")
    return value


def read_registry(path: Path) -> tuple[list[dict], dict[str, str]]:
    """The records of ``path``, checked for shape, and the notes' titles it gives."""
    raw = _parse(path)
    records = raw.get("record")
    if not isinstance(records, list) or not records:
        raise AuditError(f"{path.name}: record: expected at least one [[record]] table, got "
                         f"{type(records).__name__ if records is not None else 'none'}")
    unknown = sorted(set(raw) - {"record", "notes"})
    if unknown:
        raise AuditError(f"{path.name}: unknown tables {unknown} (expected [[record]] and [notes])")
    titles = {}
    given = raw.get("notes") or {}
    if not isinstance(given, dict):
        raise AuditError(f"{path.name}: notes: expected tables [notes.\"FILE\"] with title = "
                         f"\"...\", got {type(given).__name__}")
    for name, value in given.items():
        if not isinstance(value, dict) or not isinstance(value.get("title"), str):
            raise AuditError(f"{path.name}: notes.{name}: title: expected a table with "
                             f"title = \"...\", got {value!r:.60}")
        titles[name] = value["title"]
    out, seen = [], set()
    for i, rec in enumerate(records):
        where = f"{path.name}: record #{i + 1}"
        if not isinstance(rec, dict):
            raise AuditError(f"{where}: expected a table, got {type(rec).__name__}")
        rid = _field(rec, "id", where)
        if not _ID.match(rid):
            raise AuditError(f"{where}: id: expected letters, digits, '_', '.', '-', got {rid!r}")
        where = f"{path.name}: record {rid!r}"
        if rid in seen:
            raise AuditError(f"{where}: id: expected a new id, got one used before")
        seen.add(rid)
        extra = sorted(set(rec) - set(REQUIRED) - set(OPTIONAL))
        if extra:
            raise AuditError(f"{where}: {extra[0]}: unknown field (expected some of "
                             f"{list(REQUIRED + OPTIONAL)})")
        for key in REQUIRED[1:]:
            _field(rec, key, where)
        for key in OPTIONAL[:-1]:
            _field(rec, key, where, required=False)
        if "/" in rec["note"] or "\\" in rec["note"]:
            raise AuditError(f"{where}: note: expected a file name in NOTES_DIR, got "
                             f"{rec['note']!r}")
        quote = rec["quote"]
        if len(quote) > MAX_QUOTE or "\n" in quote or quote != quote.strip():
            raise AuditError(f"{where}: quote: expected one line of at most {MAX_QUOTE} "
                             f"characters without outer spaces, got {quote!r:.80}")
        for key, allowed in (("verdict", VERDICTS), ("scope", SCOPES)):
            if rec[key] not in allowed:
                raise AuditError(f"{where}: {key}: expected one of {list(allowed)}, got "
                                 f"{rec[key]!r}")
        if rec["verdict"] in NEEDS_CORRECTION and not rec.get("correction"):
            raise AuditError(f"{where}: correction: missing (expected for verdict "
                             f"{rec['verdict']!r})")
        if rec["verdict"] == "correct" and (rec.get("correction") or rec.get("correction_latex")):
            raise AuditError(f"{where}: correction: expected none for verdict 'correct', got "
                             f"{(rec.get('correction') or rec.get('correction_latex'))!r:.60}")
        if not _EVIDENCE.match(rec["evidence"]):
            raise AuditError(f"{where}: evidence: expected 'claim:ID' or 'check:FUNCTION', got "
                             f"{rec['evidence']!r}")
        see_also = rec.get("see_also", [])
        if not isinstance(see_also, list) or not all(isinstance(s, str) for s in see_also):
            raise AuditError(f"{where}: see_also: expected a list of claim ids, got "
                             f"{see_also!r:.60}")
        out.append({**rec, "see_also": see_also, "_where": where})
    return out, titles


def _modules(paths: list[Path]) -> list[tuple[Path, object, list]]:
    """(path, module, its claims) of each file; a file may hold checks only."""
    from derivations import claimfiles

    out = []
    for path in paths:
        try:
            module = claimfiles.load_file(path)
            try:
                claims = claimfiles.claims_of(module, str(path))
            except claimfiles.ClaimFileError:  # checks only
                claims = []
        except claimfiles.ClaimFileError as exc:
            raise AuditError(f"--claims {exc}") from None
        out.append((path, module, claims))
    return out


def _verify(modules) -> list[dict]:
    """Every claim of the files, verified: their report data (each once, ids unique)."""
    import derivations
    from derivations import claimfiles
    from reports.pipeline import user_claims

    claims, files = [], []
    shipped = {d.id for d in derivations.claims()}
    for path, _, found in modules:
        for d in found:
            if d.id in shipped:
                raise AuditError(f"--claims {path}: claim {d.id!r} has the id of a shipped claim; "
                                 f"give yours another id")
            if any(d.id == c.id and d is not c for c in claims):
                raise AuditError(f"--claims {path}: two different claims have the id {d.id!r}")
            if not any(d is c for c in claims):
                claims.append(d)
        if found:
            files.append(path)
    if not claims:
        return []
    try:
        zh = user_claims.chinese(files, claims)
    except user_claims.UserClaimsError as exc:
        raise AuditError(f"--claims {exc}") from None
    results = claimfiles.verify_many(claims)
    return [{**r.to_dict(), **({"zh": zh[r.id]} if r.id in zh else {})} for r in results]


def _status_words(lang: str) -> dict:
    from reports.render import i18n

    return i18n.ui(lang)["status"]


def _claim_evidence(cid: str, claim: dict) -> dict:
    status = claim["status"]
    at = claim.get("failed_step")
    value = {}
    for lang, (said, step) in (("en", ("{id}: {status}", " at step {n}")),
                               ("zh", ("{id}：{status}", "，第 {n} 步"))):
        text = said.format(id=cid, status=_status_words(lang)[status])
        value[lang] = text + (step.format(n=at) if at else "")
    return {"passed": status == "proved", "value": value,
            "label": {"en": f"your claim {cid}", "zh": f"你的命题 {cid}"}}


def _check_evidence(name: str, fn, where: str) -> dict:
    try:
        got = fn()
    except Exception as exc:  # noqa: BLE001 - the user's check: a crash is a failed check
        text = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        return {"passed": False, "value": {"en": f"raised {text}", "zh": f"出错：{text}"},
                "label": {"en": f"your check {name}", "zh": f"你的检查 {name}"}}
    passed, detail = (got if isinstance(got, tuple) and len(got) == 2 else (got, None))
    if type(passed).__module__ == "numpy" and type(passed).__name__.startswith("bool"):
        passed = bool(passed)  # a comparison of NumPy values
    if not isinstance(passed, bool):
        raise AuditError(f"{where}: evidence: check:{name} returned {type(got).__name__} "
                         f"{got!r:.40}, expected a bool or (bool, detail)")
    if detail is None:
        detail = {"en": "holds" if passed else "does not hold",
                  "zh": "成立" if passed else "不成立"}
    elif isinstance(detail, str):
        detail = {"en": detail}
    elif not (isinstance(detail, dict) and isinstance(detail.get("en"), str)
              and all(isinstance(v, str) for v in detail.values())):
        raise AuditError(f"{where}: evidence: check:{name} returned detail {detail!r:.40}, "
                         f"expected a str or {{'en': str, 'zh': str}}")
    return {"passed": passed, "value": detail,
            "label": {"en": f"your check {name}", "zh": f"你的检查 {name}"}}


def _quote_latex(quote: str) -> str:
    special = {"\\": r"\backslash ", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
               "#": r"\#", "^": r"\hat{}", "_": r"\_", "%": r"\%", "~": r"\sim "}
    return r"\text{" + "".join(special.get(c, c) for c in quote) + "}"


def audit(notes_dir: Path, registry: Path, claim_files: list[Path]) -> tuple[dict, list[str]]:
    """Report data of the audit (errata records and your claims) and the lines to print."""
    if not notes_dir.is_dir():
        raise AuditError(f"NOTES_DIR: expected a directory, got {str(notes_dir)!r}")
    records, titles = read_registry(registry)
    texts: dict[str, str] = {}
    for rec in records:
        if rec["note"] not in texts:
            try:
                texts[rec["note"]] = notes_mod.read_note(notes_dir, rec["note"])
            except notes_mod.NotesError as exc:
                raise AuditError(f"{rec['_where']}: note: {exc}") from None
        if rec["quote"] not in texts[rec["note"]]:
            raise AuditError(f"{rec['_where']}: quote: not found in {rec['note']}: "
                             f"{rec['quote']!r}")
    modules = _modules(claim_files)
    functions = {}
    for _, module, _ in modules:
        for name, value in vars(module).items():
            if callable(value) and not name.startswith("_"):
                functions.setdefault(name, value)
    known = {c.id for _, _, found in modules for c in found}
    for rec in records:  # every reference resolves before anything is computed
        kind, ref = _EVIDENCE.match(rec["evidence"]).groups()
        if kind == "claim" and ref not in known:
            raise AuditError(f"{rec['_where']}: evidence: claim {ref!r} is not in the --claims "
                             f"files (their claims: {sorted(known) or 'none'})")
        if kind == "check" and ref not in functions:
            raise AuditError(f"{rec['_where']}: evidence: no function {ref!r} in the --claims "
                             f"files")
        bad = [s for s in rec["see_also"] if s not in known]
        if bad:
            raise AuditError(f"{rec['_where']}: see_also: {bad[0]!r} is not in the --claims "
                             f"files (their claims: {sorted(known) or 'none'})")
    claims = {c["id"]: c for c in _verify(modules)}
    out, lines = [], []
    for rec in records:
        kind, ref = _EVIDENCE.match(rec["evidence"]).groups()
        row = (_claim_evidence(ref, claims[ref]) if kind == "claim"
               else _check_evidence(ref, functions[ref], rec["_where"]))
        version = "correction" if rec["verdict"] in ("error", "imprecise") else "independent"
        text = texts[rec["note"]]
        out.append({
            "id": rec["id"], "note": rec["note"], "quote": rec["quote"],
            "note_title": titles.get(rec["note"]) or notes_mod.title(text),
            "scope": rec["scope"], "verdict": rec["verdict"],
            "claim_latex": rec.get("claim_latex") or _quote_latex(rec["quote"]),
            "correction_latex": rec.get("correction_latex"),
            "correction_text": rec.get("correction"), "correction_text_zh":
                rec.get("correction_zh"),
            "reason": rec["reason"], "reason_zh": rec.get("reason_zh"),
            "see_also": rec["see_also"],
            "locator": notes_mod.locate(text, rec["quote"]),
            "evidence": {"kind": kind, "ref": ref, "detail": row["value"]["en"],
                         "passed": row["passed"]},
            "evidence_view": {"rows": [{"version": version, "label": row["label"],
                                        "value": row["value"], "math": "",
                                        "passed": row["passed"]}]},
        })
        lines.append(f"{rec['id']:28s} {rec['verdict']:10s} evidence {rec['evidence']}: "
                     f"{'passed' if row['passed'] else 'NOT passed'} ({row['value']['en']})")
    covered = {}
    for name, text in texts.items():
        cov = notes_mod.note_coverage(name, text, records)
        covered[name] = cov["view"]
        lines.append(f"coverage: {name}: {cov['covered']}/{cov['sentences']} sentences "
                     f"({100 * cov['share']:.0f} %) carry a record")
    from reports.pipeline import build

    data = {**build.mine_only(), "user_claims": list(claims.values()),
            "errata": {"records": out, "summary": {},
                       "notes": {n: {"title": titles.get(n) or notes_mod.title(t),
                                     "coverage": covered[n]} for n, t in texts.items()}}}
    return data, lines


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m reports audit",
               description="The errata report of your own notes (HTML; PDF where XeLaTeX is).")
    p.add_argument("notes_dir", type=Path, metavar="NOTES_DIR")
    p.add_argument("--registry", type=Path, required=True, metavar="FILE.toml")
    p.add_argument("--claims", type=Path, nargs="+", default=[], metavar="FILE.py",
                   help="your claims and check functions, cited as claim:ID and check:NAME")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="output directory (default: %(default)s in this folder)")
    p.add_argument("--no-pdf", action="store_true", help="skip the XeLaTeX stage")
    args = p.parse_args(argv)
    try:
        data, lines = audit(args.notes_dir, args.registry, args.claims)
    except AuditError as exc:
        print(f"audit: error: {exc}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    from reports.pipeline.run import run_build, shown

    quiet: list[str] = []
    code = run_build(args.out.resolve(), claims=[], data=data, data_source=str(args.registry),
                     pdf=not args.no_pdf, log=quiet.append)
    if code:
        print("\n".join(quiet), file=sys.stderr)
        return code
    from reports.render import latex

    html = args.out / "html"
    print(f"report: {shown(html / 'index.html')} (English), {shown(html / 'index.zh.html')} "
          f"(中文)")
    if not args.no_pdf and latex.tex_available():
        pdf = args.out / "pdf"
        print(f"pdf: {shown(pdf / 'report.en.pdf')}, {shown(pdf / 'report.zh.pdf')}")
    elif not args.no_pdf:
        print(f"pdf: skipped: {latex.TEX_HINT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
