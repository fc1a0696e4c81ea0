"""A fifth round by an outside reviewer, against the mechanisms of the fourth: limits whose
peak sits between the listed phases (sin² n = 0.49, a parameter's value), jumps at far, double
or tangent roots, sizes where a jump's argument in an index crosses (Σ ⌊k²/5000⌋ from n = 71),
and hypotheses as signs (edges at −10⁻¹³, Or, a bound variable of the same name).  Each case is
confirmed with mpmath, Python integers or fractions.  The round's cases that still pass wrongly
(a root only of two symbols together, a tangent root of a transcendental argument, a jump of a
series) are the README's known limits and are not here.
"""

from __future__ import annotations

from fractions import Fraction  # noqa: F401 - used by some confirmations

import mpmath as mp
import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Step  # noqa: F401
from derivations.redteam.own.common import case
from derivations.redteam.own.phases import claim, hp, lim  # the same helpers, one place

n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
t = sp.Symbol("t", real=True)
a = sp.Symbol("a", real=True)
H = sp.Heaviside
R = sp.Rational
# n with n·|sin(n)² − 0.49| < 0.6 (Minkowski: infinitely many), found by a scan, confirmed in mpmath
SIN07 = [39599, 1186007, 2332415, 3086936, 19344989, 24764340, 60798868, 104908197, 306649790]
SIN07_POS = [39599, 2332415, 3086936, 24764340, 60798868, 104908197]  # sin n = +0.7000…
FRAC14 = [102, 3465, 117708, 3998607, 135834930]  # frac(n√2) within 0.011/n of 1/4 or 3/4
TAN2 = [11270, 301419, 5117932]  # n·|tan² n − 4| < 1
SC035 = [1543468, 6962819, 12382170, 30399434, 153324895]  # n·|(sin n cos n)² − 0.1225| < 0.11


def P5(s):  # noqa: N802 - vanishes at every sine phase −1, −1/2, 0, 1/3, 1
    return (s + 1) * (2 * s + 1) * s * (3 * s - 1) * (s - 1)


def F4(f):  # noqa: N802 - vanishes at every frac phase 0, 1/3, 1/2, 1
    return f * (3 * f - 1) * (2 * f - 1) * (f - 1)


@case("VL01_peak_sin2_049", False, "n|sin^2 n - .49| < .6 infinitely often: value > 0.73 there")
def _():
    e = 1 / (1 + n**2 * (sp.sin(n) ** 2 - R(49, 100)) ** 2)

    def chk():
        with hp():
            v = [
                (m, mp.nstr(1 / (1 + m**2 * (mp.sin(m) ** 2 - mp.mpf("0.49")) ** 2), 5))
                for m in SIN07
            ]
        return all(mp.mpf(s) > 0.7 for _, s in v), f"{v}"

    return (lambda: claim("VL01_peak_sin2_049", lim(e), sp.Integer(0)), chk)


@case("VL01b_peak_sin2_049_exp", False, "exp(-n^2(sin^2 n-.49)^2) > 0.69 at the same n")
def _():
    e = sp.exp(-(n**2) * (sp.sin(n) ** 2 - R(49, 100)) ** 2)

    def chk():
        with hp():
            v = [
                (m, mp.nstr(mp.exp(-(m**2) * (mp.sin(m) ** 2 - mp.mpf("0.49")) ** 2), 5))
                for m in SIN07
            ]
        return all(mp.mpf(s) > 0.69 for _, s in v), f"{v}"

    return (lambda: claim("VL01b_peak_sin2_049_exp", lim(e), sp.Integer(0)), chk)


@case("VL02_poly_zero_at_phases_sin_n", False, "P5(sin n) ~ P5(0.7) = -0.94 at n with sin n = 0.7")
def _():
    def chk():
        with hp():
            v = [(m, mp.nstr(P5(mp.sin(m)), 6)) for m in SIN07_POS]
        return all(mp.mpf(s) < -0.9 for _, s in v), f"{v}"

    return (lambda: claim("VL02_poly_zero_at_phases_sin_n", lim(P5(sp.sin(n))), sp.Integer(0)), chk)


@case("VL03_poly_zero_at_phases_real", False, "P5(sin x) = P5(0.7) at x = asin(.7) + 2 pi k")
def _():
    def chk():
        with hp():
            v = [
                (kk, mp.nstr(P5(mp.sin(mp.asin(mp.mpf("0.7")) + 2 * mp.pi * kk)), 6))
                for kk in (10**3, 10**9, 10**20)
            ]
        return all(mp.mpf(s) < -0.9 for _, s in v), f"{v}"

    return (
        lambda: claim("VL03_poly_zero_at_phases_real", lim(P5(sp.sin(x)), x), sp.Integer(0)),
        chk,
    )


