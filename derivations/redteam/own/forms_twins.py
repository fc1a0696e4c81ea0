"""Special functions, logarithms, floor and jumps: the true twins."""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from derivations.engine import Domain
from derivations.redteam.own.common import (
    Mod,
    case,
    claim,
    differ,
    half,
    n,
    x,
    y,
)
from derivations.redteam.own.forms import RNG, pts_check


# ---- true twins (special)
@case("TP1_shi_as_ei", True)
def _():
    return (
        lambda: claim(
            "TP1_shi_as_ei", sp.Shi(x), (sp.Ei(x) - sp.Ei(-x)) / 2, Domain(ranges={x: (-2, 2)})
        ),
        lambda: pts_check(lambda t: mp.shi(t) - (mp.ei(t) - mp.ei(-t)) / 2, RNG, False),
    )


@case("TP2_ei_chi_shi_positive", True)
def _():
    return (
        lambda: claim(
            "TP2_ei_chi_shi_positive",
            sp.Ei(x),
            sp.Chi(x) + sp.Shi(x),
            Domain(ranges={x: (sp.Rational(1, 10), 3)}),
        ),
        lambda: pts_check(
            lambda t: mp.ei(t) - mp.chi(t) - mp.shi(t),
            [mp.mpf("0.37"), mp.mpf("1.4"), mp.mpf("2.9")],
            False,
        ),
    )


@case("TP3_loggamma_recurrence", True, "holds on the whole line in the principal loggamma branch")
def _():
    return (
        lambda: claim(
            "TP3_loggamma_recurrence",
            sp.loggamma(x + 1),
            sp.loggamma(x) + sp.log(x),
            Domain(ranges={x: (-3, 3)}),
        ),
        lambda: pts_check(lambda t: mp.loggamma(t + 1) - mp.loggamma(t) - mp.log(t), RNG, False),
    )


@case("TP4_digamma_reflection", True)
def _():
    return (
        lambda: claim(
            "TP4_digamma_reflection",
            sp.polygamma(0, 1 - x) - sp.polygamma(0, x),
            sp.pi * sp.cot(sp.pi * x),
            Domain(ranges={x: (-2, 2)}),
        ),
        lambda: pts_check(
            lambda t: mp.digamma(1 - t) - mp.digamma(t) - mp.pi * mp.cot(mp.pi * t), RNG, False
        ),
    )


@case("TP5_digamma_duplication", True)
def _():
    return (
        lambda: claim(
            "TP5_digamma_duplication",
            sp.polygamma(0, 2 * x),
            (sp.polygamma(0, x) + sp.polygamma(0, x + half)) / 2 + sp.log(2),
            Domain(ranges={x: (-2, 2)}),
        ),
        lambda: pts_check(
            lambda t: mp.digamma(2 * t) - (mp.digamma(t) + mp.digamma(t + 0.5)) / 2 - mp.log(2),
            RNG,
            False,
        ),
    )


@case("TP6_logcombine_positive_range", True)
def _():
    return (
        lambda: claim(
            "TP6_logcombine_positive_range",
            sp.log(x) + sp.log(y),
            sp.log(x * y),
            Domain(ranges={x: (0, 2), y: (0, 2)}),
        ),
        lambda: pts_check(
            lambda u, v: mp.log(u) + mp.log(v) - mp.log(u * v),
            [(mp.mpf("0.3"), mp.mpf("1.7"))],
            False,
        ),
    )


@case("TP7_log_sqrt", True, "principal branches: holds for x<0 too")
def _():
    return (
        lambda: claim(
            "TP7_log_sqrt", sp.log(sp.sqrt(x)), sp.log(x) / 2, Domain(ranges={x: (-1, 2)})
        ),
        lambda: pts_check(
            lambda t: mp.log(mp.sqrt(t)) - mp.log(t) / 2,
            [mp.mpf("-0.6"), mp.mpf("0.37"), mp.mpf("1.4")],
            False,
        ),
    )


