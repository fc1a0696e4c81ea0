"""2^m = 2 · 2^(m−1) written as products, for m ≥ 0.

Expected: FALSE at m = 0 only — the empty product Π_{i=1}^{0} 2 = 1, the right side 2 · (empty) = 2.
Witness: exact integers for m = 0..64; the failure is at m = 0.
"""
from math import prod

import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "points never drawn"
TRUTH = False
m = sp.Symbol("m", integer=True, nonnegative=True)
i = sp.Symbol("i", integer=True)
CLAIMS = [Derivation(
    "cli_never_product_of_twos_m0", "Π 2 = 2 Π 2",
    sp.Eq(sp.Product(2, (i, 1, m)), 2 * sp.Product(2, (i, 1, m - 1)), evaluate=False), (),
    (Step(2 * sp.Product(2, (i, 1, m - 1)), "peel the last factor"),), Domain())]


def witness() -> bool:
    bad = [k for k in range(65) if prod([2] * k) != 2 * prod([2] * max(k - 1, 0))]
    assert bad == [0], bad
    return False
