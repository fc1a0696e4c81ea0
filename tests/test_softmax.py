"""Softmax: every claim proved; the Jacobian re-derived by SymPy on explicit vectors and by NumPy
finite differences; its symmetry, zero row sums and PSD-ness checked numerically; wrong Jacobians
caught with a counterexample."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import derivations
from derivations import with_step
from derivations.library import softmax as S
from derivations.testing import assert_fails_at
from numeric import finite_diff as fd

SEED = 7
# central differences with step H: truncation error ~ H² |s'''| and rounding ~ eps/H, both far
# below FD_ATOL for logits of order one
H = 1e-5
FD_ATOL = 1e-8
# eigenvalues of a PSD matrix computed in float64 may come out as -1e-17
EIG_ATOL = 1e-12
ATOL = 1e-12
SIZES = [2, 3, 4]

CLAIM_IDS = [d.id for d in S.CLAIMS]


def test_module_is_registered():
    assert {d.id for d in derivations.claims()} >= set(CLAIM_IDS)
    assert {"softmax_jacobian", "softmax_jacobian_symmetric", "softmax_jacobian_rows_sum_zero",
            "softmax_jacobian_psd", "softmax_shift_invariance", "log_sum_exp",
            "softmax_temperature"} <= set(CLAIM_IDS)


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_claim_is_proved(verified, claim_id):
    verified.assert_proved(claim_id)


# --- helpers: the module's symbolic results at a concrete size ----------------------------------

def _concrete(expr, size, **indices):
    sub = {S.n: size, **{getattr(S, name): value for name, value in indices.items()}}
    return expr.xreplace(sub).doit()


def _logit_symbols(size):
    return [S.z[m] for m in range(1, size + 1)]


def _np_softmax(v):
    e = np.exp(v - v.max())
    return e / e.sum()


def _jacobian_function(expr, size, extra=()):
    """A NumPy function of (z, *extra) returning the size x size matrix of ``expr`` over i, j."""
    zs = _logit_symbols(size)
    entries = sp.Matrix(size, size, lambda a, b: _concrete(expr, size, i=a + 1, j=b + 1))
    return sp.lambdify([zs, *extra], entries, modules="numpy")


# --- second way: explicit vectors, SymPy differentiation ----------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_jacobian_equals_explicit_derivative(size):
    zs = _logit_symbols(size)
    total = sum(sp.exp(v) for v in zs)
    s = [sp.exp(v) / total for v in zs]
    explicit = sp.Matrix(size, size, lambda a, b: sp.diff(s[a], zs[b]))
    for a in range(size):
        for b in range(size):
            assert sp.simplify(explicit[a, b] - S.jacobian(s)[a, b]) == 0
            from_index_form = _concrete(S.JACOBIAN, size, i=a + 1, j=b + 1)
            assert sp.simplify(explicit[a, b] - from_index_form) == 0


# --- third way: NumPy finite differences and the matrix's structure ------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_jacobian_against_finite_differences(size):
    rng = np.random.default_rng(SEED + size)
    z = rng.normal(size=size)
    analytic = np.asarray(_jacobian_function(S.JACOBIAN, size)(z), dtype=float)
    numeric = fd.jacobian(fd.rowwise(_np_softmax), z, h=H)
    np.testing.assert_allclose(analytic, numeric, atol=FD_ATOL)


@pytest.mark.parametrize("size", [2, 3, 4, 6, 9])
def test_jacobian_structure_numerically(size):
    rng = np.random.default_rng(SEED * size)
    s = _np_softmax(3 * rng.normal(size=size))
    jac = np.asarray(sp.lambdify([], S.jacobian(sp.Matrix(s)), modules="numpy")(), dtype=float)
    np.testing.assert_allclose(jac, jac.T, atol=ATOL)
    np.testing.assert_allclose(jac @ np.ones(size), 0.0, atol=ATOL)
    eigenvalues = np.linalg.eigvalsh(jac)
    assert eigenvalues.min() >= -EIG_ATOL
    # the all-ones direction is the null space: one eigenvalue is zero, the rest positive
    assert np.sum(np.abs(eigenvalues) < 1e-10) == 1


@pytest.mark.parametrize("size", SIZES)
def test_quadratic_form_and_jvp(size):
    rng = np.random.default_rng(SEED + 10 * size)
    z, x = rng.normal(size=size), rng.normal(size=size)
    zs, xs = _logit_symbols(size), [S.x[m] for m in range(1, size + 1)]
    quadratic = sp.lambdify([zs, xs], _concrete(S.QUADRATIC_FORM, size), modules="numpy")
    jvp = sp.lambdify([zs, xs], sp.Matrix([_concrete(S.JACOBIAN_VECTOR_PRODUCT, size, i=a)
                                            for a in range(1, size + 1)]), modules="numpy")
    s = _np_softmax(z)
    jac = np.diag(s) - np.outer(s, s)
    assert quadratic(z, x) == pytest.approx(x @ jac @ x, abs=ATOL)
    assert quadratic(z, x) >= 0
    np.testing.assert_allclose(np.ravel(jvp(z, x)), jac @ x, atol=ATOL)


def test_shift_invariance_numerically():
    rng = np.random.default_rng(SEED)
    size = 4
    zs = _logit_symbols(size)
    shifted = sp.lambdify([zs, S.c], sp.Matrix([_concrete(S.softmax(a, shift=S.c), size)
                                                for a in range(1, size + 1)]), modules="numpy")
    z = rng.normal(size=size)
    for c in (-30.0, 0.5, 40.0):
        np.testing.assert_allclose(np.ravel(shifted(z, c)), _np_softmax(z), atol=ATOL)


def test_log_sum_exp_is_stable_with_max_shift():
    size = 3
    zs = _logit_symbols(size)
    stable = sp.lambdify([zs, S.c], _concrete(S.LOG_SUM_EXP, size), modules="numpy")
    naive = sp.lambdify([zs], _concrete(sp.log(S.Z), size), modules="numpy")
    z = np.array([1000.0, 1001.0, 999.0])
    expected = 1001.0 + np.log1p(np.exp(-1.0) + np.exp(-2.0))
    assert stable(z, z.max()) == pytest.approx(expected, rel=1e-15)
    with np.errstate(over="ignore"):
        assert np.isinf(naive(z))  # the reason for the shift
    small = np.array([0.3, -1.2, 0.8])
    assert stable(small, 0.7) == pytest.approx(naive(small), rel=1e-14)


@pytest.mark.parametrize("temperature", [0.5, 1.0, 3.0])
def test_temperature_jacobian_against_finite_differences(temperature):
    size = 3
    rng = np.random.default_rng(SEED)
    z = rng.normal(size=size)
    analytic = np.asarray(_jacobian_function(S.TEMPERATURE_JACOBIAN, size, (S.T,))(
        z, temperature), dtype=float)
    numeric = fd.jacobian(fd.rowwise(lambda zz: _np_softmax(zz / temperature)), z, h=H)
    np.testing.assert_allclose(analytic, numeric, atol=FD_ATOL)


# --- wrong derivations fail, naming the step ------------------------------------------------------

s_i, s_j = S.softmax(S.i), S.softmax(S.j)
WRONG_JACOBIANS = {
    "s_i s_j inside the bracket": s_i * (S.delta(S.i, S.j) - s_i * s_j),
    "sum of squares instead of outer product": s_i * S.delta(S.i, S.j)
    - sp.Sum(S.softmax(S.k) ** 2, (S.k, 1, S.n)),
    "missing Kronecker delta": s_i * (1 - s_j),
    "sign flip": s_i * (s_j - S.delta(S.i, S.j)),
}


@pytest.mark.parametrize("name", list(WRONG_JACOBIANS))
def test_wrong_jacobian_fails(name):
    assert_fails_at(with_step(S.softmax_jacobian, 3, WRONG_JACOBIANS[name]), 3)


def test_wrong_delta_sum_fails():
    # Σ_j δ_ij taken as n instead of 1
    wrong = S.n * s_i - s_i * sp.Sum(s_j, (S.j, 1, S.n))
    assert_fails_at(with_step(S.softmax_jacobian_rows_sum_zero, 2, wrong), 2)


def test_uncentred_quadratic_form_fails():
    wrong = sp.Sum(s_i * S.x[S.i] ** 2, (S.i, 1, S.n))
    assert_fails_at(with_step(S.softmax_jacobian_psd, 5, wrong), 5)


def test_temperature_without_one_over_t_fails():
    wrong = S.TEMPERATURE_JACOBIAN * S.T
    assert_fails_at(with_step(S.softmax_temperature, 2, wrong), 2)


def test_log_sum_exp_sign_error_fails():
    wrong = -S.c + sp.log(S.normalizer(shift=-S.c))
    assert_fails_at(with_step(S.log_sum_exp, 4, wrong), 4)
