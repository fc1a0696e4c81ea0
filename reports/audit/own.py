"""``python -m reports audit NOTES_DIR --registry FILE [--claims FILE.py ...] [--out DIR]``: the
errata report of your own lecture notes.

The registry is TOML, one ``[[record]]`` per audited statement of a note, in the schema of
:mod:`reports.audit.registry` (the project's own audit uses the same)::

    [notes."softmax.md"]             # optional; the title is otherwise the note's first line
    title = "Softmax, my notes"

    [[record]]
    id = "lse-squared"               # letters, digits, '_', '.', '-'
    note = "softmax.md"              # a file in NOTES_DIR
    quote = '\\frac{e^{z_j}}{(\\sum_k e^{z_k})^2}'   # verbatim, one line, at most 60 characters
    verdict = "error"                # correct | error | imprecise | reported
    scope = "transformer-math"       # transformer-math | history | other
    reason = "The normalizer enters once: $\\partial_j \\log Z = e^{z_j}/Z$."  # math between $
    correction_text = "The gradient is the softmax, $e^{z_j}/\\sum_k e^{z_k}$."
    evidence = "claim:my_lse_gradient"      # the correction's: claim:ID, check:NAME
    note_version = "claim:my_lse_squared"   # the note as written: it must fail
    # optional: reason_zh, correction_text_zh, claim_latex, correction_latex, see_also, sources

``claim:ID`` is a claim of the ``--claims`` files, or a shipped claim by its id (verified here,
and shown in the report): the erratum shows its status, and it passes only when proved.
``check:NAME`` is a function ``NAME()`` of those files returning a bool or ``(bool, detail)``,
``detail`` a str or ``{"en": ..., "zh": ...}`` (prose: math between ``$``); an exception it
raises is shown as a failed check.  A file may hold checks only.  Chinese is shown where the
record gives it (``reason_zh``, ``correction_text_zh``, …), else the English, marked.

Every mistake — a malformed record, a quote not in its note, an unknown claim or check, a
formula KaTeX cannot typeset — is one line naming the record and the field, exit 2, before
anything is computed (every formula of the registry is checked at once).  A quote that stands
in the note's math (``$…$``, ``\\(…\\)``, …) is typeset as the note's math.  The coverage of each
note (sentences carrying a record) is measured and printed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from derivations.cli import Parser
from reports.audit import notes as notes_mod
from reports.audit import own_evidence, registry
from reports.audit.own_evidence import AuditError

DEFAULT_OUT = Path("notes-audit")
# the prose and the formulas of a record, checked by KaTeX before anything is computed
PROSE = (*registry.BILINGUAL, *registry.BILINGUAL.values())
FORMULAS = (*registry.FORMULA_ZH, *registry.FORMULA_ZH.values())


def _read(notes_dir: Path, path: Path) -> tuple[registry.Registry, dict[str, str]]:
    """The registry and the text of every note it audits; every quote found in its note."""
    if not notes_dir.is_dir():
        raise AuditError(f"NOTES_DIR: expected a directory, got {str(notes_dir)!r}")
    try:
        found = registry.load(path)
    except registry.RegistryError as exc:
        raise AuditError(str(exc)) from None
    texts: dict[str, str] = {}
    for rec in found.records:
        where = f"{path.name}: record {rec['id']!r}"
        if rec["note"] not in texts:
            try:
                texts[rec["note"]] = notes_mod.read_note(notes_dir, rec["note"])
            except notes_mod.NotesError as exc:
                raise AuditError(f"{where}: note: {exc}") from None
        if rec["quote"] not in texts[rec["note"]]:
            raise AuditError(f"{where}: quote: not found in {rec['note']}: {rec['quote']!r}; "
                             "copy it from the note as it is written")
    return found, texts


def _files(paths: list[Path]) -> tuple[dict, dict, list[Path]]:
    """Your claims by id (each once: the same claim reached through two files is one), your
    functions by name, and the files that hold claims."""
    from derivations import claimfiles

    claims: dict[str, tuple[object, Path]] = {}
    functions: dict[str, object] = {}
    files = []
    for path in paths:
        try:
            module = claimfiles.load_file(path)
            try:
                found = claimfiles.claims_of(module, str(path))
            except claimfiles.ClaimFileError:  # checks only
                found = []
        except claimfiles.ClaimFileError as exc:
            raise AuditError(f"--claims {exc}") from None
        for d in found:
            first = claims.setdefault(d.id, (d, path))[0]
            if first is not d and first != d:
                raise AuditError(f"--claims {path}: two different claims have the id {d.id!r} "
                                 f"(from {claims[d.id][1]} and {path}); give one a new id")
        files += [path] if found else []
        for name, value in vars(module).items():
            if callable(value) and not name.startswith("_"):
                functions.setdefault(name, value)
    return {cid: d for cid, (d, _) in claims.items()}, functions, files


def _shipped_claims(mine: dict) -> tuple[dict, dict]:
    """The shipped claims by id, and yours without those that are shipped claims themselves
    (imported to be cited); a different claim of yours with a shipped claim's id is refused."""
    import derivations

    shipped = {d.id: d for d in derivations.claims()}
    own = {}
    for cid, d in mine.items():
        if cid not in shipped:
            own[cid] = d
        elif shipped[cid] is not d and shipped[cid] != d:
            raise AuditError(f"--claims: claim {cid!r} has the id of a shipped claim but states "
                             "something else; give yours another id (a shipped claim is cited "
                             f"as claim:{cid} without listing it)")
    return shipped, own


