"""erf x − 1 = −erfc x (the definition of erfc), on (20, 50) where the left side cancels.

Expected: TRUE — erfc = 1 − erf by definition; 1 − erf(50) cancels 1088 digits.
Witness: both sides at 1500 digits, relative to 10^-300.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "cancellation"
TRUTH = True
x = sp.Symbol("x", real=True)
CLAIMS = [Derivation(
    "cli_canc_erf_complement", "erf x − 1 = −erfc x",
    sp.Eq(sp.erf(x) - 1, -sp.erfc(x), evaluate=False), (),
    (Step(-sp.erfc(x), "the definition of erfc"),), Domain(ranges={x: (20, 50)}))]


def witness() -> bool:
    rng = random.Random(5)
    with mp.workdps(1500):
        for v in [mp.mpf(20), mp.mpf(50)] + [mp.mpf(rng.uniform(20, 50)) for _ in range(4)]:
            a, b = mp.erf(v) - 1, -mp.erfc(v)
            if abs(a - b) > mp.mpf(10) ** -300 * abs(b):
                return False
    return True
