"""The reading shown back: LaTeX to typeset beside the original, and one line of text.

It may print a tree exactly as it is — every bracket the tree has, a subtraction where a sum has
a term ``-1·x``, a fraction where a product has a factor ``x⁻¹`` — and nothing else: it may not
simplify, reorder or drop anything, so that what the user sees is what will be checked.
"""

from __future__ import annotations

import re

import sympy as sp
from sympy.core.function import AppliedUndef

import derivations.notes.latex.nodes as N
from derivations.notes.latex.lexicon import GREEK

_REL_LATEX = {"=": "=", ":=": ":=", "≈": "\\approx", "≤": "\\le", "≥": "\\ge", "≠": "\\ne",
              "<": "<", ">": ">"}
_DECOR = {"hat": "\\hat", "tilde": "\\tilde", "bar": "\\bar", "dot": "\\dot", "ddot": "\\ddot",
          "vec": "\\vec", "bf": "\\mathbf", "cal": "\\mathcal"}
_FUNC_LATEX = {"log": "\\log", "exp": "\\exp", "sin": "\\sin", "cos": "\\cos", "tan": "\\tan",
               "tanh": "\\tanh", "sinh": "\\sinh", "cosh": "\\cosh", "Max": "\\max",
               "Min": "\\min", "sigmoid": "\\sigma", "E": "\\mathbb{E}"}
# precedence: a child binding more loosely than its parent needs brackets
_SUM, _PROD, _NEG, _POW, _ATOM = 1, 2, 3, 4, 5


