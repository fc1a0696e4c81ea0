"""Forward/backward pairs for every op of the Transformer.

Each op is ``x_forward(...) -> (out, cache)`` next to ``x_backward(dout, cache) -> grads``. Every
backward names, in a ``Claims:`` line of its docstring, the ids of the derived results (from
``derivations``) that it implements, so the cross-checks can compare formula and code on the same
tensors; tests/test_op_claims.py fails if a backward names none or one that does not exist.

Conventions: B batch, T time, C channels, H heads, D head dim, V vocabulary, N rows. Linear
weights are stored (C_in, C_out) so that ``out = x @ w + b`` and the derived dW = XᵀG reads as is.
Outputs and large temporaries are written (``out=``) into arrays from numeric.buffers, which a
later step reuses once nothing refers to them: fresh arrays cost a page fault per 4 KiB.
"""

from __future__ import annotations

import numpy as np

from numeric.buffers import empty, empty_like
from numeric.checks import check_float, check_int, check_same

GELU_C = np.sqrt(2.0 / np.pi)
GELU_A = 0.044715


# ----------------------------------------------------------------------------- linear
def linear_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None):
    """out = x @ w + b over the last axis of x."""
    check_float("linear_forward", "x", x)
    check_float("linear_forward", "w", w, ndim=2)
    c_in, c_out = w.shape
    if x.shape[-1] != c_in:
        raise ValueError(f"linear_forward: x last dim expected {c_in}, got {x.shape[-1]}")
    if x.dtype != w.dtype:
        raise ValueError(f"linear_forward: x dtype expected {w.dtype}, got {x.dtype}")
    if b is not None:
        check_same("linear_forward", "b", b, (c_out,), w.dtype)
    x2 = x.reshape(-1, c_in)  # (N, C_in)
    out = np.matmul(x2, w, out=empty((x2.shape[0], c_out), w.dtype))  # (N, C_out)
    if b is not None:
        out += b  # (N, C_out)
    return out.reshape(*x.shape[:-1], c_out), (x2, w, x.shape, b is not None)


def linear_backward(dout: np.ndarray, cache):
    """linear_grad_weight dW = XᵀG, linear_grad_input dX = GWᵀ, linear_grad_bias db = Σ_rows G.

    Claims: linear_grad_weight, linear_grad_input, linear_grad_bias.
    """
    x2, w, x_shape, has_b = cache
    check_same("linear_backward", "dout", dout, (*x_shape[:-1], w.shape[1]), w.dtype)
    g = dout.reshape(-1, w.shape[1])  # (N, C_out)
    dw = np.matmul(x2.T, g, out=empty(w.shape, w.dtype))  # (C_in, C_out)
    dx = np.matmul(g, w.T, out=empty(x2.shape, w.dtype)).reshape(x_shape)  # (..., C_in)
    db = g.sum(axis=0) if has_b else None  # (C_out,)
    return dx, dw, db


# ----------------------------------------------------------------------------- layer norm
def layernorm_forward(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float = 1e-5):
    """Normalise the last axis to zero mean / unit variance (biased), then scale and shift."""
    check_float("layernorm_forward", "x", x)
    c = x.shape[-1]
    check_same("layernorm_forward", "g", g, (c,), x.dtype)
    check_same("layernorm_forward", "b", b, (c,), x.dtype)
    # the mean taken about the row's first entry: exact for a constant row, whose x̂ is then 0
    # (6553.68 five times has a float32 mean one ulp off, and x̂ = ulp/√eps = 0.15)
    first = x[..., :1]  # (..., 1)
    xhat = np.subtract(x, first, out=empty_like(x))  # (..., C)
    xhat -= xhat.mean(axis=-1, keepdims=True)  # (..., C)
    var = np.einsum("...c,...c->...", xhat, xhat)[..., None] / c  # (..., 1)
    rstd = 1.0 / np.sqrt(var + eps)  # (..., 1)
    xhat *= rstd  # (..., C)
    out = np.multiply(xhat, g, out=empty_like(x))  # (..., C)
    out += b  # (..., C)
    return out, (xhat, rstd, g)


