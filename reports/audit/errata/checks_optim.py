"""Evidence for the notes' claims about training: residual connections, cross-entropy, Adam.

Same contract as :mod:`reports.audit.evidence`: ``version`` picks the note's statement or the
correction; the facts are computed independently of both.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reports.audit.evidence import Result, check, num, pick


# ----------------------------------------------------------------------------- residual
def _sv(m: np.ndarray) -> np.ndarray:
    return np.linalg.svd(m, compute_uv=False)


@check
def residual_singular_value_below_one(version: str = "correction") -> Result:
    """I + ∂F/∂X can have a singular value below 1 even when ∂F/∂X is small."""
    bound = pick(
        version,
        note=lambda j: 1.0,
        correction=lambda j: 1.0 - float(_sv(j)[0]),
    )
    j_diag = np.diag([-0.1, 0.05])
    rng = np.random.default_rng(5)
    w1, w2 = 0.15 * rng.normal(size=(6, 6)), 0.15 * rng.normal(size=(6, 6))
    x = rng.normal(size=6)
    j_mlp = w2 @ np.diag(1 - np.tanh(w1 @ x) ** 2) @ w1  # Jacobian of F(x) = W2 tanh(W1 x)
    rows, rows_zh, ok = [], [], True
    for name, j in ((r"\operatorname{diag}(-0.1, 0.05)", j_diag),
                    (r"\partial F/\partial x,\ F(x) = W_2\tanh(W_1x)", j_mlp)):
        smin = float(_sv(np.eye(len(j)) + j)[-1])
        ok &= smin >= bound(j) - 1e-12
        norm = rf"$\lVert J\rVert$ = {_sv(j)[0]:.3f}"
        low = rf"$\sigma_{{\min}}(I + J)$ = {smin:.4f}"
        rows.append(f"$J = {name}$: {norm}, {low}, claimed lower bound {bound(j):.4f}")
        rows_zh.append(f"$J = {name}$：{norm}，{low}，该说法给出的下界为 {bound(j):.4f}")
    return Result(ok, "; ".join(rows), "；".join(rows_zh))


def _residual_gain(per_layer: float, depth: int) -> float:
    """Spectral norm of ∏ (I + J_l) with J_l = per_layer · I in 3 dimensions."""
    m = np.eye(3)
    for _ in range(depth):
        m = (np.eye(3) + per_layer * np.eye(3)) @ m
    return float(_sv(m)[0])


@check
def residual_deep_product(version: str = "correction") -> Result:
    """Over 100 layers, small per-layer Jacobians of one sign compound: 0.95^100 ≈ 0.006."""
    depth, eps = 100, 0.05
    lower = pick(version, note=1.0, correction=(1 - eps) ** depth)
    gains = {s: _residual_gain(s * eps, depth) for s in (-1, 1)}
    return Result(
        min(gains.values()) >= lower - 1e-12 and max(gains.values()) <= (1 + eps) ** depth + 1e-9,
        rf"{depth} layers, $\lVert\partial F/\partial X\rVert$ = {eps}: gain {gains[-1]:.4g} "
        rf"($J = -{eps}I$) to {gains[1]:.4g} ($J = +{eps}I$); claimed lower bound {lower:.4g}",
        rf"{depth} 层，$\lVert\partial F/\partial X\rVert$ = {eps}：增益从 {gains[-1]:.4g}"
        rf"（$J = -{eps}I$）到 {gains[1]:.4g}（$J = +{eps}I$）；该说法给出的下界为 {lower:.4g}",
    )


@check
def residual_elevator(version: str = "correction") -> Result:
    """50 layers whose ∂F/∂X is 'close to 0' (0.02): the signal is scaled by 0.36 to 2.69."""
    depth, eps = 50, 0.02
    tolerance = pick(version, note=0.01, correction=(1 + eps) ** depth - 1)
    gains = [_residual_gain(s * eps, depth) for s in (-1, 0, 1)]
    shown = ", ".join(f"{g:.4f}" for g in gains)
    return Result(
        all(abs(g - 1) <= tolerance + 1e-12 for g in gains),
        f"{depth} layers with $J = -{eps}I$, $0$, $+{eps}I$: gains {shown}; claimed: every "
        f"gain within {tolerance:.4f} of 1 (lossless only when $J = 0$)",
        f"{depth} 层，$J = -{eps}I$、$0$、$+{eps}I$ 时增益分别为 {shown}；该说法：每个增益与 1 "
        f"相差不超过 {tolerance:.4f}（只有 $J = 0$ 时才无损）",
    )


@check
def residual_can_cancel(version: str = "correction") -> Result:
    """With F(X) = -X the residual block outputs 0 and passes no gradient at all."""
    claims_never_zero = pick(version, note=True, correction=False)
    smin = float(_sv(np.eye(3) + (-np.eye(3)))[-1])
    smin_near = float(_sv(np.eye(3) - 0.99 * np.eye(3))[-1])
    said_en = ("$I + J$ is never singular" if claims_never_zero
               else "$I + J$ is singular for $J = -I$")
    said_zh = "$I + J$ 永不奇异" if claims_never_zero else "$J = -I$ 时 $I + J$ 奇异"
    return Result(
        (smin > 0) == claims_never_zero,
        rf"$J = -I$: $\sigma_{{\min}}(I + J)$ = {smin:g}; $J = -0.99I$: {smin_near:.3f}; "
        f"claimed: {said_en}",
        rf"$J = -I$ 时 $\sigma_{{\min}}(I + J)$ = {smin:g}；$J = -0.99I$ 时为 {smin_near:.3f}；"
        f"该说法：{said_zh}",
    )


@check
def residual_toy_sign(version: str = "correction") -> Result:
    """The scalar toy 1 + 0.1 assumes F' > 0; with F' = -0.1 ten layers give 0.9^10 ≈ 0.35."""
    claims_no_decay = pick(version, note=True, correction=False)
    up, down, deep = 1.1**10, 0.9**10, 1.1**100
    said_en = ("no decay whatever the sign of $F'$" if claims_no_decay
               else "decay when $F' < 0$")
    said_zh = "无论 $F'$ 符号如何都不衰减" if claims_no_decay else "$F' < 0$ 时会衰减"
    powers = f"$1.1^{{10}}$ = {up:.4f}, $0.9^{{10}}$ = {down:.4f}, $1.1^{{100}}$ = {deep:.1f}"
    return Result(
        (down >= 1) == claims_no_decay,
        f"{powers}; claimed: {said_en}",
        f"{powers.replace(', ', '，')}；该说法：{said_zh}",
    )


@check
def residual_explosion(version: str = "correction") -> Result:
    """Skip connections alone do not bound growth: per-layer gain 1.1 over 100 layers is 1.4e4."""
    claimed_bound = pick(version, note=10.0, correction=math.inf)
    gain = _residual_gain(0.1, 100)
    rng = np.random.default_rng(6)
    x = rng.normal(size=64)
    norms = [float(np.linalg.norm(x))]
    for _ in range(24):  # forward residual stream x + F(x), F random linear with gain ~0.5
        x = x + (0.5 / math.sqrt(64)) * rng.normal(size=(64, 64)) @ x
        norms.append(float(np.linalg.norm(x)))
    bound_text = num(claimed_bound, "g")
    return Result(
        gain <= claimed_bound,
        f"backward gain with $J = 0.1I$ over 100 layers = {gain:.4g}; forward "
        rf"$\lVert x\rVert$ over 24 random residual blocks: {norms[0]:.2f} → {norms[-1]:.2f}; "
        f"claimed bound {bound_text}",
        f"$J = 0.1I$ 时经过 100 层的反向增益为 {gain:.4g}；前向经过 24 个随机残差块，"
        rf"$\lVert x\rVert$ 从 {norms[0]:.2f} 变为 "
        rf"{norms[-1]:.2f}；该说法给出的上界为 {bound_text}",
    )


@check
def powers_of_ten_layers(version: str = "correction") -> Result:
    """The note's 0.1^10 = 0.0000000001 and 1.1^10 ≈ 2.59."""
    claimed = pick(version, note=("0.0000000001", 2.59), correction=("0.0000000001", 2.59))
    tenth = Fraction(1, 10) ** 10
    grow = Fraction(11, 10) ** 10
    ok = tenth == Fraction(claimed[0]) and round(float(grow), 2) == claimed[1]
    shown = f"$0.1^{{10}} = {tenth}$ = {float(tenth):.1e}; $1.1^{{10}}$ = {float(grow):.6f}"
    return Result(ok, shown, shown.replace("; ", "；"))


