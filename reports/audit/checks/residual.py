"""Evidence on depth: products of layer Jacobians, residual connections I + ∂F/∂X, what they
guarantee and what they do not, and layer normalisation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reports.audit.evidence import Fact, Math, Nums, Said, Term, check, num_jac, verdict
from reports.audit.formula import evaluate, relation


def _sv(m: np.ndarray) -> np.ndarray:
    return np.linalg.svd(m, compute_uv=False)


def _random_jacobian(rng, d: int, norm: float) -> np.ndarray:
    g = rng.normal(size=(d, d))
    return norm * g / np.linalg.norm(g, 2)


_PRODUCT = ("the Jacobian of a stack of layers is the product of the layers' Jacobians, "
            "and over many layers it shrinks",
            "多层堆叠的雅可比矩阵是各层雅可比矩阵的乘积，层数多了就会变小")


@check(right="note", wrong="foil", other="sum", said=(
    Said("∂X∂Y=∏∂Fi−1∂Fi（连乘，极易趋于0）", "product", _PRODUCT),
    Said("深层网络面临梯度消失", "product", _PRODUCT),
))
def chain_rule_product(law):
    """The Jacobian of six tanh layers is the product of the layer Jacobians, and it shrinks."""
    rng = np.random.default_rng(32)
    ws = [0.25 * rng.normal(size=(4, 4)) for _ in range(6)]
    x0 = rng.normal(size=4)

    def net(x):
        for w in ws:
            x = np.tanh(w @ x)
        return x

    prod, total, x, norms = np.eye(4), np.zeros((4, 4)), x0, []
    for w in ws:
        layer = np.diag(1 - np.tanh(w @ x) ** 2) @ w
        prod, total, x = layer @ prod, total + layer, np.tanh(w @ x)
        norms.append(float(np.linalg.norm(prod, 2)))
    fd = num_jac(net, x0)
    gap = float(np.max(np.abs(fd - {"product": prod, "sum": total}[law])))
    facts = [Fact("chain_norms", norms=Nums(norms, ".2g"))]
    claim = Fact("chain_is_product" if law == "product" else "chain_is_sum", gap=gap)
    return verdict(facts, claim, gap < 1e-8 and (law != "product" or norms[-1] < norms[0]))


_RESIDUAL = r"I+\frac{\partial F}{\partial X}"


@check(right="note", wrong="foil", other=r"\frac{\partial F}{\partial X}", said=(
    Said("∂X∂Y=I+∂X∂F", _RESIDUAL),
    Said("残差连接：解决“怎么深”的问题", _RESIDUAL, ("the residual connection's Jacobian is "
                                           "$I + \\partial F/\\partial X$",
                                           "残差连接的雅可比矩阵是 "
                                           "$I + \\partial F/\\partial X$")),
    Said("通过引入“跳跃连接”理解深度网络中的梯度消失或爆炸问题", _RESIDUAL,
         ("read as written (理解, understand): the skip connection's Jacobian "
          "$I + \\partial F/\\partial X$ is what shows how gradients pass a block",
          "按原文“理解”来读：残差连接的雅可比矩阵 $I + \\partial F/\\partial X$ 说明了梯度如何穿过"
          "一个块")),
))
def residual_jacobian(form):
    """∂(X + F(X))/∂X = I + ∂F/∂X, by central differences on Y = X + tanh(WX)."""
    rng = np.random.default_rng(33)
    w, x = rng.normal(size=(4, 4)), rng.normal(size=4)
    jf = np.diag(1 - np.tanh(w @ x) ** 2) @ w
    fd = num_jac(lambda v: v + np.tanh(w @ v), x)
    gap = float(np.max(np.abs(fd - evaluate(form, I=np.eye(4), **{"∂F/∂X": jf}))))
    claim = Fact("jacobian_plus_identity" if form == _RESIDUAL else "jacobian_branch_only",
                 gap=gap)
    return verdict([Fact("residual_block")], claim, gap < 1e-8)


def _small_jacobians():
    """The note's toy 0.1·I and three other Jacobians of norm about 0.1 or more."""
    rng = np.random.default_rng(5)
    w1, w2 = 0.15 * rng.normal(size=(6, 6)), 0.15 * rng.normal(size=(6, 6))
    x = rng.normal(size=6)
    a = 0.1
    rotation = np.array([[math.cos(a) - 1, -math.sin(a)], [math.sin(a), math.cos(a) - 1]])
    return (("toy", 0.1 * np.eye(2)), ("diag", np.diag([-0.1, 0.05])),
            ("mlp", w2 @ np.diag(1 - np.tanh(w1 @ x) ** 2) @ w1), ("rotation", rotation))


