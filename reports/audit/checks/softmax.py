"""Evidence on softmax itself: its outputs, what saturates it, shift invariance, temperature,
its Jacobian, and the weights it gives to zero and negative scores."""

from __future__ import annotations

import math

import mpmath
import numpy as np

from reports.audit.evidence import (
    Fact,
    Math,
    Nums,
    Said,
    check,
    jac_norm,
    num_jac,
    softmax,
    vec,
    verdict,
)
from reports.audit.formula import evaluate

_SATURATES = ("unscaled scores at $d_k = 4096$ give near one-hot rows whose Jacobian is near 0; "
              "divided by $\\sqrt{d_k}$ they do not",
              "不缩放时，$d_k = 4096$ 的分数使各行接近独热向量、"
              "雅可比矩阵接近 0；除以 $\\sqrt{d_k}$ 后则不会")


@check(right="note", wrong="foil", other="harmless", said=(
    Said("输出接近 One-hot，梯度接近 0", "saturates", _SATURATES),
    Said("防止分数过大，训练更稳定", "saturates", _SATURATES),
))
def softmax_saturation(effect):
    """Unscaled scores at d_k = 4096 give near one-hot rows and a vanishing Jacobian; divided by
    √d_k they do not."""
    rng = np.random.default_rng(13)
    stats = {}
    for name, div in (("unscaled", 1.0), ("scaled", 64.0)):
        pmax, jn = [], []
        for _ in range(20):
            p = softmax(rng.normal(size=(16, 4096)) @ rng.normal(size=4096) / div)
            pmax.append(p.max())
            jn.append(jac_norm(p))
        stats[name] = (float(np.median(pmax)), float(np.median(jn)))
    u, c = stats["unscaled"], stats["scaled"]
    facts = [Fact("saturation_stats", top_u=u[0], jac_u=u[1], top_s=c[0], jac_s=c[1])]
    if effect == "saturates":
        return verdict(facts, Fact("large_scores_saturate"),
                       u[0] > 0.99 and u[1] < 1e-2 and c[1] > 0.1)
    return verdict(facts, Fact("large_scores_harmless"), u[1] > 0.1)


SATURATION_CASES = ((1000, 1000.1, 999.9), (64, 0, -64), (64, 64, -64), (0.5, 0.4, 0.6),
                    (8, 0, 0))


@check(right="correction", wrong="note", other="gap",
       said=Said("极大的输入",
                 "size", ("softmax saturates when its inputs are large, here when the "
                                    "largest $|z_i|$ is above 50",
                                    "输入很大时 softmax 就饱和，这里取"
                                    "最大的 $|z_i|$ 超过 50")))
def softmax_saturation_margin(criterion):
    """Softmax saturates (top weight above 0.99) when its largest input stands far above every
    other — not when the inputs are large, nor when their range is."""
    facts, wrong = [], 0
    for z in SATURATION_CASES:
        z = np.array(z, float)
        p = softmax(z)
        saturated = bool(p.max() > 0.99)
        top, second = np.sort(z)[-1], np.sort(z)[-2]
        predicted = {"size": np.max(np.abs(z)) > 50,
                     "gap": top - second > math.log(99 * (len(z) - 1))}[criterion]
        wrong += bool(predicted) != saturated
        facts.append(Fact("saturation_case", z=vec(z, "g"), top=float(p.max()), jac=jac_norm(p),
                          saturated=saturated))
    n = len(SATURATION_CASES)
    claim = Fact("saturates_when_large" if criterion == "size" else "saturates_by_margin",
                 wrong=wrong, n=n)
    return verdict(facts, claim, wrong == 0)


_DISTRIBUTION = ("every output is between 0 and 1 and each row sums to 1",
                 "每个输出都在 0 与 1 之间，每行之和为 1")


