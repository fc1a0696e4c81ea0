"""Class 1 — saturation hidden below the working precision (every case false).

Functions that approach a constant exponentially fast, on ranges where their distance to the
constant is 10^-87 .. 10^-1088: below the 50 digits the numeric route starts at, above the digits
a witness at 400-1500 digits resolves. None is written with an explicit exp where that can be
avoided (tanh, erf, erfc, cosh, log cosh, 2^x, the GELU forms); the premises rewrite a saturating
function to its limit and are false at every point.
"""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from derivations import Assumption, Domain, Step
from derivations.redteam.round3.common import add_to, claim, holds, pairs, pts

CLS = "saturation"
CASES: list = []
add = add_to(CASES, CLS)

x, y = sp.symbols("x y", real=True)
a, b = sp.symbols("a b", real=True)
p = sp.Symbol("p", positive=True)
W = sp.Wild("W")
SQ2 = sp.sqrt(2)
C_GELU = sp.Rational(44715, 10**6)  # the tanh form's 0.044715, exactly


def rng(lo, hi):
    return Domain(ranges={x: (lo, hi)})


def mp_sig_t(v):  # the logistic function written as (1 + tanh(v/2))/2
    return (1 + mp.tanh(v / 2)) / 2


def mp_Phi(v):
    return (1 + mp.erf(v / mp.sqrt(2))) / 2


def mp_gelu_tanh(v):
    return v / 2 * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (v + mp.mpf(44715) / 10**6 * v**3)))


def zero(*_):
    return mp.mpf(0)


def one(*_):
    return mp.mpf(1)


# d/dx tanh x = sech² x ~ 4e^-2x: 10^-174 .. 10^-260 on (200, 300), not 0
add("sat_dtanh_is_zero", False,
    lambda: claim("sat_dtanh_is_zero", sp.Derivative(sp.tanh(x), x), 0, rng(200, 300)),
    lambda: holds(lambda v: mp.diff(mp.tanh, v), zero, pts(200, 300, 6, 1)))

# 1 − σ(x) = 1/(1 + e^x) ~ 10^-174 at x = 400
add("sat_logistic_tanh_is_one", False,
    lambda: claim("sat_logistic_tanh_is_one", (1 + sp.tanh(x / 2)) / 2, 1, rng(400, 600)),
    lambda: holds(mp_sig_t, one, pts(400, 600, 8, 2)))

# σ(x) for x in (−600, −400) is e^-|x| ~ 10^-174 .. 10^-260: 1 + tanh(x/2) cancels to it
add("sat_logistic_negative_is_zero", False,
    lambda: claim("sat_logistic_negative_is_zero", (1 + sp.tanh(x / 2)) / 2, 0,
                  rng(-600, -400)),
    lambda: holds(mp_sig_t, zero, pts(-600, -400, 8, 3)))

# 1 − erf x = erfc x: 5e-176 at 20, 2e-1088 at 50
add("sat_erf_is_one", False,
    lambda: claim("sat_erf_is_one", sp.erf(x), 1, rng(20, 50)),
    lambda: holds(mp.erf, one, pts(20, 50, 8, 4), dps=1500))

# a positive symbol scaled by 1000: erfc(1000 p) for p in (1/50, 1/20) is a small value, not a
# cancellation (a control of the class: it is never read as 0)
add("sat_erfc_scaled_is_zero", False,
    lambda: claim("sat_erfc_scaled_is_zero", sp.erfc(1000 * p), 0,
                  Domain(ranges={p: (sp.Rational(1, 50), sp.Rational(1, 20))})),
    lambda: holds(lambda v: mp.erfc(1000 * v), zero,
                  pts(mp.mpf(1) / 50, mp.mpf(1) / 20, 6, 5), dps=1500))

# Φ(x) = (1 + erf(x/√2))/2; 1 − Φ(30) ~ 5e-198
add("sat_normal_cdf_is_one", False,
    lambda: claim("sat_normal_cdf_is_one", (1 + sp.erf(x / SQ2)) / 2, 1, rng(30, 70)),
    lambda: holds(mp_Phi, one, pts(30, 70, 8, 6), dps=1200))

# cosh x − sinh x = e^-x ~ 10^-87 .. 10^-130 against values ~ 10^87 .. 10^130
add("sat_cosh_is_sinh", False,
    lambda: claim("sat_cosh_is_sinh", sp.cosh(x), sp.sinh(x), rng(200, 300)),
    lambda: holds(mp.cosh, mp.sinh, pts(200, 300, 8, 7)))

# log cosh x = x − log 2 + log(1 + e^-2x): the last term 10^-174 .. 10^-260
add("sat_log_cosh_is_linear", False,
    lambda: claim("sat_log_cosh_is_linear", sp.log(sp.cosh(x)), x - sp.log(2), rng(200, 300)),
    lambda: holds(lambda v: mp.log(mp.cosh(v)), lambda v: v - mp.log(2), pts(200, 300, 8, 8)))

