"""Confirming computations for correct claims about embeddings, score variance and attention.

Same contract as :mod:`reports.audit.evidence`: each function takes ``version`` and returns a
``Result``. Since these claims are right, the note's version and the correction coincide, and a
test checks that both pass — a failure here would mean the verdict ``correct`` is wrong.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from reports.audit.evidence import (
    Result,
    attention_loop,
    check,
    nums,
    shi,
    softmax,
    stated,
    yes,
)


# ----------------------------------------------------------------------------- embeddings
@check
def onehot_orthogonal(version: str = "correction") -> Result:
    off_diag = stated(version, 0)
    e = np.eye(5)
    gram = e @ e.T
    worst = float(np.max(np.abs(gram - np.diag(np.diag(gram)))))
    return Result(worst == off_diag,
                  f"the Gram matrix of 5 one-hot vectors is $I_5$; largest off-diagonal dot "
                  f"product = {worst:g} (every pair of distinct words is equally dissimilar)",
                  f"5 个 one-hot 向量的格拉姆矩阵是 $I_5$；非对角线上最大的点积为 {worst:g}"
                  "（任意两个不同的词彼此同样不相似）")


@check
def embedding_lookup(version: str = "correction") -> Result:
    shape = stated(version, (4,))
    emb = np.random.default_rng(10).normal(size=(6, 4))
    rows_ok = all(np.array_equal(emb.T @ np.eye(6)[i], emb[i]) for i in range(6))
    ok = rows_ok and (emb.T @ np.eye(6)[2]).shape == shape
    return Result(ok,
                  rf"$E \in \mathbb{{R}}^{{6\times 4}}$: $E^\top e_i$ equals row $i$ of $E$ for "
                  rf"every $i$: {yes(rows_ok)}; it is a vector in $\mathbb{{R}}^{{{shape[0]}}}$",
                  rf"$E \in \mathbb{{R}}^{{6\times 4}}$：对每个 $i$，$E^\top e_i$ 都等于 $E$ 的"
                  rf"第 $i$ 行：{shi(rows_ok)}；它是 $\mathbb{{R}}^{{{shape[0]}}}$ 中的向量")


@check
def dot_cos_identity(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(11)
    gaps = []
    for _ in range(5):
        v, w = rng.normal(size=2), rng.normal(size=2)
        theta = math.atan2(v[1], v[0]) - math.atan2(w[1], w[0])
        gaps.append(abs(v @ w - np.linalg.norm(v) * np.linalg.norm(w) * math.cos(theta)))
    return Result(max(gaps) < 1e-12,
                  rf"largest $\bigl|v\cdot w - \lVert v\rVert\,\lVert w\rVert\cos\theta\bigr|$ "
                  f"over 5 random pairs = {max(gaps):.2g}",
                  f"在 5 对随机向量上，"
                  rf"$\bigl|v\cdot w - \lVert v\rVert\,\lVert w\rVert\cos\theta\bigr|$ "
                  f"的最大值为 {max(gaps):.2g}")


@check
def dot_examples(version: str = "correction") -> Result:
    claimed = stated(version, (1, 0, -1))
    a = np.array([1, 0])
    got = tuple(int(a @ np.array(b)) for b in ((1, 0), (0, 1), (-1, 0)))
    shown = f"$(1,0)\\cdot(1,0),\\ (1,0)\\cdot(0,1),\\ (1,0)\\cdot(-1,0) = {nums(got, 'g')}$"
    return Result(got == claimed, shown, shown)


# ----------------------------------------------------------------------------- variance
def _pm_sqrt2():
    """Mean 0, variance 1, not ±1: P(±√2) = 1/4, P(0) = 1/2."""
    return [(-sp.sqrt(2), sp.Rational(1, 4)), (sp.Integer(0), sp.Rational(1, 2)),
            (sp.sqrt(2), sp.Rational(1, 4))]


def _exact_var_of_dot(d: int, scale) -> sp.Expr:
    """Exact Var(scale·Σ q_m k_m) with all 2d components i.i.d. from _pm_sqrt2()."""
    mean = second = sp.Integer(0)
    for combo in itertools.product(_pm_sqrt2(), repeat=2 * d):
        val = scale * sum(combo[m][0] * combo[d + m][0] for m in range(d))
        p = sp.Mul(*(c[1] for c in combo))
        mean += p * val
        second += p * val**2
    return sp.simplify(second - mean**2)


@check
def product_variance(version: str = "correction") -> Result:
    claimed = stated(version, 1)
    dist = _pm_sqrt2()
    e = sum(p * x for x, p in dist)
    e2 = sum(p * x**2 for x, p in dist)
    direct = _exact_var_of_dot(1, 1)
    var = e2 * e2 - (e * e) ** 2
    law = rf"$E[q^2]\,E[k^2] - (E[q]\,E[k])^2 = {var}$"
    return Result(sp.simplify(var) == claimed and direct == claimed,
                  f"$E[q] = {e}$, $E[q^2] = {e2}$; {law}; $\\operatorname{{Var}}(qk)$ by "
                  f"enumeration = {direct}",
                  f"$E[q] = {e}$，$E[q^2] = {e2}$；{law}；穷举所有取值得到 "
                  f"$\\operatorname{{Var}}(qk)$ = {direct}")


@check
def dot_variance(version: str = "correction") -> Result:
    law = stated(version, lambda d: d)
    got = {d: _exact_var_of_dot(d, 1) for d in (1, 2, 3)}
    shown = nums(got.values(), "g")
    return Result(all(v == law(d) for d, v in got.items()),
                  rf"exact $\operatorname{{Var}}(q^\top k)$ by enumeration for $d_k = 1, 2, 3$: "
                  f"{shown}",
                  rf"穷举得到 $d_k = 1, 2, 3$ 时 $\operatorname{{Var}}(q^\top k)$ 的精确值："
                  f"{shown}")


@check
def scaled_variance(version: str = "correction") -> Result:
    target = stated(version, 1)
    got = [_exact_var_of_dot(d, 1 / sp.sqrt(d)) for d in (1, 2, 3)]
    shown = nums(got, "g")
    return Result(all(v == target for v in got),
                  rf"exact $\operatorname{{Var}}(q^\top "
                  rf"k/\sqrt{{d_k}})$ for $d_k = 1, 2, 3$: {shown}",
                  rf"$d_k = 1, 2, 3$ 时 $\operatorname{{Var}}(q^\top k/\sqrt{{d_k}})$ 的精确值："
                  f"{shown}")


def _mc_scores(d: int, samples: int = 2000, seed: int = 12) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(samples // 500):  # chunks keep memory small at d = 4096
        out.append(np.einsum("ij,ij->i", rng.normal(size=(500, d)), rng.normal(size=(500, d))))
    return np.concatenate(out)


@check
def std_sqrt_dk(version: str = "correction") -> Result:
    std = stated(version, lambda d: math.sqrt(d))
    s = _mc_scores(64)
    return Result(abs(s.std() / std(64) - 1) < 0.06,
                  rf"$d_k = 64$, 2000 Gaussian samples: standard deviation of $q^\top k$ = "
                  rf"{s.std():.2f}, $\sqrt{{d_k}}$ = {std(64):g}",
                  rf"$d_k = 64$，2000 个高斯样本：$q^\top k$ 的标准差为 {s.std():.2f}，"
                  rf"$\sqrt{{d_k}}$ = {std(64):g}")


def _scores_scale(version: str, d: int) -> Result:
    rms = stated(version, math.sqrt(d))
    s = _mc_scores(d)
    inside = float(np.mean(np.abs(s) <= rms))
    rms_got, top = float(np.sqrt(np.mean(s**2))), float(np.max(np.abs(s)))
    return Result(abs(rms_got / rms - 1) < 0.06,
                  f"$d_k = {d}$: RMS score {rms_got:.2f} (stated scale $\\pm{rms:g}$); "
                  f"{inside:.0%} of the scores lie inside $\\pm{rms:g}$, largest |score| {top:.1f}",
                  f"$d_k = {d}$：分数的均方根为 {rms_got:.2f}（所说的尺度为 $\\pm{rms:g}$）；"
                  f"{inside:.0%} 的分数落在 $\\pm{rms:g}$ 之内，|分数| 最大为 {top:.1f}")


@check
def scores_scale_64(version: str = "correction") -> Result:
    return _scores_scale(version, 64)


@check
def scores_scale_4096(version: str = "correction") -> Result:
    return _scores_scale(version, 4096)


@check
def softmax_saturation(version: str = "correction") -> Result:
    """Unscaled scores at d_k = 4096 give near one-hot rows and a vanishing Jacobian."""
    stated(version, None)
    rng = np.random.default_rng(13)
    stats = {}
    for name, div in (("unscaled", 1.0), ("scaled", 64.0)):
        pmax, jn = [], []
        for _ in range(20):
            s = rng.normal(size=(16, 4096)) @ rng.normal(size=4096) / div
            p = softmax(s)
            pmax.append(p.max())
            jn.append(np.linalg.norm(np.diag(p) - np.outer(p, p), 2))
        stats[name] = (float(np.median(pmax)), float(np.median(jn)))
    u, c = stats["unscaled"], stats["scaled"]
    return Result(u[0] > 0.99 and u[1] < 1e-2 and c[1] > 0.1,
                  f"16 keys, median over 20 queries: unscaled, largest weight {u[0]:.6f} and "
                  f"$\\lVert J\\rVert$ = {u[1]:.2g}; divided by $\\sqrt{{d_k}}$, largest weight "
                  f"{c[0]:.3f} and $\\lVert J\\rVert$ = {c[1]:.3f}",
                  f"16 个键，取 20 个查询的中位数：不缩放时最大权重为 {u[0]:.6f}，"
                  f"$\\lVert J\\rVert$ = {u[1]:.2g}；除以 $\\sqrt{{d_k}}$ 后最大权重为 {c[0]:.3f}，"
                  f"$\\lVert J\\rVert$ = {c[1]:.3f}")


# ----------------------------------------------------------------------------- attention
@check
def attention_formula(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(14)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    gap = float(np.max(np.abs(softmax(q @ k.T / math.sqrt(3)) @ v - attention_loop(q, k, v))))
    return Result(gap < 1e-12,
                  r"all rows at once as $\operatorname{softmax}(QK^\top/\sqrt{d_k})\,V$ vs one "
                  f"query at a time: largest difference {gap:.2g}",
                  r"用 $\operatorname{softmax}(QK^\top/\sqrt{d_k})\,V$ 一次算出所有行，与逐个查询"
                  f"计算相比，最大差异为 {gap:.2g}")


@check
def attention_row_mixing(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(15)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    a = softmax(q @ k.T / math.sqrt(3))
    out = a @ v
    convex = bool(np.all(out >= v.min(axis=0) - 1e-12) and np.all(out <= v.max(axis=0) + 1e-12))
    ok = a.shape == (5, 5) and bool(np.all(a > 0)) and np.allclose(a.sum(axis=1), 1) and convex
    sums = nums(np.round(a.sum(axis=1), 12), "g")
    return Result(ok,
                  f"$A$ is ${a.shape[0]}\\times{a.shape[1]}$, smallest weight {a.min():.3f}, row "
                  f"sums {sums}; each output column lies within the range of the same column of "
                  f"$V$: {yes(convex)}",
                  f"$A$ 为 ${a.shape[0]}\\times{a.shape[1]}$，最小权重为 {a.min():.3f}，各行之和为 "
                  f"{sums}；输出的每一列都落在 $V$ 对应列的取值范围内：{shi(convex)}")


@check
def qk_entry(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(16)
    q, k = rng.normal(size=(4, 3)), rng.normal(size=(6, 3))
    s = q @ k.T
    ok = s.shape == (4, 6) and all(
        abs(s[i, j] - sum(q[i, m] * k[j, m] for m in range(3))) < 1e-12
        for i in range(4) for j in range(6))
    sym = bool(np.allclose(q[:4] @ k[:4].T, (q[:4] @ k[:4].T).T))
    shape = rf"$QK^\top$ is ${s.shape[0]}\times{s.shape[1]}$"
    entry = r"$(QK^\top)_{ij} = \sum_m q_{im} k_{jm}$"
    return Result(ok,
                  f"{shape} (queries × keys); {entry}: {yes(ok)}; $QK^\\top$ symmetric: "
                  f"{yes(sym)}",
                  f"{shape.replace(' is ', ' 为 ')}（查询数 × 键数）；{entry}：{shi(ok)}；"
                  f"$QK^\\top$ 对称：{shi(sym)}")


@check
def attention_shapes(version: str = "correction") -> Result:
    n, d_model, d_k = stated(version, (5, 16, 4))
    rng = np.random.default_rng(17)
    x = rng.normal(size=(n, d_model))
    wq, wk, wv = (rng.normal(size=(d_model, d_k)) for _ in range(3))
    q, k, v = x @ wq, x @ wk, x @ wv
    out = softmax(q @ k.T / math.sqrt(d_k)) @ v
    def dims(shape):
        return "\\times".join(str(x) for x in shape)

    shown = (f"$X$: ${dims(x.shape)}$, $W$: ${dims(wq.shape)}$, $Q, K, V$: ${dims(q.shape)}$, "
             f"$A$: ${dims((n, n))}$")
    return Result(q.shape == k.shape == (n, d_k) and out.shape == (n, d_k),
                  f"{shown}, output: ${dims(out.shape)}$",
                  f"{shown.replace(': ', '：').replace(', $', '，$')}，输出：${dims(out.shape)}$")


@check
def multihead_shapes(version: str = "correction") -> Result:
    h, d_model = stated(version, (8, 512))
    d_k = d_model // h
    rng = np.random.default_rng(18)
    x = rng.normal(size=(3, d_model))
    heads = []
    for _ in range(h):
        wq, wk, wv = (rng.normal(size=(d_model, d_k)) / math.sqrt(d_model) for _ in range(3))
        heads.append(softmax((x @ wq) @ (x @ wk).T / math.sqrt(d_k)) @ (x @ wv))
    concat = np.concatenate(heads, axis=1)
    out = concat @ rng.normal(size=(h * d_k, d_model))
    shown = (f"$d_k = {d_model}/{h} = {d_k}$; ", f"$\\mathrm{{Concat}}$: "
             f"${concat.shape[0]}\\times{concat.shape[1]}$, $W_O$: ${h * d_k}\\times{d_model}$, ")
    ok = d_k * h == d_model and concat.shape == (3, 512) and out.shape == (3, 512)
    out_shape = f"${out.shape[0]}\\times{out.shape[1]}$"
    return Result(ok, f"{shown[0]}{shown[1]}output: {out_shape}",
                  f"{shown[0].replace('; ', '；')}"
                  f"{shown[1].replace(': ', '：').replace(', ', '，')}输出：{out_shape}")


@check
def weighted_input_then_project(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(19)
    x, wv = rng.normal(size=(4, 6)), rng.normal(size=(6, 3))
    a = softmax(rng.normal(size=(4, 4)))
    gap = float(np.max(np.abs(a @ (x @ wv) - (a @ x) @ wv)))
    return Result(gap < 1e-12,
                  f"largest $|A(XW_V) - (AX)W_V|$ = {gap:.2g}: weighting the raw input and then "
                  "projecting equals weighting $V$",
                  f"$|A(XW_V) - (AX)W_V|$ 的最大值为 {gap:.2g}：先对原始输入加权再投影，"
                  "与直接对 $V$ 加权相同")


@check
def naive_self_attention(version: str = "correction") -> Result:
    stated(version, None)
    x = np.random.default_rng(20).normal(size=(4, 3))
    s = x @ x.T
    out = softmax(s) @ x
    sym = bool(np.allclose(s, s.T))
    return Result(s.shape == (4, 4) and out.shape == (4, 3) and sym,
                  f"$XX^\\top$ is $4\\times 4$, symmetric: {yes(sym)} (one vector plays query and "
                  f"key); $\\operatorname{{softmax}}(XX^\\top)X$ is ${out.shape[0]}\\times"
                  f"{out.shape[1]}$",
                  f"$XX^\\top$ 为 $4\\times 4$，对称：{shi(sym)}（同一个向量既当查询又当键）；"
                  f"$\\operatorname{{softmax}}(XX^\\top)X$ 为 ${out.shape[0]}\\times"
                  f"{out.shape[1]}$")


@check
def scores_not_distribution(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(21)
    s = rng.normal(size=(4, 3)) @ rng.normal(size=(4, 3)).T
    sums = nums(np.round(s.sum(axis=1), 2), "g")
    return Result(bool(s.min() < 0) and not np.allclose(s.sum(axis=1), 1),
                  f"the entries of $QK^\\top$ range from {s.min():.2f} to {s.max():.2f}; row sums "
                  f"{sums}",
                  f"$QK^\\top$ 的元素从 {s.min():.2f} 到 {s.max():.2f}；各行之和为 {sums}")


@check
def attention_kernel_smoother(version: str = "correction") -> Result:
    """Attention is a normalised kernel sum Σ_j K(q_i,k_j) v_j / Σ_j K(q_i,k_j)."""
    stated(version, None)
    rng = np.random.default_rng(22)
    q, k, v = rng.normal(size=(3, 2)), rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    kern = np.exp(q @ k.T / math.sqrt(2))
    smoothed = kern @ v / kern.sum(axis=1, keepdims=True)
    gap = float(np.max(np.abs(smoothed - attention_loop(q, k, v))))
    return Result(gap < 1e-12,
                  f"normalised-kernel form vs attention: largest difference {gap:.2g}",
                  f"归一化核平滑的形式与注意力相比，最大差异为 {gap:.2g}")
