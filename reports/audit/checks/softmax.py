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
    check,
    jac_norm,
    judge,
    num_jac,
    softmax,
    vec,
)


@check(right="note", wrong="foil")
def softmax_saturation(version):
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
    return judge(version, facts,
                 note=(Fact("large_scores_saturate"), u[0] > 0.99 and u[1] < 1e-2 and c[1] > 0.1),
                 foil=(Fact("large_scores_harmless"), u[1] > 0.1))


SATURATION_CASES = ((1000, 1000.1, 999.9), (64, 0, -64), (64, 64, -64), (0.5, 0.4, 0.6),
                    (8, 0, 0))


@check(right="correction", wrong="note")
def softmax_saturation_margin(version):
    """Softmax saturates (top weight above 0.99) when its largest input stands far above every
    other — not when the inputs are large, nor when their range is."""
    facts, ok, wrong = [], True, 0
    for z in SATURATION_CASES:
        z = np.array(z, float)
        p = softmax(z)
        saturated = bool(p.max() > 0.99)
        top, second = np.sort(z)[-1], np.sort(z)[-2]
        predicted = {"note": np.max(np.abs(z)) > 50,
                     "correction": top - second > math.log(99 * (len(z) - 1))}[version]
        ok &= bool(predicted) == saturated
        wrong += bool(predicted) != saturated
        facts.append(Fact("saturation_case", z=vec(z, "g"), top=float(p.max()), jac=jac_norm(p),
                          saturated=saturated))
    return judge(version, facts,
                 note=(Fact("saturates_when_large", wrong=wrong, n=len(SATURATION_CASES)), ok),
                 correction=(Fact("saturates_by_margin", wrong=wrong, n=len(SATURATION_CASES)),
                             ok))


@check(right="note", wrong="foil")
def softmax_properties(version):
    """Softmax outputs are positive and sum to 1 in every row."""
    p = softmax(np.random.default_rng(38).normal(size=(10, 6)) * 5)
    off = float(np.max(np.abs(p.sum(axis=1) - 1)))
    zeros = int(np.sum(p == 0))
    facts = [Fact("softmax_rows", least=float(p.min()), off=off, zeros=zeros)]
    return judge(version, facts,
                 note=(Fact("distribution"), p.min() > 0 and off < 1e-12),
                 foil=(Fact("some_zero"), zeros > 0))


@check(right="note", wrong="foil")
def softmax_monotone(version):
    """Raising one score raises its weight: ∂p_i/∂z_i = p_i(1 − p_i) > 0."""
    z = np.array([1.0, 0.0, -1.0])
    p = softmax(z)
    diag = p * (1 - p)
    bumped = [float(softmax(z + 0.1 * np.eye(3)[i])[i] - p[i]) for i in range(3)]
    facts = [Fact("monotone", diag=vec(diag, ".4f"), bumped=Nums(bumped, ".3g"))]
    return judge(version, facts,
                 note=(Fact("higher_more"), min(bumped) > 0 and min(diag) > 0),
                 foil=(Fact("higher_same"), max(abs(b) for b in bumped) < 1e-12))


@check(right="note", wrong="foil")
def softmax_shift(version):
    """softmax(z + c) = softmax(z) in 50-digit arithmetic; softmax(cz) is another distribution."""
    mpmath.mp.dps = 50
    z = [mpmath.mpf(1), mpmath.mpf(2), mpmath.mpf("-0.5")]

    def sm(v):
        e = [mpmath.exp(x) for x in v]
        return [x / sum(e) for x in e]

    change = {"note": lambda c: [x + c for x in z], "foil": lambda c: [x * c for x in z]}[version]
    gap = max(max(abs(a - b) for a, b in zip(sm(z), sm(change(c)), strict=True))
              for c in (-5, 3, 1000))
    facts = [Fact("shift_setup")]
    return judge(version, facts,
                 note=(Fact("shift_invariant", gap=float(gap)), gap < mpmath.mpf(10) ** -40),
                 foil=(Fact("scale_invariant", gap=float(gap)), gap < mpmath.mpf(10) ** -40))


@check(right="note", wrong="foil")
def logsumexp_stable(version):
    """log(e¹⁰⁰⁰ + e⁹⁹⁹): shifting by the maximum gives the exact value, the direct sum ∞."""
    z = np.array([1000.0, 999.0])
    with np.errstate(over="ignore"):
        naive = float(np.log(np.sum(np.exp(z))))
    shifted = float(z.max() + np.log(np.sum(np.exp(z - z.max()))))
    exact = mpmath.log(mpmath.exp(1000) + mpmath.exp(999))
    facts = [Fact("lse_values", naive=naive, shifted=shifted, exact=float(exact))]
    return judge(version, facts,
                 note=(Fact("lse_shift_needed"), abs(shifted - float(exact)) < 1e-9
                       and not math.isfinite(naive)),
                 foil=(Fact("lse_direct_fine"), abs(naive - float(exact)) < 1e-9))


