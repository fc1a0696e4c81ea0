"""Finite sums held as symbols: LayerNorm's identities, for a symbolic width d, are algebra in a
few sums once each sum is split over its terms.

Every sum is split over its expanded body, the factors free of its variables taken out
(Σ_k (x_k − μ)/σ = (Σ_k x_k − μ·Σ_k 1)/σ, μ and σ being sums of their own), a sum over a
Kronecker delta keeps its one term (Σ_i δ_ij g_i = g_j where lo ≤ j ≤ hi, which the declared
index range decides), a sum of a constant is counted (Σ_k 1 = d), every sum's variables are
named by their place so that Σ_k x_k and Σ_l x_l are one sum, and each distinct sum is then a
real symbol of its own.  A difference that
simplifies to zero for every value of those symbols is zero: what is left is the algebra of a
few numbers (for the LayerNorm gradient summing to 0: Σ g, Σ x, Σ g·x, Σ x², d and ε).
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.symbolic.given import split_sums
from derivations.engine.symbolic.traces import bound_by_place

__all__ = ["finite", "nested_sums", "sums_as_symbols"]


def nested_sums(e: sp.Basic) -> bool:
    """Whether a sum holds another sum in its body (the shape this method is for), every sum
    finite: splitting a convergent infinite sum may leave ∞ − ∞."""
    sums = e.atoms(sp.Sum)
    return finite(e) and any(s.function.has(sp.Sum) for s in sums)


def finite(e: sp.Basic) -> bool:
    return not any(b.has(sp.oo, -sp.oo) for s in e.atoms(sp.Sum, sp.Product)
                   for lim in s.limits for b in lim[1:])


def _counted(s: sp.Sum) -> bool:
    """A sum of a constant over a range that cannot be empty (Σ_{k=1}^{d} 1 = d): counted."""
    if s.function.free_symbols & {lim[0] for lim in s.limits}:
        return False
    return all((hi - lo + 1).is_nonnegative for _, lo, hi in s.limits)


def _delta(s: sp.Sum) -> sp.Basic:
    """Σ_{v=lo}^{hi} δ(v, j)·f(v) = f(j) where lo ≤ j ≤ hi, else 0; ``s`` itself otherwise."""
    if len(s.limits) != 1:
        return s
    var, lo, hi = s.limits[0]
    for factor in sp.Mul.make_args(s.function):
        if isinstance(factor, sp.KroneckerDelta) and factor.has(var):
            a, b = factor.args
            other = b if a == var else a if b == var else None
            if other is None or other.has(var):
                continue
            rest = s.function / factor
            return sp.Piecewise((rest.xreplace({var: other}), sp.And(sp.Le(lo, other),
                                                                      sp.Le(other, hi))),
                                (0, True))
    return s


def sums_as_symbols(e: sp.Basic, settle=lambda e: e) -> sp.Basic:
    """``e`` with its sums split, its deltas summed, counted and named by place, each distinct
    sum a real symbol; ``e`` itself when a sum is infinite.  ``settle`` reads the conditions the
    deltas leave (the declared index ranges)."""
    if not finite(e):
        return e
    for _ in range(3):
        before = e
        e = split_sums(sp.expand(e))
        if e.has(sp.KroneckerDelta):
            e = settle(e.replace(lambda x: isinstance(x, sp.Sum), _delta))
            e = sp.piecewise_fold(e) if e.has(sp.Piecewise) else e
        if e == before:
            break
    e = bound_by_place(e)
    e = e.replace(lambda x: isinstance(x, sp.Sum) and _counted(x), lambda x: x.doit())
    held = {s: sp.Dummy("sum", **({"real": True} if s.is_real else {}))
            for s in sorted(e.atoms(sp.Sum), key=sp.default_sort_key)}
    return e.xreplace(held)
