"""Small computations behind the errata: one function per error, imprecision and numeric example.

Every function takes ``version`` — ``"correction"`` (what the errata registry says is true) or
``"note"`` (what the lecture note says) — computes the facts independently of either version, and
returns a :class:`Result` whose ``passed`` says whether the chosen version agrees with the
computed facts. For an erratum the correction passes and the note's version fails; for a claim
judged correct both pass. ``detail`` carries the computed numbers in English and ``detail_zh``
the same numbers in Chinese (one record, two languages, like ``reason``/``reason_zh`` of the
registry); formulas in both are inline ``$…$`` LaTeX and identical.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from numeric import finite_diff

VERSIONS = ("correction", "note")


@dataclass(frozen=True)
class Result:
    passed: bool
    detail: str
    detail_zh: str = ""  # empty: untranslated, which the i18n test reports


    def __post_init__(self):
        # numpy comparisons yield numpy.bool_, which JSON and the report schema reject
        object.__setattr__(self, "passed", bool(self.passed))


def yes(flag: bool) -> str:
    return "yes" if flag else "no"


def shi(flag: bool) -> str:
    """yes/no in Chinese."""
    return "是" if flag else "否"


def num(x: float, spec: str = ".4g") -> str:
    """A computed number for prose: ∞ and NaN spelled as such, never Python's inf/nan."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return format(x, spec)


def nums(xs, spec: str = ".4g") -> str:
    """Numbers separated by commas (no brackets or quotes of a Python list)."""
    return ", ".join(num(float(x), spec) for x in xs)


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
    """Central differences of a scalar function of an array (numeric.finite_diff's stencil)."""
    return finite_diff.gradient(f, x, h=h)


