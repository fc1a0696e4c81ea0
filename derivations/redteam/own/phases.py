"""A fourth round by an outside reviewer: what a finite sample cannot see.

Limits decided by the phase of an oscillating part (1/(1 + n² sin² n) is near 1 at n = 355, the
convergents of π), jumps at transcendental roots (sign(eˣ − 2) at log 2, Heaviside(sin x − 1/2)
at π/6), bumps between two roots, sizes about an integer constant (Σ δ(k, 70)), and premises
under the claim's hypotheses.  Each case is confirmed with mpmath, Python integers or fractions.
The round's cases that still fool the numeric route (a single late term of a series, a bump
narrower than the quadrature's grid, log log n's plateau) are the README's known limits.
"""

from __future__ import annotations

from fractions import Fraction  # noqa: F401 - used by some confirmations

import mpmath as mp
import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Step
from derivations.redteam.own.common import case

n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
j = sp.Symbol("j", integer=True, positive=True)
x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
H = sp.Heaviside
PI_CONV = [
    355,
    103993,
    104348,
    208341,
    312689,
    833719,
    1146408,
    5419351,
    80143857,
    165707065,
    411557987,
    1068966896,
    6167950454,
    21053343141,
]  # numerators of convergents of π


def claim(cid, lhs, rhs, dom=None, hyp=(), assumptions=(), by=()):
    return Derivation(
        cid,
        cid,
        sp.Eq(lhs, rhs, evaluate=False),
        tuple(assumptions),
        (Step(rhs, "claimed", by=tuple(by)),),
        dom if dom is not None else Domain(),
        hypotheses=tuple(hyp),
    )


def lim(e, v=n, pt=sp.oo, d="+"):
    return sp.Limit(e, v, pt, d)


def hp(dps=80):
    return mp.workdps(dps)


@case(
    "QL01_peak_exp_n2_sin2",
    False,
    "exp(-n^2 sin^2 n) is > e^-pi^2 at every convergent numerator p of pi",
)
def _():
    def chk():
        with hp():
            v = [(p, mp.nstr(mp.exp(-((p * mp.sin(p)) ** 2)), 6)) for p in PI_CONV]
        return (all(mp.mpf(s) > mp.exp(-(mp.pi**2)) for _, s in v), f"n -> value: {v}")

    return (
        lambda: claim(
            "QL01_peak_exp_n2_sin2", lim(sp.exp(-(n**2) * sp.sin(n) ** 2)), sp.Integer(0)
        ),
        chk,
    )


@case("QL02_cos_pow_2n", False, "cos(p)^(2p) -> 1 along convergent numerators p of pi")
def _():
    def chk():
        with hp():
            v = [(p, mp.nstr(mp.cos(p) ** (2 * p), 10)) for p in PI_CONV]
        return (all(mp.mpf(s) > mp.mpf("0.99") for _, s in v), f"n -> value: {v}")

    return (lambda: claim("QL02_cos_pow_2n", lim(sp.cos(n) ** (2 * n)), sp.Integer(0)), chk)


@case("QL03_real_cos2_pow_x", False, "(cos^2 x)^x = 1 at every x = k pi")
def _():
    def chk():
        with hp():
            v = [
                (kk, mp.nstr((mp.cos(kk * mp.pi) ** 2) ** (kk * mp.pi), 10))
                for kk in (10**6, 10**9, 10**12)
            ]
        return (all(abs(mp.mpf(s) - 1) < mp.mpf(10) ** -8 for _, s in v), f"x=k pi -> {v}")

    return (
        lambda: claim("QL03_real_cos2_pow_x", lim((sp.cos(x) ** 2) ** x, x), sp.Integer(0)),
        chk,
    )


@case("QL04_zero_bump_max", False, "Max(0, 1-|sin(1/x)|/x^2) = 1 at x = 1/(k pi)")
def _():
    def chk():
        with hp():
            v = [
                (kk, mp.nstr(max(0, 1 - abs(mp.sin(kk * mp.pi)) * (kk * mp.pi) ** 2), 10))
                for kk in (10**5, 10**10)
            ]
        return (
            all(abs(mp.mpf(s) - 1) < mp.mpf(10) ** -8 for _, s in v),
            f"k -> value at x=1/(k pi): {v}",
        )

    return (
        lambda: claim(
            "QL04_zero_bump_max",
            lim(sp.Max(0, 1 - sp.Abs(sp.sin(1 / x)) / x**2), x, 0),
            sp.Integer(0),
        ),
        chk,
    )


