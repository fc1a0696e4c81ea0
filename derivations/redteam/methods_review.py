"""The red team of the symbolic route's own methods (derivations/engine/methods.py), written by a
reviewer from the README and the public API alone, each case confirmed with mpmath or plain
Python integers (never SymPy): limits of integer sequences (long periods, plateaus, slow
convergence), empty ranges (beyond the sampled sizes), jumps at integers and 0, special
functions, logarithms and floor identities.  Its normal-law expectations (one quadrature per
point per law, minutes per case) are not part of the suite run by the tests.

Exported as :data:`CASES` of :class:`derivations.redteam.cases.Case`, classes "sequence limits",
"empty ranges", "jumps and forms".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import mpmath as mp
import sympy as sp

from derivations.engine import Derivation, Domain, Step
from derivations.redteam.cases import Case

# ---------------------------------------------------------------- symbols
n = sp.Symbol("n", integer=True, positive=True)  # size / sequence variable
k = sp.Symbol("k", integer=True)  # bound summation index
l = sp.Symbol("l", integer=True)
i_ = sp.Symbol("i", integer=True)
j = sp.Symbol("j", integer=True, positive=True)  # declared index
x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
a = sp.Symbol("a", real=True)
mu = sp.Symbol("mu", real=True)
s = sp.Symbol("s", positive=True)  # a standard deviation
X = sp.Symbol("X", real=True)
Y = sp.Symbol("Y", real=True)
H = sp.Heaviside
Mod = sp.Mod
half = sp.S.Half
T10 = sp.Integer(10)


def claim(cid, lhs, rhs, dom=None):
    return Derivation(
        cid,
        cid,
        sp.Eq(lhs, rhs, evaluate=False),
        (),
        (Step(rhs, "claimed"),),
        dom if dom is not None else Domain(),
    )


def lim(e):
    return sp.Limit(e, n, sp.oo)


def normal(rv_params, **kw):
    return Domain(random=rv_params, distribution="normal", **kw)


@dataclass
class _Raw:
    id: str
    truth: bool
    build: Callable[[], Derivation]
    check: Callable[[], tuple]
    note: str = ""


_RAW: list[_Raw] = []
# the cases' own numbers (computed as they are defined, below) at 40 digits; the process's
# precision is given back at the end of the module
_PRECISION = mp.workdps(40)
_PRECISION.__enter__()


def case(cid, truth, note=""):
    def deco(fn):
        build, check = fn()
        _RAW.append(_Raw(cid, truth, build, check, note))
        return fn

    return deco


# ---------------------------------------------------------------- helpers (no SymPy)
def py_heaviside(v):
    return 0.0 if v < 0 else (1.0 if v > 0 else 0.5)


def py_sign(v):
    return (v > 0) - (v < 0)


DIFFER_TOL = mp.mpf(10) ** -25


def differ(u, v, tol=DIFFER_TOL):
    return abs(mp.mpc(u) - mp.mpc(v)) > tol


def seq_no_limit(f, subs):
    """f: python function of an int; subs: list of (name, big-n generator). Show two
    subsequences with different (stable) values -> no limit."""
    vals = {}
    for name, g in subs:
        vals[name] = [f(g(m)) for m in (10**20, 10**25, 10**30)]
    stable = {k2: v for k2, v in vals.items()}
    distinct = {round(float(mp.re(v[-1])), 12) for v in stable.values()}
    return len(distinct) > 1, f"subsequence values {stable}"


def nquad_normal(f, m=0, sd=1, cuts=()):
    m = mp.mpf(m)
    sd = mp.mpf(sd)
    def pdf(t):
        return mp.exp(-((t - m) ** 2) / (2 * sd**2)) / (sd * mp.sqrt(2 * mp.pi))
    pts = [-mp.inf] + sorted(mp.mpf(c) for c in cuts) + [mp.inf]
    return mp.quad(lambda t: f(t) * pdf(t), pts)


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


# ================================================================ 2. sums / products
def textbook_sum(f, lo, hi):
    return sum(f(t) for t in range(lo, hi + 1)) if hi >= lo else 0


def textbook_prod(f, lo, hi):
    r = mp.mpf(1)
    for t in range(lo, hi + 1):
        r *= f(t)
    return r


def first_bad(fn, sizes):
    bad = [N for N in sizes if fn(N)]
    return bool(bad), f"false at sizes {bad[:8]}" if bad else "no size where it is false"


@case("S01_karr_sum_n_to_5", False, "Karr: true for n<=6, textbook 0 for n>=7")
def _():
    return (
        lambda: claim("S01_karr_sum_n_to_5", sp.Sum(1, (k, n, 5)), 6 - n, Domain(dims=(n,))),
        lambda: first_bad(lambda N: textbook_sum(lambda t: 1, N, 5) != 6 - N, range(1, 70)),
    )


@case(
    "S02_karr_product_n_to_3",
    False,
    "Karr: 2^(4-n) for all n; textbook 1 for n>=4, so it differs for n>=5",
)
def _():
    return (
        lambda: claim(
            "S02_karr_product_n_to_3", sp.Product(2, (k, n, 3)), 2 ** (4 - n), Domain(dims=(n,))
        ),
        lambda: first_bad(
            lambda N: differ(textbook_prod(lambda t: 2, N, 3), mp.mpf(2) ** (4 - N)), range(1, 70)
        ),
    )


@case("S03_telescoping_from_3", False, "1/2-1/n is wrong at n=1 (empty sum)")
def _():
    return (
        lambda: claim(
            "S03_telescoping_from_3",
            sp.Sum(1 / (k * (k - 1)), (k, 3, n)),
            half - 1 / n,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: differ(
                textbook_sum(lambda t: mp.mpf(1) / (t * (t - 1)), 3, N),
                mp.mpf(1) / 2 - mp.mpf(1) / N,
            ),
            range(1, 70),
        ),
    )


@case("S04_index_offset_two", False, "j in 1..n: at j=n the sum is 0, not -1")
def _():
    return (
        lambda: claim(
            "S04_index_offset_two",
            sp.Sum(1, (k, j + 2, n)),
            n - j - 1,
            Domain(dims=(n,), indices={j: (1, n)}),
        ),
        lambda: first_bad(
            lambda N: any(
                textbook_sum(lambda t: 1, J + 2, N) != N - J - 1 for J in range(1, N + 1)
            ),
            range(1, 20),
        ),
    )


@case(
    "S05_nested_inner_to_3", False, "inner sum empty for i>3; Karr form 4n-n(n+1)/2 wrong for n>=5"
)
def _():
    return (
        lambda: claim(
            "S05_nested_inner_to_3",
            sp.Sum(sp.Sum(1, (k, i_, 3)), (i_, 1, n)),
            4 * n - n * (n + 1) / 2,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: (
                sum(textbook_sum(lambda t: 1, I, 3) for I in range(1, N + 1))
                != 4 * N - N * (N + 1) // 2
            ),
            range(1, 70),
        ),
    )


@case("S06_nested_upper_n_minus_1", False, "Karr closed form n(n-3)/2; textbook (n-1)(n-2)/2")
def _():
    return (
        lambda: claim(
            "S06_nested_upper_n_minus_1",
            sp.Sum(sp.Sum(1, (l, k + 1, n - 1)), (k, 1, n)),
            n * (n - 3) / 2,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: (
                2 * sum(textbook_sum(lambda t: 1, K + 1, N - 1) for K in range(1, N + 1))
                != N * (N - 3)
            ),
            range(1, 70),
        ),
    )


@case("S07_range_n_plus_1_to_2n_minus_2", False, "at n=1 the range 2..0 is empty: 0, not -1")
def _():
    return (
        lambda: claim(
            "S07_range_n_plus_1_to_2n_minus_2",
            sp.Sum(1, (k, n + 1, 2 * n - 2)),
            n - 2,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: textbook_sum(lambda t: 1, N + 1, 2 * N - 2) != N - 2, range(1, 70)
        ),
    )


@case("S08_telescoping_product", False, "empty product at n=1 is 1, not n-1=0")
def _():
    return (
        lambda: claim(
            "S08_telescoping_product",
            sp.Product((k + 1) / k, (k, 1, n - 2)),
            n - 1,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: differ(textbook_prod(lambda t: mp.mpf(t + 1) / t, 1, N - 2), N - 1),
            range(1, 70),
        ),
    )


@case("S09_index_to_5", False, "j up to n: for j>=7 the sum is empty (0), not 6-j")
def _():
    return (
        lambda: claim(
            "S09_index_to_5", sp.Sum(1, (k, j, 5)), 6 - j, Domain(dims=(n,), indices={j: (1, n)})
        ),
        lambda: first_bad(
            lambda N: any(textbook_sum(lambda t: 1, J, 5) != 6 - J for J in range(1, N + 1)),
            range(1, 20),
        ),
    )


@case("S10_heaviside_mod200_partial_sums", False, "terms vanish for k<100 only: false for n>=100")
def _():
    return (
        lambda: claim(
            "S10_heaviside_mod200_partial_sums",
            sp.Sum(H(Mod(k, 200) - 100), (k, 1, n)),
            sp.Integer(0),
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: textbook_sum(lambda t: py_heaviside(t % 200 - 100), 1, N) != 0, range(1, 130)
        ),
    )


@case("S11_alternating_to_n_minus_2", False, "at n=1 empty sum 0, closed form gives -1")
def _():
    return (
        lambda: claim(
            "S11_alternating_to_n_minus_2",
            sp.Sum((-1) ** k, (k, 1, n - 2)),
            ((-1) ** n - 1) / 2,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: textbook_sum(lambda t: (-1) ** t, 1, N - 2) * 2 != (-1) ** N - 1, range(1, 70)
        ),
    )


@case("S12_product_n_to_4", False, "Karr: 24/(n-1)!; textbook 1 for n>=6")
def _():
    return (
        lambda: claim(
            "S12_product_n_to_4",
            sp.Product(k, (k, n, 4)),
            24 / sp.factorial(n - 1),
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: differ(textbook_prod(lambda t: t, N, 4), mp.mpf(24) / mp.factorial(N - 1)),
            range(1, 70),
        ),
    )


@case(
    "S13_sum_mod_k_floor_identity",
    False,
    "sum floor(k/2) = floor(n^2/4); (n^2-1)/4 is right for odd n only",
)
def _():
    return (
        lambda: claim(
            "S13_sum_mod_k_floor_identity",
            sp.Sum(sp.floor(k / 2), (k, 1, n)),
            (n**2 - 1) / 4,
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: 4 * textbook_sum(lambda t: t // 2, 1, N) != N * N - 1, range(1, 70)
        ),
    )


@case(
    "S14_karr_empty_beyond_64",
    False,
    "Sum_{k=1}^{70-n} 1 is 0 for n>=70; 70-n (Karr) is wrong for n>=71",
)
def _():
    return (
        lambda: claim(
            "S14_karr_empty_beyond_64", sp.Sum(1, (k, 1, 70 - n)), 70 - n, Domain(dims=(n,))
        ),
        lambda: first_bad(lambda N: textbook_sum(lambda t: 1, 1, 70 - N) != 70 - N, range(1, 100)),
    )


@case(
    "S15_karr_product_beyond_64",
    False,
    "Prod_{k=n}^{66} 2 is 1 for n>=67; 2^(67-n) (Karr) is wrong for n>=68",
)
def _():
    return (
        lambda: claim(
            "S15_karr_product_beyond_64",
            sp.Product(2, (k, n, 66)),
            2 ** (67 - n),
            Domain(dims=(n,)),
        ),
        lambda: first_bad(
            lambda N: differ(textbook_prod(lambda t: 2, N, 66), mp.mpf(2) ** (67 - N)),
            range(1, 100),
        ),
    )


# ---- true twins (sums)
@case("TS1_pairs", True)
def _():
    return (
        lambda: claim(
            "TS1_pairs",
            sp.Sum(sp.Sum(1, (l, k + 1, n)), (k, 1, n)),
            n * (n - 1) / 2,
            Domain(dims=(n,)),
        ),
        lambda: (
            not first_bad(
                lambda N: (
                    2 * sum(textbook_sum(lambda t: 1, K + 1, N) for K in range(1, N + 1))
                    != N * (N - 1)
                ),
                range(1, 70),
            )[0],
            "all sizes 1..69",
        ),
    )


@case("TS2_telescoping_product_full", True)
def _():
    return (
        lambda: claim(
            "TS2_telescoping_product_full",
            sp.Product(1 + 1 / k, (k, 1, n)),
            n + 1,
            Domain(dims=(n,)),
        ),
        lambda: (
            not first_bad(
                lambda N: differ(textbook_prod(lambda t: 1 + mp.mpf(1) / t, 1, N), N + 1),
                range(1, 70),
            )[0],
            "all sizes 1..69",
        ),
    )


@case("TS3_sum_n_to_5_max", True)
def _():
    return (
        lambda: claim(
            "TS3_sum_n_to_5_max", sp.Sum(1, (k, n, 5)), sp.Max(6 - n, 0), Domain(dims=(n,))
        ),
        lambda: (
            not first_bad(lambda N: textbook_sum(lambda t: 1, N, 5) != max(6 - N, 0), range(1, 70))[
                0
            ],
            "all sizes 1..69",
        ),
    )


@case("TS4_alternating_from_0", True)
def _():
    return (
        lambda: claim(
            "TS4_alternating_from_0", sp.Sum((-1) ** k, (k, 0, n - 1)), Mod(n, 2), Domain(dims=(n,))
        ),
        lambda: (
            not first_bad(
                lambda N: textbook_sum(lambda t: (-1) ** t, 0, N - 1) != N % 2, range(1, 70)
            )[0],
            "all sizes 1..69",
        ),
    )


@case("TS5_telescoping_piecewise", True)
def _():
    rhs = sp.Piecewise((half - 1 / n, n >= 2), (0, True))
    return (
        lambda: claim(
            "TS5_telescoping_piecewise",
            sp.Sum(1 / (k * (k - 1)), (k, 3, n)),
            rhs,
            Domain(dims=(n,)),
        ),
        lambda: (
            not first_bad(
                lambda N: differ(
                    textbook_sum(lambda t: mp.mpf(1) / (t * (t - 1)), 3, N),
                    (mp.mpf(1) / 2 - mp.mpf(1) / N) if N >= 2 else 0,
                ),
                range(1, 70),
            )[0],
            "all sizes 1..69",
        ),
    )


@case("TS6_floor_half_sum", True)
def _():
    return (
        lambda: claim(
            "TS6_floor_half_sum",
            sp.Sum(sp.floor(k / 2), (k, 1, n)),
            sp.floor(n**2 / 4),
            Domain(dims=(n,)),
        ),
        lambda: (
            not first_bad(
                lambda N: textbook_sum(lambda t: t // 2, 1, N) != N * N // 4, range(1, 200)
            )[0],
            "all sizes 1..199",
        ),
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


_PRECISION.__exit__(None, None, None)


# ---------------------------------------------------------------- as the project's cases
_CLASSES = {
    "L": "sequence limits",
    "TL": "sequence limits",
    "X": "sequence limits",
    "TX": "sequence limits",
    "S": "empty ranges",
    "TS": "empty ranges",
    "P": "jumps and forms",
    "TP": "jumps and forms",
}


def _witness(raw: _Raw):
    def truth() -> bool:
        with mp.workdps(40):
            agrees, _ = raw.check()
        return raw.truth if agrees else not raw.truth

    return truth


CASES: list[Case] = [
    Case(f"own_{r.id}", _CLASSES[re.match(r"[A-Z]+", r.id).group()], r.truth, r.build, _witness(r))
    for r in _RAW
]
