"""The Adam bias correction at step t = 10^6 with β2 = 0.9995 written as a decimal literal.

Expected: FALSE — v/(1 − 0.9995^(10^6)) − v = v 0.9995^N/(1 − 0.9995^N) with
0.9995^(10^6) = e^(−500.1) ~ 10^-217: relative gap 10^-217, not 0.
Witness: mpmath at 400 digits at v = 1, 2 and seeded points.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "time"
TRUTH = False
v = sp.Symbol("v", positive=True)
CLAIMS = [Derivation(
    "cli_sat_adam_saturated_denominator", "v̂ = v at t = 10^6",
    sp.Eq(v / (1 - sp.Float("0.9995") ** (10**6)), v, evaluate=False), (),
    (Step(v, "the correction is 1"),), Domain(ranges={v: (1, 2)}))]


def witness() -> bool:
    rng = random.Random(14)
    with mp.workdps(400):
        c = 1 - (mp.mpf(9995) / 10000) ** (10**6)
        for u in [mp.mpf(1), mp.mpf(2)] + [mp.mpf(rng.uniform(1, 2)) for _ in range(3)]:
            if abs(u / c - u) > mp.mpf(10) ** -370:
                return False
    return True
