"""LayerNorm, GELU, the identity MLP, positions and the embedding on the live model's tensors.

Every derived formula is lambdified from the derivation modules' exported SymPy objects.  Index
forms take their bases through :func:`one_based` (index k of the derivation = leading axis k), so
one call evaluates a formula for every row of a live tensor.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from derivations.library import embedding as em
from derivations.library import gelu as ge
from derivations.library import layernorm as ln
from derivations.library import positions as po
from numeric import finite_diff as fd
from numeric import ops
from numeric.crosscheck.core import (
    FD_RTOL,
    MODEL_RTOL,
    Kind,
    Record,
    compare,
    matrix_fn,
    one_based,
)
from numeric.crosscheck.live import Live, loss_grad_at, loss_grad_params

_NP = ["numpy", {"erf": np.vectorize(math.erf)}]


def _fn(expr, args):
    return sp.lambdify(tuple(args), expr, modules=_NP)


def _vector(fn, d: int, *bases) -> np.ndarray:
    """(..., d) values of an index-form result f(bases, j, d) for j = 1..d."""
    shape = bases[0].shape[1:]
    return np.stack([np.broadcast_to(fn(*bases, jj, d), shape) for jj in range(1, d + 1)], -1)


# ----------------------------------------------------------------------------- LayerNorm
def _stat(fn, stack: np.ndarray, d: int) -> np.ndarray:
    """A derived row statistic fn(x, d) for each row of a stack."""
    return np.array([fn(one_based(v[None]), d) for v in stack])[:, 0]


def _ln_parts(live: Live, site: str):
    """(x rows, model x̂ rows, γ, upstream dout rows, model's input gradient rows, param prefix)
    for the layer norm at ``site`` (``h.0.ln_1``, ``ln_f``)."""
    c = live.cache
    prefix = site
    if site.startswith("h."):
        layer, which = site.split(".")[1], site.split(".")[2]
        xhat = c["_blocks"][int(layer)]["_ops"][which][0]
    else:
        xhat = c["_ln_f"][0]
    d = xhat.shape[-1]
    return (c[f"{site}.in"].reshape(-1, d), xhat.reshape(-1, d), live.params[f"{prefix}.g"],
            c[f"{site}.dout"].reshape(-1, d), c[f"{site}.din"].reshape(-1, d), prefix)


def layernorm_records(live: Live) -> list[Record]:
    eps = live.cfg.ln_eps
    xhat_fn = _fn(ln.xhat(ln.j), (ln.x, ln.j, ln.d, ln.eps))
    var_fn = _fn(ln.VAR, (ln.x, ln.d))
    mu_fn, sig_fn = _fn(ln.MU, (ln.x, ln.d)), _fn(ln.SIGMA, (ln.x, ln.d, ln.eps))
    grad_fn = _fn(ln.GRAD_INPUT, (ln.x, ln.g, ln.j, ln.d, ln.eps))
    jac_fn = _fn(ln.XHAT_DERIVATIVE, (ln.x, ln.i, ln.j, ln.d, ln.eps))
    aff_fn = _fn(ln.GRAD_AFFINE[:2, 0], (ln.o, ln.xh, ln.j, ln.N))
    out: list[Record] = []
    for layer_i, site in enumerate(("h.0.ln_1", "h.1.ln_2", "ln_f")):
        x, xhat_m, gamma, dout, din, prefix = _ln_parts(live, site)
        n_rows, d = x.shape
        xp = one_based(x)
        xhat_d = _vector(lambda b, jj, dd: xhat_fn(b, jj, dd, eps), d, xp)
        dev = xhat_m / _vector(lambda b, jj, dd: 1 / sig_fn(b, dd, eps), d, xp)
        out_at, in_at = f"{site}.out", f"{site}.in"
        identity, by_fd = Kind.IDENTITY, Kind.FINITE_DIFFERENCE
        out.append(compare("layernorm_centered_sum", f"{site}.model_deviations",
                           "model_deviations", dev.sum(-1), np.zeros(n_rows) + float(
                               ln.layernorm_centered_sum.checked.rhs), MODEL_RTOL, kind=identity,
                           tensor=out_at, scale=float(np.abs(dev).sum(-1).max())))
        var = var_fn(xp, d)
        out.append(compare("layernorm_forward_moments", f"{site}.model_moments", "model_moments",
                           np.stack([xhat_m.mean(-1), (xhat_m**2).mean(-1)], -1),
                           np.stack([np.zeros(n_rows), var / (var + eps)], -1), MODEL_RTOL,
                           kind=identity, tensor=out_at, absolute=True))
        out.append(compare("layernorm_xhat_derivative", f"{site}.forward_vs_derived",
                           "forward_vs_derived", xhat_m, xhat_d, MODEL_RTOL, kind=identity,
                           tensor=out_at))
        # ∂μ/∂x_j and ∂σ_ε/∂x_j by FD of the derived statistics at the live rows
        row = x[0]
        dmu = fd.derivative(lambda s, d=d: _stat(mu_fn, s, d), row)
        claimed = float(ln.layernorm_mean_derivative.checked.rhs.subs(ln.d, d))
        out.append(compare("layernorm_mean_derivative", f"{site}.fd", "fd", dmu,
                           np.full(d, claimed), FD_RTOL, kind=by_fd, tensor=in_at))
        dsig = fd.derivative(lambda s, d=d: _stat(lambda b, dd: sig_fn(b, dd, eps), s, d), row)
        out.append(compare("layernorm_sigma_derivative", f"{site}.fd_vs_model_xhat",
                           "fd_vs_model_xhat", dsig, xhat_m[0] / d, FD_RTOL, kind=by_fd,
                           tensor=in_at))
        jac_model = fd.derivative(lambda s, d=d: ops.layernorm_forward(
            s, np.ones(d), np.zeros(d), eps)[0], row)  # (d, d): [j, i]
        jac_d = np.array([[float(jac_fn(one_based(row[None]), ii, jj, d, eps)[0])
                           for jj in range(1, d + 1)] for ii in range(1, d + 1)])
        out.append(compare("layernorm_xhat_derivative", f"{site}.fd_jacobian", "fd_jacobian",
                           jac_model.T, jac_d, FD_RTOL, kind=by_fd, tensor=in_at))
        gp = one_based(dout * gamma)  # ∂L/∂x̂ = dout ⊙ γ
        derived = _vector(lambda b, g_, jj, dd: grad_fn(b, g_, jj, dd, eps), d, xp, gp)
        out.append(compare("layernorm_grad_input", f"{site}.model", "model", din, derived,
                           MODEL_RTOL, kind=identity, tensor=in_at))
        entries, num = loss_grad_at(live, in_at, seed=layer_i)
        out.append(compare("layernorm_grad_input", f"{site}.fd", "fd", num,
                           derived.reshape(-1)[entries], FD_RTOL, kind=by_fd, tensor=in_at))
        op = np.pad(dout, ((1, 0), (1, 0)))  # o[r, j]: rows r = 1..N, features j = 1..d
        xhp = np.pad(xhat_d, ((1, 0), (1, 0)))
        aff = np.array([np.asarray(aff_fn(op, xhp, jj, n_rows), dtype=float).ravel()
                        for jj in range(1, d + 1)])
        model_aff = np.stack([live.grads[f"{prefix}.g"], live.grads[f"{prefix}.b"]], -1)
        out.append(compare("layernorm_grad_affine", f"{site}.model", "model", model_aff, aff,
                           MODEL_RTOL, kind=identity, tensor=f"{prefix}.g"))
        entries, num = loss_grad_params(live, f"{prefix}.g", d, seed=layer_i)
        out.append(compare("layernorm_grad_affine", f"{site}.fd_gamma", "fd_gamma", num,
                           aff[entries, 0], FD_RTOL, kind=by_fd, tensor=f"{prefix}.g"))
    return out


# ----------------------------------------------------------------------------- GELU
def gelu_records(live: Live) -> list[Record]:
    c = live.cache
    x, act = c["h.0.mlp.w_fc.out"], c["h.0.mlp.act"]
    fwd = _fn(ge.GELU_TANH, (ge.x,))
    deriv = _fn(ge.GELU_TANH_DERIVATIVE, (ge.x,))
    exact, exact_d = _fn(ge.GELU_EXACT, (ge.x,)), _fn(ge.gelu_exact_derivative.checked.rhs, (ge.x,))
    sig = _fn(ge.GELU_SIGMOID, (ge.x,))
    derived = c["h.0.mlp.dact"] * deriv(x)
    entries, num = loss_grad_at(live, "h.0.mlp.w_fc.out", seed=3)
    flat = x.reshape(-1)[:64]
    return [
        compare("gelu_tanh_sigmoid", "forward_vs_model", "forward_vs_model", act, fwd(x),
                MODEL_RTOL, kind=Kind.IDENTITY, tensor="h.0.mlp.act"),
        compare("gelu_tanh_sigmoid", "sigmoid_form_vs_model", "sigmoid_form_vs_model", act,
                sig(x), MODEL_RTOL, kind=Kind.IDENTITY, tensor="h.0.mlp.act"),
        compare("gelu_tanh_derivative", "model", "model", c["h.0.mlp.w_fc.dout"], derived,
                MODEL_RTOL, kind=Kind.IDENTITY, tensor="h.0.mlp.w_fc.out"),
        compare("gelu_tanh_derivative", "fd", "fd", num, derived.reshape(-1)[entries], FD_RTOL,
                kind=Kind.FINITE_DIFFERENCE, tensor="h.0.mlp.w_fc.out"),
        compare("gelu_exact_derivative", "fd_at_live_preactivations", "fd_at_live_preactivations",
                fd.derivative(lambda s: exact(s), flat).diagonal(), exact_d(flat), FD_RTOL,
                kind=Kind.FINITE_DIFFERENCE, tensor="h.0.mlp.w_fc.out"),
    ]


def identity_records(live: Live) -> list[Record]:
    """The identity-MLP live model: the gradient at the MLP input is W₁ᵀW₂ᵀG (row form:
    G·w_projᵀ·w_fcᵀ, with the model's w_fc = W₁ᵀ, w_proj = W₂ᵀ)."""
    c, p = live.cache, live.params
    w_fc, w_proj = p["h.0.mlp.w_fc"], p["h.0.mlp.w_proj"]
    g = c["h.0.mlp.w_proj.dout"].reshape(-1, w_fc.shape[0])  # (N, C)
    gn = sp.MatrixSymbol("G_rows", ge._M.d, g.shape[0])
    fn = matrix_fn(ge.IDENTITY_MLP_GRAD.xreplace({ge.G: gn}), (ge._M.W_1, ge._M.W_2, gn),
                   {ge._M.d: w_fc.shape[0], ge._M.h: w_fc.shape[1]})
    derived = fn(w_fc.T, w_proj.T, g.T).T.reshape(c["h.0.mlp.w_fc.din"].shape)
    entries, num = loss_grad_at(live, "h.0.mlp.w_fc.in", seed=4)
    return [compare("mlp_identity_grad_input", "model", "model", c["h.0.mlp.w_fc.din"], derived,
                    MODEL_RTOL, kind=Kind.IDENTITY, tensor="h.0.mlp.w_fc.in"),
            compare("mlp_identity_grad_input", "fd", "fd", num, derived.reshape(-1)[entries],
                    FD_RTOL, kind=Kind.FINITE_DIFFERENCE, tensor="h.0.mlp.w_fc.in")]


# ----------------------------------------------------------------------------- positions
def sinusoidal_records(live: Live) -> list[Record]:
    """The model's encoding is emb.out − wte[idx]; one fixed map per offset shifts it."""
    c = live.cache
    pe = (c["emb.out"] - live.params["wte"][live.idx])[0]  # (T, C)
    t_len, ch = pe.shape
    step = _fn(po.offset_map(po.k, po.i) * po.pe_pair(po.t, po.i), (po.t, po.k, po.i, po.h))
    got, want = [], []
    for k in range(1, t_len):
        for i in range(ch // 2):
            for t in range(t_len - k):
                want.append(pe[t + k, 2 * i: 2 * i + 2])
                got.append(np.asarray(step(t, k, i, ch // 2), dtype=float).ravel())
    return [compare("sinusoidal_relative_offset", "model_table", "model_table", np.array(got),
                    np.array(want), MODEL_RTOL, kind=Kind.IDENTITY, tensor="emb.out")]


def _pairs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h = x.shape[-1] // 2
    return x[..., :h], x[..., h:]


def rope_records(live: Live) -> list[Record]:
    """The RoPE live model: q, k before (w_q.out split into heads) and after the rotation."""
    c, cfg = live.cache, live.cfg
    d, h, t_len = cfg.head_dim, cfg.head_dim // 2, cfg.block_size
    q0 = ops.split_heads(c["h.0.attn.w_q.out"], cfg.n_head)  # (B, H, T, D) before the rotation
    k0 = ops.split_heads(c["h.0.attn.w_k.out"], cfg.n_head)
    q, k = c["h.0.attn.q"], c["h.0.attn.k"]  # after
    out: list[Record] = []
    norms = [_pairs(v)[0] ** 2 + _pairs(v)[1] ** 2 for v in (q0, q)]
    out.append(compare("rope_rotation_orthogonal", "pair_norms", "pair_norms", norms[1], norms[0],
                       MODEL_RTOL, kind=Kind.IDENTITY, tensor="h.0.attn.q"))
    pos = np.arange(t_len)  # (T,): broadcasts against (B, H, T)
    grad = _fn(po.ROPE_GRAD, (po.g1, po.g2, po.p, po.l, po.h))
    g1, g2 = _pairs(c["h.0.attn.dq"])
    derived = np.concatenate([np.stack([np.asarray(grad(np.moveaxis(g1, -1, 0),
                                                         np.moveaxis(g2, -1, 0), pos, ll, h),
                                                    dtype=float)[r].reshape(g1.shape[:-1])
                                        for ll in range(h)], -1) for r in range(2)], -1)
    model_g = ops.split_heads(c["h.0.attn.w_q.dout"], cfg.n_head)
    out.append(compare("rope_backward_transpose", "model", "model", model_g, derived, MODEL_RTOL,
                       kind=Kind.IDENTITY, tensor="h.0.attn.w_q.out"))
    entries, num = loss_grad_at(live, "h.0.attn.w_q.out", seed=5)
    out.append(compare("rope_backward_transpose", "fd", "fd", num,
                       ops.merge_heads(derived).reshape(-1)[entries], FD_RTOL,
                       kind=Kind.FINITE_DIFFERENCE, tensor="h.0.attn.w_q.out"))
    pair = _fn(po.PAIR_RELATIVE, (po.q1, po.q2, po.k1, po.k2, po.m, po.n, po.j, po.h))
    total = _fn(po.rope_relative_position.checked.rhs,
                (po.q1, po.q2, po.k1, po.k2, po.m, po.n, po.h))
    qa, qb = (np.moveaxis(a, -1, 0) for a in _pairs(q0))  # (h, B, H, T)
    ka, kb = (np.moveaxis(a, -1, 0) for a in _pairs(k0))
    mm, nn = np.arange(t_len)[:, None], np.arange(t_len)[None, :]
    rel = np.zeros(q.shape[:2] + (t_len, t_len))
    per_pair_model, per_pair_derived = [], []
    for jj in range(h):
        val = pair(qa[..., :, None], qb[..., :, None], ka[..., None, :], kb[..., None, :],
                   mm, nn, jj, h)  # IndexedBase j selects pair jj of the leading axis
        per_pair_derived.append(val)
        qa_r, qb_r = _pairs(q)[0][..., jj], _pairs(q)[1][..., jj]
        ka_r, kb_r = _pairs(k)[0][..., jj], _pairs(k)[1][..., jj]
        per_pair_model.append(qa_r[..., :, None] * ka_r[..., None, :]
                              + qb_r[..., :, None] * kb_r[..., None, :])
        rel = rel + val
    out.append(compare("rope_pair_relative", "per_pair_model", "per_pair_model",
                       np.array(per_pair_model), np.array(per_pair_derived), MODEL_RTOL,
                       kind=Kind.IDENTITY, tensor="h.0.attn.q"))
    summed = total(qa[..., :, None], qb[..., :, None], ka[..., None, :], kb[..., None, :], mm, nn,
                   h)
    out.append(compare("rope_relative_position", "model_scores", "model_scores",
                       c["h.0.attn.scores"], summed / math.sqrt(d), MODEL_RTOL,
                       kind=Kind.IDENTITY, tensor="h.0.attn.scores"))
    return out


# ----------------------------------------------------------------------------- embedding
def embedding_records(live: Live) -> list[Record]:
    c, cfg = live.cache, live.cfg
    wte, idx = live.params["wte"], live.idx.reshape(-1)
    vocab, ch = wte.shape
    lookup = _fn(em.embedding_lookup.checked.lhs, (em.w, em.i, em.c, em.V))
    rows = np.array([[lookup(np.pad(wte, ((1, 0), (1, 0))), int(tok) + 1, cc, vocab)
                      for cc in range(1, ch + 1)] for tok in idx])
    pe = ops.sinusoidal_encoding(cfg.block_size, ch) if cfg.pos == "sinusoidal" else 0.0
    out = [compare("embedding_lookup", "model", "model", (c["emb.out"] - pe).reshape(-1, ch),
                   rows, MODEL_RTOL, kind=Kind.IDENTITY, tensor="emb.out")]
    g = c["emb.dout"].reshape(-1, ch)  # (T·B, C)
    onehot = np.eye(vocab)[idx]  # (T·B, V)
    fn = matrix_fn(em.embedding_grad_one_hot.checked.rhs, (em.X, em.GM),
                   {em.T: idx.size, em.V: vocab, em.C: ch})
    derived = fn(onehot, g)
    if len(set(idx.tolist())) == idx.size:
        raise ValueError("embedding cross-check: the live tokens must repeat one token")
    out.append(compare("embedding_grad_one_hot", "model", "model", live.grads["wte"],
                       derived, MODEL_RTOL, kind=Kind.IDENTITY, tensor="wte"))
    entries, num = loss_grad_params(live, "wte", 12, seed=6)
    out.append(compare("embedding_grad_one_hot", "fd", "fd", num,
                       derived.reshape(-1)[entries], FD_RTOL, kind=Kind.FINITE_DIFFERENCE,
                       tensor="wte"))
    # three live positions, the first two holding the same token: the claim's (a, a, b)
    first = next(t for t in range(idx.size) if (idx[:t] == idx[t]).any())
    p1 = int(np.flatnonzero(idx[:first] == idx[first])[0])
    p3 = next(t for t in range(idx.size) if idx[t] != idx[first])
    toks = idx[[p1, first, p3]]
    scatter = _fn(em.SCATTER_ADD, (em.G, em.a, em.b, em.v, em.e))
    gp = np.pad(g[[p1, first, p3]], ((1, 0), (1, 0)))
    want = np.array([[scatter(gp, int(toks[0]) + 1, int(toks[2]) + 1, v, e)
                      for e in range(1, ch + 1)] for v in range(1, vocab + 1)])
    _, ec = ops.embedding_forward(toks[None], wte)
    got = ops.embedding_backward(g[[p1, first, p3]][None], ec)
    out.append(compare("embedding_grad_scatter_add", "op_on_live_rows", "op_on_live_rows", got,
                       want, MODEL_RTOL, kind=Kind.IDENTITY, tensor="emb.dout"))
    return out
