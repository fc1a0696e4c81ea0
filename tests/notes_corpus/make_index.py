"""The math spans of the corpus notes, found by markdown-it-py, and the check of the index.

A span is the LaTeX between the delimiters of one formula, stripped of surrounding
whitespace: ``$…$`` and ``$$…$$`` (dollarmath), ``\\(…\\)`` and ``\\[…\\]`` (texmath's
brackets), and amsmath environments standing on their own lines (their ``\\begin…\\end``
included). ``start``/``end`` are offsets into the note's text as Python reads it (str
indices, end exclusive), so ``text[start:end] == latex``.

    python tests/notes_corpus/make_index.py [NOTES_DIR FORMULAS_TOML]  # check; exit 1 on a mismatch
    python tests/notes_corpus/make_index.py --list NOTE.md              # the spans of one note
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.texmath import texmath_plugin

HERE = Path(__file__).parent

# token type -> (opening delimiter, closing delimiter) as written in the source
DELIMITERS = {
    "math_inline": ("$", "$"),
    "math_block": ("$$", "$$"),
    "math_block_label": ("$$", "$$"),
    "bracket_inline": ("\\(", "\\)"),
    "bracket_block": ("\\[", "\\]"),
    "amsmath": ("", ""),
}


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    latex: str
    display: bool


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table")
    front_matter_plugin(md)
    dollarmath_plugin(md, double_inline=True)
    amsmath_plugin(md)
    # texmath names its rules like dollarmath's; they are renamed so both kinds stay apart
    texmath_plugin(md, delimiters="brackets")
    for ruler in (md.inline.ruler, md.block.ruler):
        for rule in ruler.__rules__:
            if rule.fn.__module__.endswith("texmath.index"):
                rule.name = "bracket_" + rule.name.removeprefix("math_")
    return md


def _tokens(md: MarkdownIt, text: str):
    for token in md.parse(text):
        yield token
        yield from token.children or ()


def _kind(token) -> str | None:
    if token.type in ("math_inline", "math_inline_double"):
        if token.markup == "\\(":
            return "bracket_inline"
        return "math_inline" if token.type == "math_inline" else "math_block"
    if token.type in ("math_block", "math_block_label", "math_block_eqno"):
        return "bracket_block" if token.markup == "\\[" else token.type
    if token.type == "amsmath":
        return "amsmath"
    return None


def spans(text: str) -> list[Span]:
    """Every formula of a note in order, located in the text by its delimiters."""
    found: list[Span] = []
    cursor = 0
    for token in _tokens(_parser(), text):
        kind = _kind(token)
        if kind is None:
            continue
        opening, closing = DELIMITERS[kind]
        body = token.content.strip()
        at = text.find(opening, cursor) if opening else text.find(body, cursor)
        start = text.find(body, at + len(opening)) if at >= 0 else -1
        if at < 0 or start < 0 or text[at + len(opening) : start].strip():
            raise ValueError(
                f"a {kind} formula {body[:40]!r} was not found verbatim after offset {cursor}: "
                "keep multi-line math out of lists and callouts, where markdown strips the "
                "line prefixes"
            )
        end = start + len(body)
        rest = text[end:]
        close_at = end + len(rest) - len(rest.lstrip())
        if not text.startswith(closing, close_at):
            raise ValueError(f"the formula at {start} does not end with {closing!r}")
        found.append(Span(start, end, body, kind not in ("math_inline", "bracket_inline")))
        cursor = close_at + len(closing)
    return found


def check(notes_dir: Path, index_file: Path) -> list[str]:
    """Mismatches between the notes' spans and the index; empty when they agree."""
    records = tomllib.loads(index_file.read_text(encoding="utf-8"))["formula"]
    problems = []
    listed: dict[str, list[dict]] = {}
    for record in records:
        listed.setdefault(record["file"], []).append(record)
    notes = sorted(p.name for p in notes_dir.glob("*.md"))
    if sorted(listed) != notes:
        problems.append(f"index lists {sorted(listed)}, the folder holds {notes}")
    for name in notes:
        text = (notes_dir / name).read_text(encoding="utf-8")
        found = spans(text)
        mine = listed.get(name, [])
        if len(found) != len(mine):
            problems.append(f"{name}: {len(found)} math spans, {len(mine)} records")
        for span, record in zip(found, mine, strict=False):
            got = (record["start"], record["end"], record["latex"])
            if got != (span.start, span.end, span.latex):
                problems.append(
                    f"{name}: span {span.start}-{span.end} {span.latex[:40]!r} listed as "
                    f"{got[0]}-{got[1]} {got[2][:40]!r}"
                )
            elif text[record["start"] : record["end"]] != record["latex"]:
                problems.append(f"{name}: offsets {got[:2]} do not hold the latex")
    return problems


def main(argv: list[str]) -> int:
    if argv[:1] == ["--list"]:
        text = Path(argv[1]).read_text(encoding="utf-8")
        for n, span in enumerate(spans(text), 1):
            print(f"{n:3} {span.start:6} {span.end:6} {'D' if span.display else 'i'} {span.latex}")
        return 0
    notes_dir, index_file = (
        (Path(argv[0]), Path(argv[1])) if argv else (HERE / "notes", HERE / "formulas.toml")
    )
    problems = check(notes_dir, index_file)
    for problem in problems:
        print(problem)
    print(f"{'mismatch' if problems else 'ok'}: {notes_dir} against {index_file}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
