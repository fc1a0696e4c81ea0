"""Class 2 — the mirror of saturation: TRUE identities whose one side cancels catastrophically.

Each is an exact identity (the docstring-level argument is on the case's comment line); one side
subtracts two numbers that agree to 100-1100 digits, the other is computed without cancellation.
A numeric route that reads the cancelled side as 0 at 50 digits fails a true claim. Witnesses
compare both sides *relatively* (the sides are tiny), at enough digits that the cancelled side
keeps hundreds of correct digits.
"""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from derivations import Domain
from derivations.redteam.round3.common import add_to, claim, pairs, pts

CLS = "cancellation"
CASES: list = []
add = add_to(CASES, CLS)

x, y = sp.symbols("x y", real=True)
a, b = sp.symbols("a b", real=True)
p = sp.Symbol("p", positive=True)
SQ2 = sp.sqrt(2)
BIG = sp.Integer(10) ** 200
TINY = sp.Integer(10) ** 60


def rng(lo, hi, sym=x):
    return Domain(ranges={sym: (lo, hi)})


def rel_holds(lhs, rhs, points, dps, digits=200) -> bool:
    """lhs == rhs to ``digits`` significant digits of the sides themselves (not of 1: the sides
    are tiny here). ``dps`` leaves the cancelled side at least that many correct digits."""
    with mp.workdps(dps):
        tol = mp.mpf(10) ** -digits
        for v in points:
            args = v if isinstance(v, tuple) else (v,)
            u, w = lhs(*args), rhs(*args)
            if not (mp.isfinite(u) and mp.isfinite(w)) or w == 0:
                return False
            if abs(u - w) > tol * max(abs(u), abs(w)):
                return False
    return True


def mp_sig_t(v):
    return (1 + mp.tanh(v / 2)) / 2


# (tanh)' = sech²: both sides ~ 10^-260 at 300; the route's derivative is 1 − tanh² x
add("canc_dtanh_is_sech2", True,
    lambda: claim("canc_dtanh_is_sech2", sp.Derivative(sp.tanh(x), x), sp.sech(x) ** 2,
                  rng(200, 300)),
    lambda: rel_holds(lambda v: mp.diff(mp.tanh, v), lambda v: mp.sech(v) ** 2,
                      pts(200, 300, 5, 1), dps=800))

# 1 − tanh² x = sech² x: cosh² − sinh² = 1 divided by cosh²
add("canc_one_minus_tanh2_is_sech2", True,
    lambda: claim("canc_one_minus_tanh2_is_sech2", 1 - sp.tanh(x) ** 2, sp.sech(x) ** 2,
                  rng(200, 300)),
    lambda: rel_holds(lambda v: 1 - mp.tanh(v) ** 2, lambda v: mp.sech(v) ** 2,
                      pts(200, 300, 8, 2), dps=800))

# erfc is defined as 1 − erf: 1 − erf(50) cancels 1088 digits
add("canc_one_minus_erf_is_erfc", True,
    lambda: claim("canc_one_minus_erf_is_erfc", 1 - sp.erf(x), sp.erfc(x), rng(20, 50)),
    lambda: rel_holds(lambda v: 1 - mp.erf(v), mp.erfc, pts(20, 50, 8, 3), dps=1500))

# √(x+1) − √x = 1/(√(x+1) + √x) (multiply by the conjugate) at x ~ 10^200, by a declared range
add("canc_sqrt_difference_range_1e200", True,
    lambda: claim("canc_sqrt_difference_range_1e200", sp.sqrt(x + 1) - sp.sqrt(x),
                  1 / (sp.sqrt(x + 1) + sp.sqrt(x)), rng(10**200, 10**201)),
    lambda: rel_holds(lambda v: mp.sqrt(v + 1) - mp.sqrt(v),
                      lambda v: 1 / (mp.sqrt(v + 1) + mp.sqrt(v)),
                      pts(10**200, 10**201, 8, 4), dps=600))

# the same with x = 10^200 p written into the claim, p in (1, 10)
add("canc_sqrt_difference_scaled_1e200", True,
    lambda: claim("canc_sqrt_difference_scaled_1e200", sp.sqrt(BIG * p + 1) - sp.sqrt(BIG * p),
                  1 / (sp.sqrt(BIG * p + 1) + sp.sqrt(BIG * p)), rng(1, 10, p)),
    lambda: rel_holds(lambda v: mp.sqrt(10**200 * v + 1) - mp.sqrt(10**200 * v),
                      lambda v: 1 / (mp.sqrt(10**200 * v + 1) + mp.sqrt(10**200 * v)),
                      pts(1, 10, 8, 5), dps=600))

