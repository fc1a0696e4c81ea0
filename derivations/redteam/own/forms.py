"""Special functions, logarithms, floor and jumps at integers and 0: the false claims."""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from derivations.engine import Domain
from derivations.redteam.own.common import (
    T10,
    H,
    Mod,
    case,
    claim,
    n,
    py_heaviside,
    py_sign,
    x,
    y,
)


# ================================================================ 4. special functions, logs, floor
def pts_check(f, pts, want_false):
    """f(point) -> difference; returns whether falsity (some nonzero) / truth (all zero) holds."""
    diffs = {p: f(*p) if isinstance(p, tuple) else f(p) for p in pts}
    bad = {p: mp.nstr(d, 8) for p, d in diffs.items() if abs(d) > mp.mpf(10) ** -25}
    if want_false:
        return bool(bad), f"nonzero difference at {bad}"
    return not bad, f"difference zero at {list(diffs)}" if not bad else f"nonzero at {bad}"


RNG = [mp.mpf(v) for v in ("-1.7", "-0.6", "-0.13", "0.37", "1.4", "1.9")]


@case("P01_ei_chi_shi_across_0", False, "Ei = Chi + Shi only for x>0")
def _():
    return (
        lambda: claim(
            "P01_ei_chi_shi_across_0", sp.Ei(x), sp.Chi(x) + sp.Shi(x), Domain(ranges={x: (-2, 2)})
        ),
        lambda: pts_check(lambda t: mp.ei(t) - mp.chi(t) - mp.shi(t), RNG, True),
    )


@case("P02_chi_as_ei_across_0", False, "Chi(x) = (Ei(x)+Ei(-x))/2 only for x>0")
def _():
    return (
        lambda: claim(
            "P02_chi_as_ei_across_0",
            sp.Chi(x),
            (sp.Ei(x) + sp.Ei(-x)) / 2,
            Domain(ranges={x: (-2, 2)}),
        ),
        lambda: pts_check(lambda t: mp.chi(t) - (mp.ei(t) + mp.ei(-t)) / 2, RNG, True),
    )


@case("P03_e1_as_ei_across_0", False, "E1(x) = -Ei(-x) only for x>0")
def _():
    return (
        lambda: claim(
            "P03_e1_as_ei_across_0", sp.expint(1, x), -sp.Ei(-x), Domain(ranges={x: (-2, 2)})
        ),
        lambda: pts_check(lambda t: mp.e1(t) + mp.ei(-t), RNG, True),
    )


@case("P04_ci_as_ei_across_0", False, "Ci(x) = (Ei(ix)+Ei(-ix))/2 only for x>0")
def _():
    return (
        lambda: claim(
            "P04_ci_as_ei_across_0",
            sp.Ci(x),
            (sp.Ei(sp.I * x) + sp.Ei(-sp.I * x)) / 2,
            Domain(ranges={x: (-2, 2)}),
        ),
        lambda: pts_check(lambda t: mp.ci(t) - (mp.ei(1j * t) + mp.ei(-1j * t)) / 2, RNG, True),
    )


@case("P05_si_as_ei_across_0", False, "Si(x) = (Ei(ix)-Ei(-ix))/(2i) - pi/2 only for x>0")
def _():
    return (
        lambda: claim(
            "P05_si_as_ei_across_0",
            sp.Si(x),
            (sp.Ei(sp.I * x) - sp.Ei(-sp.I * x)) / (2 * sp.I) - sp.pi / 2,
            Domain(ranges={x: (-2, 2)}),
        ),
        lambda: pts_check(
            lambda t: mp.si(t) - ((mp.ei(1j * t) - mp.ei(-1j * t)) / 2j - mp.pi / 2), RNG, True
        ),
    )


@case("P06_loggamma_vs_log_gamma", False, "loggamma = log gamma only where gamma>0 on (0,inf)")
def _():
    return (
        lambda: claim(
            "P06_loggamma_vs_log_gamma",
            sp.loggamma(x),
            sp.log(sp.gamma(x)),
            Domain(ranges={x: (-3, 3)}),
        ),
        lambda: pts_check(lambda t: mp.loggamma(t) - mp.log(mp.gamma(t)), RNG, True),
    )


