"""Σ_{k=1}^{100000} k = 5000050000, a concrete sum of 10^5 terms.

Expected: TRUE — Gauss: n(n+1)/2 at n = 10^5.
Witness: Python's exact integer sum.
"""
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "time"
TRUTH = True
k = sp.Symbol("k", integer=True, positive=True)
CLAIMS = [Derivation(
    "cli_time_gauss_sum_1e5", "Σ k to 10^5",
    sp.Eq(sp.Sum(k, (k, 1, 10**5)), sp.Integer(5000050000), evaluate=False), (),
    (Step(sp.Integer(5000050000), "n(n+1)/2"),), Domain())]


def witness() -> bool:
    return sum(range(1, 10**5 + 1)) == 5000050000