@check(right="note", wrong="foil", other=(0, 0.5), said=(
    Said("0~1的概率分布", (0, 1)),
    Said("每个值在 0 到 1 之间", (0, 1)),
    Said("将向量的值转化为概率分布", (0, 1), _DISTRIBUTION),
    Said("输出非负且和为 1", (0, 1), _DISTRIBUTION),
    Said(r"\frac{e^{z_i}}{\sum_j e^{z_j}}", r"\frac{e^{z_i}}{\sum_j e^{z_j}}"),
))
def softmax_properties(said):
    """Softmax outputs are positive and sum to 1 in every row; the note's formula, evaluated as
    written, is that distribution."""
    z = np.random.default_rng(38).normal(size=(10, 6)) * 5
    p = softmax(z)
    off = float(np.max(np.abs(p.sum(axis=1) - 1)))
    zeros = int(np.sum(p == 0))
    facts = [Fact("softmax_rows", least=float(p.min()), off=off, zeros=zeros)]
    if isinstance(said, str):
        got = np.array([evaluate(said, z_i=row, z_j=row, e=math.e) for row in z])
        gap = float(np.max(np.abs(got - p)))
        return verdict(facts, Fact("formula_is_softmax", form=Math(said), gap=gap), gap < 1e-12)
    lo, hi = said
    return verdict(facts, Fact("weights_between", lo=lo, hi=hi),
                   bool(np.all((lo < p) & (p < hi))) and off < 1e-12)


_MONOTONE = ("a higher score gets a larger weight", "分数越高，权重越大")


@check(right="note", wrong="foil", other="same", said=(
    Said("数值越大，我分给你的注意力权重就越大", "up", _MONOTONE),
    Said("方向完全一致，非常关注", "up", ("the key most aligned with the query, with the highest "
                                   "score, gets the largest weight",
                                   "与查询方向最一致、分数最高的键权重最大")),
    Said("越对齐，越“关注”", "up", _MONOTONE),
))
def softmax_monotone(change):
    """Raising one score raises its weight: ∂p_i/∂z_i = p_i(1 − p_i) > 0."""
    z = np.array([1.0, 0.0, -1.0])
    p = softmax(z)
    diag = p * (1 - p)
    bumped = [float(softmax(z + 0.1 * np.eye(3)[i])[i] - p[i]) for i in range(3)]
    facts = [Fact("monotone", diag=vec(diag, ".4f"), bumped=Nums(bumped, ".3g"))]
    if change == "up":
        return verdict(facts, Fact("higher_more"), min(bumped) > 0 and min(diag) > 0)
    return verdict(facts, Fact("higher_same"), max(abs(b) for b in bumped) < 1e-12)


@check(right="note", wrong="foil", other="cz", said=(
    Said(r"\text{softmax}(z + c) = \text{softmax}(z)", "z + c"),
    Said("分子分母同乘 $e^c$，抵消了",
         "z + c", ("adding $c$ to every input multiplies numerator and "
                                        "denominator by $e^c$",
                                        "每个输入加 $c$，分子分母同乘 $e^c$")),
))
def softmax_shift(change):
    """softmax(z + c) = softmax(z) in 50-digit arithmetic; softmax(cz) is another distribution."""
    with mpmath.workdps(50):
        z = [mpmath.mpf(1), mpmath.mpf(2), mpmath.mpf("-0.5")]

        def sm(v):
            e = [mpmath.exp(x) for x in v]
            return [x / sum(e) for x in e]

        moved = {"z + c": lambda c: [x + c for x in z], "cz": lambda c: [x * c for x in z]}
        gap = max(max(abs(a - b) for a, b in zip(sm(z), sm(moved[change](c)), strict=True))
                  for c in (-5, 3, 1000))
        holds = gap < mpmath.mpf(10) ** -40
    claim = Fact("shift_invariant" if change == "z + c" else "scale_invariant", gap=float(gap))
    return verdict([Fact("shift_setup")], claim, holds)


