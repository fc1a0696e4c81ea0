"""Evidence for the claims found in the sentence-by-sentence re-reading of the notes.

Same contract as :mod:`reports.audit.evidence`: ``version`` picks the note's statement or the
correction; the facts are computed independently of both.
"""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Result, check, num_jac, nums, pick, shi, softmax, stated, yes


def dims(shape) -> str:
    return "\\times".join(str(x) for x in shape)


def _attention(x: np.ndarray, wq, wk, wv) -> np.ndarray:
    q, k, v = x @ wq, x @ wk, x @ wv
    return softmax(q @ k.T / math.sqrt(q.shape[1])) @ v


def _weights(rng, d_in: int = 6, d_k: int = 3):
    return tuple(rng.normal(size=(d_in, d_k)) for _ in range(3))


# ----------------------------------------------------------------------------- scores and softmax
@check
def uniform_equal_scores(version: str = "correction") -> Result:
    """The note's own example: q = k_j = (0.5, …, 0.5) at d_k = 4096, so every score is 1024 and
    the softmax row is uniform, with a Jacobian far from zero — not 0/1 weights, no vanishing."""
    n = 4
    claimed_max, claimed_jac = pick(version, note=(1.0, 0.0), correction=(1 / n, 1 / n))
    q, keys = np.full(4096, 0.5), np.full((n, 4096), 0.5)
    scores = keys @ q
    p = softmax(scores)
    jac = float(np.linalg.norm(np.diag(p) - np.outer(p, p), 2))
    shown = (f"scores ({nums(scores, 'g')}); softmax = ({nums(np.round(p, 4), 'g')}); spectral "
             rf"norm of $\operatorname{{diag}}(p) - pp^\top$ = {jac:.4f}")
    return Result(abs(p.max() - claimed_max) < 1e-3 and abs(jac - claimed_jac) < 1e-3,
                  f"{shown}; claimed largest weight {claimed_max:.2f}, Jacobian norm "
                  f"{claimed_jac:.2f}",
                  f"分数为 ({nums(scores, 'g')})；softmax = ({nums(np.round(p, 4), 'g')})；"
                  rf"$\operatorname{{diag}}(p) - "
                  rf"pp^\top$ 的谱范数为 {jac:.4f}；该说法给出的最大权重为 "
                  f"{claimed_max:.2f}，雅可比矩阵范数为 {claimed_jac:.2f}")


@check
def softmax_large_inputs(version: str = "correction") -> Result:
    """Softmax saturates when the scores are spread out, not when they are large."""
    saturates = pick(version, note=lambda z: float(np.max(np.abs(z))) > 100,
                     correction=lambda z: float(np.ptp(z)) > 20)
    cases = [np.array([1000.0, 1000.1, 999.9]), np.array([64.0, 0.0, -64.0]),
             np.array([0.5, 0.4, 0.6])]
    rows, rows_zh, ok = [], [], True
    for z in cases:
        p = softmax(z)
        really = bool(p.max() > 0.99)
        ok &= saturates(z) == really
        head = f"$z = ({nums(z, 'g')})$"
        rows.append(f"{head}: largest weight {p.max():.4f}, saturated: {yes(really)}, predicted: "
                    f"{yes(saturates(z))}")
        rows_zh.append(f"{head}：最大权重 {p.max():.4f}，是否饱和：{shi(really)}，该说法的预测："
                       f"{shi(saturates(z))}")
    return Result(ok, "; ".join(rows), "；".join(rows_zh))


@check
def scaled_variance_scale(version: str = "correction") -> Result:
    """Var(qᵀk/√d_k) = σ_q²σ_k²: 1 only while the components keep unit variance."""
    rng = np.random.default_rng(60)
    d, rows, rows_zh, ok = 256, [], [], True
    for sd in (1.0, 3.0):
        target = pick(version, note=1.0, correction=sd**4)
        s = np.sum(rng.normal(0, sd, (20000, d)) * rng.normal(0, sd, (20000, d)), axis=1)
        var = float(np.var(s / math.sqrt(d)))
        ok &= abs(var / target - 1) < 0.1
        head = (rf"$\sigma_q = \sigma_k = {sd:g}$: $\operatorname{{Var}}(q^\top k/\sqrt{{d_k}})$ = "
                f"{var:.2f}")
        exact = rf"$\sigma_q^2\sigma_k^2 = {sd**4:g}$"
        rows.append(f"{head} (Monte Carlo, 20000 draws, $d_k = {d}$), exact {exact}, claimed "
                    f"{target:g}")
        rows_zh.append(f"{head.replace('$: $', '$ 时 $')}（蒙特卡洛，20000 次抽样，$d_k = {d}$），"
                       f"精确值 {exact}，该说法给出 {target:g}")
    return Result(ok, "; ".join(rows), "；".join(rows_zh))