def layernorm_backward(dout: np.ndarray, cache):
    """Layer-norm chain rule: dx = rstd·(ĝ − mean(ĝ) − x̂·mean(ĝ⊙x̂)) with ĝ = dout⊙γ;
    dγ = Σ_rows dout⊙x̂, dβ = Σ_rows dout.

    Claims: layernorm_grad_input, layernorm_grad_affine.
    """
    xhat, rstd, g = cache
    check_same("layernorm_backward", "dout", dout, xhat.shape, xhat.dtype)
    c = xhat.shape[-1]
    d2 = dout.reshape(-1, c)  # (N, C)
    x2 = xhat.reshape(-1, c)  # (N, C)
    dg = np.einsum("nc,nc->c", d2, x2)  # (C,)
    db = d2.sum(axis=0)  # (C,)
    dxhat = np.multiply(dout, g, out=empty_like(xhat))  # (..., C)
    mean_d = dxhat.mean(axis=-1, keepdims=True)  # (..., 1)
    mean_dx = np.einsum("...c,...c->...", dxhat, xhat)[..., None] / c  # (..., 1)
    dxhat -= mean_d  # (..., C)
    dxhat -= np.multiply(xhat, mean_dx, out=empty_like(xhat))  # (..., C)
    dxhat *= rstd  # (..., C)
    return dxhat, dg, db


# ----------------------------------------------------------------------------- activations
def gelu_forward(x: np.ndarray):
    """GELU, tanh form: 0.5·x·(1 + tanh(u)), u = √(2/π)(x + 0.044715x³).

    Evaluated as x·σ(2u) with σ(z) = 1/(1 + e⁻ᶻ), the same function since 0.5(1 + tanh u) = σ(2u):
    NumPy's exp measured ~2.6× faster than its tanh here. For very negative x, e⁻²ᵘ overflows to
    inf and σ becomes exactly 0, the correct limit.
    """
    check_float("gelu_forward", "x", x)
    sig = np.multiply(x, x, out=empty_like(x))  # (..., F)   x*x*x, never x**3: power is slow
    sig *= GELU_A
    sig += 1.0
    sig *= x
    sig *= -2.0 * GELU_C
    with np.errstate(over="ignore"):
        np.exp(sig, out=sig)  # (..., F)
    sig += 1.0
    np.divide(1.0, sig, out=sig)  # (..., F)   σ(2u)
    return np.multiply(x, sig, out=empty_like(x)), (x, sig)  # (..., F)


def gelu_backward(dout: np.ndarray, cache):
    """Derivative of tanh-GELU in σ form: σ + x·σ(1−σ)·2√(2/π)(1 + 3·0.044715x²), σ = σ(2u).

    Claims: gelu_tanh_derivative.
    """
    x, sig = cache
    check_same("gelu_backward", "dout", dout, x.shape, x.dtype)
    inner = np.multiply(x, x, out=empty_like(x))  # (..., F)
    inner *= 6.0 * GELU_A * GELU_C
    inner += 2.0 * GELU_C
    inner *= x
    dsig = np.subtract(1.0, sig, out=empty_like(sig))  # (..., F)
    dsig *= sig
    inner *= dsig
    inner += sig
    inner *= dout
    return inner


def identity_forward(x: np.ndarray):
    """Linear 'activation': with it the MLP is W₂(W₁x + b₁) + b₂, one affine map."""
    check_float("identity_forward", "x", x)
    return x, x.shape


def identity_backward(dout: np.ndarray, cache):
    """mlp_collapse: the activation's Jacobian is I, so the MLP gradient is that of W₁W₂.

    Claims: mlp_identity_grad_input.
    """
    return dout