@check(right="correction", wrong="note", other=r"1-\lVert J\rVert", said=Said("至少为1", "1"))
def residual_at_least_one(bound):
    """σ_min(I + J) against the bound as written, for the note's own toy and three other small
    Jacobians; σ_min(I + J) ≥ 1 holds exactly when J + Jᵀ + JᵀJ is positive semidefinite (the
    SVD and the criterion computed independently)."""
    facts, wrong = [], 0
    for name, j in _small_jacobians():
        smin = float(_sv(np.eye(len(j)) + j)[-1])
        lam = float(np.linalg.eigvalsh(j + j.T + j.T @ j).min())
        wrong += smin < float(evaluate(bound, J=j)) - 1e-12
        facts.append(Fact("gain_case", case=Term(f"jacobian_{name}"), norm=float(_sv(j)[0]),
                          smin=smin, lam=lam))
    return verdict(facts, Fact("gain_bound", form=Math(bound), wrong=wrong, n=len(facts)),
                   wrong == 0)


_LOSSLESS = ("with small branch Jacobians, the product of the $I + J_l$ keeps every singular "
             "value at 1: nothing is lost",
             "分支的雅可比矩阵很小时，各层 $I + J_l$ 的乘积的奇异值都保持为 1："
             "没有任何损失")


@check(right="correction", wrong="note", other="orthogonal", said=(
    Said("能够无损地传回浅层", "small", _LOSSLESS),
    Said("把信号从顶楼无损送回一楼", "small", _LOSSLESS),
))
def residual_lossless(criterion):
    """Fifty layers of random Jacobians of norm 0.02 scale the signal by 0.91 to 1.11; a rotation
    step, nonzero, is exactly lossless: smallness is not the criterion, orthogonality is."""
    d, depth, eps = 16, 50, 0.02
    rng = np.random.default_rng(8)
    a = eps
    rotation = np.array([[math.cos(a) - 1, -math.sin(a)], [math.sin(a), math.cos(a) - 1]])
    steps = {"random": [_random_jacobian(rng, d, eps) for _ in range(depth)],
             "rotation": [rotation] * depth}
    facts, ok = [], True
    for name, js in steps.items():
        n = len(js[0])
        prod = np.eye(n)
        for j in js:
            prod = (np.eye(n) + j) @ prod
        sv = _sv(prod)
        lossless = bool(np.allclose(sv, 1, atol=1e-9))
        orthogonal = all(np.allclose(j + j.T + j.T @ j, 0, atol=1e-12) for j in js)
        ok &= {"small": True, "orthogonal": orthogonal}[criterion] == lossless
        facts.append(Fact("lossless_stack", stack=Term(f"stack_{name}"), low=float(sv[-1]),
                          high=float(sv[0]), lossless=lossless))
    claim = (Fact("small_is_lossless", depth=depth, eps=eps) if criterion == "small"
             else Fact("orthogonal_is_lossless"))
    return verdict(facts, claim, ok)


@check(right="note", wrong="foil", other="plain",
       said=Said("训练数十层甚至上百层网络的数学基石", "identity",
                 ("over a hundred layers of small branches the identity path keeps the "
                  "gradient's product far from 0, where the bare product of the branches goes to 0",
                  "上百层小分支叠加时，恒等支路使梯度的乘积远离 0，而各分支直接相乘则趋于 0")))