@case("QL05_zero_bump_exp", False, "exp(-sin(1/x)^2/x^4) = 1 at x = 1/(k pi)")
def _():
    def chk():
        with hp(200):
            v = [
                (kk, mp.nstr(mp.exp(-(mp.sin(kk * mp.pi) ** 2) * (kk * mp.pi) ** 4), 10))
                for kk in (10**5, 10**10)
            ]
        return (
            all(abs(mp.mpf(s) - 1) < mp.mpf(10) ** -8 for _, s in v),
            f"k -> value at x=1/(k pi): {v}",
        )

    return (
        lambda: claim(
            "QL05_zero_bump_exp", lim(sp.exp(-(sp.sin(1 / x) ** 2) / x**4), x, 0), sp.Integer(0)
        ),
        chk,
    )


@case("TQL01_x_floor_1_over_x", True, "x floor(1/x) in (1-x, 1] for x>0")
def _():
    def chk():
        with hp():
            v = [
                mp.mpf(1) / t * mp.floor(t)
                for t in (mp.mpf(10) ** 30 + mp.pi, mp.mpf(10) ** 40 + mp.e)
            ]
        return (
            all(abs(u - 1) < mp.mpf(10) ** -25 for u in v),
            f"values {[mp.nstr(u, 30) for u in v]}",
        )

    return (
        lambda: claim("TQL01_x_floor_1_over_x", lim(x * sp.floor(1 / x), x, 0), sp.Integer(1)),
        chk,
    )


@case("TQL02_floor_left_limit", True, "floor(x) = -1 on (-1, 0): the left limit at 0 is -1")
def _():
    return (
        lambda: claim("TQL02_floor_left_limit", lim(sp.floor(x), x, 0, "-"), sp.Integer(-1)),
        lambda: (mp.floor(-(mp.mpf(10) ** -30)) == -1, "floor(-1e-30) = -1"),
    )


@case("TQL03_sign_left_limit", True, "sign(x) = -1 for x<0")
def _():
    return (
        lambda: claim("TQL03_sign_left_limit", lim(sp.sign(x), x, 0, "-"), sp.Integer(-1)),
        lambda: (mp.sign(-(mp.mpf(10) ** -30)) == -1, "sign(-1e-30) = -1"),
    )


@case("TQL04_one_sided_heaviside_left", True, "H(x) = 0 for x<0, left limit 0 (right would be 1)")
def _():
    return (
        lambda: claim("TQL04_one_sided_heaviside_left", lim(H(x) + x, x, 0, "-"), sp.Integer(0)),
        lambda: (True, "H(x)+x = x for x<0 -> 0"),
    )


# ============================================================ B. jumps at transcendental points
@case("QJ01_heaviside_sin_idempotent", False, "at x=pi/6: H(0)^2 = 1/4 != 1/2 = H(0)")
def _():
    def chk():
        with hp():
            r = mp.sin(mp.pi / 6) - mp.mpf(1) / 2
        return (
            abs(r) < mp.mpf(10) ** -70,
            f"sin(pi/6)-1/2 = {mp.nstr(r, 3)} (exactly 0), so H = 1/2, H^2 = 1/4; "
            f"pi/6 = {mp.nstr(mp.pi / 6, 8)} in (0.1, 2)",
        )

    return (
        lambda: claim(
            "QJ01_heaviside_sin_idempotent",
            H(sp.sin(x) - sp.Rational(1, 2)) ** 2,
            H(sp.sin(x) - sp.Rational(1, 2)),
            Domain(ranges={x: (0.1, 2.0)}),
        ),
        chk,
    )


@case("QJ02_sign_exp_minus_2_sq", False, "at x=log 2 sign(0)^2 = 0 != 1")
def _():
    return (
        lambda: claim(
            "QJ02_sign_exp_minus_2_sq",
            sp.sign(sp.exp(x) - 2) ** 2,
            sp.Integer(1),
            Domain(ranges={x: (0.1, 1.0)}),
        ),
        lambda: (
            abs(mp.exp(mp.log(2)) - 2) < mp.mpf(10) ** -35,
            f"x = log 2 = {mp.nstr(mp.log(2), 10)} in (0.1, 1): exp(x)-2 = 0",
        ),
    )