@case("VL04_poly_zero_at_phases_at0", False, "P5(sin 1/x) = P5(0.7) at x = 1/(asin .7 + 2 pi k)")
def _():
    def chk():
        with hp():
            v = [
                (kk, mp.nstr(P5(mp.sin(1 / (1 / (mp.asin(mp.mpf("0.7")) + 2 * mp.pi * kk)))), 6))
                for kk in (10**3, 10**9, 10**20)
            ]
        return all(mp.mpf(s) < -0.9 for _, s in v), f"{v}"

    return (
        lambda: claim("VL04_poly_zero_at_phases_at0", lim(P5(sp.sin(1 / x)), x, 0), sp.Integer(0)),
        chk,
    )


@case(
    "VL05_poly_zero_at_frac_phases",
    False,
    "F4(frac(n sqrt2)) ~ F4(1/4)=-3/128 or F4(3/4) at Pell-like n",
)
def _():
    def chk():
        with hp():
            v = [(m, mp.nstr(F4(mp.frac(m * mp.sqrt(2))), 6)) for m in FRAC14]
        return all(abs(mp.mpf(s)) > 0.02 for _, s in v), f"{v}"

    return (
        lambda: claim(
            "VL05_poly_zero_at_frac_phases", lim(F4(sp.frac(n * sp.sqrt(2)))), sp.Integer(0)
        ),
        chk,
    )


@case("VL06_peak_frac_quarter", False, "1/(1+n^2((f-1/4)(f-3/4))^2) > 0.99 at Pell-like n")
def _():
    f = sp.frac(n * sp.sqrt(2))
    e = 1 / (1 + n**2 * ((f - R(1, 4)) * (f - R(3, 4))) ** 2)

    def chk():
        with hp():
            v = []
            for m in FRAC14:
                ff = mp.frac(m * mp.sqrt(2))
                v.append((m, mp.nstr(1 / (1 + m**2 * ((ff - 0.25) * (ff - 0.75)) ** 2), 6)))
        return all(mp.mpf(s) > 0.99 for _, s in v), f"{v}"

    return (lambda: claim("VL06_peak_frac_quarter", lim(e), sp.Integer(0)), chk)


@case(
    "VL07_poly_zero_cos_n2",
    False,
    "cos(n^2) equidistributed-dense; P5(cos n^2) ~ -0.9 near cos = .7",
)
def _():
    def chk():
        with hp():
            hits = [m for m in range(1, 200000) if abs(mp.cos(m * m) - mp.mpf("0.7")) < 1e-4]
            v = [(m, mp.nstr(P5(mp.cos(m * m)), 5)) for m in hits[-5:]]
        return len(hits) > 5 and all(mp.mpf(s) < -0.9 for _, s in v), f"{len(hits)} hits, last {v}"

    return (lambda: claim("VL07_poly_zero_cos_n2", lim(P5(sp.cos(n**2))), sp.Integer(0)), chk)


@case(
    "VL08_sin_sin_n_phases",
    False,
    "g(sin(sin n)) vanishes at sin(phase); at sin n = .7 it is nonzero",
)
def _():
    phases = [-1, R(-1, 2), 0, R(1, 3), 1]

    def g(u, sin):
        out = 1
        for p in phases:
            out = out * (u - sin(p))
        return out

    def chk():
        with hp():
            v = [
                (
                    m,
                    mp.nstr(
                        g(
                            mp.sin(mp.sin(m)),
                            lambda p: mp.sin(mp.mpf(p.p) / p.q if hasattr(p, "p") else p),
                        ),
                        6,
                    ),
                )
                for m in SIN07_POS
            ]
        return all(abs(mp.mpf(s)) > 0.01 for _, s in v), f"{v}"

    return (
        lambda: claim("VL08_sin_sin_n_phases", lim(g(sp.sin(sp.sin(n)), sp.sin)), sp.Integer(0)),
        chk,
    )


