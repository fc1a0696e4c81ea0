"""The numeric route's precision policy: a comparison is evidence only when the precision it was
made at could have shown a difference.

variables → a claim (or one value's scales) → verify (or evaluate, compare) → its verdict, each
class with false and true cases and each checker with a negative test.  The claims saturate below
50 digits (tanh 250 is 1 − 10^-217), cancel catastrophically (1 − tanh² 250 is 10^-217 from two
numbers near 1), or hide their difference past the most digits the route may use (tanh 10^4 is
1 − 10^-8686): failed, proved, and refused or timed out "cannot separate", in turn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import pytest
import sympy as sp

from derivations.engine.chain import verify
from derivations.engine.core.budget import OverBudget, fresh_start
from derivations.engine.core.claim import Assumption, Derivation, Step
from derivations.engine.core.domain import Domain
from derivations.engine.core.errors import DerivationError, Unseparated
from derivations.engine.numeric import ladder, pointwise, scales
from derivations.engine.numeric.mpnum import compile_mp

x, y = sp.symbols("x y", real=True)
p = sp.Symbol("p", positive=True)
W = sp.Wild("W")


def claim(cid, lhs, rhs, ranges=None, assumptions=(), steps=None):
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), tuple(assumptions),
                      tuple(steps or (Step(rhs, "claimed"),)), Domain(ranges=ranges or {}))


def status(d) -> str:
    try:
        return verify(d).status
    except DerivationError:
        return "refused"


def sigmoid_t(u):  # the logistic function written without exp
    return (1 + sp.tanh(u / 2)) / 2


# --- class 1: saturation hidden below the working precision (false claims) --------------------

SATURATED = [
    ("tanh_is_one", sp.tanh(x), sp.Integer(1), (200, 300)),
    ("dtanh_is_zero", sp.Derivative(sp.tanh(x), x), sp.Integer(0), (200, 300)),
    ("logistic_is_one", sigmoid_t(x), sp.Integer(1), (400, 600)),
    ("erf_is_one", sp.erf(x), sp.Integer(1), (20, 50)),
    ("normal_cdf_is_one", (1 + sp.erf(x / sp.sqrt(2))) / 2, sp.Integer(1), (30, 70)),
    ("cosh_is_sinh", sp.cosh(x), sp.sinh(x), (200, 300)),
    ("log_cosh_is_linear", sp.log(sp.cosh(x)), x - sp.log(2), (200, 300)),
    ("softplus_is_relu", x / 2 + sp.log(2 * sp.cosh(x / 2)), x, (400, 600)),
    ("gelu_tanh_is_identity",
     x / 2 * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (x + sp.Rational(44715, 10**6) * x**3))), x,
     (15, 25)),
    ("atan_is_half_pi", sp.atan(x), sp.pi / 2, (10**299, 10**300)),
    ("coth_is_one", sp.coth(x), sp.Integer(1), (200, 300)),
    ("absorbed_term", x + sp.exp(-x), x, (300, 400)),
]


@pytest.mark.parametrize("cid, lhs, rhs, rng", SATURATED, ids=[c[0] for c in SATURATED])
def test_a_difference_below_fifty_digits_fails(cid, lhs, rhs, rng):
    result = verify(claim(cid, lhs, rhs, {x: rng}))
    assert result.status == "failed", result.steps[0].reason
    counter = result.steps[0].counterexample
    # the sides are shown with the digits where they differ
    assert counter["previous"] != counter["current"], counter


@pytest.mark.parametrize("cid, lhs, rhs, rng", [
    ("tanh_exact", sp.tanh(x), 1 - 2 / (sp.exp(2 * x) + 1), (200, 300)),
    ("logistic_exact", sigmoid_t(x), 1 / (1 + sp.exp(-x)), (400, 600)),
], ids=["tanh", "logistic"])
def test_the_same_functions_in_a_true_identity_are_proved(cid, lhs, rhs, rng):
    result = verify(claim(cid, lhs, rhs, {x: rng}))
    assert result.status == "proved", result.steps[0].reason


def test_an_algebraic_saturation_in_a_true_identity_agrees():
    # atan 10^300 is π/2 − 10^-300; the numbers agree at 330 digits and more, and the symbolic
    # route shows atan p + atan(1/p) = π/2 for p > 0 by the principal branch (SymPy does not)
    result = verify(claim("atan_exact", sp.atan(p), sp.pi / 2 - sp.atan(1 / p),
                          {p: (10**299, 10**300)}))
    assert result.steps[0].numeric == "agree" and result.status == "proved"
    assert "principal branches" in result.steps[0].reason


def test_a_premise_false_at_every_point_fails_though_it_rounds_to_true():
    saturates = Assumption("tanh saturates", "tanh u = 1 for large u",
                           rewrites=((sp.tanh(W), 1),))
    d = claim("premise", sp.tanh(x) + sp.tanh(y), sp.Integer(2),
              {x: (200, 300), y: (200, 300)}, (saturates,),
              (Step(sp.Integer(2), "both saturate", ("tanh saturates",)),))
    result = verify(d)
    assert result.status == "failed"
    assert result.failed_premise == "tanh saturates"


# --- class 2: the mirror, true claims whose one side cancels (failed by rounding before) -------

CANCELLING = [
    ("one_minus_tanh2", 1 - sp.tanh(x) ** 2, sp.sech(x) ** 2, {x: (200, 300)}),
    ("dtanh_sech2", sp.Derivative(sp.tanh(x), x), sp.sech(x) ** 2, {x: (200, 300)}),
    ("sqrt_difference", sp.sqrt(x + 1) - sp.sqrt(x), 1 / (sp.sqrt(x + 1) + sp.sqrt(x)),
     {x: (10**200, 10**201)}),
    ("cosh_minus_sinh", sp.cosh(x) - sp.sinh(x), sp.exp(-x), {x: (200, 300)}),
    # log of 1 − ε and of 1 + ε round alike on one binary grid: their difference holds still
    # below both values' errors until the ladder climbs past them
    ("log_sigmoid", sp.log(sigmoid_t(x)), -sp.log(1 + sp.exp(-x)), {x: (400, 600)}),
    ("one_minus_cos_tiny", 1 - sp.cos(x / 10**60), 2 * sp.sin(x / (2 * 10**60)) ** 2,
     {x: (1, 2)}),
]


@pytest.mark.parametrize("cid, lhs, rhs, ranges", CANCELLING, ids=[c[0] for c in CANCELLING])
def test_a_true_identity_that_cancels_is_not_failed_by_rounding(cid, lhs, rhs, ranges):
    result = verify(claim(cid, lhs, rhs, ranges))
    assert result.status == "proved", result.steps[0].reason


def test_the_cancelling_side_still_shows_a_wrong_twin():
    # √(x+1) − √x = 1/(2√x) is off by 1/(8 x^(3/2)): 10^-200 of the value at 10^200
    wrong = claim("sqrt_wrong", sp.sqrt(x + 1) - sp.sqrt(x), 1 / (2 * sp.sqrt(x)),
                  {x: (10**200, 10**201)})
    assert verify(wrong).status == "failed"


# --- cannot separate: past the most digits the route may use ----------------------------------

def test_a_difference_past_the_digits_allowed_is_neither_agreement_nor_counterexample():
    # tanh x = 1 for x in (10^4, 2·10^4): the difference is 10^-8686 and more; no rung up to
    # MAX_DIGITS resolves it, so the claim is refused, naming why — never proved, never failed
    d = claim("far", sp.tanh(x), sp.Integer(1), {x: (10**4, 2 * 10**4)})
    with pytest.raises(DerivationError, match="cannot separate"):
        verify(d)


def test_a_true_identity_past_the_digits_allowed_is_timed_out_not_proved():
    # the symbolic route shows it; the numbers cannot confirm it at any point: timed out, by
    # digits, with the reason
    d = claim("far_true", sp.tanh(x), 1 - 2 / (sp.exp(2 * x) + 1), {x: (10**4, 2 * 10**4)})
    result = verify(d)
    step = result.steps[0]
    assert result.status == "timed out", step.reason
    assert step.symbolic == "zero" and step.numeric == "partial"
    assert step.timed_out["route"] == "numeric" and step.timed_out["by"] == "digits"
    assert step.timed_out["limit"] > pointwise.MAX_DIGITS
    assert "cannot separate" in step.reason


def test_a_premise_that_cannot_be_separated_from_false_is_not_checked():
    saturates = Assumption("tanh saturates", "tanh u = 1 for large u",
                           rewrites=((sp.tanh(W), 1),))
    d = claim("far_premise", sp.tanh(x) + 1, sp.Integer(2), {x: (10**4, 2 * 10**4)},
              (saturates,), (Step(sp.Integer(2), "it saturates", ("tanh saturates",)),))
    check = next(c for c in _premises_of(d) if c.name == "tanh saturates")
    assert check.status == "assumed, unchecked"
    assert "cannot separate" in check.detail


def _premises_of(d):
    from derivations.engine.premises import check_premises
    fresh_start()
    return check_premises(d.checked)


def test_a_matrix_too_large_to_build_is_refused_at_once():
    a, b = sp.MatrixSymbol("A", 100, 100), sp.MatrixSymbol("B", 100, 100)
    wrong = claim("trace_100", sp.Trace(a * b), sp.Trace(a) * sp.Trace(b))
    with pytest.raises(DerivationError, match="10,000 entries"):
        verify(wrong)


# --- class 7: time — every computation within a count, the slow ones answered at once ---------

def test_a_power_of_a_million_is_decided_not_run_for_minutes():
    # simplify factored 1 − β^(10^6) for minutes, outside any count of SymPy operations: the
    # symbolic route takes β^(10^6) as an atom; the numbers show the difference 10^-435 where
    # β is near 0.999
    v, beta = sp.Symbol("v", positive=True), sp.Symbol("beta", positive=True)
    ranges = {beta: (sp.Rational(9, 10), sp.Rational(999, 1000)), v: (1, 2)}
    wrong = claim("adam_1e6", v / (1 - beta**10**6), v, ranges)
    result = verify(wrong)
    assert result.status == "failed" and result.steps[0].symbolic == "inconclusive"


def test_a_dear_part_is_an_atom_of_the_symbolic_route_and_proves_nothing_false():
    from derivations.engine.symbolic.check import symbolic_check_detail
    v, beta = sp.Symbol("v", positive=True), sp.Symbol("beta", positive=True)
    t = beta**10**6
    assert symbolic_check_detail(v / (1 - t), v + v * t / (1 - t)).result == "zero"
    # negative: the atom is only an unknown, never a value that makes a false step zero
    assert symbolic_check_detail(v / (1 - t), v).result != "zero"
    assert symbolic_check_detail(sp.exp(100), 2 * sp.sinh(100)).result != "zero"


# identities on ranges far from 0 that ran for minutes: their hypotheses' shift x = 200 + t put
# e^(2t + 400) into trigsimp, which factored a polynomial of degree 800 outside any count; now
# that factoring is charged to the budget, and a symbol inside an exponential keeps its sign
# instead of the shift (tests/test_budget.py shows the charge stopping the shifted form)
FAR_IDENTITIES = [
    ("coth_minus_one", sp.coth(x) - 1, 2 / (sp.exp(2 * x) - 1), (200, 300)),
    ("dlog_cosh_minus_one", sp.Derivative(sp.log(sp.cosh(x)), x) - 1,
     -2 / (sp.exp(2 * x) + 1), (200, 300)),
    ("tanh_negative", sp.tanh(x), 2 / (1 + sp.exp(-2 * x)) - 1, (-1000, -1)),
]


@pytest.mark.parametrize("cid, lhs, rhs, rng", FAR_IDENTITIES, ids=[c[0] for c in FAR_IDENTITIES])
def test_an_identity_far_from_zero_is_proved_within_its_budget(cid, lhs, rhs, rng):
    from derivations.engine.core.budget import BACKSTOP_SECONDS
    result = verify(claim(cid, lhs, rhs, {x: rng}))
    assert result.status == "proved"
    use = result.usage["symbolic"]
    assert use.ops <= use.limit and use.cpu < BACKSTOP_SECONDS / 10
    # negative: its twin with the other sign fails
    assert status(claim(cid + "_wrong", lhs, -rhs, {x: rng})) == "failed"


def test_a_shift_is_kept_where_it_puts_no_large_number_in_an_exponential():
    from derivations.engine.symbolic.check import _swells
    t = sp.Dummy("t", positive=True)
    assert _swells(sp.coth(x) - 1, x, 200 + t) and _swells(2**x, x, -1000 + t)
    assert not _swells(sp.Max(x, 1000) - x, x, 1000 + t)  # Max(x, 1000) = x under x > 1000
    assert not _swells(sp.exp(x), x, 3 + t)
    assert status(claim("max_far", sp.Max(x, 1000), x, {x: (1000, 10**6)})) == "proved"


def test_a_long_sum_is_the_difference_of_its_tails():
    k = sp.Symbol("k", integer=True, positive=True)
    total = sp.Sum(1 / (k * (k + 1)), (k, 1, 10**6))
    assert verify(claim("tails", total, 1 - sp.Rational(1, 10**6 + 1))).status == "proved"
    assert verify(claim("tails_wrong", total, sp.Integer(1))).status == "failed"
    # negative: terms that do not tend to 0 are not summed so, and the claim is refused
    assert status(claim("ones", sp.Sum(k, (k, 1, 10**6)), sp.Integer(500000500000))) \
        == "refused"


def test_a_derivative_of_high_order_is_taken_by_differences():
    # SymPy's 30th derivative of tanh swells past any budget; by differences, at the digits
    # tanh's saturation needs, it is 10^-180 and more, not 0
    d30 = sp.Derivative(sp.tanh(x), (x, 30))
    assert verify(claim("d30", d30, sp.Integer(0), {x: (200, 300)})).status == "failed"
    # negative: a true one agrees
    d8 = sp.Derivative(sp.sin(x), (x, 8))
    assert verify(claim("d8", d8, sp.sin(x), {x: (-3, 3)})).steps[0].numeric == "agree"


# --- the checkers, each with its negative ------------------------------------------------------

def _traced(expr, values, digits=50):
    args = sorted(expr.free_symbols, key=str)
    fn = compile_mp(args, expr)
    trace = scales.Trace(digits)
    with mpmath.workdps(digits), scales.tracing(trace):
        value = fn(*[mpmath.mpf(values[a]) for a in args])
    return value, trace


def test_a_sum_records_the_digits_of_its_absorbed_term():
    _, absorbed = _traced(x + 1, {x: mpmath.mpf(10) ** 200})
    assert 199 < absorbed.raw() < 201
    _, plain = _traced(x + 1, {x: 3})  # negative: terms of one size record nothing
    assert plain.raw() == 0


@pytest.mark.parametrize("expr, at, digits", [
    (sp.tanh(x), 250, 217), (sp.erf(x), 30, 393), (sp.atan(x), mpmath.mpf(10) ** 300, 300),
    (sp.cosh(x), 250, 217), (sp.exp(x), mpmath.mpf(10) ** -60, 60),
    (sp.cos(x), mpmath.mpf(10) ** -60, 120), (sp.erfc(x), -30, 393),
], ids=["tanh", "erf", "atan", "cosh", "exp", "cos", "erfc"])
def test_a_saturating_function_records_its_distance_to_the_asymptote(expr, at, digits):
    _, trace = _traced(expr, {x: at})
    assert abs(trace.raw() - digits) < 2
    _, near = _traced(expr, {x: mpmath.mpf(1) / 3})  # negative: far from any asymptote
    assert near.raw() == 0


def test_rounding_noise_is_not_a_scale():
    # x − x·(1 + 10^-3) + 10^-3·x is 0: the inner cancellation leaves noise at 10^-P of x, which
    # looks like a term absorbed P digits down at every P; from one rung to the next it does not
    # keep its digits and is not counted
    expr = sp.Add(x, -x * sp.Rational(1001, 1000), x / 1000, 1, evaluate=False)
    form = compile_mp([x], expr)

    def trace_at(digits):
        trace = scales.Trace(digits)
        with mpmath.workdps(digits), scales.tracing(trace):
            form(mpmath.mpf(1) / 3)
        return trace

    low, high = trace_at(50), trace_at(90)
    assert scales.needed(high, low) == 0
    # negative: a term that keeps its digits is counted
    _, absorbed = _traced(x + 10 ** -100, {x: 1}, 90)
    _, below = _traced(x + 10 ** -100, {x: 1}, 50)
    assert scales.needed(absorbed, below) > 99


def _value(expr, at):
    args = sorted(expr.free_symbols, key=str)
    fn = compile_mp(args, expr)

    def compiled(digits, *values):
        return fn(*values)
    compiled.concrete, compiled.atoms = expr, tuple(args)
    value = ladder.Value(compiled, tuple(mpmath.mpf(at) for _ in args))
    value.settle()
    return value


def test_agreement_needs_a_resolved_rung():
    # at 50 digits tanh 250 and 1 are the same number; at a resolved rung they are not
    assert ladder.disagree(_value(sp.tanh(x), 250), _value(sp.Integer(1) + 0 * x, 250))
    # negative: the same function in an identity agrees
    assert not ladder.disagree(_value(sp.tanh(x), 250),
                                  _value(1 - 2 / (sp.exp(2 * x) + 1), 250))


def test_past_the_cap_the_comparison_raises_not_agrees():
    with pytest.raises(Unseparated, match="cannot separate"):
        ladder.disagree(_value(sp.tanh(x), 10**4), _value(sp.Integer(1) + 0 * x, 10**4))


def _history(*rungs):
    """(digits, x, y) per rung, x and y from a pair of exponents: 1 + 10^-a and 1 + 10^-b."""
    with mpmath.workdps(300):
        return [(digits, 1 + mpmath.mpf(10) ** -a, 1 + mpmath.mpf(10) ** -b)
                for digits, a, b in rungs]


@pytest.mark.parametrize("rungs, verdict", [
    # rounding noise shrinks twice: agree
    (((50, 999, 50), (90, 999, 90), (130, 999, 130)), "agree"),
    # a difference that holds still far above the values' changes: differ
    (((50, 999, 10), (90, 999, 10)), "differ"),
    # negative of both: a difference that shrank once only
    (((50, 999, 50), (90, 999, 90)), None),
], ids=["noise", "difference", "once"])
def test_the_ladders_verdict(rungs, verdict):
    got, _ = ladder._decided(_history(*rungs))  # 10^-999 is below 300 digits: 1 exactly
    assert got == verdict


def test_a_held_difference_below_the_errors_climbs_past_them():
    with mpmath.workdps(300):
        tiny = mpmath.mpf(10) ** -200
        noise = mpmath.mpf(10) ** -60
        seen = [(80, 1 + noise, 1 + noise + tiny), (120, 1, 1 + tiny)]
        verdict, ahead = ladder._decided(seen)
    assert verdict is None and ahead >= 140  # the difference is 140 digits below the errors


def test_work_past_its_budget_stops_the_evaluation(monkeypatch):
    form = compile_mp([x], sp.Add(*[sp.exp(x / k) for k in range(1, 60)]))
    trace = scales.Trace(50, limit=40)
    with pytest.raises(OverBudget, match="units of numeric work"), mpmath.workdps(50), \
            scales.tracing(trace):
        form(mpmath.mpf(2))
    # negative: within its budget it runs
    trace = scales.Trace(50)
    with mpmath.workdps(50), scales.tracing(trace):
        form(mpmath.mpf(2))
    assert 0 < trace.work < scales.WORK


# --- the determinism of the count -------------------------------------------------------------

_COUNT = """
import json
from derivations.engine.chain import verify
from tests.test_precision import claim, sp, x
r = verify(claim("count", sp.log(1 + sp.exp(x)) - x, sp.log(1 + sp.exp(-x)), {x: (300, 500)}))
print(json.dumps([r.status, {k: u.ops for k, u in r.usage.items() if k in ("work", "digits")}]))
"""


def test_work_and_digits_are_counted_alike_in_two_fresh_interpreters():
    runs = [json.loads(subprocess.run([sys.executable, "-c", _COUNT], capture_output=True,
                                      text=True, check=True).stdout) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0][0] == "proved" and runs[0][1]["digits"] > 200 and runs[0][1]["work"] > 0
