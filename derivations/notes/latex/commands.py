"""The tokenizer's backslash commands: a macro to its token (``\\le`` and ``\\leq`` one
relation, ``\\hat{x}`` the name ``hat_x``, ``\\frac`` with the ``d`` of a Leibniz fraction
marked, a ``\\text{…}`` word or prose), its delimiters and environments.

A mixin of :class:`.tokens._Lexer`: it reads the source from the lexer's position and emits
through it; it may not decide what a symbol is.  A macro it does not know raises
:class:`TokenError` naming it and its offset.
"""

from __future__ import annotations

import re

from derivations.notes.latex.lexicon import (
    _LEIBNIZ_NUM,
    _PROSE_WORDS,
    ALIGN_ENVS,
    DECORATIONS,
    GREEK,
    MATRIX_ENVS,
    MULOPS,
    OPNAMES,
    RELATIONS,
    SIZES,
    SPACING,
    _leibniz_denominator,
)
from derivations.notes.latex.tok import Tok, TokenError
from derivations.notes.reasons import say

CMD = re.compile(r"\\([A-Za-z]+\*?|.)")
# operator names with no reading: argmax over an index is no value a chain can hold
_NO_READING = {"argmax", "argmin", "arg"}


class Commands:
    """``\\name`` at the lexer's position, and what follows it that belongs to it."""

    def command(self):
        src, start = self.src, self.pos
        m = CMD.match(src, start)
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
        elif name in ("lg", "lb"):  # base 10 in Chinese textbooks, base 2 in algorithm books
            raise TokenError("\\" + name, start, say("read.lg", name=name))
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
        m = CMD.match(self.src, self.pos)
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
        sub = type(self)(text)  # the whole lexer, on the argument alone
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