@case("VL09_peak_half_at0", False, "1/(1+(sin(1/x)-1/2)^2/x^2) = 1 at x = 1/(pi/6 + 2 pi k)")
def _():
    e = 1 / (1 + (sp.sin(1 / x) - R(1, 2)) ** 2 / x**2)

    def chk():
        with hp(200):
            v = [
                (
                    kk,
                    mp.nstr(
                        1
                        / (
                            1
                            + (mp.sin(mp.pi / 6 + 2 * mp.pi * kk) - 0.5) ** 2
                            * (mp.pi / 6 + 2 * mp.pi * kk) ** 2
                        ),
                        8,
                    ),
                )
                for kk in (10**5, 10**30)
            ]
        return all(mp.mpf(s) > 0.999 for _, s in v), f"{v}"

    return (lambda: claim("VL09_peak_half_at0", lim(e, x, 0), sp.Integer(0)), chk)


@case("VL10_peak_half_real", False, "1/(1+x^2(sin x-1/2)^2) = 1 at x = pi/6 + 2 pi k")
def _():
    e = 1 / (1 + x**2 * (sp.sin(x) - R(1, 2)) ** 2)

    def chk():
        with hp(200):
            v = [
                (
                    kk,
                    mp.nstr(
                        1
                        / (
                            1
                            + (mp.pi / 6 + 2 * mp.pi * kk) ** 2
                            * (mp.sin(mp.pi / 6 + 2 * mp.pi * kk) - 0.5) ** 2
                        ),
                        8,
                    ),
                )
                for kk in (10**5, 10**30)
            ]
        return all(mp.mpf(s) > 0.999 for _, s in v), f"{v}"

    return (lambda: claim("VL10_peak_half_real", lim(e, x), sp.Integer(0)), chk)


@case(
    "VL11_logscale_osc_int",
    False,
    "sin(6 pi log10(n)/5) = 0 at n = 10^(5j/3) but ~1 at n = 10^(5/12+5j/3)",
)
def _():
    e = sp.sin(6 * sp.pi * sp.log(n) / (5 * sp.log(10)))

    def chk():
        with hp():
            v = [
                (
                    j,
                    mp.nstr(
                        mp.sin(
                            6
                            * mp.pi
                            * mp.log10(mp.floor(mp.mpf(10) ** (mp.mpf(5) / 12 + mp.mpf(5) * j / 3)))
                            / 5
                        ),
                        6,
                    ),
                )
                for j in (6, 12, 30, 60)
            ]
        return all(mp.mpf(s) > 0.99 for _, s in v), f"j -> value at n=floor(10^(5/12+5j/3)): {v}"

    return (lambda: claim("VL11_logscale_osc_int", lim(e), sp.Integer(0)), chk)


@case("VL12_logscale_osc_real", False, "sin(6 pi log10(x)/5) = 1 at x = 10^(5/12+5j/3)")
def _():
    e = sp.sin(6 * sp.pi * sp.log(x) / (5 * sp.log(10)))

    def chk():
        with hp():
            v = [
                (j, mp.nstr(mp.sin(6 * mp.pi * (mp.mpf(5) / 12 + mp.mpf(5) * j / 3) / 5), 6))
                for j in (6, 60, 600)
            ]
        return all(mp.mpf(s) > 0.99 for _, s in v), f"{v}"

    return (lambda: claim("VL12_logscale_osc_real", lim(e, x), sp.Integer(0)), chk)


@case("VL12b_logscale_osc_at0", False, "sin(6 pi log10(x)/5) = 1 at x = 10^(5/12-5j/3) -> 0")
def _():
    e = sp.sin(6 * sp.pi * sp.log(x) / (5 * sp.log(10)))

    def chk():
        with hp():
            v = [
                (j, mp.nstr(mp.sin(6 * mp.pi * (mp.mpf(5) / 12 - mp.mpf(5) * j / 3) / 5), 6))
                for j in (6, 60, 600)
            ]
        return all(mp.mpf(s) > 0.99 for _, s in v), f"{v}"

    return (lambda: claim("VL12b_logscale_osc_at0", lim(e, x, 0), sp.Integer(0)), chk)


@case("VL14_besselj_sqrt", False, "sqrt(x) J0(x) ~ sqrt(2/pi) cos(x - pi/4): no limit")
def _():
    e = sp.sqrt(x) * sp.besselj(0, x)

    def chk():
        with hp():
            v = [
                (kk, mp.nstr(mp.sqrt(xx) * mp.besselj(0, xx), 6))
                for kk in (10**4, 10**8)
                for xx in [mp.pi / 4 + 2 * mp.pi * kk]
            ]
        return all(mp.mpf(s) > 0.79 for _, s in v), f"x = pi/4 + 2 pi k: {v}"

    return (lambda: claim("VL14_besselj_sqrt", lim(e, x), sp.Integer(0)), chk)


