"""The words of the formula language: the macros the tokenizer knows and what each stands for.

Data only (and the pattern of a Leibniz denominator): adding a macro here is not enough for it
to be read, the tokenizer and the grammar must place it too.
"""

from __future__ import annotations

import re

GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi "
    "pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta "
    "Lambda Xi Pi Sigma Upsilon Phi Psi Omega ell"
).split()
UNICODE_GREEK = dict(zip("αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΥΦΨΩ", (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau "
    "upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
).split(), strict=True))
DECORATIONS = {"hat": "hat", "widehat": "hat", "tilde": "tilde", "widetilde": "tilde",
               "bar": "bar", "overline": "bar", "dot": "dot", "ddot": "ddot", "vec": "vec",
               "mathbf": "bf", "boldsymbol": "bf", "bm": "bf", "mathcal": "cal"}
OPNAMES = {"log", "ln", "exp", "sin", "cos", "tan", "tanh", "sinh", "cosh", "max", "min"}
RELATIONS = {"=": "=", "<": "<", ">": ">", "le": "≤", "leq": "≤", "leqslant": "≤", "ge": "≥",
             "geq": "≥", "geqslant": "≥", "ne": "≠", "neq": "≠", "approx": "≈",
             "coloneqq": ":=", "triangleq": ":=", "in": "∈", "≤": "≤", "≥": "≥", "≠": "≠",
             "≈": "≈", "∈": "∈", "sim": "~", "∼": "~"}
MULOPS = {"cdot": "·", "times": "×", "odot": "⊙", "*": "·", "/": "/", "×": "×", "·": "·",
          "⊙": "⊙"}
SPACING = {",", ";", ":", "!", " ", ">", "displaystyle", "textstyle", "limits", "nolimits",
           "left.", "right."}
SIZES = {"big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr",
         "Biggl", "Biggr", "left", "right"}
ALIGN_ENVS = {"aligned", "align", "align*", "split", "gathered", "gather", "gather*",
              "equation", "equation*", "eqnarray", "eqnarray*", "alignedat"}
MATRIX_ENVS = {"pmatrix", "bmatrix", "matrix", "Bmatrix"}
# what may stand before a bar that opens (otherwise a bar closes the innermost open one)
_OPENERS_BEFORE = {None, "PLUS", "MINUS", "MULOP", "REL", "COMMA", "SEMI", "SEP", "LPAR",
                   "LBRACK", "LBRACE", "LSET", "LBAR", "LNORM", "SUB", "SUP", "AMP", "ROWSEP",
                   "NEWLINE", "FRAC", "SQRT", "BIGOP", "OPNAME", "INT"}


# runs of letters that are one name in Transformer notes, as a Greek letter is: a position and
# the positional encoding of the sinusoidal scheme (PE_{(pos, 2i)})
NAMES = {"pos", "PE"}
# a gradient written d + the forward name (dO, dA, dV, dW, dx), as backward passes name them
GRADIENT = re.compile(r"d[A-Za-z]")

# words that are prose even without spaces around them: \text{where}, \text{and}
_PROSE_WORDS = {"and", "or", "for", "where", "if", "with", "all", "since", "so", "then", "hence",
                "thus", "when", "as", "by", "i.e.", "e.g.", "s.t.", "otherwise"}


_D = r"(?:d|\\mathrm\s*\{\s*d\s*\})"
_LEIBNIZ_NUM = re.compile(rf"\s*{_D}(?![A-Za-z]{{2}}|_)")
_VAR = (r"(?:[A-Za-z](?![a-ce-zA-Z])|\\[A-Za-z]+(?:\s*\{[^{}]*\})?)"
        r"(?:_(?:\{[^{}]*\}|[A-Za-z0-9]))?")
_UNIT = re.compile(rf"\s*({_D})\s*{_VAR}(?:\s*\^\s*(?:\{{\s*\d+\s*\}}|\d))?\s*(?:\\,)?\s*")


def _leibniz_denominator(den: str) -> list[int] | None:
    """The offsets of the d's when ``den`` is ``dx``, ``dx^2``, ``dx\\,dy`` …, else None."""
    at, found = 0, []
    while at < len(den):
        m = _UNIT.match(den, at)
        if not m or m.end() == at:
            return None
        found.append(m.start(1))
        at = m.end()
    return found or None