@case("QJ03_sign_x_minus_pi_sq", False, "at x=pi sign(0)^2 = 0 != 1")
def _():
    return (
        lambda: claim(
            "QJ03_sign_x_minus_pi_sq",
            sp.sign(x - sp.pi) ** 2,
            sp.Integer(1),
            Domain(ranges={x: (3.0, 4.0)}),
        ),
        lambda: (3 < mp.pi < 4, "x = pi in (3, 4)"),
    )


@case("QJ04_sign_circle_sq", False, "at (x,y)=(1,sqrt2): sign(0)^2 = 0 != 1")
def _():
    return (
        lambda: claim(
            "QJ04_sign_circle_sq",
            sp.sign(x**2 + y**2 - 3) ** 2,
            sp.Integer(1),
            Domain(ranges={x: (0.1, 2.0), y: (0.1, 2.0)}),
        ),
        lambda: (Fraction(1) + 2 - 3 == 0, "x=1, y=sqrt2: x^2+y^2-3 = 0 exactly"),
    )


@case("QJ05_floor_exp_eps", False, "at x=log 2: floor(2)=2 vs floor(2-1e-30)=1")
def _():
    return (
        lambda: claim(
            "QJ05_floor_exp_eps",
            sp.floor(sp.exp(x)),
            sp.floor(sp.exp(x) - sp.Rational(1, 10**30)),
            Domain(ranges={x: (0.1, 1.5)}),
        ),
        lambda: (True, "x = log 2 = 0.693 in range: exp(x) = 2 exactly, floor 2 vs 1"),
    )


@case("QJ06_piecewise_pi_gap", False, "at x=pi both conditions false: 0 != 1")
def _():
    lhs = sp.Piecewise((1, x < sp.pi), (0, True)) + sp.Piecewise((1, x > sp.pi), (0, True))
    return (
        lambda: claim("QJ06_piecewise_pi_gap", lhs, sp.Integer(1), Domain(ranges={x: (3.0, 4.0)})),
        lambda: (True, "x = pi: neither x<pi nor x>pi"),
    )


@case("QJ07_max_bump_at_pi", False, "Max(0, 1e-8-(x-pi)^2) = 1e-8 at x = pi")
def _():
    return (
        lambda: claim(
            "QJ07_max_bump_at_pi",
            sp.Max(0, sp.Rational(1, 10**8) - (x - sp.pi) ** 2),
            sp.Integer(0),
            Domain(ranges={x: (3.0, 4.0)}),
        ),
        lambda: (True, "x = pi: value 1e-8"),
    )


@case("QJ08_heaviside_two_var_transc", False, "at y=1/2, x=e^(1/2): H(0)^2 = 1/4 != 1/2")
def _():
    return (
        lambda: claim(
            "QJ08_heaviside_two_var_transc",
            H(x - sp.exp(y)) ** 2,
            H(x - sp.exp(y)),
            Domain(ranges={x: (0.5, 3.0), y: (0.1, 1.0)}),
        ),
        lambda: (
            0.5 < mp.exp(0.5) < 3,
            f"x = e^(1/2) = {mp.nstr(mp.exp(0.5), 8)}, y = 1/2: H(0) = 1/2, H(0)^2 = 1/4",
        ),
    )


# ============================================================ C. rare integers, plateaus in sums
@case("QS03_sum_rare_near_pi_multiple", False, "n>=355: the sum >= 0.9699")
def _():
    def chk():
        with hp():
            s = mp.fsum(max(0, 1 - 1000 * abs(mp.sin(kk))) for kk in range(1, 400))
        return (s > 0.9, f"n=399 partial sum {mp.nstr(s, 8)}")

    return (
        lambda: claim(
            "QS03_sum_rare_near_pi_multiple",
            sp.Sum(sp.Max(0, 1 - 1000 * sp.Abs(sp.sin(k))), (k, 1, n)),
            sp.Integer(0),
            Domain(dims=(n,)),
        ),
        chk,
    )