class _Printer:
    def __init__(self, latex: bool):
        self.tex = latex
        self.script = 0  # inside an exponent: fractions inline

    # -- names -----------------------------------------------------------------------------
    def name(self, name: str) -> str:
        if not self.tex:
            return name
        m = re.fullmatch(r"(.+)\^(\(.+\)|[A-Z]|[A-Za-z]+)", name)
        if m:  # a label: W^Q, h^(l), and an upright word y^LS as written, y^{\text{LS}}
            label = m.group(2)
            if len(label) > 1 and label.isalpha():
                label = f"\\text{{{label}}}"
            return f"{self.name(m.group(1))}^{{{label}}}"
        if name.endswith("_prime"):
            return self.name(name[:-6]) + "'"
        m = re.fullmatch(r"([a-z]+)_(.+)", name)
        if m and m.group(1) in _DECOR:
            return f"{_DECOR[m.group(1)]}{{{self.name(m.group(2))}}}"
        head, _, sub = name.partition("_")
        out = f"\\{head}" if head in GREEK else head if len(head) == 1 else \
            f"\\mathrm{{{head}}}"
        if sub:
            out += f"_{{{self.name(sub) if sub in GREEK else sub}}}"
        return out

    def wrap(self, s):
        return f"\\left({s}\\right)" if self.tex else f"({s})"

    # -- the walk --------------------------------------------------------------------------
    def p(self, x, outer=0):
        s, prec = self.node(x)
        return self.wrap(s) if prec < outer else s

    def node(self, x):  # noqa: C901 - one case per node kind
        tex = self.tex
        name = type(x).__name__
        if isinstance(x, (list, tuple)):
            return ", ".join(self.p(a) for a in x), _ATOM
        if x is sp.E:
            return "e", _ATOM
        if x is sp.pi:
            return ("\\pi" if tex else "pi"), _ATOM
        if x is sp.oo or x is sp.S.NegativeInfinity:
            sign = "-" if x is sp.S.NegativeInfinity else ""
            return sign + ("\\infty" if tex else "∞"), _NEG if sign else _ATOM
        if x is sp.I:
            return ("\\mathrm{i}" if tex else "i"), _ATOM
        if getattr(x, "written", None):  # 0.330 as written: its digits are what ≈ is about
            return x.written, _ATOM if x >= 0 else _NEG
        if isinstance(x, sp.Integer):
            return str(x), _ATOM if x >= 0 else _NEG
        if isinstance(x, sp.Rational):
            dec = N.decimal_text(x)
            if dec is not None:
                return dec, _ATOM if x >= 0 else _NEG
            return (f"\\frac{{{x.p}}}{{{x.q}}}" if tex else str(x)), _PROD if not tex else _ATOM
        if isinstance(x, (sp.Symbol, sp.MatrixSymbol, sp.IndexedBase)):
            return self.name(str(x.name if hasattr(x, "name") else x)), _ATOM
        if isinstance(x, sp.Indexed):
            idx = ", ".join(self.p(i) for i in x.indices)
            return (f"{self.name(str(x.base))}_{{{idx}}}" if tex else f"{x.base}[{idx}]"), _ATOM
        if isinstance(x, AppliedUndef):
            return self.function(x)  # a note's function named R or Norm is no space, no norm
        if name in N.RELATION_OPS:
            op = N.RELATION_OPS[name]
            return f"{self.p(x.args[0])} {_REL_LATEX[op] if tex else op} {self.p(x.args[1])}", 0
        if name == "Chain":
            out = self.p(x.args[0].args[0])
            for rel in x.args:
                op = N.RELATION_OPS.get(type(rel).__name__, "∈")
                word = ("\\in" if op == "∈" else _REL_LATEX[op]) if tex else op
                out += f" {word} {self.p(rel.args[1])}"
            return out, 0
        if name == "Formulas":
            return (",\\quad " if tex else ";  ").join(self.p(a) for a in x.args), 0
        if name == "Distributed":
            op = "\\sim" if tex else "~"
            return f"{self.p(x.args[0])} {op} {self.p(x.args[1])}", 0
        if name == "In":
            op = "\\in" if tex else "∈"
            return f"{self.p(x.args[0])} {op} {self.p(x.args[1])}", 0
        if name == "R":
            dims = (" \\times " if tex else "×").join(self.p(d, _POW) for d in x.args)
            base = "\\mathbb{R}" if tex else "ℝ"
            return (f"{base}^{{{dims}}}" if tex else f"{base}^({dims})") if dims else base, _ATOM
        if name == "Range":
            lo, hi = (self.p(a) for a in x.args)
            return (f"\\{{{lo}, \\dots, {hi}\\}}" if tex else f"{{{lo}, …, {hi}}}"), _ATOM
        if name in ("Add", "MatAdd"):
            return self.add(x), _SUM
        if name in ("Mul", "MatMul"):
            return self.mul(x)
        if name in ("Pow", "MatPow"):
            return self.pow(x)
        if name == "exp":
            arg = self.p(x.args[0])
            return (f"e^{{{arg}}}" if tex else f"exp({arg})"), _POW if tex else _ATOM
        if name in ("Transpose", "transpose"):
            return (f"{self.base(x.args[0])}^{{\\top}}" if tex else
                    f"{self.p(x.args[0], _ATOM)}ᵀ"), _POW
        if name in ("Sum", "Product"):
            return self.bigop(x, name)
        if name == "Integral":
            (v, lo, hi), = x.limits
            body = self.p(x.args[0], _PROD)
            return (f"\\int_{{{self.p(lo)}}}^{{{self.p(hi)}}} {body}\\,d{self.p(v)}" if tex
                    else f"∫_({self.p(lo)}..{self.p(hi)}) {body} d{v}"), _PROD
        if name == "MaxOver":
            v, lo, hi = x.args[1]
            body = self.p(x.args[0], _PROD)
            # \max_j as written: the language reads no range on \max (its range is the table's)
            return (f"\\max_{{{self.p(v)}}} {body}"
                    if tex else f"max_({v}={lo}..{hi}) {body}"), _PROD
        if name == "Derivative":
            return self.derivative(x)
        if name == "EntryOf":
            idx = ", ".join(self.p(i) for i in x.args[1:])
            return (f"{self.base(x.args[0])}_{{{idx}}}" if tex else
                    f"{self.p(x.args[0], _ATOM)}[{idx}]"), _ATOM
        if name == "Norm":
            inner = self.p(x.args[0])
            sub = ""
            if len(x.args) > 1:
                sub = f"_{{{self.p(x.args[1])}}}" if tex else f"_{self.p(x.args[1])}"
            return (f"\\left\\lVert {inner} \\right\\rVert{sub}" if tex else f"‖{inner}‖{sub}"), \
                _ATOM
        if name == "Abs":
            inner = self.p(x.args[0])
            return (f"\\left| {inner} \\right|" if tex else f"|{inner}|"), _ATOM
        if name in ("odot", "HadamardProduct"):
            op = " \\odot " if tex else " ⊙ "
            return op.join(self.p(a, _POW) for a in x.args), _PROD
        if name == "KroneckerDelta":
            i, j = (self.p(a) for a in x.args)
            return (f"\\delta_{{{i} {j}}}" if tex else f"δ({i}, {j})"), _ATOM
        if name == "Tuple":
            return self.wrap(", ".join(self.p(a) for a in x.args)), _ATOM
        if isinstance(x, sp.MatrixBase):
            if tex:
                rows = " \\\\ ".join(" & ".join(self.p(e) for e in x.row(r))
                                     for r in range(x.rows))
                return f"\\begin{{pmatrix}} {rows} \\end{{pmatrix}}", _ATOM
            return "[" + "; ".join(", ".join(self.p(e) for e in x.row(r))
                                   for r in range(x.rows)) + "]", _ATOM
        if isinstance(x, (sp.Function, AppliedUndef)) or isinstance(x, N.Vocab):
            return self.function(x)
        return (sp.latex(x) if tex else str(x)), _ATOM

    def function(self, x):
        fname = str(x.func)
        args = ", ".join(self.p(a) for a in x.args)
        if self.tex:
            head = _FUNC_LATEX.get(fname) or (self.name(fname) if len(fname) == 1 or
                                              fname in GREEK else
                                              f"\\operatorname{{{fname}}}")
            if fname in ("E", "Var"):
                return f"{head}\\left[{args}\\right]", _ATOM
            return f"{head}{self.wrap(args)}", _ATOM
        return f"{fname}({args})", _ATOM

    def base(self, x) -> str:
        """``x`` under a script: a fraction, a root or anything looser than an atom is
        bracketed, ``(\\frac{1}{2})^{3}``, never ``\\frac{1}{2}^{3}``."""
        s, prec = self.node(x)
        return self.wrap(s) if prec < _ATOM or s.startswith(("\\frac", "\\sqrt")) else s

    def add(self, x):
        out = ""
        for k, term in enumerate(x.args):
            neg, body = _negative(term)
            s = self.p(body, _PROD if neg else _SUM + 1 if k else _SUM)
            if k == 0:
                out = ("-" + s) if neg else s
            else:
                out += (" - " if neg else " + ") + s
        return out

    def mul(self, x):
        tex = self.tex
        args = list(x.args)
        if args and args[0] == -1 and len(args) > 1:
            if _leading_digit(args[1]):  # (-1)·2·x: the -1 a factor of its own, as -2x is not
                s, prec = self.node(N.mul(*args[1:]) if len(args) > 2 else args[1])
                return self.wrap("-1") + (" \\cdot " if tex else "·") + (
                    self.wrap(s) if prec < _PROD else s), _PROD
            s, prec = self.node(_after_minus(args[1:]))
            return "-" + (self.wrap(s) if prec < _PROD or s[:1] == "-" else s), _NEG
        if tex and isinstance(args[0], sp.Number) and args[0] < 0 and len(args) > 1 and \
                _reciprocal(args[-1]) and not any(map(_reciprocal, args[:1])):
            groups = _fractions(args)
            if len(groups) == 1 and len(groups[0][1]) == 1:  # -\frac{2}{3}, not \frac{-2}{3}
                return "-" + self.frac([-args[0], *groups[0][0][1:]], groups[0][1]), _NEG
        groups, last = _fractions(args), args[-1]
        out = ""
        inline = False  # the group before is a/b/c: a factor after it needs a dot (a/b c)
        for k, (num, den) in enumerate(groups):
            if not num:  # x^{-1} y: no 1 was written over x (\frac{1}{x} reads 1·x⁻¹)
                part = self.factors([N.power(d, -1) for d in den], first=not k)
            elif tex and den and len(den) == 1:
                part = self.frac(num, den)
            else:
                part = self.factors(num, first=not k, last=last) or "1"
                for d in den:
                    part += "/" + self.p(d, _POW)
            if k:
                out += " \\cdot " if tex and inline else \
                    self.times(part, out, num[0] if num else None)
            out += part
            inline = bool(num and den and (not tex or len(den) > 1))
        return out, _ATOM if tex and len(groups) == 1 and len(groups[0][1]) == 1 else _PROD

    def times(self, nxt: str, prev: str, factor=None) -> str:
        """What joins a factor to the one before it: a space, or a dot before a number (two
        numbers side by side, 3 10^{-4}, would read as one) and between a number and a fraction
        of numbers (2 \\frac{1}{3} would read as two and a third)."""
        if not self.tex:
            return "·"
        mixed = prev[-1:].isdigit() and nxt.startswith("\\frac{") and nxt[6:7].isdigit()
        # a tuple beside a factor is read only across an explicit operator: 2 \cdot (1, 0)
        dot = nxt[:1].isdigit() or nxt[:1] == "." or mixed or isinstance(factor, sp.Tuple)
        return " \\cdot " if dot else " "

    def factors(self, items, first=True, last=None) -> str:
        """Factors side by side in the order read; a sum or product last takes the rest of the
        product as its body, so only there it goes without brackets."""
        out = ""
        for j, a in enumerate(items):
            outer = _PROD if self.tex and a is last and _bigop(a) else \
                _POW if j or not first else _NEG
            s = self.p(a, outer)
            out = s if not j else out + self.times(s, out, a) + s
        return out

    def frac(self, num, den) -> str:
        """One fraction: in a script inline (64^{-1/2}), elsewhere \\frac; a numerator or a
        denominator of one factor needs no brackets inside \\frac."""
        if (self.script or not self.tex) and len(num) <= 1 and len(den) == 1:
            n = self.p(num[0], _POW) if num else "1"
            return f"{n}/{self.p(den[0], _POW)}"
        n = self.p(num[0]) if len(num) == 1 else self.factors(num) if num else "1"
        d = self.p(den[0]) if len(den) == 1 else self.factors(den)
        return f"\\frac{{{n}}}{{{d}}}"

    def pow(self, x):
        base, e = x.args
        if e == sp.Rational(1, 2) and not getattr(e, "written", None):
            return (f"\\sqrt{{{self.p(base)}}}" if self.tex else f"sqrt({self.p(base)})"), _ATOM
        if isinstance(e, sp.Rational) and e.p == 1 and e.q > 2:
            return (f"\\sqrt[{e.q}]{{{self.p(base)}}}" if self.tex else
                    f"root({self.p(base)}, {e.q})"), _ATOM
        if self.tex:
            self.script += 1
            try:
                exponent = self.p(e)
            finally:
                self.script -= 1
            return f"{self.base(base)}^{{{exponent}}}", _POW
        return f"{self.p(base, _ATOM)}^{self.p(e, _ATOM)}", _POW

    def bigop(self, x, name):
        body = self.p(x.args[0], _PROD)
        for v, lo, hi in reversed(x.limits):
            if self.tex:
                cmd = "\\sum" if name == "Sum" else "\\prod"
                body = f"{cmd}_{{{self.p(v)}={self.p(lo)}}}^{{{self.p(hi)}}} {body}"
            else:
                sym = "Σ" if name == "Sum" else "Π"
                body = f"{sym}_({v}={self.p(lo)}..{self.p(hi)}) {body}"
        return body, _PROD

    def derivative(self, x):
        expr = x.args[0]
        d = "\\partial" if self.tex else "∂"
        parts, order = [], 0
        for v, k in reversed(x.variable_count):
            order += k
            pv = self.p(v, _ATOM)
            parts.append(f"{d} {pv}^{{{k}}}" if self.tex and k > 1 else f"{d} {pv}" if self.tex
                         else f"∂{pv}^{k}" if k > 1 else f"∂{pv}")
        top = f"{d}^{{{order}}}" if self.tex and order > 1 else d if self.tex else \
            f"∂^{order}" if order > 1 else "∂"
        if self.tex:
            return f"\\frac{{{top} {self.p(expr, _ATOM)}}}{{{' '.join(parts)}}}", _ATOM
        return f"{top}{self.p(expr, _ATOM)}/{''.join(parts)}", _PROD