# ----------------------------------------------------------------------------- softmax
def softmax_forward(x: np.ndarray, mask: np.ndarray | None = None):
    """Row softmax over the last axis; positions where ``mask`` is False get exactly 0."""
    check_float("softmax_forward", "x", x)
    if mask is not None:
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
            got = mask.dtype if isinstance(mask, np.ndarray) else type(mask).__name__
            raise ValueError(f"softmax_forward: mask expected a bool array, got {got}")
        try:
            if np.broadcast_shapes(mask.shape, x.shape) != x.shape:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"softmax_forward: mask shape expected broadcastable to {x.shape}, "
                f"got {mask.shape}"
            ) from None
        if not mask.any(axis=-1).all():
            raise ValueError("softmax_forward: mask expected ≥1 kept position per row, got none")
    s = empty_like(x)  # (..., N)
    np.copyto(s, x)
    if mask is not None:
        np.copyto(s, -np.inf, where=~mask)  # (..., N)
    # Subtract the row max so exp never overflows: scores of ±1e4 stay finite in float32.
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s)  # (..., N)   exp(-inf) = 0 exactly at masked positions
    s /= s.sum(axis=-1, keepdims=True)
    return s, s


def softmax_backward(dout: np.ndarray, cache):
    """softmax_jacobian: Jᵀg with J = diag(s) − ssᵀ, computed as s ⊙ (g − ⟨g, s⟩).

    Masked positions have s = 0 and so receive exactly zero gradient.

    Claims: softmax_jacobian, softmax_jacobian_vector_product, causal_mask_zero_gradient.
    """
    s = cache
    check_same("softmax_backward", "dout", dout, s.shape, s.dtype)
    gs = np.einsum("...n,...n->...", dout, s)[..., None]  # (..., 1)
    ds = np.subtract(dout, gs, out=empty_like(s))  # (..., N)
    ds *= s
    return ds


# ----------------------------------------------------------------------------- cross-entropy
def cross_entropy_forward(logits: np.ndarray, targets: np.ndarray, ignore_index: int | None = None):
    """Mean over non-ignored positions of −log softmax(logits)[target]."""
    check_float("cross_entropy_forward", "logits", logits)
    v = logits.shape[-1]
    if not isinstance(targets, np.ndarray) or targets.shape != logits.shape[:-1]:
        got = targets.shape if isinstance(targets, np.ndarray) else type(targets).__name__
        raise ValueError(
            f"cross_entropy_forward: targets shape expected {logits.shape[:-1]}, got {got}"
        )
    valid = np.ones(targets.shape, bool) if ignore_index is None else targets != ignore_index
    safe = np.where(valid, targets, 0)  # (...)
    check_int("cross_entropy_forward", "targets (not ignored)", safe, v)
    n = int(valid.sum())
    if n == 0:
        raise ValueError("cross_entropy_forward: expected ≥1 non-ignored target, got 0")
    z = np.subtract(logits, logits.max(axis=-1, keepdims=True),
                    out=empty_like(logits))  # (..., V)
    z_target = np.take_along_axis(z, safe[..., None], axis=-1)[..., 0]  # (...)
    probs = np.exp(z, out=z)  # (..., V)   z is not needed past its target entries
    sums = probs.sum(axis=-1, keepdims=True)  # (..., 1)
    probs /= sums
    logp = z_target - np.log(sums[..., 0])  # (...)
    loss = -float(logp[valid].sum()) / n
    return loss, (probs, safe, valid, n)


def cross_entropy_backward(dloss: float, cache):
    """cross_entropy_gradient ∂L/∂z = p − y per row; cross_entropy_batch_mean divides by N.

    Rows whose target is ignore_index get exactly zero gradient.

    Claims: cross_entropy_gradient, cross_entropy_batch_mean, cross_entropy_ignore_index.
    """
    probs, safe, valid, n = cache
    dlogits = empty_like(probs)  # (..., V)
    np.copyto(dlogits, probs)
    np.put_along_axis(dlogits, safe[..., None], np.take_along_axis(
        dlogits, safe[..., None], axis=-1) - 1.0, axis=-1)
    dlogits *= (valid * (dloss / n)).astype(probs.dtype)[..., None]
    return dlogits


# ----------------------------------------------------------------------------- embeddings
def embedding_forward(idx: np.ndarray, wte: np.ndarray):
    """Row lookup wte[i] = Eᵀe_i."""
    check_float("embedding_forward", "wte", wte, ndim=2)
    check_int("embedding_forward", "idx", idx, wte.shape[0])
    out = np.take(wte, idx, axis=0, out=empty((*idx.shape, wte.shape[1]), wte.dtype),
                  mode="clip")  # (B, T, C)   clip never clips: idx was checked above
    return out, (idx, wte.shape, wte.dtype)


