"""Limits of integer sequences: long periods, plateaus, convergence past what the numbers reach."""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from derivations.redteam.own.common import (
    T10,
    H,
    Mod,
    case,
    claim,
    differ,
    half,
    lim,
    n,
    py_heaviside,
    py_sign,
    seq_no_limit,
)


# ================================================================ 1. integer limits
@case("L01_alt_sign", False, "(-1)^n has no limit")
def _():
    return (
        lambda: claim("L01_alt_sign", lim((-1) ** n), sp.Integer(1)),
        lambda: seq_no_limit(
            lambda N: (-1) ** N, [("even", lambda m: 2 * m), ("odd", lambda m: 2 * m + 1)]
        ),
    )


@case("L02_one_plus_alt_over_n_pow_n", False, "(1+(-1)^n/n)^n -> e (even), 1/e (odd)")
def _():
    def f(N):
        return (1 + mp.mpf((-1) ** N) / N) ** N
    return (
        lambda: claim("L02_one_plus_alt_over_n_pow_n", lim((1 + (-1) ** n / n) ** n), sp.E),
        lambda: seq_no_limit(f, [("even", lambda m: 2 * m), ("odd", lambda m: 2 * m + 1)]),
    )


@case("L03_mod2_average", False, "Mod(n,2) alternates 0,1")
def _():
    return (
        lambda: claim("L03_mod2_average", lim(Mod(n, 2)), half),
        lambda: seq_no_limit(
            lambda N: N % 2, [("even", lambda m: 2 * m), ("odd", lambda m: 2 * m + 1)]
        ),
    )


@case("L04_sin_half_pi_n_sq", False, "sin(pi n/2)^2 alternates 0,1 (period hidden in sin)")
def _():
    def f(N):
        return mp.sin(mp.pi * (N % 4) / 2) ** 2
    return (
        lambda: claim("L04_sin_half_pi_n_sq", lim(sp.sin(sp.pi * n / 2) ** 2), half),
        lambda: seq_no_limit(f, [("even", lambda m: 2 * m), ("odd", lambda m: 2 * m + 1)]),
    )


@case("L05_alt_floor_n_50", False, "(-1)^floor(n/50): period 100, residues 50..99 give -1")
def _():
    return (
        lambda: claim("L05_alt_floor_n_50", lim((-1) ** sp.floor(n / 50)), sp.Integer(1)),
        lambda: seq_no_limit(
            lambda N: (-1) ** (N // 50),
            [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)],
        ),
    )


@case("L06_heaviside_mod100", False, "Heaviside(Mod(n,100)-50): 0 for r<50, 1 for r>50")
def _():
    return (
        lambda: claim("L06_heaviside_mod100", lim(H(Mod(n, 100) - 50)), sp.Integer(0)),
        lambda: seq_no_limit(
            lambda N: py_heaviside(N % 100 - 50),
            [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)],
        ),
    )


@case("L07_heaviside_mod100_scaled", False, "(1+1/n)Heaviside(Mod(n,100)-50): no limit")
def _():
    def f(N):
        return (1 + mp.mpf(1) / N) * py_heaviside(N % 100 - 50)
    return (
        lambda: claim(
            "L07_heaviside_mod100_scaled", lim((1 + 1 / n) * H(Mod(n, 100) - 50)), sp.Integer(0)
        ),
        lambda: seq_no_limit(f, [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)]),
    )


@case("L08_floor_difference", False, "floor(n/100)-floor((n-20)/100) is 1 for r<20, else 0")
def _():
    def f(N):
        return N // 100 - (N - 20) // 100
    return (
        lambda: claim(
            "L08_floor_difference", lim(sp.floor(n / 100) - sp.floor((n - 20) / 100)), sp.Integer(1)
        ),
        lambda: seq_no_limit(f, [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)]),
    )


@case("L09_heaviside_50_minus_mod", False, "Heaviside(50-Mod(n,100)): 1 then 0")
def _():
    return (
        lambda: claim("L09_heaviside_50_minus_mod", lim(H(50 - Mod(n, 100))), sp.Integer(1)),
        lambda: seq_no_limit(
            lambda N: py_heaviside(50 - N % 100),
            [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)],
        ),
    )


