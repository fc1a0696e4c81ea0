"""Noncommutative symbols as square matrices, and square matrices as a noncommutative ring.

A claim may use noncommutative symbols (``sp.Symbol("A", commutative=False)``) in polynomials:
sums, products and positive integer powers, with commuting scalars.  Both routes check it with
every such symbol an n×n matrix of a size ``RING_SIZE`` the numeric route draws like any other
size — a number commutes, so drawing one would miss (A + B)² ≠ A² + 2AB + B².  A scalar term of
a sum is that scalar times the identity.

The symbolic route's own method goes back (:mod:`derivations.engine.symbolic.ring`).
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.core.errors import DerivationError

# the size of every noncommutative symbol's matrix: a size like any other, drawn 1..max_dim and 6
RING_SIZE = sp.Symbol("ring_size", integer=True, positive=True)


def noncommutative(expr: sp.Basic) -> list[sp.Symbol]:
    return sorted((a for a in expr.atoms(sp.Symbol) if a.is_commutative is False), key=str)


def polynomial_problem(expr: sp.Basic) -> str:
    """'' if ``expr`` is a polynomial in its noncommutative symbols (sums, products, positive
    integer powers, commuting scalars); else what is not."""
    if expr.is_commutative:
        return ""
    if isinstance(expr, sp.Symbol):
        return ""
    if isinstance(expr, sp.Add | sp.Mul):
        return next((p for p in map(polynomial_problem, expr.args) if p), "")
    if isinstance(expr, sp.Pow):
        if not (expr.exp.is_Integer and expr.exp > 0):
            return f"{expr} (a power other than a positive integer)"
        return polynomial_problem(expr.base)
    return f"{expr} (a {type(expr).__name__} of a noncommutative symbol)"


def to_matrices(expr: sp.Basic, size: sp.Basic = RING_SIZE, scalar_as_identity: bool = True):
    """``expr`` with each noncommutative symbol a ``size``×``size`` MatrixSymbol of its name."""
    if expr.is_commutative:
        if not scalar_as_identity:
            return expr
        return sp.ZeroMatrix(size, size) if expr == 0 else expr * sp.Identity(size)
    if isinstance(expr, sp.Symbol):
        return sp.MatrixSymbol(expr.name, size, size)
    if isinstance(expr, sp.Add):
        return sp.MatAdd(*(to_matrices(t, size) for t in expr.args))
    if isinstance(expr, sp.Mul):
        scalars, factors = expr.args_cnc()
        return sp.Mul(*scalars) * sp.MatMul(*(to_matrices(f, size, False) for f in factors))
    if isinstance(expr, sp.Pow):
        return sp.MatPow(to_matrices(expr.base, size, False), expr.exp)
    raise DerivationError(f"{expr}: not a polynomial in noncommutative symbols")
