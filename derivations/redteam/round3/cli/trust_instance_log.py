"""log(s²) = 2 log s, proved for s > 0, cited at s = x for a real x of either sign.

Expected: FALSE — for x < 0, log(x²) is real while 2 log x = 2 log|x| + 2πi.
Witness: mpmath at seeded x of both signs.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step, instance

CLASS = "chains of trust"
TRUTH = False
s = sp.Symbol("s", positive=True)
x = sp.Symbol("x", real=True)
LOG_SQUARE = Derivation("cli_lemma_log_square", "log(s²) = 2 log s for s > 0",
                        sp.Eq(sp.log(s**2), 2 * sp.log(s), evaluate=False), (),
                        (Step(2 * sp.log(s), "log of a power"),), Domain())
AT_X = instance(LOG_SQUARE, {s: x}, "x is positive")
CLAIMS = [Derivation(
    "cli_trust_instance_log", "log(x²) = 2 log x",
    sp.Eq(sp.log(x**2), 2 * sp.log(x), evaluate=False), (AT_X,),
    (Step(2 * sp.log(x), "the lemma at s = x", (AT_X.name,)),), Domain())]


def witness() -> bool:
    rng = random.Random(9)
    with mp.workdps(50):
        for _ in range(8):
            v = mp.mpf(rng.uniform(-50, 50))
            if abs(mp.log(v**2) - 2 * mp.log(v)) > mp.mpf(10) ** -40:
                return False
    return True
