"""Small computations behind the errata: one function per error, imprecision and numeric example.

Every function takes ``version`` — ``"correction"`` (what the errata registry says is true) or
``"note"`` (what the lecture note says) — computes the facts independently of either version, and
returns a :class:`Result` whose ``passed`` says whether the chosen version agrees with the
computed facts. For an erratum the correction passes and the note's version fails; for a claim
judged correct both pass. ``detail`` carries the computed numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

VERSIONS = ("correction", "note")


@dataclass(frozen=True)
class Result:
    passed: bool
    detail: str

    def __post_init__(self):
        # numpy comparisons yield numpy.bool_, which JSON and the report schema reject
        object.__setattr__(self, "passed", bool(self.passed))


def pick(version: str, *, note, correction):
    """The candidate for ``version``; a bad version is a one-line error naming the choices."""
    if version not in VERSIONS:
        raise ValueError(f"version: expected one of {VERSIONS}, got {version!r}")
    return note if version == "note" else correction


CHECKS: dict[str, Callable[[str], Result]] = {}


def check(fn: Callable[[str], Result]) -> Callable[[str], Result]:
    """Register ``fn`` as an evidence computation under its own name; a name is registered once."""
    if fn.__name__ in CHECKS:
        raise ValueError(f"evidence {fn.__name__!r}: registered twice "
                         f"({CHECKS[fn.__name__].__module__} and {fn.__module__})")
    CHECKS[fn.__name__] = fn
    return fn


def stated(version: str, value):
    """Claims where the note and the correction agree: both versions get ``value``."""
    return pick(version, note=value, correction=value)


def num_grad(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of a scalar function of an array."""
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        g[idx] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def num_jac(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.stack(cols, axis=1)


def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    """Max-shifted softmax: exp never sees a positive argument, so it cannot overflow."""
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention_loop(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Attention spelled out per query, independent of any matrix formula under test."""
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        w = softmax(np.array([q[i] @ k[j] for j in range(k.shape[0])]) / math.sqrt(q.shape[1]))
        out[i] = sum(w[j] * v[j] for j in range(v.shape[0]))
    return out


def _qkv(n: int = 4, d_k: int = 3, d_v: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))


# ----------------------------------------------------------------------------- attention
@check
def misplaced_bracket(version: str = "correction") -> Result:
    """Softmax(QKᵀ/√d_k)V versus the bracket around V: only the first is attention."""
    formula = pick(
        version,
        note=lambda q, k, v: softmax(q @ k.T @ v / math.sqrt(q.shape[1])),
        correction=lambda q, k, v: softmax(q @ k.T / math.sqrt(q.shape[1])) @ v,
    )
    q, k, v = _qkv()
    ref = attention_loop(q, k, v)
    got = formula(q, k, v)
    gap = float(np.max(np.abs(got - ref)))
    homogeneous = np.allclose(formula(q, k, 2 * v), 2 * got)
    return Result(
        gap < 1e-12 and homogeneous,
        f"max |formula - per-query weighted sum of value rows| = {gap:.3g}; "
        f"formula(Q,K,2V) == 2·formula(Q,K,V): {homogeneous} (attention is linear in V)",
    )


@check
def attention_not_linear(version: str = "correction") -> Result:
    """For fixed A the map V -> AV is linear, but A = softmax(...) itself depends on X."""
    claims_linear_in_x = pick(version, note=True, correction=False)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 6))
    wq, wk, wv = (rng.normal(size=(6, 3)) for _ in range(3))

    def attn(x):
        return softmax((x @ wq) @ (x @ wk).T / math.sqrt(3)) @ (x @ wv)

    a = softmax((x @ wq) @ (x @ wk).T / math.sqrt(3))
    fixed_a_linear = np.allclose(a @ (2 * x @ wv), 2 * (a @ (x @ wv)))
    gap = float(np.max(np.abs(attn(2 * x) - 2 * attn(x))))
    linear_in_x = gap < 1e-9
    return Result(
        fixed_a_linear and linear_in_x == claims_linear_in_x,
        f"fixed A: A(2V) == 2AV: {fixed_a_linear}; full attention: "
        f"max |attn(2X) - 2·attn(X)| = {gap:.3g}, so linear in X: {linear_in_x}; claimed "
        f"linear in X: {claims_linear_in_x}",
    )


@check
def zero_score_weight(version: str = "correction") -> Result:
    """Query (1,0) against keys (1,0), (0,1), (-1,0): the orthogonal key still gets weight."""
    claimed = pick(version, note=0.0, correction=1 / (math.e + 1 + 1 / math.e))
    w = softmax(np.array([1.0, 0.0, -1.0]))
    return Result(
        abs(w[1] - claimed) < 1e-3,
        f"softmax([1, 0, -1]) = [{w[0]:.4f}, {w[1]:.4f}, {w[2]:.4f}]; "
        f"the orthogonal key (score 0) gets weight {w[1]:.4f}, claimed {claimed:.4f}",
    )


@check
def negative_score_weight(version: str = "correction") -> Result:
    """A negative score gives a smaller but positive weight, never a repelling (negative) one."""
    claimed_sign = pick(version, note=-1, correction=1)
    w = softmax(np.array([1.0, 0.0, -1.0]))
    return Result(
        int(np.sign(w[2])) == claimed_sign,
        f"weight of the opposite key (score -1) = {w[2]:.4f} > 0; claimed sign {claimed_sign:+d}",
    )


@check
def attention_graph(version: str = "correction") -> Result:
    """Attention weights are directed and include self-loops: n² edges, not n(n-1)/2."""
    n = 4
    claimed_edges = pick(version, note=n * (n - 1) // 2, correction=n * n)
    q, k, _ = _qkv(n=n, seed=2)
    a = softmax(q @ k.T / math.sqrt(q.shape[1]))
    nonzero = int(np.count_nonzero(a > 0))
    asym = float(np.max(np.abs(a - a.T)))
    return Result(
        nonzero == claimed_edges,
        f"n = {n}: the attention matrix has {nonzero} positive weights (diagonal min "
        f"{np.min(np.diag(a)):.3f}, max |A - Aᵀ| = {asym:.3f}); the complete undirected graph "
        f"has n(n-1)/2 = {n * (n - 1) // 2} edges; claimed {claimed_edges}",
    )


# ----------------------------------------------------------------------------- dot products
@check
def dot_is_cosine(version: str = "correction") -> Result:
    """The dot product equals cosine similarity only for unit vectors."""
    similarity = pick(
        version,
        note=lambda v, w: float(v @ w),
        correction=lambda v, w: float(v @ w / (np.linalg.norm(v) * np.linalg.norm(w))),
    )
    pairs = [
        (np.array([2.0, 0.0]), np.array([3.0, 0.0])),
        (np.array([1.0, 1.0]), np.array([0.0, 2.0])),
    ]
    rows = []
    ok = True
    for v, w in pairs:
        cos = math.cos(math.atan2(v[1], v[0]) - math.atan2(w[1], w[0]))
        got = similarity(v, w)
        ok &= abs(got - cos) < 1e-12
        rows.append(f"v={v.tolist()}, w={w.tolist()}: cos θ = {cos:.4f}, candidate {got:.4f}")
    return Result(ok, "; ".join(rows))


def _score_scale_model(kind: str, d: int, rng) -> float:
    """RMS of q·k/√d for components 0.5 in size: random signs (zero mean) or all +0.5."""
    if kind == "all_positive":
        return 0.25 * d / math.sqrt(d)
    s = rng.choice([-0.5, 0.5], size=(4000, d)) * rng.choice([-0.5, 0.5], size=(4000, d))
    return float(np.sqrt(np.mean((s.sum(axis=1) / math.sqrt(d)) ** 2)))


@check
def sqrt_scaling_needs_zero_mean(version: str = "correction") -> Result:
    """Dividing by √d_k keeps the scale fixed only when components have mean 0."""
    model = pick(version, note="all_positive", correction="random_sign")
    rng = np.random.default_rng(3)
    small, large = _score_scale_model(model, 2, rng), _score_scale_model(model, 4096, rng)
    pos2, pos4096 = _score_scale_model("all_positive", 2, rng), _score_scale_model(
        "all_positive", 4096, rng
    )
    return Result(
        0.8 < large / small < 1.25,
        f"model {model}: RMS of q·k/√d_k is {small:.3f} at d_k=2 and {large:.3f} at d_k=4096; "
        f"with every component +0.5 it is {pos2:.3f} and {pos4096:.1f} (grows like √d_k)",
    )


@check
def sum_growth_exponent(version: str = "correction") -> Result:
    """The raw score grows like d_k^p: p = 1/2 for zero-mean terms, p = 1 for same-sign terms."""
    model = pick(version, note="all_positive", correction="random_sign")
    rng = np.random.default_rng(4)
    dims = np.array([16, 64, 256, 1024, 4096])
    scales = [_score_scale_model(model, int(d), rng) * math.sqrt(d) for d in dims]
    p = float(np.polyfit(np.log(dims), np.log(scales), 1)[0])
    return Result(
        abs(p - 0.5) < 0.05,
        f"model {model}: fitted growth exponent of the unscaled score = {p:.3f}; "
        "dividing by √d_k only cancels an exponent of 0.5",
    )


@check
def exp_overflow(version: str = "correction") -> Result:
    """e^1024 overflows, but softmax evaluated as exp(z - max z) never computes it."""
    impl = pick(
        version,
        note=lambda z: np.exp(z) / np.exp(z).sum(),
        correction=softmax,
    )
    z = np.full(4, 1024.0)  # the note's example: every score is 0.25·4096 = 1024
    with np.errstate(over="ignore", invalid="ignore"):
        e64 = np.exp(np.float64(1024.0))
        e32 = np.exp(np.float32(1024.0))
        p = impl(z)
    lim64, lim32 = math.log(np.finfo(np.float64).max), math.log(np.finfo(np.float32).max)
    uniform = bool(np.all(np.isfinite(p))) and bool(np.allclose(p, 0.25, atol=1e-15))
    shown = ", ".join(f"{v:.4g}" for v in p)
    return Result(
        uniform,
        f"exp(1024) = {e64} in float64 and {e32} in float32 (exp overflows above "
        f"{lim64:.2f} and {lim32:.2f}); softmax of four scores 1024 by this implementation = "
        f"[{shown}] (exactly uniform: {'yes' if uniform else 'no'})",
    )


@check
def scaled_1024(version: str = "correction") -> Result:
    """The note's 1024/√4096 = 1024/64 = 16 and the size of e^16."""
    claimed = pick(version, note=16, correction=16)
    val = Fraction(1024) / math.isqrt(4096)
    e16 = math.exp(16)
    return Result(
        math.isqrt(4096) ** 2 == 4096 and val == claimed and np.isfinite(np.float32(e16)),
        f"√4096 = {math.isqrt(4096)}, 1024/64 = {val}; e^16 = {e16:.6g} (finite in float32, max "
        f"{np.finfo(np.float32).max:.3g}; above float16's {np.finfo(np.float16).max:.0f})",
    )


@check
def small_dot_examples(version: str = "correction") -> Result:
    """0.5·0.5 + 0.5·0.5 = 0.5 and 4096 · 0.25 = 1024."""
    claimed = pick(version, note=(Fraction(1, 2), 1024), correction=(Fraction(1, 2), 1024))
    two = sum(Fraction(1, 2) * Fraction(1, 2) for _ in range(2))
    big = sum(Fraction(1, 2) * Fraction(1, 2) for _ in range(4096))
    return Result((two, big) == claimed, f"d_k=2: {two}; d_k=4096: {big}")


# ----------------------------------------------------------------------------- softmax
@check
def softmax_amplification(version: str = "correction") -> Result:
    """Softmax is sharper than proportional normalisation for z=[1,2] but not for z=[0.1,0.2]."""
    claims_always_sharper = pick(version, note=True, correction=False)
    rows, sharper = [], []
    for z in ([1.0, 2.0], [0.1, 0.2], [10.0, 20.0]):
        s, lin = softmax(np.array(z)), np.array(z) / sum(z)
        sharper.append(s[1] > lin[1])
        ratio_ok = abs(s[1] / s[0] - math.exp(z[1] - z[0])) < 1e-9
        rows.append(f"z={z}: softmax max {s[1]:.4f}, proportional {lin[1]:.4f}, "
                    f"ratio e^Δz holds: {ratio_ok}")
    claim = "always sharper" if claims_always_sharper else "sharper only for large gaps"
    return Result(all(sharper) == claims_always_sharper,
                  "; ".join(rows) + f"; claimed: softmax {claim} than proportional")


@check
def softmax_12(version: str = "correction") -> Result:
    stated = ([0.27, 0.73], [0.33, 0.67])
    claimed = pick(version, note=stated, correction=stated)
    s = softmax(np.array([1.0, 2.0]))
    lin = [1 / 3, 2 / 3]
    ok = list(np.round(s, 2)) == claimed[0] and [round(x, 2) for x in lin] == claimed[1]
    return Result(ok, f"softmax([1,2]) = [{s[0]:.4f}, {s[1]:.4f}]; [1,2]/3 = [0.3333, 0.6667]")


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
