"""Evidence for the notes' claims about training: residual connections, cross-entropy, Adam.

Same contract as :mod:`reports.audit.evidence`: ``version`` picks the note's statement or the
correction; the facts are computed independently of both.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reports.audit.evidence import Result, check, pick


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
    rows, ok = [], True
    for name, j in (("diag(-0.1, 0.05)", j_diag), ("F(x)=W2·tanh(W1·x)", j_mlp)):
        smin = float(_sv(np.eye(len(j)) + j)[-1])
        ok &= smin >= bound(j) - 1e-12
        rows.append(f"J = {name}: ||J|| = {_sv(j)[0]:.3f}, σ_min(I + J) = {smin:.4f}, "
                    f"claimed lower bound {bound(j):.4f}")
    return Result(ok, "; ".join(rows))


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
        f"{depth} layers, ||∂F/∂X|| = {eps}: gain {gains[-1]:.4g} (J = -{eps}I) to "
        f"{gains[1]:.4g} (J = +{eps}I); claimed lower bound {lower:.4g}",
    )


@check
def residual_elevator(version: str = "correction") -> Result:
    """50 layers whose ∂F/∂X is 'close to 0' (0.02): the signal is scaled by 0.36 to 2.69."""
    depth, eps = 50, 0.02
    tolerance = pick(version, note=0.01, correction=(1 + eps) ** depth - 1)
    gains = [_residual_gain(s * eps, depth) for s in (-1, 0, 1)]
    return Result(
        all(abs(g - 1) <= tolerance + 1e-12 for g in gains),
        f"{depth} layers with J = -{eps}I, 0, +{eps}I: gains "
        + ", ".join(f"{g:.4f}" for g in gains)
        + f"; claimed |gain - 1| <= {tolerance:.4f} (lossless only when J = 0)",
    )


@check
def residual_can_cancel(version: str = "correction") -> Result:
    """With F(X) = -X the residual block outputs 0 and passes no gradient at all."""
    claims_never_zero = pick(version, note=True, correction=False)
    smin = float(_sv(np.eye(3) + (-np.eye(3)))[-1])
    smin_near = float(_sv(np.eye(3) - 0.99 * np.eye(3))[-1])
    return Result(
        (smin > 0) == claims_never_zero,
        f"J = -I: σ_min(I + J) = {smin}; J = -0.99I: {smin_near:.3f}; claimed: I + J "
        f"{'never singular' if claims_never_zero else 'singular for J = -I'}",
    )


@check
def residual_toy_sign(version: str = "correction") -> Result:
    """The scalar toy 1 + 0.1 assumes F' > 0; with F' = -0.1 ten layers give 0.9^10 ≈ 0.35."""
    claims_no_decay = pick(version, note=True, correction=False)
    up, down, deep = 1.1**10, 0.9**10, 1.1**100
    return Result(
        (down >= 1) == claims_no_decay,
        f"1.1^10 = {up:.4f}, 0.9^10 = {down:.4f}, 1.1^100 = {deep:.1f}; claimed: "
        f"{'no decay whatever the sign of F′' if claims_no_decay else 'decay when F′ < 0'}",
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
    return Result(
        gain <= claimed_bound,
        f"backward gain with J = 0.1I over 100 layers = {gain:.4g}; forward ||x|| over 24 "
        f"random residual blocks: {norms[0]:.2f} -> {norms[-1]:.2f}; claimed bound {claimed_bound}",
    )


@check
def powers_of_ten_layers(version: str = "correction") -> Result:
    """The note's 0.1^10 = 0.0000000001 and 1.1^10 ≈ 2.59."""
    claimed = pick(version, note=("0.0000000001", 2.59), correction=("0.0000000001", 2.59))
    tenth = Fraction(1, 10) ** 10
    grow = Fraction(11, 10) ** 10
    ok = tenth == Fraction(claimed[0]) and round(float(grow), 2) == claimed[1]
    return Result(ok, f"0.1^10 = {tenth} = {float(tenth):.1e}; 1.1^10 = {float(grow):.6f}")


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
    return Result(
        g == claimed and sum(p) == 1,
        f"sum(p) = {sum(p)}; p - y = {[str(x) for x in g]}; sum(p - y) = {sum(g)}",
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
    rows, ok = [], True
    for g in (1.0, 1e-3, 1e-5, 1e-7):
        ref = adam_steps([g])[0]
        got = adam_steps([g], eps_inside=inside)[0]
        ok &= abs(got - ref) <= 1e-9 * abs(ref)
        rows.append(f"|g|={g:g}: paper step {ref:.4g}, candidate {got:.4g}")
    return Result(ok, "; ".join(rows))


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
    return Result(
        all(s == 1 for s in sums),
        f"weight sums of E[m̂_t] for t=1..5: {[f'{float(s):.4f}' for s in sums]}; first step "
        f"for g=0.5, lr=1e-3: {first:.4g}; with E[g_i]=i the corrected E[m̂_5] = "
        f"{float(trend):.3f} != 5 (unbiased only for a stationary mean)",
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
    rows, ok = [], True
    for a, x0 in cases:
        step = adam_steps([a * x0], lr=lr)[0]
        newton = -(a * x0) / a
        ok &= holds(x0, step)
        rows.append(f"a={a:g}, x0={x0:g}: Adam step {step:.4g}, Newton step {newton:.4g}")
    x, m, v = 1.0, 0.0, 0.0
    for t in range(1, 51):  # 50 Adam steps on a = 100 from x = 1
        g = 100.0 * x
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        x -= lr * (m / (1 - 0.9**t)) / (math.sqrt(v / (1 - 0.999**t)) + 1e-8)
    claim = "lands on the minimum like Newton" if version == "note" else "steps by -η·sign(g)"
    return Result(ok, "; ".join(rows) + f"; after 50 Adam steps (a=100) |x| = {abs(x):.3g}; "
                  f"claimed: Adam {claim}")
