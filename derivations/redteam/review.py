"""An outside review: claims written from the public API only, meant to fool the verifier.

Classes: premises, distributions, noncommutative, sampling gaps, floats, evaluation errors,
undeclared, shared limits, shared integration. Every case carries a witness that decides its
truth without the engine and without SymPy's integrate/limit/summation/doit/simplify/solve:
mpmath at 30-60 digits (quad, direct evaluation at seeded random points, sizes up to 64, values
up to 1e12) or NumPy (random matrices for the noncommutative claims). For an ill-formed claim
(a refusal is expected) the witness returns False: the claim is not well-formed.

    python -m derivations.redteam.review            # every witness against its declared truth
    python -m derivations.redteam.review --engine   # and every case through the engine (60 s each)
"""

from __future__ import annotations

import random

import mpmath as mp
import numpy as np
import sympy as sp

from derivations.engine.core.claim import Assumption, Step
from derivations.engine.core.domain import Domain
from derivations.engine.core.stochastic import E, Var
from derivations.redteam.cases import Case, claim

CASES: list[Case] = []


def add(cid, cls, true, build, witness):
    CASES.append(Case(cid, cls, true, build, witness))


# ---- symbols ---------------------------------------------------------------------------------
x, y = sp.symbols("x y", real=True)
t = sp.Symbol("t", real=True)
p = sp.Symbol("p", positive=True)
k = sp.Symbol("k", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True)
z = sp.IndexedBase("z", real=True)
mu = sp.Symbol("mu", real=True)
s2 = sp.Symbol("s2", positive=True)
c1, c2 = sp.symbols("c1 c2", real=True)
r1, r2 = sp.symbols("r1 r2", real=True)
wild = sp.Wild("u")
DN = Domain(dims=(n,))
DNI = Domain(dims=(n,), indices={i: (1, n)})
oo = sp.oo
R = sp.Rational


# ---- witness helpers (mpmath / NumPy only) ----------------------------------------------------
mp.mp.dps = 50


def reals(seed, count=40, lo=-12, hi=12, positive=False):
    """Seeded values of magnitude 10**U(lo, hi), of either sign unless positive."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        v = mp.mpf(10) ** mp.mpf(rng.uniform(lo, hi))
        out.append(v if positive or rng.random() < 0.5 else -v)
    return out


def close(a, b, rel=None):
    rel = mp.mpf(10) ** -30 if rel is None else rel
    if isinstance(a, mp.mpc) or isinstance(b, mp.mpc):
        a, b = mp.mpc(a), mp.mpc(b)
    return abs(a - b) <= rel * max(1, abs(a), abs(b))


def holds(f, g, points, dps=50, rel=None):
    """True iff f(v) == g(v) (to rel) at every point."""
    with mp.workdps(dps):
        r = rel if rel is not None else mp.mpf(10) ** (-(dps * 3 // 5))
        for v in points:
            try:
                a, b = f(v), g(v)
            except (ValueError, ZeroDivisionError):
                return False
            if not (mp.isfinite(a) and mp.isfinite(b)) or not close(a, b, r):
                return False
    return True


def sizes(f, g, top=64):
    """True iff f(n) == g(n) exactly (mpmath at 60 digits) for every size 1..top."""
    return holds(f, g, range(1, top + 1), dps=60)


def zvec(seed, m):
    rng = random.Random(seed)
    return [mp.mpf(rng.uniform(-3, 3)) for _ in range(m + 1)]  # z[1..m]; z[0] unused


def sig(v):
    return 1 / (1 + mp.exp(-v))


# laws with mean m and variance v: E[f(X)] for each
def law_normal(m, v):
    sd = mp.sqrt(v)
    return lambda f: mp.quad(lambda u: f(m + sd * u) * mp.npdf(u), [-mp.inf, -5, 0, 5, mp.inf])


def law_two_point(m, v):  # the shifted Rademacher law: m ± sd
    sd = mp.sqrt(v)
    return lambda f: (f(m - sd) + f(m + sd)) / 2


def law_skewed(m, v):  # t in {-1, 2}/sqrt(2) w.p. {2/3, 1/3}: mean 0, variance 1, skewed
    sd, s = mp.sqrt(v), 1 / mp.sqrt(2)
    return lambda f: (2 * f(m - sd * s) + f(m + 2 * sd * s)) / 3


def law_exponential(m, v):  # m + sd (Exp(1) - 1)
    sd = mp.sqrt(v)
    return lambda f: mp.quad(lambda u: f(m + sd * (u - 1)) * mp.exp(-u), [0, 1, 10, mp.inf])


ANY_LAWS = (law_normal, law_two_point, law_skewed, law_exponential)
PARAMS = ((mp.mpf(0), mp.mpf(1)), (mp.mpf("0.7"), mp.mpf("2.3")), (mp.mpf(-1.5), mp.mpf("0.4")))


def one_var(lhs, rhs, laws=ANY_LAWS, params=PARAMS):
    """lhs(Ex, m, v) == rhs(m, v) for every law and parameter pair; Ex: f -> E[f(X)]."""
    with mp.workdps(30):
        for m, v in params:
            for law in laws:
                if not close(lhs(law(m, v), m, v), rhs(m, v), mp.mpf(10) ** -15):
                    return False
    return True


def two_var(lhs, rhs, discrete_laws=(law_two_point, law_skewed), params=PARAMS):
    """As one_var for two independent variables, exactly over discrete laws (finite support)
    and over the normal by Gauss-Hermite quadrature (exact for the polynomials used)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(20)
    weights = weights / weights.sum()
    for m, v in params:
        m, v = float(m), float(v)
        sd = np.sqrt(v)

        def normal(f, m=m, sd=sd):
            return sum(w * f(m + sd * u) for u, w in zip(nodes, weights, strict=True))

        def normal2(f, m=m, sd=sd):
            return sum(w1 * w2 * f(m + sd * u1, m + sd * u2)
                       for u1, w1 in zip(nodes, weights, strict=True)
                       for u2, w2 in zip(nodes, weights, strict=True))

        laws = [(normal, normal2)]
        for law in discrete_laws:
            E1 = law(mp.mpf(m), mp.mpf(v))
            laws.append((lambda f, E1=E1: float(E1(f)),
                         lambda f, E1=E1: float(E1(lambda u: E1(lambda w, u=u: f(u, w))))))
        for E1, E2 in laws:
            a, b = lhs(E1, E2, m, v), rhs(m, v)
            if abs(a - b) > 1e-9 * max(1, abs(a), abs(b)):
                return False
    return True


def ill_formed():
    return False  # the claim is not well-formed (undeclared/unbounded index): refusal expected