@case(
    "P07_loggamma_reflection", False, "loggamma(x)+loggamma(1-x) = log(pi/sin(pi x)) only on (0,1)"
)
def _():
    return (
        lambda: claim(
            "P07_loggamma_reflection",
            sp.loggamma(x) + sp.loggamma(1 - x),
            sp.log(sp.pi / sp.sin(sp.pi * x)),
            Domain(ranges={x: (-1, 2)}),
        ),
        lambda: pts_check(
            lambda t: mp.loggamma(t) + mp.loggamma(1 - t) - mp.log(mp.pi / mp.sin(mp.pi * t)),
            [mp.mpf("-0.6"), mp.mpf("0.37"), mp.mpf("1.4")],
            True,
        ),
    )


@case("P08_logcombine_both_signs", False, "log x + log y = log xy fails for x,y<0")
def _():
    return (
        lambda: claim(
            "P08_logcombine_both_signs",
            sp.log(x) + sp.log(y),
            sp.log(x * y),
            Domain(ranges={x: (-2, 2), y: (-2, 2)}),
        ),
        lambda: pts_check(
            lambda u, v: mp.log(u) + mp.log(v) - mp.log(u * v),
            [(mp.mpf(-1), mp.mpf("-0.5")), (mp.mpf(1), mp.mpf(2))],
            True,
        ),
    )


@case("P09_two_log_x", False, "2 log x = log x^2 fails for x<0")
def _():
    return (
        lambda: claim("P09_two_log_x", 2 * sp.log(x), sp.log(x**2), Domain(ranges={x: (-1, 3)})),
        lambda: pts_check(lambda t: 2 * mp.log(t) - mp.log(t * t), [mp.mpf("-0.5")], True),
    )


@case("P10_log_quotient", False, "log x - log y = log(x/y) fails for x>0>y")
def _():
    return (
        lambda: claim(
            "P10_log_quotient",
            sp.log(x) - sp.log(y),
            sp.log(x / y),
            Domain(ranges={x: (-2, 2), y: (-2, 2)}),
        ),
        lambda: pts_check(
            lambda u, v: mp.log(u) - mp.log(v) - mp.log(u / v), [(mp.mpf(1), mp.mpf("-0.5"))], True
        ),
    )


@case("P11_sqrt_product", False, "sqrt x sqrt y = sqrt(xy) fails for x,y<0")
def _():
    return (
        lambda: claim(
            "P11_sqrt_product",
            sp.sqrt(x) * sp.sqrt(y),
            sp.sqrt(x * y),
            Domain(ranges={x: (-2, 2), y: (-2, 2)}),
        ),
        lambda: pts_check(
            lambda u, v: mp.sqrt(u) * mp.sqrt(v) - mp.sqrt(u * v),
            [(mp.mpf(-1), mp.mpf("-0.5"))],
            True,
        ),
    )


@case("P12_frac_plus_frac_neg", False, "frac(x)+frac(-x)=1 fails at integers x")
def _():
    return (
        lambda: claim("P12_frac_plus_frac_neg", sp.frac(x) + sp.frac(-x), sp.Integer(1)),
        lambda: pts_check(
            lambda t: (t - mp.floor(t)) + (-t - mp.floor(-t)) - 1, [mp.mpf(3), mp.mpf("0.3")], True
        ),
    )


@case("P13_ceiling_floor_plus_one", False, "ceiling x = floor x + 1 fails at integers")
def _():
    return (
        lambda: claim("P13_ceiling_floor_plus_one", sp.ceiling(x), sp.floor(x) + 1),
        lambda: pts_check(lambda t: mp.ceil(t) - mp.floor(t) - 1, [mp.mpf(2)], True),
    )


@case("P14_mod1_plus_mod1_neg", False, "Mod(x,1)+Mod(-x,1)=1 fails at integers")
def _():
    return (
        lambda: claim("P14_mod1_plus_mod1_neg", Mod(x, 1) + Mod(-x, 1), sp.Integer(1)),
        lambda: pts_check(lambda t: (t % 1) + ((-t) % 1) - 1, [mp.mpf(5)], True),
    )


@case("P15_sign_squared", False, "sign(x)^2 = 1 fails at x=0")
def _():
    return (
        lambda: claim("P15_sign_squared", sp.sign(x) ** 2, sp.Integer(1)),
        lambda: (py_sign(0) ** 2 != 1, "sign(0)^2 = 0"),
    )


