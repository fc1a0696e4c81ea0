"""Infinite sums and products of rational terms, closed by Γ and ψ — a method of the symbolic route.

A term that is rational in its variable once its integer-only parts ((−1)ⁱ, Mod(i, 2), …) are
fixed is grouped by their period P: the block g(j) = Σ_r f(a + P·j + r) (a product for a
product), j = 0, 1, …  Grouping consecutive terms keeps the value when every term tends to 0 (to
1 for a product), which is checked on each residue class.  A rational block then has a classical
closed form, from its roots:

* Σ_{j≥0} 1/(j − α)^m = (−1)^m ψ^{(m−1)}(−α)/(m − 1)! for m ≥ 2, and Σ_{j≥0} Σ_k c_k/(j − α_k) =
  −Σ_k c_k ψ(−α_k) when Σ_k c_k = 0 — which holds exactly when the block decays like 1/j², the
  condition under which the sum converges (checked by degrees);
* Π_{j≥0} Π_k (j − a_k)/(j − b_k) = Π_k Γ(−b_k)/Γ(−a_k) when the leading coefficients agree and
  Σ a_k = Σ b_k — exactly when the block is 1 + O(1/j²), the condition for convergence;
* Σ c_k·log R_k(i) with integers c_k and every R_k(i) > 0 as log Π R_k(i)^{c_k}.

A root that may be a nonnegative integer (a term with a pole, a factor 0) leaves the node
alone.  The closed forms are identities of ψ and Γ, not SymPy's summation: the numeric route,
which sums the definition term by term, must agree before a step can be ``proved``.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.symbolic.cases import _period
from derivations.engine.symbolic.methods import node_or_itself

MAX_DEGREE = 6  # of a block's numerator and denominator: roots beyond it are not closed forms


def _block(node: sp.Sum | sp.Product) -> tuple[sp.Basic, sp.Dummy, list[sp.Basic]] | None:
    """(the block g(j), j, the P terms of one block) of a one-variable series from an integer
    start to ∞, or None."""
    if len(node.limits) != 1:
        return None
    var, lo, hi = node.limits[0]
    if hi != sp.oo or not lo.is_Integer:
        return None
    # a sum's or product's variable ranges over the integers, however it was declared
    at = sp.Dummy(var.name, integer=True)
    f = node.function.xreplace({var: at})
    var = at
    period = _period(f, var)
    if period is None:
        return None
    j = sp.Dummy("j", integer=True, nonnegative=True)
    terms = [f.xreplace({var: lo + period * j + r}) for r in range(period)]
    terms = [sp.powsimp(sp.expand_power_base(t, force=False)) for t in terms]
    if any(t.has(var) for t in terms):
        return None
    block = sp.Add(*terms) if isinstance(node, sp.Sum) else sp.Mul(*terms)
    return block, j, terms


def _rational(e: sp.Basic, j: sp.Dummy) -> tuple[sp.Poly, sp.Poly] | None:
    e = sp.cancel(sp.together(e))
    num, den = sp.fraction(e)
    if not (num.is_polynomial(j) and den.is_polynomial(j)):
        return None
    num, den = sp.Poly(num, j), sp.Poly(den, j)
    if max(num.degree(), den.degree()) > MAX_DEGREE:
        return None
    return num, den


def _tends_to(e: sp.Basic, j: sp.Dummy, to: int) -> bool:
    pair = _rational(e - to, j)
    return pair is not None and (pair[0].is_zero or pair[1].degree() > pair[0].degree())


def _roots(p: sp.Poly) -> list[sp.Basic] | None:
    """Every root of p with its multiplicity, none of them a nonnegative integer, or None."""
    if p.degree() == 0:
        return []
    found = sp.roots(p)
    if sum(found.values()) != p.degree():
        return None
    out = []
    for root, times in found.items():
        if not ((root.is_nonnegative is False) or (root.is_integer is False)):
            return None
        out += [root] * times
    return out


def _sum(num: sp.Poly, den: sp.Poly, j: sp.Dummy) -> sp.Basic | None:
    if num.is_zero:
        return sp.Integer(0)
    if den.degree() < num.degree() + 2 or _roots(den) is None:
        return None
    total = sp.Integer(0)
    fractions = sp.expand_mul(sp.apart(num.as_expr() / den.as_expr(), j, full=True).doit())
    for term in sp.Add.make_args(fractions):
        coeff, rest = term.as_independent(j, as_Add=False)
        base, power = rest.as_base_exp() if rest.is_Pow else (rest, sp.Integer(1))
        power = -power
        if not (power.is_Integer and power >= 1):
            return None
        lin = sp.Poly(base, j)
        if lin.degree() != 1:
            return None
        lead, const = lin.all_coeffs()
        alpha = sp.cancel(const / lead)  # base = lead·(j + alpha)
        coeff = coeff / lead**power
        if power == 1:
            total -= coeff * sp.polygamma(0, alpha)
        else:
            total += (coeff * (-1) ** power * sp.polygamma(power - 1, alpha)
                      / sp.factorial(power - 1))
    return total


def _product(num: sp.Poly, den: sp.Poly) -> sp.Basic | None:
    if num.degree() != den.degree() or sp.simplify(num.LC() - den.LC()) != 0:
        return None
    tops, bottoms = _roots(num), _roots(den)
    if tops is None or bottoms is None or sp.simplify(sp.Add(*tops) - sp.Add(*bottoms)) != 0:
        return None
    return sp.Mul(*[sp.gamma(-b) for b in bottoms]) / sp.Mul(*[sp.gamma(-a) for a in tops])


def _log_argument(e: sp.Basic, j: sp.Dummy) -> sp.Basic | None:
    """G with e = log G, for e = Σ c_k log R_k with integers c_k and every R_k > 0 at every j ≥ 0
    (then Σ c_k log R_k = log Π R_k^c_k), or None."""
    inside = sp.Integer(1)
    for term in sp.Add.make_args(sp.expand(e, log=False, power_base=False, power_exp=False)):
        coeff, rest = term.as_independent(j, as_Add=False)
        if not (isinstance(rest, sp.log) and coeff.is_Integer):
            return None
        arg = sp.cancel(sp.together(rest.args[0]))
        if arg.is_positive is not True:
            return None
        inside *= arg**coeff
    return inside


def rational_series(node: sp.Basic) -> sp.Basic:
    """``node`` (an infinite Sum or Product) closed by Γ or ψ, or ``node`` itself."""
    found = _block(node)
    if found is None:
        return node
    block, j, terms = found
    logs = isinstance(node, sp.Sum) and block.has(sp.log)
    if logs:
        # Σ log G(i) = log Π G(i) term by term, and log is continuous at the product's value
        terms = [_log_argument(t, j) for t in terms]
        if any(g is None for g in terms):
            return node
        block = sp.Mul(*terms)
    summed = isinstance(node, sp.Sum) and not logs
    pair = _rational(block, j)
    if pair is None or not all(_tends_to(t, j, 0 if summed else 1) for t in terms):
        return node
    value = _sum(*pair, j) if summed else _product(*pair)
    if value is None:
        return node
    return sp.log(value) if logs else value


def rational_series_closed(expr: sp.Basic) -> sp.Basic:
    """Every infinite sum or product of rational blocks in ``expr`` replaced by its closed form."""
    return expr.replace(lambda e: isinstance(e, sp.Sum | sp.Product),
                        node_or_itself(rational_series))
