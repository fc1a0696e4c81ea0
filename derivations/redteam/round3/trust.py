"""Class 5 — chains of trust: what a citing claim inherits from what it cites.

A lemma that is itself only `numeric`, or false and `proved` through a false premise; a chain of
three such citations; an instance of a proved lemma at an expression that breaks its symbol's
assumption; a lemma proved on a narrower range than the citing claim's; a premise on a defined
symbol; premises that bring in symbols of their own. Witnesses evaluate the citing claim's
statement itself (mpmath, at the digits the hidden difference needs).
"""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from derivations import Assumption, Domain, Notation, Step, cite, instance, lemma
from derivations.redteam.round3.common import add_to, claim, holds, pairs, pts

CLS = "chains of trust"
CASES: list = []
add = add_to(CASES, CLS)

x = sp.Symbol("x", real=True)
s = sp.Symbol("s", positive=True)
rho, beta = sp.symbols("rho beta", positive=True)
tau = sp.Symbol("tau", positive=True)
W = sp.Wild("W")
SAT = Domain(ranges={x: (200, 300)})


def one(*_):
    return mp.mpf(1)


def tanh_lemma_numeric():
    """tanh x = 1 on (200, 300), stated bare: false; its numbers agree, SymPy cannot show it."""
    return claim("trust_lemma_tanh_one_bare", sp.tanh(x), 1, SAT)


def tanh_lemma_proved():
    """The same false equation through a premise false at every point (tanh u < 1)."""
    sat = Assumption("tanh saturates", "tanh x = 1 for large x", rewrites=((sp.tanh(x), 1),))
    return claim("trust_lemma_tanh_one_premise", sp.tanh(x), 1, SAT, (sat,),
                 (Step(sp.Integer(1), "saturation", ("tanh saturates",)),))


def tanh_square_lemma():
    base = tanh_lemma_proved()
    return claim("trust_lemma_tanh_square_one", sp.tanh(x) ** 2, 1, SAT, (lemma(base),),
                 (Step(sp.Integer(1), "the lemma, squared", (base.id,)),))


# a citing claim whose lemma is false and only `numeric`
add("trust_cites_numeric_false_lemma", False,
    lambda: claim("trust_cites_numeric_false_lemma", sp.tanh(x) ** 2, 1, SAT,
                  (lemma(tanh_lemma_numeric()),),
                  (Step(sp.Integer(1), "the lemma, squared", ("trust_lemma_tanh_one_bare",)),)),
    lambda: holds(lambda v: mp.tanh(v) ** 2, one, pts(200, 300, 6, 1)))

# a citing claim whose lemma is false and `proved` through a false premise
add("trust_cites_proved_false_lemma", False,
    lambda: claim("trust_cites_proved_false_lemma", 2 * sp.tanh(x) + x, 2 + x, SAT,
                  (lemma(tanh_lemma_proved()),),
                  (Step(2 + x, "the lemma", ("trust_lemma_tanh_one_premise",)),)),
    lambda: holds(lambda v: 2 * mp.tanh(v) + v, lambda v: 2 + v, pts(200, 300, 6, 2)))

# the same through cite() rather than lemma()
add("trust_cite_proved_false_claim", False,
    lambda: claim("trust_cite_proved_false_claim", 2 * sp.tanh(x) + x, 2 + x, SAT,
                  (cite(tanh_lemma_proved()),),
                  (Step(2 + x, "the cited claim", ("trust_lemma_tanh_one_premise",)),)),
    lambda: holds(lambda v: 2 * mp.tanh(v) + v, lambda v: 2 + v, pts(200, 300, 6, 3)))

# three deep: premise → tanh = 1 → tanh² = 1 → d/dx tanh = 1 − tanh² = 0
add("trust_three_deep_dtanh_is_zero", False,
    lambda: claim("trust_three_deep_dtanh_is_zero", sp.Derivative(sp.tanh(x), x), 0, SAT,
                  (lemma(tanh_square_lemma()),),
                  (Step(1 - sp.tanh(x) ** 2, "d/dx tanh x = 1 − tanh² x"),
                   Step(sp.Integer(0), "the lemma", ("trust_lemma_tanh_square_one",)))),
    lambda: holds(lambda v: mp.diff(mp.tanh, v), lambda v: 0, pts(200, 300, 5, 4)))


def sqrt_lemma():
    return claim("trust_lemma_sqrt_square", sp.sqrt(s**2), s)


def sqrt_instance(shift_ok: bool):
    lem = sqrt_lemma()
    inst = instance(lem, {s: x - 5}, "x − 5 is positive")
    dom = Domain(ranges={x: (6, 10)}) if shift_ok else None
    cid = "trust_instance_inside_true" if shift_ok else "trust_instance_breaks_assumption"
    return claim(cid, sp.sqrt((x - 5) ** 2), x - 5, dom, (inst,),
                 (Step(x - 5, "the lemma at s = x − 5", (inst.name,)),))


# √(s²) = s for s > 0, instanced at s = x − 5 for every real x: false for x < 5
add("trust_instance_breaks_assumption", False, lambda: sqrt_instance(False),
    lambda: holds(lambda v: mp.sqrt((v - 5) ** 2), lambda v: v - 5, pts(-10, 10, 8, 5)))

# the same where x − 5 > 0 does hold (x in (6, 10)): true
add("trust_instance_inside_true", True, lambda: sqrt_instance(True),
    lambda: holds(lambda v: mp.sqrt((v - 5) ** 2), lambda v: v - 5, pts(6, 10, 8, 6)))


