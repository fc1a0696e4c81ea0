"""Per-op forward/backward against finite differences, stability, masking and input errors."""

from __future__ import annotations

import numpy as np
import pytest

from numeric import finite_diff as fd
from numeric import ops

# Same bar as the model gradient check: 4-point stencil noise is ~1e-11 of the gradient scale.
OP_RTOL = 1e-8
# A deliberately broken backward is off by O(1) of the gradient scale; 1e-3 is far below that.
BROKEN_MIN_REL = 1e-3
# float32 softmax rows sum to 1 within a few ulps of 1.0 (ulp ≈ 1.2e-7).
SUM_TOL = {np.float32: 1e-6, np.float64: 1e-14}
SHAPES = [(2, 3), (2, 3, 5), (1, 4, 7)]


def rel_err(analytic: np.ndarray, numeric: np.ndarray) -> float:
    return float(np.max(np.abs(analytic - numeric)) / np.max(np.abs(numeric)))


def fd_grad(forward, arrays: list[np.ndarray], which: int, dout: np.ndarray) -> np.ndarray:
    """Finite-difference gradient of ⟨forward(*arrays), dout⟩ with respect to arrays[which]."""
    arr = arrays[which]
    num = fd.derivative_inplace(lambda: float(np.sum(forward(*arrays)[0] * dout)), arr,
                                np.arange(arr.size))
    return num.reshape(arr.shape)


@pytest.mark.parametrize("shape", SHAPES)
def test_linear_grads(rng, shape):
    x = rng.standard_normal(shape)  # (..., C_in)
    w = rng.standard_normal((shape[-1], 4))  # (C_in, C_out)
    b = rng.standard_normal(4)  # (C_out,)
    out, cache = ops.linear_forward(x, w, b)
    dout = rng.standard_normal(out.shape)
    grads = ops.linear_backward(dout, cache)
    for which, g in enumerate(grads):
        assert rel_err(g, fd_grad(ops.linear_forward, [x, w, b], which, dout)) <= OP_RTOL


@pytest.mark.parametrize("shape", SHAPES)
def test_layernorm_grads(rng, shape):
    x = rng.standard_normal(shape) * 3 + 1
    g, b = rng.standard_normal(shape[-1]), rng.standard_normal(shape[-1])
    out, cache = ops.layernorm_forward(x, g, b)
    dout = rng.standard_normal(out.shape)
    grads = ops.layernorm_backward(dout, cache)
    xhat = (out - b) / g  # normalised rows: zero mean, variance var/(var + eps)
    var = x.var(-1)
    assert np.max(np.abs(xhat.mean(-1))) <= OP_RTOL
    assert np.max(np.abs(xhat.var(-1) - var / (var + 1e-5))) <= OP_RTOL
    for which, gr in enumerate(grads):
        assert rel_err(gr, fd_grad(ops.layernorm_forward, [x, g, b], which, dout)) <= OP_RTOL


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ["gelu", "identity"])
def test_activation_grads(rng, shape, name):
    fwd, bwd = getattr(ops, f"{name}_forward"), getattr(ops, f"{name}_backward")
    x = rng.standard_normal(shape) * 2
    out, cache = fwd(x)
    dout = rng.standard_normal(out.shape)
    assert rel_err(bwd(dout, cache), fd_grad(fwd, [x], 0, dout)) <= OP_RTOL


def test_gelu_matches_tanh_form(rng):
    x = rng.standard_normal(100) * 4
    want = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    assert np.max(np.abs(ops.gelu_forward(x)[0] - want)) <= 1e-14 * np.max(np.abs(want))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("masked", [False, True])
def test_softmax_grads(rng, shape, masked):
    x = rng.standard_normal(shape)
    mask = np.tri(shape[-2], shape[-1], dtype=bool) if masked else None
    s, cache = ops.softmax_forward(x, mask)
    dout = rng.standard_normal(s.shape)
    num = fd_grad(lambda a: ops.softmax_forward(a, mask), [x], 0, dout)
    assert rel_err(ops.softmax_backward(dout, cache), num) <= OP_RTOL


