"""Where SymPy itself is wrong: claims whose right-hand side is SymPy's own (wrong) closed form.

The numeric route of the engine is meant to be an independent witness; where it shares SymPy's
algorithms (integrate, limit, Sum/Product.doit) with the symbolic route, both agree on SymPy's
wrong answer. The cases come from ``python -m derivations.redteam.sympy_vs_mpmath``; each carries
a witness that decides the claim with mpmath from the definition (quad, nsum, nprod, a loop over
the terms, the sequence at large n) — never with SymPy's integrate/limit/summation/doit. A sum or
product over an empty range (upper bound below the lower) is 0 or 1, the textbook convention;
SymPy follows Karr's, where Sum(f, (i, a, b)) with b < a - 1 is -Sum(f, (i, b + 1, a - 1)).

``python -m derivations.redteam.battery`` runs every witness; with ``--engine`` it also runs each
case through the engine (60 s each) and lists the ones it misjudges.
"""

from __future__ import annotations

import random
import sys

import mpmath as mp
import sympy as sp

from derivations.engine.core.domain import Domain
from derivations.redteam.cases import Case, claim

DPS = 40
TOL = mp.mpf(10) ** -25
SHARED_INT = "shared integration"
LIMITS = "shared limits"
CONVENTION = "summation convention"
PRODUCTS = "products"
SPECIAL = "special functions"
CLOSED = "closed forms"

