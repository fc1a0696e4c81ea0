"""Check the errata registry against the lecture notes: quotes, titles and coverage.

    python -m reports.audit.notes check NOTES_DIR

Every quote (of a record or of a sentence marked as containing no checkable claim) must occur
verbatim; every note's title must match its file; and at least ``MIN_COVERAGE`` of each note's
sentences must carry a record or a no-claim mark. Exit 0 when all hold; 1 naming each stale quote,
wrong title or short coverage; 2 with a one-line message when the directory, a note file or the
registry cannot be used. Nothing is written.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from derivations.cli import Parser
from reports.audit import errata


class NotesError(Exception):
    """A note or the registry cannot be read; the message is one line."""



def read_note(directory: Path, name: str) -> str:
    path = directory / name
    if not path.is_file():
        raise NotesError(f"note {name}: expected a file in {directory}, got none")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise NotesError(f"note {name}: cannot read ({exc.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotesError(f"note {name}: expected UTF-8, got byte 0x{data[exc.start]:02x} "
                         f"at offset {exc.start}") from None


# A sentence ends at a Chinese full stop, exclamation or question mark, a semicolon, or a line
# break; the note's web copies carry no other reliable boundary (their ASCII '.' also appears in
# numbers like 0.5, and ASCII '?' / ';' do not end sentences in these notes).
_BOUNDARY = re.compile(r"[。！？；]|\n")
_WORD = re.compile(r"\w")
MIN_COVERAGE = 0.95
CONTEXT = 12


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text``, closing punctuation included, outer
    spaces excluded; pieces without a letter, digit or CJK character (rules, bare markup) are
    not sentences."""
    out, start = [], 0
    for m in [*_BOUNDARY.finditer(text), None]:
        end = m.end() if m is not None else len(text)
        if m is not None and m.group() == "\n":
            end = m.start()
        piece = text[start:end]
        lead = len(piece) - len(piece.lstrip())
        a, b = start + lead, start + len(piece.rstrip())
        if _WORD.search(text[a:b]):
            out.append((a, b))
        start = m.end() if m is not None else len(text)
    return out


def title(text: str) -> str:
    """The note's own title: its first non-empty line, without a Markdown '#' and without the
    wiki links that follow it in the web copy."""
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line.split(" [[")[0].strip()
    raise NotesError("note: expected a first non-empty line to read the title from, got none")


def locate(text: str, quote: str) -> dict | None:
    """Line (1-based), column (1-based) and a short context of the first occurrence of ``quote``."""
    at = text.find(quote)
    if at < 0:
        return None
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    before = text[max(0, at - CONTEXT):at].split("\n")[-1]
    after = text[at + len(quote):at + len(quote) + CONTEXT].split("\n")[0]
    return {"line": line, "column": column, "offset": at,
            "context": f"…{before}【{quote}】{after}…"}


def coverage(text: str, quotes: list[str]) -> dict:
    """Which sentences of ``text`` overlap the first occurrence of one of ``quotes`` (the place
    the locator points to); a quote that is a whole sentence covers every identical sentence."""
    sents = sentences(text)
    spans = []
    for q in quotes:
        at = text.find(q)
        if at >= 0:
            spans.append((at, at + len(q)))
        spans += [(a, b) for a, b in sents if text[a:b] == q]
    missing = [text[a:b] for a, b in sents
               if not any(qa < b and a < qb for qa, qb in spans)]
    total = len(sents)
    return {"sentences": total, "covered": total - len(missing),
            "share": (total - len(missing)) / total if total else 1.0, "missing": missing}


def stale_quotes(directory: Path, records: list[dict]) -> list[dict]:
    """Records whose quote does not occur in their note file."""
    if not directory.is_dir():
        raise NotesError(f"notes directory: expected a directory, got {str(directory)!r}")
    if not os.access(directory, os.R_OK | os.X_OK):
        raise NotesError(f"notes directory {str(directory)!r}: cannot read (permission denied)")
    texts: dict[str, str] = {}
    for rec in records:
        if rec["note"] not in texts:
            texts[rec["note"]] = read_note(directory, rec["note"])
    return [rec for rec in records if rec["quote"] not in texts[rec["note"]]]


def check(directory: Path | str, registry: Path | str | None = None,
          nonclaims: Path | str | None = None) -> tuple[int, list[str]]:
    """Exit code and the lines to print for ``check``."""
    directory = Path(directory)
    try:
        records = errata.read(registry)
        audited = {r["note"] for r in records}
        marks = [m for m in errata.read_nonclaims(nonclaims) if m["note"] in audited]
        titles = errata.read_titles(registry)
        stale = stale_quotes(directory, records + marks)
        texts = {n: read_note(directory, n) for n in sorted({r["note"] for r in records})}
    except (NotesError, errata.ErrataError) as exc:
        return 2, [f"error: {exc}"]
    problems = [f"stale quote: {r['id']} in {r['note']}: {r['quote']!r}" for r in stale]
    lines = []
    for name, text in texts.items():
        try:
            found = title(text)
        except NotesError as exc:
            return 2, [f"error: note {name}: {exc}"]
        if titles.get(name) != found:
            problems.append(f"title: {name}: registry says {titles.get(name)!r}, "
                            f"the note says {found!r}")
        quotes = [r["quote"] for r in records + marks if r["note"] == name]
        cov = coverage(text, quotes)
        line = (f"coverage: {name} 《{found}》: {cov['covered']}/{cov['sentences']} sentences "
                f"({100 * cov['share']:.1f} %) carry a record or a no-claim mark")
        lines.append(line)
        if cov["share"] < MIN_COVERAGE:
            problems.append(f"{line}, expected at least {100 * MIN_COVERAGE:.0f} %")
            problems += [f"  uncovered: {s[:60]!r}" for s in cov["missing"]]
    if problems:
        return 1, problems
    return 0, [f"ok: {len(records) + len(marks)} quotes found verbatim in {len(texts)} notes",
               *lines]


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m reports.audit.notes", description=__doc__.split(
        "\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="verify that every registry quote occurs in its note")
    p.add_argument("notes_dir", metavar="NOTES_DIR")
    p.add_argument("--registry", default=None, help="registry file (default: the packaged one)")
    p.add_argument("--nonclaims", default=None,
                   help="no-claim marks file (default: the packaged one)")
    args = parser.parse_args(argv)
    code, lines = check(args.notes_dir, args.registry, args.nonclaims)
    stream = sys.stdout if code == 0 else sys.stderr
    for line in lines:
        print(line, file=stream)
    return code


if __name__ == "__main__":
    sys.exit(main())
