"""Running a build for a command: bad input and a failed stage said in one line on stderr, and
the paths it wrote shown the way the user can type them.  Every command that builds a report
(``python -m reports build``, ``python -m reports audit``, ``python -m derivations report``)
goes through here."""

from __future__ import annotations

import sys
from pathlib import Path

from reports.pipeline import build, collect, user_claims
from reports.render import katex, latex
from reports.view import model


def run_build(out: Path, *, claims: list[Path], log=None, **options) -> int:
    """``build.build(out, claims=claims, **options)`` with bad input and a failed stage said in
    one line on stderr: exit 0, 1 (a stage failed) or 2 (bad input)."""
    try:
        user_claims.check(claims)
    except user_claims.UserClaimsError as exc:
        print(f"reports: error: --claims {exc}", file=sys.stderr)
        return 2
    try:
        build.build(out, claims=claims, **options, **({"log": log} if log else {}))
    except user_claims.UserClaimsError as exc:  # found only when a claim is verified
        print(f"reports: error: --claims {exc}", file=sys.stderr)
        return 2
    except (
        katex.FormulaError,
        katex.UnsafeFormula,
        model.ReportDataError,
        latex.LatexError,
        collect.ProducerMissing,
        katex.NodeMissing,
    ) as exc:
        print(f"reports: error: {exc}", file=sys.stderr)
        print("reports: build failed; previous output (if any) left untouched", file=sys.stderr)
        return 1
    return 0


def shown(path: Path) -> str:
    """``path`` relative to this folder when it lies inside it, else absolute."""
    path = path.resolve()
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def pdf_line(out: Path, requested: bool) -> str | None:
    """The line a command prints about the PDFs of a build into ``out``: where they are; why
    none were made and, when the ``pdf/`` of an earlier build was kept, that it was (it may
    not match the new HTML); None for ``--no-pdf`` with nothing kept."""
    pdf = out / "pdf"
    if requested and latex.tex_available():
        return f"pdf: {shown(pdf / 'report.en.pdf')}, {shown(pdf / 'report.zh.pdf')}"
    why = "--no-pdf" if not requested else latex.TEX_HINT
    if pdf.is_dir():
        return (f"pdf: not rebuilt ({why}); {shown(pdf)}/ of the earlier build kept, it may not "
                "match the new HTML")
    return f"pdf: skipped: {why}" if requested else None
