"""Confirming computations for correct claims about gradients, softmax, LayerNorm and Adam.

Same contract as :mod:`reports.audit.evidence`; the note's version and the correction coincide.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from reports.audit.errata.checks_optim import adam_steps
from reports.audit.evidence import (
    Result,
    check,
    num_grad,
    num_jac,
    softmax,
    stated,
)


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


# ----------------------------------------------------------------------------- MLP
@check
def mlp_per_token(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(30)
    w1, b1, w2, b2 = (rng.normal(size=s) for s in ((8, 4), 8, (4, 8), 4))
    x = rng.normal(size=(3, 4))

    def f_rows(xs):
        return _gelu(xs @ w1.T + b1) @ w2.T + b2

    per_token = np.stack([w2 @ _gelu(w1 @ t + b1) + b2 for t in x])
    jac = num_jac(lambda v: f_rows(v.reshape(3, 4)).ravel(), x.ravel())
    cross_token = float(np.max(np.abs(jac[0:4, 4:12])))
    within = float(np.min(np.abs(jac[0:4, 0:4])))
    return Result(np.allclose(per_token, f_rows(x)) and cross_token < 1e-8 and within > 0,
                  f"token-wise f equals the row-wise matrix form; max |∂y_0/∂x_1| = "
                  f"{cross_token:.1g} (no token mixing); min |∂y_0/∂x_0| = {within:.3g} "
                  "(every feature feeds every output feature)")


@check
def linear_collapse(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(31)
    w1, b1, w2, b2 = (rng.normal(size=s) for s in ((5, 3), 5, (2, 5), 2))
    xs = rng.normal(size=(50, 3))
    two = np.stack([w2 @ (w1 @ x + b1) + b2 for x in xs])
    one = xs @ (w2 @ w1).T + (w2 @ b1 + b2)
    relu = np.stack([w2 @ np.maximum(w1 @ x + b1, 0) + b2 for x in xs])
    design = np.hstack([xs, np.ones((50, 1))])
    resid = float(np.linalg.lstsq(design, relu, rcond=None)[1].sum())
    return Result(np.allclose(two, one) and resid > 1e-3,
                  f"two affine layers = one with W = W2W1, b = W2b1 + b2: "
                  f"{bool(np.allclose(two, one))}; with ReLU between them the best single affine "
                  f"map leaves residual {resid:.3g}")


@check
def mlp_expansion_4d(version: str = "correction") -> Result:
    ratio = stated(version, 4)
    return Result(2048 // 512 == ratio, "base Transformer: d_ff / d_model = 2048 / 512 = 4")


# ----------------------------------------------------------------------------- gradients
@check
def chain_rule_product(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(32)
    ws = [0.5 * rng.normal(size=(4, 4)) / 2 for _ in range(6)]
    x0 = rng.normal(size=4)

    def net(x):
        for w in ws:
            x = np.tanh(w @ x)
        return x

    prod, x = np.eye(4), x0
    norms = []
    for w in ws:
        pre = w @ x
        prod = np.diag(1 - np.tanh(pre) ** 2) @ w @ prod
        x = np.tanh(pre)
        norms.append(np.linalg.norm(prod, 2))
    gap = float(np.max(np.abs(num_jac(net, x0) - prod)))
    return Result(gap < 1e-8 and norms[-1] < norms[0],
                  f"finite-difference Jacobian vs product of layer Jacobians: max gap {gap:.2g}; "
                  f"||∏J|| by depth: {', '.join(f'{n:.2g}' for n in norms)}")


@check
def residual_jacobian(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(33)
    w = rng.normal(size=(4, 4))
    x = rng.normal(size=4)
    jf = np.diag(1 - np.tanh(w @ x) ** 2) @ w
    gap = float(np.max(np.abs(num_jac(lambda v: v + np.tanh(w @ v), x) - (np.eye(4) + jf))))
    return Result(gap < 1e-8, f"Y = X + tanh(WX): max |FD Jacobian - (I + ∂F/∂X)| = {gap:.2g}")


def _linear_setup():
    rng = np.random.default_rng(34)
    return rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(3, 2))


@check
def linear_grad_weight(version: str = "correction") -> Result:
    stated(version, None)
    x, w, g = _linear_setup()  # L = Σ G ⊙ (XW), so ∂L/∂Y = G
    num = num_grad(lambda ww: float(np.sum(g * (x @ ww))), w)
    gap = float(np.max(np.abs(num - x.T @ g)))
    return Result(gap < 1e-8 and (x.T @ g).shape == w.shape,
                  f"max |FD ∂L/∂W - XᵀG| = {gap:.2g}; XᵀG shape {(x.T @ g).shape} = W shape")


@check
def linear_grad_input(version: str = "correction") -> Result:
    stated(version, None)
    x, w, g = _linear_setup()
    num = num_grad(lambda xx: float(np.sum(g * (xx @ w))), x)
    gap = float(np.max(np.abs(num - g @ w.T)))
    return Result(gap < 1e-8, f"max |FD ∂L/∂X - GWᵀ| = {gap:.2g}")


@check
def qkv_accumulation(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(35)
    x = rng.normal(size=(3, 4))
    wq, wk, wv = (rng.normal(size=(4, 2)) for _ in range(3))
    c = rng.normal(size=(3, 2))

    def loss(q, k, v):
        return float(np.sum(c * (softmax(q @ k.T / math.sqrt(2)) @ v)))

    q, k, v = x @ wq, x @ wk, x @ wv
    gq = num_grad(lambda t: loss(t, k, v), q)
    gk = num_grad(lambda t: loss(q, t, v), k)
    gv = num_grad(lambda t: loss(q, k, t), v)
    direct = num_grad(lambda t: loss(t @ wq, t @ wk, t @ wv), x)
    gap = float(np.max(np.abs(direct - (gq @ wq.T + gk @ wk.T + gv @ wv.T))))
    return Result(gap < 1e-7, f"max |FD ∂L/∂X - Σ ∂L/∂P W_Pᵀ| (P = Q, K, V) = {gap:.2g}")


# ----------------------------------------------------------------------------- cross-entropy
_Z = np.array([0.3, -1.2, 2.0, 0.5])
_K = 2


@check
def ce_onehot(version: str = "correction") -> Result:
    stated(version, None)
    p, y = softmax(_Z), np.eye(4)[_K]
    full, picked = float(-np.sum(y * np.log(p))), float(-np.log(p[_K]))
    return Result(abs(full - picked) < 1e-15,
                  f"-Σ y_i log p_i = {full:.6f}, -log p_k = {picked:.6f}")


@check
def ce_logsumexp(version: str = "correction") -> Result:
    stated(version, None)
    lhs = float(-np.log(softmax(_Z)[_K]))
    rhs = float(-_Z[_K] + np.log(np.sum(np.exp(_Z))))
    return Result(abs(lhs - rhs) < 1e-12, f"-log p_k = {lhs:.9f}, -z_k + log Σ e^z_j = {rhs:.9f}")


@check
def ce_grad(version: str = "correction") -> Result:
    stated(version, None)
    num = num_grad(lambda z: float(-np.log(softmax(z)[_K])), _Z.copy())
    gap = float(np.max(np.abs(num - (softmax(_Z) - np.eye(4)[_K]))))
    return Result(gap < 1e-8, f"max |FD ∂L/∂z - (p - y)| = {gap:.2g}")


@check
def ce_mle(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(36)
    logits, targets = rng.normal(size=(6, 5)), rng.integers(0, 5, size=6)
    probs = softmax(logits)
    ce = float(-np.sum(np.log(probs[np.arange(6), targets])))
    lik = float(np.prod(probs[np.arange(6), targets]))
    return Result(abs(math.exp(-ce) - lik) < 1e-15 * max(lik, 1e-300) + 1e-18,
                  f"6 tokens: total cross-entropy {ce:.4f}; exp(-CE) = {math.exp(-ce):.4g} = "
                  f"likelihood {lik:.4g} (CE is -log likelihood, a decreasing map)")


@check
def ce_descent_direction(version: str = "correction") -> Result:
    stated(version, None)
    p, y = np.array([0.2, 0.5, 0.3]), np.array([1.0, 0.0, 0.0])
    z = np.log(p)
    z_new = z - 0.5 * (softmax(z) - y)
    dz = z_new - z
    before, after = -math.log(p[0]), -math.log(softmax(z_new)[0])
    return Result(dz[0] > 0 > dz[1] and dz[1] < dz[2] < 0 and after < before,
                  f"one step, lr 0.5: Δz = {np.round(dz, 3).tolist()}; loss {before:.4f} -> "
                  f"{after:.4f}")


@check
def ce_sign_rule(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(37)
    ok = True
    for _ in range(100):
        p, k = softmax(rng.normal(size=5) * 3), int(rng.integers(5))
        g = p - np.eye(5)[k]
        ok &= bool(g[k] < 0 and np.all(np.delete(g, k) > 0))
    return Result(ok, "100 random cases: p - y is negative at the target and positive elsewhere: "
                  f"{ok}")


@check
def ce_stable(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([1000.0, 0.0])
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        naive = float(-np.log(np.exp(z[1]) / np.sum(np.exp(z))))
    stable = float(-z[1] + z.max() + np.log(np.sum(np.exp(z - z.max()))))
    grad = softmax(z) - np.array([0.0, 1.0])
    return Result(math.isfinite(stable) and abs(stable - 1000) < 1e-9 and np.all(np.isfinite(grad)),
                  f"z = [1000, 0], target 1: naive loss {naive}, log-sum-exp loss {stable}, "
                  f"gradient p - y = {grad.tolist()}")


# ----------------------------------------------------------------------------- softmax
@check
def softmax_properties(version: str = "correction") -> Result:
    stated(version, None)
    z = np.random.default_rng(38).normal(size=(10, 6)) * 5
    p = softmax(z)
    return Result(bool(np.all(p > 0)) and np.allclose(p.sum(axis=1), 1),
                  f"10 random rows: min entry {p.min():.2g} > 0, row sums within "
                  f"{np.max(np.abs(p.sum(axis=1) - 1)):.1g} of 1")


@check
def softmax_monotone(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([1.0, 0.0, -1.0])
    diag = np.diag(np.diag(softmax(z)) - np.outer(softmax(z), softmax(z)))
    bumped = [softmax(z + 0.1 * np.eye(3)[i])[i] - softmax(z)[i] for i in range(3)]
    return Result(bool(np.all(diag > 0)) and min(bumped) > 0,
                  f"∂p_i/∂z_i = p_i(1-p_i) = {np.round(diag, 4).tolist()} > 0")


@check
def softmax_shift(version: str = "correction") -> Result:
    stated(version, None)
    mpmath.mp.dps = 50
    z = [mpmath.mpf(1), mpmath.mpf(2), mpmath.mpf("-0.5")]

    def sm(v):
        e = [mpmath.exp(x) for x in v]
        return [x / sum(e) for x in e]

    gaps = [max(abs(a - b) for a, b in zip(sm(z), sm([x + c for x in z]), strict=True))
            for c in (-5, 3, 1000)]
    return Result(max(gaps) < mpmath.mpf(10) ** -40,
                  f"50-digit arithmetic, c = -5, 3, 1000: max |softmax(z+c) - softmax(z)| = "
                  f"{mpmath.nstr(max(gaps), 3)}")


@check
def logsumexp_stable(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([1000.0, 999.0])
    with np.errstate(over="ignore"):
        naive = float(np.log(np.sum(np.exp(z))))
    shifted = float(z.max() + np.log(np.sum(np.exp(z - z.max()))))
    exact = mpmath.log(mpmath.exp(1000) + mpmath.exp(999))
    return Result(abs(shifted - float(exact)) < 1e-9,
                  f"log(e^1000 + e^999): naive {naive}, max-shifted {shifted:.6f}, "
                  f"exact {mpmath.nstr(exact, 10)}")


@check
def softmax_temperature(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([1.0, 2.0, 3.0])
    ts = (0.25, 0.5, 1.0, 2.0, 4.0)
    ent = [float(-np.sum(softmax(z / t) * np.log(softmax(z / t)))) for t in ts]
    flat = softmax(np.full(3, 2.0) / 0.25)
    return Result(all(a < b for a, b in zip(ent, ent[1:], strict=False)),
                  f"z = [1,2,3], entropy at T = {ts}: {np.round(ent, 4).tolist()} (increasing); "
                  f"a constant z is uniform at every T: {np.round(flat, 4).tolist()}")


@check
def softmax_jacobian(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([0.2, -0.7, 1.1, 0.0])
    s = softmax(z)
    gap = float(np.max(np.abs(num_jac(softmax, z) - (np.diag(s) - np.outer(s, s)))))
    return Result(gap < 1e-8, f"4×4 FD Jacobian vs diag(s) - ssᵀ: max gap {gap:.2g}")


# ----------------------------------------------------------------------------- LayerNorm, output
@check
def layernorm_bounded(version: str = "correction") -> Result:
    stated(version, None)
    d = 8
    x = np.vstack([np.random.default_rng(39).normal(size=(5, d)) * 100, np.eye(d)[0] * 1e6])
    xh = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    bound = math.sqrt(d - 1)
    return Result(np.allclose(xh.mean(axis=1), 0) and float(np.max(np.abs(xh))) <= bound + 1e-9,
                  f"rows of scale up to 1e6 -> per-row mean 0, variance "
                  f"{np.round(xh.var(axis=1), 4).tolist()}; max |x̂| = {np.max(np.abs(xh)):.4f} "
                  f"<= √(d-1) = {bound:.4f}")


@check
def output_head(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(40)
    h, w = rng.normal(size=(3, 8)), rng.normal(size=(8, 11))
    p = softmax(h @ w)
    return Result(p.shape == (3, 11) and np.allclose(p.sum(axis=1), 1),
                  "hidden (3, 8) @ W (8, 11) -> logits (3, V=11); softmax rows sum to 1")


# ----------------------------------------------------------------------------- Adam
_GRADS = [0.5, -1e-6, 2.0, 1e-4, -0.3, 0.0, 1e-7, 3.0]


@check
def adam_first_form(version: str = "correction") -> Result:
    stated(version, None)
    lr, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-8
    m = v = 0.0
    mine = []
    for t, g in enumerate(_GRADS, start=1):  # the note's first formula, transcribed literally
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        mine.append(-lr / (math.sqrt(v / (1 - b2**t)) + eps) * (m / (1 - b1**t)))
    gap = max(abs(a - b) for a, b in zip(mine, adam_steps(_GRADS), strict=True))
    return Result(gap < 1e-15, f"{len(_GRADS)} steps incl. tiny gradients: max |note's first "
                  f"update - Kingma & Ba Algorithm 1| = {gap:.2g}")


@check
def adam_moments(version: str = "correction") -> Result:
    stated(version, None)
    b1, b2 = 0.9, 0.999
    m = v = 0.0
    gaps = []
    for t, g in enumerate(_GRADS, start=1):
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        past = _GRADS[:t]
        mc = (1 - b1) * sum(b1 ** (t - i) * gi for i, gi in enumerate(past, start=1))
        vc = (1 - b2) * sum(b2 ** (t - i) * gi * gi for i, gi in enumerate(past, start=1))
        gaps += [abs(m - mc), abs(v - vc)]
    return Result(max(gaps) < 1e-12, "recursions vs closed forms (1-β)Σβ^(t-i)g_i and "
                  f"(1-β)Σβ^(t-i)g_i²: max gap {max(gaps):.2g}")


@check
def newton_vs_gd(version: str = "correction") -> Result:
    stated(version, None)
    hess = np.diag([1.0, 100.0])
    x0 = np.array([1.0, 1.0])
    newton = x0 - np.linalg.solve(hess, hess @ x0)
    x = x0.copy()
    for _ in range(10):
        x = x - 0.01 * hess @ x
    return Result(float(np.linalg.norm(newton)) < 1e-12 and float(np.linalg.norm(x)) > 0.5,
                  f"f = xᵀHx/2, H = diag(1, 100): Newton (uses H) reaches 0 in one step; gradient "
                  f"descent (lr 1/100) after 10 steps is at {np.round(x, 4).tolist()}")

