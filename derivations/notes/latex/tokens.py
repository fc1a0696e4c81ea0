"""The tokenizer: LaTeX source to the grammar's tokens, every token keeping its offset.

It may: fold spellings of one thing into one token (``\\left(`` and ``(``; ``\\le`` and
``\\leq``; ``^\\top`` and ``^{\\mathsf T}``), collapse a decorated symbol into one name
(``\\hat{x}`` → ``hat_x``), wrap TeX's one-character arguments in braces (``\\frac12``), mark
the ``d`` of a Leibniz fraction, pair ``|`` and ``\\|`` into opening and closing bars, and drop
spacing and the wrappers of aligned environments.  It may not decide what a symbol is: that is
the symbol table's, used later by :mod:`.builder`.  Anything it does not know raises
:class:`TokenError` naming the token and its offset.
"""

from __future__ import annotations

import re

from derivations.notes.latex.commands import CMD, Commands
from derivations.notes.latex.lexicon import (
    _OPENERS_BEFORE,
    DECORATIONS,
    GREEK,
    MATRIX_ENVS,
    MULOPS,
    NAMES,
    RELATIONS,
    UNICODE_GREEK,
)
from derivations.notes.latex.tok import Tok, TokenError
from derivations.notes.reasons import say

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_LETTERS = re.compile(r"[A-Za-z]+")
_EXPONENT = re.compile(r"[eE][+-]?\d")


