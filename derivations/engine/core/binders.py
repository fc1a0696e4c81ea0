"""The symbols an expression binds.

The variable of a sum, a product, an integral, a lambda, a limit or a substitution ranges over
values of its own: a value, a sign or a root that a free symbol of the same name is given is not
its value (x > 0 says nothing of the x in ∫₋₁¹ x dx).  One reader for every part of the engine
that must tell bound variables from free symbols.
"""

from __future__ import annotations

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits

__all__ = ["bound_by", "bound_symbols"]


def bound_by(node: sp.Basic) -> tuple:
    """The variables ``node`` itself binds (none for a node that binds nothing)."""
    if isinstance(node, sp.Limit):
        return (node.args[1],)
    if isinstance(node, ExprWithLimits):
        return tuple(lim[0] for lim in node.limits)
    if isinstance(node, sp.Lambda | sp.Subs):
        return tuple(node.variables)
    return ()


def bound_symbols(expr: sp.Basic, derivatives: bool = False) -> set:
    """The variables bound anywhere inside ``expr``; with ``derivatives``, a derivative's
    variables too (a substitution into d/dx f(x) must not replace its x)."""
    out: set = set()
    for node in sp.preorder_traversal(expr):
        out.update(bound_by(node))
        if derivatives and isinstance(node, sp.Derivative):
            out.update(node.variables)
    return out
