"""erfc(−100) = 2: the left tail of erfc at its limit.

Expected: FALSE — erfc(−100) = 2 − erfc(100) and erfc(100) ~ 6.4·10^-4346 > 0.
Witness: mpmath's erfc(100) at 60 digits (no cancellation; mpmath's exponent is unbounded).
"""
import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "battery"
TRUTH = False
CLAIMS = [Derivation(
    "cli_bat_erfc_neg_100", "erfc(−100) = 2",
    sp.Eq(sp.erfc(-sp.Integer(100)), 2, evaluate=False), (),
    (Step(sp.Integer(2), "the limit at −∞"),), Domain())]


def witness() -> bool:
    with mp.workdps(60):
        return mp.erfc(100) == 0
