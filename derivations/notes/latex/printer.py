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

    # -- names -----------------------------------------------------------------------------
    def name(self, name: str) -> str:
        if not self.tex:
            return name
        m = re.fullmatch(r"(.+)\^(\(.+\)|[A-Z])", name)
        if m:
            return f"{self.name(m.group(1))}^{{{m.group(2)}}}"
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
        if isinstance(x, sp.Integer):
            return str(x), _ATOM if x >= 0 else _NEG
        if isinstance(x, sp.Rational):
            dec = _decimal(x)
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
            return (f"{self.p(x.args[0], _ATOM)}^{{\\top}}" if tex else
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
            return (f"\\max_{{{self.p(v)}={self.p(lo)}}}^{{{self.p(hi)}}} {body}"
                    if tex else f"max_({v}={lo}..{hi}) {body}"), _PROD
        if name == "Derivative":
            return self.derivative(x)
        if name == "EntryOf":
            idx = ", ".join(self.p(i) for i in x.args[1:])
            return (f"{self.p(x.args[0], _ATOM)}_{{{idx}}}" if tex else
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
            rest = N.mul(*args[1:]) if len(args) > 2 else args[1]
            return "-" + self.p(rest, _POW), _NEG
        groups, last = _fractions(args), args[-1]
        if tex and len(groups) == 1 and groups[0][1]:
            num, den = groups[0]
            n = " ".join(self.p(a, _PROD) for a in num) if num else "1"
            d = " ".join(self.p(a, _PROD) for a in den)
            return f"\\frac{{{n}}}{{{d}}}", _ATOM
        out = ""
        for k, (num, den) in enumerate(groups):
            if tex and den:
                n = " ".join(self.p(a, _PROD) for a in num) if num else "1"
                part = f"\\frac{{{n}}}{{{' '.join(self.p(a, _PROD) for a in den)}}}"
            else:
                # a sum or product last takes the rest of the product as its body: no brackets
                parts = [self.p(a, _PROD if tex and last is a and _bigop(a) else
                                _POW if k or j else _NEG) for j, a in enumerate(num)] or ["1"]
                part = parts[0]
                for more in parts[1:]:
                    part += ((" \\cdot " if more[:1].isdigit() else " ") if tex else "·") + more
                for d in den:
                    part += "/" + self.p(d, _POW)
            if k:
                out += (" \\cdot " if part[:1].isdigit() else " ") if tex else "·"
            out += part
        return out, _PROD

    def pow(self, x):
        base, e = x.args
        if e == sp.Rational(1, 2):
            return (f"\\sqrt{{{self.p(base)}}}" if self.tex else f"sqrt({self.p(base)})"), _ATOM
        if isinstance(e, sp.Rational) and e.p == 1 and e.q > 2:
            return (f"\\sqrt[{e.q}]{{{self.p(base)}}}" if self.tex else
                    f"root({self.p(base)}, {e.q})"), _ATOM
        if self.tex:
            return f"{self.p(base, _ATOM)}^{{{self.p(e)}}}", _POW
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


def _decimal(x: sp.Rational) -> str | None:
    """A rational whose denominator divides a power of ten, as the decimal it is (0.7)."""
    for k in range(1, 13):
        if (10 ** k) % x.q == 0:
            digits = str(abs(x.p) * (10 ** k // x.q)).rjust(k + 1, "0")
            text = (digits[:-k] + "." + digits[-k:]).rstrip("0")
            return ("-" if x < 0 else "") + text
    return None


def _negative(term):
    if isinstance(term, sp.Number) and term < 0:
        return True, -term
    if type(term).__name__ in ("Mul", "MatMul") and term.args and term.args[0] == -1:
        rest = term.args[1:]
        return True, rest[0] if len(rest) == 1 else N.mul(*rest)
    return False, term


def _fractions(args) -> list[tuple[list, list]]:
    """The factors of a product as written, cut into fractions: each run of factors and the run
    of reciprocals after it is one (numerators, denominators); ``\\frac{1}{d}\\sum_i x_i``, the
    factors 1, d⁻¹, Σ, is 1/d, then Σ — never the Σ over d."""
    groups: list[tuple[list, list]] = [([], [])]
    for a in args:
        if _reciprocal(a):
            groups[-1][1].append(a.args[0])
        elif groups[-1][1]:
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
