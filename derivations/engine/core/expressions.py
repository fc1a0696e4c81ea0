"""One expression of a claim, read on its own: whether it is a SymPy expression at all, its shape,
the symbols it is about, those it uses as indices or leaves undeclared inside E and Var, and its
floats as the decimals they print as.

The claim's validation (:mod:`derivations.engine.core.claim`) reads each of its expressions through
these and names the claim and the step in what it refuses; nothing here knows a claim, and claim
imports this module, never the reverse.

Derivative layout (both routes follow it): a scalar by a matrix has the matrix's shape; a column
vector f (k×1) by a column vector x (n×1) is the k×n Jacobian, entry (a, b) = ∂f_a/∂x_b.  Higher
and mixed derivatives are supported by scalars and matrix entries (``Derivative(f, x, x)``,
``Derivative(f, X[0, 0], W[1, 0])``) and refused by a whole matrix.
"""

from __future__ import annotations

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement

from derivations.engine.core.errors import DerivationError
from derivations.engine.core.stochastic import E, Var

__all__ = ["symbols_of"]


def symbols_of(expressions) -> set:
    """The free symbols of ``expressions``, the bases of their indexed entries and the symbols in
    their matrices' sizes."""
    found: set = set()
    for e in expressions:
        found |= e.free_symbols
        found |= {i.base for i in e.atoms(sp.Indexed)}
    # a MatrixSymbol's free symbols are itself only: its symbolic sizes are symbols too
    for m in [s for s in found if isinstance(s, sp.MatrixSymbol)]:
        found |= set().union(*(k.free_symbols for k in m.shape))
    return found


class _ShapeRefused(Exception):
    pass


def _shape(expr: sp.Basic):
    if isinstance(expr, sp.Derivative):
        inner, counts = _shape(expr.expr), expr.variable_count
        matrix_vars = [v for v, _ in counts if isinstance(v, sp.MatrixSymbol)]
        if matrix_vars and (len(counts) > 1 or counts[0][1] > 1):
            raise _ShapeRefused(
                f"higher-order or mixed derivative {expr} by the matrix {matrix_vars[0]}: not "
                f"supported (it is not a first derivative); differentiate by entries, e.g. "
                f"Derivative(f, {matrix_vars[0]}[0, 0], {matrix_vars[0]}[1, 0]), or write the "
                f"Hessian entrywise")
        if not matrix_vars:
            return inner
        var = matrix_vars[0]
        if inner is None:
            return tuple(var.shape)
        if inner[1] == 1 and var.shape[1] == 1:
            return (inner[0], var.shape[0])
        raise _ShapeRefused(f"derivative of the {inner} matrix {expr.expr} by the "
                            f"{tuple(var.shape)} matrix {var}: only a scalar by a matrix or a "
                            f"column vector by a column vector (the Jacobian) is defined")
    if isinstance(expr, sp.MatrixExpr | sp.MatrixBase):
        return tuple(expr.shape)
    if isinstance(expr, sp.Mul | sp.Add) and expr.has(sp.Derivative):
        # SymPy keeps c·∂f/∂X and ∂f/∂X + ∂g/∂X as scalar Mul/Add nodes: type them by their terms
        shapes = [_shape(a) for a in expr.args]
        found = {s for s in shapes if s is not None}
        if isinstance(expr, sp.Mul) and sum(s is not None for s in shapes) > 1:
            raise _ShapeRefused(f"{expr} multiplies several matrix-valued derivatives as scalars; "
                                f"write the matrix product explicitly")
        if isinstance(expr, sp.Add) and (len(found) > 1 or (found and None in shapes)):
            raise _ShapeRefused(f"{expr} adds terms of different shapes "
                                f"{[s for s in shapes]}")
        return found.pop() if found else None
    return None


def _index_symbols(expr: sp.Basic) -> set:
    """Free symbols used as an index: of an Indexed, a KroneckerDelta or a matrix entry."""
    used = set()
    for a in expr.atoms(sp.Indexed):
        for ix in a.indices:
            used |= ix.free_symbols
    for a in expr.atoms(sp.KroneckerDelta, MatrixElement):
        args = a.args if isinstance(a, sp.KroneckerDelta) else a.args[1:]
        for ix in args:
            used |= ix.free_symbols
    return used & {s for s in expr.free_symbols if isinstance(s, sp.Symbol)}


def _undeclared_in_expectations(expr: sp.Basic, declared: set) -> set:
    # a symbol bound by a Sum around the E is that sum's index, not a quantity
    declared = declared | {s for s in _all_symbols(expr) if s not in expr.free_symbols}
    out = set()
    for node in expr.atoms(E, Var):
        arg = node.args[0]
        labels = {a.base.label for a in arg.atoms(sp.Indexed)}
        for s in arg.free_symbols:
            if isinstance(s, sp.Indexed):
                if s.base not in declared and s.base.label not in declared:
                    out.add(s.base)
            elif s not in labels and s not in declared:
                out.add(s)
    return out


def _all_symbols(expr: sp.Basic) -> set:
    return expr.atoms(sp.Symbol)


def _as_written(expr):
    """Each float as the decimal it prints as: 0.1 is 1/10, not the binary double nearest it."""
    if not isinstance(expr, sp.Basic) or not expr.atoms(sp.Float):
        return expr
    def exact(f):
        return sp.Rational(repr(float(f))) if f._prec <= 53 else sp.Rational(str(f))
    return expr.xreplace({f: exact(f) for f in expr.atoms(sp.Float)})


def _expect_expr(value, at: str, what: str) -> None:
    if isinstance(value, bool | sp.logic.boolalg.BooleanAtom):
        raise DerivationError(f"{at}: {what} is the truth value {value}, not an expression; "
                              f"an sp.Eq between equal or unequal sides evaluates on the spot — "
                              f"build it with sp.Eq(lhs, rhs, evaluate=False)")
    if isinstance(value, int | float):
        raise DerivationError(f"{at}: expected a SymPy expression, got the Python "
                              f"{type(value).__name__} {value!r} as {what}; wrap it, e.g. "
                              f"sp.Integer(2) or sp.Rational(3, 2)")
    if not isinstance(value, sp.Basic | sp.MatrixBase):
        raise DerivationError(f"{at}: expected a SymPy expression, got {type(value)!r}")


def _shape_or_raise(expr, where: str):
    try:
        return _shape(expr)
    except _ShapeRefused as exc:
        raise DerivationError(f"{where}: {exc}") from None
