"""Square matrices as a noncommutative ring: the symbolic route's own method for them.

A difference of products of square matrices of one size, with sums, powers, the identity and
scalars, is a polynomial in the free algebra; if it expands to 0 there, it is 0 in every ring,
the matrices included.
"""

from __future__ import annotations

import sympy as sp


def as_ring(expr: sp.Basic) -> sp.Basic | None:
    """A matrix expression over square MatrixSymbols of one size as a noncommutative polynomial
    (the identity 1, the zero matrix 0); None if it holds anything else."""
    mats = expr.atoms(sp.MatrixSymbol)
    shapes = {m.shape for m in mats}
    if len(shapes) != 1 or next(iter(shapes))[0] != next(iter(shapes))[1]:
        return None
    symbols = {m: sp.Symbol(m.name, commutative=False) for m in mats}

    def back(e):
        if isinstance(e, sp.MatrixSymbol):
            return symbols[e]
        if isinstance(e, sp.Identity):
            return sp.Integer(1)
        if isinstance(e, sp.ZeroMatrix):
            return sp.Integer(0)
        if not isinstance(e, sp.MatrixExpr):
            if e.atoms(sp.MatrixSymbol, sp.MatrixExpr):
                raise ValueError(e)
            return e
        if isinstance(e, sp.MatAdd):
            return sp.Add(*map(back, e.args))
        if isinstance(e, sp.MatMul):
            return sp.Mul(*map(back, e.args))
        if isinstance(e, sp.MatPow) and e.exp.is_Integer and e.exp >= 0:
            return back(e.base) ** e.exp
        raise ValueError(e)
    try:
        return back(expr)
    except ValueError:
        return None
