"""A claim citing a lemma of the same file that is false and only numerically checked.

Expected: FALSE — 1 − tanh² x = sech² x ~ 10^-174 .. 10^-260 on (200, 300), not 0; the lemma
tanh x = 1 it cites is false too (tanh u < 1 for every real u).
Witness: 1 − tanh² x at 800 digits at the ends and seeded points.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step, lemma

CLASS = "chains of trust"
TRUTH = False
x = sp.Symbol("x", real=True)
SAT = Domain(ranges={x: (200, 300)})
TANH_ONE = Derivation("cli_lemma_tanh_one", "tanh x = 1 for large x",
                      sp.Eq(sp.tanh(x), 1, evaluate=False), (),
                      (Step(sp.Integer(1), "saturated"),), SAT)
CLAIMS = [Derivation(
    "cli_trust_lemma_in_file", "1 − tanh² x = 0 for large x",
    sp.Eq(1 - sp.tanh(x) ** 2, 0, evaluate=False), (lemma(TANH_ONE),),
    (Step(sp.Integer(0), "by the lemma", ("cli_lemma_tanh_one",)),), SAT)]


def witness() -> bool:
    rng = random.Random(8)
    with mp.workdps(800):
        for v in [mp.mpf(200), mp.mpf(300)] + [mp.mpf(rng.uniform(200, 300)) for _ in range(4)]:
            if abs(1 - mp.tanh(v) ** 2) > mp.mpf(10) ** -700:
                return False
    return True