def residual_foundation(path):
    """100 layers, random branch Jacobians of norm 0.05: the identity path keeps ∏(I + J_l)
    between (1 − ε)¹⁰⁰ and (1 + ε)¹⁰⁰, far from the vanishing ∏J_l."""
    d, depth, eps = 16, 100, 0.05
    rng = np.random.default_rng(7)
    res, plain = np.eye(d), np.eye(d)
    for _ in range(depth):
        j = _random_jacobian(rng, d, eps)
        res, plain = (np.eye(d) + j) @ res, j @ plain
    sv, bare = _sv(res), float(np.linalg.norm(plain, 2))
    facts = [Fact("foundation_product", low=float(sv[-1]), high=float(sv[0]), bare=bare,
                  lo_bound=(1 - eps) ** depth, hi_bound=(1 + eps) ** depth)]
    if path == "identity":
        return verdict(facts, Fact("foundation_identity_path"),
                       sv[-1] > 1e6 * bare and (1 - eps) ** depth <= sv[-1]
                       and sv[0] <= (1 + eps) ** depth)
    return verdict(facts, Fact("foundation_plain_path"), bare >= (1 - eps) ** depth)


@check(right="correction", wrong="note", other="small",
       said=Said("保证梯度畅通，让几百层网络得以训练", "any",
                 ("the identity path guarantees that the gradient flows through 300 layers, "
                  "whatever the branches", "无论分支如何，恒等支路都保证梯度能流过 300 层")))
def residual_depth(branches):
    """300 layers: with branch Jacobians of norm 0.0003 the gradient is guaranteed to flow; with
    norm 0.02 it can vanish (0.98³⁰⁰ when every branch damps a little), though random branches
    happen to keep it."""
    d, depth = 8, 300
    rng = np.random.default_rng(70)
    facts, ok = [], True
    for eps in (0.0003, 0.02):
        mins = {}
        for kind in ("random", "damping"):
            prod = np.eye(d)
            for _ in range(depth):
                j = _random_jacobian(rng, d, eps) if kind == "random" else -eps * np.eye(d)
                prod = (np.eye(d) + j) @ prod
            mins[kind] = float(_sv(prod)[-1])
        predicted = {"any": True, "small": (1 - eps) ** depth >= 0.1}[branches]
        ok &= predicted == (min(mins.values()) >= 0.1)
        facts.append(Fact("depth_case", eps=eps, random=mins["random"], damping=mins["damping"],
                          bound=(1 - eps) ** depth))
    claim = Fact("identity_guarantees_flow" if branches == "any" else "flow_needs_small_branches",
                 depth=depth)
    return verdict(facts, claim, ok)


@check(right="correction", wrong="note", other=False,
       said=Said("保证底层永远能收到顶层的信号", True,
                 ("$I + J$ is never singular: some signal always reaches the bottom",
                  "$I + J$ 永远不会奇异：总有信号到达底层")))
def residual_can_cancel(never_singular):
    """A branch with F(X) = −X cancels the skip: I + J is singular and no gradient passes;
    σ_min(I + J) ≥ 1 − ‖J‖ keeps it positive only while ‖J‖ < 1."""
    facts, mins = [], []
    for norm in (0.5, 0.99, 1.0):
        smin = float(_sv(np.eye(3) - norm * np.eye(3))[-1])
        mins.append((norm, smin))
        facts.append(Fact("cancel_case", j=Math(f"J = -{norm:g}I" if norm != 1 else "J = -I"),
                          smin=smin))
    never = all(s > 0 for _, s in mins)
    bounded = all(s >= 1 - n - 1e-12 for n, s in mins)
    if never_singular:
        return verdict(facts, Fact("never_singular"), never)
    return verdict(facts, Fact("singular_possible"), bounded and not never)


@check(right="note", wrong="foil", other="1.1^{10}≈2.00", said=(
    Said("0.1^10=0.0000000001", "0.1^{10}=0.0000000001"),
    Said("1.1^10≈2.59", "1.1^{10}≈2.59"),
    Said("相当于乘以 0.1", "0.1^{1}=0.1", ("after one layer the gradient is 0.1",
                                       "经过一层，梯度为 0.1")),
    Said("第 1 层梯度：0.1", "0.1^{1}=0.1", ("after one layer the gradient is 0.1",
                                        "经过一层，梯度为 0.1")),
    Said("第 1 层梯度：1.1", "1.1^{1}=1.1", ("after one layer the gradient is 1.1",
                                        "经过一层，梯度为 1.1")),
    Said("1+0.1", "1+0.1=1.1", ("the toy's residual factor per layer: the identity's 1 plus the "
                                "branch's 0.1",
                                "玩具例子中每层的残差因子：恒等支路的 1 加上分支的 0.1")),
    Said("甚至还有点放大", "1.1^{10}>1", ("after the toy's 10 layers of factor 1.1 the gradient "
                                     "is above 1",
                                     "玩具例子的 10 层、每层因子 1.1 之后，梯度大于 1")),
))
def powers_of_ten_layers(arithmetic):
    """The note's toy arithmetic in exact rationals: 0.1¹⁰ = 0.0000000001, 1.1¹⁰ ≈ 2.59 and
    what it says of one layer; each statement evaluated as written."""
    tenth, grow = Fraction(1, 10) ** 10, Fraction(11, 10) ** 10
    facts = [Fact("toy_exact", tenth=float(tenth), grow=float(grow))]
    rel, left, right, holds = relation(arithmetic)
    shown = arithmetic.replace("≈", r"\approx ")
    return verdict(facts, Fact("dot_written", sum=Math(shown)), holds)