# =============================================================================================
# premises: a rewrite true at small sizes / moderate values, not on the claim's whole domain
# =============================================================================================
PRE = "premises"
_small_n = Assumption("small n", "n <= 10, so min(n, 10) = n", rewrites=((sp.Min(n, 10), n),))
add("pre_min_n_10", PRE, False,
    lambda: claim("pre_min_n_10", 2 * sp.Min(n, 10), 2 * n, DN, (_small_n,),
                  (Step(2 * n, "assumption", ("small n",)),)),
    lambda: sizes(lambda m: 2 * min(m, 10), lambda m: 2 * m))

_moderate_x = Assumption("moderate x", "|x| < 1e4, so min(x, 1e4) = x",
                         rewrites=((sp.Min(x, 10**4), x),))
add("pre_min_x_1e4", PRE, False,
    lambda: claim("pre_min_x_1e4", sp.Min(x, 10**4) + 1, x + 1, None, (_moderate_x,),
                  (Step(x + 1, "assumption", ("moderate x",)),)),
    lambda: holds(lambda v: min(v, 10**4) + 1, lambda v: v + 1, reals(1)))

_short_sum = Assumption("short sequence", "n <= 6, so the sum stops at min(n, 6) = n",
                        rewrites=((sp.Min(n, 6), n),))
add("pre_sum_bound_min6", PRE, False,
    lambda: claim("pre_sum_bound_min6", sp.Sum(z[i], (i, 1, sp.Min(n, 6))),
                  sp.Sum(z[i], (i, 1, n)), DN, (_short_sum,),
                  (Step(sp.Sum(z[i], (i, 1, n)), "assumption", ("short sequence",)),)),
    lambda: all(holds(lambda m, zz=zz: mp.fsum(zz[1:min(m, 6) + 1]),
                      lambda m, zz=zz: mp.fsum(zz[1:m + 1]), range(1, 65))
                for zz in (zvec(s, 64) for s in range(3))))

_mod7 = Assumption("residues", "every index is below 7, so Mod(u, 7) = u",
                   rewrites=((sp.Mod(wild, 7), wild),))
