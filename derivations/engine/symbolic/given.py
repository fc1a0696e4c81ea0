"""The claim's hypotheses as the symbolic route uses them: each is part of the statement, so a
step need only hold where they do.

* A bound x > c (x ≥ c, x < c, x ≤ c), from a hypothesis or the lower end of a declared
  range, puts x = c + t (c − t) with t positive (nonnegative): Max(x, 1000) = x under x > 1000
  is Max(1000 + t, 1000) = 1000 + t, which SymPy decides.
* An equality solved for a symbol (a + b = 1 for b, :mod:`derivations.engine.core.hypotheses`)
  puts that symbol's solution in: a·b = a − a² becomes a(1 − a) = a − a².
* A power b^e of a base whose declared range lies inside (0, 1), to a positive exponent, lies
  in (0, 1) too: it is taken as 1/(1 + s) with s positive, a value of its own (Adam's bias
  corrections, √(v/(1 − β₂ᵗ)) = √v/√(1 − β₂ᵗ)) — a generalisation, so a difference zero for
  every s is zero at the power's own value.
* A size m that may be 0 (integer, nonnegative) is taken apart: m = 0, where the sums and
  products over 1..m are empty, and m positive, where SymPy's closed forms hold
  (Σ_{i=0}^{m} i·C(m, i) = m·2^(m−1) in both).
* A complex symbol w (declared without real=True) is x + iy with x, y real: |w|² = w·w̄ and
  |w²| = |w|² are then algebra in x and y.
* An equality whose one side is a sum (Σ_k p_k = 1, Σ_k z_k = 0) rewrites that sum, under any
  name of its variable, after the difference's sums are split over their terms with their
  constant factors taken out: Σ_k s_k(δ_jk − s_j) = s_j − s_j·Σ_k s_k = 0.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.core.hypotheses import (
    Bounds,
    bounds,
    equalities,
    linear_part,
    solved_keys,
)

__all__ = ["by_equalities", "complex_parts", "zero_apart", "has_complex", "shifted", "unit_powers"]


def shifted(hypotheses, ranges=None) -> dict:
    """symbol -> c ± t for each symbol a hypothesis or a declared range bounds by a constant
    c ≠ 0 on one side (on both, the lower): the bound becomes t's sign.  A range is part of the
    claim's statement, as its signs are (:func:`~.methods.signed_by_ranges`); a difference zero
    for every t is zero on the range."""
    out = {}
    found = bounds(hypotheses)
    for x, (lo, _) in (ranges or {}).items():
        lo = sp.nsimplify(sp.sympify(lo, strict=True))
        if isinstance(x, sp.Symbol) and x not in found and lo.is_Rational and not x.is_integer:
            found[x] = Bounds(lo, True)
    for x, b in found.items():
        edge, closed, way = (b.lo, b.lo_closed, 1) if b.lo is not None else (
            b.hi, b.hi_closed, -1)
        if edge is None or edge == 0:
            continue
        t = sp.Dummy(f"{x.name}_shift", **({"nonnegative": True} if closed else
                                              {"positive": True}))
        out[x] = edge + way * t
    return out


def split_sums(e: sp.Basic) -> sp.Basic:
    """Every Sum over its expanded body split into one Sum per term, the factors free of its
    variables taken out."""
    def split(node):
        body = sp.expand(node.function)
        if isinstance(body, sp.Add):
            return sp.Add(*[split(sp.Sum(t, *node.limits)) for t in body.args])
        free, rest = body.as_independent(*[lim[0] for lim in node.limits], as_Add=False)
        return free * sp.Sum(rest, *node.limits) if free != 1 else node
    return e.replace(lambda x: isinstance(x, sp.Sum), split)


def _sum_rewrites(hypotheses) -> list:
    """(pattern, value) for each equality with a one-variable Sum on one side, its variable a
    Wild so that Σ_i p_i matches Σ_k p_k."""
    out = []
    for h in equalities(hypotheses):
        for side, other in ((h.lhs, h.rhs), (h.rhs, h.lhs)):
            if isinstance(side, sp.Sum) and len(side.limits) == 1 and not other.has(sp.Sum):
                var = side.limits[0][0]
                out.append((side.xreplace({var: sp.Wild(f"{var.name}_", exclude=())}), other))
                break
    return out


def by_equalities(d_like, diff: sp.Basic) -> sp.Basic | None:
    """``diff`` with the claim's equality hypotheses put in (see the module), or None when it
    has none that applies."""
    hyps = d_like.hypotheses
    if not equalities(hyps):
        return None
    out = diff
    for h, key in solved_keys(d_like).items():
        if isinstance(key, sp.Symbol) and out.has(key):
            c, r = linear_part(h.lhs - h.rhs, key)
            out = out.xreplace({key: -r / c})
    rewrites = _sum_rewrites(hyps)
    # a convergent infinite sum split over its terms may leave ∞ − ∞
    infinite = any(b.has(sp.oo, -sp.oo) for node in out.atoms(sp.Sum) for lim in node.limits
                   for b in lim[1:])
    if rewrites and out.has(sp.Sum) and not infinite:
        out = sp.expand(split_sums(sp.expand(out)))
        for pattern, value in rewrites:
            out = out.replace(lambda x, p=pattern: isinstance(x, sp.Sum)
                              and x.match(p) is not None, lambda x, v=value: v)
    return None if out == diff else out


def unit_powers(e: sp.Basic, ranges: dict) -> sp.Basic:
    """``e`` with each power of a base ranging inside (0, 1), to a positive exponent, as
    1/(1 + s), s a positive symbol of its own (see the module)."""
    inside = set()
    for b, (lo, hi) in ranges.items():
        lo, hi = sp.sympify(lo, strict=True), sp.sympify(hi, strict=True)
        if isinstance(b, sp.Symbol) and lo.is_number and hi.is_number and lo > 0 and hi < 1:
            inside.add(b)
    powers = sorted((p for p in e.atoms(sp.Pow) if p.base in inside and p.exp.is_positive
                     and not p.exp.is_Number), key=sp.default_sort_key)
    return e.xreplace({p: 1 / (1 + sp.Dummy(f"s_{p.base}", positive=True)) for p in powers})


def _complex_symbols(e: sp.Basic) -> list:
    return sorted((s for s in e.free_symbols if isinstance(s, sp.Symbol) and not s.is_real
                   and s.is_real is not False and not s.is_integer), key=sp.default_sort_key)


def has_complex(e: sp.Basic) -> bool:
    return bool(_complex_symbols(e))


def complex_parts(e: sp.Basic) -> sp.Basic:
    """``e`` with each complex symbol w as x + iy, x and y real, its parts then expanded, and
    each square root's radicand factored (|w²| = √((x² + y²)²) = x² + y²)."""
    parts = {w: sp.Dummy(f"re_{w}", real=True) + sp.I * sp.Dummy(f"im_{w}", real=True)
             for w in _complex_symbols(e)}
    out = sp.expand_complex(e.xreplace(parts))
    return out.replace(lambda p: isinstance(p, sp.Pow) and p.exp == sp.Rational(1, 2),
                       lambda p: sp.sqrt(sp.factor(p.base)))


def zero_apart(e: sp.Basic, indices=()) -> list[sp.Basic]:
    """The cases of ``e`` with each size that may be 0 at 0 and positive (each pair of cases
    for each such size, at most three sizes); [] when there is none."""
    sizes = sorted((s for s in e.free_symbols if isinstance(s, sp.Symbol) and s.is_integer
                    and s.is_nonnegative and not s.is_positive and s not in indices),
                   key=sp.default_sort_key)[:3]
    cases = [e] if sizes else []
    for s in sizes:
        positive = sp.Dummy(s.name, integer=True, positive=True)
        cases = [c.xreplace({s: v}) for c in cases for v in (sp.Integer(0), positive)]
    return cases