def _stack(s: float, kind: str, d: int = 64, depth: int = 50, trials: int = 5) -> float:
    """Median backward gain ‖Jᵀg‖/‖g‖ over ``depth`` random layers of gain ``s``: plain, with
    skips ("res"), with LayerNorm after each layer ("ln"), or both."""
    gains = []
    for t in range(trials):
        rng = np.random.default_rng(t)
        x, jac = rng.normal(size=d), np.eye(d)
        for _ in range(depth):
            w = s * rng.normal(size=(d, d)) / math.sqrt(d)
            y, jl = (x + w @ x, np.eye(d) + w) if "res" in kind else (w @ x, w)
            if "ln" in kind:
                sd = math.sqrt(y.var() + 1e-5)
                yh = (y - y.mean()) / sd
                jl = (np.eye(d) - 1 / d - np.outer(yh, yh) / d) / sd @ jl
                y = yh
            x, jac = y, jl @ jac
        g = np.random.default_rng(99 + t).normal(size=d)
        gains.append(np.linalg.norm(jac.T @ g) / np.linalg.norm(g))
    return float(np.median(gains))


def _usable(gain: float) -> bool:
    return 1e-2 <= gain <= 1e3


@check(right="note", wrong="foil", other="no_effect",
       said=Said("同样理解深度网络中的梯度消失或爆炸问题", "steadies",
                 ("read as written (理解, understand): with LayerNorm after each layer the "
                  "gradient's gain over depth no longer depends on the weights' scale",
                  "按原文“理解”来读：每层之后加层规范化，梯度随深度的增益不再依赖权重的尺度")))
def layernorm_gradient_scale(effect):
    """With LayerNorm after each layer the backward gain over 50 layers no longer depends on the
    weight scale: LN(sWx) = LN(Wx)."""
    facts, ln = [], {}
    for s in (0.5, 2.0):
        plain, ln[s] = _stack(s, "plain"), _stack(s, "ln")
        facts.append(Fact("ln_gains", s=s, plain=plain, ln=ln[s]))
    if effect == "steadies":
        return verdict(facts, Fact("ln_steadies"), all(_usable(v) for v in ln.values()))
    return verdict(facts, Fact("ln_no_effect"), max(ln.values()) / min(ln.values()) > 1e3)


@check(right="note", wrong="foil", other="keeps_scale",
       said=Said("保证数值在一个范围内", "bounded",
                 ("LayerNorm's output has mean 0, variance 1 and $|\\hat{x}_i| \\le \\sqrt{d-1}$, "
                  "whatever the input's scale",
                  "无论输入的尺度如何，层规范化的输出均值为 0、方差为 1，且 "
                  "$|\\hat{x}_i| \\le \\sqrt{d-1}$")))
def layernorm_bounded(output):
    """Rows of any scale come out of LayerNorm with mean 0, variance 1 and |x̂| ≤ √(d − 1)."""
    d = 8
    x = np.vstack([np.random.default_rng(39).normal(size=(5, d)) * 100, np.eye(d)[0] * 1e6])
    xh = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    top = float(np.max(np.abs(xh)))
    facts = [Fact("ln_rows", var=Nums(xh.var(axis=1), ".4f"), top=top, bound=math.sqrt(d - 1))]
    if output == "bounded":
        return verdict(facts, Fact("ln_in_range"), bool(np.allclose(xh.mean(axis=1), 0))
                       and top <= math.sqrt(d - 1) + 1e-9)
    return verdict(facts, Fact("ln_keeps_scale"), top > 1e3)