add("pre_mod7_in_sum_body", PRE, False,
    lambda: claim("pre_mod7_in_sum_body", sp.Sum(sp.Mod(i, 7), (i, 1, n)), n * (n + 1) / 2, DN,
                  (_mod7,), (Step(sp.Sum(i, (i, 1, n)), "assumption", ("residues",)),
                             Step(n * (n + 1) / 2, "Gauss"))),
    lambda: sizes(lambda m: sum(q % 7 for q in range(1, m + 1)), lambda m: m * (m + 1) // 2))

_no_overflow = Assumption("no overflow", "x < 1e4, so max(x - 1e4, 0) = 0",
                          rewrites=((sp.Max(x - 10**4, 0), 0),))
add("pre_in_algebraic_step", PRE, False,
    lambda: claim("pre_in_algebraic_step", (x + 1) ** 2 + sp.Max(x - 10**4, 0),
                  x**2 + 2 * x + 1, None, (_no_overflow,),
                  (Step(x**2 + 2 * x + 1, "expand the square; no overflow", ("no overflow",)),)),
    lambda: holds(lambda v: (v + 1) ** 2 + max(v - 10**4, 0), lambda v: v**2 + 2 * v + 1,
                  reals(2)))

_floor7 = Assumption("short", "n < 7, so floor(n/7) = 0", rewrites=((sp.floor(n / 7), 0),))
add("pre_floor_n_7", PRE, False,
    lambda: claim("pre_floor_n_7", n - 7 * sp.floor(n / 7), n, DN, (_floor7,),
                  (Step(n, "assumption", ("short",)),)),
    lambda: sizes(lambda m: m - 7 * (m // 7), lambda m: m))

_clip = Assumption("inside the clip", "|x| < 1e6, so the clip is the identity",
                   rewrites=((sp.Max(sp.Min(x, 10**6), -(10**6)), x),))
add("pre_clip_1e6_derivative", PRE, False,
    lambda: claim("pre_clip_1e6_derivative", sp.Max(sp.Min(x, 10**6), -(10**6)) ** 2, x**2, None,
                  (_clip,), (Step(x**2, "assumption", ("inside the clip",)),)),
    lambda: holds(lambda v: max(min(v, 10**6), -(10**6)) ** 2, lambda v: v**2, reals(3)))

_slow_decay = Assumption("slow decay", "x/1e8 is negligible, so exp(-x/1e8) = 1",
                         rewrites=((sp.exp(-x / 10**8), 1),))
add("pre_negligible_exp", PRE, False,
    lambda: claim("pre_negligible_exp", x * sp.exp(-x / 10**8), x, None, (_slow_decay,),
                  (Step(x, "assumption", ("slow decay",)),)),
    lambda: holds(lambda v: v * mp.exp(-v / 10**8), lambda v: v, reals(4)))

_square_small = Assumption("small squares", "n^2 <= 50, so min(n^2, 50) = n^2",
                           rewrites=((sp.Min(wild**2, 50), wild**2),))
add("pre_min_square_in_sum", PRE, False,
    lambda: claim("pre_min_square_in_sum", sp.Sum(sp.Min(i**2, 50), (i, 1, n)),
                  n * (n + 1) * (2 * n + 1) / 6, DN, (_square_small,),
                  (Step(sp.Sum(i**2, (i, 1, n)), "assumption", ("small squares",)),
                   Step(n * (n + 1) * (2 * n + 1) / 6, "sum of squares"))),
    lambda: sizes(lambda m: sum(min(q * q, 50) for q in range(1, m + 1)),
                  lambda m: m * (m + 1) * (2 * m + 1) // 6))

# true twins: the premise holds on the whole domain
_below = Assumption("x >= -|x|", "max(x, -|x|) = x for every real x",
                    rewrites=((sp.Max(x, -sp.Abs(x)), x),))
add("pre_true_max_abs", PRE, True,
    lambda: claim("pre_true_max_abs", sp.Max(x, -sp.Abs(x)) ** 2, x**2, None, (_below,),
                  (Step(x**2, "assumption", ("x >= -|x|",)),)),
    lambda: holds(lambda v: max(v, -abs(v)) ** 2, lambda v: v**2, reals(5)))

_modn = Assumption("residues below n+1", "1 <= i <= n, so Mod(i, n+1) = i",
                   rewrites=((sp.Mod(i, n + 1), i),))
add("pre_true_mod_in_sum", PRE, True,
    lambda: claim("pre_true_mod_in_sum", sp.Sum(sp.Mod(i, n + 1), (i, 1, n)), n * (n + 1) / 2, DN,
                  (_modn,), (Step(sp.Sum(i, (i, 1, n)), "assumption", ("residues below n+1",)),
                             Step(n * (n + 1) / 2, "Gauss"))),
    lambda: sizes(lambda m: sum(q % (m + 1) for q in range(1, m + 1)),
                  lambda m: m * (m + 1) // 2))

_minpow = Assumption("2^i > 0", "min(i^2, i^2 + 2^i) = i^2",
                     rewrites=((sp.Min(wild**2, wild**2 + 2**wild), wild**2),))
add("pre_true_min_pow_in_sum", PRE, True,
    lambda: claim("pre_true_min_pow_in_sum", sp.Sum(sp.Min(i**2, i**2 + 2**i), (i, 1, n)),
                  n * (n + 1) * (2 * n + 1) / 6, DN, (_minpow,),
                  (Step(sp.Sum(i**2, (i, 1, n)), "assumption", ("2^i > 0",)),
                   Step(n * (n + 1) * (2 * n + 1) / 6, "sum of squares"))),
    lambda: sizes(lambda m: sum(min(q * q, q * q + 2**q) for q in range(1, m + 1)),
                  lambda m: m * (m + 1) * (2 * m + 1) // 6))

_nonneg_sq = Assumption("squares are nonnegative", "max(x^2, 0) = x^2",
                        rewrites=((sp.Max(x**2, 0), x**2),))
add("pre_true_max_square", PRE, True,
    lambda: claim("pre_true_max_square", sp.Max(x**2, 0) + 2 * x + 1, (x + 1) ** 2, None,
                  (_nonneg_sq,), (Step(x**2 + 2 * x + 1, "assumption",
                                       ("squares are nonnegative",)),
                                  Step((x + 1) ** 2, "factor"))),
    lambda: holds(lambda v: max(v * v, 0) + 2 * v + 1, lambda v: (v + 1) ** 2, reals(6)))

# =============================================================================================
# distributions
# =============================================================================================
DIS = "distributions"
RV = Domain(random={r1: (mu, s2)})
RV2 = Domain(random={r1: (mu, s2), r2: (mu, s2)})
RV0N = Domain(random={r1: (0, s2)}, distribution="normal")
_m1 = Assumption("mean", "E r1 = mu", rewrites=((E(r1), mu),))
_m2 = Assumption("second moment", "E r1^2 = mu^2 + s2", rewrites=((E(r1**2), mu**2 + s2),))
_sym3 = Assumption("third moment", "E r1^3 = mu^3 + 3 mu s2 (symmetric about the mean)",
                   rewrites=((E(r1**3), mu**3 + 3 * mu * s2),))
_norm4 = Assumption("fourth moment", "E r1^4 = mu^4 + 6 mu^2 s2 + 3 s2^2",
                    rewrites=((E(r1**4), mu**4 + 6 * mu**2 * s2 + 3 * s2**2),))
_mom123 = (_m1, _m2, _sym3)

add("dis_third_central_zero", DIS, False,
    lambda: claim("dis_third_central_zero", E((r1 - mu) ** 3), 0, RV, _mom123, (
        Step(E(r1**3) - 3 * mu * E(r1**2) + 3 * mu**2 * E(r1) - mu**3, "expand, linearity"),
        Step(mu**3 + 3 * mu * s2 - 3 * mu * (mu**2 + s2) + 3 * mu**3 - mu**3, "moments",
             ("mean", "second moment", "third moment")),
        Step(sp.Integer(0), "algebra"))),
    lambda: one_var(lambda Ex, m, v: Ex(lambda a: (a - m) ** 3), lambda m, v: 0))

add("dis_third_raw_moment", DIS, False,
    lambda: claim("dis_third_raw_moment", E(r1**3), mu**3 + 3 * mu * s2, RV, (_sym3,),
                  (Step(mu**3 + 3 * mu * s2, "moments", ("third moment",)),)),
    lambda: one_var(lambda Ex, m, v: Ex(lambda a: a**3), lambda m, v: m**3 + 3 * m * v))

add("dis_third_raw_unassumed", DIS, False,
    lambda: claim("dis_third_raw_unassumed", E(r1**3), mu**3 + 3 * mu * s2, RV),
    lambda: one_var(lambda Ex, m, v: Ex(lambda a: a**3), lambda m, v: m**3 + 3 * m * v))

add("dis_coskew_zero", DIS, False,
    lambda: claim("dis_coskew_zero", E(r1 * (r1 - mu) ** 2), mu * s2, RV),
    lambda: one_var(lambda Ex, m, v: Ex(lambda a: a * (a - m) ** 2), lambda m, v: m * v))

add("dis_skew_of_sum_zero", DIS, False,
    lambda: claim("dis_skew_of_sum_zero", E((r1 + r2 - 2 * mu) ** 3), 0, RV2),
    lambda: two_var(lambda E1, E2, m, v: E2(lambda a, b: (a + b - 2 * m) ** 3),
                    lambda m, v: 0))

add("dis_normal_fourth_any", DIS, False,
    lambda: claim("dis_normal_fourth_any", E(r1**4), mu**4 + 6 * mu**2 * s2 + 3 * s2**2, RV,
                  (_norm4,), (Step(mu**4 + 6 * mu**2 * s2 + 3 * s2**2, "moments",
                                   ("fourth moment",)),)),
    lambda: one_var(lambda Ex, m, v: Ex(lambda a: a**4),
                    lambda m, v: m**4 + 6 * m * m * v + 3 * v * v))

# Var of the sample variance of two draws, S^2 = (X1 - X2)^2 / 2: 2 s2^2 / (2 - 1) for normals
add("dis_var_sample_variance_any", DIS, False,
    lambda: claim("dis_var_sample_variance_any", Var((r1 - r2) ** 2 / 2), 2 * s2**2, RV2),
    lambda: two_var(lambda E1, E2, m, v: E2(lambda a, b: ((a - b) ** 2 / 2) ** 2)
                    - E2(lambda a, b: (a - b) ** 2 / 2) ** 2, lambda m, v: 2 * v * v))
add("dis_var_sample_variance_normal", DIS, True,
    lambda: claim("dis_var_sample_variance_normal", Var((r1 - r2) ** 2 / 2), 2 * s2**2,
                  Domain(random={r1: (mu, s2), r2: (mu, s2)}, distribution="normal")),
    lambda: two_var(lambda E1, E2, m, v: E2(lambda a, b: ((a - b) ** 2 / 2) ** 2)
                    - E2(lambda a, b: (a - b) ** 2 / 2) ** 2, lambda m, v: 2 * v * v,
                    discrete_laws=()))

add("dis_abs_mean_any", DIS, False,
    lambda: claim("dis_abs_mean_any", E(sp.Abs(r1)), sp.sqrt(2 * s2 / sp.pi),
                  Domain(random={r1: (0, s2)})),
    lambda: one_var(lambda Ex, m, v: Ex(abs), lambda m, v: mp.sqrt(2 * v / mp.pi),
                    params=((mp.mpf(0), mp.mpf(1)), (mp.mpf(0), mp.mpf("2.5")))))

# a random variable whose mean is another random variable: ill-posed or hierarchical; under the
# hierarchical reading Var(r1) = 1 + Var(r2) = 2 and E(r1) = E(r2) = 0 is not the variable r2
_HIER = Domain(random={r1: (r2, 1), r2: (0, 1)})
add("dis_mean_is_random_var", DIS, False,
    lambda: claim("dis_mean_is_random_var", Var(r1), 1, _HIER),
    lambda: one_var(lambda Ex, m, v: Ex(lambda b: 1 + b * b) - Ex(lambda b: b) ** 2,
                    lambda m, v: 1, laws=(law_normal,), params=((mp.mpf(0), mp.mpf(1)),)))
add("dis_mean_is_random_mean", DIS, False,
    lambda: claim("dis_mean_is_random_mean", E(r1), r2, _HIER),
    ill_formed)  # E(r1) is a number, r2 a random variable: not an identity under any reading

# true: non-polynomial expectations of normals, and general facts under "any"
add("dis_abs_mean_normal", DIS, True,
    lambda: claim("dis_abs_mean_normal", E(sp.Abs(r1)), sp.sqrt(2 * s2 / sp.pi), RV0N),
    lambda: one_var(lambda Ex, m, v: Ex(abs), lambda m, v: mp.sqrt(2 * v / mp.pi),
                    laws=(law_normal,),
                    params=((mp.mpf(0), mp.mpf(1)), (mp.mpf(0), mp.mpf("2.5")))))
add("dis_relu_mean_normal", DIS, True,
    lambda: claim("dis_relu_mean_normal", E(sp.Max(r1, 0)), sp.sqrt(s2 / (2 * sp.pi)), RV0N),
    lambda: one_var(lambda Ex, m, v: Ex(lambda a: max(a, 0)),
                    lambda m, v: mp.sqrt(v / (2 * mp.pi)), laws=(law_normal,),
                    params=((mp.mpf(0), mp.mpf(1)), (mp.mpf(0), mp.mpf("0.3")))))
add("dis_lognormal_mean", DIS, True,
    lambda: claim("dis_lognormal_mean", E(sp.exp(r1)), sp.exp(mu + s2 / 2),
                  Domain(random={r1: (mu, s2)}, distribution="normal")),
    lambda: one_var(lambda Ex, m, v: Ex(mp.exp), lambda m, v: mp.exp(m + v / 2),
                    laws=(law_normal,)))
add("dis_linearity_any", DIS, True,
    lambda: claim("dis_linearity_any", E(c1 * r1 + c2), c1 * mu + c2,
                  Domain(random={r1: (mu, s2)}, constants=(c1, c2)), (_m1,),
                  (Step(c1 * E(r1) + c2, "linearity"), Step(c1 * mu + c2, "mean", ("mean",)))),
    lambda: all(one_var(lambda Ex, m, v, a=a, b=b: Ex(lambda q: a * q + b),
                        lambda m, v, a=a, b=b: a * m + b)
                for a, b in ((mp.mpf(2), mp.mpf(-3)), (mp.mpf("-0.4"), mp.mpf(7)))))
add("dis_var_affine_any", DIS, True,
    lambda: claim("dis_var_affine_any", Var(c1 * r1 + c2), c1**2 * Var(r1),
                  Domain(random={r1: (mu, s2)}, constants=(c1, c2))),
    lambda: all(one_var(lambda Ex, m, v, a=a, b=b: Ex(lambda q: (a * q + b) ** 2)
                        - Ex(lambda q: a * q + b) ** 2,
                        lambda m, v, a=a: a * a * v)
                for a, b in ((mp.mpf(2), mp.mpf(-3)), (mp.mpf("-0.4"), mp.mpf(7)))))
add("dis_second_central_any", DIS, True,
    lambda: claim("dis_second_central_any", E((r1 - mu) ** 2), s2, RV, (_m1, _m2), (
        Step(E(r1**2) - 2 * mu * E(r1) + mu**2, "expand, linearity"),
        Step(mu**2 + s2 - 2 * mu * mu + mu**2, "moments", ("mean", "second moment")),
        Step(s2, "algebra"))),
    lambda: one_var(lambda Ex, m, v: Ex(lambda a: (a - m) ** 2), lambda m, v: v))

# =============================================================================================
# noncommutative symbols
# =============================================================================================
NC = "noncommutative"
A, B, C = (sp.Symbol(s, commutative=False) for s in "ABC")


def nc_witness(f, g, shapes=4, trials=5):
    rng = np.random.default_rng(7)
    for _ in range(trials):
        a, b, c = (rng.standard_normal((shapes, shapes)) for _ in range(3))
        if not np.allclose(f(a, b, c), g(a, b, c), rtol=1e-10, atol=1e-10):
            return False
    return True


mm = np.matmul
I4 = np.eye(4)
add("nc_binomial_square", NC, False,
    lambda: claim("nc_binomial_square", (A + B) ** 2, A**2 + 2 * A * B + B**2),
    lambda: nc_witness(lambda a, b, c: mm(a + b, a + b), lambda a, b, c: a @ a + 2 * a @ b + b @ b))
add("nc_commute", NC, False,
    lambda: claim("nc_commute", A * B - B * A, 0),
    lambda: nc_witness(lambda a, b, c: a @ b - b @ a, lambda a, b, c: 0 * a))
add("nc_square_of_product", NC, False,
    lambda: claim("nc_square_of_product", (A * B) ** 2, A**2 * B**2),
    lambda: nc_witness(lambda a, b, c: a @ b @ a @ b, lambda a, b, c: a @ a @ b @ b))
add("nc_difference_of_squares", NC, False,
    lambda: claim("nc_difference_of_squares", (A + B) * (A - B), A**2 - B**2),
    lambda: nc_witness(lambda a, b, c: (a + b) @ (a - b), lambda a, b, c: a @ a - b @ b))
add("nc_aba", NC, False,
    lambda: claim("nc_aba", A * B * A, A**2 * B),
    lambda: nc_witness(lambda a, b, c: a @ b @ a, lambda a, b, c: a @ a @ b))
add("nc_cube", NC, False,
    lambda: claim("nc_cube", (A + B) ** 3,
                  A**3 + 3 * A**2 * B + 3 * A * B**2 + B**3),
    lambda: nc_witness(lambda a, b, c: (a + b) @ (a + b) @ (a + b),
                       lambda a, b, c: a @ a @ a + 3 * a @ a @ b + 3 * a @ b @ b + b @ b @ b))
add("nc_commutator_product_wrong", NC, False,
    lambda: claim("nc_commutator_product_wrong", A * B * C - B * C * A,
                  (A * B - B * A) * C + (A * C - C * A) * B),
    lambda: nc_witness(lambda a, b, c: a @ b @ c - b @ c @ a,
                       lambda a, b, c: (a @ b - b @ a) @ c + (a @ c - c @ a) @ b))
add("nc_true_square", NC, True,
    lambda: claim("nc_true_square", (A + B) * (A + B), A**2 + A * B + B * A + B**2),
    lambda: nc_witness(lambda a, b, c: (a + b) @ (a + b),
                       lambda a, b, c: a @ a + a @ b + b @ a + b @ b))
add("nc_true_difference", NC, True,
    lambda: claim("nc_true_difference", (A + B) * (A - B), A**2 - A * B + B * A - B**2),
    lambda: nc_witness(lambda a, b, c: (a + b) @ (a - b),
                       lambda a, b, c: a @ a - a @ b + b @ a - b @ b))
add("nc_true_square_of_product", NC, True,
    lambda: claim("nc_true_square_of_product", (A * B) ** 2, A * B * A * B),
    lambda: nc_witness(lambda a, b, c: np.linalg.matrix_power(a @ b, 2),
                       lambda a, b, c: a @ b @ a @ b))
add("nc_true_commutator_leibniz", NC, True,
    lambda: claim("nc_true_commutator_leibniz", A * B * C - B * C * A,
                  (A * B - B * A) * C + B * (A * C - C * A)),
    lambda: nc_witness(lambda a, b, c: a @ b @ c - b @ c @ a,
                       lambda a, b, c: (a @ b - b @ a) @ c + b @ (a @ c - c @ a)))
add("nc_true_distribute_scalar", NC, True,
    lambda: claim("nc_true_distribute_scalar", A * (B + x), A * B + x * A),
    lambda: nc_witness(lambda a, b, c: a @ (b + 2.5 * I4), lambda a, b, c: a @ b + 2.5 * a))

# =============================================================================================
# sampling gaps
# =============================================================================================
SAM = "sampling gaps"
_ints = [q for q in range(-64, 65)]
add("sam_ceil_minus_floor_index", SAM, False,
    lambda: claim("sam_ceil_minus_floor_index", sp.ceiling(i / 5) - sp.floor(i / 5), 1, DNI),
    lambda: all(-(-q // 5) - q // 5 == 1 for q in range(1, 65)))
add("sam_mod_shift_index", SAM, False,
    lambda: claim("sam_mod_shift_index", sp.Mod(i - 1, 5) + 1, sp.Mod(i, 5), DNI),
    lambda: all((q - 1) % 5 + 1 == q % 5 for q in range(1, 65)))
add("sam_mask_index_5", SAM, False,
    lambda: claim("sam_mask_index_5", sp.Piecewise((z[i], sp.Ne(i, 5)), (0, True)), z[i], DNI),
    lambda: all((zz[q] if q != 5 else 0) == zz[q] for zz in [zvec(1, 64)] for q in range(1, 65)))
add("sam_floor_sum_13", SAM, False,
    lambda: claim("sam_floor_sum_13", sp.Sum(sp.floor(i / 13), (i, 1, n)), 0, DN),
    lambda: sizes(lambda m: sum(q // 13 for q in range(1, m + 1)), lambda m: 0))
add("sam_sign_squared_integer", SAM, False,
    lambda: claim("sam_sign_squared_integer", sp.sign(k) ** 2, 1),
    lambda: all(((q > 0) - (q < 0)) ** 2 == 1 for q in _ints))
add("sam_delta_zero_integer", SAM, False,
    lambda: claim("sam_delta_zero_integer", sp.KroneckerDelta(k, 0), 0),
    lambda: all((1 if q == 0 else 0) == 0 for q in _ints))
_P20 = sp.Mul(*[(n - q) for q in range(1, 21)])
add("sam_gauss_plus_vanishing_20", SAM, False,
    lambda: claim("sam_gauss_plus_vanishing_20", sp.Sum(i, (i, 1, n)),
                  n * (n + 1) / 2 + _P20 / sp.factorial(20), DN),
    lambda: sizes(lambda m: m * (m + 1) // 2,
                  lambda m: mp.mpf(m * (m + 1)) / 2
                  + mp.binomial(m - 1, 20) * (1 if m > 20 else 0)))
_P13 = sp.Mul(*[(n - q) for q in range(1, 14)])
add("sam_squares_plus_vanishing_13", SAM, False,
    lambda: claim("sam_squares_plus_vanishing_13", sp.Sum(i**2, (i, 1, n)),
                  n * (n + 1) * (2 * n + 1) / 6 + 3 * _P13, DN),
    lambda: sizes(lambda m: m * (m + 1) * (2 * m + 1) // 6,
                  lambda m: m * (m + 1) * (2 * m + 1) // 6
                  + 3 * mp.fprod([m - q for q in range(1, 14)])))
add("sam_sum_to_mod_40", SAM, False,
    lambda: claim("sam_sum_to_mod_40", sp.Sum(i, (i, 1, sp.Mod(n, 40))), n * (n + 1) / 2, DN),
    lambda: sizes(lambda m: sum(range(1, m % 40 + 1)), lambda m: m * (m + 1) // 2))
add("sam_min_1e7", SAM, False,
    lambda: claim("sam_min_1e7", sp.Min(x, 10**7), x),
    lambda: holds(lambda v: min(v, 10**7), lambda v: v, reals(7)))
add("sam_clamp_1e7", SAM, False,
    lambda: claim("sam_clamp_1e7", sp.Max(sp.Min(x, 10**7), -(10**7)) + x, 2 * x),
    lambda: holds(lambda v: max(min(v, 10**7), -(10**7)) + v, lambda v: 2 * v, reals(8)))
add("sam_abs_floor_1e-8", SAM, False,
    lambda: claim("sam_abs_floor_1e-8", sp.Max(sp.Abs(x), R(1, 10**8)), sp.Abs(x)),
    lambda: holds(lambda v: max(abs(v), mp.mpf(10) ** -8), abs, reals(9)))
add("sam_piecewise_tiny", SAM, False,
    lambda: claim("sam_piecewise_tiny",
                  sp.Piecewise((x, sp.Abs(x) > R(1, 10**9)), (0, True)) * x, x**2),
    lambda: holds(lambda v: (v if abs(v) > mp.mpf(10) ** -9 else 0) * v, lambda v: v * v,
                  reals(10)))
add("sam_masked_logit_600", SAM, False,
    lambda: claim("sam_masked_logit_600", sp.exp(x) / (sp.exp(x) + sp.exp(x - 600)), 1),
    lambda: holds(lambda v: mp.exp(v) / (mp.exp(v) + mp.exp(v - 600)), lambda v: 1,
                  reals(11, lo=-3, hi=3), dps=1000, rel=mp.mpf(10) ** -400))
add("sam_masked_softmax_600", SAM, False,  # the masked logit x - 600 keeps weight ~e^-500
    lambda: claim("sam_masked_softmax_600", sp.exp(y) / (sp.exp(y) + sp.exp(x - 600)), 1,
                  Domain(ranges={x: (-100, 100), y: (-100, 100)})),
    lambda: holds(lambda v: mp.exp(v[1]) / (mp.exp(v[1]) + mp.exp(v[0] - 600)), lambda v: 1,
                  [(mp.mpf(a) / 3, mp.mpf(b) / 3) for a in range(-300, 300, 37)
                   for b in range(-300, 300, 41)], dps=1000, rel=mp.mpf(10) ** -600))
# true twins
add("sam_true_floor_mod", SAM, True,
    lambda: claim("sam_true_floor_mod", 5 * sp.floor(k / 5) + sp.Mod(k, 5), k),
    lambda: all(5 * (q // 5) + q % 5 == q for q in _ints))
add("sam_true_alternating", SAM, True,
    lambda: claim("sam_true_alternating", sp.Sum((-1) ** i, (i, 1, 2 * n)), 0, DN),
    lambda: sizes(lambda m: sum((-1) ** q for q in range(1, 2 * m + 1)), lambda m: 0))
add("sam_true_cubes", SAM, True,
    lambda: claim("sam_true_cubes", sp.Sum(i**3, (i, 1, n)), (n * (n + 1) / 2) ** 2, DN),
    lambda: sizes(lambda m: sum(q**3 for q in range(1, m + 1)), lambda m: (m * (m + 1) // 2) ** 2))
add("sam_true_abs_sign", SAM, True,
    lambda: claim("sam_true_abs_sign", sp.Abs(k) * sp.sign(k), k),
    lambda: all(abs(q) * ((q > 0) - (q < 0)) == q for q in _ints))
add("sam_true_logistic", SAM, True,
    lambda: claim("sam_true_logistic", sp.exp(x) / (1 + sp.exp(x)), 1 / (1 + sp.exp(-x))),
    lambda: holds(lambda v: mp.exp(v) / (1 + mp.exp(v)), sig, reals(12, hi=5), dps=60))
add("sam_true_masked_softmax", SAM, True,
    lambda: claim("sam_true_masked_softmax", sp.exp(x) / (sp.exp(x) + sp.exp(x - 600)),
                  1 / (1 + sp.exp(-600))),
    lambda: holds(lambda v: mp.exp(v) / (mp.exp(v) + mp.exp(v - 600)),
                  lambda v: 1 / (1 + mp.exp(-600)), reals(13, hi=3), dps=400))

# =============================================================================================
# floats (refusal naming sp.Rational, or judged exactly as written; false ones never proved)
# =============================================================================================
FLO = "floats"
F = sp.Float


def exact(f):  # a Python float's exact binary value
    return mp.mpf(f)


# A literal is read as the decimal it prints as (README, "Exactly as written"): 0.1 is 1/10, so
# this holds as written, though not for the binary double nearest the literal.
def decimal(text):
    return mp.mpf(sp.Rational(text).p) / sp.Rational(text).q


add("flo_tenth_as_written", FLO, True,
    lambda: claim("flo_tenth_as_written", F(0.1) * x, x / 10),
    lambda: holds(lambda v: decimal("0.1") * v, lambda v: v / 10, reals(14)))
add("flo_third", FLO, False,
    lambda: claim("flo_third", F("0.333333333333333") * x, x / 3),
    lambda: holds(lambda v: mp.mpf("0.333333333333333") * v, lambda v: v / 3, reals(15)))
add("flo_pi", FLO, False,
    lambda: claim("flo_pi", F("3.14159265358979") * x, sp.pi * x),
    lambda: holds(lambda v: mp.mpf("3.14159265358979") * v, lambda v: mp.pi * v, reals(16)))
add("flo_e_power", FLO, False,
    lambda: claim("flo_e_power", F("2.718281828459045") ** x, sp.exp(x)),
    lambda: holds(lambda v: mp.mpf("2.718281828459045") ** v, mp.exp, reals(17, hi=2)))
add("flo_tiny_offset", FLO, False,
    lambda: claim("flo_tiny_offset", x + F(1e-30), x),
    lambda: holds(lambda v: v + exact(1e-30), lambda v: v, reals(18)))
# SymPy adds the two floats in binary when the expression is built: the claim the engine gets
# reads 0.30000000000000004·x on the left, which is not 0.3·x
add("flo_point_three", FLO, False,
    lambda: claim("flo_point_three", F(0.1) * x + F(0.2) * x, F(0.3) * x),
    lambda: holds(lambda v: (exact(0.1) + exact(0.2)) * v, lambda v: exact(0.3) * v, reals(19)))
add("flo_half_third", FLO, False,
    lambda: claim("flo_half_third", F(0.5) * x, x / 3),
    lambda: holds(lambda v: v / 2, lambda v: v / 3, reals(20)))
add("flo_true_half", FLO, True,  # 0.5 is exact in binary
    lambda: claim("flo_true_half", F(0.5) * x, x / 2),
    lambda: holds(lambda v: exact(0.5) * v, lambda v: v / 2, reals(21)))
add("flo_true_quarter_square", FLO, True,
    lambda: claim("flo_true_quarter_square", F(0.25) * x**2, (x / 2) ** 2),
    lambda: holds(lambda v: exact(0.25) * v * v, lambda v: (v / 2) ** 2, reals(22)))
add("flo_true_two_point_oh", FLO, True,
    lambda: claim("flo_true_two_point_oh", F(2.0) * x - x, x),
    lambda: holds(lambda v: exact(2.0) * v - v, lambda v: v, reals(23)))
add("flo_true_float_power", FLO, True,
    lambda: claim("flo_true_float_power", p ** F(2.0), p**2),
    lambda: holds(lambda v: v ** exact(2.0), lambda v: v * v, reals(24, positive=True)))

# =============================================================================================
# evaluation errors
# =============================================================================================
EVA = "evaluation errors"
EVTOL = mp.mpf(10) ** -200
BIG = reals(25, lo=-2, hi=np.log10(700)) + [mp.mpf(700), mp.mpf(-700), mp.mpf(650)]
add("eva_true_logistic_loss_gradient", EVA, True,
    lambda: claim("eva_true_logistic_loss_gradient",
                  sp.Derivative(sp.log(1 + sp.exp(-t)), t), -1 / (1 + sp.exp(t))),
    lambda: holds(lambda v: mp.diff(lambda q: mp.log(1 + mp.exp(-q)), v),
                  lambda v: -1 / (1 + mp.exp(v)), BIG, dps=700, rel=EVTOL))
add("eva_true_log_one_minus_sigmoid", EVA, True,
    lambda: claim("eva_true_log_one_minus_sigmoid", sp.log(1 - 1 / (1 + sp.exp(-t))),
                  -t - sp.log(1 + sp.exp(-t))),
    lambda: holds(lambda v: mp.log(1 - sig(v)), lambda v: -v - mp.log(1 + mp.exp(-v)), BIG,
                  dps=700, rel=EVTOL))
add("eva_true_softplus_reflect", EVA, True,
    lambda: claim("eva_true_softplus_reflect", sp.log(1 + sp.exp(t)),
                  t + sp.log(1 + sp.exp(-t))),
    lambda: holds(lambda v: mp.log(1 + mp.exp(v)), lambda v: v + mp.log(1 + mp.exp(-v)), BIG,
                  dps=700, rel=EVTOL))
add("eva_true_exp700_lse", EVA, True,
    lambda: claim("eva_true_exp700_lse", sp.log(sp.exp(700) + sp.exp(t)) - 700,
                  sp.log(1 + sp.exp(t - 700))),
    lambda: holds(lambda v: mp.log(mp.exp(700) + mp.exp(v)) - 700,
                  lambda v: mp.log(1 + mp.exp(v - 700)), BIG, dps=700, rel=EVTOL))
add("eva_true_tanh_sigmoid", EVA, True,
    lambda: claim("eva_true_tanh_sigmoid", sp.tanh(t), 2 / (1 + sp.exp(-2 * t)) - 1),
    lambda: holds(mp.tanh, lambda v: 2 * sig(2 * v) - 1, BIG, dps=700, rel=EVTOL))
add("eva_true_sigmoid_derivative", EVA, True,
    lambda: claim("eva_true_sigmoid_derivative", sp.Derivative(1 / (1 + sp.exp(-t)), t),
                  sp.exp(-t) / (1 + sp.exp(-t)) ** 2),
    lambda: holds(lambda v: mp.diff(sig, v), lambda v: mp.exp(-v) / (1 + mp.exp(-v)) ** 2, BIG,
                  dps=700, rel=EVTOL))
# false, and undefined (or complex) at most points of the real line
add("eva_sqrt_negative", EVA, False,
    lambda: claim("eva_sqrt_negative", sp.sqrt(-1 - x**2), sp.sqrt(1 + x**2)),
    lambda: holds(lambda v: mp.sqrt(-1 - v * v), lambda v: mp.sqrt(1 + v * v), reals(26)))
add("eva_sqrt_negative_branch", EVA, False,
    lambda: claim("eva_sqrt_negative_branch", sp.sqrt(-4 - x**2), -sp.I * sp.sqrt(4 + x**2)),
    lambda: holds(lambda v: mp.sqrt(-4 - v * v), lambda v: -1j * mp.sqrt(4 + v * v), reals(27)))
add("eva_log_negative", EVA, False,
    lambda: claim("eva_log_negative", sp.log(-1 - x**2), sp.log(1 + x**2)),
    lambda: holds(lambda v: mp.log(-1 - v * v), lambda v: mp.log(1 + v * v), reals(28)))
add("eva_log_minus_exp", EVA, False,
    lambda: claim("eva_log_minus_exp", sp.log(-sp.exp(x)), x),
    lambda: holds(lambda v: mp.log(-mp.exp(v)), lambda v: v, reals(29, hi=2)))
add("eva_acos_out_of_range", EVA, False,
    lambda: claim("eva_acos_out_of_range", sp.acos(2 + x**2), sp.acosh(2 + x**2)),
    lambda: holds(lambda v: mp.acos(2 + v * v), lambda v: mp.acosh(2 + v * v), reals(30)))
add("eva_softplus_is_identity", EVA, False,
    lambda: claim("eva_softplus_is_identity", sp.log(1 + sp.exp(t)), t),
    lambda: holds(lambda v: mp.log(1 + mp.exp(v)), lambda v: v, BIG, dps=700, rel=EVTOL))
add("eva_exp700_product", EVA, False,
    lambda: claim("eva_exp700_product", sp.exp(t + 700) - sp.exp(700) * sp.exp(t) + 1, 0),
    lambda: holds(lambda v: mp.exp(v + 700) - mp.exp(700) * mp.exp(v) + 1, lambda v: 0, BIG,
                  dps=700, rel=EVTOL))

# =============================================================================================
# undeclared: every one is ill-formed (refusal expected; the witness returns False)
# =============================================================================================
UND = "undeclared"
j = sp.Symbol("j", integer=True)
xr = sp.Symbol("xr", positive=True)
add("und_index_default_domain", UND, False,
    lambda: claim("und_index_default_domain", (z[j] + 1) ** 2, z[j] ** 2 + 2 * z[j] + 1),
    ill_formed)
add("und_integer_index_with_dims", UND, False,
    lambda: claim("und_integer_index_with_dims", (z[i] + 1) ** 2, z[i] ** 2 + 2 * z[i] + 1, DN),
    ill_formed)
add("und_free_index_in_sum_term", UND, False,
    lambda: claim("und_free_index_in_sum_term", sp.Sum(z[i] * z[j], (i, 1, n)),
                  z[j] * sp.Sum(z[i], (i, 1, n)), DN),
    ill_formed)
add("und_sum_to_infinity", UND, False,
    lambda: claim("und_sum_to_infinity", sp.Sum(z[i] / 2**i, (i, 1, oo)),
                  sp.Sum(z[i + 1] / 2 ** (i + 1), (i, 0, oo))),
    ill_formed)
add("und_index_range_infinite", UND, False,
    lambda: claim("und_index_range_infinite", (z[i] + 1) ** 2, z[i] ** 2 + 2 * z[i] + 1,
                  Domain(indices={i: (1, oo)})),
    ill_formed)
add("und_sum_to_real_symbol", UND, False,
    lambda: claim("und_sum_to_real_symbol", sp.Sum(z[i], (i, 1, xr)),
                  sp.Sum(z[i + 1], (i, 0, xr - 1))),
    ill_formed)
add("und_index_range_real_symbol", UND, False,
    lambda: claim("und_index_range_real_symbol", (z[i] + 1) ** 2, z[i] ** 2 + 2 * z[i] + 1,
                  Domain(indices={i: (1, xr)})),
    ill_formed)
add("und_shifted_undeclared_index", UND, False,
    lambda: claim("und_shifted_undeclared_index", (z[i + j] + 1) ** 2,
                  z[i + j] ** 2 + 2 * z[i + j] + 1, DNI),
    ill_formed)

# =============================================================================================
# shared limits and integration, from the outside
# =============================================================================================
LIM = "shared limits"


def lim_witness(f, value, points):
    """|f(x_k) - value| shrinks to below 1e-6 along the given points (approaching the limit)."""
    with mp.workdps(60):
        errs = [abs(f(mp.mpf(q)) - value) for q in points]
    return errs[-1] < mp.mpf(10) ** -6 and errs[-1] <= errs[0]


AT_OO = [mp.mpf(10) ** e for e in (8, 12, 16, 20)]
AT_0 = [mp.mpf(10) ** -e for e in (8, 12, 16, 20)]
add("lim_true_x_sin_inv_oo", LIM, True,
    lambda: claim("lim_true_x_sin_inv_oo", sp.Limit(x * sp.sin(1 / x), x, oo), 1),
    lambda: lim_witness(lambda q: q * mp.sin(1 / q), 1, AT_OO))
add("lim_x_sin_inv_at_0", LIM, False,
    lambda: claim("lim_x_sin_inv_at_0", sp.Limit(x * sp.sin(1 / x), x, 0), 1),
    lambda: lim_witness(lambda q: q * mp.sin(1 / q), 1, AT_0))
add("lim_true_arctan_tail", LIM, True,
    lambda: claim("lim_true_arctan_tail", sp.Limit(x * (sp.pi / 2 - sp.atan(x)), x, oo), 1),
    lambda: lim_witness(lambda q: q * (mp.pi / 2 - mp.atan(q)), 1, AT_OO))
add("lim_compound_two", LIM, False,
    lambda: claim("lim_compound_two", sp.Limit((1 + 2 / x) ** x, x, oo), sp.E),
    lambda: lim_witness(lambda q: (1 + 2 / q) ** q, mp.e, AT_OO))
add("lim_root_gap", LIM, False,
    lambda: claim("lim_root_gap", sp.Limit(sp.sqrt(x**2 + x) - x, x, oo), 0),
    lambda: lim_witness(lambda q: mp.sqrt(q * q + q) - q, 0, AT_OO))
add("lim_true_rational_minus_oo", LIM, True,
    lambda: claim("lim_true_rational_minus_oo",
                  sp.Limit((x**2 + 1) / (2 * x**2 - x), x, -oo), R(1, 2)),
    lambda: lim_witness(lambda q: (q * q + 1) / (2 * q * q - q), mp.mpf(1) / 2,
                        [-q for q in AT_OO]))
add("lim_sinc_at_oo", LIM, False,
    lambda: claim("lim_sinc_at_oo", sp.Limit(sp.sin(x) / x, x, oo), 1),
    lambda: lim_witness(lambda q: mp.sin(q) / q, 1, AT_OO))

INT = "shared integration"
add("int_true_gaussian", INT, True,
    lambda: claim("int_true_gaussian", sp.Integral(sp.exp(-(t**2)), (t, -oo, oo)), sp.sqrt(sp.pi)),
    lambda: close(mp.quad(lambda q: mp.exp(-q * q), [-mp.inf, mp.inf]), mp.sqrt(mp.pi)))
add("int_gamma_two", INT, False,
    lambda: claim("int_gamma_two", sp.Integral(t * sp.exp(-t), (t, 0, oo)), 2),
    lambda: close(mp.quad(lambda q: q * mp.exp(-q), [0, mp.inf]), 2))
add("int_true_dirichlet", INT, True,
    lambda: claim("int_true_dirichlet", sp.Integral(sp.sin(t) / t, (t, 0, oo)), sp.pi / 2),
    lambda: close(mp.quadosc(lambda q: mp.sin(q) / q, [0, mp.inf], omega=1), mp.pi / 2,
                  mp.mpf(10) ** -20))
add("int_sin_squared", INT, False,
    lambda: claim("int_sin_squared", sp.Integral(sp.sin(t) ** 2, (t, 0, sp.pi)), sp.pi),
    lambda: close(mp.quad(lambda q: mp.sin(q) ** 2, [0, mp.pi]), mp.pi))
add("int_true_laplace", INT, True,
    lambda: claim("int_true_laplace", sp.Integral(sp.exp(-p * t), (t, 0, oo)), 1 / p),
    lambda: all(close(mp.quad(lambda q, v=v: mp.exp(-v * q), [0, mp.inf]), 1 / v)
                for v in reals(31, count=6, lo=-2, hi=2, positive=True)))
add("int_laplace_squared", INT, False,
    lambda: claim("int_laplace_squared", sp.Integral(sp.exp(-p * t), (t, 0, oo)), 1 / p**2),
    lambda: all(close(mp.quad(lambda q, v=v: mp.exp(-v * q), [0, mp.inf]), 1 / v**2)
                for v in reals(32, count=6, lo=-2, hi=2, positive=True)))
add("int_log_sign", INT, False,
    lambda: claim("int_log_sign", sp.Integral(sp.log(t), (t, 0, 1)), 1),
    lambda: close(mp.quad(mp.log, [0, 1]), 1))
add("int_true_cauchy", INT, True,
    lambda: claim("int_true_cauchy", sp.Integral(1 / (1 + t**2), (t, -oo, oo)), sp.pi),
    lambda: close(mp.quad(lambda q: 1 / (1 + q * q), [-mp.inf, mp.inf]), mp.pi))


# =============================================================================================
def _check_witnesses() -> int:
    bad = 0
    for case in CASES:
        got = case.witness()
        if bool(got) != case.true:
            bad += 1
            print(f"WITNESS MISMATCH {case.id}: declared {case.true}, witness {got}")
    by = {}
    for case in CASES:
        f, tr = by.get(case.cls, (0, 0))
        by[case.cls] = (f + (not case.true), tr + case.true)
    for cls, (f, tr) in by.items():
        print(f"{cls:22s} false {f:3d} true {tr:3d}")
    print(f"{len(CASES)} cases, {sum(not c.true for c in CASES)} false, "
          f"{sum(c.true for c in CASES)} true; witness mismatches: {bad}")
    return bad


def _engine_one(cid: str) -> str:
    import json
    import subprocess
    import sys
    code = ("import json, sys\n"
            "from derivations.redteam.cases import run_case\n"
            "from derivations.redteam.review import CASES\n"
            f"c = [c for c in CASES if c.id == {cid!r}][0]\n"
            "o = run_case(c)\n"
            "print(json.dumps([o.result, o.ok, o.detail[:300]]))\n")
    try:
        p_ = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    except subprocess.TimeoutExpired:
        return json.dumps(["timeout(60s)", None, ""])
    if p_.returncode != 0:
        return json.dumps(["crash", None, p_.stderr.strip().splitlines()[-1:]])
    return p_.stdout.strip().splitlines()[-1]


def _run_engine() -> None:
    import json
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(2) as pool:
        ids = [c.id for c in CASES]
        results = dict(zip(ids, pool.map(_engine_one, ids), strict=True))
    misjudged = []
    for case in CASES:
        result, ok, detail = json.loads(results[case.id])
        tag = "ok " if ok else "BAD"
        print(f"{tag} {'T' if case.true else 'F'} {case.cls:20s} {case.id:36s} {result} "
              f"{str(detail)[:140]}", flush=True)
        if not ok:
            misjudged.append((case.id, result))
    print(f"misjudged: {len(misjudged)}")
    for cid, result in misjudged:
        print(f"  {cid}: {result}")


if __name__ == "__main__":
    import sys
    failures = _check_witnesses()
    if "--engine" in sys.argv:
        _run_engine()
    sys.exit(1 if failures else 0)
