"""``python -m derivations notes PATH… [--json] [--out DIR] [--no-cache]``.

Checks every formula of the notes under PATH (files or folders: ``.md``, ``.markdown``,
``.txt``) and prints the counts per verdict, then every failed link with its counterexample at
file:line.  ``--json`` prints one JSON object instead: per note, per formula its ``start``,
``end``, ``latex``, ``reading``, ``verdict``, ``reason`` and, for a failed link, the link and its
counterexample.  ``--out DIR`` also writes an annotated copy of each note in HTML (English and
Chinese) and a drafted errata registry, ``DIR/registry.toml``, that ``python -m reports audit``
reads.  Exit 0 when no formula failed, 1 when one did, 2 for bad usage (one line).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from derivations.cli import Parser
from derivations.notes import cache as cache_mod
from derivations.notes.model import MARKS, VERDICTS, NotesResult
from derivations.notes.run import NotesError, check_notes
from derivations.notes.verdicts import APPROX_MARK


def _parser() -> Parser:
    p = Parser(prog="python -m derivations notes",
               description="Check every formula of your Markdown + LaTeX notes.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="a note (.md, .markdown, .txt) or a folder of notes")
    p.add_argument("--json", action="store_true", help="print one JSON object instead")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="write the annotated notes (HTML) and a drafted errata registry here")
    p.add_argument("--no-cache", action="store_true",
                   help=f"check every formula again (the cache is {cache_mod.DEFAULT}/ in this "
                        f"folder)")
    return p


def _point(counterexample: dict | None) -> list[str]:
    if not counterexample:
        return []
    lines = []
    point = counterexample.get("point")
    if point:
        lines.append("at " + ", ".join(f"{k} = {v}" for k, v in point.items()))
    elif "point" in counterexample:
        lines.append("with the numbers as written")
    for key, label in (("previous", "left side"), ("current", "right side"),
                       ("exact", "exact value"), ("shown", "shown"), ("lhs", "left side"),
                       ("rhs", "right side")):
        if key in counterexample:
            lines.append(f"{label}: {counterexample[key]}")
    return lines


def summary(result: NotesResult) -> list[str]:
    """The terminal's lines: counts per verdict, then each failed link with its point."""
    counts = result.counts()
    n = len(result.formulas)
    notes = len(result.notes)
    rounded = sum(1 for f in result.formulas if f.verdict == "proved" and f.approx)
    # a proved ≈ is exact only to the digits the note shows; the count must not hide that
    said = {"proved": f" ({rounded} {APPROX_MARK} to the digits shown)"} if rounded else {}
    given = sum(1 for f in result.formulas if f.given)
    if given:  # a value or recursion the note gives is not a statement left unchecked
        said["not checkable"] = f" ({given} given by the note)"
    parts = ", ".join(f"{counts[v]} {MARKS[v]} {v}{said.get(v, '')}" for v in VERDICTS if counts[v])
    lines = [f"{n} formula{'s' if n != 1 else ''} in {notes} note{'s' if notes != 1 else ''}: "
             f"{parts or 'none'}"]
    for note, f in result.failed:
        lines.append(f"{note.path}:{f.line}: ✘ {f.latex}")
        lines.append(f"    {f.reason}")
        for link in f.failed_links:
            for said in _point(link.counterexample):
                lines.append(f"      {said}")
    return lines


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        result = check_notes(args.paths, cache=None if args.no_cache else cache_mod.DEFAULT)
    except NotesError as exc:
        print(f"python -m derivations notes: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=1))
    else:
        for line in summary(result):
            print(line)
    if args.out is not None:
        from derivations.notes import errata
        from reports.render import notes as page

        written = page.write(result, args.out)
        registry = errata.write(result, args.out / "registry.toml")
        said = sys.stderr if args.json else sys.stdout
        print(f"annotated: {', '.join(str(p) for p in written)}", file=said)
        if registry is not None:
            print(f"errata drafted: {registry}", file=said)
    return 1 if result.failed else 0
