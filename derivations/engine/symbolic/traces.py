"""Traces, by the route's own rules: cyclic rotation and the trace as a sum of diagonal entries.

* **Cyclic form.** tr(ABC) = tr(BCA) = tr(CAB) whenever the product is defined and square (the
  factors may be rectangular), and tr(Mᵀ) = tr(M), so tr(P) = tr(Pᵀ) with Pᵀ the reversed
  product of transposes.  Every trace of a product is written as the least of these rotations of
  its factors and of their transposes reversed, by SymPy's sort key; two traces equal by
  cyclicity then print alike.  SymPy has no such rule (tr(XBC) − tr(CXB) stays as it is).
* **Sums.** tr(A) = Σ_{i=0}^{n−1} A_{ii}, and each Sum's variables renamed by their place
  (``_b<depth>_<k>``), so that Σ_j Σ_i A_ij B_ji and SymPy's own rewrite of tr(AB), with
  variables of other names, meet.

Both are rewrites of equal things into one form, so a difference zero in that form is zero; the
numeric route checks every such step again on explicit matrices.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["bound_by_place", "cyclic", "traces_as_sums"]


def _flip(factors: list) -> list:
    return [sp.Transpose(f).doit() for f in reversed(factors)]


def _least(factors: list) -> list:
    """The least rotation of ``factors``, or of their reversed transposes, by sort key."""
    rotations = [factors[k:] + factors[:k] for k in range(len(factors))]
    flipped = _flip(factors)
    rotations += [flipped[k:] + flipped[:k] for k in range(len(flipped))]
    return min(rotations, key=lambda r: [sp.default_sort_key(f) for f in r])


def _one(t: sp.Trace) -> sp.Basic:
    arg = t.arg
    if isinstance(arg, sp.Transpose):
        arg = arg.arg
    arg = sp.expand(arg) if isinstance(arg, sp.MatAdd) else arg
    if isinstance(arg, sp.MatAdd):
        return sp.Add(*[_one(sp.Trace(term)) for term in arg.args])
    if isinstance(arg, sp.MatMul):
        coeff, factors = arg.as_coeff_matrices()
        if len(factors) > 1:
            return coeff * sp.Trace(sp.MatMul(*_least(list(factors))))
    return sp.Trace(arg)


def cyclic(e: sp.Basic) -> sp.Basic:
    """``e`` with every trace in its cyclic form (see the module)."""
    return e.replace(lambda x: isinstance(x, sp.Trace), _one)


def bound_by_place(e: sp.Basic, depth: int = 0) -> sp.Basic:
    """Every Sum's variables renamed by their nesting depth and place (see the module)."""
    if not isinstance(e, sp.Basic) or e.is_Atom:
        return e
    if isinstance(e, sp.Sum):
        body, limits, names = e.function, [], {}
        for k, (var, lo, hi) in enumerate(e.limits):
            new = sp.Symbol(f"_b{depth}_{k}", integer=True)
            names[var] = new
            limits.append((new, lo.xreplace(names), hi.xreplace(names)))
        return sp.Sum(bound_by_place(body.xreplace(names), depth + 1), *limits)
    args = [bound_by_place(a, depth) for a in e.args]
    return e.func(*args) if args != list(e.args) else e


def traces_as_sums(e: sp.Basic) -> sp.Basic:
    """Every trace as the sum of its diagonal entries, every sum's variables named by place."""
    e = e.replace(lambda x: isinstance(x, sp.Trace), lambda t: t.rewrite(sp.Sum))
    return bound_by_place(e)
