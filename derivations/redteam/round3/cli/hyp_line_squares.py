"""a² + b² = 1 − 2ab on the line a + b = 1 (an equality hypothesis).

Expected: TRUE — (a + b)² = 1 gives a² + b² = 1 − 2ab wherever a + b = 1.
Witness: points (a, 1 − a) for seeded a in (−100, 100), mpmath at 60 digits.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "hypotheses"
TRUTH = True
a, b = sp.symbols("a b", real=True)
CLAIMS = [Derivation(
    "cli_hyp_line_squares", "a² + b² = 1 − 2ab when a + b = 1",
    sp.Eq(a**2 + b**2, 1 - 2 * a * b, evaluate=False), (),
    (Step(1 - 2 * a * b, "(a + b)² = 1"),), Domain(), hypotheses=(sp.Eq(a + b, 1),))]


def witness() -> bool:
    rng = random.Random(10)
    with mp.workdps(60):
        for _ in range(10):
            u = mp.mpf(rng.uniform(-100, 100))
            v = 1 - u
            if abs(u**2 + v**2 - (1 - 2 * u * v)) > mp.mpf(10) ** -50 * (1 + u**2):
                return False
    return True