@case("P16_heaviside_idempotent", False, "H(x)^2 = H(x) fails at x=0 (H(0)=1/2)")
def _():
    return (
        lambda: claim("P16_heaviside_idempotent", H(x) ** 2, H(x)),
        lambda: (py_heaviside(0) ** 2 != py_heaviside(0), "H(0)=1/2: 1/4 != 1/2"),
    )


@case(
    "P17_sign_on_closed_range_0_1",
    False,
    "sign(x)=1 on range [0,1] fails at the endpoint 0 (endpoint-only)",
)
def _():
    return (
        lambda: claim(
            "P17_sign_on_closed_range_0_1", sp.sign(x), sp.Integer(1), Domain(ranges={x: (0, 1)})
        ),
        lambda: (py_sign(0) != 1, "sign(0) = 0"),
    )


@case("P18_acosh_cosh", False, "acosh(cosh x) = |x|")
def _():
    return (
        lambda: claim("P18_acosh_cosh", sp.acosh(sp.cosh(x)), x, Domain(ranges={x: (-2, 2)})),
        lambda: pts_check(lambda t: mp.acosh(mp.cosh(t)) - t, [mp.mpf("-1.2")], True),
    )


@case("P19_atan_tan", False, "atan(tan x) = x only on (-pi/2, pi/2)")
def _():
    return (
        lambda: claim("P19_atan_tan", sp.atan(sp.tan(x)), x, Domain(ranges={x: (-3, 3)})),
        lambda: pts_check(lambda t: mp.atan(mp.tan(t)) - t, [mp.mpf("2.5")], True),
    )


@case("P20_floor_double", False, "floor(2x) = 2 floor(x) fails when frac(x) >= 1/2")
def _():
    return (
        lambda: claim("P20_floor_double", sp.floor(2 * x), 2 * sp.floor(x)),
        lambda: pts_check(lambda t: mp.floor(2 * t) - 2 * mp.floor(t), [mp.mpf("0.7")], True),
    )


@case("P21_floor_shift_integer", False, "floor((n+1)/3) = floor(n/3) fails at n = 2 mod 3")
def _():
    return (
        lambda: claim(
            "P21_floor_shift_integer", sp.floor((n + 1) / 3), sp.floor(n / 3), Domain(dims=(n,))
        ),
        lambda: ((2 + 1) // 3 != 2 // 3, "n=2: 1 vs 0"),
    )


@case("P22_digamma_reflection_sign", False, "psi(1-x) - psi(x) = -pi cot(pi x): sign flipped")
def _():
    return (
        lambda: claim(
            "P22_digamma_reflection_sign",
            sp.polygamma(0, 1 - x) - sp.polygamma(0, x),
            -sp.pi * sp.cot(sp.pi * x),
            Domain(ranges={x: (-2, 2)}),
        ),
        lambda: pts_check(
            lambda t: mp.digamma(1 - t) - mp.digamma(t) + mp.pi * mp.cot(mp.pi * t), RNG, True
        ),
    )


@case("P23_gamma_recurrence_negative", False, "gamma(x+1) = |x| gamma(x): wrong for x<0")
def _():
    return (
        lambda: claim(
            "P23_gamma_recurrence_negative",
            sp.gamma(x + 1),
            sp.Abs(x) * sp.gamma(x),
            Domain(ranges={x: (-3, 3)}),
        ),
        lambda: pts_check(lambda t: mp.gamma(t + 1) - abs(t) * mp.gamma(t), RNG, True),
    )


@case("P24_x_log_y_power", False, "x log y = log(y^x) fails for y<0")
def _():
    return (
        lambda: claim(
            "P24_x_log_y_power",
            x * sp.log(y),
            sp.log(y**x),
            Domain(ranges={x: (-2, 2), y: (-2, 2)}),
        ),
        lambda: pts_check(
            lambda u, v: u * mp.log(v) - mp.log(mp.power(v, u)), [(mp.mpf("1.5"), mp.mpf(-1))], True
        ),
    )


@case(
    "P25_floor_x_huge", False, "floor(x/10^13) = 0 fails for |x| >= 1e13 (beyond the drawn values)"
)
def _():
    return (
        lambda: claim(
            "P25_floor_x_huge",
            sp.floor(x / T10**13),
            sp.Integer(0),
            Domain(ranges={x: (0, 10**14)}),
        ),
        lambda: (mp.floor(mp.mpf(5 * 10**13) / 10**13) != 0, "x=5e13: 5"),
    )