def _resolve(records: list[dict], file: str, own: dict, shipped: dict, functions: dict
             ) -> list[str]:
    """Every reference of the records found before anything is computed; the shipped claims
    they cite."""
    cited = []
    for rec in records:
        where = f"{file}: record {rec['id']!r}"
        for key in ("evidence", "note_version"):
            if rec[key] is None:
                continue
            kind, ref = registry.reference(rec[key])
            if kind == "claim" and ref not in own and ref not in shipped:
                raise AuditError(f"{where}: {key}: claim {ref!r} is not in the --claims files "
                                 f"(their claims: {sorted(own) or 'none'}) nor a shipped claim; "
                                 "check the id or add the file to --claims")
            if kind == "check" and ref not in functions:
                raise AuditError(f"{where}: {key}: no function {ref!r} in the --claims files; "
                                 f"define def {ref}(): ... returning a bool, or fix the name")
            if kind == "claim" and ref not in own:
                cited.append(ref)
        for ref in rec["see_also"]:
            if ref not in own and ref not in shipped:
                raise AuditError(f"{where}: see_also: {ref!r} is not in the --claims files "
                                 f"(their claims: {sorted(own) or 'none'}) nor a shipped claim")
            if ref not in own:
                cited.append(ref)
    return list(dict.fromkeys(cited))


def _formula_problems(records: list[dict], file: str, quotes: dict[str, str | None]
                      ) -> tuple[list[str], set[str]]:
    """Every formula of the records KaTeX cannot typeset, one line each; and the records whose
    quote's math it cannot typeset (shown as written instead)."""
    from reports.render import katex

    lines: list[str] = []
    found: list[tuple[str, str, katex.Tex]] = []  # (record id, field, formula)
    for rec in records:
        where = f"{file}: record {rec['id']!r}"
        try:
            for key in FORMULAS:
                if rec.get(key):
                    found.append((rec["id"], key, katex.Tex(rec[key], False, key)))
            for key in PROSE:
                if rec.get(key):
                    found += [(rec["id"], key, p) for p in katex.prose(rec[key], key).parts
                              if isinstance(p, katex.Tex)]
        except katex.FormulaError as exc:  # its label is the field
            lines.append(f"{where}: {exc}; close the formula with $, or write a dollar sign "
                         "as \\$")
        except katex.UnsafeFormula as exc:
            lines.append(f"{where}: {exc}")
        if quotes.get(rec["id"]):
            try:
                found += [(rec["id"], "quote", p) for p in katex.prose(quotes[rec["id"]]).parts
                          if isinstance(p, katex.Tex)]
            except (katex.FormulaError, katex.UnsafeFormula):
                found.append((rec["id"], "quote", katex.Tex(r"\unclosed")))
    bad_quotes = set()
    for (rid, key, tex), problem in zip(found, katex.problems([f for *_, f in found]),
                                        strict=True):
        if problem is None:
            continue
        if key == "quote":
            bad_quotes.add(rid)
        else:
            lines.append(f"{file}: record {rid!r}: {key}: KaTeX cannot typeset {tex.tex!r}: "
                         f"{problem}; write it as LaTeX math that KaTeX reads")
    return lines, bad_quotes


