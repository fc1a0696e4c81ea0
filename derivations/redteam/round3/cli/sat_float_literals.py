"""tanh x = 1.0 on a range given in floats (200.0, 300.0).

Expected: FALSE — 1 − tanh x = 2/(e^2x + 1) ~ 10^-174 .. 10^-260 (the float 1.0 reads as 1).
Witness: tanh at 400 digits at the ends and seeded points.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "saturation"
TRUTH = False
x = sp.Symbol("x", real=True)
CLAIMS = [Derivation(
    "cli_sat_float_literals", "tanh x = 1.0",
    sp.Eq(sp.tanh(x), sp.Float(1.0), evaluate=False), (),
    (Step(sp.Float(1.0), "saturated"),), Domain(ranges={x: (200.0, 300.0)}))]


def witness() -> bool:
    rng = random.Random(3)
    with mp.workdps(400):
        for v in [mp.mpf(200), mp.mpf(300)] + [mp.mpf(rng.uniform(200, 300)) for _ in range(4)]:
            if abs(mp.tanh(v) - 1) > mp.mpf(10) ** -370:
                return False
    return True
