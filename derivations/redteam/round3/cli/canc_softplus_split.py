"""softplus(x) = x + softplus(−x): log(1 + e^x) = x + log(1 + e^-x).

Expected: TRUE — log(1 + e^x) = log(e^x (e^-x + 1)) = x + log(1 + e^-x). On (300, 500) the right
side's last term is ~ 10^-131 .. 10^-218, below the 50 digits of x.
Witness: both sides at 800 digits, relative to 10^-300.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "cancellation"
TRUTH = True
x = sp.Symbol("x", real=True)
CLAIMS = [Derivation(
    "cli_canc_softplus_split", "softplus(x) = x + softplus(−x)",
    sp.Eq(sp.log(1 + sp.exp(x)) - x, sp.log(1 + sp.exp(-x)), evaluate=False), (),
    (Step(sp.log(1 + sp.exp(-x)), "factor e^x out of the logarithm"),),
    Domain(ranges={x: (300, 500)}))]


def witness() -> bool:
    rng = random.Random(4)
    with mp.workdps(800):
        for v in [mp.mpf(300), mp.mpf(500)] + [mp.mpf(rng.uniform(300, 500)) for _ in range(4)]:
            a, b = mp.log(1 + mp.exp(v)) - v, mp.log(1 + mp.exp(-v))
            if abs(a - b) > mp.mpf(10) ** -300 * abs(b):
                return False
    return True