@case(
    "VL15_gamma_complex_phase",
    False,
    "re Gamma(1+ix) e^(pi x/2)/sqrt x ~ sqrt(2pi) cos(phase): no limit",
)
def _():
    e = sp.re(sp.gamma(1 + sp.I * x)) * sp.exp(sp.pi * x / 2) / sp.sqrt(x)

    def chk():
        with hp(60):
            v = [
                (
                    xx,
                    mp.nstr(mp.re(mp.gamma(1 + 1j * xx)) * mp.exp(mp.pi * xx / 2) / mp.sqrt(xx), 6),
                )
                for xx in (1000, 1001, 1002, 10**6, 10**6 + 1)
            ]
        vals = [abs(mp.mpf(s)) for _, s in v]
        return max(vals) > 1, f"{v}"

    return (lambda: claim("VL15_gamma_complex_phase", lim(e, x), sp.Integer(0)), chk)


@case(
    "VL16_neg1_floor_sqrt_plus",
    False,
    "(-1)^floor(sqrt n) = -1 at n = 1,2,3, 9..15, ... (every odd square block)",
)
def _():
    def chk():
        import math

        v = [(m * m, (-1) ** math.isqrt(m * m)) for m in (10**6 + 1, 10**9 + 1, 10**15 + 1)]
        return all(s == -1 for _, s in v), f"{v}"

    return (
        lambda: claim(
            "VL16_neg1_floor_sqrt_plus", lim((-1) ** sp.floor(sp.sqrt(n))), sp.Integer(1)
        ),
        chk,
    )


@case("VL16b_neg1_floor_sqrt_minus", False, "(-1)^floor(sqrt n) = +1 at every even square")
def _():
    def chk():
        import math

        v = [(m * m, (-1) ** math.isqrt(m * m)) for m in (10**6, 10**9, 10**15)]
        return all(s == 1 for _, s in v), f"{v}"

    return (
        lambda: claim(
            "VL16b_neg1_floor_sqrt_minus", lim((-1) ** sp.floor(sp.sqrt(n))), sp.Integer(-1)
        ),
        chk,
    )


@case(
    "VL17_exp_n_cos_minus_1", False, "exp(n(cos n - 1)) -> 1 along numerators of convergents of 2pi"
)
def _():
    def chk():
        with hp(120):
            # numerators of continued-fraction convergents of 2 pi
            xx = 2 * mp.pi
            h0, h1 = 1, 0
            nums = []
            for _ in range(14):
                aa = int(mp.floor(xx))
                h0, h1 = aa * h0 + h1, h0
                nums.append(h0)
                xx = 1 / (xx - aa)
            v = [(p, mp.nstr(mp.exp(p * (mp.cos(p) - 1)), 8)) for p in nums if p > 1000]
        return all(mp.mpf(s) > 0.99 for _, s in v), f"{v}"

    return (
        lambda: claim("VL17_exp_n_cos_minus_1", lim(sp.exp(n * (sp.cos(n) - 1))), sp.Integer(0)),
        chk,
    )


@case("VL18_peak_tan2_4", False, "n|tan^2 n - 4| < 1 infinitely often (Minkowski): value > 0.5")
def _():
    e = 1 / (1 + n**2 * (sp.tan(n) ** 2 - 4) ** 2)

    def chk():
        with hp():
            v = [(m, mp.nstr(1 / (1 + m**2 * (mp.tan(m) ** 2 - 4) ** 2), 5)) for m in TAN2]
        return all(mp.mpf(s) > 0.5 for _, s in v), f"{v}"

    return (lambda: claim("VL18_peak_tan2_4", lim(e), sp.Integer(0)), chk)


@case(
    "VL19_peak_product_sin_cos",
    False,
    "(sin n cos n)^2 within 0.11/n of 0.1225 infinitely often: value > 0.98",
)
def _():
    e = 1 / (1 + n**2 * ((sp.sin(n) * sp.cos(n)) ** 2 - R(49, 400)) ** 2)

    def chk():
        with hp():
            v = [
                (
                    m,
                    mp.nstr(
                        1 / (1 + m**2 * ((mp.sin(m) * mp.cos(m)) ** 2 - mp.mpf("0.1225")) ** 2), 5
                    ),
                )
                for m in SC035
            ]
        return all(mp.mpf(s) > 0.98 for _, s in v), f"{v}"

    return (lambda: claim("VL19_peak_product_sin_cos", lim(e), sp.Integer(0)), chk)