@case("TP8_gamma_reflection", True)
def _():
    return (
        lambda: claim(
            "TP8_gamma_reflection",
            sp.gamma(x) * sp.gamma(1 - x),
            sp.pi / sp.sin(sp.pi * x),
            Domain(ranges={x: (-2, 2)}),
        ),
        lambda: pts_check(
            lambda t: mp.gamma(t) * mp.gamma(1 - t) - mp.pi / mp.sin(mp.pi * t), RNG, False
        ),
    )


@case("TP9_hermite_floor", True)
def _():
    return (
        lambda: claim("TP9_hermite_floor", sp.floor(2 * x), sp.floor(x) + sp.floor(x + half)),
        lambda: pts_check(
            lambda t: mp.floor(2 * t) - mp.floor(t) - mp.floor(t + 0.5),
            [mp.mpf(v) for v in ("-2.5", "-1.3", "0", "0.5", "0.7", "3")],
            False,
        ),
    )


@case("TP10_mod2_as_frac", True)
def _():
    return (
        lambda: claim("TP10_mod2_as_frac", Mod(x, 2), 2 * sp.frac(x / 2)),
        lambda: pts_check(
            lambda t: (t % 2) - 2 * (t / 2 - mp.floor(t / 2)),
            [mp.mpf(v) for v in ("-3.3", "-2", "0.7", "5")],
            False,
        ),
    )


@case("TP11_cos_pi_n", True)
def _():
    return (
        lambda: claim("TP11_cos_pi_n", sp.cos(sp.pi * n), (-1) ** n, Domain(dims=(n,))),
        lambda: (all(not differ(mp.cos(mp.pi * N), (-1) ** N) for N in range(1, 80)), "n=1..79"),
    )


@case("TP12_sin_half_pi_n_sq", True)
def _():
    return (
        lambda: claim(
            "TP12_sin_half_pi_n_sq", sp.sin(sp.pi * n / 2) ** 2, Mod(n, 2), Domain(dims=(n,))
        ),
        lambda: (
            all(not differ(mp.sin(mp.pi * N / 2) ** 2, N % 2) for N in range(1, 80)),
            "n=1..79",
        ),
    )


@case("TP13_hermite_thirds", True)
def _():
    return (
        lambda: claim(
            "TP13_hermite_thirds",
            sp.floor(n / 3) + sp.floor((n + 1) / 3) + sp.floor((n + 2) / 3),
            n,
            Domain(dims=(n,)),
        ),
        lambda: (all(N // 3 + (N + 1) // 3 + (N + 2) // 3 == N for N in range(1, 500)), "n=1..499"),
    )


@case("TP14_asinh_sinh", True)
def _():
    return (
        lambda: claim("TP14_asinh_sinh", sp.asinh(sp.sinh(x)), x, Domain(ranges={x: (-3, 3)})),
        lambda: pts_check(lambda t: mp.asinh(mp.sinh(t)) - t, RNG, False),
    )


@case("TP15_max_abs", True)
def _():
    return (
        lambda: claim("TP15_max_abs", sp.Max(x, -x), sp.Abs(x)),
        lambda: pts_check(lambda t: max(t, -t) - abs(t), RNG, False),
    )


@case(
    "TP16_loggamma_duplication", True, "holds on the whole line in mpmath's/SymPy's loggamma branch"
)
def _():
    rhs = (2 * x - 1) * sp.log(2) + sp.loggamma(x) + sp.loggamma(x + half) - sp.log(sp.sqrt(sp.pi))
    return (
        lambda: claim(
            "TP16_loggamma_duplication", sp.loggamma(2 * x), rhs, Domain(ranges={x: (-2, 2)})
        ),
        lambda: pts_check(
            lambda t: (
                mp.loggamma(2 * t)
                - (
                    (2 * t - 1) * mp.log(2)
                    + mp.loggamma(t)
                    + mp.loggamma(t + 0.5)
                    - mp.log(mp.sqrt(mp.pi))
                )
            ),
            [mp.mpf(v) for v in ("-1.7", "-1.3", "-0.3", "0.37", "1.4")],
            False,
        ),
    )


