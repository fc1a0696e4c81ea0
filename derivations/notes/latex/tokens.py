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

from derivations.notes.latex.lexicon import (
    _LEIBNIZ_NUM,
    _OPENERS_BEFORE,
    _PROSE_WORDS,
    ALIGN_ENVS,
    DECORATIONS,
    GREEK,
    MATRIX_ENVS,
    MULOPS,
    NAMES,
    OPNAMES,
    RELATIONS,
    SIZES,
    SPACING,
    UNICODE_GREEK,
    _leibniz_denominator,
)
from derivations.notes.latex.tok import Tok, TokenError
from derivations.notes.reasons import say

_CMD = re.compile(r"\\([A-Za-z]+\*?|.)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_LETTERS = re.compile(r"[A-Za-z]+")
_EXPONENT = re.compile(r"[eE][+-]?\d")
# operator names with no reading: argmax over an index is no value a chain can hold
_NO_READING = {"argmax", "argmin", "arg"}


class _Lexer:
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
        m = _CMD.match(self.src, start)
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

    def command(self):
        src, start = self.src, self.pos
        m = _CMD.match(src, start)
        if m is None:
            raise TokenError("\\", start, say("read.backslash"))
        name = m.group(1)
        self.pos = m.end()
        if name == "\\":
            if self.envs and self.envs[-1] in MATRIX_ENVS:
                self.emit("ROWSEP", "\\\\", start)
            else:
                self.emit("NEWLINE", "\\\\", start)
        elif name in SPACING or name in ("nonumber", "notag"):
            pass
        elif name in ("tag", "tag*", "label"):
            _, _, self.pos = self.argument()  # an equation's number or label: layout only
        elif name in ("quad", "qquad"):
            self.emit("SEP", name, start)
        elif name in SIZES or name in ("left", "right"):
            self.delimiter(name, start)
        elif name in GREEK:
            self.emit("SYMBOL", name, start)
        elif name in DECORATIONS:
            text, _, end = self.argument()
            self.pos = end
            if text.strip() in ("0", "1") and DECORATIONS[name] == "bf":
                self.emit("SYMBOL", "bf_" + text.strip(), start)  # the all-ones/zeros vector
                return
            self.emit("SYMBOL", self.symbol_name(src[start:end], start), start)
        elif name in ("text", "mathrm", "operatorname", "textrm", "texttt", "mathit", "rm",
                      "mathsf", "textit", "textbf"):
            self.text(name, start)
        elif name == "mathbb":
            text, _, end = self.argument()
            self.pos = end
            kinds = {"R": ("REALS", "R"), "E": ("TEXTWORD", "E")}
            if text.strip() not in kinds:
                raise TokenError(src[start:end], start, say("read.mathbb"))
            self.emit(*kinds[text.strip()], start)
        elif name in OPNAMES:
            self.skip_space()
            # \tanh as a label, GELU_{\tanh}: a name, not an operator awaiting its argument
            self.emit("TEXTWORD" if self.src.startswith("}", self.pos) else "OPNAME", name, start)
        elif name in ("sum", "prod"):
            self.emit("BIGOP", name, start)
        elif name == "int":
            self.emit("INT", name, start)
        elif name == "infty":
            self.emit("SYMBOL", name, start)
        elif name in ("frac", "dfrac", "tfrac", "cfrac"):
            self.fraction(start)
        elif name == "sqrt":
            self.emit("SQRT", name, start)
            self.skip_space()
            if not src.startswith("[", self.pos):
                self.wrap_argument()
        elif name in RELATIONS:
            self.emit("REL", RELATIONS[name], start)
        elif name in MULOPS:
            self.emit("MULOP", MULOPS[name], start)
        elif name in ("top", "intercal", "T"):
            self.emit("TOP", "⊤", start)
        elif name in ("dots", "ldots", "cdots"):
            self.emit("DOTS", "…", start)
        elif name == "partial":
            self.emit("PARTIAL", "∂", start)
        elif name == "nabla":
            self.emit("NABLA", "∇", start)
        elif name == "|" or name in ("Vert", "lVert", "rVert"):
            self.bar("‖", start, {"lVert": "l", "rVert": "r"}.get(name))
        elif name in ("lvert", "rvert", "vert"):
            self.bar("|", start, {"lvert": "l", "rvert": "r"}.get(name))
        elif name in ("{", "lbrace"):
            self.emit("LSET", "{", start)
        elif name in ("}", "rbrace"):
            self.emit("RSET", "}", start)
        elif name in ("begin", "end"):
            self.environment(name, start)
        elif name in ("pi",):
            self.emit("SYMBOL", name, start)
        else:
            raise TokenError("\\" + name, start, say("read.macro"))

    def delimiter(self, name, start):
        self.skip_space()
        if name in ("left", "right") or name.endswith(("l", "r")) or name in SIZES:
            side = "l" if name.startswith("left") or name.endswith("l") else \
                "r" if name.startswith("right") or name.endswith("r") else None
        if self.src.startswith(".", self.pos):
            self.pos += 1
            return
        m = _CMD.match(self.src, self.pos)
        nxt = m.group(0) if m else self.src[self.pos:self.pos + 1]
        if not nxt:
            raise TokenError("\\" + name, start, say("read.delimiter_expected"))
        if nxt in ("|", "\\vert", "\\lvert", "\\rvert"):
            self.pos += len(nxt)
            self.bar("|", start, side)
        elif nxt in ("\\|", "\\Vert", "\\lVert", "\\rVert"):
            self.pos += len(nxt)
            self.bar("‖", start, side)
        elif nxt in ("(", ")", "[", "]", "\\{", "\\}"):
            self.pos += len(nxt)
            kind = {"(": "LPAR", ")": "RPAR", "[": "LBRACK", "]": "RBRACK", "\\{": "LSET",
                    "\\}": "RSET"}[nxt]
            self.emit(kind, nxt, start)
        else:
            raise TokenError(self.src[start:self.pos + len(nxt)], start,
                             say("read.delimiter"))

    def text(self, name, start):
        if name == "rm":
            self.skip_space()
            text, end = self.src[self.pos:self.pos + 1], self.pos + 1
        else:
            text, _, end = self.argument()
        self.pos = end
        word = text.strip()
        if word != text or word.lower() in _PROSE_WORDS:
            self.emit("PROSE", word, start)
            return
        if name == "mathsf" or name == "rm":
            if word == "T":
                self.emit("TOP", "⊤", start)
                return
            if name == "rm":
                raise TokenError("\\rm", start, say("read.rm"))
        if start in self.diffs and word == "d":
            self.emit("DIFF", "d", start)
        elif word in _NO_READING:
            raise TokenError(self.src[start:end], start, say("read.names_index", word=word))
        elif re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", word):
            self.emit("TEXTWORD", word, start)
        else:
            self.emit("PROSE", word, start)

    def wrap_argument(self):
        """A one-character argument wrapped in braces, so that the grammar sees a group."""
        self.skip_space()
        if self.src.startswith("{", self.pos):
            return
        text, start, end = self.argument()
        self.out.append(Tok("LBRACE", "{", start, ""))
        sub = _Lexer(text)
        sub.diffs = {d - start for d in self.diffs if start <= d < end}
        for tok in sub.run():
            self.out.append(Tok(tok.type, tok.value, tok.offset + start, tok.text))
        self.out.append(Tok("RBRACE", "}", end, ""))
        self.pos = end

    def fraction(self, start):
        """``\\frac``: mark the d's of a Leibniz fraction, and wrap one-character arguments."""
        self.emit("FRAC", "frac", start)
        save = self.pos
        num, ns, ne = self.argument()
        self.pos = ne
        den, ds, de = self.argument()
        self.pos = save
        off_n = 1 if self.src[ns] == "{" else 0
        off_d = 1 if self.src[ds] == "{" else 0
        units = _leibniz_denominator(den)
        if units is not None and _LEIBNIZ_NUM.match(num):
            self.diffs.add(ns + off_n + len(num) - len(num.lstrip()))
            for at in units:
                self.diffs.add(ds + off_d + at)
        for _ in range(2):
            self.wrap_argument()
            self.skip_space()
            if self.src.startswith("{", self.pos):
                _, end = self.group_text(self.pos)
                self.tokens_of_group(end)

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

    def environment(self, name, start):
        text, _, end = self.argument()
        self.pos = end
        env = text.strip()
        if env not in ALIGN_ENVS | MATRIX_ENVS:
            raise TokenError(self.src[start:end], start, say("read.environment", env=env))
        if env == "alignedat" and name == "begin":
            _, _, self.pos = self.argument()
        if name == "begin":
            self.envs.append(env)
            if env in MATRIX_ENVS:
                self.emit("BEGINMAT", env, start)
        else:
            if not self.envs or self.envs[-1] != env:
                raise TokenError(self.src[start:end], start, say("read.end_alone"))
            self.envs.pop()
            if env in MATRIX_ENVS:
                self.emit("ENDMAT", env, start)


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
