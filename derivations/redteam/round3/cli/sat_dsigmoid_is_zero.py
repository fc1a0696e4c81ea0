"""The logistic function's slope, written with tanh, called 0 where it saturates.

Expected: FALSE — σ'(x) = σ(x)(1 − σ(x)) ~ e^-x ~ 10^-174 .. 10^-260 on (400, 600), not 0.
Witness: mp.diff of (1 + tanh(x/2))/2 at 400 digits at the ends and seeded points.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "saturation"
TRUTH = False
x = sp.Symbol("x", real=True)
CLAIMS = [Derivation(
    "cli_sat_dsigmoid_is_zero", "σ'(x) = 0 for large x",
    sp.Eq(sp.Derivative((1 + sp.tanh(x / 2)) / 2, x), 0, evaluate=False), (),
    (Step(sp.Integer(0), "σ is flat out there"),), Domain(ranges={x: (400, 600)}))]


def witness() -> bool:
    rng = random.Random(1)
    with mp.workdps(400):
        for v in [mp.mpf(400), mp.mpf(600)] + [mp.mpf(rng.uniform(400, 600)) for _ in range(4)]:
            if abs(mp.diff(lambda u: (1 + mp.tanh(u / 2)) / 2, v)) > mp.mpf(10) ** -370:
                return False
    return True