@check(right="note", wrong="foil")
def softmax_temperature(version):
    """The entropy of softmax(z/T) grows with T: below 1 sharper, above 1 flatter."""
    z = np.array([1.0, 2.0, 3.0])
    ts = (0.25, 0.5, 1.0, 2.0, 4.0)
    ent = [float(-np.sum(softmax(z / t) * np.log(softmax(z / t)))) for t in ts]
    rising = all(a < b for a, b in zip(ent, ent[1:], strict=False))
    falling = all(a > b for a, b in zip(ent, ent[1:], strict=False))
    facts = [Fact("entropy_by_t", ts=Nums(ts, "g"), ent=Nums(ent, ".4f"))]
    return judge(version, facts,
                 note=(Fact("t_sharpens_below_one"), rising),
                 foil=(Fact("t_sharpens_above_one"), falling))


@check(right="note", wrong="foil")
def softmax_jacobian(version):
    """The finite-difference Jacobian of softmax is diag(s) − ssᵀ, not diag(s)."""
    z = np.array([0.2, -0.7, 1.1, 0.0])
    s = softmax(z)
    form = {"note": (np.diag(s) - np.outer(s, s), r"\operatorname{diag}(s) - ss^\top"),
            "foil": (np.diag(s), r"\operatorname{diag}(s)")}[version]
    gap = float(np.max(np.abs(num_jac(softmax, z) - form[0])))
    return judge(version, [Fact("jacobian_fd", n=4)],
                 **{version: (Fact("jacobian_form", form=Math(form[1]), gap=gap), gap < 1e-8)})


@check(right="correction", wrong="note")
def softmax_amplification(version):
    """Softmax is sharper than proportional normalisation for z = (1, 2), not for (0.1, 0.2)."""
    facts, sharper = [], []
    for z in ((1.0, 2.0), (0.1, 0.2), (10.0, 20.0)):
        s, lin = softmax(np.array(z)), np.array(z) / sum(z)
        sharper.append(bool(s[1] > lin[1]))
        facts.append(Fact("sharper_case", z=vec(z, "g"), soft=float(s[1]), lin=float(lin[1])))
    return judge(version, facts,
                 note=(Fact("always_sharper"), all(sharper)),
                 correction=(Fact("sharper_when_apart"), sharper == [True, False, True]))


@check(right="note", wrong="foil")
def softmax_12(version):
    """softmax(1, 2) ≈ (0.27, 0.73), against the proportional (0.33, 0.67)."""
    s = softmax(np.array([1.0, 2.0]))
    facts = [Fact("softmax_12", s=vec(s, ".4f"))]
    return judge(version, facts,
                 note=(Fact("softmax_12_note"), [round(x, 2) for x in s] == [0.27, 0.73]),
                 foil=(Fact("softmax_12_linear"), [round(x, 2) for x in s] == [0.33, 0.67]))


@check(right="correction", wrong="note")
def zero_score_weight(version):
    """Query (1, 0) against keys (1, 0), (0, 1), (−1, 0): the orthogonal key still gets weight."""
    w = softmax(np.array([1.0, 0.0, -1.0]))
    facts = [Fact("three_keys", w=vec(w, ".4f"))]
    return judge(version, facts,
                 note=(Fact("orthogonal_ignored"), abs(w[1]) < 1e-3),
                 correction=(Fact("orthogonal_share", share=1 / (math.e + 1 + 1 / math.e)),
                             abs(w[1] - 1 / (math.e + 1 + 1 / math.e)) < 1e-12))


@check(right="correction", wrong="note")
def negative_score_weight(version):
    """A negative score gives a smaller but positive weight, never a repelling (negative) one."""
    w = softmax(np.array([1.0, 0.0, -1.0]))
    facts = [Fact("three_keys", w=vec(w, ".4f"))]
    return judge(version, facts,
                 note=(Fact("opposite_repels"), w[2] < 0),
                 correction=(Fact("opposite_small"), 0 < w[2] < w[1]))


@check(right="note", wrong="foil")
def softmax_weights_positive(version):
    """1000 random rows with scores in [−30, 30]: every weight is positive, and a score of 0 gets
    exactly 1/Σ e^{s_l}."""
    z = np.random.default_rng(66).uniform(-30, 30, size=(1000, 6))
    z[:, 0] = 0.0
    p = softmax(z)
    gap = float(np.max(np.abs(p[:, 0] - 1 / np.exp(z).sum(axis=1))))
    facts = [Fact("positive_weights", least=float(p.min()), gap=gap)]
    return judge(version, facts,
                 note=(Fact("zero_score_share"), bool(np.all(p > 0)) and gap < 1e-15),
                 foil=(Fact("zero_score_nothing"), bool(np.all(p[:, 0] == 0))))

