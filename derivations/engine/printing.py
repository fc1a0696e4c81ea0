"""Printing a claim the way its author wrote it: definitions folded, in the author's notation.

Both routes check a claim with its definitions unfolded (:mod:`derivations.engine.definitions`);
what is printed is the claim as written — the checked expressions with the definitions folded as
the author folded them, so that a step that unfolds a definition shows it unfolded.  The printer
is SymPy's LaTeX printer with these changes:

* a defined symbol prints as its definition's TeX (``\\hat{m}_t``, ``\\sigma_\\varepsilon``), a
  defined function by its template (``\\lVert AX - B \\rVert_F^2``);
* a sum built unevaluated (``sp.Add(..., evaluate=False)``) keeps the author's order of terms;
* ∂L/∂W is printed as a fraction when what is differentiated is a single symbol, an entry or a
  defined function's value (∂x̂_i/∂x_j rather than ∂/∂x_j x̂_i);
* (1/d) Σ_k x_k rather than a sum over a fraction bar, and x_i − μ rather than −μ + x_i;
* everything else as SymPy prints it.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef, UndefinedFunction
from sympy.printing.latex import LatexPrinter
from sympy.simplify.radsimp import fraction

from derivations.engine.definitions import Definition

__all__ = ["latex", "legend"]


class _Printer(LatexPrinter):
    def __init__(self, definitions: tuple[Definition, ...] = ()) -> None:
        names, self._functions = {}, {}
        for d in definitions:
            if isinstance(d.symbol, UndefinedFunction):
                self._functions[d.symbol] = d.tex
            elif d.tex:
                names[d.symbol.label if isinstance(d.symbol, sp.IndexedBase) else d.symbol] = d.tex
        super().__init__({"symbol_names": names})

    def _print_Function(self, expr, exp=None):
        tex = self._functions.get(expr.func) if isinstance(expr, AppliedUndef) else None
        if not tex:
            return super()._print_Function(expr, exp)
        args = [self._print(a) for a in expr.args]
        if "{0}" in tex:
            out = tex.format(*args)
            return rf"\left({out}\right)^{{{exp}}}" if exp is not None else out
        head = tex if exp is None else rf"{tex}^{{{exp}}}"
        return rf"{head}\left({', '.join(args)}\right)"

    def _as_ordered_terms(self, expr, order=None):
        terms = super()._as_ordered_terms(expr, order=order)
        if order == "none" or not isinstance(expr, sp.Add):
            return terms
        # x_i − μ rather than −μ + x_i: a sum starts with a term that carries no minus sign
        first = next((t for t in terms if not t.could_extract_minus_sign()), None)
        if first is None or first is terms[0]:
            return terms
        return [first, *(t for t in terms if t is not first)]

    def _print_Add(self, expr, order=None):
        # an Add built unevaluated keeps the author's order; an evaluated one is re-sorted
        written = sp.Add(*expr.args).args != expr.args
        return super()._print_Add(expr, order="none" if written else order)

    def _print_Mul(self, expr):
        # (1/d) Σ_k x_k rather than a sum over a fraction bar: the sum's own fractions then
        # stand one level higher
        num, den = fraction(expr, exact=True)
        if den != 1 and _has_sum_factor(num):
            sign = ""
            if num.could_extract_minus_sign():
                sign, num = "- ", -num
            return rf"{sign}\frac{{1}}{{{self._print(den)}}} {self._print(num)}"
        return super()._print_Mul(expr)

    def _print_Derivative(self, expr):
        inner = expr.expr
        single = isinstance(inner, sp.Symbol | sp.Indexed | sp.MatrixSymbol | AppliedUndef)
        if not single or len(expr.variables) != 1:
            return super()._print_Derivative(expr)
        var = self._print(expr.variables[0])
        return rf"\frac{{\partial {self._print(inner)}}}{{\partial {var}}}"


def _has_sum_factor(e) -> bool:
    return isinstance(e, sp.Sum) or (isinstance(e, sp.Mul)
                                     and any(isinstance(a, sp.Sum) for a in e.args))


def latex(expr, definitions: tuple[Definition, ...] = ()) -> str:
    """``expr`` in TeX as written, each defined symbol printed as its definition says."""
    return _Printer(definitions).doprint(expr)


def legend(definitions: tuple[Definition, ...]) -> list[dict]:
    """Each definition as the report lists it: {"name", "latex": "symbol := body", "text"}, a
    definition after those it uses; the body printed with the others folded."""
    printer = _Printer(definitions)
    out = []
    for d in definitions:
        head = printer.doprint(d.head)
        out.append({"name": d.name, "latex": rf"{head} := {printer.doprint(d.body)}",
                    "text": d.text})
    return out
