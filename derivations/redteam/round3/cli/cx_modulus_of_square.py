"""|w²| = w conj(w) for a complex w.

Expected: TRUE — |w²| = |w|² = w conj(w) at every complex w.
Witness: mpmath complex arithmetic at seeded points off the real axis.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "complex symbols"
TRUTH = True
w = sp.Symbol("w", complex=True)
CLAIMS = [Derivation(
    "cli_cx_modulus_of_square", "|w²| = w conj(w)",
    sp.Eq(sp.Abs(w**2), w * sp.conjugate(w), evaluate=False), (),
    (Step(w * sp.conjugate(w), "|w²| = |w|²"),), Domain())]


def witness() -> bool:
    rng = random.Random(7)
    with mp.workdps(50):
        for _ in range(8):
            v = mp.mpc(rng.uniform(-3, 3), rng.uniform(-3, 3))
            if abs(abs(v**2) - v * mp.conj(v)) > mp.mpf(10) ** -40:
                return False
    return True