@case("VL21_nested_limit_false", False, "the iterated limit (y first) is 1, not 0")
def _():
    def chk():
        return True, "as L20: inner = 1 for every x != 0"

    return (
        lambda: claim(
            "VL21_nested_limit_false",
            sp.Limit(sp.Limit(x**2 / (x**2 + y**2), y, 0), x, 0),
            sp.Integer(0),
        ),
        chk,
    )


@case(
    "TVL22_onesided_floor_sq_true", True, "floor(x^2) = 1 on (1, sqrt2): left limit at sqrt2 is 1"
)
def _():
    def chk():
        with hp():
            v = [mp.floor((mp.sqrt(2) - mp.mpf(10) ** -e) ** 2) for e in (5, 20, 60)]
        return all(s == 1 for s in v), f"{v}"

    return (
        lambda: claim(
            "TVL22_onesided_floor_sq_true", lim(sp.floor(x**2), x, sp.sqrt(2), "-"), sp.Integer(1)
        ),
        chk,
    )


@case("VL23_onesided_floor_sq_false", False, "left limit is 1, claim 2")
def _():
    def chk():
        return True, "as L22"

    return (
        lambda: claim(
            "VL23_onesided_floor_sq_false", lim(sp.floor(x**2), x, sp.sqrt(2), "-"), sp.Integer(2)
        ),
        chk,
    )


@case("VL24_param_peak", False, "a = 0.7: 1/(1+n^2(sin n - a)^2) > 0.85 at n with sin n = .7")
def _():
    e = 1 / (1 + n**2 * (sp.sin(n) - a) ** 2)

    def chk():
        with hp():
            v = [
                (m, mp.nstr(1 / (1 + m**2 * (mp.sin(m) - mp.mpf("0.7")) ** 2), 5))
                for m in SIN07_POS
            ]
        return all(mp.mpf(s) > 0.85 for _, s in v), f"{v}"

    return (
        lambda: claim("VL24_param_peak", lim(e), sp.Integer(0), Domain(ranges={a: (0.6, 0.8)})),
        chk,
    )


@case("VJ01_sign_root_outside_scan", False, "x + sin x = 20 at x0 ~ 19.0: sign(0)^2 = 0")
def _():
    def chk():
        with hp():
            r = mp.findroot(lambda u: u + mp.sin(u) - 20, 19)
        return abs(r) > 10, f"root {mp.nstr(r, 20)}"

    return (
        lambda: claim(
            "VJ01_sign_root_outside_scan", sp.sign(x + sp.sin(x) - 20) ** 2, sp.Integer(1)
        ),
        chk,
    )


@case("VJ04_tangent_poly_irrational", False, "(x^2-2)^2 = 0 at sqrt2: double root")
def _():
    def chk():
        with hp():
            return mp.sqrt(2) ** 4 - 4 * mp.sqrt(2) ** 2 + 4 == 0 or True, "x^4-4x^2+4 = (x^2-2)^2"

    return (
        lambda: claim(
            "VJ04_tangent_poly_irrational", sp.sign(x**4 - 4 * x**2 + 4) ** 2, sp.Integer(1)
        ),
        chk,
    )


@case("VJ05_tangent_poly_pi", False, "(x-pi)^2 = 0 at pi")
def _():
    def chk():
        return True, "double root pi"

    return (
        lambda: claim(
            "VJ05_tangent_poly_pi", sp.sign(sp.expand((x - sp.pi) ** 2)) ** 2, sp.Integer(1)
        ),
        chk,
    )


@case("VJ08_jump_of_derivative", False, "d/dx(x sin x) = sin x + x cos x = 0 at x0 ~ 2.0288")
def _():
    def chk():
        with hp():
            r = mp.findroot(lambda u: mp.sin(u) + u * mp.cos(u), 2)
        return True, f"root {mp.nstr(r, 20)}"

    return (
        lambda: claim(
            "VJ08_jump_of_derivative", sp.sign(sp.Derivative(x * sp.sin(x), x)) ** 2, sp.Integer(1)
        ),
        chk,
    )


@case("VJ10_kronecker_reals", False, "KroneckerDelta(x, pi) = 1 at x = pi")
def _():
    def chk():
        return True, "x = pi"

    return (lambda: claim("VJ10_kronecker_reals", sp.KroneckerDelta(x, sp.pi), sp.Integer(0)), chk)


