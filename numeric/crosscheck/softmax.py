"""Softmax, attention and cross-entropy results evaluated on the live model's tensors.

Attention rows come from both layers of the check model: scores (B, H, T, T), probabilities s,
upstream gradients g = dprobs and the model's softmax backward dscores.  Masked keys enter the
index-form formulas as logits −∞, whose exponential is exactly 0, so a row of the causal mask is a
softmax over its visible keys, as in the model.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations.library import attention as att
from derivations.library import cross_entropy as ce
from derivations.library import heads_shapes as hs_claim
from derivations.library import softmax as sm
from numeric import finite_diff as fd
from numeric import ops
from numeric.crosscheck.core import (
    FD_RTOL,
    MODEL_RTOL,
    Kind,
    Record,
    batched,
    compare,
    indexed_fn,
    matrix_fn,
    one_based,
)
from numeric.crosscheck.live import Live

# Logits moved this far from 0: exp of the unshifted logits overflows float64 (e^1000 = inf),
# so only a shifted log-sum-exp can match the model's loss there.
LSE_SHIFT = 1000.0


def _rows(live: Live, layer: int):
    c, pre = live.cache, f"h.{layer}.attn."
    z = np.where(c["mask"], c[pre + "scores"], -np.inf)  # (B, H, T, T) masked logits
    return z, c[pre + "probs"], c[pre + "dprobs"], c[pre + "dscores"], c[pre + "scores"]


def _fd_jacobian(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """FD[..., i, j] = ∂s_i/∂z_j of the model's softmax_forward, every row at once: the j-th
    stencil shifts logit j of every row together (rows are independent)."""
    n = scores.shape[-1]

    def f(shift):  # (K, n) shifts → (K, *scores.shape) probabilities
        return ops.softmax_forward(scores[None] + shift.reshape(-1, *[1] * (scores.ndim - 1), n),
                                   mask)[0]
    cols = fd.derivative(f, np.zeros(n))  # (n, *scores.shape): cols[j] = ∂s/∂z_j
    return np.moveaxis(cols, 0, -1)


def _index_matrix(fn, n: int, *bases) -> np.ndarray:
    """Evaluate an (i, j) index-form result for i, j = 1..n over the batched bases."""
    return np.stack([np.stack([np.broadcast_to(fn(*bases, i, j, n), bases[0].shape[1:])
                               for j in range(1, n + 1)], -1) for i in range(1, n + 1)], -2)


def _index_vector(fn, n: int, *bases) -> np.ndarray:
    return np.stack([np.broadcast_to(fn(*bases, i, n), bases[0].shape[1:])
                     for i in range(1, n + 1)], -1)


def softmax_records(live: Live) -> list[Record]:
    n = live.cfg.block_size
    svec = sp.symbols(f"s1:{n + 1}")
    jac_s = sp.lambdify(svec, list(sm.jacobian(svec)), modules="numpy")
    jac_z = indexed_fn(sm.JACOBIAN, (sm.z, sm.i, sm.j, sm.n))
    sym_z = indexed_fn(sm.softmax_jacobian_symmetric.checked.rhs, (sm.z, sm.i, sm.j, sm.n))
    jvp = indexed_fn(sm.JACOBIAN_VECTOR_PRODUCT, (sm.z, sm.x, sm.i, sm.n))
    quad = indexed_fn(sm.QUADRATIC_FORM, (sm.z, sm.x, sm.n))
    shifted = indexed_fn(sm.softmax(sm.i, shift=sm.c), (sm.z, sm.c, sm.i, sm.n))
    temp = indexed_fn(sm.TEMPERATURE_JACOBIAN, (sm.z, sm.T, sm.i, sm.j, sm.n))
    row_bw = indexed_fn(att.SOFTMAX_BACKWARD_ROW, (att.z, att.a, att.j_key, att.N))
    mat_bw = matrix_fn(att.SOFTMAX_BACKWARD, (att.A_, att.dA), {att.n: n, att.m: n})
    out: list[Record] = []
    mask = live.cache["mask"]
    t_val = np.sqrt(live.cfg.head_dim)
    for layer in range(live.cfg.n_layer):
        z, s, g, ds, scores = _rows(live, layer)
        zp, gp = one_based(z), one_based(g)
        tag, at = f"L{layer}", f"h.{layer}.attn."
        fd = _fd_jacobian(scores, mask)
        j_s = np.stack([np.broadcast_to(e, s.shape[:-1]) for e in jac_s(*np.moveaxis(s, -1, 0))],
                       -1).reshape(*s.shape, n)
        identity, by_fd = Kind.IDENTITY, Kind.FINITE_DIFFERENCE
        out.append(compare("softmax_jacobian", f"{tag}.jvp_vs_model", "jvp_vs_model", ds,
                           np.einsum("...ij,...i->...j", j_s, g), MODEL_RTOL, kind=identity,
                           tensor=at + "dscores"))
        out.append(compare("softmax_jacobian", f"{tag}.index_form_vs_fd", "index_form_vs_fd", fd,
                           _index_matrix(jac_z, n, zp), FD_RTOL, kind=by_fd,
                           tensor=at + "scores"))
        out.append(compare("softmax_jacobian_symmetric", f"{tag}.transposed_vs_fd",
                           "transposed_vs_fd", fd, _index_matrix(sym_z, n, zp), FD_RTOL,
                           kind=by_fd, tensor=at + "scores"))
        ones_bw = ops.softmax_backward(np.ones_like(s), s)
        out.append(compare("softmax_jacobian_rows_sum_zero", f"{tag}.model_backward_of_ones",
                           "model_backward_of_ones", ones_bw, np.zeros_like(s) + float(
                               sm.softmax_jacobian_rows_sum_zero.checked.rhs), MODEL_RTOL,
                           kind=identity, tensor=at + "probs", scale=float(s.max())))
        out.append(compare("softmax_jacobian_vector_product", f"{tag}.model_backward",
                           "model_backward", ds, _index_vector(jvp, n, zp, gp), MODEL_RTOL,
                           kind=identity, tensor=at + "dscores"))
        out.append(compare("softmax_jacobian_psd", f"{tag}.quadratic_form", "quadratic_form",
                           np.einsum("...i,...i->...", g, ds),
                           np.broadcast_to(quad(zp, gp, n), g.shape[:-1]), MODEL_RTOL,
                           kind=identity, tensor=at + "dscores"))
        shift = -np.max(scores, axis=-1)  # the model subtracts the row max; c is any constant
        for c_name, c, compared, values in (("row_max", shift, "shift_row_max", {}),
                                            ("c=50", np.full_like(shift, 50.0), "shift_constant",
                                             {"c": 50.0})):
            out.append(compare("softmax_shift_invariance", f"{tag}.shift_{c_name}", compared,
                               s, _index_vector(lambda *a, c=c: shifted(a[0], c, *a[1:]), n, zp),
                               MODEL_RTOL, kind=identity, tensor=at + "probs", values=values))
        # The 1/√D scale is a temperature: d loss/d(qkᵀ) = Σ_i g_i ∂s_i/∂z_j with z = qkᵀ, T = √D.
        tj = _index_matrix(lambda zz, i, j, nn: temp(zz, t_val, i, j, nn), n, one_based(z * t_val))
        out.append(compare("softmax_temperature", f"{tag}.raw_logit_grad", "raw_logit_grad",
                           ds / t_val, np.einsum("...ij,...i->...j", tj, g), MODEL_RTOL,
                           kind=identity, tensor=at + "dscores"))
        row = _index_vector(lambda zz, aa, jj, nn: row_bw(zz, aa, jj, nn), n, zp, gp)
        out.append(compare("attention_softmax_backward", f"{tag}.row_form_vs_model",
                           "row_form_vs_model", ds, row, MODEL_RTOL, kind=identity,
                           tensor=at + "dscores"))
        out.append(compare("attention_softmax_backward", f"{tag}.matrix_form_vs_model",
                           "matrix_form_vs_model", ds, batched(mat_bw, s, g), MODEL_RTOL,
                           kind=identity, tensor=at + "dscores"))
        out.append(compare("attention_softmax_backward", f"{tag}.row_form_vs_fd",
                           "row_form_vs_fd", np.einsum("...ij,...i->...j", fd, g), row, FD_RTOL,
                           kind=by_fd, tensor=at + "scores"))
    return out


def attention_records(live: Live) -> list[Record]:
    """The attention formula, the bracket and the head concatenation on live q, k, v."""
    cfg, c = live.cfg, live.cache
    t, d = cfg.block_size, cfg.head_dim
    sizes = {att.n: t, att.m: t, att.d_k: d, att.d_v: d}
    scores_v = matrix_fn(att.SCORES * att.V, (att.Q, att.K, att.V), sizes)
    misplaced = matrix_fn(att.MISPLACED_ARGUMENT, (att.Q, att.K, att.V), sizes)
    # one query row (n = 1): the expanded formula grows with n·m·d_k and one row is what the
    # causal model computes without a mask
    attention = matrix_fn(att.ATTENTION, (att.Q, att.K, att.V), {**sizes, att.n: 1},
                          explicit=True)
    heads = [sp.MatrixSymbol(f"H{e}", att.n, att.d_v) for e in range(cfg.n_head)]
    w_o_blocks = [sp.MatrixSymbol(f"W_O{e}", att.d_v, cfg.n_head * att.d_k)
                  for e in range(cfg.n_head)]
    multi = matrix_fn(hs_claim.per_head_sum(heads, w_o_blocks), (*heads, *w_o_blocks),
                      {**sizes, att.d_k: d})
    out: list[Record] = []
    for layer in range(cfg.n_layer):
        pre, tag = f"h.{layer}.", f"L{layer}"
        q, k, v = (c[pre + f"attn.{x}"] for x in "qkv")
        model_sv = c[pre + "attn.scores"] @ v  # the model's unmasked scaled scores times V
        out.append(compare("misplaced_bracket", f"{tag}.lhs_vs_model_scores_v",
                           "lhs_vs_model_scores_v", model_sv, batched(misplaced, q, k, v),
                           MODEL_RTOL, kind=Kind.IDENTITY, tensor=pre + "attn.scores"))
        out.append(compare("misplaced_bracket", f"{tag}.rhs_vs_model_scores_v",
                           "rhs_vs_model_scores_v", model_sv, batched(scores_v, q, k, v),
                           MODEL_RTOL, kind=Kind.IDENTITY, tensor=pre + "attn.scores"))
        # The last query sees every key, so its causal row is the unmasked formula's last row.
        derived = batched(attention, q[..., -1:, :], k, v)[..., 0, :]
        model_last = c[pre + "attn.y"][:, -1, :].reshape(q.shape[0], cfg.n_head, d)
        out.append(compare("attention_shapes", f"{tag}.last_query_vs_model",
                           "last_query_vs_model", model_last, derived, MODEL_RTOL,
                           kind=Kind.IDENTITY, tensor=pre + "attn.y"))
        probs = c[pre + "attn.probs"]  # (B, H, T, T), causal: each row over its visible keys
        row_sum = float(att.attention_weights_sum_to_one.checked.rhs)
        out.append(compare("attention_weights_sum_to_one", f"{tag}.row_sums_vs_claim",
                           "row_sums_vs_claim", probs.sum(axis=-1),
                           np.full(probs.shape[:-1], row_sum),
                           MODEL_RTOL, kind=Kind.IDENTITY, tensor=pre + "attn.probs"))
        w_o = live.params[pre + "attn.w_o"]
        merged = c[pre + "attn.y"]
        proj = c[pre + "attn.w_o.out"] - live.params[pre + "attn.b_o"]
        hs = [merged[..., e * d:(e + 1) * d] for e in range(cfg.n_head)]
        blocks = [w_o[e * d:(e + 1) * d] for e in range(cfg.n_head)]
        derived = np.stack([multi(*(h[b] for h in hs), *blocks) for b in range(q.shape[0])])
        out.append(compare("multihead_shapes", f"{tag}.projection_vs_model",
                           "projection_vs_model", proj, derived, MODEL_RTOL, kind=Kind.IDENTITY,
                           tensor=pre + "attn.w_o.out"))
    return out


def cross_entropy_records(live: Live, fd_logits: np.ndarray) -> list[Record]:
    """``fd_logits``: FD gradient of the model's mean loss by its logits, shape of the logits."""
    c = live.cache
    logits = c["logits"].reshape(-1, live.cfg.vocab_size)  # (N, V)
    targets = live.targets.reshape(-1)
    rows, v = logits.shape
    onehot = np.eye(v)[targets]
    batch_fn = indexed_fn(ce.BATCH_GRADIENT.doit(), (ce.Z, ce.u, ce.a, ce.j, ce.n, ce.B))
    derived = batch_fn(np.pad(logits, ((1, 0), (1, 0))), np.pad(onehot, ((1, 0), (1, 0))),
                       np.arange(1, rows + 1)[:, None], np.arange(1, v + 1)[None, :], v, rows)
    dlogits = c["dlogits"].reshape(rows, v)
    fd = fd_logits.reshape(rows, v)
    out = [compare("cross_entropy_batch_mean", "model_backward", "model_backward", dlogits,
                   derived, MODEL_RTOL, kind=Kind.IDENTITY, tensor="dlogits"),
           compare("cross_entropy_batch_mean", "fd", "fd", fd, derived, FD_RTOL,
                   kind=Kind.FINITE_DIFFERENCE, tensor="logits")]
    grad_fn = indexed_fn(ce.GRADIENT, (ce.z, ce.j, ce.k, ce.n))
    lsm_fn = indexed_fn(ce.LOG_SOFTMAX_LOSS, (ce.z, ce.k, ce.n))
    loss_fn = indexed_fn(ce.LOSS, (ce.z, ce.k, ce.n))
    per_row = np.array([[grad_fn(np.pad(zr, (1, 0)), jj, int(k) + 1, v) for jj in range(1, v + 1)]
                        for zr, k in zip(logits, targets, strict=True)])
    out.append(compare("cross_entropy_gradient", "per_example_fd", "per_example_fd", fd * rows,
                       per_row, FD_RTOL, kind=Kind.FINITE_DIFFERENCE, tensor="logits"))
    for fn, name in ((lsm_fn, "log_softmax_form"), (loss_fn, "minus_log_p")):
        losses = [fn(np.pad(zr, (1, 0)), int(k) + 1, v) for zr, k in zip(logits, targets,
                                                                           strict=True)]
        out.append(compare("cross_entropy_log_softmax", name, name, c["loss"], np.mean(losses),
                           MODEL_RTOL, kind=Kind.IDENTITY, tensor="logits"))
    lse = indexed_fn(sm.LOG_SUM_EXP, (sm.z, sm.c, sm.n))
    far = logits + LSE_SHIFT
    zp = one_based(far)
    derived_loss = np.mean(lse(zp, far.max(axis=-1), v) - far[np.arange(rows), targets])
    model_loss = ops.cross_entropy_forward(far, targets)[0]
    out.append(compare("log_sum_exp", "shifted_vs_model_stable_loss",
                       "shifted_vs_model_stable_loss", model_loss, derived_loss, MODEL_RTOL,
                       kind=Kind.IDENTITY, tensor="logits", values={"shift": LSE_SHIFT}))
    return out