# log(1 + e^x) − x = log(e^-x (1 + e^x)) = log(1 + e^-x)
add("canc_softplus_minus_x", True,
    lambda: claim("canc_softplus_minus_x", sp.log(1 + sp.exp(x)) - x, sp.log(1 + sp.exp(-x)),
                  rng(200, 300)),
    lambda: rel_holds(lambda v: mp.log(1 + mp.exp(v)) - v, lambda v: mp.log(1 + mp.exp(-v)),
                      pts(200, 300, 8, 6), dps=800))

# log cosh x = log(e^x (1 + e^-2x)/2) = x − log 2 + log(1 + e^-2x)
add("canc_log_cosh_exact", True,
    lambda: claim("canc_log_cosh_exact", sp.log(sp.cosh(x)) - x + sp.log(2),
                  sp.log(1 + sp.exp(-2 * x)), rng(200, 300)),
    lambda: rel_holds(lambda v: mp.log(mp.cosh(v)) - v + mp.log(2),
                      lambda v: mp.log(1 + mp.exp(-2 * v)), pts(200, 300, 8, 7), dps=800))

# cosh − sinh = e^-x: two numbers ~ 10^130 that agree to 260 digits
add("canc_cosh_minus_sinh", True,
    lambda: claim("canc_cosh_minus_sinh", sp.cosh(x) - sp.sinh(x), sp.exp(-x), rng(200, 300)),
    lambda: rel_holds(lambda v: mp.cosh(v) - mp.sinh(v), lambda v: mp.exp(-v),
                      pts(200, 300, 8, 8), dps=800))

# log σ(x) with σ = (1 + tanh(x/2))/2 = 1/(1 + e^-x)
add("canc_log_sigmoid", True,
    lambda: claim("canc_log_sigmoid", sp.log((1 + sp.tanh(x / 2)) / 2),
                  -sp.log(1 + sp.exp(-x)), rng(400, 600)),
    lambda: rel_holds(lambda v: mp.log(mp_sig_t(v)), lambda v: -mp.log(1 + mp.exp(-v)),
                      pts(400, 600, 8, 9), dps=800))

# the normal tail: 1 − Φ(x) = erfc(x/√2)/2
add("canc_normal_tail", True,
    lambda: claim("canc_normal_tail", 1 - (1 + sp.erf(x / SQ2)) / 2, sp.erfc(x / SQ2) / 2,
                  rng(30, 70)),
    lambda: rel_holds(lambda v: 1 - (1 + mp.erf(v / mp.sqrt(2))) / 2,
                      lambda v: mp.erfc(v / mp.sqrt(2)) / 2, pts(30, 70, 8, 10), dps=1500))

# tanh x − tanh y = sinh(x − y)/(cosh x cosh y) (the subtraction formula)
add("canc_tanh_difference", True,
    lambda: claim("canc_tanh_difference", sp.tanh(x) - sp.tanh(y),
                  sp.sinh(x - y) / (sp.cosh(x) * sp.cosh(y)),
                  Domain(ranges={x: (200, 300), y: (200, 300)})),
    lambda: rel_holds(lambda u, v: mp.tanh(u) - mp.tanh(v),
                      lambda u, v: mp.sinh(u - v) / (mp.cosh(u) * mp.cosh(v)),
                      [q for q in pairs(200, 300, 200, 300, 8, 11) if q[0] != q[1]], dps=800))

# √(p² + 1) − p = 1/(√(p² + 1) + p) for p ~ 10^100
add("canc_sqrt_square_plus_one", True,
    lambda: claim("canc_sqrt_square_plus_one", sp.sqrt(p**2 + 1) - p,
                  1 / (sp.sqrt(p**2 + 1) + p), rng(10**100, 10**101, p)),
    lambda: rel_holds(lambda v: mp.sqrt(v**2 + 1) - v, lambda v: 1 / (mp.sqrt(v**2 + 1) + v),
                      pts(10**100, 10**101, 8, 12), dps=600))

