"""Attention scaling: every claim proved, each result re-derived with sympy.stats on explicit
vectors and sampled with NumPy, and realistic wrong steps caught with a counterexample."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest
import sympy as sp
from sympy.stats import Expectation, Normal, variance

import derivations
from derivations import Step, with_step
from derivations.library import attention_scaling as A
from derivations.testing import assert_fails_at

# Monte Carlo: relative error of a sample mean of N draws is ~ sd/sqrt(N); with N = 200_000 a
# 2 % band is more than eight standard errors wide for every statistic checked.
SAMPLES = 200_000
MC_RTOL = 0.02
SEED = 20240611

CLAIM_IDS = [d.id for d in A.CLAIMS]


def test_module_is_registered():
    assert {d.id for d in derivations.claims()} >= set(CLAIM_IDS)
    assert {"dot_product_mean", "dot_product_variance", "scaled_dot_product_variance",
            "nonzero_mean_growth"} <= set(CLAIM_IDS)


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_claim_is_proved(verified, claim_id):
    result = verified.assert_proved(claim_id)
    assert all(s.symbolic == "zero" and s.numeric == "agree" for s in result.steps)


# --- second way: sympy.stats over explicit vectors q_1..q_d, k_1..k_d ----------------------------

@cache
def _explicit_moments(d: int, standardized: bool):
    """E[qᵀk] and E[(qᵀk)²] for explicit independent normal vectors of length d."""
    mq, mk, sq, sk = (0, 0, 1, 1) if standardized else (A.mu_q, A.mu_k, A.sigma_q, A.sigma_k)
    q = [Normal(f"q{m}", mq, sq) for m in range(1, d + 1)]
    k = [Normal(f"k{m}", mk, sk) for m in range(1, d + 1)]
    dot = sum(a * b for a, b in zip(q, k, strict=True))
    # expanding first lets sympy.stats factor each monomial over independent variables
    return Expectation(dot).doit(), Expectation(sp.expand(dot**2)).doit()


def test_term_variance_matches_sympy_stats():
    q = Normal("q", A.mu_q, A.sigma_q)
    k = Normal("k", A.mu_k, A.sigma_k)
    term = variance(q * k)
    assert sp.simplify(term - A.TERM_VARIANCE) == 0


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_mean_and_variance_on_explicit_vectors(d):
    mean, second = _explicit_moments(d, standardized=False)
    sub = {A.d_k: d}
    assert sp.expand(mean - A.MEAN.subs(sub)) == 0
    assert sp.expand(second - mean**2 - A.VARIANCE.subs(sub)) == 0
    scaled_second = second / d
    assert sp.expand(scaled_second - A.SCALED_SECOND_MOMENT.subs(sub)) == 0
    assert sp.simplify(mean / sp.sqrt(d) - A.SCALED_MEAN.subs(sub)) == 0


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_standardized_variance_on_explicit_vectors(d):
    mean, second = _explicit_moments(d, standardized=True)
    variance_dot = second - mean**2
    assert variance_dot == A.UNIT_VARIANCE.subs(A.d_k, d)
    scaled = variance_dot / sp.sqrt(d) ** 2
    assert scaled == A.SCALED_UNIT_VARIANCE == 1


def test_growth_rates():
    # E[qᵀk] ~ d_k, E[qᵀk/√d_k] ~ √d_k, E[(qᵀk/√d_k)²] ~ d_k: the scaling fixes only the spread
    assert sp.limit(A.MEAN / A.d_k, A.d_k, sp.oo) == A.mu_q * A.mu_k
    assert sp.limit(A.SCALED_MEAN / sp.sqrt(A.d_k), A.d_k, sp.oo) == A.mu_q * A.mu_k
    assert sp.limit(A.SCALED_SECOND_MOMENT / A.d_k, A.d_k, sp.oo) == A.mu_q**2 * A.mu_k**2
    half = {A.mu_q: sp.Rational(1, 2), A.mu_k: sp.Rational(1, 2)}
    assert A.SCALED_MEAN.subs(half).subs(A.d_k, 64) == 2  # entries ≈ 0.5 at d_k = 64


# --- third way: sampling ---------------------------------------------------------------------

@pytest.mark.parametrize("d", [4, 16, 64])
def test_monte_carlo(d):
    rng = np.random.default_rng(SEED + d)
    params = {A.mu_q: 0.5, A.mu_k: -0.3, A.sigma_q: 1.2, A.sigma_k: 0.7, A.d_k: d}
    q = rng.normal(0.5, 1.2, size=(SAMPLES, d))
    k = rng.normal(-0.3, 0.7, size=(SAMPLES, d))
    dot = np.einsum("sd,sd->s", q, k)
    expected_var = float(A.VARIANCE.subs(params))
    expected_mean = float(A.MEAN.subs(params))
    assert dot.var() == pytest.approx(expected_var, rel=MC_RTOL)
    assert dot.mean() == pytest.approx(expected_mean, rel=MC_RTOL)
    scaled = dot / np.sqrt(d)
    assert (scaled**2).mean() == pytest.approx(float(A.SCALED_SECOND_MOMENT.subs(params)),
                                               rel=MC_RTOL)
    unit = np.einsum("sd,sd->s", rng.standard_normal((SAMPLES, d)),
                     rng.standard_normal((SAMPLES, d))) / np.sqrt(d)
    assert unit.var() == pytest.approx(1.0, rel=MC_RTOL)


# --- wrong derivations fail at the wrong step --------------------------------------------------

def test_variance_d_squared_fails():
    ce = assert_fails_at(with_step(A.unit_dot_product_variance, 4, A.d_k**2), 4)
    assert "d_k" in ce["point"]


def test_dropped_scale_factor_fails():
    # Var(qᵀk/√d_k) = Var(qᵀk): the 1/√d_k forgotten when pulling the constant out
    wrong = with_step(A.scaled_dot_product_variance, 1, derivations.Var(A.DOT))
    assert_fails_at(wrong, 1)


def test_scaled_variance_equal_to_d_k_fails():
    wrong = with_step(A.scaled_dot_product_variance, 4, A.d_k)
    assert_fails_at(wrong, 4)


def test_c_instead_of_c_squared_fails():
    wrong = with_step(A.scaled_dot_product_variance, 1, derivations.Var(A.DOT) / sp.sqrt(A.d_k))
    assert_fails_at(wrong, 1)


def test_missing_cross_term_fails():
    # forgetting σ_q²μ_k² (variance of a product taken as the product of variances plus nothing)
    wrong_term = A.sigma_q**2 * A.sigma_k**2 + A.mu_q**2 * A.sigma_k**2
    wrong = with_step(A.dot_product_variance, 4,
                     sp.Sum(wrong_term, (A.m, 1, A.d_k)))
    steps = list(wrong.steps)
    steps[-1] = Step(A.d_k * wrong_term, "sum of d_k equal terms")
    wrong = replace(wrong, statement=sp.Eq(wrong.lhs, steps[-1].expr, evaluate=False),
                    steps=tuple(steps))
    assert_fails_at(wrong, 4)


def test_scaled_mean_without_growth_fails():
    wrong = with_step(A.nonzero_mean_growth, 3, A.mu_q * A.mu_k)
    assert_fails_at(wrong, 3)