x = sp.Symbol("x", real=True)
a = sp.Symbol("a", real=True)
p = sp.Symbol("p", positive=True)
c = sp.Symbol("c", positive=True)
i = sp.Symbol("i", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
pi, oo, R, E_ = sp.pi, sp.oo, sp.Rational, sp.E
DN = Domain(dims=(n,))

CASES: list[Case] = []


def add(cid, cls, true, build, witness):
    CASES.append(Case(cid, cls, true, build, witness))


# ---- witnesses ----------------------------------------------------------------------------------
def _points(rng, count=5, seed=0):
    """Seeded random rationals in the open interval rng (the claim's Domain range)."""
    if rng is None:
        return [None]
    lo, hi = (sp.nsimplify(e) for e in rng)
    gen = random.Random(seed)
    return [lo + (hi - lo) * R(gen.randint(1, 999), 1000) for _ in range(count)]


def _value(rhs, var, v):
    """The right-hand side at var = v, at DPS digits: a SymPy expression (Integral-free) through
    evalf, or a Python callable of v. None when it is not a finite number."""
    with mp.workdps(DPS):
        if callable(rhs):
            out = rhs(None if v is None else mp.mpf(v.p) / v.q)
        else:
            e = sp.sympify(rhs, strict=True).subs({var: v} if var is not None else {})
            if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not e.is_finite and e.is_finite is not None:
                return None
            ev = sp.N(e, DPS)
            if not ev.is_number or ev.has(sp.zoo, sp.nan, sp.oo):
                return None
            re_, im_ = ev.as_real_imag()
            out = mp.mpc(mp.mpf(str(sp.N(re_, DPS))), mp.mpf(str(sp.N(im_, DPS))))
    if not mp.isfinite(out):
        return None
    return out


def _same(u, w, tol=TOL):
    return u is not None and w is not None and abs(u - w) <= tol * (1 + abs(w))


def _mpv(v):
    return None if v is None else mp.mpf(v.p) / v.q


def _bound(e):
    if e in (oo, -oo):
        return mp.inf if e == oo else -mp.inf
    return mp.mpf(sp.N(e, DPS + 10))


def w_int(f, lo, hi, rhs, var=None, rng=None, cuts=lambda v: ()):
    """∫_lo^hi f(s, v) ds by mpmath.quad, split at cuts(v), against rhs at seeded points."""
    def witness():
        with mp.workdps(DPS):
            for v in _points(rng):
                mv = _mpv(v)
                lo_, hi_ = (_bound(e) for e in (lo, hi))
                inner = sorted(q for q in cuts(mv) if lo_ < q < hi_)
                got = mp.quad(lambda s, mv=mv: f(s, mv), [lo_, *inner, hi_])
                if not _same(got, _value(rhs, var, v), mp.mpf(10) ** -20):
                    return False
            return True
    return witness


def w_divergent(f, var, rng, pole):
    """The claim gives a finite value; the integral diverges at pole(v): ∫ |f| near the pole grows
    without bound as the cut-off shrinks (by > 5 between 1e-10 and 1e-30). Always false."""
    def witness():
        with mp.workdps(DPS):
            for v in _points(rng, 3):
                mv = _mpv(v)
                q = pole(mv)
                near = [abs(mp.quad(lambda s, mv=mv: f(s, mv), [q + mp.mpf(10) ** -e, q + 0.05]))
                        for e in (10, 30)]
                if near[1] - near[0] < 5:
                    return True  # integrable after all: cannot refute here
            return False
    return witness


def w_seq(seq, rhs):
    """lim seq(n), n integer → ∞, from seq at n = 10**20 + r and 10**24 + r, r = 0..5 (exact ints):
    True iff the values settle and equal rhs. seq returns mpmath numbers."""
    def witness():
        with mp.workdps(80):
            tails = [[seq(10**e + r) for r in range(6)] for e in (20, 24)]
            last = tails[-1]
            if max(abs(u - last[0]) for u in last) > mp.mpf(10) ** -15:
                return False  # oscillates: no limit
            if abs(last[0]) > 10**10:
                return False  # grows: no finite limit
            return _same(last[0], _value(rhs, None, None), mp.mpf(10) ** -15)
    return witness


def w_loop(term, lo, hi, rhs, var=None, values=(None,), product=False):
    """A finite sum or product as a loop over lo(v)..hi(v) (empty when hi < lo): the textbook
    convention. term(j, v) gives the j-th term exactly (Fractions via SymPy Rationals)."""
    def witness():
        for v in values:
            lo_v, hi_v = lo(v), hi(v)
            acc = sp.Integer(1) if product else sp.Integer(0)
            for j in range(lo_v, hi_v + 1):
                acc = acc * term(j, v) if product else acc + term(j, v)
            if not _same(_value(acc, None, None), _value(rhs, var, v if var is None else
                                                         sp.Integer(v))):
                return False
        return True
    return witness


def w_nsum(term, lo, rhs, var=None, rng=None, product=False, group=1):
    """An infinite sum (mpmath.nsum) or product (mpmath.nprod) from its terms; group > 1 adds
    the terms in consecutive blocks of that many first (for terms that are not smooth in j)."""
    def witness():
        with mp.workdps(DPS):
            for v in _points(rng, 3):
                mv = _mpv(v)

                def f(j, mv=mv):
                    if group == 1:
                        return term(j, mv)
                    first = lo + (int(j) - lo) * group
                    return mp.fsum(term(mp.mpf(first + r), mv) for r in range(group))
                got = (mp.nprod if product else mp.nsum)(f, [lo, mp.inf])
                if not _same(got, _value(rhs, var, v), mp.mpf(10) ** -20):
                    return False
            return True
    return witness


def w_fun(lhs, rhs, var, rng):
    """lhs(v) by mpmath against rhs at seeded points in rng."""
    def witness():
        with mp.workdps(DPS):
            return all(_same(lhs(_mpv(v)), _value(rhs, var, v)) for v in _points(rng, 6))
    return witness


# ---- 1. shared integration ----------------------------------------------------------------------
def quadratic_2a(s, v):
    return 1 / (s * s + 2 * v * s + 1)


def quadratic_2a_closed(v):
    r = mp.sqrt(1 - v * v)
    return (mp.atan((1 + v) / r) - mp.atan(v / r)) / r


def int_case(cid, cls, true, f_sym, lo, hi, rhs, f_num, var=None, rng=None, cuts=lambda v: (),
             witness_rhs=None):
    """∫_lo^hi f_sym dx = rhs; witness_rhs (a callable of the parameter) evaluates an rhs that
    is itself an Integral, by quadrature."""
    dom = Domain(ranges={var: rng}) if var is not None else None
    add(cid, cls, true, lambda: claim(cid, sp.Integral(f_sym, (x, lo, hi)), rhs, dom),
        w_int(f_num, lo, hi, witness_rhs or rhs, var, rng, cuts))


# SymPy: ∫_0^1 dx/(x² + 2ax + 1) = 0 for every real a (true: positive, 1.21 at a = -1/2)
int_case("int_quadratic_2a_is_zero", SHARED_INT, False, 1 / (x**2 + 2 * a * x + 1), 0, 1,
         sp.Integer(0), quadratic_2a, a, (-0.5, 3.0))
int_case("int_quadratic_2a", SHARED_INT, True, 1 / (x**2 + 2 * a * x + 1), 0, 1,
         (sp.atan((1 + a) / sp.sqrt(1 - a**2)) - sp.atan(a / sp.sqrt(1 - a**2)))
         / sp.sqrt(1 - a**2), quadratic_2a, a, (-0.5, 0.5))
int_case("int_quadratic_p_is_zero", SHARED_INT, False, 1 / (x**2 + p), 0, 1, sp.Integer(0),
         lambda s, v: 1 / (s * s + v), p, (0.1, 10.0))
int_case("int_quadratic_p", SHARED_INT, True, 1 / (x**2 + p), 0, 1,
         sp.atan(1 / sp.sqrt(p)) / sp.sqrt(p), lambda s, v: 1 / (s * s + v), p, (0.1, 10.0))
int_case("int_quadratic_ax_is_zero", SHARED_INT, False, 1 / (x**2 + a * x + 1), 0, 1,
         sp.Integer(0), lambda s, v: 1 / (s * s + v * s + 1), a, (0.0, 3.0))
int_case("int_symmetric_quadratic_is_zero", SHARED_INT, False, 1 / (x**2 - 2 * a * x + 1), -1, 1,
         sp.Integer(0), lambda s, v: 1 / (s * s - 2 * v * s + 1), a, (-0.5, 0.5))
int_case("int_symmetric_quadratic", SHARED_INT, True, 1 / (x**2 - 2 * a * x + 1), -1, 1,
         pi / (2 * sp.sqrt(1 - a**2)), lambda s, v: 1 / (s * s - 2 * v * s + 1), a, (-0.5, 0.5))
int_case("int_x_over_quadratic_is_zero", SHARED_INT, False, x / (x**2 + 2 * a * x + 1), 0, 1,
         sp.Integer(0), lambda s, v: s / (s * s + 2 * v * s + 1), a, (0.1, 3.0))
# SymPy: ∫_0^{2π} dx/(c + cos x) = 0 (Piecewise otherwise 0) for real c; true 2π/√(c² − 1), |c| > 1


def _PI_CUT(v):
    return (mp.pi,)


int_case("int_inverse_c_plus_cos_is_zero", SHARED_INT, False, 1 / (c + sp.cos(x)), 0, 2 * pi,
         sp.Integer(0), lambda s, v: 1 / (v + mp.cos(s)), c, (2.0, 10.0), _PI_CUT)
int_case("int_inverse_c_plus_cos", SHARED_INT, True, 1 / (c + sp.cos(x)), 0, 2 * pi,
         2 * pi / sp.sqrt(c**2 - 1), lambda s, v: 1 / (v + mp.cos(s)), c, (2.0, 10.0), _PI_CUT)
int_case("int_inverse_c_minus_sin_is_zero", SHARED_INT, False, 1 / (c - sp.sin(x)), 0, 2 * pi,
         sp.Integer(0), lambda s, v: 1 / (v - mp.sin(s)), c, (2.0, 10.0), _PI_CUT)
int_case("int_inverse_c_minus_sin", SHARED_INT, True, 1 / (c - sp.sin(x)), 0, 2 * pi,
         2 * pi / sp.sqrt(c**2 - 1), lambda s, v: 1 / (v - mp.sin(s)), c, (2.0, 10.0), _PI_CUT)
int_case("int_inverse_c_plus_sin_is_zero", SHARED_INT, False, 1 / (c + sp.sin(x)), 0, 2 * pi,
         sp.Integer(0), lambda s, v: 1 / (v + mp.sin(s)), c, (2.0, 10.0), _PI_CUT)
int_case("int_inverse_c_plus_cos_squared_is_zero", SHARED_INT, False, 1 / (c + sp.cos(x)) ** 2,
         0, 2 * pi, sp.Integer(0), lambda s, v: 1 / (v + mp.cos(s)) ** 2, c, (2.0, 10.0), _PI_CUT)
int_case("int_inverse_c_plus_cos_squared", SHARED_INT, True, 1 / (c + sp.cos(x)) ** 2, 0, 2 * pi,
         2 * pi * c / (c**2 - 1) ** R(3, 2), lambda s, v: 1 / (v + mp.cos(s)) ** 2, c, (2.0, 10.0),
         _PI_CUT)
int_case("int_inverse_p2_plus_cos2_is_zero", SHARED_INT, False, 1 / (p**2 + sp.cos(x) ** 2), 0,
         2 * pi, sp.Integer(0), lambda s, v: 1 / (v * v + mp.cos(s) ** 2), p, (0.2, 5.0), _PI_CUT)
int_case("int_inverse_p2_plus_cos2", SHARED_INT, True, 1 / (p**2 + sp.cos(x) ** 2), 0, 2 * pi,
         2 * pi / (p * sp.sqrt(p**2 + 1)), lambda s, v: 1 / (v * v + mp.cos(s) ** 2), p,
         (0.2, 5.0), _PI_CUT)
# SymPy: ∫_0^{2π} cos x/(c + cos x) dx = 2π
int_case("int_cos_ratio_is_2pi", SHARED_INT, False, sp.cos(x) / (c + sp.cos(x)), 0, 2 * pi,
         2 * pi, lambda s, v: mp.cos(s) / (v + mp.cos(s)), c, (2.0, 10.0), _PI_CUT)
int_case("int_cos_ratio", SHARED_INT, True, sp.cos(x) / (c + sp.cos(x)), 0, 2 * pi,
         2 * pi * (1 - c / sp.sqrt(c**2 - 1)), lambda s, v: mp.cos(s) / (v + mp.cos(s)), c,
         (2.0, 10.0), _PI_CUT)
# an inverse of a function composed with it: atan(tan x) is a sawtooth
int_case("int_atan_tan_is_minus_pi2_half", SHARED_INT, False, sp.atan(sp.tan(x)), 0, pi,
         -(pi**2) / 2, lambda s, v: mp.atan(mp.tan(s)), cuts=lambda v: (mp.pi / 2,))
int_case("int_atan_tan", SHARED_INT, True, sp.atan(sp.tan(x)), 0, pi, sp.Integer(0),
         lambda s, v: mp.atan(mp.tan(s)), cuts=lambda v: (mp.pi / 2,))
int_case("int_sign_sin_is_zero", SHARED_INT, False, sp.sign(sp.sin(x)), 0, 3 * pi, sp.Integer(0),
         lambda s, v: mp.sign(mp.sin(s)), cuts=lambda v: (mp.pi, 2 * mp.pi))
int_case("int_sign_sin", SHARED_INT, True, sp.sign(sp.sin(x)), 0, 3 * pi, pi,
         lambda s, v: mp.sign(mp.sin(s)), cuts=lambda v: (mp.pi, 2 * mp.pi))
# a branch cut: ∫_0^1 √(x² + a) for -1 < a < 0 (SymPy's form has the wrong sign of its real part)
_SQ_SYMPY = sp.sqrt(a) * sp.sqrt(1 + 1 / a) / 2 + a * sp.asinh(1 / sp.sqrt(a)) / 2
_SQ_TRUE = (sp.sqrt(1 + a) / 2 + a / 2 * sp.log((1 + sp.sqrt(1 + a)) / sp.sqrt(-a))
            - sp.I * pi * a / 4)
int_case("int_sqrt_x2_plus_negative_a_sympy", SHARED_INT, False, sp.sqrt(x**2 + a), 0, 1,
         _SQ_SYMPY, lambda s, v: mp.sqrt(s * s + v), a, (-0.9, -0.1),
         lambda v: (mp.sqrt(-v),))
int_case("int_sqrt_x2_plus_negative_a", SHARED_INT, True, sp.sqrt(x**2 + a), 0, 1, _SQ_TRUE,
         lambda s, v: mp.sqrt(s * s + v), a, (-0.9, -0.1), lambda v: (mp.sqrt(-v),))
int_case("int_sqrt_x2_plus_positive_p_sympy", SHARED_INT, True, sp.sqrt(x**2 + p), 0, 1,
         _SQ_SYMPY.subs(a, p), lambda s, v: mp.sqrt(s * s + v), p, (0.1, 5.0))
# SymPy rewrites 1/√(a² − x²) as 1/(a √(1 − x²/a²)): the sign of a is lost
int_case("int_arcsine_rewritten_negative_a", SHARED_INT, False, 1 / sp.sqrt(a**2 - x**2), 0,
         R(1, 2), sp.Integral(1 / (a * sp.sqrt(1 - x**2 / a**2)), (x, 0, R(1, 2))),
         lambda s, v: 1 / mp.sqrt(v * v - s * s), a, (-3.0, -1.0),
         witness_rhs=lambda v: mp.quad(lambda s: 1 / (v * mp.sqrt(1 - s * s / v**2)), [0, 0.5]))
int_case("int_arcsine_negative_a_is_asin", SHARED_INT, False, 1 / sp.sqrt(a**2 - x**2), 0,
         R(1, 2), sp.asin(1 / (2 * a)), lambda s, v: 1 / mp.sqrt(v * v - s * s), a, (-3.0, -1.0))
int_case("int_arcsine_negative_a", SHARED_INT, True, 1 / sp.sqrt(a**2 - x**2), 0, R(1, 2),
         -sp.asin(1 / (2 * a)), lambda s, v: 1 / mp.sqrt(v * v - s * s), a, (-3.0, -1.0))
int_case("int_arcsine_positive_a", SHARED_INT, True, 1 / sp.sqrt(a**2 - x**2), 0, R(1, 2),
         sp.asin(1 / (2 * a)), lambda s, v: 1 / mp.sqrt(v * v - s * s), a, (1.0, 3.0))
int_case("int_semicircle_rewritten_negative_a", SHARED_INT, False, sp.sqrt(a**2 - x**2), 0,
         R(1, 2), sp.Integral(a * sp.sqrt(1 - x**2 / a**2), (x, 0, R(1, 2))),
         lambda s, v: mp.sqrt(v * v - s * s), a, (-3.0, -1.0),
         witness_rhs=lambda v: mp.quad(lambda s: v * mp.sqrt(1 - s * s / v**2), [0, 0.5]))
# a divergent integral SymPy gives a finite (principal-value-like, complex) value
add("int_pole_inside_is_finite", SHARED_INT, False,
    lambda: claim("int_pole_inside_is_finite", sp.Integral(1 / (x - a), (x, 0, 1)),
                  sp.log(1 - a) - sp.log(-a), Domain(ranges={a: (0.1, 0.9)})),
    w_divergent(lambda s, v: 1 / (s - v), a, (0.1, 0.9), lambda v: v))
int_case("int_pole_outside", SHARED_INT, True, 1 / (x - a), 0, 1, sp.log(a - 1) - sp.log(a),
         lambda s, v: 1 / (s - v), a, (2.0, 5.0))
# SymPy's closed form of ∫ log|x − a| has log(0)·a in it: nan wherever 0 < a < 1
_LOGABS = (a * sp.log(-a) - a * sp.log(1 - a) + sp.log(1 - a)
           - sp.log(-a + sp.Min(1, sp.Max(0, a))) * sp.Min(1, sp.Max(0, a))
           + sp.log(a - sp.Min(1, sp.Max(0, a))) * sp.Min(1, sp.Max(0, a)) - 1)
int_case("int_log_abs_sympy_form", SHARED_INT, False, sp.log(sp.Abs(x - a)), 0, 1, _LOGABS,
         lambda s, v: mp.log(abs(s - v)), a, (0.1, 0.9), lambda v: (v,))
int_case("int_log_abs", SHARED_INT, True, sp.log(sp.Abs(x - a)), 0, 1,
         a * sp.log(a) + (1 - a) * sp.log(1 - a) - 1, lambda s, v: mp.log(abs(s - v)), a,
         (0.1, 0.9), lambda v: (v,))
int_case("int_gauss_erf", SHARED_INT, True, sp.exp(-(x**2)) * sp.erf(p * x), 0, oo,
         sp.atan(p) / sp.sqrt(pi), lambda s, v: mp.exp(-s * s) * mp.erf(v * s), p, (0.2, 5.0))

# ---- 2. closed forms SymPy cannot find ----------------------------------------------------------
int_case("int_sqrt_one_minus_cos", CLOSED, True, sp.sqrt(1 - sp.cos(x)), 0, 2 * pi,
         4 * sp.sqrt(2), lambda s, v: mp.sqrt(1 - mp.cos(s)), cuts=lambda v: (mp.pi,))
int_case("int_sqrt_one_minus_sin2x", CLOSED, True, sp.sqrt(1 - sp.sin(2 * x)), 0, pi,
         2 * sp.sqrt(2), lambda s, v: mp.sqrt(1 - mp.sin(2 * s)), cuts=lambda v: (mp.pi / 4,))
int_case("int_bose", CLOSED, True, x / (sp.exp(x) - 1), 0, oo, pi**2 / 6,
         lambda s, v: s / mp.expm1(s))
int_case("int_log1p_over_1px2", CLOSED, True, sp.log(1 + x) / (1 + x**2), 0, 1,
         pi * sp.log(2) / 8, lambda s, v: mp.log(1 + s) / (1 + s * s))
int_case("int_x_floor_x", CLOSED, True, x * sp.floor(x), 0, 3, R(13, 2),
         lambda s, v: s * mp.floor(s), cuts=lambda v: (1, 2))
int_case("int_power_log", CLOSED, True, x**p * sp.log(x), 0, 1, -1 / (p + 1) ** 2,
         lambda s, v: s**v * mp.log(s), p, (0.1, 5.0))
int_case("int_log_sin", CLOSED, True, sp.log(sp.sin(x)), 0, pi, -pi * sp.log(2),
         lambda s, v: mp.log(mp.sin(s)))
int_case("int_sqrt_tan", CLOSED, True, sp.sqrt(sp.tan(x)), 0, pi / 2, pi / sp.sqrt(2),
         lambda s, v: mp.sqrt(mp.tan(s)))
int_case("int_asin_over_x", CLOSED, True, sp.asin(x) / x, 0, 1, pi * sp.log(2) / 2,
         lambda s, v: mp.asin(s) / s)
int_case("int_atan_over_x_sqrt", CLOSED, True, sp.atan(x) / (x * sp.sqrt(1 - x**2)), 0, 1,
         pi / 2 * sp.log(1 + sp.sqrt(2)), lambda s, v: mp.atan(s) / (s * mp.sqrt(1 - s * s)))
int_case("int_log_poisson_inside", CLOSED, True, sp.log(1 - 2 * a * sp.cos(x) + a**2), 0, pi,
         sp.Integer(0), lambda s, v: mp.log(1 - 2 * v * mp.cos(s) + v * v), a, (-0.9, 0.9))
int_case("int_log_poisson_outside", CLOSED, True, sp.log(1 - 2 * c * sp.cos(x) + c**2), 0, pi,
         2 * pi * sp.log(c), lambda s, v: mp.log(1 - 2 * v * mp.cos(s) + v * v), c, (2.0, 5.0))
int_case("int_inverse_1_plus_p_cos2", CLOSED, True, 1 / (1 + p * sp.cos(x) ** 2), 0, pi,
         pi / sp.sqrt(1 + p), lambda s, v: 1 / (1 + v * mp.cos(s) ** 2), p, (0.5, 5.0))


def nsum_case(cid, cls, true, f_sym, lo, rhs, f_num, product=False, var=None, rng=None,
              group=1):
    op = sp.Product if product else sp.Sum
    dom = Domain(ranges={var: rng}) if var is not None else None
    add(cid, cls, true, lambda: claim(cid, op(f_sym, (i, lo, oo)), rhs, dom),
        w_nsum(f_num, lo, rhs, var, rng, product, group))


nsum_case("sum_sin_over_i", CLOSED, True, sp.sin(i) / i, 1, (pi - 1) / 2,
          lambda j, v: mp.sin(j) / j)
nsum_case("sum_cos_over_i", CLOSED, True, sp.cos(i) / i, 1, -sp.log(2 * sp.sin(R(1, 2))),
          lambda j, v: mp.cos(j) / j)
nsum_case("sum_odd_inverse_squares_mod", CLOSED, True, sp.Mod(i, 2) / i**2, 1, pi**2 / 8,
          lambda j, v: (int(j) % 2) / j**2, group=2)
nsum_case("sum_ramanujan_exp", CLOSED, True, i / (sp.exp(2 * pi * i) - 1), 1,
          R(1, 24) - 1 / (8 * pi), lambda j, v: j / mp.expm1(2 * mp.pi * j))
nsum_case("sum_zeta_minus_one", CLOSED, True, sp.zeta(i) - 1, 2, sp.Integer(1),
          lambda j, v: mp.zeta(j) - 1)
nsum_case("sum_log_one_plus_inverse_square", CLOSED, True, sp.log(1 + 1 / i**2), 1,
          sp.log(sp.sinh(pi) / pi), lambda j, v: mp.log(1 + 1 / j**2))
nsum_case("sum_alternating_log", CLOSED, True, (-1) ** i * sp.log(1 + 1 / i), 1,
          sp.log(2 / pi), lambda j, v: (-1) ** int(j) * mp.log(1 + 1 / j))

# ---- 3. products --------------------------------------------------------------------------------
nsum_case("prod_one_minus_inverse_square", PRODUCTS, True, 1 - 1 / i**2, 2, R(1, 2),
          lambda j, v: 1 - 1 / j**2, product=True)
nsum_case("prod_one_plus_inverse_square", PRODUCTS, True, 1 + 1 / i**2, 1, sp.sinh(pi) / pi,
          lambda j, v: 1 + 1 / j**2, product=True)
nsum_case("prod_wallis", PRODUCTS, True, 1 - 1 / (4 * i**2), 1, 2 / pi,
          lambda j, v: 1 - 1 / (4 * j**2), product=True)
nsum_case("prod_cubes", PRODUCTS, True, (i**3 - 1) / (i**3 + 1), 2, R(2, 3),
          lambda j, v: (j**3 - 1) / (j**3 + 1), product=True)
nsum_case("prod_alternating", PRODUCTS, True, 1 + (-1) ** i / i, 2, sp.Integer(1),
          lambda j, v: 1 + (-1) ** int(j) / j, product=True)
nsum_case("prod_exp_inverse_square", PRODUCTS, True, sp.exp(1 / i**2), 1, sp.exp(pi**2 / 6),
          lambda j, v: mp.exp(1 / j**2), product=True)
nsum_case("prod_viete_cos", PRODUCTS, True, sp.cos(p / 2**i), 1, sp.sin(p) / p,
          lambda j, v: mp.cos(v / 2**j), product=True, var=p, rng=(0.1, 3.0))


def loop_case(cid, cls, true, f_sym, lo, hi, rhs, product=False, dom=None, values=(None,)):
    """A finite sum/product over symbolic or concrete bounds; the witness loops the terms."""
    op = sp.Product if product else sp.Sum
    var = next(iter(sp.sympify(hi, strict=True).free_symbols
                    | sp.sympify(lo, strict=True).free_symbols), None)

    def bound(e):
        return lambda v: int(sp.sympify(e, strict=True).subs(var, v)) if var is not None else int(e)

    add(cid, cls, true, lambda: claim(cid, op(f_sym, (i, lo, hi)), rhs, dom),
        w_loop(lambda j, v: sp.sympify(f_sym, strict=True).subs(
            {i: j, **({var: v} if var else {})}),
               bound(lo), bound(hi), rhs, var, values, product))


SIZES = (1, 2, 3, 4, 5, 6, 7, 8)
INDEX_K = tuple(range(-3, 4))
DK3 = Domain(indices={k: (-3, 3)})
# Karr's 1/product for reversed bounds; the textbook empty product is 1
loop_case("prod_reversed_5_2_karr", PRODUCTS, False, i, 5, 2, R(1, 12), True)
loop_case("prod_reversed_5_2_empty", PRODUCTS, True, i, 5, 2, sp.Integer(1), True)
loop_case("prod_reversed_const_karr", PRODUCTS, False, sp.Integer(2), 4, 1, R(1, 4), True)
loop_case("prod_reversed_shift_karr", PRODUCTS, False, i + 1, 3, 0, R(1, 6), True)
loop_case("prod_reversed_shift_empty", PRODUCTS, True, i + 1, 3, 0, sp.Integer(1), True)
loop_case("prod_n_to_n_minus_3_karr", PRODUCTS, False, i, n, n - 3, 1 / ((n - 2) * (n - 1)), True,
          DN, SIZES)
loop_case("prod_n_to_n_minus_3_empty", PRODUCTS, True, i, n, n - 3, sp.Integer(1), True, DN, SIZES)
loop_case("prod_const_n_plus_3_karr", PRODUCTS, False, sp.Integer(2), n + 3, n, R(1, 4), True, DN,
          SIZES)
loop_case("prod_const_n_plus_3_empty", PRODUCTS, True, sp.Integer(2), n + 3, n, sp.Integer(1), True,
          DN, SIZES)
loop_case("prod_factorial_n_minus_3", PRODUCTS, False, i, 1, n - 3, sp.factorial(n - 3), True, DN,
          SIZES)
loop_case("prod_factorial_n_minus_3_max", PRODUCTS, True, i, 1, n - 3,
          sp.factorial(sp.Max(n - 3, 0)), True, DN, SIZES)
loop_case("prod_telescoping", PRODUCTS, True, 1 - 1 / i**2, 2, n, (n + 1) / (2 * n), True, DN,
          SIZES)
loop_case("prod_power_of_two_index_karr", PRODUCTS, False, sp.Integer(2), 1, k, 2**k, True, DK3,
          INDEX_K)
loop_case("prod_power_of_two_index", PRODUCTS, True, sp.Integer(2), 1, k, 2 ** sp.Max(k, 0), True,
          DK3, INDEX_K)

# ---- 4. summation convention --------------------------------------------------------------------
loop_case("sum_1_to_minus_3_karr", CONVENTION, False, i, 1, -3, sp.Integer(3))
loop_case("sum_1_to_minus_3_empty", CONVENTION, True, i, 1, -3, sp.Integer(0))
loop_case("sum_squares_1_to_minus_2_karr", CONVENTION, False, i**2, 1, -2, sp.Integer(-1))
loop_case("sum_ones_1_to_minus_5_karr", CONVENTION, False, sp.Integer(1), 1, -5, sp.Integer(-5))
loop_case("sum_ones_5_to_1_karr", CONVENTION, False, sp.Integer(1), 5, 1, sp.Integer(-3))
loop_case("sum_ones_5_to_1_empty", CONVENTION, True, sp.Integer(1), 5, 1, sp.Integer(0))
loop_case("sum_harmonic_5_to_2_karr", CONVENTION, False, 1 / i, 5, 2, R(-7, 12))
loop_case("sum_powers_3_to_0_karr", CONVENTION, False, 2**i, 3, 0, sp.Integer(-6))
loop_case("sum_powers_3_to_0_empty", CONVENTION, True, 2**i, 3, 0, sp.Integer(0))
loop_case("sum_1_to_0_empty", CONVENTION, True, i, 1, 0, sp.Integer(0))
loop_case("sum_n_to_n_minus_3_karr", CONVENTION, False, i, n, n - 3, 3 - 2 * n, dom=DN,
          values=SIZES)
loop_case("sum_n_to_n_minus_3_empty", CONVENTION, True, i, n, n - 3, sp.Integer(0), dom=DN,
          values=SIZES)
loop_case("sum_ones_n_plus_2_to_n_karr", CONVENTION, False, sp.Integer(1), n + 2, n,
          sp.Integer(-1), dom=DN, values=SIZES)
loop_case("sum_ones_n_plus_2_to_n_empty", CONVENTION, True, sp.Integer(1), n + 2, n,
          sp.Integer(0), dom=DN, values=SIZES)
loop_case("sum_squares_n_to_n_minus_4_karr", CONVENTION, False, i**2, n, n - 4,
          -((n - 3) ** 2) - (n - 2) ** 2 - (n - 1) ** 2, dom=DN, values=SIZES)
loop_case("sum_squares_n_to_n_minus_4_empty", CONVENTION, True, i**2, n, n - 4, sp.Integer(0),
          dom=DN, values=SIZES)
loop_case("sum_ones_to_n_minus_5_karr", CONVENTION, False, sp.Integer(1), 1, n - 5, n - 5, dom=DN,
          values=SIZES)
loop_case("sum_ones_to_n_minus_5", CONVENTION, True, sp.Integer(1), 1, n - 5, sp.Max(n - 5, 0),
          dom=DN, values=SIZES)
loop_case("sum_to_n_minus_3_karr", CONVENTION, False, i, 1, n - 3, (n - 3) * (n - 2) / 2, dom=DN,
          values=SIZES)
loop_case("sum_ones_to_index_karr", CONVENTION, False, sp.Integer(1), 1, k, k, dom=DK3,
          values=INDEX_K)
loop_case("sum_ones_to_index", CONVENTION, True, sp.Integer(1), 1, k, sp.Max(k, 0), dom=DK3,
          values=INDEX_K)
loop_case("sum_to_index_gauss_karr", CONVENTION, False, i, 1, k, k * (k + 1) / 2, dom=DK3,
          values=INDEX_K)
loop_case("sum_to_index_gauss", CONVENTION, True, i, 1, k,
          sp.Piecewise((k * (k + 1) / 2, k >= 0), (0, True)), dom=DK3, values=INDEX_K)

# ---- 5. limits of integer sequences -------------------------------------------------------------
MPI = mp.pi


def lim_case(cid, true, expr, rhs, seq):
    add(cid, LIMITS, true, lambda: claim(cid, sp.Limit(expr, n, oo), rhs, DN), w_seq(seq, rhs))


# SymPy, n integer: the substitution n = 1/t keeps t integer, so sin(π t) = 0
lim_case("lim_n_sin_pi_over_n_is_zero", False, n * sp.sin(pi / n), sp.Integer(0),
         lambda m: m * mp.sin(MPI / m))
lim_case("lim_n_sin_pi_over_n", True, n * sp.sin(pi / n), pi, lambda m: m * mp.sin(MPI / m))
lim_case("lim_n_tan_pi_over_n_is_zero", False, n * sp.tan(pi / n), sp.Integer(0),
         lambda m: m * mp.tan(MPI / m))
lim_case("lim_n_tan_pi_over_n", True, n * sp.tan(pi / n), pi, lambda m: m * mp.tan(MPI / m))
lim_case("lim_n_sin_2pi_over_n_is_zero", False, n * sp.sin(2 * pi / n), sp.Integer(0),
         lambda m: m * mp.sin(2 * MPI / m))
lim_case("lim_n_sin_2pi_over_n", True, n * sp.sin(2 * pi / n), 2 * pi,
         lambda m: m * mp.sin(2 * MPI / m))
lim_case("lim_n_one_minus_cos_is_minus_i_pi", False, n * (1 - sp.cos(pi / n)), -sp.I * pi,
         lambda m: m * (1 - mp.cos(MPI / m)))
lim_case("lim_n_one_minus_cos", True, n * (1 - sp.cos(pi / n)), sp.Integer(0),
         lambda m: m * (1 - mp.cos(MPI / m)))
lim_case("lim_n2_one_minus_cos", True, n**2 * (1 - sp.cos(pi / n)), pi**2 / 2,
         lambda m: m * m * (1 - mp.cos(MPI / m)))
lim_case("lim_sine_ratio_is_zero", False, sp.sin(pi / n) / sp.sin(pi / (2 * n)), sp.Integer(0),
         lambda m: mp.sin(MPI / m) / mp.sin(MPI / (2 * m)))
lim_case("lim_sine_ratio", True, sp.sin(pi / n) / sp.sin(pi / (2 * n)), sp.Integer(2),
         lambda m: mp.sin(MPI / m) / mp.sin(MPI / (2 * m)))
lim_case("lim_n_sin_cos_is_zero", False, n * sp.sin(pi / n) * sp.cos(pi / n), sp.Integer(0),
         lambda m: m * mp.sin(MPI / m) * mp.cos(MPI / m))
lim_case("lim_n_sin_cos", True, n * sp.sin(pi / n) * sp.cos(pi / n), pi,
         lambda m: m * mp.sin(MPI / m) * mp.cos(MPI / m))
lim_case("lim_n_sin_over_pi_is_zero", False, n * sp.sin(pi / n) / pi, sp.Integer(0),
         lambda m: m * mp.sin(MPI / m) / MPI)
# Mod, floor and ceiling in an integer variable
lim_case("lim_mod2_over_n_is_one", False, sp.Mod(n, 2) / n, sp.Integer(1),
         lambda m: mp.mpf(m % 2) / m)
lim_case("lim_mod2_over_n", True, sp.Mod(n, 2) / n, sp.Integer(0), lambda m: mp.mpf(m % 2) / m)
lim_case("lim_mod5_over_n_is_one", False, sp.Mod(n, 5) / n, sp.Integer(1),
         lambda m: mp.mpf(m % 5) / m)
lim_case("lim_mod5_over_n", True, sp.Mod(n, 5) / n, sp.Integer(0), lambda m: mp.mpf(m % 5) / m)
lim_case("lim_mod2_is_infinite", False, sp.Mod(n, 2), oo, lambda m: mp.mpf(m % 2))
lim_case("lim_mod2_plus_inverse_is_infinite", False, sp.Mod(n, 2) + 1 / n, oo,
         lambda m: m % 2 + mp.mpf(1) / m)
lim_case("lim_mod2_scaled_is_infinite", False, sp.Mod(n, 2) * n / (n + 1), oo,
         lambda m: mp.mpf(m % 2) * m / (m + 1))
lim_case("lim_floor_half_is_minus_infinite", False, sp.floor(n / 2) - n / 2, -oo,
         lambda m: mp.mpf(m // 2) - mp.mpf(m) / 2)
lim_case("lim_ceiling_half_is_minus_infinite", False, sp.ceiling(n / 2) - n / 2, -oo,
         lambda m: mp.mpf(-(-m // 2)) - mp.mpf(m) / 2)
lim_case("lim_parity_is_infinite", False, n - 2 * sp.floor(n / 2), oo,
         lambda m: mp.mpf(m - 2 * (m // 2)))
lim_case("lim_square_parity_is_infinite", False, sp.Mod(n**2, 2), oo, lambda m: mp.mpf(m * m % 2))
lim_case("lim_always_odd", True, sp.Mod(n**2 + n + 1, 2), sp.Integer(1),
         lambda m: mp.mpf((m * m + m + 1) % 2))
lim_case("lim_parity_product", True, sp.Mod(n, 2) * sp.Mod(n + 1, 2), sp.Integer(0),
         lambda m: mp.mpf((m % 2) * ((m + 1) % 2)))
lim_case("lim_frac_halves", True, sp.frac(n / 2) + sp.frac((n + 1) / 2), R(1, 2),
         lambda m: mp.mpf(m % 2) / 2 + mp.mpf((m + 1) % 2) / 2)
# (-1)^n: SymPy raises "Result depends on the sign of I"
lim_case("lim_alternating_over_n", True, (-1) ** n / n, sp.Integer(0),
         lambda m: mp.mpf((-1) ** (m % 2)) / m)
lim_case("lim_cos_pi_n_over_n", True, sp.cos(pi * n) / n, sp.Integer(0),
         lambda m: mp.mpf((-1) ** (m % 2)) / m)
lim_case("lim_alternating_square_over_n", True, ((-1) ** n + 1) ** 2 / n, sp.Integer(0),
         lambda m: mp.mpf(((-1) ** (m % 2) + 1) ** 2) / m)
lim_case("lim_alternating_half_is_half", False, (1 + (-1) ** n) / 2, R(1, 2),
         lambda m: mp.mpf(1 + (-1) ** (m % 2)) / 2)

# ---- 6. special functions -----------------------------------------------------------------------
NEG, POS = (-8.0, -0.5), (0.5, 8.0)


def fun_case(cid, true, lhs_sym, rhs, lhs_num, rng):
    add(cid, SPECIAL, true, lambda: claim(cid, lhs_sym, rhs, Domain(ranges={x: rng})),
        w_fun(lhs_num, rhs, x, rng))


_SI = sp.Si(x).rewrite(sp.expint)
_CI = sp.Ci(x).rewrite(sp.expint)
_SHI = sp.Shi(x).rewrite(sp.expint)
fun_case("si_expint_form_negative", False, sp.Si(x), _SI, mp.si, NEG)
fun_case("si_expint_form_positive", True, sp.Si(x), _SI, mp.si, POS)
fun_case("ci_expint_form_negative", False, sp.Ci(x), _CI, mp.ci, NEG)
fun_case("shi_expint_form_negative", False, sp.Shi(x), _SHI, mp.shi, NEG)
fun_case("shi_expint_form_positive", True, sp.Shi(x), _SHI, mp.shi, POS)
fun_case("ei_chi_shi_negative", False, sp.Ei(x), sp.Chi(x) + sp.Shi(x), mp.ei, NEG)
fun_case("ei_chi_shi_positive", True, sp.Ei(x), sp.Chi(x) + sp.Shi(x), mp.ei, POS)
fun_case("loggamma_log_gamma_negative", False, sp.loggamma(x), sp.log(sp.gamma(x)), mp.loggamma,
         (-1.9, -1.1))
fun_case("loggamma_log_gamma_positive", True, sp.loggamma(x), sp.log(sp.gamma(x)), mp.loggamma,
         POS)
fun_case("loggamma_recurrence_positive", True, sp.loggamma(x + 1), sp.loggamma(x) + sp.log(x),
         lambda v: mp.loggamma(v + 1), POS)
fun_case("digamma_shift", True, sp.polygamma(0, x + 3),
         sp.polygamma(0, x) + 1 / x + 1 / (x + 1) + 1 / (x + 2), lambda v: mp.digamma(v + 3), POS)
nsum_case("sum_digamma_difference", SPECIAL, True, 1 / ((i + p) * (i + 1)), 0,
          (sp.polygamma(0, p) + sp.EulerGamma) / (p - 1),
          lambda j, v: 1 / ((j + v) * (j + 1)), var=p, rng=(1.5, 5.0))
nsum_case("sum_trigamma", SPECIAL, True, 1 / (i + p) ** 2, 0, sp.polygamma(1, p),
          lambda j, v: 1 / (j + v) ** 2, var=p, rng=(0.5, 5.0))
nsum_case("sum_alternating_digamma", SPECIAL, True, (-1) ** i / (i + p), 0,
          (sp.polygamma(0, (p + 1) / 2) - sp.polygamma(0, p / 2)) / 2,
          lambda j, v: (-1) ** int(j) / (j + v), var=p, rng=(0.5, 5.0))


def _engine_child(index, conn):
    from derivations.redteam.cases import run_case

    try:
        o = run_case(CASES[index])
        conn.send((o.result, o.detail[:150]))
    except Exception as exc:  # noqa: BLE001 - an engine crash is a result here
        conn.send(("error", f"{type(exc).__name__}: {str(exc)[:140]}"))


def run_engine(workers=2, seconds=60):
    """Each case through the engine in a process of its own, stopped after ``seconds``.
    Yields (case, result, detail) as each case ends."""
    import multiprocessing
    import time

    ctx = multiprocessing.get_context("fork")
    results, running, todo = {}, {}, list(range(len(CASES)))
    while todo or running:
        while todo and len(running) < workers:
            j = todo.pop(0)
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_engine_child, args=(j, send), daemon=True)
            proc.start()
            running[j] = (proc, recv, time.monotonic())
        for j, (proc, recv, t0) in list(running.items()):
            if recv.poll():
                results[j] = recv.recv()
            elif not proc.is_alive():
                results[j] = ("error", f"exit code {proc.exitcode}")
            elif time.monotonic() - t0 > seconds:
                proc.kill()
                results[j] = ("timeout", f"over {seconds} s")
            else:
                continue
            proc.join()
            del running[j]
            yield (CASES[j], *results[j])
        time.sleep(0.05)


def main(argv: list[str]) -> int:
    bad = 0
    for case in CASES:
        try:
            got = case.witness()
        except Exception as exc:  # noqa: BLE001 - reported as a mismatch
            got = f"error {type(exc).__name__}: {exc}"
        if got is not case.true:
            bad += 1
            print(f"WITNESS MISMATCH {case.id}: declared {case.true}, witness {got}")
    assert bad == 0, f"{bad} witnesses disagree with the declared truth"
    counts: dict[str, list[int]] = {}
    for case in CASES:
        counts.setdefault(case.cls, [0, 0])[case.true] += 1
    for cls, (f, t) in counts.items():
        print(f"{cls:22s} false {f:3d} true {t:3d}")
    print(f"{len(CASES)} cases, every witness agrees with the declared truth")
    if "--engine" in argv:
        lines = []
        for case, result, detail in run_engine():
            wrong = (result != "proved") if case.true else (result not in ("failed", "refused"))
            lines.append((CASES.index(case),
                          f"{'MISJUDGED' if wrong else 'ok       '} "
                          f"{'TRUE ' if case.true else 'FALSE'} {case.cls:20s} {case.id}: "
                          f"{result} {detail}"))
            print(lines[-1][1], file=sys.stderr, flush=True)
        print("\n".join(line for _, line in sorted(lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