def floor_lemma():
    return claim("trust_lemma_floor_unit", sp.floor(x), 0, Domain(ranges={x: (0, 1)}))


# ⌊x⌋ = 0 proved on (0, 1), cited on (0, 5)
add("trust_lemma_narrower_range", False,
    lambda: claim("trust_lemma_narrower_range", sp.floor(x) + x, x,
                  Domain(ranges={x: (0, 5)}), (lemma(floor_lemma()),),
                  (Step(x, "the lemma", ("trust_lemma_floor_unit",)),)),
    lambda: holds(lambda v: mp.floor(v) + v, lambda v: v, pts(0, 5, 8, 7), dps=50))

# a "lemma" kind premise without a source claim, false everywhere: erf u = 1
_ERF_LEMMA = Assumption("erf is one", "erf u = 1 (a standard fact)", rewrites=((sp.erf(W), 1),),
                        kind="lemma")
add("trust_sourceless_lemma_erf", False,
    lambda: claim("trust_sourceless_lemma_erf", x * sp.erf(x), x,
                  Domain(ranges={x: (20, 40)}), (_ERF_LEMMA,),
                  (Step(x, "erf is one", ("erf is one",)),)),
    lambda: holds(lambda v: v * mp.erf(v), lambda v: v, pts(20, 40, 6, 8), dps=1200))

# a premise about a defined symbol: σ := tanh x, "σ = 1" — unfolded, the premise is tanh x = 1
_NOTATION = Notation("saturated activation", (x,))
_sigma = sp.Symbol("sigma_act", real=True)
_SIGMA = _NOTATION.define("σ_act", _sigma, sp.tanh(x), text="the activation")
_SIGMA_ONE = Assumption("activation saturates", "σ_act = 1", rewrites=((_sigma, 1),))
add("trust_premise_on_definition", False,
    lambda: claim("trust_premise_on_definition", _sigma + x, 1 + x, SAT, (_SIGMA_ONE,),
                  (Step(1 + x, "saturation", ("activation saturates",)),),
                  definitions=(_SIGMA,)),
    lambda: holds(lambda v: mp.tanh(v) + v, lambda v: 1 + v, pts(200, 300, 6, 9)))

# a re-parametrisation ρ = (1 − β)/β brings β in; under it ρ/(1 + ρ) = 1 − β, not β
_REPARAM = Assumption("reparametrisation", "ρ = (1 − β)/β", rewrites=((rho, (1 - beta) / beta),))
add("trust_reparametrisation_wrong", False,
    lambda: claim("trust_reparametrisation_wrong", rho / (1 + rho), beta, None, (_REPARAM,),
                  (Step(beta, "reparametrise", ("reparametrisation",)),)),
    lambda: holds(lambda b: ((1 - b) / b) / (1 + (1 - b) / b), lambda b: b,
                  pts("0.01", "0.99", 8, 10), dps=60))

# a premise whose rewrite brings in τ (tanh u = 1 − 2τ, τ the "tail"), then a wrong step
_TAIL = Assumption("tail parameter", "tanh u = 1 − 2τ", rewrites=((sp.tanh(W), 1 - 2 * tau),))
add("trust_new_symbol_then_wrong_step", False,
    lambda: claim("trust_new_symbol_then_wrong_step", sp.tanh(x), 1 - 3 * tau, SAT, (_TAIL,),
                  (Step(1 - 2 * tau, "name the tail", ("tail parameter",)),
                   Step(1 - 3 * tau, "rearrange"))),
    # τ is (1 − tanh x)/2 by the premise; 1 − 3τ ≠ tanh x = 1 − 2τ since τ > 0
    lambda: holds(lambda v: mp.tanh(v), lambda v: 1 - 3 * (1 - mp.tanh(v)) / 2,
                  pts(200, 300, 6, 11)))


def exact_tanh_lemma():
    """tanh x = 1 − 2/(e^2x + 1): true (multiply out)."""
    return claim("trust_lemma_tanh_exact", sp.tanh(x), 1 - 2 / (sp.exp(2 * x) + 1), SAT)


# a TRUE claim citing a TRUE lemma: whatever the lemma's status, the citing one inherits it
add("trust_cites_true_lemma", True,
    lambda: claim("trust_cites_true_lemma", 2 * sp.tanh(x), 2 - 4 / (sp.exp(2 * x) + 1), SAT,
                  (lemma(exact_tanh_lemma()),),
                  (Step(2 - 4 / (sp.exp(2 * x) + 1), "twice the lemma",
                        ("trust_lemma_tanh_exact",)),)),
    lambda: holds(lambda v: 2 * mp.tanh(v), lambda v: 2 - 4 / (mp.exp(2 * v) + 1),
                  pts(200, 300, 6, 12)))

# a lemma with two symbols, cited where it is false only on part of the citing domain
_SAT2 = Assumption("saturated pair", "tanh x · tanh y = 1", rewrites=(
    (sp.tanh(x) * sp.tanh(sp.Symbol("y", real=True)), 1),))
add("trust_premise_two_symbols", False,
    lambda: claim("trust_premise_two_symbols",
                  sp.tanh(x) * sp.tanh(sp.Symbol("y", real=True)), 1,
                  Domain(ranges={x: (200, 300), sp.Symbol("y", real=True): (200, 300)}),
                  (_SAT2,), (Step(sp.Integer(1), "saturation", ("saturated pair",)),)),
    lambda: holds(lambda u, v: mp.tanh(u) * mp.tanh(v), lambda u, v: 1,
                  pairs(200, 300, 200, 300, 6, 13)))