@check
def example_not_zero_mean(version: str = "correction") -> Result:
    """The 'random' example q = k = (0.5, 0.5) has mean 0.5 and variance 0, not mean 0, var 1."""
    mean_claim, var_claim = pick(version, note=(0.0, 1.0), correction=(0.5, 0.0))
    comps = np.array([0.5, 0.5])
    return Result(float(comps.mean()) == mean_claim and float(comps.var()) == var_claim,
                  f"components $(0.5, 0.5)$: mean {comps.mean():g}, variance {comps.var():g}; "
                  f"the derivation assumed mean 0 and variance 1; claimed mean {mean_claim:g}, "
                  f"variance {var_claim:g}",
                  f"分量 $(0.5, 0.5)$：均值为 {comps.mean():g}，方差为 {comps.var():g}；"
                  f"推导假设的是均值 0、方差 1；该说法给出的均值为 {mean_claim:g}，方差为 "
                  f"{var_claim:g}")


@check
def scaled_constant_grows(version: str = "correction") -> Result:
    """With every component 0.5 the scaled score is 0.25·√d_k: it keeps growing."""
    law = pick(version, note=lambda d: 16.0, correction=lambda d: 0.25 * math.sqrt(d))
    rows, rows_zh, ok = [], [], True
    for d in (4096, 16384, 65536):
        got = float(np.full(d, 0.5) @ np.full(d, 0.5)) / math.sqrt(d)
        ok &= abs(got - law(d)) < 1e-9
        rows.append(f"$d_k = {d}$: {got:g} (claimed {law(d):g})")
        rows_zh.append(f"$d_k = {d}$ 时为 {got:g}（该说法为 {law(d):g}）")
    head = r"$q^\top k/\sqrt{d_k}$", r"$q = k = (0.5, \dots, 0.5)$"
    return Result(ok, f"scaled score {head[0]} for {head[1]}: " + ", ".join(rows),
                  f"{head[1]} 时缩放后的分数 {head[0]}：" + "，".join(rows_zh))


@check
def divisor_is_sqrt_dk(version: str = "correction") -> Result:
    """The divisor that restores unit variance is √d_k; 64 only when d_k = 4096."""
    divisor = pick(version, note=lambda d: 64.0, correction=lambda d: math.sqrt(d))
    rows, rows_zh, ok = [], [], True
    for d in (64, 512, 4096):
        var = d / divisor(d) ** 2  # Var(qᵀk) = d_k for unit-variance zero-mean components
        ok &= abs(var - 1) < 1e-12
        rows.append(f"$d_k = {d}$: divisor {divisor(d):g}, variance {var:.4g}")
        rows_zh.append(f"$d_k = {d}$：除数 {divisor(d):g}，方差 {var:.4g}")
    return Result(ok, "; ".join(rows), "；".join(rows_zh))


# ----------------------------------------------------------------------------- dot products
def _alignment_vs_length(version: str) -> Result:
    """q = (1, 0); k₁ = (1, 0) is perfectly aligned, k₂ = (3, 3) is 45° off but longer."""
    rank = pick(version, note=lambda q, k: float(q @ k / (np.linalg.norm(q) * np.linalg.norm(k))),
                correction=lambda q, k: float(q @ k))
    q, keys = np.array([1.0, 0.0]), [np.array([1.0, 0.0]), np.array([3.0, 3.0])]
    w = softmax(np.array([q @ k for k in keys]))
    predicted = int(np.argmax([rank(q, k) for k in keys]))
    cosines = [float(q @ k / np.linalg.norm(k)) for k in keys]
    cos = rf"$\cos\theta$ = {cosines[0]:.3f}, {cosines[1]:.3f}"
    scores = r"$q^\top k = 1, 3$"
    winner = f"$k_{predicted + 1}$"
    return Result(predicted == int(np.argmax(w)),
                  f"{cos}; scores {scores}; weights {w[0]:.3f}, {w[1]:.3f}: the longer, less "
                  f"aligned key wins; predicted winner {winner}",
                  f"{cos}；分数 {scores}；权重 {w[0]:.3f}, "
                  f"{w[1]:.3f}：更长但方向不那么一致的键胜出；"
                  f"该说法预测胜出的是 {winner}")


@check
def dot_asks_alignment(version: str = "correction") -> Result:
    return _alignment_vs_length(version)


@check
def dot_ruler_direction(version: str = "correction") -> Result:
    return _alignment_vs_length(version)