@case("QS01_sum_kronecker_70", False, "n >= 70: the sum is 1")
def _():
    return (
        lambda: claim(
            "QS01_sum_kronecker_70",
            sp.Sum(sp.KroneckerDelta(k, 70), (k, 1, n)),
            sp.Integer(0),
            Domain(dims=(n,)),
        ),
        lambda: (sum(1 for kk in range(1, 71) if kk == 70) == 1, "n=70: one term k=70 equals 1"),
    )


@case("QS02_rgamma_n_minus_70", False, "n=71: 1/Gamma(1) = 1")
def _():
    return (
        lambda: claim(
            "QS02_rgamma_n_minus_70", 1 / sp.gamma(n - 70), sp.Integer(0), Domain(dims=(n,))
        ),
        lambda: (mp.rgamma(1) == 1, "n=71: 1/Gamma(1) = 1"),
    )


@case("TQI01_int_heaviside_exp_true", True, "int_0^2 H(e^x-2) = 2 - log 2")
def _():
    def chk():
        with hp(40):
            v = mp.quad(lambda t: 0, [0, mp.log(2)]) + mp.quad(lambda t: 1, [mp.log(2), 2])
            return (
                abs(v - (2 - mp.log(2))) < mp.mpf(10) ** -30,
                f"quad split at log2: {mp.nstr(v, 20)}",
            )

    return (
        lambda: claim(
            "TQI01_int_heaviside_exp_true", sp.Integral(H(sp.exp(x) - 2), (x, 0, 2)), 2 - sp.log(2)
        ),
        chk,
    )


D02_VAL = (
    (-sp.cos(3) - sp.Rational(3, 2))
    - 2 * (-sp.cos(5 * sp.pi / 6) - 5 * sp.pi / 12)
    + 2 * (-sp.cos(sp.pi / 6) - sp.pi / 12)
    - (-1)
)


@case(
    "QI01_int_abs_sin_half_wrongsign", False, "my closed form has the wrong sign: -0.8797 vs 0.8797"
)
def _():
    def chk():
        with hp(40):
            v = mp.quad(lambda t: abs(mp.sin(t) - mp.mpf(1) / 2), [0, mp.pi / 6, 5 * mp.pi / 6, 3])
            def F(t):
                return -mp.cos(t) - t / 2
            c = (
                (F(3) - F(5 * mp.pi / 6)) * -1
                + (F(5 * mp.pi / 6) - F(mp.pi / 6))
                - (F(mp.pi / 6) - F(0))
            )
        return (abs(v + c) > 1, f"quad {mp.nstr(v, 20)} claimed {mp.nstr(-c, 20)}")

    return (
        lambda: claim(
            "QI01_int_abs_sin_half_wrongsign",
            sp.Integral(sp.Abs(sp.sin(x) - sp.Rational(1, 2)), (x, 0, 3)),
            D02_VAL,
        ),
        chk,
    )


@case("TQH01_sign_sq_hyp_nonzero", True, "sign(x)^2 = 1 for x != 0")
def _():
    return (
        lambda: claim(
            "TQH01_sign_sq_hyp_nonzero",
            sp.sign(x) ** 2,
            sp.Integer(1),
            Domain(),
            hyp=(sp.Ne(x, 0),),
        ),
        lambda: (all(mp.sign(t) ** 2 == 1 for t in (-3, -0.5, 1e-12, 7)), "true off 0"),
    )


@case("TQH02_abs_hyp_positive", True, "|x| = x for x > 0")
def _():
    return (
        lambda: claim("TQH02_abs_hyp_positive", sp.Abs(x), x, Domain(), hyp=(sp.Gt(x, 0),)),
        lambda: (True, "definition"),
    )


@case("TQH03_premise_abs_hyp_positive", True, "premise |x| = x cited, hypothesis x > 0")
def _():
    a = Assumption("pos", "x > 0 so |x| = x", latex="x>0", rewrites=((sp.Abs(x), x),))
    return (
        lambda: claim(
            "TQH03_premise_abs_hyp_positive",
            sp.Abs(x) + x**2,
            x + x**2,
            Domain(),
            hyp=(sp.Gt(x, 0),),
            assumptions=(a,),
            by=("pos",),
        ),
        lambda: (True, "definition"),
    )


