"""Γ(−100.5) = 0: "Γ tends to 0 between its poles as x → −∞".

Expected: FALSE — |Γ(−100.5)| = π/(Γ(101.5) |sin(π·101.5)|) ~ 10^-159, a small value, not 0.
Witness: mpmath's gamma at 60 digits.
"""
import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "battery"
TRUTH = False
CLAIMS = [Derivation(
    "cli_bat_gamma_half_100", "Γ(−100.5) = 0",
    sp.Eq(sp.gamma(-sp.Integer(100) - sp.Rational(1, 2)), 0, evaluate=False), (),
    (Step(sp.Integer(0), "the limit between the poles"),), Domain())]


def witness() -> bool:
    with mp.workdps(60):
        return mp.gamma(mp.mpf(-201) / 2) == 0
