"""Cross-entropy: every claim proved; p − y and (P − Y)/B re-derived by SymPy on explicit logits, by
NumPy finite differences and by PyTorch autograd; wrong gradients caught with a counterexample."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import derivations
from derivations import with_step
from derivations.library import cross_entropy as C
from derivations.testing import assert_fails_at
from numeric import finite_diff as fd

SEED = 11
H = 1e-5
FD_ATOL = 1e-8
TORCH_ATOL = 1e-12

CLAIM_IDS = [d.id for d in C.CLAIMS]


def test_module_is_registered():
    assert {d.id for d in derivations.claims()} >= set(CLAIM_IDS)
    assert {"cross_entropy_gradient", "cross_entropy_batch_mean"} <= set(CLAIM_IDS)


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_claim_is_proved(verified, claim_id):
    verified.assert_proved(claim_id)


def _np_loss(z, targets):
    """Mean over rows of −log softmax(z_b)[t_b], computed stably."""
    shifted = z - z.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_p[np.arange(len(targets)), targets].mean()


# --- second way: explicit logits, SymPy differentiation ----------------------------------------

@pytest.mark.parametrize("size", [2, 3, 4])
def test_gradient_equals_explicit_derivative(size):
    zs = sp.symbols(f"v1:{size + 1}", real=True)
    for target in range(1, size + 1):
        loss = -sp.log(sp.exp(zs[target - 1]) / sum(sp.exp(v) for v in zs))
        explicit = sp.Matrix([sp.diff(loss, v) for v in zs])
        closed = C.gradient(zs, target)
        assert all(sp.simplify(e) == 0 for e in explicit - closed)
        index_form = sp.Matrix([
            C.GRADIENT.xreplace({C.n: size, C.j: a, C.k: target}).doit()
            .xreplace({C.z[m]: zs[m - 1] for m in range(1, size + 1)})
            for a in range(1, size + 1)])
        assert all(sp.simplify(e) == 0 for e in index_form - closed)


@pytest.mark.parametrize(("batch", "size"), [(1, 2), (2, 3), (3, 2)])
def test_batch_gradient_against_finite_differences(batch, size):
    rng = np.random.default_rng(SEED + 10 * batch + size)
    z = rng.normal(size=(batch, size))
    targets = rng.integers(0, size, size=batch)
    closed = np.asarray(C.batch_gradient(z.tolist(), (targets + 1).tolist()), dtype=float)
    numeric = fd.derivative(fd.rowwise(lambda zz: _np_loss(zz, targets)), z, h=H)
    np.testing.assert_allclose(closed, numeric.reshape(z.shape), atol=FD_ATOL)


@pytest.mark.parametrize(("batch", "size"), [(2, 3), (4, 5)])
def test_batch_gradient_matches_torch(batch, size):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(SEED * batch + size)
    z = rng.normal(size=(batch, size))
    targets = rng.integers(0, size, size=batch)
    logits = torch.tensor(z, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.cross_entropy(logits, torch.tensor(targets), reduction="mean").backward()
    closed = np.asarray(C.batch_gradient(z.tolist(), (targets + 1).tolist()), dtype=float)
    np.testing.assert_allclose(closed, logits.grad.numpy(), atol=TORCH_ATOL)


def test_batch_index_form_with_one_hot_targets():
    # BATCH_GRADIENT at B = 2, n = 3 with y_b one-hot, against the explicit (P − Y)/B
    batch, size = 2, 3
    targets = [3, 1]
    rng = np.random.default_rng(SEED)
    z = rng.normal(size=(batch, size))
    closed = np.asarray(C.batch_gradient(z.tolist(), targets), dtype=float)
    for a in range(1, batch + 1):
        for col in range(1, size + 1):
            expr = C.BATCH_GRADIENT.xreplace({C.B: batch, C.n: size, C.a: a, C.j: col})
            one_hot = 1 if col == targets[a - 1] else 0
            expr = expr.xreplace({C._Target(a, col, size): one_hot}).doit()
            value = expr.xreplace({C.Z[r, q]: z[r - 1, q - 1] for r in range(1, batch + 1)
                                   for q in range(1, size + 1)})
            assert float(value) == pytest.approx(closed[a - 1, col - 1], abs=1e-14)


def test_explicit_gradient_rejects_mismatched_targets():
    with pytest.raises(ValueError):
        C.batch_gradient([[0.0, 1.0], [1.0, 0.0]], [1])


# --- wrong derivations fail, naming the step ------------------------------------------------------

def test_y_minus_p_fails():
    wrong = C.delta(C.j, C.k) - C.probability(C.j)
    assert_fails_at(with_step(C.cross_entropy_gradient, 3, wrong), 3)


def test_missing_one_hot_fails():
    assert_fails_at(with_step(C.cross_entropy_gradient, 3, C.probability(C.j)), 3)


def test_batch_gradient_without_one_over_b_fails():
    wrong = C.BATCH_GRADIENT * C.B
    assert_fails_at(with_step(C.cross_entropy_batch_mean, 4, wrong), 4)


def test_batch_gradient_sign_flip_fails():
    wrong = -C.BATCH_GRADIENT
    assert_fails_at(with_step(C.cross_entropy_batch_mean, 4, wrong), 4)