@check
def aligned_more_attention(version: str = "correction") -> Result:
    return _alignment_vs_length(version)


# ----------------------------------------------------------------------------- architecture
@check
def positions_needed(version: str = "correction") -> Result:
    """Without positions self-attention is permutation-equivariant: reordering the other tokens
    leaves a token's output unchanged, so word order is invisible."""
    with_positions = pick(version, note=False, correction=True)
    rng = np.random.default_rng(61)
    emb, w = rng.normal(size=(3, 6)), _weights(rng)
    pos = np.array([[math.sin(p / 10 ** (2 * (i // 2) / 6) + (i % 2) * math.pi / 2)
                     for i in range(6)] for p in range(3)])

    def out(order):
        x = emb[order] + (pos if with_positions else 0)
        return _attention(x, *w)[0]  # the first token stays first

    gap = float(np.max(np.abs(out([0, 1, 2]) - out([0, 2, 1]))))
    how_en = "with" if with_positions else "without"
    how_zh = "加" if with_positions else "不加"
    return Result(gap > 1e-6,
                  f"output of the first token for the orders (A, B, C) and (A, C, B): largest "
                  f"difference {gap:.3g} ({how_en} positional encodings)",
                  f"顺序 (A, B, C) 与 (A, C, B) 下第一个 token 的输出：最大差异为 {gap:.3g}"
                  f"（{how_zh}位置编码）")


@check
def attention_output_needs_wv(version: str = "correction") -> Result:
    """The attention output is A·V = A·X·W_V, not A·X."""
    rng = np.random.default_rng(62)
    x, (wq, wk, wv) = rng.normal(size=(4, 6)), _weights(rng)
    a = softmax((x @ wq) @ (x @ wk).T / math.sqrt(3))
    candidate = pick(version, note=a @ x, correction=a @ x @ wv)
    ref = _attention(x, wq, wk, wv)
    same = candidate.shape == ref.shape and bool(np.allclose(candidate, ref, atol=1e-12))
    shapes = f"${dims(candidate.shape)}$", f"${dims(ref.shape)}$"
    return Result(same,
                  f"the candidate is {shapes[0]}, the attention output {shapes[1]}; equal: "
                  f"{yes(same)}",
                  f"待检公式的结果为 {shapes[0]}，注意力输出为 {shapes[1]}；两者相等：{shi(same)}")


@check
def attention_stack_nonlinear(version: str = "correction") -> Result:
    """Two attention layers with residuals and no MLP are still nonlinear in X (the softmax)."""
    claims_linear = pick(version, note=True, correction=False)
    rng = np.random.default_rng(63)
    x = rng.normal(size=(4, 6))
    w1 = (*_weights(rng, 6, 6),)
    w2 = (*_weights(rng, 6, 6),)

    def net(x):
        h = x + _attention(x, *w1)
        return h + _attention(h, *w2)

    gap = float(np.max(np.abs(net(2 * x) - 2 * net(x))))
    said_en = "linear" if claims_linear else "not linear"
    said_zh = "线性" if claims_linear else "非线性"
    return Result((gap < 1e-9) == claims_linear,
                  f"two attention layers, no activation: largest $|f(2X) - 2f(X)|$ = {gap:.3g}; "
                  f"claimed: {said_en}",
                  f"两层注意力、没有激活函数：$|f(2X) - 2f(X)|$ 的最大值为 {gap:.3g}；"
                  f"该说法：{said_zh}")


@check
def rnn_gpu_parallel(version: str = "correction") -> Result:
    """One RNN step over a batch of B sequences is one matrix product of B·H independent dot
    products, and the input projections of all T steps are one product: parallel work the
    recurrence does not forbid."""
    rng = np.random.default_rng(64)
    b, t, d, hdim = 8, 5, 3, 4
    xs, u, w = rng.normal(size=(t, b, d)), rng.normal(size=(d, hdim)), rng.normal(size=(hdim, hdim))
    proj_all = (xs.reshape(t * b, d) @ u).reshape(t, b, hdim)  # all steps at once
    h, h_loop = np.zeros((b, hdim)), np.zeros((b, hdim))
    for step in range(t):
        h = np.tanh(h @ (0.5 * w) + proj_all[step])
        h_loop = np.array([np.tanh(h_loop[i] @ (0.5 * w) + xs[step, i] @ u) for i in range(b)])
    same = bool(np.allclose(h, h_loop, atol=1e-12))
    claimed = pick(version, note=1, correction=b * hdim)
    return Result(same and claimed == b * hdim,
                  f"$B = {b}$ sequences, $H = {hdim}$: one step is {b * hdim} independent dot "
                  f"products (batched equals one sequence at a time: {yes(same)}); the input "
                  f"projections of all {t} steps are one product; claimed parallel work per step "
                  f"{claimed}",
                  f"$B = {b}$ 个序列，$H = {hdim}$：一步就是 {b * hdim} 个互相独立的点积"
                  f"（批量计算与逐个序列计算结果相同：{shi(same)}）；"
                  f"全部 {t} 步的输入投影可以用一次"
                  f"矩阵乘法完成；该说法给出的每步并行工作量为 {claimed}")


# ----------------------------------------------------------------------------- second checks
@check
def attention_jacobian_varies(version: str = "correction") -> Result:
    """A linear map has one Jacobian everywhere; self-attention's Jacobian (finite differences)
    changes with X."""
    claims_linear = stated(version, False)
    rng = np.random.default_rng(65)
    x, w = rng.normal(size=(3, 4)), _weights(rng, 4, 2)

    def f(v):
        return _attention(v.reshape(3, 4), *w).ravel()

    j1, j2 = num_jac(f, x.ravel()), num_jac(f, 2 * x.ravel())
    gap = float(np.max(np.abs(j1 - j2)))
    return Result((gap < 1e-6) == claims_linear,
                  f"largest $|J(X) - J(2X)|$ = {gap:.3g} by central differences (0 for a linear "
                  "map)",
                  f"用中心差分求得 $|J(X) - J(2X)|$ 的最大值为 {gap:.3g}（线性映射应为 0）")


@check
def softmax_weights_positive(version: str = "correction") -> Result:
    """1000 random score vectors with entries in [-30, 30]: every weight is positive, and a score
    of 0 gets exactly 1/Σ e^{s_l}."""
    stated(version, None)
    rng = np.random.default_rng(66)
    z = rng.uniform(-30, 30, size=(1000, 6))
    z[:, 0] = 0.0
    p = softmax(z)
    exact = 1 / np.exp(z).sum(axis=1)
    gap = float(np.max(np.abs(p[:, 0] - exact)))
    form = r"$1/\sum_l e^{s_l}$"
    return Result(bool(np.all(p > 0)) and gap < 1e-15,
                  f"smallest weight {p.min():.3g} > 0; weight of the score 0 vs {form}: "
                  f"largest gap {gap:.2g}",
                  f"最小权重为 {p.min():.3g} > 0；分数为 0 "
                  f"的权重与 {form} 相比，最大差距为 {gap:.2g}")


@check
def adam_diagonal_preconditioner(version: str = "correction") -> Result:
    """On a quadratic with a non-diagonal Hessian Newton's first step points at the minimum;
    Adam's first step is -η·sign(g), at an angle to it: no curvature information."""
    stated(version, None)
    h = np.array([[2.0, 1.5], [1.5, 2.0]])
    x0 = np.array([1.0, -0.2])
    g = h @ x0
    newton = -np.linalg.solve(h, g)
    adam = -0.1 * g / (np.abs(g) + 1e-8)
    cos = float(newton @ adam / (np.linalg.norm(newton) * np.linalg.norm(adam)))
    steps = f"$({nums(np.round(newton, 4), 'g')})$", f"$({nums(np.round(adam, 4), 'g')})$"
    return Result(np.allclose(x0 + newton, 0) and cos < 0.99,
                  f"Newton step {steps[0]} lands on 0; Adam step {steps[1]}; cosine between them "
                  f"{cos:.3f}",
                  f"牛顿法的步长 {steps[0]} 正好落到 0；Adam 的步长 {steps[1]}；两者夹角的余弦为 "
                  f"{cos:.3f}")


@check
def attention_edges_per_query(version: str = "correction") -> Result:
    """Weights computed one query at a time: n² positive weights, a_ij ≠ a_ji, self-weights > 0."""
    stated(version, None)
    rng = np.random.default_rng(67)
    n, q, k = 5, rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    a = np.array([softmax(np.array([q[i] @ k[j] for j in range(n)]) / 1.0) for i in range(n)])
    positive = int(np.sum(a > 0))
    asym = float(np.max(np.abs(a - a.T)))
    form = r"$|a_{ij} - a_{ji}|$"
    return Result(positive == n * n and asym > 1e-3 and bool(np.all(np.diag(a) > 0)),
                  f"$n = {n}$: {positive} positive weights, largest {form} = {asym:.3f}, smallest "
                  f"self-weight {np.min(np.diag(a)):.3f}",
                  f"$n = {n}$：有 {positive} 个正权重，{form} 的最大值为 {asym:.3f}，"
                  f"自身权重最小为 {np.min(np.diag(a)):.3f}")
