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
    nums,
    shi,
    softmax,
    stated,
    yes,
)
from reports.audit.evidence import (
    num as numtext,
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
    d_cross, d_within = r"\partial y_0/\partial x_1", r"\partial y_0/\partial x_0"
    return Result(np.allclose(per_token, f_rows(x)) and cross_token < 1e-8 and within > 0,
                  f"$f$ applied token by token equals the row-wise matrix form; largest "
                  f"$|{d_cross}|$ = {cross_token:.1g} (no mixing between tokens); smallest "
                  f"$|{d_within}|$ = {within:.3g} (every feature feeds every output feature)",
                  f"逐个 token 施加 $f$ 与按行的矩阵形式相同；$|{d_cross}|$ 的最大值为 "
                  f"{cross_token:.1g}（token 之间没有混合）；$|{d_within}|$ 的最小值为 {within:.3g}"
                  "（每个特征都影响每个输出特征）")


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
    same = bool(np.allclose(two, one))
    form = r"$W = W_2W_1$, $b = W_2b_1 + b_2$"
    return Result(same and resid > 1e-3,
                  f"two affine layers equal one with {form}: {yes(same)}; with a ReLU between "
                  f"them the best single affine map leaves a residual of {resid:.3g}",
                  f"两个仿射层等于一个 {form} 的仿射层：{shi(same)}；中间加上 ReLU 后，"
                  f"最佳的单个仿射映射仍留下 {resid:.3g} 的残差")


@check
def mlp_expansion_4d(version: str = "correction") -> Result:
    ratio = stated(version, 4)
    form = r"$d_{\mathrm{ff}}/d_{\mathrm{model}} = 2048/512 = 4$"
    return Result(2048 // 512 == ratio, f"base Transformer: {form}", f"基础版 Transformer：{form}")


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
    shown = ", ".join(f"{n:.2g}" for n in norms)
    return Result(gap < 1e-8 and norms[-1] < norms[0],
                  f"finite-difference Jacobian vs the product of the layer Jacobians: largest gap "
                  rf"{gap:.2g}; $\lVert\prod J\rVert$ by depth: {shown}",
                  f"有限差分雅可比矩阵与各层雅可比矩阵之积相比，最大差距为 {gap:.2g}；"
                  rf"$\lVert\prod J\rVert$ 随深度依次为 {shown}")


@check
def residual_jacobian(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(33)
    w = rng.normal(size=(4, 4))
    x = rng.normal(size=4)
    jf = np.diag(1 - np.tanh(w @ x) ** 2) @ w
    gap = float(np.max(np.abs(num_jac(lambda v: v + np.tanh(w @ v), x) - (np.eye(4) + jf))))
    form = r"$Y = X + \tanh(WX)$"
    gapf = r"$\bigl|J_{\mathrm{FD}} - (I + \partial F/\partial X)\bigr|$"
    return Result(gap < 1e-8, f"{form}: largest {gapf} = {gap:.2g}",
                  f"{form}：{gapf} 的最大值为 {gap:.2g}")


def _fd_result(num: np.ndarray, derived: np.ndarray, difference: str) -> Result:
    """A finite-difference gradient against the derived one: passes when every entry of
    ``difference`` (TeX) is under 1e-8."""
    gap = float(np.max(np.abs(num - derived)))
    form = f"$|{difference}|$"
    return Result(gap < 1e-8, f"largest {form} = {gap:.2g}", f"{form} 的最大值为 {gap:.2g}")


def _linear_setup():
    rng = np.random.default_rng(34)
    return rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(3, 2))


@check
def linear_grad_weight(version: str = "correction") -> Result:
    stated(version, None)
    x, w, g = _linear_setup()  # L = Σ G ⊙ (XW), so ∂L/∂Y = G
    num = num_grad(lambda ww: float(np.sum(g * (x @ ww))), w)
    gap = float(np.max(np.abs(num - x.T @ g)))
    ok = gap < 1e-8 and (x.T @ g).shape == w.shape
    shape = r"$X^\top G$ has the shape of $W$"
    return Result(ok,
                  rf"largest $|(\partial L/\partial W)_{{\mathrm{{FD}}}} - X^\top G|$ = {gap:.2g}; "
                  f"{shape}, ${w.shape[0]}\\times{w.shape[1]}$",
                  rf"$|(\partial L/\partial W)_{{\mathrm{{FD}}}} "
                  rf"- X^\top G|$ 的最大值为 {gap:.2g}；"
                  rf"$X^\top G$ 与 $W$ 形状相同，都是 ${w.shape[0]}\times{w.shape[1]}$")


@check
def linear_grad_input(version: str = "correction") -> Result:
    stated(version, None)
    x, w, g = _linear_setup()
    num = num_grad(lambda xx: float(np.sum(g * (xx @ w))), x)
    return _fd_result(num, g @ w.T, r"(\partial L/\partial X)_{\mathrm{FD}} - GW^\top")


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
    form = (r"$\bigl|(\partial L/\partial X)_{\mathrm{FD}} - \sum_P (\partial L/\partial P)"
            r"W_P^\top\bigr|$ ($P = Q, K, V$)")
    return Result(gap < 1e-7, f"largest {form} = {gap:.2g}",
                  f"{form.replace(' ($P', '（$P').replace('V$)', 'V$）')} 的最大值为 {gap:.2g}")


# ----------------------------------------------------------------------------- cross-entropy
_Z = np.array([0.3, -1.2, 2.0, 0.5])
_K = 2


@check
def ce_onehot(version: str = "correction") -> Result:
    stated(version, None)
    p, y = softmax(_Z), np.eye(4)[_K]
    full, picked = float(-np.sum(y * np.log(p))), float(-np.log(p[_K]))
    shown = rf"$-\sum_i y_i \log p_i$ = {full:.6f}, $-\log p_k$ = {picked:.6f}"
    return Result(abs(full - picked) < 1e-15, shown, shown.replace(", $", "，$"))


@check
def ce_logsumexp(version: str = "correction") -> Result:
    stated(version, None)
    lhs = float(-np.log(softmax(_Z)[_K]))
    rhs = float(-_Z[_K] + np.log(np.sum(np.exp(_Z))))
    shown = rf"$-\log p_k$ = {lhs:.9f}, $-z_k + \log\sum_j e^{{z_j}}$ = {rhs:.9f}"
    return Result(abs(lhs - rhs) < 1e-12, shown, shown.replace(", $", "，$"))


@check
def ce_grad(version: str = "correction") -> Result:
    stated(version, None)
    num = num_grad(lambda z: float(-np.log(softmax(z)[_K])), _Z.copy())
    return _fd_result(num, softmax(_Z) - np.eye(4)[_K],
                      r"(\partial L/\partial z)_{\mathrm{FD}} - (p - y)")


@check
def ce_mle(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(36)
    logits, targets = rng.normal(size=(6, 5)), rng.integers(0, 5, size=6)
    probs = softmax(logits)
    ce = float(-np.sum(np.log(probs[np.arange(6), targets])))
    lik = float(np.prod(probs[np.arange(6), targets]))
    back = rf"$e^{{-\mathrm{{CE}}}}$ = {math.exp(-ce):.4g}"
    return Result(abs(math.exp(-ce) - lik) < 1e-15 * max(lik, 1e-300) + 1e-18,
                  f"6 tokens: total cross-entropy {ce:.4f}; {back} = likelihood {lik:.4g} "
                  "(cross-entropy is minus the log-likelihood, a decreasing map)",
                  f"6 个 token：总交叉熵为 {ce:.4f}；{back}，正好等于似然 {lik:.4g}"
                  "（交叉熵就是负对数似然，是似然的单调递减函数）")


@check
def ce_descent_direction(version: str = "correction") -> Result:
    stated(version, None)
    p, y = np.array([0.2, 0.5, 0.3]), np.array([1.0, 0.0, 0.0])
    z = np.log(p)
    z_new = z - 0.5 * (softmax(z) - y)
    dz = z_new - z
    before, after = -math.log(p[0]), -math.log(softmax(z_new)[0])
    step = f"$\\Delta z = ({nums(np.round(dz, 3), 'g')})$"
    return Result(dz[0] > 0 > dz[1] and dz[1] < dz[2] < 0 and after < before,
                  f"one step with learning rate 0.5: {step}; loss {before:.4f} → {after:.4f}",
                  f"学习率 0.5，走一步：{step}；损失从 {before:.4f} 降到 {after:.4f}")


@check
def ce_sign_rule(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(37)
    ok = True
    for _ in range(100):
        p, k = softmax(rng.normal(size=5) * 3), int(rng.integers(5))
        g = p - np.eye(5)[k]
        ok &= bool(g[k] < 0 and np.all(np.delete(g, k) > 0))
    return Result(ok, f"100 random cases: $p - y$ is negative at the target and positive "
                      f"elsewhere: {yes(ok)}",
                  f"100 个随机例子：$p - y$ 在目标类上为负、在其余类上为正：{shi(ok)}")


@check
def ce_stable(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([1000.0, 0.0])
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        naive = float(-np.log(np.exp(z[1]) / np.sum(np.exp(z))))
    stable = float(-z[1] + z.max() + np.log(np.sum(np.exp(z - z.max()))))
    grad = softmax(z) - np.array([0.0, 1.0])
    grad_text = f"$p - y = ({nums(grad, 'g')})$"
    naive_text = numtext(naive, "g")
    return Result(math.isfinite(stable) and abs(stable - 1000) < 1e-9 and np.all(np.isfinite(grad)),
                  f"$z = (1000, 0)$, target class 1: naive loss {naive_text}, log-sum-exp loss "
                  f"{stable:g}, gradient {grad_text}",
                  "$z = (1000, 0)$，目标类为 1：直接计算的损失为 "
                  f"{naive_text}，用 log-sum-exp 计算的损失为 "
                  f"{stable:g}，梯度 {grad_text}")


# ----------------------------------------------------------------------------- softmax
@check
def softmax_properties(version: str = "correction") -> Result:
    stated(version, None)
    z = np.random.default_rng(38).normal(size=(10, 6)) * 5
    p = softmax(z)
    off = float(np.max(np.abs(p.sum(axis=1) - 1)))
    return Result(bool(np.all(p > 0)) and np.allclose(p.sum(axis=1), 1),
                  f"10 random rows: smallest entry {p.min():.2g} "
                  f"> 0, row sums within {off:.1g} of 1",
                  f"10 个随机行：最小元素为 {p.min():.2g} > 0，各行之和与 1 相差不超过 {off:.1g}")


@check
def softmax_monotone(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([1.0, 0.0, -1.0])
    diag = np.diag(np.diag(softmax(z)) - np.outer(softmax(z), softmax(z)))
    bumped = [softmax(z + 0.1 * np.eye(3)[i])[i] - softmax(z)[i] for i in range(3)]
    shown = (r"$\partial p_i/\partial z_i = p_i(1-p_i)$ = "
             f"{nums(np.round(diag, 4), 'g')}, all $> 0$")
    return Result(bool(np.all(diag > 0)) and min(bumped) > 0, shown,
                  shown.replace(", all", "，全部"))


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
    form = r"$\max|\operatorname{softmax}(z+c) - \operatorname{softmax}(z)|$"
    return Result(max(gaps) < mpmath.mpf(10) ** -40,
                  f"50-digit arithmetic, $c = -5, 3, 1000$: {form} = {mpmath.nstr(max(gaps), 3)}",
                  f"50 位精度计算，$c = -5, 3, 1000$：{form} = {mpmath.nstr(max(gaps), 3)}")


@check
def logsumexp_stable(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([1000.0, 999.0])
    with np.errstate(over="ignore"):
        naive = float(np.log(np.sum(np.exp(z))))
    shifted = float(z.max() + np.log(np.sum(np.exp(z - z.max()))))
    exact = mpmath.log(mpmath.exp(1000) + mpmath.exp(999))
    form, naive_text = r"$\log(e^{1000} + e^{999})$", numtext(naive, "g")
    return Result(abs(shifted - float(exact)) < 1e-9,
                  f"{form}: naive {naive_text}, shifted by the maximum {shifted:.6f}, exact "
                  f"{mpmath.nstr(exact, 10)}",
                  f"{form}：直接计算得 {naive_text}，减去最大值后计算得 {shifted:.6f}，精确值为 "
                  f"{mpmath.nstr(exact, 10)}")


@check
def softmax_temperature(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([1.0, 2.0, 3.0])
    ts = (0.25, 0.5, 1.0, 2.0, 4.0)
    ent = [float(-np.sum(softmax(z / t) * np.log(softmax(z / t)))) for t in ts]
    flat = softmax(np.full(3, 2.0) / 0.25)
    temps, shown, uniform = nums(ts, "g"), nums(np.round(ent, 4), "g"), nums(np.round(flat, 4), "g")
    return Result(all(a < b for a, b in zip(ent, ent[1:], strict=False)),
                  f"$z = (1, 2, 3)$, entropy at $T = {temps}$: {shown} (increasing); a constant "
                  f"$z$ gives the uniform distribution at every $T$: {uniform}",
                  f"$z = (1, 2, 3)$，$T = {temps}$ 时的熵：{shown}（递增）；$z$ 为常数时，"
                  f"任何 $T$ 下都是均匀分布：{uniform}")


@check
def softmax_jacobian(version: str = "correction") -> Result:
    stated(version, None)
    z = np.array([0.2, -0.7, 1.1, 0.0])
    s = softmax(z)
    gap = float(np.max(np.abs(num_jac(softmax, z) - (np.diag(s) - np.outer(s, s)))))
    form = r"$\operatorname{diag}(s) - ss^\top$"
    return Result(gap < 1e-8,
                  f"$4\\times 4$ finite-difference Jacobian vs {form}: largest gap {gap:.2g}",
                  f"$4\\times 4$ 有限差分雅可比矩阵与 {form} 相比，最大差距为 {gap:.2g}")


# ----------------------------------------------------------------------------- LayerNorm, output
@check
def layernorm_bounded(version: str = "correction") -> Result:
    stated(version, None)
    d = 8
    x = np.vstack([np.random.default_rng(39).normal(size=(5, d)) * 100, np.eye(d)[0] * 1e6])
    xh = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    bound = math.sqrt(d - 1)
    var = nums(np.round(xh.var(axis=1), 4), "g")
    top = float(np.max(np.abs(xh)))
    bound_text = rf"$\sqrt{{d-1}}$ = {bound:.4f}"
    return Result(np.allclose(xh.mean(axis=1), 0) and top <= bound + 1e-9,
                  f"rows of scale up to {1e6:.0e} → per-row mean 0, variance {var}; largest "
                  rf"$|\hat{{x}}|$ = {top:.4f} ≤ {bound_text}",
                  f"各行尺度最大到 {1e6:.0e} → 每行均值为 0，方差为 {var}；"
                  rf"$|\hat{{x}}|$ 的最大值为 {top:.4f} ≤ {bound_text}")


@check
def output_head(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(40)
    h, w = rng.normal(size=(3, 8)), rng.normal(size=(8, 11))
    p = softmax(h @ w)
    shapes = (r"$H_{3\times 8}\,W_{8\times 11}$ → logits $3\times 11$ ($V = 11$)",
              r"$H_{3\times 8}\,W_{8\times 11}$ → logits $3\times 11$（$V = 11$）")
    return Result(p.shape == (3, 11) and np.allclose(p.sum(axis=1), 1),
                  f"{shapes[0]}; each softmax row sums to 1",
                  f"{shapes[1]}；softmax 的每一行之和都为 1")


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
    return Result(gap < 1e-15,
                  f"{len(_GRADS)} steps, tiny gradients included: largest gap between the note's "
                  f"first update and Kingma & Ba's Algorithm 1 = {gap:.2g}",
                  f"{len(_GRADS)} 步（含极小的梯度）：讲义的第一个更新公式与 Kingma & Ba 的"
                  f"算法 1 之间的最大差距为 {gap:.2g}")


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
    forms = (r"$(1-\beta)\sum_i \beta^{t-i} g_i$", r"$(1-\beta)\sum_i \beta^{t-i} g_i^2$")
    return Result(max(gaps) < 1e-12,
                  f"recursions vs the closed forms {forms[0]} and {forms[1]}: largest gap "
                  f"{max(gaps):.2g}",
                  f"递推式与闭式 {forms[0]}、{forms[1]} 相比，最大差距为 {max(gaps):.2g}")


@check
def newton_vs_gd(version: str = "correction") -> Result:
    stated(version, None)
    hess = np.diag([1.0, 100.0])
    x0 = np.array([1.0, 1.0])
    newton = x0 - np.linalg.solve(hess, hess @ x0)
    x = x0.copy()
    for _ in range(10):
        x = x - 0.01 * hess @ x
    form = r"$f = x^\top Hx/2$, $H = \operatorname{diag}(1, 100)$"
    where = f"$({nums(np.round(x, 4), 'g')})$"
    return Result(float(np.linalg.norm(newton)) < 1e-12 and float(np.linalg.norm(x)) > 0.5,
                  f"{form}: Newton's method (which uses $H$) reaches 0 in one step; gradient "
                  f"descent (learning rate 1/100) is at {where} after 10 steps",
                  f"{form.replace(', $H', '，$H')}：牛顿法（用到 $H$）一步到达 0；梯度下降"
                  f"（学习率 1/100）走 10 步后位于 {where}")