@check(right="note", wrong="foil", other="direct",
       said=Said("log-sum-exp 技巧的基础", "shift",
                 ("by shift invariance, $\\log\\sum_j e^{z_j}$ is computed after subtracting the "
                  "largest $z_j$",
                  "由平移不变性，$\\log\\sum_j e^{z_j}$ 先减去最大的 $z_j$ 再计算")))
def logsumexp_stable(way):
    """log(e¹⁰⁰⁰ + e⁹⁹⁹): shifting by the maximum gives the exact value, the direct sum ∞."""
    z = np.array([1000.0, 999.0])
    with np.errstate(over="ignore"):
        naive = float(np.log(np.sum(np.exp(z))))
    shifted = float(z.max() + np.log(np.sum(np.exp(z - z.max()))))
    exact = float(mpmath.log(mpmath.exp(1000) + mpmath.exp(999)))
    facts = [Fact("lse_values", naive=naive, shifted=shifted, exact=exact)]
    if way == "shift":
        return verdict(facts, Fact("lse_shift_needed"),
                       abs(shifted - exact) < 1e-9 and not math.isfinite(naive))
    return verdict(facts, Fact("lse_direct_fine"), abs(naive - exact) < 1e-9)


_TEMPERATURE = ("dividing the inputs by $T$: for $T$ below 1 the distribution is sharper, above 1 "
                "flatter (its entropy grows with $T$)",
                "输入除以 $T$：$T$ 小于 1 时分布更尖锐，大于 1 时"
                "更平滑（熵随 $T$ 增大）")


@check(right="note", wrong="foil", other="falls", said=(
    Said("温度参数 $T$", "grows", _TEMPERATURE),
    Said("$T < 1$ 时分布更\"尖锐\"", "grows", _TEMPERATURE),
    Said("softmax 的温度直接控制\"注意力有多集中\"", "grows", _TEMPERATURE),
))
def softmax_temperature(entropy):
    """The entropy of softmax(z/T) grows with T: below 1 sharper, above 1 flatter."""
    z = np.array([1.0, 2.0, 3.0])
    ts = (0.25, 0.5, 1.0, 2.0, 4.0)
    ent = [float(-np.sum(softmax(z / t) * np.log(softmax(z / t)))) for t in ts]
    steps = list(zip(ent, ent[1:], strict=False))
    facts = [Fact("entropy_by_t", ts=Nums(ts, "g"), ent=Nums(ent, ".4f"))]
    if entropy == "grows":
        return verdict(facts, Fact("t_sharpens_below_one"), all(a < b for a, b in steps))
    return verdict(facts, Fact("t_sharpens_above_one"), all(a > b for a, b in steps))


_JACOBIAN = r"\operatorname{diag}(s)-ss^\top"


@check(right="note", wrong="foil", other=r"\operatorname{diag}(s)",
       said=Said("Jacobian 矩阵", _JACOBIAN,
                 ("the derivative of $s = \\operatorname{softmax}(z)$ is the matrix of "
                  "$\\partial s_i/\\partial z_j$, $\\operatorname{diag}(s) - ss^\\top$",
                  "$s = \\operatorname{softmax}(z)$ 的导数是由 $\\partial s_i/\\partial z_j$ 组成的"
                  "矩阵，即 $\\operatorname{diag}(s) - ss^\\top$")))
def softmax_jacobian(form):
    """The finite-difference Jacobian of softmax is diag(s) − ssᵀ, not diag(s)."""
    z = np.array([0.2, -0.7, 1.1, 0.0])
    s = softmax(z)
    got = np.asarray(evaluate(form, s=s.reshape(-1, 1)))
    gap = float(np.max(np.abs(num_jac(softmax, z) - got)))
    return verdict([Fact("jacobian_fd", n=4)], Fact("jacobian_form", form=Math(form), gap=gap),
                   gap < 1e-8)


@check(right="correction", wrong="note", other="apart",
       said=Said("放大了 logits 之间的差距", "always",
                 ("softmax makes the larger input's share bigger than proportional normalisation "
                  "$z_i/\\sum_j z_j$ does, whatever the inputs",
                  "无论输入如何，softmax 给较大输入的份额都比"
                  "按比例归一化 $z_i/\\sum_j z_j$ 更大")))
