"""The causal mask, the multi-head plumbing and attention backward, cross-entropy with
ignore_index, AdamW against L2, clipping and the log-sum-exp Hessian on the live model's tensors.

Every derived formula is lambdified from the derivation modules' exported SymPy objects.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations.library import adamw as aw
from derivations.library import cross_entropy as ce
from derivations.library import hessian as he
from derivations.library import ignore_index as ig
from derivations.library import mask as mk
from derivations.library import multihead as mh
from derivations.library import softmax as sm
from numeric import finite_diff as fd
from numeric import ops
from numeric.adam import CLIP_GUARD, Adam, global_norm
from numeric.crosscheck.core import (
    FD_RTOL,
    MODEL_RTOL,
    Kind,
    Record,
    batched,
    compare,
    matrix_fn,
    one_based,
)
from numeric.crosscheck.live import Live, loss_grad_at

# A finite mask bias: e^−8 keeps the masked weights small but far above rounding, so the finite-M
# derivative −s_i s_j is a generic number the FD can be compared with.
MASK_BIAS = -8.0


def _fn(expr, args):
    return sp.lambdify(tuple(args), expr, modules="numpy")


# ----------------------------------------------------------------------------- causal mask
def mask_records(live: Live) -> list[Record]:
    c = live.cache
    mask = c["mask"]
    t_len = mask.shape[0]
    kept = _fn(mk.causal_mask_kept_softmax.checked.rhs, (sm.z, sm.i, sm.n))
    wd = _fn(mk.causal_mask_weight_derivative.checked.rhs, (sm.z, sm.i, sm.n, mk.p, mk.r, mk.M))
    out: list[Record] = []
    for layer in range(live.cfg.n_layer):
        pre, tag = f"h.{layer}.attn.", f"L{layer}"
        scores, probs, dscores = c[pre + "scores"], c[pre + "probs"], c[pre + "dscores"]
        out.append(compare("causal_mask_weight_zero", f"{tag}.model_probs", "model_probs",
                           probs[..., ~mask], np.zeros(probs[..., ~mask].shape) + float(
                               mk.causal_mask_weight_zero.checked.rhs), 0.0, kind=Kind.IDENTITY,
                           tensor=pre + "probs", absolute=True))
        want = np.zeros_like(probs)
        for q in range(t_len):  # query q keeps keys 1..q+1 (1-based): n = q + 1
            zq = one_based(scores[..., q, :q + 1])
            want[..., q, :q + 1] = np.stack([kept(zq, ii, q + 1) for ii in range(1, q + 2)], -1)
        out.append(compare("causal_mask_kept_softmax", f"{tag}.model_probs", "model_probs", probs,
                           want, MODEL_RTOL, kind=Kind.IDENTITY, tensor=pre + "probs"))
        out.append(compare("causal_mask_zero_gradient", f"{tag}.model_dscores", "model_dscores",
                           dscores[..., ~mask], np.zeros(dscores[..., ~mask].shape), 0.0,
                           kind=Kind.IDENTITY, tensor=pre + "dscores", absolute=True))
    entries, num = loss_grad_at(live, "h.0.attn.scores", entries=None, seed=7)
    masked_flat = np.broadcast_to(~mask, c["h.0.attn.scores"].shape).reshape(-1)[entries]
    out.append(compare("causal_mask_zero_gradient", "fd", "fd", num[masked_flat],
                       np.zeros(int(masked_flat.sum())), FD_RTOL, kind=Kind.FINITE_DIFFERENCE,
                       tensor="h.0.attn.scores", scale=float(np.abs(num).max())))
    # finite bias M on the masked keys of the last-but-one query: the open row n kept, p masked
    scores = c["h.0.attn.scores"][0, 0]
    q = t_len - 2
    row, n_keep, p_mask = scores[q], q + 1, t_len - q - 1
    bias = np.where(np.arange(t_len) < n_keep, 0.0, MASK_BIAS)

    def weights(stack):
        return ops.softmax_forward(stack + bias)[0]
    jac = fd.derivative(weights, row)  # (T, T): [j, i] = ∂s_i/∂z_j
    derived = [wd(one_based(row), ii, n_keep, p_mask, rr, MASK_BIAS)
               for ii in range(1, n_keep + 1) for rr in range(1, p_mask + 1)]
    got = [jac[n_keep + rr - 1, ii - 1] for ii in range(1, n_keep + 1)
           for rr in range(1, p_mask + 1)]
    out.append(compare("causal_mask_weight_derivative", "fd_finite_bias", "fd_finite_bias",
                       np.array(got), np.array(derived), FD_RTOL, kind=Kind.FINITE_DIFFERENCE,
                       tensor="h.0.attn.scores", values={"M": MASK_BIAS}))
    return out


# ----------------------------------------------------------------------------- multi-head
def multihead_records(live: Live) -> list[Record]:
    c, cfg = live.cache, live.cfg
    h, d, t_len = cfg.n_head, cfg.head_dim, cfg.block_size
    col = _fn(mh.split(mh.f, mh.u, mh.s).indices[1], (mh.f, mh.s, mh.D))
    dq = c["h.0.attn.dq"]  # (B, H, T, D), no rotation in the check model
    merged = np.zeros(c["h.0.attn.w_q.dout"].shape)
    for f_ in range(1, h + 1):
        for s_ in range(1, d + 1):
            merged[..., int(col(f_, s_, d)) - 1] = dq[:, f_ - 1, :, s_ - 1]
    out = [compare("split_heads_backward", "model", "model", c["h.0.attn.w_q.dout"], merged,
                   MODEL_RTOL, kind=Kind.IDENTITY, tensor="h.0.attn.w_q.out")]
    entries, num = loss_grad_at(live, "h.0.attn.w_q.out", seed=8)
    out.append(compare("split_heads_backward", "fd", "fd", num, merged.reshape(-1)[entries],
                       FD_RTOL, kind=Kind.FINITE_DIFFERENCE, tensor="h.0.attn.w_q.out"))
    sizes = {mh.n: t_len, mh.m: t_len, mh.d_k: d, mh.d_v: d}
    q, k, v, p = (c[f"h.0.attn.{x}"] for x in ("q", "k", "v", "probs"))
    d_o = ops.split_heads(c["h.0.attn.dy"], h)  # (B, H, T, D)
    ds = c["h.0.attn.dscores"]
    def grad(claim, inputs):  # the claim's right side, its definitions unfolded, on the sizes
        return matrix_fn(claim.checked.rhs, inputs, sizes)

    cases = [
        ("attention_grad_values", "v", grad(mh.attention_grad_values, (mh.P, mh.dO)), (p, d_o)),
        ("attention_grad_probs", "probs", grad(mh.attention_grad_probs, (mh.dO, mh.Vm)), (d_o, v)),
        ("attention_grad_query", "q", grad(mh.attention_grad_query, (mh.dS, mh.K)), (ds, k)),
        ("attention_grad_key", "k", grad(mh.attention_grad_key, (mh.dS, mh.Q)), (ds, q)),
    ]
    for seed, (claim, name, fn, args) in enumerate(cases, start=9):
        derived = batched(fn, *args)
        at = f"h.0.attn.{name}"
        out.append(compare(claim, "model", "model", c[f"h.0.attn.d{name}"], derived, MODEL_RTOL,
                           kind=Kind.IDENTITY, tensor=at))
        entries, num = loss_grad_at(live, at, seed=seed)
        out.append(compare(claim, "fd", "fd", num, derived.reshape(-1)[entries], FD_RTOL,
                           kind=Kind.FINITE_DIFFERENCE, tensor=at))
    return out


# ----------------------------------------------------------------------------- ignore_index
def ignore_index_records(live: Live) -> list[Record]:
    """A live model whose batch has ignored targets (``ignore_index`` set)."""
    c, cfg = live.cache, live.cfg
    logits = c["logits"].reshape(-1, cfg.vocab_size)  # (N, V)
    targets = live.targets.reshape(-1)
    valid = targets != cfg.ignore_index
    if valid.all() or not valid.any():
        raise ValueError("ignore_index cross-check: expected some ignored and some counted "
                         f"targets, got {int(valid.sum())} of {valid.size} counted")
    rows, vocab = logits.shape
    onehot = np.eye(vocab)[np.where(valid, targets, 0)]
    fn = _fn(ig.GRADIENT.doit(), (ig.Z, ce.u, ig.wt, ig.a, ig.j, ig.n, ig.B))
    derived = fn(np.pad(logits, ((1, 0), (1, 0))), np.pad(onehot, ((1, 0), (1, 0))),
                 np.pad(valid.astype(float), (1, 0)), np.arange(1, rows + 1)[:, None],
                 np.arange(1, vocab + 1)[None, :], vocab, rows)
    dlogits = c["dlogits"].reshape(rows, vocab)
    entries, num = loss_grad_at(live, "logits", entries=None, seed=13)
    return [compare("cross_entropy_ignore_index", "model", "model", dlogits, derived, MODEL_RTOL,
                    kind=Kind.IDENTITY, tensor="dlogits"),
            compare("cross_entropy_ignore_index", "fd", "fd", num, derived.reshape(-1)[entries],
                    FD_RTOL, kind=Kind.FINITE_DIFFERENCE, tensor="logits")]


# ----------------------------------------------------------------------------- AdamW, clipping
def adamw_records(live: Live, lr: float = 1e-2, decay: float = 0.1, eps: float = 1e-3,
                  clip: float = 0.05) -> list[Record]:
    """One optimiser step from the live parameters and gradients."""
    name = "h.0.attn.w_q"  # a weight matrix: decayed under the default parameter groups
    theta, grad = live.params[name], live.grads[name]
    sgd_l2 = _fn(aw.SGD_L2, (aw.theta, aw.g_, aw.eta, aw.lam))
    sgd_dec = _fn(aw.SGD_DECOUPLED, (aw.theta, aw.g_, aw.eta, aw.lam))
    out = [compare("sgd_weight_decay_equivalence", "live_weights", "live_weights",
                   sgd_l2(theta, grad, lr, decay), sgd_dec(theta, grad, lr, decay), MODEL_RTOL,
                   kind=Kind.IDENTITY, tensor=name)]
    # Adam's first step on the entries with g > 0 and θ > 0 (the claim's domain)
    sel = (grad > 0) & (theta > 0)
    th, g = theta[sel][None], grad[sel][None]  # (1, K): 2-D, so the matrix rule decays it
    runs = []
    for l2 in (True, False):
        opt = Adam(lr=lr, eps=eps, weight_decay=0.0 if l2 else decay)
        p = {"w": th.copy()}
        opt.step(p, {"w": g + decay * th if l2 else g.copy()})
        runs.append(p["w"])
    gap = _fn(aw.ADAM_GAP, (aw.thp, aw.gp, aw.lam, aw.eta, aw.eps))
    out.append(compare("adamw_decoupled_vs_l2", "optimiser_first_step", "optimiser_first_step",
                       runs[0] - runs[1], gap(th, g, decay, lr, eps), MODEL_RTOL,
                       kind=Kind.IDENTITY, tensor=name))
    grads = {k: val.copy() for k, val in live.grads.items()}
    flat = np.concatenate([val.ravel() for val in grads.values()])
    opt = Adam(lr=lr, clip_norm=clip)
    opt.step({k: val.copy() for k, val in live.params.items()}, grads)
    coef = _fn(aw.CLIP_COEF.xreplace({aw.guard: CLIP_GUARD}), (aw.gv, aw.tau, aw.P))
    norm_after = _fn(aw.clip_norm_after.checked.rhs.xreplace({aw.guard: CLIP_GUARD}),
                     (aw.gv, aw.tau, aw.P))
    direction = _fn(aw.clip_preserves_direction.checked.rhs, (aw.gv, aw.a, aw.P))
    scaled = _fn(aw.clip_scaled_norm.checked.rhs, (aw.gv, aw.c, aw.P))
    gp = np.pad(flat, (1, 0))
    c_model = opt.last_clip_coef
    clipped = c_model * flat
    out += [
        compare("clip_norm_after", "optimiser_coefficient", "optimiser_coefficient", c_model,
                coef(gp, clip, flat.size), MODEL_RTOL, kind=Kind.IDENTITY),
        compare("clip_norm_after", "clipped_norm", "clipped_norm", global_norm({"all": clipped}),
                norm_after(gp, clip, flat.size), MODEL_RTOL, kind=Kind.IDENTITY),
        compare("clip_scaled_norm", "clipped_norm", "clipped_norm", global_norm({"all": clipped}),
                scaled(gp, c_model, flat.size), MODEL_RTOL, kind=Kind.IDENTITY),
        compare("clip_preserves_direction", "direction", "direction",
                clipped / np.linalg.norm(clipped),
                # every entry index at once: the claim's g_a indexed by an array
                direction(gp, np.arange(1, flat.size + 1), flat.size),
                MODEL_RTOL, kind=Kind.IDENTITY),
    ]
    return out


# ----------------------------------------------------------------------------- Hessian
def hessian_records(live: Live) -> list[Record]:
    """Log-sum-exp of the live logits: the model's probabilities are its gradient, the FD
    Jacobian of the model's softmax its Hessian."""
    c = live.cache
    logits = c["logits"].reshape(-1, live.cfg.vocab_size)[:4]  # (4, V)
    vocab = logits.shape[1]
    zp = one_based(logits)
    grad = _fn(he.GRAD, (he.z, he.i, he.n))
    soft = _fn(he.lse_gradient_softmax.checked.rhs, (he.z, he.i, he.n))
    hess = _fn(he.lse_hessian.checked.rhs, (he.z, he.i, he.j, he.n))
    quad = _fn(he.lse_hessian_psd.checked.rhs, (he.z, he.x, he.n))
    probs = ops.softmax_forward(logits)[0]

    def vec(fn):
        return np.stack([np.broadcast_to(fn(zp, ii, vocab), (logits.shape[0],))
                         for ii in range(1, vocab + 1)], -1)
    lse = fd.derivative(lambda s: np.log(np.exp(s).sum(-1)), logits)  # (N·V, N)
    lse_fd = np.stack([lse.reshape(*logits.shape, -1)[r, :, r] for r in range(len(logits))])
    jac = np.stack([fd.derivative(lambda s: ops.softmax_forward(s)[0], row).T for row in logits])
    derived_h = np.stack([[np.broadcast_to(hess(zp, ii, jj, vocab), (len(logits),))
                           for jj in range(1, vocab + 1)] for ii in range(1, vocab + 1)])
    derived_h = np.moveaxis(derived_h, -1, 0)  # (N, V, V)
    xs = c["dlogits"].reshape(-1, vocab)[:4]
    return [
        compare("lse_gradient", "fd", "fd", lse_fd, vec(grad), FD_RTOL,
                kind=Kind.FINITE_DIFFERENCE, tensor="logits"),
        compare("lse_gradient_softmax", "model_probs", "model_probs", probs, vec(soft),
                MODEL_RTOL, kind=Kind.IDENTITY, tensor="logits"),
        compare("lse_hessian", "fd_of_model_softmax", "fd_of_model_softmax", jac, derived_h,
                FD_RTOL, kind=Kind.FINITE_DIFFERENCE, tensor="logits"),
        compare("lse_hessian_psd", "quadratic_form", "quadratic_form",
                np.einsum("ni,nij,nj->n", xs, jac, xs),
                quad(zp, one_based(xs), vocab), FD_RTOL, scale=float(np.einsum(
                    "ni,nij,nj->n", xs, np.abs(jac), np.abs(xs)).max()),
                kind=Kind.FINITE_DIFFERENCE, tensor="logits"),
    ]