def _detail_problems(done: dict[str, dict], users: dict[str, list[str]]) -> list[str]:
    """A check's detail with a formula KaTeX cannot typeset (or an unclosed $)."""
    from reports.render import katex

    lines, found = [], []
    for ref, result in done.items():
        if not ref.startswith("check:"):
            continue
        for lang, text in result["value"].items():
            try:
                found += [(ref, lang, p) for p in katex.prose(text, ref).parts
                          if isinstance(p, katex.Tex)]
            except katex.FormulaError:
                lines.append(f"{users[ref][0]}: {ref}: its detail ({lang}) has an unclosed $: "
                             f"{text[:60]!r}; close the formula, or write a dollar sign as \\$")
    for (ref, lang, tex), problem in zip(found, katex.problems([f for *_, f in found]),
                                         strict=True):
        if problem is not None:
            lines.append(f"{users[ref][0]}: {ref}: its detail ({lang}) holds {tex.tex!r}, "
                         f"which KaTeX cannot typeset: {problem}")
    return lines


def _verify(own: dict, cited: list[str], shipped: dict, files: list[Path]
            ) -> tuple[dict[str, dict], dict[str, dict]]:
    """Your claims and the shipped claims cited, verified: their report data by id."""
    from derivations import claimfiles
    from reports.pipeline import user_claims

    try:
        zh = user_claims.chinese(files, list(own.values()))
    except user_claims.UserClaimsError as exc:
        raise AuditError(f"--claims {exc}") from None
    results = claimfiles.verify_many([*own.values(), *(shipped[c] for c in cited)])
    data = {r.id: {**r.to_dict(), **({"zh": zh[r.id]} if r.id in zh else {})}
            for r in results}
    return ({cid: data[cid] for cid in own}, {cid: data[cid] for cid in cited})


def _line(rec: dict, key: str, result: dict) -> str:
    wanted = key == "evidence" or rec["verdict"] not in registry.NOTE_FAILS
    said = ("passed" if result["passed"] else "NOT passed") if wanted else (
        "does not hold, as the verdict says" if not result["passed"]
        else "HOLDS, though the verdict says it does not")
    head = f"{rec['id']:28s} {rec['verdict']:10s}" if key == "evidence" else " " * 39
    return f"{head} {key} {rec[key]}: {said} ({result['value']['en']})"


def audit(notes_dir: Path, path: Path, claim_files: list[Path]) -> tuple[dict, list[str]]:
    """Report data of the audit (errata records and the claims they cite) and the lines to
    print."""
    found, texts = _read(notes_dir, path)
    records, file = found.records, path.name
    mine, functions, files = _files(claim_files)
    shipped, own = _shipped_claims(mine)
    cited = _resolve(records, file, own, shipped, functions)
    quotes = {r["id"]: notes_mod.quote_math(texts[r["note"]], r["quote"]) for r in records}
    problems, bad_quotes = _formula_problems(records, file, quotes)
    if problems:
        raise AuditError(*problems)
    quotes = {rid: q for rid, q in quotes.items() if rid not in bad_quotes}
    users: dict[str, list[str]] = {}  # each reference, and the records that name it
    for rec in records:
        for key in ("evidence", "note_version"):
            if rec[key] is not None and registry.reference(rec[key])[0] != "function":
                users.setdefault(rec[key], []).append(f"{file}: record {rec['id']!r}: {key}")
    done = {ref: own_evidence.check_result(ref.split(":", 1)[1], functions[ref.split(":", 1)[1]],
                                           where[0])
            for ref, where in users.items() if ref.startswith("check:")}
    problems = _detail_problems(done, users)
    if problems:
        raise AuditError(*problems)
    mine_data, shipped_data = _verify(own, cited, shipped, files)
    for ref in users:
        kind, cid = registry.reference(ref)
        if kind == "claim":
            done[ref] = own_evidence.claim_result(cid, (mine_data | shipped_data)[cid],
                                                  cid in shipped_data)
    related = {cid: (data, False) for cid, data in mine_data.items()}
    related |= {cid: (data, True) for cid, data in shipped_data.items()}
    from reports.audit.errata import view

    runs = {(r["name"], r["version"], r["quote_words"]): r for r in view.evidence_runs(
        [{**r, "evidence": registry.reference(r["evidence"])[1]
          if r["evidence"] and registry.reference(r["evidence"])[0] == "function" else None}
         for r in records])}
    out, lines = [], []
    for rec in records:
        out.append(_record(rec, texts[rec["note"]], found.titles, quotes[rec["id"]], done,
                           related, runs))
        for key in ("evidence", "note_version"):
            if rec[key] is not None and rec[key] in done:
                lines.append(_line(rec, key, done[rec[key]]))
            elif key == "evidence" and rec[key] is not None:
                ev = out[-1]["evidence"]
                lines.append(f"{rec['id']:28s} {rec['verdict']:10s} evidence {rec[key]}: "
                             f"{'passed' if ev['passed'] else 'NOT passed'} ({ev['detail']})")
            elif key == "evidence":
                lines.append(f"{rec['id']:28s} {rec['verdict']:10s} sources: "
                             f"{len(rec['sources'])}, not computed")
    covered = {}
    for name, text in texts.items():
        cov = notes_mod.note_coverage(name, text, records)
        covered[name] = cov["view"]
        lines.append(f"coverage: {name}: {cov['covered']}/{cov['sentences']} sentences "
                     f"({100 * cov['share']:.0f} %) carry a record")
    from reports.pipeline import build

    data = {**build.mine_only(), "claims": list(shipped_data.values()),
            "user_claims": list(mine_data.values()),
            "errata": {"records": out, "summary": {},
                       "notes": {n: {"title": found.titles.get(n) or notes_mod.title(t),
                                     "coverage": covered[n]} for n, t in texts.items()}}}
    return data, lines


