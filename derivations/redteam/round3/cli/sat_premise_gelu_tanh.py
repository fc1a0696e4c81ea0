"""GELU's tanh form is the identity "because tanh saturates" — a premise false at every point.

Expected: FALSE — x − GELU_tanh(x) = x/(1 + e^(2u)) with u ≥ 132 on (15, 25): ~ 10^-114, not 0;
and tanh u < 1 for every real u.
Witness: both sides at 1500 digits at the ends and seeded points.
"""
import random

import mpmath as mp
import sympy as sp

from derivations import Assumption, Derivation, Domain, Step

CLASS = "saturation"
TRUTH = False
x = sp.Symbol("x", real=True)
W = sp.Wild("W")
U = sp.sqrt(2 / sp.pi) * (x + sp.Rational(44715, 10**6) * x**3)
SAT = Assumption("tanh saturates", "tanh u = 1 for large u", rewrites=((sp.tanh(W), 1),))
CLAIMS = [Derivation(
    "cli_sat_premise_gelu_tanh", "GELU_tanh(x) = x for large x",
    sp.Eq(x / 2 * (1 + sp.tanh(U)), x, evaluate=False), (SAT,),
    (Step(x, "tanh saturates", ("tanh saturates",)),), Domain(ranges={x: (15, 25)}))]


def witness() -> bool:
    rng = random.Random(2)
    with mp.workdps(1500):
        for v in [mp.mpf(15), mp.mpf(25)] + [mp.mpf(rng.uniform(15, 25)) for _ in range(4)]:
            u = mp.sqrt(2 / mp.pi) * (v + mp.mpf(44715) / 10**6 * v**3)
            if abs(v / 2 * (1 + mp.tanh(u)) - v) > mp.mpf(10) ** -1400:
                return False
    return True
