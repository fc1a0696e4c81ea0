"""A note as Markdown: its headings and its formulas, each at the characters it occupies.

CommonMark (markdown-it-py) with the math of lecture notes: ``$…$``, ``$$…$$`` (also inside a
paragraph), ``\\(…\\)``, ``\\[…\\]`` and top-level amsmath environments (``equation``,
``align``, …; ``aligned`` and ``cases`` inside ``$$``).  Obsidian's front matter is skipped;
wiki links and callouts are ordinary text and block quotes.

markdown-it keeps no character offsets, only line ranges of blocks, so each formula is found
again in its block's lines, in order: ``start``/``end`` index the file's text as Python reads it
(``open(path, encoding="utf-8").read()``: universal newlines), end exclusive.  Inside a block
quote or a list, a formula spanning lines has the container's prefixes (``> ``, indentation) on
its later lines in the file and not in its LaTeX; ``start``/``end`` then span the prefixes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

MATH_TOKENS = ("math_inline", "math_inline_double", "math_block", "math_block_label", "amsmath",
               "math_bracket_inline", "math_bracket_display", "math_bracket_block")
# what opens and closes each kind of formula in the file
DELIMITERS = {"math_inline": ("$", "$"), "math_inline_double": ("$$", "$$"),
              "math_block": ("$$", "$$"), "math_block_label": ("$$", "$$"), "amsmath": ("", ""),
              "math_bracket_inline": ("\\(", "\\)"), "math_bracket_display": ("\\[", "\\]"),
              "math_bracket_block": ("\\[", "\\]")}
DISPLAY = {"math_inline_double", "math_block", "math_block_label", "amsmath",
           "math_bracket_display", "math_bracket_block"}
# a later line of a formula inside a container: its prefix of spaces, tabs and '>'
_CONTAINER_PREFIX = r"\n[ \t>]*"


@dataclass(frozen=True)
class Formula:
    """One formula of a note: its LaTeX (without delimiters) and where it stands."""

    index: int  # 0-based, in the order of the file
    latex: str
    start: int  # offset of the LaTeX's first character in the file's text
    end: int  # one past its last
    line: int  # 1-based line of ``start``
    display: bool
    section: tuple[int, ...]  # indices of the headings it stands under, outermost first
    block: int  # the 0-based line its block starts on: formulas of one paragraph share it
    paragraph: str  # the text of its block, formulas as written (for the sentence's words)
    sentence: str  # the sentence of that text that holds it
    # the words between the formula before it (or the heading above it) and this one: what
    # they say of it (derivations/notes/wording.py), "所以" or "设"
    before: str = ""


@dataclass(frozen=True)
class Heading:
    index: int
    level: int
    title: str
    line: int


@dataclass
class Parsed:
    """A note parsed once: the tokens (for rendering), its formulas and headings."""

    text: str
    tokens: list[Token]
    formulas: list[Formula] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)


def _bracket_inline(state: StateInline, silent: bool) -> bool:
    """``\\(…\\)`` and ``\\[…\\]`` inside a paragraph; before CommonMark's backslash escape,
    which would otherwise read ``\\(`` as a literal parenthesis."""
    src, pos = state.src, state.pos
    if src[pos] != "\\" or src[pos + 1 : pos + 2] not in ("(", "["):
        return False
    if pos > 0 and src[pos - 1] == "\\":
        return False
    close = "\\)" if src[pos + 1] == "(" else "\\]"
    end = src.find(close, pos + 2)
    if end < 0 or end == pos + 2:
        return False
    if not silent:
        kind = "math_bracket_inline" if close == "\\)" else "math_bracket_display"
        token = state.push(kind, "math", 0)
        token.content = src[pos + 2 : end]
        token.markup = src[pos : pos + 2]
    state.pos = end + 2
    return True


def _bracket_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """``\\[`` opening a line, ``\\]`` closing a later (or the same) line."""
    begin = state.bMarks[start_line] + state.tShift[start_line]
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    if state.src[begin : begin + 2] != "\\[":
        return False
    line = start_line
    while line < end_line:
        first = begin + 2 if line == start_line else state.bMarks[line] + state.tShift[line]
        text = state.src[first : state.eMarks[line]].rstrip()
        if text.endswith("\\]") and (line > start_line or len(text) >= 2):
            break
        line += 1
    else:
        return False
    if silent:
        return True
    last_end = state.eMarks[line]
    body = state.src[begin + 2 : last_end].rstrip()
    token = state.push("math_bracket_block", "math", 0)
    token.block = True
    token.content = body[:-2]
    token.markup = "\\["
    token.map = [start_line, line + 1]
    state.line = line + 1
    return True


def parser() -> MarkdownIt:
    # raw HTML in a note is text: the annotated page shows it, never runs it
    md = MarkdownIt("commonmark", {"html": False})
    front_matter_plugin(md)
    # a digit right before an opening or after a closing $ is money ("$5 and $10"), not math
    dollarmath_plugin(md, allow_space=True, allow_digits=False, double_inline=True)
    amsmath_plugin(md)
    md.inline.ruler.before("escape", "math_bracket_inline", _bracket_inline)
    md.block.ruler.before("fence", "math_bracket_block", _bracket_block,
                          {"alt": ["paragraph", "reference", "blockquote", "list"]})
    return md


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def _locate(text: str, content: str, opening: str, closing: str, lo: int, hi: int
            ) -> tuple[int, int] | None:
    """(start, end) of ``content`` between its delimiters in ``text[lo:hi]``, the first at or
    after ``lo``; a line break of the content may carry a container prefix in the file."""
    pieces = content.split("\n")
    body = _CONTAINER_PREFIX.join(re.escape(p) for p in pieces)
    pattern = re.compile(re.escape(opening) + "(" + body + ")" + re.escape(closing))
    found = pattern.search(text, lo, hi)
    if found is None and not opening:
        return None
    if found is None:  # a block whose content the parser trimmed: find it without delimiters
        found = re.compile("(" + body + ")").search(text, lo, hi)
        if found is None:
            return None
    return found.start(1), found.end(1)


_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])|(?<=[.])\s+(?=[A-Z\u4e00-\u9fff$])")


def _sentence(paragraph: str, at: int) -> str:
    """The sentence of ``paragraph`` that holds character ``at``."""
    cuts = [0, *(m.start() for m in _SENTENCE_END.finditer(paragraph)), len(paragraph)]
    for a, b in zip(cuts, cuts[1:], strict=False):
        if a <= at < b:
            return paragraph[a:b].strip()
    return paragraph.strip()


def parse(text: str) -> Parsed:
    """The note's tokens, formulas and headings; ``text`` as Python read the file."""
    md = parser()
    tokens = md.parse(text)
    starts = _line_starts(text)
    parsed = Parsed(text, tokens)
    headings: list[Heading] = []
    open_sections: list[Heading] = []
    block_map: list[int] | None = None
    cursor = words_from = 0
    for i, tok in enumerate(tokens):
        if tok.map is not None:
            block_map = tok.map
        if tok.type == "heading_open":
            title = tokens[i + 1].content if i + 1 < len(tokens) else ""
            heading = Heading(len(headings), int(tok.tag[1:]), title, tok.map[0] + 1)
            headings.append(heading)
            while open_sections and open_sections[-1].level >= heading.level:
                open_sections.pop()
            open_sections.append(heading)
            words_from = starts[tok.map[1]] if tok.map[1] < len(starts) else len(text)
        math = [tok] if tok.type in MATH_TOKENS else [
            c for c in (tok.children or ()) if c.type in MATH_TOKENS]
        if not math or block_map is None:
            continue
        lo = max(cursor, starts[block_map[0]])
        # one line past the block's map: amsmath's map ends on its closing line, not after it
        hi = starts[block_map[1] + 1] if block_map[1] + 1 < len(starts) else len(text)
        paragraph = text[starts[block_map[0]]:hi]
        for m in math:
            opening, closing = DELIMITERS[m.type]
            if m.type == "math_block_label":
                closing = ""
            span = _locate(text, m.content, opening, closing, lo, hi)
            if span is None:  # never expected: say where instead of losing the formula
                raise ValueError(f"line {block_map[0] + 1}: formula {m.content[:40]!r} not found "
                                 f"again in its block")
            latex = m.content.strip()
            if latex != m.content:  # the span without the spaces and line breaks around it
                span = _locate(text, latex, "", "", *span)
            start, end = span
            m.meta = {**(m.meta or {}), "formula": len(parsed.formulas)}
            line = text.count("\n", 0, start) + 1
            parsed.formulas.append(Formula(
                index=len(parsed.formulas), latex=latex, start=start, end=end, line=line,
                display=m.type in DISPLAY, section=tuple(h.index for h in open_sections),
                block=block_map[0], paragraph=paragraph.strip(),
                sentence=_sentence(paragraph, start - starts[block_map[0]]),
                before=text[max(cursor, words_from):start]))
            lo = cursor = end
    parsed.headings = headings
    return parsed
