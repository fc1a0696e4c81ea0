"""Linear layers, the residual Jacobian, the linear-MLP collapse and Adam on live tensors.

The model stores weights (C_in, C_out) and multiplies row vectors (out = x @ w + b); the linear
derivation uses the same convention (Y = XW + 1bᵀ), the attention module's MLP and residual use
column vectors (W₁ is h×d), so its W₁ is the model's w_fcᵀ.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations.library import adam as ad
from derivations.library import linear as lin
from derivations.library import residual as res
from numeric import finite_diff as fd
from numeric import model, ops
from numeric.adam import Adam
from numeric.crosscheck.core import (
    FD_RTOL,
    MODEL_RTOL,
    Kind,
    Record,
    compare,
    indexed_fn,
    matrix_fn,
)
from numeric.crosscheck.live import Live, check_config, loss_grad_at, loss_grad_params
from numeric.crosscheck.live import run as run_live

LINEARS = ("attn.w_q", "attn.w_k", "attn.w_v", "attn.w_o", "mlp.w_fc", "mlp.w_proj")
# Weight entries differentiated numerically per weight (each costs two forward passes).
FD_WEIGHT_ENTRIES = 6
ADAM_STEPS = 6
# A large ε makes the gap between ε outside and inside the root visible in float64.
ADAM_EPS = 1e-3


def linear_records(live: Live) -> list[Record]:
    out: list[Record] = []
    for layer in range(live.cfg.n_layer):
        for leaf in LINEARS:
            name = f"h.{layer}.{leaf}"
            c_in = live.params[name].shape[0]
            x = live.cache[f"{name}.in"].reshape(-1, c_in)  # (N, C_in)
            g = live.cache[f"{name}.dout"].reshape(-1, live.params[name].shape[1])  # (N, C_out)
            dx_model = live.cache[f"{name}.din"]  # (..., C_in)
            w, bname = live.params[name], name.replace(".w_", ".b_")
            sizes = {lin.n: x.shape[0], lin.d: w.shape[0], lin.m: w.shape[1]}
            grad_w = matrix_fn(lin.GRAD_W, (lin.X, lin.G), sizes)(x, g)
            grad_x = matrix_fn(lin.GRAD_X, (lin.G, lin.W), sizes)(g, w)
            grad_b = matrix_fn(lin.GRAD_B, (lin.G,), sizes)(g)[:, 0]
            out.append(compare("linear_grad_weight", f"{name}.model", "model", live.grads[name],
                               grad_w, MODEL_RTOL, kind=Kind.IDENTITY, tensor=name))
            entries, num = loss_grad_params(live, name, FD_WEIGHT_ENTRIES, seed=layer)
            out.append(compare("linear_grad_weight", f"{name}.fd", "fd", num,
                               grad_w.reshape(-1)[entries], FD_RTOL,
                               kind=Kind.FINITE_DIFFERENCE, tensor=name))
            # A sum's rounding scales with the sum of magnitudes; the key bias's gradient is a
            # sum that cancels to ~0 exactly (softmax ignores a shift of a whole score row).
            out.append(compare("linear_grad_bias", f"{bname}.model", "model", live.grads[bname],
                               grad_b, MODEL_RTOL, kind=Kind.IDENTITY, tensor=bname,
                               scale=float(np.abs(g).sum(axis=0).max())))
            out.append(compare("linear_grad_input", f"{name}.model", "model",
                               dx_model.reshape(grad_x.shape), grad_x, MODEL_RTOL,
                               kind=Kind.IDENTITY, tensor=f"{name}.in", values={"layer": name}))
            entries, num = loss_grad_at(live, f"{name}.in", seed=layer)
            out.append(compare("linear_grad_input", f"{name}.fd", "fd", num,
                               grad_x.reshape(-1)[entries], FD_RTOL, kind=Kind.FINITE_DIFFERENCE,
                               tensor=f"{name}.in", values={"layer": name}))
        out.extend(_qkv(live, layer))
    out.extend(_upstream(live))
    return out


def _upstream(live: Live) -> list[Record]:
    """G = ∂L/∂Y at each linear output of the first block: the model's upstream gradient (what its
    backward hands the layer) against central differences of the loss by that output."""
    out = []
    for leaf in LINEARS:
        name = f"h.0.{leaf}"
        g = live.cache[f"{name}.dout"]  # (B, T, C_out): the G the layer's backward receives
        entries, num = loss_grad_at(live, f"{name}.out", seed=len(out))
        out.append(compare("linear_upstream_gradient", f"{name}.fd", "fd", num,
                           g.reshape(-1)[entries], FD_RTOL, kind=Kind.FINITE_DIFFERENCE,
                           tensor=f"{name}.out"))
    return out


def _qkv(live: Live, layer: int) -> list[Record]:
    pre, c = f"h.{layer}.", live.cache
    ws = [live.params[pre + f"attn.w_{n}"] for n in "qkv"]
    gs = [c[pre + f"attn.w_{n}.dout"].reshape(-1, w.shape[1]) for n, w in zip("qkv", ws,
                                                                              strict=True)]
    sizes = {lin.n: gs[0].shape[0], lin.d: ws[0].shape[0], lin.m: ws[0].shape[1]}
    fn = matrix_fn(lin.QKV_GRAD_X, (lin.G_Q, lin.W_Q, lin.G_K, lin.W_K, lin.G_V, lin.W_V), sizes)
    derived = fn(gs[0], ws[0], gs[1], ws[1], gs[2], ws[2])
    model_g = c[pre + "ln_1.dout"].reshape(derived.shape)
    entries, num = loss_grad_at(live, pre + "ln_1.out", seed=layer)
    at = pre + "ln_1.out"
    return [compare("qkv_accumulation", f"h.{layer}.model", "model", model_g, derived, MODEL_RTOL,
                    kind=Kind.IDENTITY, tensor=at),
            compare("qkv_accumulation", f"h.{layer}.fd", "fd", num, derived.reshape(-1)[entries],
                    FD_RTOL, kind=Kind.FINITE_DIFFERENCE, tensor=at)]


# ----------------------------------------------------------------------------- residual
def _block_jacobians(params, cfg, x, branch_of=None):
    """(model's Jacobian of block 0 from its backward, FD Jacobian), both (T·C, T·C) for one
    sequence x (1, T, C).  ``branch_of``: "ln_1"/"ln_2" takes the model's Jacobian instead from
    the gradient recorded at that layer norm's input (``h.0.ln_1.din``): the branch's own
    (∂F/∂X)ᵀg, no skip's identity in it.  LN₂ reads x through h.0.mid = x + attention, so its
    gradient reaches x through the model's residual op, as in the block's own backward."""
    size = x.size
    xt = np.repeat(x, size, axis=0)  # (T·C, T, C): one copy per one-hot upstream gradient
    _, cache = model.block_forward(params, cfg, 0, xt)
    dy = np.eye(size).reshape(xt.shape)  # (T·C, T, C)
    dx, _ = model.block_backward(dy, cache)  # (T·C, T, C)
    if branch_of == "ln_1":
        dx = cache["h.0.ln_1.din"]  # (T·C, T, C)
    elif branch_of == "ln_2":
        # the residual op's cache is the shape of its skip input, h.0.in
        dx = ops.residual_backward(cache["h.0.ln_2.din"], cache["h.0.in"].shape)[0]
    jac_model = dx.reshape(size, size)  # row r = (∂y/∂x)ᵀ e_r, i.e. J[r, :]

    def f(stack):
        y, _ = model.block_forward(params, cfg, 0, stack.reshape(-1, *x.shape[1:]))
        return y.reshape(stack.shape[0], -1)
    return jac_model, fd.jacobian(f, x[0])


def residual_records(live: Live) -> list[Record]:
    cfg, x = live.cfg, live.cache["h.0.in"][:1]  # (1, T, C)
    size = x.size
    j_sym = sp.MatrixSymbol("J_F", res.d, res.d)
    derived = matrix_fn(res.RESIDUAL_JACOBIAN.xreplace({res.JACOBIAN_F: j_sym}),
                        (j_sym,), {res.d: size})
    jac_model, jac_fd = _block_jacobians(live.params, cfg, x)
    out = [compare("residual_jacobian", "block0.model_vs_fd", "model_vs_fd", jac_model, jac_fd,
                   FD_RTOL, kind=Kind.FINITE_DIFFERENCE, tensor="h.0.in")]
    # One branch at a time: switching the other branch's output projection off makes the block
    # exactly x + F(x) (the MLP branch then reads x itself, since h.0.mid = x + 0), and the
    # gradient at the branch's layer-norm input is the model's own (∂F/∂X)ᵀg.
    for branch, off, skip in (("attention", "mlp.w_proj", "ln_1"), ("mlp", "attn.w_o", "ln_2")):
        params = {k: v.copy() for k, v in live.params.items()}
        for leaf in (off, off.replace(".w_", ".b_")):
            params[f"h.0.{leaf}"][...] = 0.0
        jac_f, _ = _block_jacobians(params, cfg, x, branch_of=skip)
        full, num = _block_jacobians(params, cfg, x)
        d = derived(jac_f)
        out.append(compare("residual_jacobian", f"block0.{branch}.derived_vs_model",
                           f"{branch}_derived_vs_model", full, d, MODEL_RTOL, kind=Kind.IDENTITY,
                           tensor="h.0.in"))
        out.append(compare("residual_jacobian", f"block0.{branch}.derived_vs_fd",
                           f"{branch}_derived_vs_fd", num, d, FD_RTOL,
                           kind=Kind.FINITE_DIFFERENCE, tensor="h.0.in"))
    return out


def mlp_records(live_identity: Live) -> list[Record]:
    """On a model whose activation is the identity: the derived single affine map vs the MLP."""
    cfg, c, p = live_identity.cfg, live_identity.cache, live_identity.params
    out: list[Record] = []
    sizes = {res.d: cfg.n_embd, res.h: 4 * cfg.n_embd}
    args = (res.W_1, res.b_1, res.W_2, res.b_2, res.x)
    collapsed = matrix_fn(res.MLP_COLLAPSED, args, sizes)
    two_layer = matrix_fn(res.MLP, args, sizes)
    for layer in range(cfg.n_layer):
        pre = f"h.{layer}."
        h2 = c[pre + "ln_2.out"].reshape(-1, cfg.n_embd)  # (N, C)
        mlp_out = c[pre + "mlp.w_proj.out"].reshape(-1, cfg.n_embd)  # (N, C)
        w = (p[pre + "mlp.w_fc"].T, p[pre + "mlp.b_fc"][:, None], p[pre + "mlp.w_proj"].T,
             p[pre + "mlp.b_proj"][:, None])
        for fn, name in ((collapsed, "collapsed"), (two_layer, "two_layer")):
            derived = np.stack([fn(*w, row[:, None])[:, 0] for row in h2])
            out.append(compare("mlp_collapse", f"{pre}{name}", name, mlp_out, derived, MODEL_RTOL,
                               kind=Kind.IDENTITY, tensor=pre + "mlp.w_proj.out"))
    return out


# ----------------------------------------------------------------------------- Adam
def adam_records(seed_live: Live) -> list[Record]:
    b1, b2, lr = 0.9, 0.999, 1e-2
    m_fn = indexed_fn(ad.M_CLOSED, (ad.g, ad.t, ad.beta_1))
    v_fn = indexed_fn(ad.V_CLOSED, (ad.g, ad.t, ad.beta_2))
    corr1 = sp.lambdify((ad.beta_1, ad.t), ad.BIAS_CORRECTION1)
    corr2 = sp.lambdify((ad.beta_2, ad.t), ad.BIAS_CORRECTION2)
    e_m = sp.lambdify((ad.beta_1, ad.t, ad.mu), ad.E_M)
    e_v = sp.lambdify((ad.beta_2, ad.t, ad.mu, ad.sigma), ad.E_V)
    unbiased = sp.lambdify((ad.mu,), ad.adam_first_moment_unbiased.checked.rhs)
    unbiased_v = sp.lambdify((ad.mu, ad.sigma), ad.adam_second_moment_unbiased.checked.rhs)
    step_alg1 = sp.lambdify((ad.theta, ad.alpha, ad.m_hat, ad.v_hat, ad.epsilon), ad.STEP_ALG1)
    step_in = sp.lambdify((ad.theta, ad.alpha, ad.m_hat, ad.v_hat, ad.epsilon), ad.STEP_EPS_INSIDE)
    gap = sp.lambdify((ad.alpha, ad.m_hat, ad.v_hat, ad.epsilon), ad.EPS_GAP)
    efficient = sp.lambdify((ad.theta, ad.alpha, ad.m, ad.v, ad.beta_1, ad.beta_2, ad.t,
                             ad.eps_hat), ad.STEP_EFFICIENT)
    eps_hat = sp.lambdify((ad.epsilon, ad.beta_2, ad.t), ad.EPS_HAT)

    # A recorded sequence of real gradients: Adam trains the check model for ADAM_STEPS steps.
    live = run_live(seed_live.cfg)
    names = sorted(live.params)
    opt, history, worst = Adam(lr, (b1, b2), ADAM_EPS), [], {"m": [], "v": [], "theta": [],
                                                              "gap": [], "eff": []}
    for t in range(1, ADAM_STEPS + 1):
        _, grads, _ = model.GPT(live.cfg, live.params).loss_and_grads(live.idx, live.targets)
        theta0 = np.concatenate([live.params[k].ravel() for k in names])
        history.append(np.concatenate([grads[k].ravel() for k in names]))
        opt.step(live.params, grads)
        theta1 = np.concatenate([live.params[k].ravel() for k in names])
        gp = np.vstack([np.zeros_like(history[0]), *history])  # g[1..t]
        m_raw = np.concatenate([opt.m[k].ravel() for k in names])
        v_raw = np.concatenate([opt.v[k].ravel() for k in names])
        m_cf, v_cf = m_fn(gp, t, b1), v_fn(gp, t, b2)
        m_hat, v_hat = m_cf / corr1(b1, t), v_cf / corr2(b2, t)
        worst["m"].append((m_raw, m_cf))
        worst["v"].append((v_raw, v_cf))
        worst["theta"].append((theta1, step_alg1(theta0, lr, m_hat, v_hat, ADAM_EPS)))
        worst["gap"].append((theta1 - step_in(theta0, lr, m_hat, v_hat, ADAM_EPS),
                             gap(lr, m_hat, v_hat, ADAM_EPS)))
        worst["eff"].append((theta1, efficient(theta0, lr, m_cf, v_cf, b1, b2, t,
                                               eps_hat(ADAM_EPS, b2, t))))

    def stack(key):
        return _stacked(worst[key])
    # every comparison puts closed forms (of the recorded gradients) against the optimiser's
    # recursion over the same steps
    closed = Kind.CLOSED_FORM
    out = [compare("adam_first_moment_closed_form", "optimizer_m", "optimizer_m", *stack("m"),
                   MODEL_RTOL, kind=closed, values={"steps": ADAM_STEPS}),
           compare("adam_second_moment_closed_form", "optimizer_v", "optimizer_v", *stack("v"),
                   MODEL_RTOL, kind=closed),
           compare("adam_epsilon_placement", "step_alg1", "step_alg1", *stack("theta"),
                   MODEL_RTOL, kind=closed),
           compare("adam_epsilon_placement", "gap_closed_form", "gap_closed_form", *stack("gap"),
                   MODEL_RTOL, kind=closed),
           compare("adam_efficient_step", "efficient_vs_optimizer", "efficient_vs_optimizer",
                   *stack("eff"), MODEL_RTOL, kind=closed)]
    out.extend(_constant_gradient(history[0], b1, b2, lr, corr1, e_m, e_v,
                                  (unbiased, unbiased_v)))
    out.extend(_start(history[0], b1, b2, m_fn, v_fn))
    return out


def _start(g1: np.ndarray, b1: float, b2: float, m_fn, v_fn) -> list[Record]:
    """m_0 = v_0 = 0: the optimiser's state before its first step, read back from its first
    update (m_1 = β₁m_0 + (1−β₁)g_1), against the claim's m_t and v_t at t = 0."""
    opt = Adam(1e-2, (b1, b2), ADAM_EPS)
    theta = {"p": np.zeros_like(g1)}  # (P,)
    opt.step(theta, {"p": g1})
    gp = np.vstack([np.zeros_like(g1), g1])  # g[0..1]; t = 0 reads none of them
    out = []
    for key, beta, state, fn, g in (("m", b1, opt.m["p"], m_fn, g1),
                                    ("v", b2, opt.v["p"], v_fn, g1 * g1)):
        start = (state - (1.0 - beta) * g) / beta  # (P,) the state the first update started from
        claimed = np.broadcast_to(fn(gp, 0, beta), g1.shape)  # (P,)
        out.append(compare("adam_moments_start_at_zero", f"optimizer_{key}0", f"optimizer_{key}0",
                           start, claimed, MODEL_RTOL, kind=Kind.CLOSED_FORM,
                           scale=float(np.abs((1.0 - beta) * g).max() / beta)))
    return out


def _stacked(pairs: list) -> tuple[np.ndarray, np.ndarray]:
    """[(got, want), ...] per step → (stacked got, stacked want)."""
    return np.stack([a for a, _ in pairs]), np.stack([b for _, b in pairs])


def _constant_gradient(g, b1, b2, lr, corr1, e_m, e_v, unbiased) -> list[Record]:
    """A constant gradient is a degenerate distribution with μ = g, σ = 0: the derived E[m_t] and
    E[v_t] are then the exact values, and m̂_t = g, v̂_t = g² at every t (``unbiased``: the
    derived E[m̂_t] of μ and E[v̂_t] of μ, σ)."""
    unbiased_m, unbiased_v = unbiased
    opt, params = Adam(lr, (b1, b2), ADAM_EPS), {"theta": np.zeros_like(g)}
    rows = {k: [] for k in ("m", "v", "m_hat", "v_hat", "gap")}
    for t in range(1, ADAM_STEPS + 3):
        opt.step(params, {"theta": g.copy()})
        m_hat, v_hat = opt.corrected("theta")
        rows["m"].append((opt.m["theta"].copy(), e_m(b1, t, g)))
        rows["v"].append((opt.v["theta"].copy(), e_v(b2, t, g, 0.0)))
        rows["m_hat"].append((m_hat, np.broadcast_to(unbiased_m(g), g.shape)))
        rows["v_hat"].append((v_hat, np.broadcast_to(unbiased_v(g, 0.0), g.shape)))
        # the uncorrected m_t misses g by the fraction β₁ᵗ = 1 − (1 − β₁ᵗ)
        rows["gap"].append((np.abs(g - opt.m["theta"]), np.abs(g) * (1 - corr1(b1, t))))

    def stack(key):
        return _stacked(rows[key])
    # the derived values at a constant gradient are closed forms in t; the optimiser's are its
    # recursion
    closed = Kind.CLOSED_FORM
    return [compare("adam_first_moment_bias", "constant_m", "constant_m", *stack("m"),
                    MODEL_RTOL, kind=closed),
            compare("adam_first_moment_unbiased", "constant_m_hat", "constant_m_hat",
                    *stack("m_hat"), MODEL_RTOL, kind=closed),
            compare("adam_second_moment_unbiased", "constant_v_hat", "constant_v_hat",
                    *stack("v_hat"), MODEL_RTOL, kind=closed),
            compare("adam_first_moment_bias", "uncorrected_gap", "uncorrected_gap", *stack("gap"),
                    MODEL_RTOL, kind=closed),
            compare("adam_second_moment_bias", "constant_v", "constant_v", *stack("v"),
                    MODEL_RTOL, kind=closed)]


def identity_live() -> Live:
    return run_live(check_config(activation="identity"))