def embedding_backward(dout: np.ndarray, cache):
    """linear_grad_weight with one-hot X: dE = Σ_i e_i ⊗ dout_i (scatter-add of rows).

    Claims: embedding_grad_one_hot, embedding_grad_scatter_add.
    """
    idx, shape, dtype = cache
    check_same("embedding_backward", "dout", dout, (*idx.shape, shape[1]), dtype)
    dwte = empty(shape, dtype)  # (V, C)
    dwte.fill(0.0)
    np.add.at(dwte, idx.ravel(), dout.reshape(-1, shape[1]))
    return dwte


def sinusoidal_encoding(t: int, c: int, dtype=np.float64) -> np.ndarray:
    """PE[p, 2i] = sin(p/10000^(2i/C)), PE[p, 2i+1] = cos(same) — added to the input."""
    pos = np.arange(t, dtype=np.float64)[:, None]  # (T, 1)
    freq = np.exp(-np.log(10000.0) * np.arange(0, c, 2, dtype=np.float64) / c)  # (C/2,)
    pe = np.empty((t, c), np.float64)  # (T, C)
    pe[:, 0::2] = np.sin(pos * freq)
    pe[:, 1::2] = np.cos(pos * freq)
    return pe.astype(dtype)


# ----------------------------------------------------------------------------- rotary
def rope_tables(t: int, d: int, dtype=np.float64, base: float = 10000.0):
    """cos/sin tables (T, D/2) for rotating channel pairs (j, j + D/2) by angle p·base^(−2j/D)."""
    inv = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # (D/2,)
    ang = np.arange(t, dtype=np.float64)[:, None] * inv  # (T, D/2)
    return np.cos(ang).astype(dtype), np.sin(ang).astype(dtype)


def rope_forward(x: np.ndarray, cos: np.ndarray, sin: np.ndarray):
    """Rotate (x₁, x₂) = halves of the head dim by the position angle: R(θ_p)·x."""
    check_float("rope_forward", "x", x, ndim=4)
    t, d = x.shape[-2:]
    if d % 2 or cos.shape[-1] != d // 2 or cos.shape[0] < t or sin.shape != cos.shape:
        raise ValueError(
            f"rope_forward: tables expected ≥({t}, {d // 2}) for x {x.shape}, got {cos.shape}"
        )
    c, s = cos[:t], sin[:t]  # (T, D/2)
    h = d // 2
    x1, x2 = x[..., :h], x[..., h:]  # (B, H, T, D/2)
    out = empty_like(x)  # (B, H, T, D)
    out[..., :h] = x1 * c - x2 * s
    out[..., h:] = x1 * s + x2 * c
    return out, (c, s)


def rope_backward(dout: np.ndarray, cache):
    """A rotation is orthogonal, so the gradient is the inverse rotation R(θ)ᵀ·dout.

    Claims: rope_backward_transpose, rope_rotation_orthogonal.
    """
    c, s = cache
    h = dout.shape[-1] // 2
    d1, d2 = dout[..., :h], dout[..., h:]  # (B, H, T, D/2)
    dx = empty_like(dout)  # (B, H, T, D)
    dx[..., :h] = d1 * c + d2 * s
    dx[..., h:] = d2 * c - d1 * s
    return dx


# ----------------------------------------------------------------------------- attention
def causal_mask(t: int) -> np.ndarray:
    """(T, T) bool, True where key position ≤ query position."""
    return np.tri(t, dtype=bool)


