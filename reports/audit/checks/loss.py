"""Evidence on the cross-entropy loss: its one-hot form, log-sum-exp, the gradient p − y and
what its signs do, the link to likelihood, and its numerical stability."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reports.audit.evidence import Fact, check, judge, num_grad, softmax, vec

_Z = np.array([0.3, -1.2, 2.0, 0.5])
_K = 2


@check(right="note", wrong="foil")
def ce_onehot(version):
    """With a one-hot y, −Σ y_i log p_i keeps only −log p_k."""
    p, y = softmax(_Z), np.eye(4)[_K]
    full, picked, every = (float(-np.sum(y * np.log(p))), float(-np.log(p[_K])),
                           float(-np.sum(np.log(p))))
    facts = [Fact("ce_terms", full=full)]
    return judge(version, facts,
                 note=(Fact("ce_keeps_target", got=picked), abs(full - picked) < 1e-15),
                 foil=(Fact("ce_all_classes", got=every), abs(full - every) < 1e-15))


@check(right="note", wrong="foil")
def ce_logsumexp(version):
    """−log p_k = −z_k + log Σ_j e^{z_j}; dropping the log-sum-exp term leaves −z_k."""
    lhs = float(-np.log(softmax(_Z)[_K]))
    forms = {"note": float(-_Z[_K] + np.log(np.sum(np.exp(_Z)))), "foil": float(-_Z[_K])}
    facts = [Fact("ce_value", lhs=lhs)]
    got = forms[version]
    return judge(version, facts,
                 note=(Fact("ce_lse_form", got=got), abs(lhs - got) < 1e-12),
                 foil=(Fact("ce_logit_only", got=got), abs(lhs - got) < 1e-12))


@check(right="note", wrong="foil")
def ce_grad(version):
    """The central-difference gradient of −log softmax(z)_k is p − y, not y − p."""
    fd = num_grad(lambda z: float(-np.log(softmax(z)[_K])), _Z.copy())
    p, y = softmax(_Z), np.eye(4)[_K]
    gaps = {"note": float(np.max(np.abs(fd - (p - y)))),
            "foil": float(np.max(np.abs(fd - (y - p))))}
    facts = [Fact("ce_grad_fd", fd=vec(fd, ".4f"))]
    return judge(version, facts,
                 note=(Fact("grad_p_minus_y", gap=gaps["note"]), gaps["note"] < 1e-8),
                 foil=(Fact("grad_y_minus_p", gap=gaps["foil"]), gaps["foil"] < 1e-8))


@check(right="note", wrong="foil")
def ce_mle(version):
    """The total cross-entropy of a sequence is minus its log-likelihood: e^{−CE} is the
    likelihood, so minimising one maximises the other."""
    rng = np.random.default_rng(36)
    logits, targets = rng.normal(size=(6, 5)), rng.integers(0, 5, size=6)
    probs = softmax(logits)[np.arange(6), targets]
    ce, lik = float(-np.sum(np.log(probs))), float(np.prod(probs))
    facts = [Fact("ce_likelihood", ce=ce, back=math.exp(-ce), lik=lik)]
    return judge(version, facts,
                 note=(Fact("ce_is_minus_log_lik"), abs(math.exp(-ce) - lik) < 1e-15),
                 foil=(Fact("ce_is_one_minus_lik"), abs(ce - (1 - lik)) < 1e-9))


_P, _Y = np.array([0.2, 0.5, 0.3]), np.array([1.0, 0.0, 0.0])


@check(right="note", wrong="foil")
def ce_descent_direction(version):
    """One descent step on the note's game raises the cat's score, lowers the dog's more than the
    bird's, and lowers the loss."""
    z = np.log(_P)
    dz = -0.5 * (softmax(z) - _Y)
    before, after = -math.log(_P[0]), -math.log(softmax(z + dz)[0])
    facts = [Fact("descent_step", dz=vec(dz, ".3g"), before=before, after=after)]
    return judge(version, facts,
                 note=(Fact("cat_up_dog_down"), dz[0] > 0 > dz[2] > dz[1] and after < before),
                 foil=(Fact("bird_down_more"), dz[2] < dz[1]))


@check(right="note", wrong="foil")
def ce_sign_rule(version):
    """p − y is negative at the target and positive at every other class, however small its p;
    the sign does not follow whether p is above 1/n."""
    rng = np.random.default_rng(37)
    rule, uniform, n = 0, 0, 100
    for _ in range(n):
        p, k = softmax(rng.normal(size=5) * 3), int(rng.integers(5))
        g = p - np.eye(5)[k]
        rule += bool(g[k] < 0 and np.all(np.delete(g, k) > 0))
        uniform += bool(np.all(np.sign(g) == np.sign(p - 1 / 5)))
    facts = [Fact("sign_cases", n=n)]
    got = {"note": rule, "foil": uniform}[version]
    return judge(version, facts,
                 note=(Fact("sign_by_target", got=got), got == n),
                 foil=(Fact("sign_by_uniform", got=got), got == n))


@check(right="note", wrong="foil")
def ce_example(version):
    """The note's game: y = (1, 0, 0), p = (0.2, 0.5, 0.3) gives p − y = (−0.8, 0.5, 0.3)."""
    p = [Fraction(2, 10), Fraction(5, 10), Fraction(3, 10)]
    g = [pi - yi for pi, yi in zip(p, (1, 0, 0), strict=True)]
    facts = [Fact("ce_game", total=sum(p), g=vec([float(x) for x in g], "g"), gsum=sum(g))]
    note = [Fraction(-8, 10), Fraction(5, 10), Fraction(3, 10)]
    return judge(version, facts,
                 note=(Fact("game_note"), g == note),
                 foil=(Fact("game_flipped"), g == [-x for x in note]))


@check(right="note", wrong="foil")
def ce_stable(version):
    """z = (1000, 0), target class 1: softmax-then-log gives ∞, the fused form 1000 and a finite
    gradient."""
    z = np.array([1000.0, 0.0])
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        naive = float(-np.log(np.exp(z[1]) / np.sum(np.exp(z))))
    fused = float(-z[1] + z.max() + np.log(np.sum(np.exp(z - z.max()))))
    grad = softmax(z) - np.array([0.0, 1.0])
    facts = [Fact("ce_extreme", naive=naive, fused=fused, grad=vec(grad, "g"))]
    return judge(version, facts,
                 note=(Fact("fused_stable"), math.isfinite(fused) and abs(fused - 1000) < 1e-9
                       and not math.isfinite(naive) and bool(np.all(np.isfinite(grad)))),
                 foil=(Fact("separate_stable"), math.isfinite(naive)))
