"""Deviations from the mean sum to zero: Σ_k (x_k − (1/d) Σ_l x_l) = 0, for a symbolic width d.

Expected: TRUE — Σ_k x_k − d · (1/d) Σ_l x_l = 0.
Witness: mpmath at seeded vectors of sizes 1..8.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "incompleteness"
TRUTH = True
d = sp.Symbol("d", integer=True, positive=True)
k, l = sp.symbols("k l", integer=True, positive=True)
x = sp.IndexedBase("x", real=True)
CLAIMS = [Derivation(
    "cli_inc_layernorm_centred_sum", "Σ (x_k − μ) = 0",
    sp.Eq(sp.Sum(x[k] - sp.Sum(x[l], (l, 1, d)) / d, (k, 1, d)), 0, evaluate=False), (),
    (Step(sp.Integer(0), "d μ = Σ x"),), Domain(dims=(d,)))]


def witness() -> bool:
    rng = random.Random(13)
    with mp.workdps(50):
        for size in range(1, 9):
            xs = [mp.mpf(rng.uniform(-5, 5)) for _ in range(size)]
            mu = mp.fsum(xs) / size
            if abs(mp.fsum(v - mu for v in xs)) > mp.mpf(10) ** -45:
                return False
    return True
