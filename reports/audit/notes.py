"""Check the errata registry against the lecture notes: every quote must occur verbatim.

    python -m reports.audit.notes check NOTES_DIR

Exit 0 when every quote is found; 1 naming each stale quote; 2 with a one-line message when the
directory, a note file or the registry cannot be used. Nothing is written.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from reports.audit import errata


class NotesError(Exception):
    """A note or the registry cannot be read; the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line on stderr instead of usage plus message
        self.exit(2, f"{self.prog}: error: {message}\n")


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


def check(directory: Path | str, registry: Path | str | None = None) -> tuple[int, list[str]]:
    """Exit code and the lines to print for ``check``."""
    try:
        records = errata.read(registry)
        stale = stale_quotes(Path(directory), records)
    except (NotesError, errata.ErrataError) as exc:
        return 2, [f"error: {exc}"]
    if stale:
        return 1, [f"stale quote: {r['id']} in {r['note']}: {r['quote']!r}" for r in stale]
    notes = len({r["note"] for r in records})
    return 0, [f"ok: {len(records)} quotes found verbatim in {notes} notes"]


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m reports.audit.notes", description=__doc__.split(
        "\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="verify that every registry quote occurs in its note")
    p.add_argument("notes_dir", metavar="NOTES_DIR")
    p.add_argument("--registry", default=None, help="registry file (default: the packaged one)")
    args = parser.parse_args(argv)
    code, lines = check(args.notes_dir, args.registry)
    stream = sys.stdout if code == 0 else sys.stderr
    for line in lines:
        print(line, file=stream)
    return code


if __name__ == "__main__":
    sys.exit(main())