def test_softmax_backward_without_inner_product_is_caught(rng, monkeypatch):
    x = rng.standard_normal((3, 6))
    s, cache = ops.softmax_forward(x)
    dout = rng.standard_normal(s.shape)
    monkeypatch.setattr(ops, "softmax_backward", lambda g, c: c * g)  # drops −⟨g, s⟩
    assert rel_err(ops.softmax_backward(dout, cache), fd_grad(ops.softmax_forward, [x], 0, dout)) \
        > BROKEN_MIN_REL


@pytest.mark.parametrize("shape", [(5, 7), (2, 3, 4)])
def test_cross_entropy_grads_with_ignore(rng, shape):
    logits = rng.standard_normal(shape) * 2
    targets = rng.integers(0, shape[-1], shape[:-1])
    targets.flat[0] = -100
    loss, cache = ops.cross_entropy_forward(logits, targets, -100)
    dlogits = ops.cross_entropy_backward(1.0, cache)
    num = fd_grad(lambda z: (ops.cross_entropy_forward(z, targets, -100)[0],), [logits], 0,
                  np.array(1.0))
    assert rel_err(dlogits, num) <= OP_RTOL
    assert np.all(dlogits.reshape(-1, shape[-1])[0] == 0.0)  # ignored row: exactly zero
    valid = targets != -100
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    y = np.eye(shape[-1])[np.where(valid, targets, 0)]
    want = (p - y) * valid[..., None] / valid.sum()  # cross_entropy_gradient, batch mean
    assert np.max(np.abs(dlogits - want)) <= OP_RTOL * np.max(np.abs(want))


@pytest.mark.parametrize("t,d", [(4, 4), (6, 8)])
def test_rope_and_attention_pieces_grads(rng, t, d):
    cos, sin = ops.rope_tables(t, d)
    q, k, v = (rng.standard_normal((2, 2, t, d)) for _ in range(3))
    out, cache = ops.rope_forward(q, cos, sin)
    dout = rng.standard_normal(out.shape)
    num = fd_grad(lambda a: ops.rope_forward(a, cos, sin), [q], 0, dout)
    assert rel_err(ops.rope_backward(dout, cache), num) <= OP_RTOL
    scores, cache = ops.attention_scores_forward(q, k)
    dout = rng.standard_normal(scores.shape)
    for which, g in enumerate(ops.attention_scores_backward(dout, cache)):
        num = fd_grad(ops.attention_scores_forward, [q, k], which, dout)
        assert rel_err(g, num) <= OP_RTOL
    probs = ops.softmax_forward(scores, ops.causal_mask(t))[0]
    out, cache = ops.attention_values_forward(probs, v)
    dout = rng.standard_normal(out.shape)
    for which, g in enumerate(ops.attention_values_backward(dout, cache)):
        num = fd_grad(ops.attention_values_forward, [probs, v], which, dout)
        assert rel_err(g, num) <= OP_RTOL


