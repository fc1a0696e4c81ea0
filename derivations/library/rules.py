"""Named rules of calculus shared by the claim modules of the training step (citing a claim is
:mod:`derivations.engine.core.citing`).

Each is an :class:`~derivations.engine.Assumption` of kind ``lemma``: a true identity that the
symbolic route may apply as a rewrite; the numeric route never uses it, so a step that misapplies
one still fails on numbers.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption


def _depends(expr: sp.Basic, v: sp.Basic) -> bool:
    """Whether ``expr`` may vary with ``v``: x_i may equal x_j, so an entry of an IndexedBase
    depends on every entry of that base."""
    if expr.has(v):
        return True
    return isinstance(v, sp.Indexed) and any(a.base == v.base for a in expr.atoms(sp.Indexed))


def _derivative_of_sum(e: sp.Basic) -> bool:
    return (isinstance(e, sp.Derivative) and isinstance(e.expr, sp.Sum)
            and not any(v.has(*e.expr.variables) for v in e.variables)
            and not any(lim.has(v) for lim in e.expr.limits[0][1:] for v in e.variables))


def _into_sum(e: sp.Derivative) -> sp.Sum:
    inner, f = e.expr, e.expr.function
    # factors free of the variables (and so constants of the derivative) stay outside it
    factors = f.args if isinstance(f, sp.Mul) else (f,)
    const = [a for a in factors if not any(_depends(a, v) for v in e.variables)]
    rest = [a for a in factors if any(_depends(a, v) for v in e.variables)]
    return sp.Sum(sp.Mul(*const) * sp.Derivative(sp.Mul(*rest), *e.variables), *inner.limits)


# SymPy evaluates ∂/∂x_j Σ_i f_i in full (every nested sum of a LayerNorm, say) before it can
# compare; moving the derivative inside keeps the comparison at the level of the summand.
DIFF_UNDER_SUM = Assumption(
    "differentiation under a finite sum",
    "The derivative of a finite sum whose bounds do not depend on the variable is the sum of the "
    "derivatives, and a factor free of v is a constant: d/dv sum_i c_i f_i = sum_i c_i df_i/dv.",
    r"\frac{\partial}{\partial v}\sum_i f_i = \sum_i \frac{\partial f_i}{\partial v}",
    rewrites=((_derivative_of_sum, _into_sum),),
    kind="lemma",
)