# softplus without exp: x/2 + log(2 cosh(x/2)) = log(1 + e^x) = x + log(1 + e^-x)
add("sat_softplus_cosh_is_relu", False,
    lambda: claim("sat_softplus_cosh_is_relu", x / 2 + sp.log(2 * sp.cosh(x / 2)), x,
                  rng(400, 600)),
    lambda: holds(lambda v: v / 2 + mp.log(2 * mp.cosh(v / 2)), lambda v: v,
                  pts(400, 600, 8, 9)))

# base-2 softplus: log2(1 + 2^x) − x = log2(1 + 2^-x) ~ 2^-600 ~ 10^-181
add("sat_softplus_base2_is_relu", False,
    lambda: claim("sat_softplus_base2_is_relu", sp.log(1 + 2**x) / sp.log(2), x,
                  rng(600, 900)),
    lambda: holds(lambda v: mp.log(1 + mp.mpf(2) ** v) / mp.log(2), lambda v: v,
                  pts(600, 900, 8, 10)))

# GELU(x) = x Φ(x); x − GELU(x) = x(1 − Φ(x)) ~ 10^-196 at 30
add("sat_gelu_is_identity", False,
    lambda: claim("sat_gelu_is_identity", x * (1 + sp.erf(x / SQ2)) / 2, x, rng(30, 60)),
    lambda: holds(lambda v: v * mp_Phi(v), lambda v: v, pts(30, 60, 8, 11), dps=1000))

# the tanh form: at x = 15 the tanh's argument is 132, so x − GELU_tanh(x) ~ 10^-114
add("sat_gelu_tanh_is_identity", False,
    lambda: claim("sat_gelu_tanh_is_identity",
                  x / 2 * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (x + C_GELU * x**3))), x,
                  rng(15, 25)),
    lambda: holds(mp_gelu_tanh, lambda v: v, pts(15, 25, 8, 12), dps=1500))

# GELU'(x) = Φ(x) + x φ(x) = 1 − (1 − Φ(x)) + x φ(x): differs from 1 by ~ x φ(x) ~ 10^-194
add("sat_gelu_derivative_is_one", False,
    lambda: claim("sat_gelu_derivative_is_one",
                  sp.Derivative(x * (1 + sp.erf(x / SQ2)) / 2, x), 1, rng(30, 60)),
    lambda: holds(lambda v: mp.diff(lambda u: u * mp_Phi(u), v), one, pts(30, 60, 5, 13),
                  dps=600))

# a positive symbol times 1000 under a hypothesis, no range: tanh(1000 p) < 1 for every p
add("sat_tanh_1000p_is_one", False,
    lambda: claim("sat_tanh_1000p_is_one", sp.tanh(1000 * p), 1,
                  hypotheses=(sp.Gt(p, sp.Rational(1, 5)),)),
    lambda: holds(lambda v: mp.tanh(1000 * v), one, pts(mp.mpf(1) / 5, mp.mpf(3) / 10, 6, 14),
                  dps=600))

_TANH_SAT = Assumption("tanh saturates", "for large arguments tanh u = 1",
                       rewrites=((sp.tanh(W), 1),))
# a premise false at every point (tanh u < 1 for every real u), cited by a wrong sum
add("sat_premise_tanh_is_one", False,
    lambda: claim("sat_premise_tanh_is_one", sp.tanh(x) + sp.tanh(y), 2,
                  Domain(ranges={x: (200, 300), y: (200, 300)}), (_TANH_SAT,),
                  (Step(sp.Integer(2), "both tanh saturate", ("tanh saturates",)),)),
    lambda: holds(lambda u, v: mp.tanh(u) + mp.tanh(v), lambda u, v: 2,
                  pairs(200, 300, 200, 300, 8, 15)))

_TANH2_SAT = Assumption("tanh squared saturates", "tanh² x = 1 for large x",
                        rewrites=((sp.tanh(x) ** 2, 1),))
# a true first step, then the false premise: d/dx tanh x = 1 − tanh² x = 0
add("sat_premise_dtanh_is_zero", False,
    lambda: claim("sat_premise_dtanh_is_zero", sp.Derivative(sp.tanh(x), x), 0, rng(200, 300),
                  (_TANH2_SAT,),
                  (Step(1 - sp.tanh(x) ** 2, "d/dx tanh x = 1 − tanh² x"),
                   Step(sp.Integer(0), "tanh² saturates", ("tanh squared saturates",)))),
    lambda: holds(lambda v: mp.diff(mp.tanh, v), zero, pts(200, 300, 6, 16)))

_ERF_SAT = Assumption("erf saturates", "erf u = 1 for large u", rewrites=((sp.erf(W), 1),))
_TAIL = Assumption("gaussian tail vanishes", "exp(−x²/2) = 0 for large x",
                   rewrites=((sp.exp(-x**2 / 2), 0),))