# ----------------------------------------------------------------------------- cross-entropy
@check
def ce_example(version: str = "correction") -> Result:
    """The note's guessing game: y = [1,0,0], p = [0.2,0.5,0.3] gives p - y = [-0.8, 0.5, 0.3]."""
    claimed = pick(
        version,
        note=[Fraction(-8, 10), Fraction(5, 10), Fraction(3, 10)],
        correction=[Fraction(-8, 10), Fraction(5, 10), Fraction(3, 10)],
    )
    p = [Fraction(2, 10), Fraction(5, 10), Fraction(3, 10)]
    y = [1, 0, 0]
    g = [pi - yi for pi, yi in zip(p, y, strict=True)]
    diff = ", ".join(str(x) for x in g)
    shown = (f"$\\sum_i p_i = {sum(p)}$; $p - y = ({diff})$; "
             f"$\\sum_i (p_i - y_i) = {sum(g)}$")
    return Result(
        g == claimed and sum(p) == 1,
        shown,
        shown.replace("; ", "；"),
    )


# ----------------------------------------------------------------------------- Adam
def adam_steps(grads, *, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, eps_inside=False, corrected=True):
    """Parameter increments of Adam for a gradient sequence (Kingma & Ba 2015, Algorithm 1)."""
    m = v = 0.0
    out = []
    for t, g in enumerate(grads, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mh = m / (1 - b1**t) if corrected else m
        vh = v / (1 - b2**t) if corrected else v
        denom = math.sqrt(vh + eps) if eps_inside else math.sqrt(vh) + eps
        out.append(-lr * mh / denom)
    return out


@check
def adam_eps_inside(version: str = "correction") -> Result:
    """ε inside the root changes the step by 10x once |g| is near √ε."""
    inside = pick(version, note=True, correction=False)
    rows, rows_zh, ok = [], [], True
    for g in (1.0, 1e-3, 1e-5, 1e-7):
        ref = adam_steps([g])[0]
        got = adam_steps([g], eps_inside=inside)[0]
        ok &= abs(got - ref) <= 1e-9 * abs(ref)
        rows.append(f"$|g| = {g:g}$: the paper's step {ref:.4g}, candidate {got:.4g}")
        rows_zh.append(f"$|g| = {g:g}$：论文中的步长 {ref:.4g}，待检公式给出 {got:.4g}")
    return Result(ok, "; ".join(rows), "；".join(rows_zh))


@check
def adam_bias_correction(version: str = "correction") -> Result:
    """E[m̂_t] = E[g] needs m̂_t = m_t/(1-β1^t) and a stationary gradient mean."""
    corrected = pick(version, note=False, correction=True)
    b1 = Fraction(9, 10)
    sums = []
    for t in range(1, 6):  # E[m_t] = Σ_i (1-β1) β1^(t-i) E[g_i]; the weights must sum to 1
        w = [(1 - b1) * b1 ** (t - i) for i in range(1, t + 1)]
        scale = 1 / (1 - b1**t) if corrected else Fraction(1)
        sums.append(sum(w) * scale)
    trend = sum((1 - b1) * b1 ** (5 - i) * i for i in range(1, 6)) / (1 - b1**5)
    first = adam_steps([0.5], corrected=corrected)[0]
    shown = ", ".join(f"{float(s):.4f}" for s in sums)
    return Result(
        all(s == 1 for s in sums),
        rf"weight sums of $E[\hat{{m}}_t]$ for $t = 1, \dots, 5$: {shown}; first step for "
        rf"$g = 0.5$, $\eta = 10^{{-3}}$: {first:.4g}; with $E[g_i] = i$ the corrected "
        rf"$E[\hat{{m}}_5]$ = {float(trend):.3f} ≠ 5 (unbiased only for a stationary mean)",
        rf"$t = 1, \dots, 5$ 时 $E[\hat{{m}}_t]$ 的权重之和：{shown}；$g = 0.5$、"
        rf"$\eta = 10^{{-3}}$ 时第一步为 {first:.4g}；若 $E[g_i] = i$，修正后的 "
        rf"$E[\hat{{m}}_5]$ = {float(trend):.3f} ≠ 5（只有均值平稳时才无偏）",
    )


@check
def adam_not_second_order(version: str = "correction") -> Result:
    """On f(x) = a·x²/2 Newton lands on 0 in one step; Adam's first step is -lr·sign(g), blind to
    both the curvature a and the distance x0."""
    lr = 0.1
    holds = pick(
        version,
        note=lambda x0, step: abs(x0 + step) < 1e-9,
        correction=lambda x0, step: abs(step + lr * math.copysign(1, x0)) < 1e-5 * lr,
    )
    cases = [(0.01, 1.0), (100.0, 1.0), (1.0, 3.0)]
    rows, rows_zh, ok = [], [], True
    for a, x0 in cases:
        step = adam_steps([a * x0], lr=lr)[0]
        newton = -(a * x0) / a
        ok &= holds(x0, step)
        head = f"$a = {a:g}$, $x_0 = {x0:g}$"
        rows.append(f"{head}: Adam step {step:.4g}, Newton step {newton:.4g}")
        rows_zh.append(f"{head.replace(', ', '，')}：Adam 步长 {step:.4g}，牛顿法步长 {newton:.4g}")
    x, m, v = 1.0, 0.0, 0.0
    for t in range(1, 51):  # 50 Adam steps on a = 100 from x = 1
        g = 100.0 * x
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        x -= lr * (m / (1 - 0.9**t)) / (math.sqrt(v / (1 - 0.999**t)) + 1e-8)
    claim_en, claim_zh = (("lands on the minimum like Newton", "像牛顿法一样一步落到极小点")
                          if version == "note" else
                          (r"steps by $-\eta\operatorname{sign}(g)$",
                           r"每步移动 $-\eta\operatorname{sign}(g)$"))
    return Result(ok,
                  "; ".join(rows) + f"; after 50 Adam steps ($a = 100$) $|x|$ = {abs(x):.3g}; "
                  f"claimed: Adam {claim_en}",
                  "；".join(rows_zh) + f"；Adam 走 50 步后（$a = 100$）$|x|$ = {abs(x):.3g}；"
                  f"该说法：Adam {claim_zh}")
