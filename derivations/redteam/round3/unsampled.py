"""Class 3 — points never drawn: 0 for an integer that may be 0, sizes 5, 7, 8, range ends.

A nonnegative integer symbol or the upper limit of a sum or product may be 0; a claim false only
there needs that point. Sizes are drawn from 1..4 and 6 (matrices never past 6), and probed at
7, 8, 9, 10, 12, 16, 24, 32, 48, 64 — a claim false only at 5, 11 or 13 is false where nothing
looks. Each witness enumerates exactly (Python integers and Fractions, NumPy for matrices) and
shows the special point.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, prod

import mpmath as mp
import numpy as np
import sympy as sp

from derivations import Domain
from derivations.redteam.round3.common import add_to, claim, holds, pts

CLS = "points never drawn"
CASES: list = []
add = add_to(CASES, CLS)

m = sp.Symbol("m", integer=True, nonnegative=True)
n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True)
j = sp.Symbol("j", integer=True, positive=True)
x = sp.Symbol("x", real=True)
z = sp.IndexedBase("z", real=True)
X = sp.MatrixSymbol("X", n, n)
DN = Domain(dims=(n,))
# the sizes the numeric route draws or probes (README): a polynomial vanishing on all of them
PROBED = (1, 2, 3, 4, 6, 7, 8, 9, 10, 12, 16, 24, 32, 48, 64)
HIDE_5 = sp.Mul(*[n - s for s in PROBED])


def hide5(k: int) -> int:
    return prod(k - s for s in PROBED)


def fails_only_at(lhs, rhs, special, top=64) -> bool:
    """The claim's truth from exact values at 0..top. With ``special`` given, the claim must fail
    at each of those points (the witness shows them) and the answer is False; without, the
    answer is whether it holds at every point."""
    bad = {k for k in range(0, top + 1) if lhs(k) != rhs(k)}
    if special:
        assert special <= bad, f"expected failures at {sorted(special)}, found {sorted(bad)}"
        return False
    return not bad


# Σ_{i=0}^{m} (−1)^i C(m, i) = (1 − 1)^m = 0^m: 1 at m = 0, 0 after
add("never_alternating_binomial_m0", False,
    lambda: claim("never_alternating_binomial_m0",
                  sp.Sum((-1) ** i * sp.binomial(m, i), (i, 0, m)), 0),
    lambda: fails_only_at(lambda k: sum((-1) ** q * comb(k, q) for q in range(k + 1)),
                          lambda k: 0, {0}))

# the same for a positive size: true (a twin: Σ (−1)^i C(n, i) = 0 for n >= 1)
add("never_alternating_binomial_positive", True,
    lambda: claim("never_alternating_binomial_positive",
                  sp.Sum((-1) ** i * sp.binomial(n, i), (i, 0, n)), 0, DN),
    lambda: all(sum((-1) ** q * comb(k, q) for q in range(k + 1)) == 0 for k in range(1, 65)))

# m! = m · (m − 1)! as products: at m = 0 the empty product 1 against 0 · 1
add("never_product_recursion_m0", False,
    lambda: claim("never_product_recursion_m0", sp.Product(i, (i, 1, m)),
                  m * sp.Product(i, (i, 1, m - 1))),
    lambda: fails_only_at(lambda k: prod(range(1, k + 1)),
                          lambda k: k * prod(range(1, k)), {0}))

# x^m = x · x^(m−1) as products of a constant: 1 against x at m = 0
add("never_product_power_m0", False,
    lambda: claim("never_product_power_m0", sp.Product(x, (i, 1, m)),
                  x * sp.Product(x, (i, 1, m - 1)), Domain(ranges={x: (2, 3)})),
    lambda: fails_only_at(lambda k: Fraction(5, 2) ** k,
                          lambda k: Fraction(5, 2) * Fraction(5, 2) ** max(k - 1, 0), {0}))

# 0^m = 0 only for m >= 1; 0^0 = 1
add("never_zero_power_m0", False,
    lambda: claim("never_zero_power_m0", sp.Integer(0) ** m, 0),
    lambda: fails_only_at(lambda k: 0**k, lambda k: 0, {0}))

# Σ_{i=0}^{m-1} 2^i = 2^m − 1 holds at m = 0 too (0 = 0): a true control
add("never_geometric_m0_true", True,
    lambda: claim("never_geometric_m0_true", sp.Sum(2**i, (i, 0, m - 1)), 2**m - 1),
    lambda: all(sum(2**q for q in range(k)) == 2**k - 1 for k in range(0, 65)))

# Σ_{i=0}^{m} C(m, i) = 2^m at every m >= 0: true
add("never_binomial_row_m0_true", True,
    lambda: claim("never_binomial_row_m0_true", sp.Sum(sp.binomial(m, i), (i, 0, m)), 2**m),
    lambda: all(sum(comb(k, q) for q in range(k + 1)) == 2**k for k in range(0, 65)))

# Σ_{i=0}^{m} i C(m, i) = m 2^(m−1) (at m = 0: 0 = 0): true
add("never_binomial_mean_m0_true", True,
    lambda: claim("never_binomial_mean_m0_true", sp.Sum(i * sp.binomial(m, i), (i, 0, m)),
                  m * 2 ** (m - 1)),
    lambda: all(sum(q * comb(k, q) for q in range(k + 1)) == Fraction(k * 2**k, 2)
                for k in range(0, 65)))

# n = n + Π_{s probed}(n − s): the product vanishes at every size drawn or probed, not at 5
add("never_size5_polynomial", False,
    lambda: claim("never_size5_polynomial", n, n + HIDE_5, DN),
    lambda: fails_only_at(lambda k: k, lambda k: k + hide5(k), {5, 11, 13}))

# a closed form of Σ i² wrong by that polynomial: right at every size looked at, wrong at 5
add("never_size5_sum_of_squares", False,
    lambda: claim("never_size5_sum_of_squares", sp.Sum(i**2, (i, 1, n)),
                  n * (n + 1) * (2 * n + 1) / 6 + HIDE_5, DN),
    lambda: fails_only_at(lambda k: sum(q * q for q in range(1, k + 1)),
                          lambda k: Fraction(k * (k + 1) * (2 * k + 1), 6) + hide5(k),
                          {5, 11}))

# Σ i = n(n+1)/2 + δ(n, 5): wrong exactly at n = 5
add("never_size5_delta", False,
    lambda: claim("never_size5_delta", sp.Sum(i, (i, 1, n)),
                  n * (n + 1) / 2 + sp.KroneckerDelta(n, 5), DN),
    lambda: fails_only_at(lambda k: sum(range(1, k + 1)),
                          lambda k: Fraction(k * (k + 1), 2) + (k == 5), {5}))

# Σ i = n(n+1)/2 + δ(n, 11): 11 lies between the probed 10 and 12
add("never_size11_delta", False,
    lambda: claim("never_size11_delta", sp.Sum(i, (i, 1, n)),
                  n * (n + 1) / 2 + sp.KroneckerDelta(n, 11), DN),
    lambda: fails_only_at(lambda k: sum(range(1, k + 1)),
                          lambda k: Fraction(k * (k + 1), 2) + (k == 11), {11}))


def _matrix_scale_fails(scale, special) -> bool:
    """(scale(n) X = n X) fails exactly at the sizes ``special`` among 1..12 (NumPy)."""
    rng = np.random.default_rng(5)
    bad = set()
    for k in range(1, 13):
        A = rng.normal(size=(k, k))
        if not np.allclose(scale(k) * A, k * A, rtol=1e-12, atol=0):
            bad.add(k)
    return not (bad >= special)


# min(n, 6) X = n X: matrix steps are checked at sizes <= 6 only
add("never_size7_matrix_min", False,
    lambda: claim("never_size7_matrix_min", sp.Min(n, 6) * X, n * X, DN),
    lambda: _matrix_scale_fails(lambda k: min(k, 6), {7, 8, 9, 10, 11, 12}))

# (1 + Π_{s=1,2,3,4,6}(n − s)) X = X ... written as n X against a scale right at 1..4 and 6
add("never_size5_matrix_polynomial", False,
    lambda: claim("never_size5_matrix_polynomial",
                  (n + sp.Mul(*[n - s for s in (1, 2, 3, 4, 6)])) * X, n * X, DN),
    lambda: _matrix_scale_fails(lambda k: k + prod(k - s for s in (1, 2, 3, 4, 6)),
                                {5, 7, 8}))

# ⌊x⌋ = 0 on 0 <= x <= 1: false at the closed end x = 1 alone
add("never_range_end_floor", False,
    lambda: claim("never_range_end_floor", sp.floor(x), 0, Domain(ranges={x: (0, 1)}),
                  hypotheses=(sp.Ge(x, 0), sp.Le(x, 1))),
    lambda: holds(lambda v: mp.floor(v), lambda v: 0, [mp.mpf(1), *pts(0, 1, 6, 3)], dps=50))

def _index_end_fails() -> bool:
    bad = {(k, q) for k in range(1, 9) for q in range(1, k + 1) if 0 ** (k - q) != 0}
    assert bad == {(k, k) for k in range(1, 9)}, bad  # exactly at the end j = n
    return False


# 0^(n − j) = 0 for 1 <= j <= n: false at the index's end j = n
add("never_index_end_zero_power", False,
    lambda: claim("never_index_end_zero_power", sp.Integer(0) ** (n - j), 0,
                  Domain(dims=(n,), indices={j: (1, n)})),
    lambda: _index_end_fails())

# Σ_{i=1}^{m} z_i − Σ_{i=1}^{m−1} z_i = z_m, with m >= 0 an index that may be 0: at m = 0 the
# left side is 0 and the right side z_0
add("never_sum_peel_m0", False,
    lambda: claim("never_sum_peel_m0", sp.Sum(z[i], (i, 1, m)) - sp.Sum(z[i], (i, 1, m - 1)),
                  z[m], Domain(indices={m: (0, 8)})),
    lambda: fails_only_at(lambda k: sum(Fraction(q + 3) for q in range(1, k + 1))
                          - sum(Fraction(q + 3) for q in range(1, k)),
                          lambda k: Fraction(k + 3), {0}, top=8))

# d/dx Σ_{i=0}^{m} x^i = Σ_{i=0}^{m} i x^(i−1): the i = 0 term is 0 · x^(−1) = 0 for x ≠ 0, and
# at m = 0 both sides are 0 — TRUE at every m >= 0 (mp.diff of the sum written out)
add("never_power_sum_derivative_true", True,
    lambda: claim("never_power_sum_derivative_true",
                  sp.Derivative(sp.Sum(x**i, (i, 0, m)), x),
                  sp.Sum(i * x ** (i - 1), (i, 0, m)), Domain(ranges={x: (2, 3)})),
    lambda: all(holds(lambda v, k=k: mp.diff(lambda u: mp.fsum(u**q for q in range(k + 1)), v),
                      lambda v, k=k: mp.fsum(q * v ** (q - 1) for q in range(0, k + 1)),
                      pts(2, 3, 3, k), dps=60) for k in range(0, 12)))
