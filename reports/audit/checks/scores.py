"""Evidence on attention scores and their √d_k scaling: the variance of qᵀk, the note's worked
example (components 0.5, d_k = 2 and 4096, 1024 and 16), overflow, and what the division does
to one row of scores — its spread — as opposed to their common level."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import sympy as sp

from reports.audit.evidence import Fact, Nums, check, jac_norm, judge, softmax, vec


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


@check(right="note", wrong="foil")
def product_variance(version):
    """Var(q k) = E[q²]E[k²] − (E[q]E[k])² = 1 for independent mean-0, variance-1 factors."""
    dist = _pm_sqrt2()
    e, e2 = sum(p * x for x, p in dist), sum(p * x**2 for x, p in dist)
    direct = _exact_var_of_dot(1, 1)
    facts = [Fact("product_moments", e=int(e), e2=int(e2), var=int(direct))]
    return judge(version, facts,
                 note=(Fact("product_var_law", var=int(e2 * e2 - (e * e) ** 2)),
                       direct == e2 * e2 - (e * e) ** 2),
                 foil=(Fact("product_var_sum", var=2), direct == 2))


@check(right="note", wrong="foil")
def dot_variance(version):
    """Var(qᵀk) = d_k: the variances of the d_k independent products add."""
    got = [int(_exact_var_of_dot(d, 1)) for d in (1, 2, 3)]
    facts = [Fact("dot_var_exact", got=Nums(got, "g"))]
    return judge(version, facts,
                 note=(Fact("dot_var_dk"), got == [1, 2, 3]),
                 foil=(Fact("dot_var_dk2"), got == [1, 4, 9]))


@check(right="note", wrong="foil")
def scaled_variance(version):
    """Var(qᵀk/√d_k) = 1; dividing by d_k instead would give 1/d_k."""
    divisor = {"note": lambda d: sp.sqrt(d), "foil": lambda d: sp.Integer(d)}[version]
    got = [_exact_var_of_dot(d, 1 / divisor(d)) for d in (1, 2, 3)]
    shown = Nums([float(g) for g in got], ".4g")
    return judge(version, [Fact("scaled_var_setup")],
                 note=(Fact("scaled_var_sqrt", got=shown), all(g == 1 for g in got)),
                 foil=(Fact("scaled_var_dk", got=shown), all(g == 1 for g in got)))


@check(right="correction", wrong="note")
def scaled_variance_scale(version):
    """Dividing by √d_k is a fixed rescaling, not a normalisation: Var(qᵀk/√d_k) = σ_q²σ_k², which
    is 1 only for unit-variance components."""
    rng = np.random.default_rng(60)
    d, facts, ok = 256, [], True
    for sd in (1.0, 3.0):
        s = np.sum(rng.normal(0, sd, (20000, d)) * rng.normal(0, sd, (20000, d)), axis=1)
        var = float(np.var(s / math.sqrt(d)))
        target = {"note": 1.0, "correction": sd**4}[version]
        ok &= abs(var / target - 1) < 0.1
        facts.append(Fact("scaled_var_mc", sd=sd, var=var, exact=sd**4))
    return judge(version, facts,
                 note=(Fact("division_normalises"), ok), correction=(Fact("division_scales"), ok))


# ----------------------------------------------------------------------------- Monte Carlo scale
def _mc_scores(d: int, samples: int = 2000, seed: int = 12) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(samples // 500):  # chunks keep memory small at d = 4096
        out.append(np.einsum("ij,ij->i", rng.normal(size=(500, d)), rng.normal(size=(500, d))))
    return np.concatenate(out)


@check(right="note", wrong="foil")
def std_sqrt_dk(version):
    """The standard deviation of qᵀk is √d_k (d_k = 64: 8)."""
    sd = float(_mc_scores(64).std())
    return judge(version, [Fact("score_sd", d=64, sd=sd)],
                 note=(Fact("sd_is_sqrt", d=64, sd=8), abs(sd / 8 - 1) < 0.06),
                 foil=(Fact("sd_is_dk", d=64), abs(sd / 64 - 1) < 0.06))


@check(right="note", wrong="foil")
def score_scale(version):
    """Scores of size ±8 at d_k = 64 and ±64 at d_k = 4096: the scale grows like √d_k."""
    rms = {d: float(np.sqrt(np.mean(_mc_scores(d) ** 2))) for d in (64, 4096)}
    inside = float(np.mean(np.abs(_mc_scores(64)) <= 8))
    facts = [Fact("score_rms", r64=rms[64], r4096=rms[4096], inside=100 * inside)]
    claimed = {"note": (8, 64), "foil": (8, 8)}[version]
    ok = all(abs(rms[d] / c - 1) < 0.06 for d, c in zip((64, 4096), claimed, strict=True))
    return judge(version, facts,
                 note=(Fact("scale_grows"), ok), foil=(Fact("scale_fixed"), ok))


# ----------------------------------------------------------------------------- the worked example
@check(right="note", wrong="foil")
def small_dot_examples(version):
    """0.5·0.5 + 0.5·0.5 = 0.5 and the sum of 4096 products 0.25 = 1024, in exact arithmetic."""
    half = Fraction(1, 2)
    two = sum(half * half for _ in range(2))
    big = sum(half * half for _ in range(4096))
    facts = [Fact("example_sums", two=two, big=big)]
    return judge(version, facts,
                 note=(Fact("example_note"), (two, big) == (Fraction(1, 2), 1024)),
                 foil=(Fact("example_foil"), big == 4096 * half))


@check(right="note", wrong="foil")
def scaled_1024(version):
    """1024/√4096 = 16 (e¹⁶ is finite in float32); dividing by d_k instead gives 1/4."""
    root = math.isqrt(4096)
    scaled = {"note": Fraction(1024, root), "foil": Fraction(1024, 4096)}[version]
    e16 = math.exp(16)
    facts = [Fact("sqrt_4096", root=root, finite=bool(np.isfinite(np.float32(e16))), e16=e16,
                  f32=float(np.finfo(np.float32).max))]
    return judge(version, facts,
                 note=(Fact("scaled_1024_root", got=scaled), scaled == 16),
                 foil=(Fact("scaled_1024_dk", got=scaled), scaled == 16))


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


@check(right="note", wrong="foil")
def scaling_keeps_softmax_trainable(version):
    """Dividing by √d_k holds the softmax Jacobian of one row of scores at a fixed scale as d_k
    grows — for zero-mean components and for same-sign ones (mean 0.5) alike — while the
    unscaled rows saturate."""
    facts, scaled, raw = [Fact("dims", dims=Nums(DIMS, "g"))], [], []
    for mu, sd in ((0.0, 1.0), (0.5, 0.5)):
        rows = [_rows(mu, sd, d) for d in DIMS]
        scaled.append([r[3] for r in rows])
        raw.append([r[2] for r in rows])
        facts.append(Fact("jacobian_by_dk", mu=mu, sd=sd, scaled=Nums(scaled[-1], ".3f"),
                          raw=Nums(raw[-1], ".2g")))

    def steady(series):
        return all(max(x) / min(x) < 1.5 for x in series)

    collapses = all(x[-1] < 1e-3 * x[0] for x in raw)
    return judge(version, facts,
                 note=(Fact("scaling_needed"), steady(scaled) and collapses),
                 foil=(Fact("scaling_not_needed"), steady(raw)))


@check(right="correction", wrong="note")
def offset_vs_spread(version):
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
    return judge(version, facts,
                 note=(Fact("division_bounds_sum"), max(level) / min(level) < 1.5),
                 correction=(Fact("division_bounds_spread"), max(spread) / min(spread) < 1.5))


@check(right="correction", wrong="note")
def example_has_no_spread(version):
    """The example's components are all 0.5: every score is equal and nothing saturates, with or
    without the division; components that vary around 0.5 show the saturation it prevents."""
    sd = {"note": 0.0, "correction": 0.5}[version]
    r = _rows(0.5, sd, 4096)
    shows = r[4] > 0.9 and r[5] < 0.5
    facts = [Fact("example_setup")]
    return judge(version, facts,
                 note=(Fact("example_exact", raw=r[4], scaled=r[5]), shows),
                 correction=(Fact("example_varying", raw=r[4], scaled=r[5]), shows))


@check(right="note", wrong="foil")
def exp_overflow(version):
    """e¹⁰²⁴ overflows in float64 and float32, and the textbook softmax returns NaN; the
    max-shifted softmax of the example's equal scores is uniform."""
    z = np.full(4, 1024.0)
    with np.errstate(over="ignore", invalid="ignore"):
        e64, e32 = float(np.exp(np.float64(1024.0))), float(np.exp(np.float32(1024.0)))
        naive = np.exp(z) / np.exp(z).sum()
    facts = [Fact("exp_1024", e64=e64, e32=e32, lim64=math.log(np.finfo(np.float64).max),
                  lim32=math.log(np.finfo(np.float32).max)),
             Fact("naive_vs_shifted", naive=vec(naive), shifted=vec(softmax(z)))]
    return judge(version, facts,
                 note=(Fact("overflows"), math.isinf(e64) and math.isinf(e32)),
                 foil=(Fact("finite_float64"), math.isfinite(e64)))


