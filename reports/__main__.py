"""``python -m reports build [--out DIR] [--data JSON] [--no-pdf] [--no-cache] [--claims FILE ...
[--only-claims]]``."""

from __future__ import annotations

import sys
from pathlib import Path

from derivations.cli import Parser
from reports.pipeline import build
from reports.pipeline.run import run_build
from reports.view import model


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["audit"]:  # the errata report of your own notes: reports.audit.own
        from reports.audit import own

        return own.main(argv[1:])
    parser = Parser(prog="python -m reports")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("audit", add_help=False,
                   help="the errata report of your own notes (python -m reports audit -h)")
    b = sub.add_parser("build", help="render the report to HTML, LaTeX and PDF")
    b.add_argument("--out", type=Path, default=build.DEFAULT_OUT,
                   help="output directory (default: %(default)s)")
    b.add_argument("--data", type=Path,
                   help="render this JSON report data instead of running the derivations")
    b.add_argument("--no-pdf", action="store_true", help="skip the XeLaTeX stage")
    b.add_argument("--no-cache", action="store_true",
                   help="recompute derivations and cross-checks even if cached")
    b.add_argument("--cache-dir", type=Path, default=build.DEFAULT_CACHE,
                   help="result cache (default: %(default)s)")
    b.add_argument("--claims", type=Path, nargs="+", default=[], metavar="FILE.py",
                   help="add the claims of these files as a section 'Your derivations'")
    b.add_argument("--only-claims", action="store_true",
                   help="with --claims: a report of those claims only (no shipped stage runs)")
    args = parser.parse_args(argv)

    try:
        data = build.load_data(args.data) if args.data else None
    except (OSError, model.ReportDataError) as exc:  # bad input: nothing was started
        what = f"{args.data}: cannot read ({exc.strerror})" if isinstance(exc, OSError) else exc
        print(f"reports: error: --data {what}", file=sys.stderr)
        return 2
    if args.only_claims and not args.claims:
        print("reports: error: --only-claims needs --claims FILE.py ...", file=sys.stderr)
        return 2
    return run_build(args.out, data=data, data_source=str(args.data or ""), pdf=not args.no_pdf,
                     cache=build.Cache(args.cache_dir, enabled=not args.no_cache),
                     claims=args.claims, shipped=not args.only_claims)


if __name__ == "__main__":
    sys.exit(main())