# 1 − cos u = 2 sin²(u/2) at u = x/10^60 ~ 10^-60: the left side cancels 120 digits
add("canc_one_minus_cos_tiny", True,
    lambda: claim("canc_one_minus_cos_tiny", 1 - sp.cos(x / TINY),
                  2 * sp.sin(x / (2 * TINY)) ** 2, rng(1, 2)),
    lambda: rel_holds(lambda v: 1 - mp.cos(v / mp.mpf(10) ** 60),
                      lambda v: 2 * mp.sin(v / (2 * mp.mpf(10) ** 60)) ** 2, pts(1, 2, 8, 13),
                      dps=400))

# e^u − 1 = 2 e^(u/2) sinh(u/2) at u ~ 10^-60
add("canc_expm1_tiny", True,
    lambda: claim("canc_expm1_tiny", sp.exp(x / TINY) - 1,
                  2 * sp.exp(x / (2 * TINY)) * sp.sinh(x / (2 * TINY)), rng(1, 2)),
    lambda: rel_holds(lambda v: mp.exp(v / mp.mpf(10) ** 60) - 1,
                      lambda v: 2 * mp.exp(v / (2 * mp.mpf(10) ** 60))
                      * mp.sinh(v / (2 * mp.mpf(10) ** 60)), pts(1, 2, 8, 14), dps=400))

# log(1 + u) = 2 atanh(u/(2 + u)) at u = x/10^60
add("canc_log1p_tiny", True,
    lambda: claim("canc_log1p_tiny", sp.log(1 + x / TINY), 2 * sp.atanh(x / (2 * TINY + x)),
                  rng(1, 2)),
    lambda: rel_holds(lambda v: mp.log(1 + v / mp.mpf(10) ** 60),
                      lambda v: 2 * mp.atanh(v / (2 * mp.mpf(10) ** 60 + v)), pts(1, 2, 8, 15),
                      dps=400))

# coth x − 1 = 2/(e^2x − 1)
add("canc_coth_minus_one", True,
    lambda: claim("canc_coth_minus_one", sp.coth(x) - 1, 2 / (sp.exp(2 * x) - 1), rng(200, 300)),
    lambda: rel_holds(lambda v: mp.coth(v) - 1, lambda v: 2 / (mp.exp(2 * v) - 1),
                      pts(200, 300, 8, 16), dps=800))

# (log cosh)' − 1 = tanh x − 1 = −2/(e^2x + 1)
add("canc_dlog_cosh_minus_one", True,
    lambda: claim("canc_dlog_cosh_minus_one", sp.Derivative(sp.log(sp.cosh(x)), x) - 1,
                  -2 / (sp.exp(2 * x) + 1), rng(200, 300)),
    lambda: rel_holds(lambda v: mp.diff(lambda u: mp.log(mp.cosh(u)), v) - 1,
                      lambda v: -2 / (mp.exp(2 * v) + 1), pts(200, 300, 5, 17), dps=800))

# a two-logit softmax's losing probability: 1 − e^a/(e^a + e^b) = e^b/(e^a + e^b)
add("canc_softmax_complement", True,
    lambda: claim("canc_softmax_complement", 1 - sp.exp(a) / (sp.exp(a) + sp.exp(b)),
                  sp.exp(b) / (sp.exp(a) + sp.exp(b)),
                  Domain(ranges={a: (500, 600), b: (0, 100)})),
    lambda: rel_holds(lambda u, v: 1 - mp.exp(u) / (mp.exp(u) + mp.exp(v)),
                      lambda u, v: mp.exp(v) / (mp.exp(u) + mp.exp(v)),
                      pairs(500, 600, 0, 100, 8, 18), dps=800))

# (x − x Φ(x))' = 1 − Φ(x) − x φ(x) = erfc(x/√2)/2 − x e^(−x²/2)/√(2π)
add("canc_gelu_complement_derivative", True,
    lambda: claim("canc_gelu_complement_derivative",
                  sp.Derivative(x - x * (1 + sp.erf(x / SQ2)) / 2, x),
                  sp.erfc(x / SQ2) / 2 - x * sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi),
                  rng(30, 60)),
    lambda: rel_holds(lambda v: mp.diff(lambda u: u - u * (1 + mp.erf(u / mp.sqrt(2))) / 2, v),
                      lambda v: mp.erfc(v / mp.sqrt(2)) / 2
                      - v * mp.exp(-v**2 / 2) / mp.sqrt(2 * mp.pi),
                      pts(30, 60, 5, 19), dps=2000))