@check(right="correction", wrong="note")
def uniform_equal_scores(version):
    """The note's own example: q = k_j = (0.5, …, 0.5) at d_k = 4096, so every score is 1024 and
    the softmax row is uniform, with a Jacobian far from zero."""
    n = 4
    scores = np.full((n, 4096), 0.5) @ np.full(4096, 0.5)
    p = softmax(scores)
    jac = jac_norm(p)
    facts = [Fact("equal_scores", scores=vec(scores, "g"), p=vec(p, "g"), jac=jac)]
    return judge(version, facts,
                 note=(Fact("one_hot_vanishing"), p.max() > 0.99 and jac < 1e-2),
                 correction=(Fact("uniform_alive", n=n),
                             bool(np.allclose(p, 1 / n)) and abs(jac - 1 / n) < 1e-12))


@check(right="correction", wrong="note")
def e16_depends_on_gaps(version):
    """Whether the gradient survives a score of 16 depends on the gaps to the other scores of
    the row, not on the value 16; (16, 0, 0, 0) is saturated, (16, 16, 16, 16) is not."""
    rows = ((16, 16, 16, 16), (16, 15, 14, 13), (16, 0, 0, 0), (1024, 1024, 1024, 1024))
    facts, ok = [], True
    for z in rows:
        z = np.array(z, float)
        p = softmax(z)
        alive = jac_norm(p) > 1e-3
        gap = float(np.sort(z)[-1] - np.sort(z)[-2])
        predicted = {"note": z.max() <= 16, "correction": gap < math.log(99 * (len(z) - 1))}
        ok &= bool(predicted[version]) == alive
        facts.append(Fact("row_gradient", z=vec(z, "g"), rest=1 - float(p.max()), jac=jac_norm(p)))
    return judge(version, facts,
                 note=(Fact("e16_alive"), ok),
                 correction=(Fact("alive_by_gap"), ok))

