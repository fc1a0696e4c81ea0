"""Nicomachus: Σ i³ = (n(n+1)/2)², and a variant by with_step that is wrong only where no size is
drawn or probed (5, 11, 13, ...).

Expected: FALSE — the added polynomial Π_{s ∈ probed}(n − s) vanishes at 1..4, 6..10, 12, 16, 24,
32, 48, 64, not at 5.
Witness: exact integers at n = 1..64; the failure includes n = 5.
"""
from math import prod

import sympy as sp

from derivations import Derivation, Domain, Step, with_step

CLASS = "points never drawn"
TRUTH = False
n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True)
PROBED = (1, 2, 3, 4, 6, 7, 8, 9, 10, 12, 16, 24, 32, 48, 64)
RIGHT = Derivation(
    "cli_nicomachus", "Σ i³ = (n(n+1)/2)²",
    sp.Eq(sp.Sum(i**3, (i, 1, n)), (n * (n + 1) / 2) ** 2, evaluate=False), (),
    (Step((n * (n + 1) / 2) ** 2, "Nicomachus"),), Domain(dims=(n,)))
CLAIMS = [with_step(RIGHT, 1, (n * (n + 1) / 2) ** 2 + sp.Mul(*[n - s for s in PROBED]),
                    id="cli_never_size5_with_step")]


def witness() -> bool:
    bad = [k for k in range(1, 65) if sum(q**3 for q in range(1, k + 1))
           != (k * (k + 1) // 2) ** 2 + prod(k - s for s in PROBED)]
    assert 5 in bad and not set(bad) & set(PROBED), bad
    return False
