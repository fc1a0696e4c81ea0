"""Jumps no root in one symbol reaches: from the fifth outside round, the cases left open then —
an argument that touches 0 without changing sign (1 − cos(x − 1/3)), that is 0 only where two
symbols meet ((x − π)² + (y − e)², in a step and in a premise), and arguments in one symbol each
whose roots only together decide (Max(|x − π|, |y − e|), a Piecewise covering all but (π, e)).
Beside each kind, a true twin that holds there as well.  Each case is confirmed with mpmath.
"""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Step
from derivations.redteam.own.common import case
from derivations.redteam.own.phases import claim, hp

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
R = sp.Rational
SQUARES = (x - sp.pi) ** 2 + (y - sp.E) ** 2


def _at_pi_e(f):
    """f(π, e) and f beside it, in mpmath: the witness that (π, e) alone decides."""
    with hp():
        return f(mp.pi, mp.e), f(mp.pi + mp.mpf("1e-30"), mp.e)


@case("WJ01_tangent_transcendental", False, "1 - cos(x - 1/3) = 0 at x = 1/3: sign(0)^2 = 0")
def _():
    def chk():
        with hp():
            v = 1 - mp.cos(mp.mpf(1) / 3 - mp.mpf(1) / 3)
            near = min(1 - mp.cos(u) for u in mp.linspace(-0.1, 0.1, 41) if u != 0)
        return v == 0 and near > 0, f"value at 1/3: {v}; positive elsewhere near it"
    return (lambda: claim("WJ01_tangent_transcendental", sp.sign(1 - sp.cos(x - R(1, 3))) ** 2,
                          sp.Integer(1)), chk)


@case("WJ02_sign_two_symbols", False, "(x - pi)^2 + (y - e)^2 = 0 at (pi, e) only")
def _():
    def chk():
        at, beside = _at_pi_e(lambda u, w: (u - mp.pi) ** 2 + (w - mp.e) ** 2)
        return at == 0 and beside > 0, f"{at} at (pi, e), {mp.nstr(beside, 3)} beside"
    return (lambda: claim("WJ02_sign_two_symbols", sp.sign(SQUARES) ** 2, sp.Integer(1)), chk)


@case("WJ03_heaviside_two_symbols", False, "H(-(x-pi)^2-(y-e)^2) = 1/2 at (pi, e), else 0")
def _():
    def chk():
        at, _ = _at_pi_e(lambda u, w: -(u - mp.pi) ** 2 - (w - mp.e) ** 2)
        return at == 0, "argument 0 at (pi, e): H(0) = 1/2 != 0"
    return (lambda: claim("WJ03_heaviside_two_symbols", sp.Heaviside(-SQUARES), sp.Integer(0)),
            chk)


@case("WJ04_max_of_two_kinks", False, "Max(|x - pi|, |y - e|) = 0 at (pi, e): sign(0)^2 = 0")
def _():
    def chk():
        at, beside = _at_pi_e(lambda u, w: max(abs(u - mp.pi), abs(w - mp.e)))
        return at == 0 and beside > 0, f"{at} at (pi, e)"
    e = sp.sign(sp.Max(sp.Abs(x - sp.pi), sp.Abs(y - sp.E))) ** 2
    return (lambda: claim("WJ04_max_of_two_kinks", e, sp.Integer(1)), chk)


@case("WJ05_piecewise_or_two_symbols", False, "no condition holds at (pi, e): 0 != 1")
def _():
    def chk():
        with hp():
            u, w = mp.pi, mp.e
            held = (u < mp.pi) or (u > mp.pi) or (w < mp.e) or (w > mp.e)
        return not held, "x < pi, x > pi, y < e, y > e all false at (pi, e)"
    pw = sp.Piecewise((1, (x < sp.pi) | (x > sp.pi) | (y < sp.E) | (y > sp.E)), (0, True))
    return (lambda: claim("WJ05_piecewise_or_two_symbols", pw, sp.Integer(1)), chk)


@case("WJ06_premise_two_symbols", False, "premise sign(..)^2 -> 1 false only at (pi, e)")
def _():
    s2 = sp.sign(SQUARES) ** 2

    def build():
        off = Assumption("off the point", "(x, y) is never (pi, e)",
                         rewrites=((s2, sp.Integer(1)),))
        return Derivation("WJ06_premise_two_symbols", "WJ06_premise_two_symbols",
                          sp.Eq(s2 + 1, 2, evaluate=False), (off,),
                          (Step(sp.Integer(2), "off the point", by=("off the point",)),),
                          Domain())

    def chk():
        at, _ = _at_pi_e(lambda u, w: mp.sign((u - mp.pi) ** 2 + (w - mp.e) ** 2) ** 2 + 1)
        return at == 1, "(x, y) = (pi, e): 0 + 1 != 2"
    return (build, chk)


@case("TWJ01_tangent_lifted", True, "1 - cos(x - 1/3) + 10^-6 > 0 everywhere")
def _():
    def chk():
        with hp():
            low = min(1 - mp.cos(u) for u in mp.linspace(-4, 4, 801))
        return low + mp.mpf("1e-6") > 0, f"min of 1 - cos >= {mp.nstr(low, 3)}"
    e = sp.sign(1 - sp.cos(x - R(1, 3)) + R(1, 10**6)) ** 2
    return (lambda: claim("TWJ01_tangent_lifted", e, sp.Integer(1)), chk)


@case("TWJ02_sign_times_squares", True, "sign(q) q = q for q = (x-pi)^2 + (y-e)^2 >= 0")
def _():
    def chk():
        at, beside = _at_pi_e(lambda u, w: (u - mp.pi) ** 2 + (w - mp.e) ** 2)
        return at == 0 and beside > 0, "q >= 0, so sign(q) q = |q| = q"
    return (lambda: claim("TWJ02_sign_times_squares", sp.sign(SQUARES) * SQUARES, SQUARES), chk)


@case("TWJ03_piecewise_closed", True, "x <= pi or x > pi always holds")
def _():
    def chk():
        with hp():
            u = mp.pi
        return (u <= mp.pi) or (u > mp.pi), "a condition and its complement"
    pw = sp.Piecewise((1, (x <= sp.pi) | (x > sp.pi) | (y < sp.E)), (0, True))
    return (lambda: claim("TWJ03_piecewise_closed", pw, sp.Integer(1)), chk)