def _record(rec: dict, text: str, titles: dict, quote: str | None, done: dict, related: dict,
            runs: dict) -> dict:
    """One record as report data: the project's audit's shape."""
    view = own_evidence.evidence_view(rec, done, related, runs)
    if rec["evidence"] is None:
        main = {"kind": "sources", "ref": "", "passed": True,
                "detail": view["rows"][-1]["value"]["en"]}
    else:
        kind, ref = registry.reference(rec["evidence"])
        if kind == "function":  # as the project's audit: the run of the version that must hold
            from reports.audit import evidence
            from reports.audit.errata.view import run_key

            run = runs[run_key(rec, ref, evidence.CHECKS[ref].right)]
            result = {"passed": run["passed"], "value": {"en": run["detail"]}}
        else:
            result = done[rec["evidence"]]
        main = {"kind": {"function": "computation"}.get(kind, kind), "ref": ref,
                "detail": result["value"]["en"], "passed": result["passed"]}
    # the erratum links the claims it names: its evidence's, and the note's version's
    linked = [registry.reference(rec["note_version"])[1]] if rec["note_version"] \
        and registry.reference(rec["note_version"])[0] == "claim" else []
    return {
        **{k: rec[k] for k in ("id", "note", "quote", "scope", "verdict", "reason", "reason_zh",
                                "claim_latex", "correction_latex", "correction_text",
                                "correction_text_zh", "source_latex", "missing_condition",
                                "missing_condition_zh", "reading", "reading_zh", "claim_group",
                                *registry.FORMULA_ZH.values())},
        "quote_prose": quote,
        "note_title": titles.get(rec["note"]) or notes_mod.title(text),
        "locator": notes_mod.locate(text, rec["quote"]),
        "see_also": list(dict.fromkeys([*linked, *rec["see_also"]])),
        "sources": rec["sources"],
        "evidence": main,
        "evidence_view": view,
    }


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
        for line in exc.lines:
            print(f"audit: error: {line}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    from reports.pipeline.run import pdf_line, run_build, shown

    quiet: list[str] = []
    code = run_build(args.out.resolve(), claims=[], data=data, data_source=str(args.registry),
                     pdf=not args.no_pdf, log=quiet.append, student=False)
    if code:
        print("\n".join(quiet), file=sys.stderr)
        return code
    html = args.out / "html"
    print(f"report: {shown(html / 'index.html')} (English), {shown(html / 'index.zh.html')} "
          f"(中文)")
    said = pdf_line(args.out, not args.no_pdf)
    if said:
        print(said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
