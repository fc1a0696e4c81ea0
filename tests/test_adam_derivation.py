"""Adam derivations: each claim proved; the closed forms checked against the unrolled recursion,
against sympy.stats expectations and against a float64 run of the optimiser; wrong steps fail."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from sympy import stats

import derivations
from derivations import Derivation, Step, verify
from derivations.library import adam as A

# float64 recursion against float64 closed form over at most a few dozen steps: rounding only.
FLOAT_RTOL = 1e-12
# a real difference between the two ε placements at ε = 1e-3 is far above rounding
EPS_EFFECT_MIN = 1e-7


def _g(T):
    return sp.symbols(f"g1:{T + 1}", real=True)


def _unrolled(beta, xs):
    state = sp.Integer(0)
    for x in xs:
        state = beta * state + (1 - beta) * x
    return state


def _closed_at(expr, T, xs, power=1):
    done = expr.xreplace({A.t: T}).doit()
    return done.xreplace({A.g[k + 1] ** power: xs[k] ** power for k in range(T)}).xreplace(
        {A.g[k + 1]: xs[k] for k in range(T)})


@pytest.mark.parametrize("claim", [c.id for c in A.CLAIMS])
def test_claim_is_proved(verified, claim):
    verified.assert_proved(claim)


@pytest.mark.parametrize("T", range(1, 7))
def test_closed_forms_match_the_unrolled_recursion(T):
    xs = _g(T)
    m_rec = _unrolled(A.beta_1, xs)
    v_rec = _unrolled(A.beta_2, [x**2 for x in xs])
    assert sp.expand(m_rec - _closed_at(A.M_CLOSED, T, xs)) == 0
    assert sp.expand(v_rec - _closed_at(A.V_CLOSED, T, xs, power=2)) == 0


@pytest.mark.parametrize("T", [1, 2, 4])
def test_bias_with_sympy_stats(T):
    # variables: independent normal gradients with the same mean and variance
    gs = [stats.Normal(f"G{k}", A.mu, A.sigma) for k in range(1, T + 1)]
    # forward: the recursion itself, not the closed form
    m_T, v_T = _unrolled(A.beta_1, gs), _unrolled(A.beta_2, [x**2 for x in gs])
    # check
    sub = {A.t: T}
    assert sp.simplify(stats.E(m_T) - A.E_M.xreplace(sub)) == 0
    assert sp.simplify(stats.E(v_T) - A.E_V.xreplace(sub)) == 0
    assert sp.simplify(stats.E(m_T) / A.BIAS_CORRECTION1.xreplace(sub) - A.mu) == 0


def _adam_run(grads, b1, b2):
    m = v = 0.0
    for g in grads:
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
    return m, v


@pytest.mark.parametrize("T", [1, 3, 10])
def test_efficient_step_equals_algorithm_1_only_with_eps_hat(T):
    # variables
    rng = np.random.default_rng(T)
    grads = rng.normal(size=T)
    b1, b2, lr, eps, theta = 0.9, 0.999, 1e-3, 1e-3, 0.5
    # forward: the recursion, then both forms of the step
    m, v = _adam_run(grads, b1, b2)
    m_hat, v_hat = m / (1 - b1**T), v / (1 - b2**T)
    alg1 = sp.lambdify((A.theta, A.alpha, A.m_hat, A.v_hat, A.epsilon), A.STEP_ALG1)
    eff = sp.lambdify((A.theta, A.alpha, A.beta_1, A.beta_2, A.t, A.m, A.v, A.eps_hat),
                      A.STEP_EFFICIENT)
    eps_hat = float(A.EPS_HAT.subs({A.epsilon: eps, A.beta_2: b2, A.t: T}))
    reference = theta - lr * m_hat / (np.sqrt(v_hat) + eps)
    # check
    assert alg1(theta, lr, m_hat, v_hat, eps) == pytest.approx(reference, rel=FLOAT_RTOL)
    assert eff(theta, lr, b1, b2, T, m, v, eps_hat) == pytest.approx(reference, rel=FLOAT_RTOL)
    assert abs(eff(theta, lr, b1, b2, T, m, v, eps) - reference) > EPS_EFFECT_MIN


def test_epsilon_gap_closed_form_and_its_zeros():
    gap = sp.lambdify((A.alpha, A.m_hat, A.v_hat, A.epsilon), A.EPS_GAP)
    direct = sp.lambdify((A.theta, A.alpha, A.m_hat, A.v_hat, A.epsilon),
                         A.STEP_ALG1 - A.STEP_EPS_INSIDE)
    rng = np.random.default_rng(0)
    for alpha, m_hat, v_hat, eps in rng.uniform(0.05, 2.0, size=(20, 4)):
        assert gap(alpha, m_hat, v_hat, eps) == pytest.approx(
            direct(0.3, alpha, m_hat, v_hat, eps), rel=FLOAT_RTOL)
    # the two placements agree at ε = 0, and (a fact the closed form exposes) at ε = 1 − 2√v̂
    assert A.EPS_GAP.subs(A.epsilon, 0) == 0
    s = sp.Rational(1, 5)
    on_curve = {A.v_hat: s**2, A.epsilon: 1 - 2 * s}
    assert sp.simplify((A.STEP_ALG1 - A.STEP_EPS_INSIDE).subs(on_curve)) == 0
    assert sp.simplify((A.STEP_ALG1 - A.STEP_EPS_INSIDE).subs({A.v_hat: s**2,
                                                               A.epsilon: 1 - 3 * s})) != 0


def test_epsilon_inside_claimed_equal_fails():
    d = Derivation("eps_inside", "ε moved under the root", sp.Eq(A.STEP_ALG1, A.STEP_EPS_INSIDE),
                   (), (Step(A.STEP_EPS_INSIDE, "move ε under the square root"),))
    result = verify(d)
    assert result.status == "failed" and result.failed_step == 1
    ce = result.steps[0].counterexample
    assert {A.epsilon.name, A.v_hat.name, A.m_hat.name} <= set(ce["point"])
    assert ce["previous"] != ce["current"]


def _bias_claim(expectation):
    claim = A.adam_first_moment_bias
    steps = (*claim.steps[:2], Step(expectation, "geometric series", ("0 < beta_1 < 1",)))
    return Derivation("bias_wrong", "wrong expectation", sp.Eq(claim.lhs, expectation,
                      evaluate=False), claim.assumptions, steps, claim.domain, claim.definitions)


@pytest.mark.parametrize("wrong", [
    A.BIAS_CORRECTION1**2 * A.mu,  # squared factor
    A.mu,  # dropped factor: m_t itself claimed unbiased
])
def test_wrong_bias_correction_fails(wrong):
    result = verify(_bias_claim(wrong))
    assert result.status == "failed" and result.failed_step == 3


def _unbiased_claim(expectation):
    claim = A.adam_first_moment_unbiased
    steps = (claim.steps[0], Step(expectation, claim.steps[1].rule, claim.steps[1].by))
    return Derivation("unbiased_wrong", "wrong correction", sp.Eq(claim.lhs, expectation,
                      evaluate=False), claim.assumptions, steps, claim.domain, claim.definitions)


@pytest.mark.parametrize("wrong", [
    A.BIAS_CORRECTION1 * A.mu,  # the correction skipped
    A.mu / A.BIAS_CORRECTION1,  # divided twice
])
def test_wrong_unbiasedness_fails_even_citing_the_lemma(wrong):
    result = verify(_unbiased_claim(wrong))
    assert result.status == "failed" and result.failed_step == 2


def test_one_result_per_bias_claim():
    # each claim states one expectation, and the division by 1 − βᵗ appears only in the
    # claim of the corrected moment, after E[m_t] is known
    for claim in (A.adam_first_moment_bias, A.adam_second_moment_bias,
                  A.adam_first_moment_unbiased, A.adam_second_moment_unbiased):
        assert not isinstance(claim.statement.rhs, sp.MatrixBase), claim.id
        assert not any(isinstance(s.expr, sp.MatrixBase) for s in claim.steps), claim.id
    for claim in (A.adam_first_moment_bias, A.adam_second_moment_bias):
        assert all(not s.expr.has(sp.Pow(1 - b, -1)) for s in claim.steps
                   for b in (A.beta_1**A.t, A.beta_2**A.t)), claim.id
    assert "sigma" not in {str(x) for x in A.adam_first_moment_bias.checked.rhs.free_symbols}
    assert [a.name for a in A.adam_first_moment_bias.assumptions] == ["0 < beta_1 < 1",
                                                                      "same mean"]


def test_squared_bias_correction_in_the_divisor_fails():
    m_t = A.M_CLOSED
    d = Derivation("bias_squared", "divide by (1−β₁ᵗ)²",
                   sp.Eq(derivations.E(m_t / A.BIAS_CORRECTION1**2), A.mu), A.adam_first_moment_bias
                   .assumptions, (Step(A.mu, "geometric series", ("0 < beta_1 < 1",)),),
                   A.adam_first_moment_bias.domain)
    result = verify(d)
    assert result.status == "failed" and result.failed_step == 1
