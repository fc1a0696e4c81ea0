"""Past the numeric route's reach, a second round: limits whose period is past the residues it
evaluates or cannot be read, jumps of an oscillating argument, and jumps off the lattice of
integers and halves (1/3, −1/21, √2).  Each false case with a true twin near it."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import sympy as sp

from derivations.redteam.own.common import (
    H,
    Mod,
    case,
    claim,
    lim,
    n,
    py_heaviside,
    py_sign,
    seq_no_limit,
    x,
)

THIRD = sp.Rational(1, 3)


def _period_case(cid, body, period, hit, f, note):
    @case(cid, False, note)
    def _():
        return (lambda: claim(cid, lim(body), sp.Integer(0)),
                lambda: seq_no_limit(f, [("r0", lambda m: period * m),
                                         (f"r{hit}", lambda m: period * m + hit)]))


_period_case("R01_heaviside_mod_2003", H(Mod(n, 2003) - 2001), 2003, 2002,
             lambda N: py_heaviside(N % 2003 - 2001), "1 at n ≡ 2002 (mod 2003), else 0 or 1/2")
_period_case("R02_heaviside_mod_n2_1e6", H(Mod(n ** 2, 10 ** 6) - 999000), 10 ** 6, 1414,
             lambda N: py_heaviside(N * N % 10 ** 6 - 999000), "n² mod 10⁶ > 999000 at n = 1414")
_period_case("R03_two_coprime_periods", H(Mod(n, 61) - 59) * H(Mod(n, 59) - 57), 3599, 3598,
             lambda N: py_heaviside(N % 61 - 59) * py_heaviside(N % 59 - 57),
             "both steps are 1 at n ≡ −1 (mod 3599)")
_period_case("R04_floor_difference_2003", sp.floor(n / 2003) - sp.floor((n - 2) / 2003), 2003, 5,
             lambda N: N // 2003 - (N - 2) // 2003, "1 for n ≡ 0, 1 (mod 2003), 0 at n ≡ 5")
_period_case("R05_heaviside_mod_4001", H(Mod(n, 4001) - 3990), 4001, 4000,
             lambda N: py_heaviside(N % 4001 - 3990), "1 on the residues 3991..4000")
_period_case("R06_scaled_mod_2003", (1 + 1 / n) * H(Mod(n, 2003) - 2001), 2003, 2002,
             lambda N: (1 + mp.mpf(1) / N) * py_heaviside(N % 2003 - 2001), "no limit")


def _frac_sqrt2(N):
    with mp.workdps(80):
        v = N * mp.sqrt(2)
        return v - mp.floor(v)


@case("R07_frac_sqrt2_thin", False, "frac(n√2) is equidistributed: above 9/10 infinitely often")
def _():
    big = 10 ** 20
    hits = [py_heaviside(_frac_sqrt2(big + r) - mp.mpf(9) / 10) for r in range(200)]
    return (lambda: claim("R07_frac_sqrt2_thin",
                          lim(H(sp.frac(n * sp.sqrt(2)) - sp.Rational(9, 10))), sp.Integer(0)),
            lambda: (1.0 in hits and 0.0 in hits, f"n = 10^20 + r, r < 200: values {set(hits)}"))


@case("R08_one_minus_frac_to_the_n", False, "(1 − frac(n√2))^n is near 0.7 at √2's convergents")
def _():
    # the denominators q of √2's convergents have |q√2 − p| < 1/(2q): where frac(q√2) is the
    # small side, (1 − frac)^q stays near e^(−1/(2√2)) ≈ 0.70, out to every size
    qs = [1, 2]
    while qs[-1] < 10 ** 12:
        qs.append(2 * qs[-1] + qs[-2])
    pell = [q for q in qs[4:] if _frac_sqrt2(q) < 0.5]
    values = [(1 - _frac_sqrt2(p)) ** p for p in pell]
    return (lambda: claim("R08_one_minus_frac_to_the_n", lim((1 - sp.frac(n * sp.sqrt(2))) ** n),
                          sp.Integer(0)),
            lambda: (bool(values) and min(values) > 0.5, f"at Pell numbers {pell}: {values}"))


@case("R09_real_frac_step", False, "Heaviside(frac(t) − 99/100) is 1 just below every integer")
def _():
    t = sp.Symbol("t", positive=True)
    return (lambda: claim("R09_real_frac_step",
                          sp.Limit(H(sp.frac(t) - sp.Rational(99, 100)), t, sp.oo), sp.Integer(0)),
            lambda: (py_heaviside(Fraction(995, 1000) - Fraction(99, 100)) == 1,
                     "t = k + 0.995 for every k: the step is 1"))


@case("TR01_floor_seven", True)
def _():
    return (lambda: claim("TR01_floor_seven", lim(7 * sp.floor(n / 7) / n), sp.Integer(1)),
            lambda: (max(abs(Fraction(7 * (N // 7), N) - 1) for N in range(10 ** 9, 10 ** 9 + 7))
                     <= Fraction(6, 10 ** 9), "|7⌊n/7⌋/n − 1| ≤ 6/n"))


@case("TR02_heaviside_below_its_modulus", True)
def _():
    return (lambda: claim("TR02_heaviside_below_its_modulus", lim(H(Mod(n, 1999) - 2000)),
                          sp.Integer(0)),
            lambda: (all(py_heaviside(r - 2000) == 0 for r in range(1999)),
                     "Mod(n, 1999) ≤ 1998 < 2000: the step is 0 at every n"))


@case("TR03_sin_n_over_n", True)
def _():
    return (lambda: claim("TR03_sin_n_over_n", lim(sp.sin(n) / n), sp.Integer(0)),
            lambda: (abs(mp.sin(10 ** 12) / 10 ** 12) <= mp.mpf(10) ** -12, "|sin n / n| ≤ 1/n"))


# ---- jumps off the lattice
def _fr_floor(q):
    return math.floor(q)


@case("J01_frac_pair_at_minus_1_21", False, "frac(3x+1/7)+frac(−3x−1/7) is 0 at x = −1/21")
def _():
    q = Fraction(-1, 21)
    u, v = 3 * q + Fraction(1, 7), -3 * q - Fraction(1, 7)
    lhs = (u - _fr_floor(u)) + (v - _fr_floor(v))
    return (lambda: claim("J01_frac_pair_at_minus_1_21",
                          sp.frac(3 * x + sp.Rational(1, 7)) + sp.frac(-3 * x - sp.Rational(1, 7)),
                          sp.Integer(1)),
            lambda: (lhs != 1, f"x = −1/21: {lhs}"))


@case("J02_sign_squared_at_a_third", False, "sign(x − 1/3)² is 0 at x = 1/3")
def _():
    return (lambda: claim("J02_sign_squared_at_a_third", sp.sign(x - THIRD) ** 2, sp.Integer(1)),
            lambda: (py_sign(0) ** 2 != 1, "x = 1/3: sign(0)² = 0"))


@case("J03_ceiling_floor_at_thirds", False, "⌈x + 1/3⌉ = ⌊x + 1/3⌋ at x = 2/3")
def _():
    w = Fraction(2, 3) + Fraction(1, 3)
    return (lambda: claim("J03_ceiling_floor_at_thirds", sp.ceiling(x + THIRD),
                          sp.floor(x + THIRD) + 1),
            lambda: (math.ceil(w) != math.floor(w) + 1, f"x = 2/3: x + 1/3 = {w}"))


@case("J04_heaviside_idempotent_at_sqrt2", False, "H(x² − 2)² is 1/4, not 1/2, at x = √2")
def _():
    return (lambda: claim("J04_heaviside_idempotent_at_sqrt2", H(x ** 2 - 2) ** 2, H(x ** 2 - 2)),
            lambda: (py_heaviside(0) ** 2 != py_heaviside(0), "x = √2: H(0) = 1/2"))


@case("TJ01_sign_times_argument", True)
def _():
    pts = [Fraction(1, 3), Fraction(-2, 7), Fraction(5, 2)]
    return (lambda: claim("TJ01_sign_times_argument", sp.sign(x - THIRD) * (x - THIRD),
                          sp.Abs(x - THIRD)),
            lambda: (all(py_sign(p - Fraction(1, 3)) * (p - Fraction(1, 3)) ==
                         abs(p - Fraction(1, 3)) for p in pts), "at 1/3, −2/7, 5/2"))


@case("TJ02_heaviside_times_argument", True)
def _():
    with mp.workdps(40):
        pts = [mp.sqrt(2), -mp.sqrt(2), mp.mpf(3), mp.mpf("0.5")]
        ok = all(abs(py_heaviside(p * p - 2) * (p * p - 2) - max(p * p - 2, 0)) < 1e-30
                 for p in pts)
    return (lambda: claim("TJ02_heaviside_times_argument", H(x ** 2 - 2) * (x ** 2 - 2),
                          sp.Max(x ** 2 - 2, 0)),
            lambda: (ok, "at ±√2, 3, 1/2"))
