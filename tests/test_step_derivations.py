"""Causal mask, multi-head, ignore_index, AdamW and clipping, and the log-sum-exp Hessian: each
claim proved, each result re-computed another way (NumPy finite differences, the model's ops and
optimiser, explicit matrices), and a wrong step rejected at that step."""

from __future__ import annotations

import functools

import claim_family
import numpy as np
import pytest
import sympy as sp

from derivations import with_step
from derivations.library import adamw as AW
from derivations.library import hessian as HE
from derivations.library import ignore_index as IG
from derivations.library import mask as MA
from derivations.library import multihead as MH
from derivations.testing import assert_fails_at
from numeric import adam, finite_diff, ops

SEED = 9
FD_H = 1e-6
FD_ATOL = 1e-8  # central differences of smooth O(1) float64 functions
EXACT_ATOL = 1e-12
CLAIMS = [d.id for m in (MA, MH, IG, AW, HE) for d in m.CLAIMS]


fd = functools.partial(finite_diff.gradient, h=FD_H)
test_claims_are_registered, test_claim_is_proved = claim_family.tests(CLAIMS)


# ----------------------------------------------------------------------------- causal mask
def test_masked_softmax_op_matches_the_claims(rng):
    t = 5
    scores, g = rng.normal(size=(t, t)) * 3, rng.normal(size=(t, t))
    mask = ops.causal_mask(t)
    probs, cache = ops.softmax_forward(scores, mask)
    assert np.all(probs[~mask] == 0.0)  # exactly, not approximately
    for q in range(t):
        kept = np.exp(scores[q, :q + 1] - scores[q, :q + 1].max())
        assert np.allclose(probs[q, :q + 1], kept / kept.sum(), atol=EXACT_ATOL)
    ds = ops.softmax_backward(g, cache)
    assert np.all(ds[~mask] == 0.0)
    num = fd(lambda s: float(np.sum(g * ops.softmax_forward(s, mask)[0])), scores)
    assert np.all(num[~mask] == 0.0)  # the forward never reads a masked score
    assert np.allclose(ds, num, atol=FD_ATOL)


def test_finite_mask_bias_tends_to_the_limits():
    z = np.array([0.3, -1.2, 0.8, 2.0])  # keys 1..2 kept, 3..4 masked
    kept = np.exp(z[:2]) / np.exp(z[:2]).sum()
    gaps = []
    for bias in (-10.0, -20.0, -40.0):
        w = np.exp(z + np.array([0, 0, bias, bias]))
        w /= w.sum()
        gaps.append(max(np.max(np.abs(w[:2] - kept)), np.max(w[2:])))
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-15


def test_mask_wrong_twin_fails_when_masked_keys_stay_in_the_normaliser():
    wrong = with_step(MA.causal_mask_kept_softmax, 2,
                      sp.exp(MA.z[MA.i]) / (MA.Z + MA.Z_MASKED))
    assert_fails_at(wrong, 2)


# ----------------------------------------------------------------------------- multi-head
def test_split_merge_are_inverse_and_split_backward_is_merge(rng):
    b, t, h, d = 2, 3, 4, 2
    x, g = rng.normal(size=(b, t, h * d)), rng.normal(size=(b, h, t, d))
    assert np.array_equal(ops.merge_heads(ops.split_heads(x, h)), x)
    grad = fd(lambda v: float(np.sum(g * ops.split_heads(v, h))), x)
    assert np.allclose(grad, ops.merge_heads(g), atol=FD_ATOL)
    # the claim's index map: split(X)[e, t, r] = X[t, (e − 1)D + r], 1-based
    sx = ops.split_heads(x, h)
    for e in range(1, h + 1):
        for r in range(1, d + 1):
            assert np.array_equal(sx[:, e - 1, :, r - 1], x[:, :, (e - 1) * d + r - 1])


def test_attention_backward_dq_dk_dv_by_fd(rng):
    n, dk = 4, 3
    q, k, v = (rng.normal(size=(1, 1, n, dk)) for _ in range(3))
    do = rng.normal(size=(1, 1, n, dk))
    mask = ops.causal_mask(n)

    def loss(q_, k_, v_):
        s, _ = ops.attention_scores_forward(q_, k_)
        p, _ = ops.softmax_forward(s, mask)
        return float(np.sum(do * (p @ v_)))

    s, sc = ops.attention_scores_forward(q, k)
    p, pc = ops.softmax_forward(s, mask)
    _, vc = ops.attention_values_forward(p, v)
    dp, dv = ops.attention_values_backward(do, vc)
    assert np.allclose(dv[0, 0], p[0, 0].T @ do[0, 0], atol=EXACT_ATOL)  # attention_grad_values
    assert np.allclose(dp[0, 0], do[0, 0] @ v[0, 0].T, atol=EXACT_ATOL)  # attention_grad_probs
    ds = ops.softmax_backward(dp, pc)
    dq, dk_ = ops.attention_scores_backward(ds, sc)
    scale = 1 / np.sqrt(dk)
    assert np.allclose(dq[0, 0], ds[0, 0] @ k[0, 0] * scale, atol=EXACT_ATOL)
    assert np.allclose(dk_[0, 0], ds[0, 0].T @ q[0, 0] * scale, atol=EXACT_ATOL)
    assert np.allclose(dq, fd(lambda a: loss(a, k, v), q), atol=FD_ATOL)
    assert np.allclose(dk_, fd(lambda a: loss(q, a, v), k), atol=FD_ATOL)
    assert np.allclose(dv, fd(lambda a: loss(q, k, a), v), atol=FD_ATOL)


