"""Evidence on attention scores and their √d_k scaling: the variance of qᵀk, the note's worked
example (components 0.5, d_k = 2 and 4096, 1024 and 16), overflow, and what the division does
to one row of scores — its spread — as opposed to their common level."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import sympy as sp

from reports.audit.evidence import Fact, Math, Nums, Said, check, jac_norm, softmax, vec, verdict
from reports.audit.formula import chain, evaluate


# ----------------------------------------------------------------------------- exact variances
def _pm_sqrt2():
    """Mean 0, variance 1, not ±1: P(±√2) = 1/4, P(0) = 1/2."""
    return [(-sp.sqrt(2), sp.Rational(1, 4)), (sp.Integer(0), sp.Rational(1, 2)),
            (sp.sqrt(2), sp.Rational(1, 4))]


def _exact_var_of_dot(d: int, scale) -> sp.Expr:
    """Exact Var(scale·Σ q_m k_m) with all 2d components i.i.d. from _pm_sqrt2(), by enumeration."""
    mean = second = sp.Integer(0)
    for combo in itertools.product(_pm_sqrt2(), repeat=2 * d):
        val = scale * sum(combo[m][0] * combo[d + m][0] for m in range(d))
        p = sp.Mul(*(c[1] for c in combo))
        mean += p * val
        second += p * val**2
    return sp.simplify(second - mean**2)


@check(right="note", wrong="foil", other=2, said=(
    Said("=1×1", 1),
    Said("相互独立，均值为0，方差为1", 1, ("with these moments, $\\operatorname{Var}(q_m k_m) = 1$",
                                 "在这些前提下，$\\operatorname{Var}(q_m k_m) = 1$")),
))
def product_variance(var):
    """Var(q k) = E[q²]E[k²] − (E[q]E[k])² = 1 for independent mean-0, variance-1 factors,
    against the variance computed by enumerating a mean-0, variance-1 law."""
    dist = _pm_sqrt2()
    e, e2 = sum(p * x for x, p in dist), sum(p * x**2 for x, p in dist)
    direct = _exact_var_of_dot(1, 1)
    facts = [Fact("product_moments", e=int(e), e2=int(e2), var=int(direct))]
    claim = Fact("product_var_law" if var == 1 else "product_var_sum", var=var)
    return verdict(facts, claim, direct == var)


@check(right="note", wrong="foil", other="d_k^2", said=(
    Said("Var(qTk)=m=1∑dkVar(qmkm)=dk", "d_k"),
    Said("由于各项独立，点积和的方差为",
         "d_k", ("the variances of the $d_k$ independent products add "
                                      "up to $d_k$", "$d_k$ 个相互独立的乘积，方差相加得 $d_k$")),
))
def dot_variance(form):
    """Var(qᵀk) = d_k: the variances of the d_k independent products add."""
    got = [int(_exact_var_of_dot(d, 1)) for d in (1, 2, 3)]
    said = [int(evaluate(form, d_k=d)) for d in (1, 2, 3)]
    claim = Fact("dot_var_dk" if form == "d_k" else "dot_var_dk2")
    return verdict([Fact("dot_var_exact", got=Nums(got, "g"))], claim, got == said)


@check(right="note", wrong="foil", other="d_k", said=(
    Said("Var(dkqTk)=dk1×dk=1", r"\sqrt{d_k}"),
    Said("除以标准差 dk", r"\sqrt{d_k}"),
))
def scaled_variance(divisor):
    """Var(qᵀk/√d_k) = 1 (the note's "dk" is √d_k, its root lost in the copy); dividing by d_k
    instead would give 1/d_k."""
    got = [_exact_var_of_dot(d, 1 / evaluate(divisor, d_k=sp.Integer(d)))
           for d in (1, 2, 3)]
    shown = Nums([float(g) for g in got], ".4g")
    claim = Fact("scaled_var_sqrt" if "sqrt" in divisor else "scaled_var_dk", got=shown)
    return verdict([Fact("scaled_var_setup")], claim, all(g == 1 for g in got))


@check(right="correction", wrong="note", other=r"\sigma^4",
       said=Said("归一化", "1", ("dividing by $\\sqrt{d_k}$ normalises: the variance is 1 whatever "
                              "the scale of the components",
                              "除以 $\\sqrt{d_k}$ 就是归一化：无论分量的尺度"
                              "如何，方差都是 1")))
def scaled_variance_scale(target):
    """Dividing by √d_k is a fixed rescaling, not a normalisation: Var(qᵀk/√d_k) = σ_q²σ_k², which
    is 1 only for unit-variance components."""
    rng = np.random.default_rng(60)
    d, facts, ok = 256, [], True
    for sd in (1.0, 3.0):
        s = np.sum(rng.normal(0, sd, (20000, d)) * rng.normal(0, sd, (20000, d)), axis=1)
        var = float(np.var(s / math.sqrt(d)))
        ok &= abs(var / float(evaluate(target, sigma=sd)) - 1) < 0.1
        facts.append(Fact("scaled_var_mc", sd=sd, var=var, exact=sd**4))
    claim = Fact("division_normalises" if target == "1" else "division_scales")
    return verdict(facts, claim, ok)


# ----------------------------------------------------------------------------- Monte Carlo scale
def _mc_scores(d: int, samples: int = 2000, seed: int = 12) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(samples // 500):  # chunks keep memory small at d = 4096
        out.append(np.einsum("ij,ij->i", rng.normal(size=(500, d)), rng.normal(size=(500, d))))
    return np.concatenate(out)


@check(right="note", wrong="foil", other="d_k", said=(
    Said("点积的标准差为 dk", r"\sqrt{d_k}"),
    Said("大数炸弹",
         r"\sqrt{d_k}", ("the dot product's standard deviation, $\\sqrt{d_k}$, grows with "
                                 "the dimension", "点积的标准差 $\\sqrt{d_k}$ 随维数增大")),
))
def std_sqrt_dk(form):
    """The standard deviation of qᵀk is √d_k (d_k = 64: 8)."""
    sd = float(_mc_scores(64).std())
    said = float(evaluate(form, d_k=64))
    claim = Fact("sd_is_sqrt", d=64, sd=8) if "sqrt" in form else Fact("sd_is_dk", d=64)
    return verdict([Fact("score_sd", d=64, sd=sd)], claim, abs(sd / said - 1) < 0.06)


@check(right="note", wrong="foil", other=(4096, 8), said=(
    Said("当 dk=64 时，得分通常在 ±8 左右", (64, 8)),
    Said("当 dk=4096 时，得分可达 ±64", (4096, 64)),
))
def score_scale(said):
    """Scores of size ±8 at d_k = 64 and ±64 at d_k = 4096: the scale grows like √d_k."""
    rms = {d: float(np.sqrt(np.mean(_mc_scores(d) ** 2))) for d in (64, 4096)}
    inside = float(np.mean(np.abs(_mc_scores(64)) <= 8))
    facts = [Fact("score_rms", r64=rms[64], r4096=rms[4096], inside=100 * inside)]
    d, scale = said
    return verdict(facts, Fact("scale_at", d=d, scale=scale), abs(rms[d] / scale - 1) < 0.06)


# ----------------------------------------------------------------------------- the worked example
@check(right="note", wrong="foil", other="0.25×4096=2048", said=(
    Said("0.5×0.5+0.5×0.5=0.25+0.25=0.5", "0.5×0.5+0.5×0.5=0.25+0.25=0.5"),
    Said("0.25×4096=1024", "0.25×4096=1024"),
    Said("4096 个 0.25 加起来", "4096×0.25=1024", ("adding 4096 terms of 0.25 gives 1024",
                                             "4096 个 0.25 相加得 1024")),
    Said("这个数不大", "0.5×0.5+0.5×0.5=0.5", ("the score of the two-dimensional example is 0.5",
                                          "二维例子的分数为 0.5")),
))
def small_dot_examples(arithmetic):
    """0.5·0.5 + 0.5·0.5 = 0.5 and the sum of 4096 products 0.25 = 1024, in exact arithmetic;
    the note's written-out sums, evaluated as written, agree with them."""
    half = Fraction(1, 2)
    two = sum(half * half for _ in range(2))
    big = sum(half * half for _ in range(4096))
    sides = chain(arithmetic)
    facts = [Fact("example_sums", two=two, big=big)]
    return verdict(facts, Fact("dot_written", sum=Math(arithmetic.replace("×", r"\times "))),
                   len(set(sides)) == 1 and sides[-1] in (float(two), float(big)))


@check(right="note", wrong="foil", other=r"\frac{1024}{4096}=16", said=(
    Said("10244096=102464=16", r"\frac{1024}{\sqrt{4096}}=\frac{1024}{64}=16"),
    Said("1024=641024=16", r"\frac{1024}{64}=16"),
    Said("巨大的 1024 被拉回到 16", r"\frac{1024}{\sqrt{4096}}=16",
         ("dividing 1024 by $\\sqrt{4096} = 64$ gives 16", "1024 除以 $\\sqrt{4096} = 64$ 得 16")),
))
def scaled_1024(arithmetic):
    """1024/√4096 = 16 (e¹⁶ is finite in float32), evaluated as written; dividing by d_k
    instead gives 1/4."""
    root = math.isqrt(4096)
    e16 = math.exp(16)
    facts = [Fact("sqrt_4096", root=root, finite=bool(np.isfinite(np.float32(e16))), e16=e16,
                  f32=float(np.finfo(np.float32).max))]
    sides = chain(arithmetic)
    return verdict(facts, Fact("dot_written", sum=Math(arithmetic)),
                   len(set(sides)) == 1 and sides[0] == 1024 / root)


# ----------------------------------------------------------------------------- one row of scores
DIMS = (64, 1024, 4096, 16384)


def _rows(mu: float, sd: float, d: int, n: int = 16, reps: int = 20) -> np.ndarray:
    """Medians over ``reps`` queries of one row of ``n`` scores at d_k = ``d``, components drawn
    with mean ``mu`` and standard deviation ``sd``: (scaled mean, scaled spread across keys,
    ‖J‖ unscaled, ‖J‖ scaled, top weight unscaled, top weight scaled)."""
    rng = np.random.default_rng(d)
    out = []
    for _ in range(reps):
        q, keys = rng.normal(mu, sd, d), rng.normal(mu, sd, (n, d))
        s = keys @ q
        out.append((s.mean() / math.sqrt(d), s.std() / math.sqrt(d), jac_norm(softmax(s)),
                    jac_norm(softmax(s / math.sqrt(d))), softmax(s).max(),
                    softmax(s / math.sqrt(d)).max()))
    return np.median(np.array(out), axis=0)


_PULL_BACK = ("dividing the scores by $\\sqrt{d_k}$ keeps the softmax's Jacobian at one scale as "
              "$d_k$ grows",
              "分数除以 $\\sqrt{d_k}$ 后，softmax 的雅可比矩阵随 $d_k$ 增大仍保持同一量级")


@check(right="note", wrong="foil", other="1", said=(
    Said("Softmax 的梯度保持健康", r"\sqrt{d_k}", _PULL_BACK),
    Said("把数值拉回到可训练的范围", r"\sqrt{d_k}", _PULL_BACK),
    Said("除以 64 让它回到可训练的范围", r"\sqrt{d_k}", ("64 is $\\sqrt{d_k}$ at $d_k = 4096$; "
                                                "dividing by it keeps the Jacobian alive",
                                                "64 即 $d_k = 4096$ 时的 $\\sqrt{d_k}$；除以它，"
                                                "雅可比矩阵不会消失")),
))
def scaling_keeps_softmax_trainable(divisor):
    """Dividing by √d_k holds the softmax Jacobian of one row of scores at a fixed scale as d_k
    grows — for zero-mean components and for same-sign ones (mean 0.5) alike — while the
    unscaled rows saturate."""
    facts, series = [Fact("dims", dims=Nums(DIMS, "g"))], []
    for mu, sd in ((0.0, 1.0), (0.5, 0.5)):
        rows = [_rows(mu, sd, d) for d in DIMS]
        scaled, raw = [r[3] for r in rows], [r[2] for r in rows]
        facts.append(Fact("jacobian_by_dk", mu=mu, sd=sd, scaled=Nums(scaled, ".3f"),
                          raw=Nums(raw, ".2g")))
        series.append({"1": raw, r"\sqrt{d_k}": scaled}[divisor])
    steady = all(max(x) / min(x) < 1.5 for x in series)
    claim = Fact("scaling_needed" if divisor != "1" else "scaling_not_needed")
    return verdict(facts, claim, steady)


@check(right="correction", wrong="note", other="spread",
       said=Said("4096 个小数加起来变成天文数字", "level",
                 ("dividing by $\\sqrt{d_k}$ keeps the sum of the 4096 products, the common level "
                  "of the scores, from growing",
                  "除以 $\\sqrt{d_k}$ 使 4096 个乘积之和（分数的公共水平）"
                  "不再增长")))
def offset_vs_spread(what):
    """With components of mean 0.5 the scaled scores' common level still grows like √d_k; what
    the division holds fixed is their spread within a row, and softmax ignores the level."""
    rows = [_rows(0.5, 0.5, d) for d in DIMS]
    level, spread = [r[0] for r in rows], [r[1] for r in rows]
    rng = np.random.default_rng(1)
    s = rng.normal(0.5, 0.5, (16, 4096)) @ rng.normal(0.5, 0.5, 4096)
    shift = float(np.max(np.abs(softmax(s) - softmax(s - s.mean()))))
    facts = [Fact("dims", dims=Nums(DIMS, "g")),
             Fact("level_and_spread", level=Nums(level, ".1f"), spread=Nums(spread, ".3f")),
             Fact("offset_ignored", gap=shift)]
    held = {"level": level, "spread": spread}[what]
    claim = Fact("division_bounds_sum" if what == "level" else "division_bounds_spread")
    return verdict(facts, claim, max(held) / min(held) < 1.5)


@check(right="correction", wrong="note", other=0.5, said=(
    Said("q=(0.5,0.5)", 0.0, ("every component exactly 0.5, as the note computes "
                              "$0.5\\times 0.5 = 0.25$", "每个分量都恰为 0.5，正如讲义计算 "
                              "$0.5\\times 0.5 = 0.25$")),
    Said("0.5 左右的小数", 0.0, ("components of 0.5: the note then adds 4096 products of 0.25",
                             "分量取 0.5：讲义随后把 4096 个 0.25 相加")),
))
def example_has_no_spread(sd):
    """The example's components are all 0.5: every score is equal and nothing saturates, with or
    without the division; components that vary around 0.5 show the saturation it prevents."""
    r = _rows(0.5, sd, 4096)
    claim = Fact("example_exact" if sd == 0 else "example_varying", raw=r[4], scaled=r[5])
    return verdict([Fact("example_setup")], claim, r[4] > 0.9 and r[5] < 0.5)


@check(right="note", wrong="foil", other=16.0,
       said=Said("数值会大到溢出", 1024.0, ("$e^{1024}$, the exponential of the example's score, "
                                      "exceeds the largest floating-point number",
                                      "例子中分数的指数 "
                                      "$e^{1024}$ 超出了浮点数的最大值")))
def exp_overflow(score):
    """e¹⁰²⁴ overflows in float64 and float32, and the textbook softmax returns NaN; the
    max-shifted softmax of the example's equal scores is uniform."""
    z = np.full(4, 1024.0)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp(z) / np.exp(z).sum()
        big = (float(np.exp(np.float64(1024.0))), float(np.exp(np.float32(1024.0))))
        e64, e32 = float(np.exp(np.float64(score))), float(np.exp(np.float32(score)))
    facts = [Fact("exp_1024", e64=big[0], e32=big[1], lim64=math.log(np.finfo(np.float64).max),
                  lim32=math.log(np.finfo(np.float32).max)),
             Fact("naive_vs_shifted", naive=vec(naive), shifted=vec(softmax(z)))]
    claim = Fact("overflows_at", score=score)
    return verdict(facts, claim, math.isinf(e64) and math.isinf(e32))


def _near_one_hot(sd: float, divisor: float) -> tuple[float, float]:
    """Medians over 20 queries of one row of 16 scores at d_k = 4096, components 0.5 ± ``sd``,
    divided by ``divisor``: (largest weight, largest |entry| of the softmax Jacobian)."""
    rng = np.random.default_rng(4096)
    tops, entries = [], []
    for _ in range(20):
        q, keys = rng.normal(0.5, sd, 4096), rng.normal(0.5, sd, (16, 4096))
        p = softmax(keys @ q / divisor)
        tops.append(p.max())
        entries.append(np.abs(np.diag(p) - np.outer(p, p)).max())
    return float(np.median(tops)), float(np.median(entries))


# "almost" (几乎) read as within 0.01: a weight within 0.01 of 0 or 1, a Jacobian entry within
# 0.01 of 0
_ALMOST = 0.01


@check(right="note", wrong="foil", other=0.0,
       said=Said("几乎只剩 0 或 1，梯度直接消失", 0.5,
                 ("components about 0.5 (standard deviation 0.5) at $d_k = 4096$, not divided: "
                  "every weight within 0.01 of 0 or 1, every entry of the Jacobian within 0.01 "
                  "of 0",
                  "分量在 0.5 左右（标准差 0.5）、$d_k = 4096$、不做除法：每个权重与 0 或 1 "
                  "相差不到 0.01，雅可比矩阵的每个元素与 0 相差不到 0.01")))
def saturation_around_half(sd):
    """The note's example with components about 0.5, not divided by √d_k: a typical row is
    one-hot to within 0.01 and so is its Jacobian zero; with every component exactly 0.5 the
    scores are equal and the row is uniform."""
    top, entry = _near_one_hot(sd, 1.0)
    facts = [Fact("example_setup")]
    return verdict(facts, Fact("saturated_rows", sd=sd, top=top, jac=entry),
                   top > 1 - _ALMOST and entry < _ALMOST)


@check(right="note", wrong="foil", other=1.0,
       said=Said("梯度仍然存在", 64.0, ("the scores of the note's example divided by 64: the "
                                    "Jacobian of a row keeps entries above 0.01",
                                    "讲义例子的分数除以 64："
                                    "每行的雅可比矩阵仍有大于 0.01 的元素")))
def gradient_survives_scaling(divisor):
    """With the note's components (about 0.5) at d_k = 4096, the scores divided by 64 keep a
    softmax Jacobian with entries above 0.01; not divided, every entry is below it."""
    raw, scaled = _near_one_hot(0.5, 1.0)[1], _near_one_hot(0.5, 64.0)[1]
    facts = [Fact("example_setup"), Fact("jacobians_at_4096", raw=raw, scaled=scaled)]
    jac = {64.0: scaled, 1.0: raw}[divisor]
    return verdict(facts, Fact("gradient_alive", divisor=divisor, jac=jac), jac >= _ALMOST)