def test_embedding_and_residual_grads(rng):
    wte = rng.standard_normal((5, 3))
    idx = np.array([[0, 2, 2, 4]])
    out, cache = ops.embedding_forward(idx, wte)
    dout = rng.standard_normal(out.shape)
    num = fd_grad(lambda w: ops.embedding_forward(idx, w), [wte], 0, dout)
    assert rel_err(ops.embedding_backward(dout, cache), num) <= OP_RTOL
    x, fx = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    y, cache = ops.residual_forward(x, fx)
    dx, dfx = ops.residual_backward(dout[0, :2], cache)
    assert np.array_equal(dx, dout[0, :2]) and np.array_equal(dfx, dout[0, :2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scale", [1e4, -1e4])
def test_stability_extreme_logits(rng, dtype, scale):
    x = (rng.standard_normal((2, 2, 5, 5)) * scale).astype(dtype)  # scores of magnitude 1e4
    mask = ops.causal_mask(5)
    s, cache = ops.softmax_forward(x, mask)
    ds = ops.softmax_backward(rng.standard_normal(s.shape).astype(dtype), cache)
    assert np.all(np.isfinite(s)) and np.all(np.isfinite(ds))
    assert s.dtype == dtype and ds.dtype == dtype
    assert np.max(np.abs(s.sum(-1) - 1)) <= SUM_TOL[dtype]
    assert np.all(s[..., ~mask] == 0.0) and np.all(ds[..., ~mask] == 0.0)
    logits = x.reshape(20, 5)
    loss, cache = ops.cross_entropy_forward(logits, rng.integers(0, 5, 20))
    dlogits = ops.cross_entropy_backward(1.0, cache)
    assert np.isfinite(loss) and np.all(np.isfinite(dlogits)) and dlogits.dtype == dtype
    g, cache = ops.gelu_forward(x)
    assert np.all(np.isfinite(g)) and np.all(np.isfinite(ops.gelu_backward(g, cache)))


def test_masked_positions_get_zero_weight_and_gradient(rng):
    t = 6
    q, k, v = (rng.standard_normal((1, 2, t, 4)) for _ in range(3))
    mask = ops.causal_mask(t)
    scores, _ = ops.attention_scores_forward(q, k)
    probs, cache = ops.softmax_forward(scores, mask)
    dscores = ops.softmax_backward(rng.standard_normal(probs.shape) * 1e4, cache)
    assert np.all(probs[..., ~mask] == 0.0)
    assert np.all(dscores[..., ~mask] == 0.0)
    assert np.all(probs[..., mask] > 0.0)


BAD_CALLS = [
    ("linear_forward", lambda: ops.linear_forward(np.zeros((2, 3)), np.zeros((4, 5)))),
    ("linear_forward", lambda: ops.linear_forward(np.zeros((2, 4), np.float32),
                                                  np.zeros((4, 5)))),
    ("linear_forward", lambda: ops.linear_forward(np.zeros((2, 4), int), np.zeros((4, 5)))),
    ("linear_backward", lambda: ops.linear_backward(
        np.zeros((2, 6)), ops.linear_forward(np.zeros((2, 4)), np.zeros((4, 5)))[1])),
    ("layernorm_forward", lambda: ops.layernorm_forward(np.zeros((2, 4)), np.ones(3),
                                                        np.zeros(4))),
    ("softmax_forward", lambda: ops.softmax_forward(np.zeros((3, 3)), np.zeros((2, 2), bool))),
    ("softmax_forward", lambda: ops.softmax_forward(np.zeros((3, 3)), np.zeros((3, 3), bool))),
    ("softmax_backward", lambda: ops.softmax_backward(
        np.zeros((3, 2)), ops.softmax_forward(np.zeros((3, 3)))[1])),
    ("cross_entropy_forward", lambda: ops.cross_entropy_forward(np.zeros((4, 3)),
                                                                np.zeros(5, int))),
    ("cross_entropy_forward", lambda: ops.cross_entropy_forward(np.zeros((4, 3)),
                                                                np.full(4, 7))),
    ("embedding_forward", lambda: ops.embedding_forward(np.array([[9]]), np.zeros((5, 2)))),
    ("embedding_forward", lambda: ops.embedding_forward(np.array([[0.5]]), np.zeros((5, 2)))),
    ("rope_forward", lambda: ops.rope_forward(np.zeros((1, 1, 4, 6)), *ops.rope_tables(4, 4))),
    ("attention_scores_forward", lambda: ops.attention_scores_forward(np.zeros((1, 1, 3, 2)),
                                                                      np.zeros((1, 1, 4, 2)))),
]


@pytest.mark.parametrize("fn,call", BAD_CALLS, ids=[f"{n}-{i}" for i, (n, _) in
                                                    enumerate(BAD_CALLS)])
def test_bad_input_names_expected_and_got(fn, call):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    assert msg.startswith(fn) and "expected" in msg and "got" in msg