def softmax_amplification(when):
    """Softmax is sharper than proportional normalisation for z = (1, 2), not for (0.1, 0.2)."""
    facts, sharper = [], []
    for z in ((1.0, 2.0), (0.1, 0.2), (10.0, 20.0)):
        s, lin = softmax(np.array(z)), np.array(z) / sum(z)
        sharper.append(bool(s[1] > lin[1]))
        facts.append(Fact("sharper_case", z=vec(z, "g"), soft=float(s[1]), lin=float(lin[1])))
    if when == "always":
        return verdict(facts, Fact("always_sharper"), all(sharper))
    return verdict(facts, Fact("sharper_when_apart"), sharper == [True, False, True])


@check(right="note", wrong="foil", other=(0.33, 0.67),
       said=Said("softmax 输出约 $[0.27, 0.73]$", (0.27, 0.73)))
def softmax_12(said):
    """softmax(1, 2) ≈ (0.27, 0.73), against the proportional (0.33, 0.67)."""
    s = softmax(np.array([1.0, 2.0]))
    return verdict([Fact("softmax_12", s=vec(s, ".4f"))],
                   Fact("softmax_12_said", v=vec(said, "g")),
                   [round(float(x), 2) for x in s] == list(said))


@check(right="correction", wrong="note", other=1 / (math.e + 1 + 1 / math.e),
       said=Said("不关注", 0.0, ("the key orthogonal to the query (score 0) gets no weight",
                              "与查询正交（分数为 0）的键得不到权重")))
def zero_score_weight(weight):
    """Query (1, 0) against keys (1, 0), (0, 1), (−1, 0): the orthogonal key still gets weight
    1/(e + 1 + 1/e)."""
    w = softmax(np.array([1.0, 0.0, -1.0]))
    facts = [Fact("three_keys", w=vec(w, ".4f"))]
    claim = Fact("orthogonal_ignored") if weight == 0 else Fact("orthogonal_share", share=weight)
    return verdict(facts, claim, abs(w[1] - weight) < 1e-12)


@check(right="correction", wrong="note", other=1,
       said=Said("反向排斥", -1, ("the key opposite to the query gets a negative weight, pushing "
                              "it away", "与查询方向相反的键得到负权重，起排斥作用")))
def negative_score_weight(sign):
    """A negative score gives a smaller but positive weight, never a repelling (negative) one."""
    w = softmax(np.array([1.0, 0.0, -1.0]))
    facts = [Fact("three_keys", w=vec(w, ".4f"))]
    claim = Fact("opposite_repels") if sign < 0 else Fact("opposite_small")
    return verdict(facts, claim, np.sign(w[2]) == sign and w[2] < w[1])


@check(right="note", wrong="foil", other=0.0,
       said=Said("不关注", "share", ("a score of 0 gets the weight $1/\\sum_l e^{s_l}$, never 0",
                                  "分数为 0 的键得到权重 $1/\\sum_l e^{s_l}$，而不是 0")))
def softmax_weights_positive(share):
    """1000 random rows with scores in [−30, 30]: every weight is positive, and a score of 0 gets
    exactly 1/Σ e^{s_l}."""
    z = np.random.default_rng(66).uniform(-30, 30, size=(1000, 6))
    z[:, 0] = 0.0
    p = softmax(z)
    exact = 1 / np.exp(z).sum(axis=1)
    said = exact if share == "share" else np.full(len(z), float(share))
    facts = [Fact("positive_weights", least=float(p.min()),
                  gap=float(np.max(np.abs(p[:, 0] - exact))))]
    claim = Fact("zero_score_share") if share == "share" else Fact("zero_score_nothing")
    return verdict(facts, claim, bool(np.all(p > 0))
                   and float(np.max(np.abs(p[:, 0] - said))) < 1e-15)