@case("L10_heaviside_mod20", False, "Heaviside(Mod(n,20)-15): period 20")
def _():
    return (
        lambda: claim("L10_heaviside_mod20", lim(H(Mod(n, 20) - 15)), sp.Integer(0)),
        lambda: seq_no_limit(
            lambda N: py_heaviside(N % 20 - 15),
            [("r0", lambda m: 20 * m), ("r17", lambda m: 20 * m + 17)],
        ),
    )


@case("L11_sign_mod100_minus50", False, "sign(Mod(n,100)-50) takes -1,0,1")
def _():
    return (
        lambda: claim("L11_sign_mod100_minus50", lim(sp.sign(Mod(n, 100) - 50)), sp.Integer(-1)),
        lambda: seq_no_limit(
            lambda N: py_sign(N % 100 - 50),
            [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)],
        ),
    )


@case("L12_n_sin_pi_over_n_zero", False, "n sin(pi/n) -> pi, not 0")
def _():
    v = [mp.mpf(N) * mp.sin(mp.pi / N) for N in (10**10, 10**20)]
    return (
        lambda: claim("L12_n_sin_pi_over_n_zero", lim(n * sp.sin(sp.pi / n)), sp.Integer(0)),
        lambda: (differ(v[-1], 0), f"values {v}"),
    )


@case("L13_cos_2pi_sqrt2_n", False, "cos(2 pi sqrt2 n) is dense in [-1,1]")
def _():
    def f(N):
        return mp.cos(2 * mp.pi * mp.sqrt(2) * N)

    def chk():
        with mp.workdps(80):
            vals = [f(N) for N in range(10**6, 10**6 + 10)]
        return (
            max(vals) - min(vals) > 1,
            f"cos(2pi sqrt2 n), n=1e6..1e6+9: {[mp.nstr(v, 5) for v in vals]}",
        )

    return (
        lambda: claim(
            "L13_cos_2pi_sqrt2_n", lim(sp.cos(2 * sp.pi * sp.sqrt(2) * n)), sp.Integer(1)
        ),
        chk,
    )


@case("L14_root_of_power_alt", False, "((2+(-1)^n)^n)^(1/n) = 2+(-1)^n: 3 or 1")
def _():
    def f(N):
        return (mp.mpf(2 + (-1) ** N) ** N) ** (mp.mpf(1) / N)
    return (
        lambda: claim(
            "L14_root_of_power_alt", lim(((2 + (-1) ** n) ** n) ** (1 / n)), sp.Integer(2)
        ),
        lambda: seq_no_limit(f, [("even", lambda m: 2 * m), ("odd", lambda m: 2 * m + 1)]),
    )


@case("L15_frac_n_over_3", False, "frac(n/3) cycles 0,1/3,2/3")
def _():
    return (
        lambda: claim("L15_frac_n_over_3", lim(sp.frac(n / 3)), sp.Rational(1, 3)),
        lambda: seq_no_limit(
            lambda N: mp.mpf(N % 3) / 3, [("r0", lambda m: 3 * m), ("r1", lambda m: 3 * m + 1)]
        ),
    )


@case("L16_mod_n_squared_4", False, "Mod(n^2,4) is 0 (even n) or 1 (odd n)")
def _():
    return (
        lambda: claim("L16_mod_n_squared_4", lim(Mod(n**2, 4)), sp.Integer(1)),
        lambda: seq_no_limit(
            lambda N: N * N % 4, [("even", lambda m: 2 * m), ("odd", lambda m: 2 * m + 1)]
        ),
    )


@case("L17_alt_n_over_n_plus_1", False, "(-1)^n n/(n+1) -> +-1")
def _():
    def f(N):
        return mp.mpf((-1) ** N) * N / (N + 1)
    return (
        lambda: claim("L17_alt_n_over_n_plus_1", lim((-1) ** n * n / (n + 1)), sp.Integer(1)),
        lambda: seq_no_limit(f, [("even", lambda m: 2 * m), ("odd", lambda m: 2 * m + 1)]),
    )


