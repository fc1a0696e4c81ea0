"""What a formula costs its reader: how deeply fractions and roots nest in it, and how many
symbols it shows.  The printer of claims (:mod:`derivations.engine.core.printing`) lays a product
out so that its fractions nest less, and the report measures every formula it shows
(:mod:`reports.view.measure`); both read TeX source, and neither needs SymPy.
"""

from __future__ import annotations

import re

__all__ = ["depth", "length"]

# commands that stack their arguments: a fraction's two, a root's one (after an optional [n])
FRACTIONS = ("frac", "dfrac", "tfrac", "cfrac")
ROOTS = ("sqrt",)
_COMMAND = re.compile(r"\\([A-Za-z]+)")


class _Reader:
    """A recursive reader of TeX source: groups in braces and the commands that nest."""

    def __init__(self, tex: str) -> None:
        self.tex, self.pos = tex, 0

    def _skip_space(self) -> None:
        while self.pos < len(self.tex) and self.tex[self.pos].isspace():
            self.pos += 1

    def _argument(self) -> int:
        """The depth of the next argument: a braced group, a command or one character."""
        self._skip_space()
        if self.pos >= len(self.tex):
            return 0
        if self.tex[self.pos] == "{":
            self.pos += 1
            return self.group("}")
        found = _COMMAND.match(self.tex, self.pos)
        if found:
            self.pos = found.end()
            return self._after(found.group(1))
        self.pos += 1
        return 0

    def _after(self, name: str) -> int:
        if name in FRACTIONS:
            return 1 + max(self._argument(), self._argument())
        if name in ROOTS:
            self._skip_space()
            index = 0
            if self.tex.startswith("[", self.pos):
                self.pos += 1
                index = self.group("]")
            return 1 + max(index, self._argument())
        return 0

    def group(self, close: str = "") -> int:
        """The deepest nesting up to ``close`` (or the end), which is consumed."""
        deepest = 0
        while self.pos < len(self.tex):
            ch = self.tex[self.pos]
            if close and ch == close:
                self.pos += 1
                return deepest
            if ch == "\\":
                found = _COMMAND.match(self.tex, self.pos)
                if found:
                    self.pos = found.end()
                    deepest = max(deepest, self._after(found.group(1)))
                else:  # an escaped character: \{ \, \\
                    self.pos += 2
                continue
            self.pos += 1
            if ch == "{":
                deepest = max(deepest, self.group("}"))
        return deepest


def depth(tex: str) -> int:
    """How deeply fractions and roots nest in ``tex``: 0 for none, 1 for a/b or √a, 2 for
    a fraction inside a fraction or a root, and so on."""
    return _Reader(tex).group()


# commands that print nothing of their own: layout, spacing, fonts, accents on the next symbol
SILENT = frozenset({
    "left", "right", "frac", "dfrac", "tfrac", "cfrac", "operatorname", "mathrm", "mathbb",
    "mathbf", "mathcal", "text", "textstyle", "displaystyle", "substack", "limits", "quad",
    "qquad", "hat", "bar", "tilde", "overline", "vec", "dot", "ddot", "widehat", "big", "Big",
    "bigl", "bigr", "Bigl", "Bigr"})
_ENVIRONMENT = re.compile(r"\\(begin|end)\{[^}]*\}(\{[^}]*\})?")


def length(tex: str) -> int:
    """How many symbols ``tex`` shows: a letter, digit or operator counts one, and so does a
    command that prints a symbol (\\sum, \\alpha, \\partial); braces, sub- and superscript
    marks, spacing, layout and accents count nothing.  The TeX source's own length would count
    how SymPy spells a formula, not what the reader reads."""
    tex = _ENVIRONMENT.sub("", tex)
    count, pos = 0, 0
    while pos < len(tex):
        ch = tex[pos]
        if ch == "\\":
            found = _COMMAND.match(tex, pos)
            if found:
                count += found.group(1) not in SILENT
                pos = found.end()
            else:  # \, \; \! \{ : spacing and line breaks print nothing, \{ a brace
                count += tex[pos + 1:pos + 2] in "{}|"
                pos += 2
            continue
        count += not (ch.isspace() or ch in "{}_^&")
        pos += 1
    return count
