"""conj(e^(it)) = e^(−it) for a symbol with no assumption (so complex).

Expected: FALSE — conj(e^(it)) = e^(−i conj t), which is e^(−it) only for real t.
Witness: mpmath complex arithmetic at seeded points with Im t ≠ 0.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "complex symbols"
TRUTH = False
t = sp.Symbol("t")
CLAIMS = [Derivation(
    "cli_cx_conjugate_rotation", "conj(e^(it)) = e^(−it)",
    sp.Eq(sp.conjugate(sp.exp(sp.I * t)), sp.exp(-sp.I * t), evaluate=False), (),
    (Step(sp.exp(-sp.I * t), "conjugate the exponent"),), Domain())]


def witness() -> bool:
    rng = random.Random(6)
    with mp.workdps(50):
        for _ in range(6):
            v = mp.mpc(rng.uniform(-3, 3), rng.uniform(0.2, 2))
            if abs(mp.conj(mp.exp(1j * v)) - mp.exp(-1j * v)) > mp.mpf(10) ** -40:
                return False
    return True