# two false premises (erf → 1 and e^-x²/2 → 0) turn GELU's exact derivative into 1
add("sat_premise_gelu_derivative_is_one", False,
    lambda: claim("sat_premise_gelu_derivative_is_one",
                  sp.Derivative(x * (1 + sp.erf(x / SQ2)) / 2, x), 1, rng(30, 60),
                  (_ERF_SAT, _TAIL),
                  (Step((1 + sp.erf(x / SQ2)) / 2 + x * sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi),
                        "product rule; d/dx erf(x/√2) = √(2/π) e^(−x²/2)"),
                   Step(sp.Integer(1), "erf saturates and the tail vanishes",
                        ("erf saturates", "gaussian tail vanishes")))),
    lambda: holds(lambda v: mp.diff(lambda u: u * mp_Phi(u), v), one, pts(30, 60, 5, 17),
                  dps=600))

_COSH_EXP = Assumption("cosh is half exp", "cosh u = e^u / 2 for large u",
                       rewrites=((sp.cosh(W), sp.exp(W) / 2),))
# the premise's error e^-u/2 is 10^-174 of its value: log cosh x = x − log 2 by it
add("sat_premise_cosh_is_half_exp", False,
    lambda: claim("sat_premise_cosh_is_half_exp", sp.log(sp.cosh(x)), x - sp.log(2),
                  rng(200, 300), (_COSH_EXP,),
                  (Step(sp.log(sp.exp(x) / 2), "cosh x = e^x/2", ("cosh is half exp",)),
                   Step(x - sp.log(2), "log of a quotient"))),
    lambda: holds(lambda v: mp.log(mp.cosh(v)), lambda v: v - mp.log(2), pts(200, 300, 6, 18)))

# a two-logit softmax written with tanh: σ(a − b) with a − b > 400
add("sat_two_logit_softmax_is_one_hot", False,
    lambda: claim("sat_two_logit_softmax_is_one_hot", (1 + sp.tanh((a - b) / 2)) / 2, 1,
                  Domain(ranges={a: (500, 600), b: (0, 100)})),
    lambda: holds(lambda u, v: mp_sig_t(u - v), lambda u, v: 1, pairs(500, 600, 0, 100, 8, 19)))

# log σ(x) = −log(1 + e^-x) ~ −10^-174: the binary cross-entropy of a confident right answer
add("sat_log_sigmoid_is_zero", False,
    lambda: claim("sat_log_sigmoid_is_zero", sp.log((1 + sp.tanh(x / 2)) / 2), 0,
                  rng(400, 600)),
    lambda: holds(lambda v: mp.log(mp_sig_t(v)), zero, pts(400, 600, 8, 20)))

# erf x − erf y = erfc y − erfc x: both tails below 10^-175 on (20, 40)
add("sat_erf_difference_is_zero", False,
    lambda: claim("sat_erf_difference_is_zero", sp.erf(x) - sp.erf(y), 0,
                  Domain(ranges={x: (20, 40), y: (20, 40)})),
    lambda: holds(lambda u, v: mp.erf(u) - mp.erf(v), lambda u, v: 0,
                  pairs(20, 40, 20, 40, 8, 21), dps=1200))

# coth x − 1 = 2/(e^2x − 1) ~ 10^-174 .. 10^-260
add("sat_coth_is_one", False,
    lambda: claim("sat_coth_is_one", sp.coth(x), 1, rng(200, 300)),
    lambda: holds(mp.coth, one, pts(200, 300, 8, 22)))

# d/dx log cosh x = tanh x: the derivative of a function that is x − log 2 to 10^-174
add("sat_dlog_cosh_is_one", False,
    lambda: claim("sat_dlog_cosh_is_one", sp.Derivative(sp.log(sp.cosh(x)), x), 1,
                  rng(200, 300)),
    lambda: holds(lambda v: mp.diff(lambda u: mp.log(mp.cosh(u)), v), one, pts(200, 300, 5, 23)))

# d/dx softplus = σ: the cosh spelling again, 1 − σ(x) ~ 10^-174
add("sat_dsoftplus_cosh_is_one", False,
    lambda: claim("sat_dsoftplus_cosh_is_one",
                  sp.Derivative(x / 2 + sp.log(2 * sp.cosh(x / 2)), x), 1, rng(400, 600)),
    lambda: holds(lambda v: mp.diff(lambda u: u / 2 + mp.log(2 * mp.cosh(u / 2)), v), one,
                  pts(400, 600, 5, 24)))

# sech x ~ 2e^-x ~ 10^-87: a small value, not a cancellation (a control)
add("sat_sech_is_zero", False,
    lambda: claim("sat_sech_is_zero", sp.sech(x), 0, rng(200, 300)),
    lambda: holds(mp.sech, zero, pts(200, 300, 8, 25)))