@case("L18_max_mod100_minus50", False, "Max(0,Mod(n,100)-50) takes 0..49")
def _():
    return (
        lambda: claim("L18_max_mod100_minus50", lim(sp.Max(0, Mod(n, 100) - 50)), sp.Integer(0)),
        lambda: seq_no_limit(
            lambda N: max(0, N % 100 - 50),
            [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)],
        ),
    )


@case("L19_heaviside_frac_n_100", False, "Heaviside(frac(n/100)-1/2): period 100")
def _():
    return (
        lambda: claim("L19_heaviside_frac_n_100", lim(H(sp.frac(n / 100) - half)), sp.Integer(0)),
        lambda: seq_no_limit(
            lambda N: py_heaviside(mp.mpf(N % 100) / 100 - mp.mpf(1) / 2),
            [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)],
        ),
    )


@case("L20_cos_pi_floor_n_50", False, "cos(pi floor(n/50)) = (-1)^floor(n/50): period 100")
def _():
    def f(N):
        return mp.cos(mp.pi * (N // 50))
    return (
        lambda: claim(
            "L20_cos_pi_floor_n_50", lim(sp.cos(sp.pi * sp.floor(n / 50))), sp.Integer(1)
        ),
        lambda: seq_no_limit(f, [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)]),
    )


@case("L21_floor_2frac_n_100", False, "floor(2 frac(n/100)): 0 for r<50, 1 for r>=50")
def _():
    return (
        lambda: claim("L21_floor_2frac_n_100", lim(sp.floor(2 * sp.frac(n / 100))), sp.Integer(0)),
        lambda: seq_no_limit(
            lambda N: (2 * (N % 100)) // 100,
            [("r0", lambda m: 100 * m), ("r60", lambda m: 100 * m + 60)],
        ),
    )


@case("L22_alt_mod25_shift", False, "(-1)^n Heaviside(Mod(n,25)-12): 0 on r<12, +-1 otherwise")
def _():
    def f(N):
        return (-1) ** N * py_heaviside(N % 25 - 12)
    return (
        lambda: claim("L22_alt_mod25_shift", lim((-1) ** n * H(Mod(n, 25) - 12)), sp.Integer(0)),
        lambda: seq_no_limit(f, [("r0", lambda m: 50 * m), ("r20", lambda m: 50 * m + 20)]),
    )


# ---- true twins (limits)
@case("TL1_n_sin_pi_n", True, "sin(pi n)=0 on integers; the real extension has no limit")
def _():
    return (
        lambda: claim("TL1_n_sin_pi_n", lim(n * sp.sin(sp.pi * n)), sp.Integer(0)),
        lambda: (True, "sin(pi N) = 0 exactly for integer N"),
    )


@case("TL2_n_sin_pi_over_n", True)
def _():
    v = mp.mpf(10**20) * mp.sin(mp.pi / 10**20)
    return (
        lambda: claim("TL2_n_sin_pi_over_n", lim(n * sp.sin(sp.pi / n)), sp.pi),
        lambda: (not differ(v, mp.pi, mp.mpf(10) ** -30), f"value at 1e20: {v}"),
    )


@case("TL3_cos_2pi_n", True)
def _():
    return (
        lambda: claim("TL3_cos_2pi_n", lim(sp.cos(2 * sp.pi * n)), sp.Integer(1)),
        lambda: (True, "cos(2 pi N) = 1 for integer N"),
    )


@case("TL4_root_2_plus_alt", True)
def _():
    v = [mp.mpf(2 + (-1) ** N) ** (mp.mpf(1) / N) for N in (10**30, 10**30 + 1)]
    return (
        lambda: claim("TL4_root_2_plus_alt", lim((2 + (-1) ** n) ** (1 / n)), sp.Integer(1)),
        lambda: (all(not differ(t, 1, mp.mpf(10) ** -25) for t in v), f"{v}"),
    )


@case("TL5_floor_half_over_n", True)
def _():
    v = [mp.mpf(N // 2) / N for N in (10**30, 10**30 + 1)]
    return (
        lambda: claim("TL5_floor_half_over_n", lim(sp.floor(n / 2) / n), half),
        lambda: (all(not differ(t, 0.5, mp.mpf(10) ** -25) for t in v), f"{v}"),
    )


@case("TL6_mod2_times_one_plus_alt", True)
def _():
    return (
        lambda: claim(
            "TL6_mod2_times_one_plus_alt", lim(Mod(n, 2) * (1 + (-1) ** n)), sp.Integer(0)
        ),
        lambda: (all((N % 2) * (1 + (-1) ** N) == 0 for N in range(1, 1000)), "0 for every N"),
    )


@case("TL7_compound_interest", True)
def _():
    with mp.workdps(100):
        v = mp.exp(10**30 * mp.log1p(mp.mpf(1) / 10**30))
    return (
        lambda: claim("TL7_compound_interest", lim((1 + 1 / n) ** n), sp.E),
        lambda: (not differ(v, mp.e, mp.mpf(10) ** -25), f"{v}"),
    )


@case("TL8_heaviside_mod100_over_n", True)
def _():
    return (
        lambda: claim("TL8_heaviside_mod100_over_n", lim(H(Mod(n, 100) - 50) / n), sp.Integer(0)),
        lambda: (True, "0 <= term <= 1/n"),
    )


@case("TL9_exp_minus_huge_over_n", True, "exp(-10^500/n) -> 1 (very slowly)")
def _():
    with mp.workdps(1200):
        v = mp.exp(-(mp.mpf(10) ** 500) / mp.mpf(10) ** 1000)
    return (
        lambda: claim("TL9_exp_minus_huge_over_n", lim(sp.exp(-(T10**500) / n)), sp.Integer(1)),
        lambda: (abs(v - 1) < mp.mpf(10) ** -400, f"value at n=1e1000: 1-{mp.nstr(1 - v, 5)}"),
    )


@case("TL10_n_over_n_plus_1e30", True)
def _():
    v = mp.mpf(10**60) / (10**60 + 10**30)
    return (
        lambda: claim("TL10_n_over_n_plus_1e30", lim(n / (n + T10**30)), sp.Integer(1)),
        lambda: (abs(v - 1) < 1e-25, f"value at 1e60: {v}"),
    )


# ---- round 2: the numeric limit's reach (exp(-10^500/n) is still ~1e-434294481 where it stops)
#      combined with SymPy's integer-variable limit bug (n sin(pi/n) -> 0, n tan(pi/n) -> 0)
C500 = T10**500


def at_huge(f):
    with mp.workdps(1200):
        N = mp.mpf(10) ** 1000
        return f(N)


@case("X1_masked_slow_limit", False, "1 + lim exp(-10^500/n) = 2, not 1")
def _():
    v = at_huge(lambda N: 1 + mp.exp(-(mp.mpf(10) ** 500) / N))
    return (
        lambda: claim("X1_masked_slow_limit", 1 + lim(sp.exp(-C500 / n)), sp.Integer(1)),
        lambda: (abs(v - 2) < 1e-300, f"lhs at n=1e1000: {mp.nstr(v, 20)}"),
    )


@case("X2_exp_of_masked_n_sin", False, "exp(lim n sin(pi/n) e^{-10^500/n}) = e^pi, not 1")
def _():
    v = at_huge(lambda N: mp.exp(N * mp.sin(mp.pi / N) * mp.exp(-(mp.mpf(10) ** 500) / N)))
    return (
        lambda: claim(
            "X2_exp_of_masked_n_sin",
            sp.exp(lim(n * sp.sin(sp.pi / n) * sp.exp(-C500 / n))),
            sp.Integer(1),
        ),
        lambda: (
            abs(v - mp.exp(mp.pi)) < 1e-30,
            f"lhs at n=1e1000: {mp.nstr(v, 20)} (e^pi={mp.nstr(mp.exp(mp.pi), 20)})",
        ),
    )


@case("X3_masked_n_tan", False, "1 + lim n tan(pi/n) e^{-10^500/n} = 1 + pi, not 1")
def _():
    v = at_huge(lambda N: 1 + N * mp.tan(mp.pi / N) * mp.exp(-(mp.mpf(10) ** 500) / N))
    return (
        lambda: claim(
            "X3_masked_n_tan", 1 + lim(n * sp.tan(sp.pi / n) * sp.exp(-C500 / n)), sp.Integer(1)
        ),
        lambda: (abs(v - 1 - mp.pi) < 1e-300, f"lhs at n=1e1000: {mp.nstr(v, 20)}"),
    )


@case("X4_n_tan_pi_over_n_zero", False, "n tan(pi/n) -> pi, not 0")
def _():
    v = mp.mpf(10) ** 20 * mp.tan(mp.pi / mp.mpf(10) ** 20)
    return (
        lambda: claim("X4_n_tan_pi_over_n_zero", lim(n * sp.tan(sp.pi / n)), sp.Integer(0)),
        lambda: (differ(v, 0), f"value at 1e20: {v}"),
    )


@case("X5_one_minus_cos_wrong_factor", False, "n^2(1-cos(pi/n)) -> pi^2/2, not pi^2")
def _():
    with mp.workdps(100):
        v = (mp.mpf(10) ** 40) * (1 - mp.cos(mp.pi / mp.mpf(10) ** 20))
    return (
        lambda: claim(
            "X5_one_minus_cos_wrong_factor", lim(n**2 * (1 - sp.cos(sp.pi / n))), sp.pi**2
        ),
        lambda: (differ(v, mp.pi**2, mp.mpf(10) ** -5), f"value at 1e20: {v}"),
    )


@case("X6_heaviside_mod1000", False, "Heaviside(Mod(n,1000)-500): no limit")
def _():
    return (
        lambda: claim("X6_heaviside_mod1000", lim(H(Mod(n, 1000) - 500)), sp.Integer(0)),
        lambda: seq_no_limit(
            lambda N: py_heaviside(N % 1000 - 500),
            [("r0", lambda m: 1000 * m), ("r600", lambda m: 1000 * m + 600)],
        ),
    )


@case("TX1_n_tan_pi_over_n", True)
def _():
    v = mp.mpf(10) ** 20 * mp.tan(mp.pi / mp.mpf(10) ** 20)
    return (
        lambda: claim("TX1_n_tan_pi_over_n", lim(n * sp.tan(sp.pi / n)), sp.pi),
        lambda: (not differ(v, mp.pi, mp.mpf(10) ** -30), f"value at 1e20: {v}"),
    )


@case("TX2_one_minus_cos", True)
def _():
    with mp.workdps(100):
        v = (mp.mpf(10) ** 40) * (1 - mp.cos(mp.pi / mp.mpf(10) ** 20))
    return (
        lambda: claim("TX2_one_minus_cos", lim(n**2 * (1 - sp.cos(sp.pi / n))), sp.pi**2 / 2),
        lambda: (not differ(v, mp.pi**2 / 2, mp.mpf(10) ** -30), f"value at 1e20: {v}"),
    )


@case("X7_geometric_plateau", False, "(1-10^-500)^n -> 0, not 1")
def _():
    with mp.workdps(1200):
        v = mp.exp(mp.mpf(10) ** 1000 * mp.log1p(-(mp.mpf(10) ** -500)))
    return (
        lambda: claim("X7_geometric_plateau", lim((1 - T10**-500) ** n), sp.Integer(1)),
        lambda: (v < mp.mpf(10) ** -1000, f"value at n=1e1000: {mp.nstr(v, 5)}"),
    )


@case("TX3_geometric_plateau", True, "ratio 1-10^-500 < 1: the limit is 0")
def _():
    with mp.workdps(1200):
        v = mp.exp(mp.mpf(10) ** 1000 * mp.log1p(-(mp.mpf(10) ** -500)))
    return (
        lambda: claim("TX3_geometric_plateau", lim((1 - T10**-500) ** n), sp.Integer(0)),
        lambda: (v < mp.mpf(10) ** -1000, f"value at n=1e1000: {mp.nstr(v, 5)}"),
    )