def test_multihead_wrong_twin_fails_without_the_scale():
    assert_fails_at(with_step(MH.attention_grad_query, 2, MH.dS * MH.K), 2)


# ----------------------------------------------------------------------------- ignore_index
def test_ignore_index_gradient_by_fd_and_by_the_op(rng):
    logits = rng.normal(size=(2, 3, 4))
    targets = np.array([[1, -100, 3], [-100, 0, 2]])
    loss, cache = ops.cross_entropy_forward(logits, targets, -100)
    grad = ops.cross_entropy_backward(1.0, cache)
    num = fd(lambda z: ops.cross_entropy_forward(z, targets, -100)[0], logits)
    assert np.allclose(grad, num, atol=FD_ATOL)
    valid = targets != -100
    assert np.all(grad[~valid] == 0.0)
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    y = np.eye(4)[np.where(valid, targets, 0)]
    assert np.allclose(grad, valid[..., None] * (p - y) / valid.sum(), atol=EXACT_ATOL)
    per_row = -np.log(np.take_along_axis(p, np.where(valid, targets, 0)[..., None], -1))[..., 0]
    assert loss == pytest.approx(per_row[valid].mean(), abs=EXACT_ATOL)


def test_ignore_index_wrong_twin_fails_with_the_mean_over_all_rows():
    wrong = IG.wt[IG.a] * (IG.batch_probability(IG.a, IG.j) - IG.Target(IG.a, IG.j)) / IG.B
    assert_fails_at(with_step(IG.cross_entropy_ignore_index, 4, wrong), 4)


# ----------------------------------------------------------------------------- AdamW, clipping
def _one_step(theta, grad, decay, l2, lr=0.1, eps=1e-3):
    opt = adam.Adam(lr=lr, eps=eps, weight_decay=0.0 if l2 else decay)
    p = {"w": np.array([[theta]])}  # a matrix: decayed under the default parameter groups
    opt.step(p, {"w": np.array([[grad + (decay * theta if l2 else 0.0)]])})
    return float(p["w"][0, 0])


def test_adamw_first_step_gap_matches_the_closed_form():
    theta, g, lam, lr, eps = 0.7, 0.4, 0.3, 0.1, 1e-3
    gap = _one_step(theta, g, lam, True, lr, eps) - _one_step(theta, g, lam, False, lr, eps)
    formula = sp.lambdify([AW.thp, AW.gp, AW.lam, AW.eta, AW.eps], AW.ADAM_GAP)
    assert gap == pytest.approx(formula(theta, g, lam, lr, eps), abs=1e-12)
    assert gap > 0.9 * lr * lam * theta  # nearly all of the decay is lost to the normalisation


def test_sgd_l2_equals_decoupled_decay(rng):
    theta, g, lam, lr = rng.normal(size=5), rng.normal(size=5), 0.3, 0.1
    assert np.allclose(theta - lr * (g + lam * theta), theta * (1 - lr * lam) - lr * g,
                       atol=EXACT_ATOL)


def test_clipping_scales_and_keeps_the_direction(rng):
    grads = {"a": rng.normal(size=(3, 2)) * 5, "b": rng.normal(size=4) * 5}
    opt = adam.Adam(lr=1e-3, clip_norm=1.0)
    norm = adam.global_norm(grads)
    coef = 1.0 / (norm + adam.CLIP_GUARD)
    opt.step({k: np.zeros_like(v) for k, v in grads.items()}, grads)
    assert opt.last_clip_coef == pytest.approx(coef, rel=1e-15)
    flat = np.concatenate([g.ravel() for g in grads.values()])
    clipped = coef * flat
    assert np.allclose(clipped / np.linalg.norm(clipped), flat / norm, atol=EXACT_ATOL)
    assert np.linalg.norm(clipped) == pytest.approx(norm / (norm + adam.CLIP_GUARD), rel=1e-14)


def test_adamw_wrong_twin_fails_when_the_gap_is_taken_as_zero():
    assert_fails_at(with_step(AW.adamw_decoupled_vs_l2, 3, sp.Integer(0)), 3)


# ----------------------------------------------------------------------------- Hessian
def test_lse_hessian_by_fd_is_psd(rng):
    z = rng.normal(size=5)

    def lse(v):
        return float(np.log(np.sum(np.exp(v))))

    def softmax(v):
        return np.exp(v) / np.exp(v).sum()

    s = softmax(z)
    assert np.allclose(fd(lse, z), s, atol=FD_ATOL)  # lse_gradient
    hess = np.array([fd(lambda v, i=i: float(softmax(v)[i]), z) for i in range(z.size)])
    assert np.allclose(hess, np.diag(s) - np.outer(s, s), atol=FD_ATOL)
    assert np.min(np.linalg.eigvalsh(np.diag(s) - np.outer(s, s))) > -EXACT_ATOL


def test_lse_hessian_on_explicit_logits():
    zs = sp.symbols("z0:3")
    lse = sp.log(sum(sp.exp(v) for v in zs))
    s = [sp.exp(v) / sum(sp.exp(w) for w in zs) for v in zs]
    hess = sp.hessian(lse, zs)
    want = sp.diag(*s) - sp.Matrix(s) * sp.Matrix(s).T
    assert sp.simplify(hess - want) == sp.zeros(3, 3)


def test_hessian_wrong_twin_fails_with_diag_only():
    wrong = HE.S.softmax(HE.i) * sp.KroneckerDelta(HE.i, HE.j)
    assert_fails_at(with_step(HE.lse_hessian, 2, wrong), 2)