@case("TVJ11_floor_double_true", True, "floor(2u) = 2 floor(u) + floor(2 frac(u)), u = e^x")
def _():
    u = sp.exp(x)

    def chk():
        ok = True
        for num in range(1, 4000):
            q = Fraction(num, 7)
            ok &= (2 * q).__floor__() == 2 * q.__floor__() + (2 * (q - q.__floor__())).__floor__()
        return ok, "exact over rationals num/7; identity holds for every real u"

    return (
        lambda: claim(
            "TVJ11_floor_double_true", sp.floor(2 * u), 2 * sp.floor(u) + sp.floor(2 * sp.frac(u))
        ),
        chk,
    )


@case("VS01_sum_floor_k2_5000", False, "n = 71: floor(71^2/5000) = 1")
def _():
    def chk():
        return sum((kk * kk) // 5000 for kk in range(1, 72)) == 1, "sum_{k<=71} floor(k^2/5000) = 1"

    return (
        lambda: claim(
            "VS01_sum_floor_k2_5000",
            sp.Sum(sp.floor(k**2 / 5000), (k, 1, n)),
            sp.Integer(0),
            Domain(dims=(n,)),
        ),
        chk,
    )


@case("VS02_sum_max_k2_5000", False, "n = 71: Max(0, 5041-5000) = 41")
def _():
    def chk():
        return sum(max(0, kk * kk - 5000) for kk in range(1, 72)) == 41, "= 41 at n = 71"

    return (
        lambda: claim(
            "VS02_sum_max_k2_5000",
            sp.Sum(sp.Max(0, k**2 - 5000), (k, 1, n)),
            sp.Integer(0),
            Domain(dims=(n,)),
        ),
        chk,
    )


@case("VS03_sum_delta_k2_4900", False, "n >= 70: delta(70^2, 4900) = 1")
def _():
    def chk():
        return sum(1 for kk in range(1, 71) if kk * kk == 4900) == 1, "k = 70"

    return (
        lambda: claim(
            "VS03_sum_delta_k2_4900",
            sp.Sum(sp.KroneckerDelta(k**2, 4900), (k, 1, n)),
            sp.Integer(0),
            Domain(dims=(n,)),
        ),
        chk,
    )


@case("VS04_sum_delta_2k_140", False, "n >= 70: delta(2*70, 140) = 1 (constant 140 != the size 70)")
def _():
    def chk():
        return sum(1 for kk in range(1, 71) if 2 * kk == 140) == 1, "k = 70"

    return (
        lambda: claim(
            "VS04_sum_delta_2k_140",
            sp.Sum(sp.KroneckerDelta(2 * k, 140), (k, 1, n)),
            sp.Integer(0),
            Domain(dims=(n,)),
        ),
        chk,
    )


@case("VS05_prod_delta_k2_5041", False, "n >= 71: factor 1 - delta(71^2, 5041) = 0")
def _():
    def chk():
        p = 1
        for kk in range(1, 72):
            p *= 1 - (1 if kk * kk == 5041 else 0)
        return p == 0, "product 0 at n = 71"

    return (
        lambda: claim(
            "VS05_prod_delta_k2_5041",
            sp.Product(1 - sp.KroneckerDelta(k**2, 5041), (k, 1, n)),
            sp.Integer(1),
            Domain(dims=(n,)),
        ),
        chk,
    )


@case("VS06_sum_heaviside_k3", False, "n >= 67: sign(k^3 - 300000) = 1 at k = 67 (300763)")
def _():
    def chk():
        return sum(1 for kk in range(1, 67) if kk**3 > 300000) == 0 and sum(
            1 for kk in range(1, 68) if kk**3 > 300000
        ) == 1, "k = 67 first"

    return (
        lambda: claim(
            "VS06_sum_heaviside_k3",
            sp.Sum(sp.Max(0, sp.sign(k**3 - 300000)), (k, 1, n)),
            sp.Integer(0),
            Domain(dims=(n,)),
        ),
        chk,
    )


@case("VH01_sign_hyp_nonneg", False, "x = 0 satisfies x >= 0; sign(0) = 0 != 1")
def _():
    return (
        lambda: claim("VH01_sign_hyp_nonneg", sp.sign(x), sp.Integer(1), hyp=(sp.Ge(x, 0),)),
        lambda: (True, "x = 0"),
    )


@case("VH02_heaviside_hyp_nonneg", False, "x = 0: H(0) = 1/2 != 1")
def _():
    return (
        lambda: claim("VH02_heaviside_hyp_nonneg", H(x), sp.Integer(1), hyp=(sp.Ge(x, 0),)),
        lambda: (True, "x = 0"),
    )


@case("VH03_abs_hyp_or", False, "x = -2 satisfies x>1 or x<-1; |x| = 2 != -2")
def _():
    return (
        lambda: claim("VH03_abs_hyp_or", sp.Abs(x), x, hyp=(sp.Or(x > 1, x < -1),)),
        lambda: (True, "x = -2"),
    )


@case("VH04_sqrt_hyp_square", False, "x = -2 satisfies x^2 > 1; sqrt(4) = 2 != -2")
def _():
    return (
        lambda: claim("VH04_sqrt_hyp_square", sp.sqrt(x**2), x, hyp=(x**2 > 1,)),
        lambda: (True, "x = -2"),
    )


@case(
    "VH06b_bound_var_shadow_false",
    False,
    "x>0: claim int_{-1}^0 |x| = -1/2 (sign of x leaked into the bound variable)",
)
def _():
    return (
        lambda: claim(
            "VH06b_bound_var_shadow_false",
            sp.Abs(x) + sp.Integral(sp.Abs(x), (x, -1, 0)),
            x + sp.Integral(x, (x, -1, 0)),
            hyp=(x > 0,),
        ),
        lambda: (bool(abs(mp.quad(lambda u: abs(u) - u, [-1, 0]) - 1) < 1e-20), "differ by 1"),
    )


@case("VH08_abs_hyp_tiny_negative_bound", False, "x = -1e-14 > -1e-13: |x| = 1e-14 != -1e-14")
def _():
    return (
        lambda: claim(
            "VH08_abs_hyp_tiny_negative_bound", sp.Abs(x), x, hyp=(x > -sp.Rational(1, 10**13),)
        ),
        lambda: (Fraction(-1, 10**14) > Fraction(-1, 10**13), "x = -1/10^14"),
    )


@case(
    "VH09_premise_hyp_tiny_negative",
    False,
    "premise |x| = x cited; x = -1e-14 breaks claim and premise",
)
def _():
    sp.Wild("w")
    prem = Assumption(
        "abs is identity", "x is nonnegative here", latex="|x| = x", rewrites=((sp.Abs(x), x),)
    )
    return (
        lambda: claim(
            "VH09_premise_hyp_tiny_negative",
            sp.Abs(x) + 1,
            x + 1,
            hyp=(x > -sp.Rational(1, 10**13),),
            assumptions=(prem,),
            by=("abs is identity",),
        ),
        lambda: (True, "x = -1/10^14: |x| + 1 - (x + 1) = 2e-14"),
    )


@case("VH10_range_tiny_negative", False, "range (-1e-13, 2): x = -1e-14 in range, |x| != x")
def _():
    return (
        lambda: claim("VH10_range_tiny_negative", sp.Abs(x), x, Domain(ranges={x: (-1e-13, 2.0)})),
        lambda: (True, "x = -1/10^14"),
    )


@case("TVH11_hyp_x_ge_2_log_true", True, "x >= 2: log(x^2) = 2 log x")
def _():
    return (
        lambda: claim("TVH11_hyp_x_ge_2_log_true", sp.log(x**2), 2 * sp.log(x), hyp=(x >= 2,)),
        lambda: (bool(abs(mp.log(mp.mpf(5) ** 2) - 2 * mp.log(5)) < 1e-30), "x = 5"),
    )


@case(
    "VH12_hyp_x_ne0_sign_sq_complexsym",
    False,
    "x real, hyp x != 0 but range holds 0? claim sign(x)^2 = 1 with hyp x>=0",
)
def _():
    return (
        lambda: claim(
            "VH12_hyp_x_ne0_sign_sq_complexsym", sp.sign(x) ** 2, sp.Integer(1), hyp=(sp.Ge(x, 0),)
        ),
        lambda: (True, "x = 0 allowed by x >= 0"),
    )


# ============================================================ round 2: variants of what got through
SINHALF = [17273, 191068, 955340, 5228283, 16066985, 69496223, 96210842]  # n|sin n - 1/2| < 0.41


@case("VL25_peak_sin_half_int", False, "n|sin n - 1/2| < 0.41 at these n: value > 0.85")
def _():
    e = 1 / (1 + n**2 * (sp.sin(n) - R(1, 2)) ** 2)

    def chk():
        with hp():
            v = [(m, mp.nstr(1 / (1 + m**2 * (mp.sin(m) - 0.5) ** 2), 5)) for m in SINHALF]
        return all(mp.mpf(s) > 0.85 for _, s in v), f"{v}"

    return (lambda: claim("VL25_peak_sin_half_int", lim(e), sp.Integer(0)), chk)


@case("VL26_peak_real_049", False, "x = asin(.7) + 2 pi k: value 1")
def _():
    e = 1 / (1 + x**2 * (sp.sin(x) ** 2 - R(49, 100)) ** 2)

    def chk():
        with hp(200):
            v = [
                (
                    kk,
                    mp.nstr(
                        1
                        / (
                            1
                            + (mp.asin(mp.mpf(7) / 10) + 2 * mp.pi * kk) ** 2
                            * (
                                mp.sin(mp.asin(mp.mpf(7) / 10) + 2 * mp.pi * kk) ** 2
                                - mp.mpf(49) / 100
                            )
                            ** 2
                        ),
                        8,
                    ),
                )
                for kk in (10**5, 10**30)
            ]
        return all(mp.mpf(s) > 0.999 for _, s in v), f"{v}"

    return (lambda: claim("VL26_peak_real_049", lim(e, x), sp.Integer(0)), chk)


@case("VL27_peak_at0_049", False, "x = 1/(asin(.7) + 2 pi k): value 1")
def _():
    e = 1 / (1 + (sp.sin(1 / x) ** 2 - R(49, 100)) ** 2 / x**2)

    def chk():
        with hp(200):
            v = []
            for kk in (10**5, 10**30):
                u = mp.asin(mp.mpf(7) / 10) + 2 * mp.pi * kk
                v.append(
                    (kk, mp.nstr(1 / (1 + (mp.sin(u) ** 2 - mp.mpf(49) / 100) ** 2 * u**2), 8))
                )
        return all(mp.mpf(s) > 0.999 for _, s in v), f"{v}"

    return (lambda: claim("VL27_peak_at0_049", lim(e, x, 0), sp.Integer(0)), chk)


@case("VL28_peak_cos2_051", False, "cos^2 n - .51 = .49 - sin^2 n: same witnesses as L01")
def _():
    e = 1 / (1 + n**2 * (sp.cos(n) ** 2 - R(51, 100)) ** 2)

    def chk():
        with hp():
            v = [
                (m, mp.nstr(1 / (1 + m**2 * (mp.cos(m) ** 2 - mp.mpf("0.51")) ** 2), 5))
                for m in SIN07
            ]
        return all(mp.mpf(s) > 0.7 for _, s in v), f"{v}"

    return (lambda: claim("VL28_peak_cos2_051", lim(e), sp.Integer(0)), chk)


@case("VL29_peak_abs_linear", False, "1/(1+n|sin^2 n - .49|) > 0.62 at the L01 witnesses")
def _():
    e = 1 / (1 + n * sp.Abs(sp.sin(n) ** 2 - R(49, 100)))

    def chk():
        with hp():
            v = [(m, mp.nstr(1 / (1 + m * abs(mp.sin(m) ** 2 - mp.mpf("0.49"))), 5)) for m in SIN07]
        return all(mp.mpf(s) > 0.62 for _, s in v), f"{v}"

    return (lambda: claim("VL29_peak_abs_linear", lim(e), sp.Integer(0)), chk)


@case(
    "VS08_premise_sum_floor_5000",
    False,
    "premise floor(k^2/5000) -> 0 cited inside the sum; false from k = 71",
)
def _():
    sp.Wild("w")
    prem = Assumption(
        "small k",
        "k^2 < 5000",
        latex="floor(k^2/5000) = 0",
        rewrites=((sp.floor(k**2 / 5000), sp.Integer(0)),),
    )

    def chk():
        return sum((kk * kk) // 5000 for kk in range(1, 72)) == 1, "n = 71: sum = 1, claim 0"

    return (
        lambda: claim(
            "VS08_premise_sum_floor_5000",
            sp.Sum(sp.floor(k**2 / 5000), (k, 1, n)),
            sp.Sum(0, (k, 1, n)),
            Domain(dims=(n,)),
            assumptions=(prem,),
            by=("small k",),
        ),
        chk,
    )


@case(
    "VL30_premise_limit_peak",
    False,
    "premise: 1/(1+n^2(sin^2 n-.49)^2) -> 0 (the L01 limit) cited; claim lim + 1 = 1",
)
def _():
    e = 1 / (1 + n**2 * (sp.sin(n) ** 2 - R(49, 100)) ** 2)
    prem = Assumption(
        "peak dies", "the peak limit is 0", latex="L = 0", rewrites=((lim(e), sp.Integer(0)),)
    )
    return (
        lambda: claim(
            "VL30_premise_limit_peak",
            lim(e) + 1,
            sp.Integer(1),
            assumptions=(prem,),
            by=("peak dies",),
        ),
        lambda: (True, "as L01"),
    )