def num_jac(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """(out.size, x.size) central-difference Jacobian of a function of a vector."""
    return finite_diff.jacobian(finite_diff.rowwise(f), x, h=h)


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
        f"largest gap to the weighted sum of value rows computed one query at a time: {gap:.3g}; "
        f"$f(Q,K,2V) = 2f(Q,K,V)$: {yes(homogeneous)} (true attention is linear in $V$)",
        f"与逐个查询算出的值向量加权和相比，最大偏差为 {gap:.3g}；"
        f"$f(Q,K,2V) = 2f(Q,K,V)$：{shi(homogeneous)}（真正的注意力对 $V$ 是线性的）",
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
    said_en = "linear in $X$" if claims_linear_in_x else "not linear in $X$"
    said_zh = "对 $X$ 线性" if claims_linear_in_x else "对 $X$ 不是线性的"
    return Result(
        fixed_a_linear and linear_in_x == claims_linear_in_x,
        rf"fixed $A$: $A(2V) = 2AV$: {yes(fixed_a_linear)}; full attention: "
        rf"$\max|\mathrm{{attn}}(2X) - 2\,\mathrm{{attn}}(X)|$ = {gap:.3g}, so linear in $X$: "
        f"{yes(linear_in_x)}; claimed: {said_en}",
        rf"固定 $A$ 时 $A(2V) = 2AV$：{shi(fixed_a_linear)}；完整的注意力："
        rf"$\max|\mathrm{{attn}}(2X) - 2\,\mathrm{{attn}}(X)|$ = {gap:.3g}，因此对 $X$ 线性："
        f"{shi(linear_in_x)}；该说法：{said_zh}",
    )


@check
def zero_score_weight(version: str = "correction") -> Result:
    """Query (1,0) against keys (1,0), (0,1), (-1,0): the orthogonal key still gets weight."""
    claimed = pick(version, note=0.0, correction=1 / (math.e + 1 + 1 / math.e))
    w = softmax(np.array([1.0, 0.0, -1.0]))
    shown = rf"$\operatorname{{softmax}}(1, 0, -1) = ({w[0]:.4f}, {w[1]:.4f}, {w[2]:.4f})$"
    return Result(
        abs(w[1] - claimed) < 1e-3,
        f"{shown}; the orthogonal key (score 0) gets weight {w[1]:.4f}, claimed {claimed:.4f}",
        f"{shown}；正交的键（分数为 0）得到的权重是 {w[1]:.4f}，该说法给出 {claimed:.4f}",
    )


@check
def negative_score_weight(version: str = "correction") -> Result:
    """A negative score gives a smaller but positive weight, never a repelling (negative) one."""
    claimed_sign = pick(version, note=-1, correction=1)
    w = softmax(np.array([1.0, 0.0, -1.0]))
    return Result(
        int(np.sign(w[2])) == claimed_sign,
        f"weight of the opposite key (score $-1$) = {w[2]:.4f} > 0; claimed sign {claimed_sign:+d}",
        f"方向相反的键（分数 $-1$）的权重为 {w[2]:.4f} > 0；该说法给出的符号为 {claimed_sign:+d}",
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
    edges = n * (n - 1) // 2
    return Result(
        nonzero == claimed_edges,
        rf"$n = {n}$: the attention matrix has {nonzero} positive weights (smallest diagonal "
        rf"weight {np.min(np.diag(a)):.3f}, $\max|A - A^\top|$ = {asym:.3f}); the complete "
        rf"undirected graph has $n(n-1)/2 = {edges}$ edges; claimed {claimed_edges}",
        rf"$n = {n}$：注意力矩阵有 {nonzero} 个正权重（对角线上最小的权重为 "
        rf"{np.min(np.diag(a)):.3f}，$\max|A - A^\top|$ = {asym:.3f}）；完全无向图只有 "
        rf"$n(n-1)/2 = {edges}$ 条边；该说法给出 {claimed_edges}",
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
    rows, rows_zh = [], []
    ok = True
    for v, w in pairs:
        cos = math.cos(math.atan2(v[1], v[0]) - math.atan2(w[1], w[0]))
        got = similarity(v, w)
        ok &= abs(got - cos) < 1e-12
        pair = f"$v = ({nums(v, 'g')}),\\ w = ({nums(w, 'g')})$"
        rows.append(rf"{pair}: $\cos\theta$ = {cos:.4f}, candidate {got:.4f}")
        rows_zh.append(rf"{pair}：$\cos\theta$ = {cos:.4f}，待检公式给出 {got:.4f}")
    return Result(ok, "; ".join(rows), "；".join(rows_zh))


MODEL_NAMES = {
    "random_sign": {"en": "components of random sign (mean 0)", "zh": "分量符号随机（均值为 0）"},
    "all_positive": {"en": "every component $+0.5$", "zh": "每个分量都是 $+0.5$"},
}


def _score_scale_model(kind: str, d: int, rng) -> float:
    """RMS of q·k/√d for components 0.5 in size: random signs (zero mean) or all +0.5."""
    if kind == "all_positive":
        return 0.25 * d / math.sqrt(d)
    def signs() -> np.ndarray:  # (4000, d) of ±1, as int8: the ±0.5 entries' signs
        return rng.integers(0, 2, size=(4000, d), dtype=np.int8) * np.int8(2) - np.int8(1)
    dots = 0.25 * (signs() * signs()).sum(axis=1, dtype=np.int64)  # (4000,) exact q·k
    return float(np.sqrt(np.mean((dots / math.sqrt(d)) ** 2)))


@check
def sqrt_scaling_needs_zero_mean(version: str = "correction") -> Result:
    """Dividing by √d_k keeps the scale fixed only when components have mean 0."""
    model = pick(version, note="all_positive", correction="random_sign")
    rng = np.random.default_rng(3)
    small, large = _score_scale_model(model, 2, rng), _score_scale_model(model, 4096, rng)
    pos2, pos4096 = _score_scale_model("all_positive", 2, rng), _score_scale_model(
        "all_positive", 4096, rng
    )
    names = MODEL_NAMES[model]
    return Result(
        0.8 < large / small < 1.25,
        rf"{names['en']}: RMS of $q^\top k/\sqrt{{d_k}}$ is {small:.3f} at $d_k = 2$ and "
        rf"{large:.3f} at $d_k = 4096$; with every component $+0.5$ it is {pos2:.3f} and "
        rf"{pos4096:.1f} (it grows like $\sqrt{{d_k}}$)",
        rf"{names['zh']}：$q^\top k/\sqrt{{d_k}}$ 的均方根在 $d_k = 2$ 时为 {small:.3f}，在 "
        rf"$d_k = 4096$ 时为 {large:.3f}；若每个分量都是 $+0.5$，则分别为 {pos2:.3f} 和 "
        rf"{pos4096:.1f}（随 $\sqrt{{d_k}}$ 增长）",
    )


@check
def sum_growth_exponent(version: str = "correction") -> Result:
    """The raw score grows like d_k^p: p = 1/2 for zero-mean terms, p = 1 for same-sign terms."""
    model = pick(version, note="all_positive", correction="random_sign")
    rng = np.random.default_rng(4)
    dims = np.array([16, 64, 256, 1024, 4096])
    scales = [_score_scale_model(model, int(d), rng) * math.sqrt(d) for d in dims]
    p = float(np.polyfit(np.log(dims), np.log(scales), 1)[0])
    names = MODEL_NAMES[model]
    return Result(
        abs(p - 0.5) < 0.05,
        rf"{names['en']}: fitted growth exponent of the unscaled score = {p:.3f}; dividing by "
        rf"$\sqrt{{d_k}}$ only cancels an exponent of 0.5",
        rf"{names['zh']}：未缩放分数的拟合增长指数为 {p:.3f}；除以 $\sqrt{{d_k}}$ "
        "只能抵消 0.5 这个指数",
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
    shown = nums(p)
    return Result(
        uniform,
        f"$e^{{1024}}$ = {num(float(e64))} in float64 and {num(float(e32))} in float32 "
        f"($\\exp$ overflows above {lim64:.2f} and {lim32:.2f}); softmax of four scores 1024 by "
        f"this implementation = ({shown}) (exactly uniform: {yes(uniform)})",
        f"$e^{{1024}}$ 在 float64 中为 {num(float(e64))}，在 float32 中为 {num(float(e32))}"
        f"（自变量超过 {lim64:.2f} 和 {lim32:.2f} 时 $\\exp$ 就会溢出）；用这种实现对四个都等于 "
        f"1024 的分数做 softmax，得到 ({shown})（严格均匀：{shi(uniform)}）",
    )


@check
def scaled_1024(version: str = "correction") -> Result:
    """The note's 1024/√4096 = 1024/64 = 16 and the size of e^16."""
    claimed = pick(version, note=16, correction=16)
    val = Fraction(1024) / math.isqrt(4096)
    e16 = math.exp(16)
    f32, f16 = np.finfo(np.float32).max, np.finfo(np.float16).max
    root = rf"$\sqrt{{4096}} = {math.isqrt(4096)}$, $1024/64 = {val}$"
    return Result(
        math.isqrt(4096) ** 2 == 4096 and val == claimed and np.isfinite(np.float32(e16)),
        f"{root}; $e^{{16}}$ = {e16:.6g} (finite in float32, whose largest value is {f32:.3g}; "
        f"beyond float16's largest value {f16:.0f})",
        f"{root}；$e^{{16}}$ = {e16:.6g}（在 float32 中是有限数，其最大值为 {f32:.3g}；"
        f"但超出了 float16 的最大值 {f16:.0f}）",
    )


@check
def small_dot_examples(version: str = "correction") -> Result:
    """0.5·0.5 + 0.5·0.5 = 0.5 and 4096 · 0.25 = 1024."""
    claimed = pick(version, note=(Fraction(1, 2), 1024), correction=(Fraction(1, 2), 1024))
    two = sum(Fraction(1, 2) * Fraction(1, 2) for _ in range(2))
    big = sum(Fraction(1, 2) * Fraction(1, 2) for _ in range(4096))
    return Result((two, big) == claimed, f"$d_k = 2$: {two}; $d_k = 4096$: {big}",
                  f"$d_k = 2$ 时为 {two}；$d_k = 4096$ 时为 {big}")


# ----------------------------------------------------------------------------- softmax
@check
def softmax_amplification(version: str = "correction") -> Result:
    """Softmax is sharper than proportional normalisation for z=[1,2] but not for z=[0.1,0.2]."""
    claims_always_sharper = pick(version, note=True, correction=False)
    rows, rows_zh, sharper = [], [], []
    for z in ([1.0, 2.0], [0.1, 0.2], [10.0, 20.0]):
        s, lin = softmax(np.array(z)), np.array(z) / sum(z)
        sharper.append(s[1] > lin[1])
        ratio_ok = abs(s[1] / s[0] - math.exp(z[1] - z[0])) < 1e-9
        head = f"$z = ({nums(z, 'g')})$"
        rows.append(f"{head}: largest softmax weight {s[1]:.4f}, proportional {lin[1]:.4f}, ratio "
                    f"$e^{{\\Delta z}}$ holds: {yes(ratio_ok)}")
        rows_zh.append(f"{head}：softmax 的最大权重 {s[1]:.4f}，按比例归一化为 {lin[1]:.4f}，"
                       f"比值等于 $e^{{\\Delta z}}$：{shi(ratio_ok)}")
    claim_en = ("softmax is always sharper than proportional normalisation"
                if claims_always_sharper else "softmax is sharper only for large gaps")
    claim_zh = ("softmax 总比按比例归一化更尖锐" if claims_always_sharper
                else "只有差距大时 softmax 才更尖锐")
    return Result(all(sharper) == claims_always_sharper,
                  "; ".join(rows) + f"; claimed: {claim_en}",
                  "；".join(rows_zh) + f"；该说法：{claim_zh}")


@check
def softmax_12(version: str = "correction") -> Result:
    stated = ([0.27, 0.73], [0.33, 0.67])
    claimed = pick(version, note=stated, correction=stated)
    s = softmax(np.array([1.0, 2.0]))
    lin = [1 / 3, 2 / 3]
    ok = list(np.round(s, 2)) == claimed[0] and [round(x, 2) for x in lin] == claimed[1]
    shown = (rf"$\operatorname{{softmax}}(1, 2) = ({s[0]:.4f}, {s[1]:.4f})$",
             "$(1, 2)/3 = (0.3333, 0.6667)$")
    return Result(ok, "; ".join(shown), "；".join(shown))