def split_heads(x: np.ndarray, n_head: int) -> np.ndarray:
    """(B, T, C) → (B, H, T, D) as a view, no copy: each (T, D) slice has unit inner stride, so
    batched matmuls hand it to BLAS as is (measured no slower than a contiguous copy)."""
    b, t, c = x.shape
    return x.reshape(b, t, n_head, c // n_head).transpose(0, 2, 1, 3)


def heads_buffer(b: int, h: int, t: int, d: int, dtype) -> np.ndarray:
    """An empty (B, H, T, D) array laid out as (B, T, H, D): results written into it merge into
    (B, T, C) without a copy."""
    return empty((b, t, h, d), dtype).transpose(0, 2, 1, 3)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """(B, H, T, D) → contiguous (B, T, C); the adjoint (and inverse) of split_heads.  Free (a
    view) for arrays from :func:`heads_buffer`.  The backward of split_heads is this merge.

    Claims: split_heads_backward.
    """
    b, h, t, d = x.shape
    y = x.transpose(0, 2, 1, 3)  # (B, T, H, D)
    if not y.flags.c_contiguous:
        out = empty(y.shape, y.dtype)  # (B, T, H, D)
        np.copyto(out, y)
        y = out
    return y.reshape(b, t, h * d)


def attention_scores_forward(q: np.ndarray, k: np.ndarray):
    """scores = q kᵀ / √D — the 1/√D keeps Var(scores) ≈ 1 (scaled_dot_product_variance)."""
    check_float("attention_scores_forward", "q", q, ndim=4)
    check_same("attention_scores_forward", "k", k, q.shape, q.dtype)
    scale = 1.0 / np.sqrt(q.shape[-1])
    b, h, t, _ = q.shape
    scores = np.matmul(q, k.transpose(0, 1, 3, 2), out=empty((b, h, t, t), q.dtype))  # (B, H, T, T)
    scores *= scale
    return scores, (q, k, scale)


def attention_scores_backward(dscores: np.ndarray, cache):
    """linear_grad_input on both factors of S = QKᵀ/√D: dQ = dS·K/√D, dK = dSᵀ·Q/√D.

    Claims: attention_grad_query, attention_grad_key.
    """
    q, k, scale = cache
    b, h, t, d = q.shape
    check_same("attention_scores_backward", "dscores", dscores, (b, h, t, t), q.dtype)
    dq = np.matmul(dscores, k, out=heads_buffer(b, h, t, d, q.dtype))  # (B, H, T, D)
    dq *= scale
    dk = np.matmul(dscores.transpose(0, 1, 3, 2), q,
                   out=heads_buffer(b, h, t, d, q.dtype))  # (B, H, T, D)
    dk *= scale
    return dq, dk


def attention_values_forward(probs: np.ndarray, v: np.ndarray):
    """out = P·V: each query's output is a probability-weighted mean of the values."""
    check_float("attention_values_forward", "probs", probs, ndim=4)
    check_float("attention_values_forward", "v", v, ndim=4)
    if probs.shape[:3] + (probs.shape[2],) != probs.shape or v.shape[:3] != probs.shape[:3]:
        raise ValueError(
            f"attention_values_forward: v expected {probs.shape[:3]} + (D,), got {v.shape}"
        )
    out = np.matmul(probs, v, out=heads_buffer(*v.shape, v.dtype))  # (B, H, T, D)
    return out, (probs, v)


def attention_values_backward(dout: np.ndarray, cache):
    """linear_grad_input / linear_grad_weight for O = PV: dP = dO·Vᵀ, dV = Pᵀ·dO.

    Claims: attention_grad_probs, attention_grad_values.
    """
    probs, v = cache
    check_same("attention_values_backward", "dout", dout, v.shape, v.dtype)
    dprobs = np.matmul(dout, v.transpose(0, 1, 3, 2), out=empty(probs.shape, v.dtype))  # (B,H,T,T)
    dv = np.matmul(probs.transpose(0, 1, 3, 2), dout,
                   out=heads_buffer(*v.shape, v.dtype))  # (B, H, T, D)
    return dprobs, dv


# ----------------------------------------------------------------------------- residual
def residual_forward(x: np.ndarray, fx: np.ndarray):
    """y = x + F(x)."""
    check_float("residual_forward", "x", x)
    check_same("residual_forward", "fx", fx, x.shape, x.dtype)
    return np.add(x, fx, out=empty_like(x)), x.shape


def residual_backward(dout: np.ndarray, cache):
    """residual_jacobian: (I + ∂F/∂X)ᵀg = g + (∂F/∂X)ᵀg.

    Claims: residual_jacobian.

    Returns (dx_skip, dfx): the identity path's gradient g, and g for the branch F, whose own
    backward supplies the (∂F/∂X)ᵀ term that the caller adds to dx_skip.
    """
    return dout, dout