@case(
    "QL06_rational_peak_int",
    False,
    "1/(1+p^2 sin^2 p) > 1/(1+pi^2) at convergent numerators p of pi",
)
def _():
    def chk():
        with hp():
            v = [(p, mp.nstr(1 / (1 + (p * mp.sin(p)) ** 2), 6)) for p in PI_CONV]
            ok = all(mp.mpf(s) > 1 / (1 + mp.pi**2) for _, s in v)
        return (ok, f"n -> value: {v}")

    return (
        lambda: claim(
            "QL06_rational_peak_int", lim(1 / (1 + n**2 * sp.sin(n) ** 2)), sp.Integer(0)
        ),
        chk,
    )


@case("QL07_rational_peak_real", False, "1/(1+x^2 sin^2 x) = 1 at x = k pi")
def _():
    def chk():
        with hp():
            v = [
                (kk, mp.nstr(1 / (1 + (kk * mp.pi * mp.sin(kk * mp.pi)) ** 2), 10))
                for kk in (10**6, 10**12)
            ]
        return (all(abs(mp.mpf(s) - 1) < 1e-8 for _, s in v), f"k -> value at x=k pi: {v}")

    return (
        lambda: claim(
            "QL07_rational_peak_real", lim(1 / (1 + x**2 * sp.sin(x) ** 2), x), sp.Integer(0)
        ),
        chk,
    )


@case("QL08_rational_peak_at_0", False, "1/(1+sin(1/x)^2/x^2) = 1 at x = 1/(k pi)")
def _():
    def chk():
        with hp():
            v = [
                (kk, mp.nstr(1 / (1 + (mp.sin(kk * mp.pi) * kk * mp.pi) ** 2), 10))
                for kk in (10**6, 10**12)
            ]
        return (all(abs(mp.mpf(s) - 1) < 1e-8 for _, s in v), f"k -> value at x=1/(k pi): {v}")

    return (
        lambda: claim(
            "QL08_rational_peak_at_0", lim(1 / (1 + sp.sin(1 / x) ** 2 / x**2), x, 0), sp.Integer(0)
        ),
        chk,
    )


@case(
    "QL09_rational_peak_int_sqrt2",
    False,
    "n^2 sin^2(pi n sqrt2) is < pi^2 at Pell numbers: value > 1/(1+pi^2)",
)
def _():
    def chk():
        # Pell: n = denominators q of convergents of sqrt2, |q sqrt2 - p| < 1/q
        qs, a, b = [], 1, 2
        for _ in range(30):
            a, b = b, 2 * b + a
            qs.append(a)
        with hp(120):
            v = [
                (q, mp.nstr(1 / (1 + (q * mp.sin(mp.pi * q * mp.sqrt(2))) ** 2), 6))
                for q in qs[-4:]
            ]
            ok = all(mp.mpf(s) > 1 / (1 + mp.pi**2) for _, s in v)
        return (ok, f"n -> value: {v}")

    return (
        lambda: claim(
            "QL09_rational_peak_int_sqrt2",
            lim(1 / (1 + n**2 * sp.sin(sp.pi * sp.sqrt(2) * n) ** 2)),
            sp.Integer(0),
        ),
        chk,
    )


D02B_VAL = (
    -(-sp.cos(3) - sp.Rational(3, 2))
    + 2 * (-sp.cos(5 * sp.pi / 6) - 5 * sp.pi / 12)
    - 2 * (-sp.cos(sp.pi / 6) - sp.pi / 12)
    + (-1)
)


@case("TQI02_int_abs_sin_half_true", True, "int_0^3 |sin x - 1/2| (correct sign this time)")
def _():
    def chk():
        with hp(40):
            v = mp.quad(lambda t: abs(mp.sin(t) - mp.mpf(1) / 2), [0, mp.pi / 6, 5 * mp.pi / 6, 3])
            def F(t):
                return -mp.cos(t) - t / 2
            c = -F(3) + 2 * F(5 * mp.pi / 6) - 2 * F(mp.pi / 6) + F(0)
            return (abs(v + c) > 1, f"quad {mp.nstr(v, 20)} claimed {mp.nstr(-c, 20)}")

    return (
        lambda: claim(
            "TQI02_int_abs_sin_half_true",
            sp.Integral(sp.Abs(sp.sin(x) - sp.Rational(1, 2)), (x, 0, 3)),
            D02B_VAL,
        ),
        chk,
    )