def _negative(term):
    if isinstance(term, sp.Number) and term < 0:
        return True, -term
    if type(term).__name__ in ("Mul", "MatMul") and term.args and term.args[0] == -1:
        rest = term.args[1:]
        if not _leading_digit(rest[0]):  # a - (-1)·2 stays as written, not a - 2
            return True, _after_minus(rest)
    if type(term).__name__ == "Mul" and isinstance(term.args[0], sp.Number) and \
            term.args[0] < 0 and term.args[0] != -1:
        return True, N.mul(-term.args[0], *term.args[1:])  # a - 2x, read a + (-2)·x
    return False, term


def _after_minus(rest):
    """What a minus stands before: -\\frac{1}{n} reads -1·n⁻¹ (the minus takes the 1 in), so a
    reciprocal first is shown over its 1 again, never as n^{-1}."""
    if _reciprocal(rest[0]):
        return N.mul(1, *rest)
    return rest[0] if len(rest) == 1 else N.mul(*rest)


def _leading_digit(x) -> bool:
    return isinstance(x, sp.Number) and x >= 0


def _fractions(args) -> list[tuple[list, list]]:
    """The factors of a product as written, cut into fractions: each run of factors and the run
    of reciprocals after it is one (numerators, denominators); ``\\frac{1}{d}\\sum_i x_i``, the
    factors 1, d⁻¹, Σ, is 1/d, then Σ — never the Σ over d.  A numerator 1 right before a
    reciprocal starts a fraction of its own: 2·\\frac{1}{3} is not \\frac{2·1}{3}."""
    groups: list[tuple[list, list]] = [([], [])]
    for k, a in enumerate(args):
        if _reciprocal(a):
            groups[-1][1].append(a.args[0])
        elif groups[-1][1] or (a == 1 and groups[-1][0] and k + 1 < len(args) and
                               _reciprocal(args[k + 1])):
            groups.append(([a], []))
        else:
            groups[-1][0].append(a)
    return groups


def _bigop(a) -> bool:
    return type(a).__name__ in ("Sum", "Product")


def _reciprocal(a):
    return type(a).__name__ in ("Pow", "MatPow") and a.args[1] == -1


def to_latex(expr) -> str:
    """LaTeX of a reading, to typeset beside the formula it was read from."""
    return _Printer(True).p(expr)


def to_text(expr) -> str:
    """One line of text of a reading."""
    return _Printer(False).p(expr)


def table_text(table) -> str:
    """The symbol table as a text table (symbol, kind, what it rests on)."""
    return str(table)
