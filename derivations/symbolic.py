"""The symbolic route: a step equals the previous one if their difference simplifies to zero.

Only SymPy's algebra, SymPy's matrix calculus, the definitions of E and Var, and the rewrites of the
assumptions a step cites are used — all under a CPU-time limit.  Whatever this route concludes,
the numeric route in :mod:`derivations.pointwise` must agree before a step counts as proved.
"""

from __future__ import annotations

import functools
import operator

import sympy as sp

from derivations.limits import SymbolicTimeout, time_limit
from derivations.stochastic import linearize

SYMBOLIC_SECONDS = 2.0


def _apply_rewrites(expr: sp.Basic, rewrites) -> sp.Basic:
    for pattern, replacement in rewrites:
        expr = expr.replace(pattern, replacement)
    return expr


def _matrix_diff(expr: sp.Basic, var: sp.MatrixSymbol) -> sp.Basic:
    # SymPy's diff of a sum by a MatrixSymbol is a silent 0 ((Trace(A*F) + Trace(B*F)).diff(F)),
    # so two wrong zeros could agree; linearity is applied here, term by term.
    if isinstance(expr, sp.Add):
        terms = [_matrix_diff(t, var) for t in expr.args if t.has(var)]
        return functools.reduce(operator.add, terms) if terms else expr.diff(var)
    return expr.diff(var)


def _matrix_calculus(expr: sp.Basic) -> sp.Basic:
    """SymPy's own matrix derivative; the numeric route re-derives every such result entrywise."""
    return expr.replace(lambda x: isinstance(x, sp.Derivative)
                        and isinstance(x.variables[0], sp.MatrixSymbol),
                        lambda x: _matrix_diff(x.expr, x.variables[0]))


def _normal_form(expr: sp.Basic, rewrites, random_bases) -> sp.Basic:
    expr = _matrix_calculus(expr)
    for _ in range(3):
        new = linearize(_apply_rewrites(expr, rewrites), random_bases)
        if new == expr:
            break
        expr = new
    return expr


def _within_ranges(expr: sp.Basic, indices: dict) -> sp.Basic:
    """Sums over KroneckerDelta leave Piecewise conditions such as 1 <= j <= n; a declared index
    range makes them true."""
    facts = {}
    for idx, (lo, hi) in indices.items():
        lo, hi = sp.sympify(lo, strict=True), sp.sympify(hi, strict=True)
        for rel in (sp.Ge(idx, lo), sp.Le(lo, idx), sp.Le(idx, hi), sp.Ge(hi, idx)):
            facts[rel] = sp.true
    return expr.xreplace(facts) if facts else expr


def _is_zero(diff: sp.Basic, indices: dict) -> bool:
    for _ in range(3):  # a derivative's doit can leave a Sum over a KroneckerDelta to evaluate
        done = diff.doit()
        if done == diff:
            break
        diff = done
    diff = _within_ranges(diff, indices)
    if isinstance(diff, sp.MatrixExpr | sp.MatrixBase):
        if isinstance(diff, sp.ZeroMatrix) or getattr(diff, "is_ZeroMatrix", False):
            return True
        if isinstance(diff, sp.MatrixBase):
            return all(sp.simplify(x) == 0 for x in diff)
        return sp.simplify(sp.expand(diff)) == sp.ZeroMatrix(*diff.shape)
    return sp.simplify(diff) == 0 or sp.simplify(sp.expand(sp.powsimp(diff))) == 0


def symbolic_check(prev, cur, rewrites=(), random_bases=(), indices=None,
                   seconds=SYMBOLIC_SECONDS) -> str:
    """'zero' if prev - cur simplifies to 0 within ``seconds``; never raises."""
    try:
        with time_limit(seconds):
            a = _normal_form(prev, rewrites, random_bases)
            b = _normal_form(cur, rewrites, random_bases)
            return "zero" if _is_zero(a - b, indices or {}) else "inconclusive"
    except SymbolicTimeout:
        return "timeout"
    except Exception:  # noqa: BLE001 - any SymPy failure only makes the step not 'proved'
        return "error"
