"""``python -m derivations report FILE.py ... [--out DIR] [--with-shipped] [--no-pdf]``: the report
of your own claims, from your own folder.

Paths are taken from the folder the command is run in; the report is written to ``--out``
(default ``derivations-report/`` there), and the last line says where.  By default the report
holds your claims only, so it takes seconds; ``--with-shipped`` puts them in the whole report
beside the shipped claims, whose stages come from the project's cache (filled by ``make
reports``; computed, then cached, when it is empty).  A line per claim says its status; the
build's stage lines are shown only if it fails (or with ``--verbose``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from derivations.cli import Parser

DEFAULT_OUT = Path("derivations-report")


def _parser() -> Parser:
    p = Parser(prog="python -m derivations report",
               description="Render your own claims to HTML (English, 中文) and PDF.")
    p.add_argument("files", type=Path, nargs="+", metavar="FILE.py",
                   help="files of your claims, relative to this folder")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="output directory (default: %(default)s in this folder)")
    p.add_argument("--with-shipped", action="store_true",
                   help="the whole report, the shipped claims included (from the project's cache)")
    p.add_argument("--no-pdf", action="store_true", help="skip the XeLaTeX stage")
    p.add_argument("--verbose", action="store_true", help="print the build's stage lines")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from reports.pipeline.run import pdf_line, run_build, shown

    start = time.perf_counter()
    lines: list[str] = []
    log = (lambda line: print(line, flush=True)) if args.verbose else lines.append
    keep: dict = {}
    pdf = not args.no_pdf
    code = run_build(args.out.resolve(), claims=list(args.files), shipped=args.with_shipped,
                     pdf=pdf, log=log, keep=keep)
    if code:
        for line in lines:
            print(line, file=sys.stderr)
        return code
    claims = keep["data"]["user_claims"]
    for c in claims:
        at = f" at step {c['failed_step']}" if c["failed_step"] else ""
        print(f"{c['id']:34s} {c['status']}{at}")
    counts: dict[str, int] = {}
    for c in claims:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    what = ", ".join(f"{n} {status}" for status, n in counts.items())
    print(f"{len(claims)} of your claims: {what}; report "
          f"written in {time.perf_counter() - start:.1f} s")
    html = args.out / "html"
    print(f"report: {shown(html / 'index.html')} (English), "
          f"{shown(html / 'index.zh.html')} (中文)")
    said = pdf_line(args.out, pdf)
    if said:
        print(said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