class _Lexer(Commands):
    def __init__(self, src: str):
        self.src, self.pos, self.out = src, 0, []
        self.envs: list[str] = []
        self.bars: list[str] = []  # open bar kinds: "|" or "‖"
        self.braces: list[int] = []
        self.diffs: set[int] = set()  # offsets of Leibniz d's

    # -- helpers ------------------------------------------------------------------------------
    def emit(self, type_, value, start, end=None):
        end = self.pos if end is None else end
        self.out.append(Tok(type_, value, start, self.src[start:end]))

    def last_type(self):
        return self.out[-1].type if self.out else None

    def skip_space(self):
        while self.pos < len(self.src) and self.src[self.pos].isspace():
            self.pos += 1

    def group_text(self, at: int) -> tuple[str, int]:
        """The contents of the brace group starting at ``at`` and the offset past it."""
        depth, i = 0, at
        while i < len(self.src):
            c = self.src[i]
            if c == "\\":
                i += 2
                continue
            depth += (c == "{") - (c == "}")
            i += 1
            if depth == 0:
                return self.src[at + 1:i - 1], i
        raise TokenError("{", at, say("read.brace_open"))

    def argument(self) -> tuple[str, int, int]:
        """One TeX argument from here: its text, start and end (a group or one character)."""
        self.skip_space()
        start = self.pos
        if start >= len(self.src):
            raise TokenError("", start, say("read.argument_expected"))
        if self.src[start] == "{":
            inner, end = self.group_text(start)
            return inner, start, end
        m = CMD.match(self.src, start)
        end = m.end() if m else start + 1
        return self.src[start:end], start, end

    # -- the symbols ---------------------------------------------------------------------------
    def symbol_name(self, text: str, at: int) -> str:
        """The reading name of one symbol written as ``text`` (a letter, \\alpha, \\hat{x} …)."""
        text = text.strip()
        if re.fullmatch(r"[A-Za-z]", text):
            return text
        if text in UNICODE_GREEK:
            return UNICODE_GREEK[text]
        m = re.fullmatch(r"\\([A-Za-z]+)\s*(.*)", text, re.S)
        if m and m.group(1) in GREEK and not m.group(2):
            return m.group(1)
        if m and m.group(1) in DECORATIONS:
            rest = m.group(2).strip()
            inner = rest[1:-1] if rest.startswith("{") and rest.endswith("}") else rest
            return f"{DECORATIONS[m.group(1)]}_{self.symbol_name(inner, at)}"
        raise TokenError(text, at, say("read.decoration"))

    # -- the main loop -------------------------------------------------------------------------
    def run(self) -> list[Tok]:
        while True:
            self.skip_space()
            if self.pos >= len(self.src):
                break
            self.one()
        if self.braces:
            raise TokenError("{", self.braces[-1], say("read.brace_open"))
        if self.bars:
            raise TokenError("|", len(self.src), say("read.bar_open"))
        if self.envs:
            raise TokenError("\\begin", len(self.src), say("read.begin_open", env=self.envs[-1]))
        return self.out

    def script_number_check(self, start):
        if self.last_type() in ("SUB", "SUP") and self.pos - start > 1:
            raise TokenError(self.src[start:self.pos], start,
                             say("read.script_digits", digits=self.src[start:self.pos]))

    def exponent_check(self, start):
        """``1e-5``, ``3E8``: a code-style exponent, which would read as 1·e − 5."""
        m = _EXPONENT.match(self.src, self.pos)
        if m:
            raise TokenError(self.src[start:m.end()], start, say("read.code_number"))

    def letters(self):
        src, start = self.src, self.pos
        m = _LETTERS.match(src, start)
        run = m.group()
        if self.last_type() in ("SUB", "SUP") and len(run) > 1:
            raise TokenError(run, start, say("read.script_letters", first=run[0], run=run))
        if start in self.diffs:
            self.pos = start + 1
            self.emit("DIFF", "d", start)
            if len(run) > 1:
                self.letters()
            return
        self.pos = m.end()
        self.emit("LETTER" if len(run) == 1 else "SYMBOL" if run in NAMES else "WORD", run, start)

    def punctuation(self, c, start):
        self.pos += 1
        simple = {"+": "PLUS", "-": "MINUS", "−": "MINUS", "(": "LPAR", ")": "RPAR",
                  "[": "LBRACK", "]": "RBRACK", ",": "COMMA", ";": "SEMI", "_": "SUB",
                  "^": "SUP", "'": "PRIME", "~": None}
        if c in simple:
            if simple[c]:
                self.emit(simple[c], c, start)
        elif c == "{":
            self.braces.append(start)
            self.emit("LBRACE", c, start)
        elif c == "}":
            if not self.braces:
                raise TokenError("}", start, say("read.brace_close"))
            self.braces.pop()
            self.emit("RBRACE", c, start)
        elif c == ":" and self.src.startswith("=", self.pos):
            self.pos += 1
            self.emit("REL", ":=", start)
        elif c in RELATIONS:
            self.emit("REL", RELATIONS[c], start)
        elif c in MULOPS:
            self.emit("MULOP", MULOPS[c], start)
        elif c == "|":
            self.bar("|", start)
        elif c == "&":
            if self.envs and self.envs[-1] in MATRIX_ENVS:
                self.emit("AMP", c, start)
        elif c == "." and self.pos >= len(self.src.rstrip()):
            self.emit("PERIOD", c, start)
        else:
            raise TokenError(c, start, say("read.character"))

    def bar(self, kind, start, side=None):
        opens = side == "l" or (side is None and (not self.bars or self.bars[-1] != kind
                                                  or self.last_type() in _OPENERS_BEFORE))
        if opens:
            self.bars.append(kind)
            self.emit("LBAR" if kind == "|" else "LNORM", kind, start)
        else:
            if not self.bars or self.bars[-1] != kind:
                raise TokenError(kind, start, say("read.bar_close"))
            self.bars.pop()
            self.emit("RBAR" if kind == "|" else "RNORM", kind, start)

    def tokens_of_group(self, end):
        """Tokenize up to ``end`` (a brace group) in place."""
        while self.pos < end:
            self.skip_space()
            if self.pos >= end:
                break
            self.one()

    def one(self):
        """The token at the current position (spaces skipped)."""
        src = self.src
        c, start = src[self.pos], self.pos
        if c == "\\":
            self.command()
        elif c.isdigit():
            m = _NUMBER.match(src, start)
            self.pos = m.end()
            if self.pos < len(src) and src[self.pos] == "." and self.pos + 1 < len(src) \
                    and src[self.pos + 1].isdigit():
                raise TokenError(src[start:self.pos + 2], start, say("read.not_number"))
            self.script_number_check(start)
            self.exponent_check(start)
            self.emit("NUMBER", m.group(), start)
        elif c.isalpha() and c.isascii():
            self.letters()
        elif c in UNICODE_GREEK:
            self.pos += 1
            self.emit("SYMBOL", UNICODE_GREEK[c], start)
        else:
            self.punctuation(c, start)

def tokenize(src: str) -> list[Tok]:
    """The tokens of one formula (:class:`TokenError` if one is outside the language)."""
    from derivations.notes.latex.integrals import mark_integrals  # it builds on Tok

    toks = mark_integrals(_Lexer(src).run())
    while toks and toks[-1].type in ("PERIOD", "COMMA", "SEMI", "NEWLINE"):
        toks.pop()
    for tok in toks:
        if tok.type == "PERIOD":
            raise TokenError(".", tok.offset, say("read.full_stop"))
    return toks
