"""⌊x/1000⌋ = 1 under the hypothesis x > 1000, drawn on (1000, 5000).

Expected: FALSE — ⌊x/1000⌋ = 2, 3, 4 for x ≥ 2000.
Witness: mpmath floor at x = 2000, 3500, 4999 and seeded points.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "hypotheses"
TRUTH = False
x = sp.Symbol("x", real=True)
CLAIMS = [Derivation(
    "cli_hyp_gt1000_floor", "⌊x/1000⌋ = 1 above 1000",
    sp.Eq(sp.floor(x / 1000), 1, evaluate=False), (),
    (Step(sp.Integer(1), "x is in the thousands"),), Domain(ranges={x: (1000, 5000)}),
    hypotheses=(sp.Gt(x, 1000),))]


def witness() -> bool:
    rng = random.Random(11)
    pts = [mp.mpf(2000), mp.mpf(3500), mp.mpf(4999)] + [mp.mpf(rng.uniform(1000, 5000))
                                                        for _ in range(4)]
    return all(mp.floor(v / 1000) == 1 for v in pts)
