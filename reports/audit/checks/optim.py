"""Evidence on optimisers: Adam's update, moments and bias correction, where ε goes, and how
Adam differs from Newton's method."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reports.audit.evidence import Fact, Nums, check, judge, vec

_GRADS = [0.5, -1e-6, 2.0, 1e-4, -0.3, 0.0, 1e-7, 3.0]


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


@check(right="correction", wrong="note")
def adam_eps_inside(version):
    """ε inside the root changes the step tenfold once |g| is near √ε."""
    facts, ok = [], True
    for g in (1.0, 1e-3, 1e-5, 1e-7):
        ref = adam_steps([g])[0]
        got = adam_steps([g], eps_inside=version == "note")[0]
        ok &= abs(got - ref) <= 1e-9 * abs(ref)
        facts.append(Fact("eps_step", g=Nums([g], "g"), ref=ref,
                          inside=adam_steps([g], eps_inside=True)[0]))
    return judge(version, facts,
                 note=(Fact("eps_inside_root"), ok), correction=(Fact("eps_outside_root"), ok))


@check(right="correction", wrong="note")
def adam_bias_correction(version):
    """E[m̂_t] = E[g] needs m̂_t = m_t/(1 − β₁ᵗ): the weights of E[m_t] sum to 1 − β₁ᵗ."""
    b1 = Fraction(9, 10)
    sums = {}
    for corrected in (False, True):
        sums[corrected] = [sum((1 - b1) * b1 ** (t - i) for i in range(1, t + 1))
                           / (1 - b1**t if corrected else 1) for t in range(1, 6)]
    facts = [Fact("bias_sums", raw=Nums(sums[False], ".4f"), fixed=Nums(sums[True], ".4f"),
                  first=adam_steps([0.5])[0], first_raw=adam_steps([0.5], corrected=False)[0])]
    return judge(version, facts,
                 note=(Fact("hats_undefined"), all(s == 1 for s in sums[False])),
                 correction=(Fact("hats_corrected"), all(s == 1 for s in sums[True])))


@check(right="correction", wrong="note")
def adam_not_second_order(version):
    """On f(x) = a·x²/2 Newton lands on 0 in one step; Adam's first step is −η·sign(g), blind to
    the curvature a and to the distance x₀."""
    lr, facts, newton_like, sign_like = 0.1, [], True, True
    for a, x0 in ((0.01, 1.0), (100.0, 1.0), (1.0, 3.0)):
        step = adam_steps([a * x0], lr=lr)[0]
        newton_like &= abs(x0 + step) < 1e-9
        sign_like &= abs(step + lr * math.copysign(1, x0)) < 1e-5 * lr
        facts.append(Fact("adam_vs_newton", a=a, x0=x0, step=step, newton=-x0))
    return judge(version, facts,
                 note=(Fact("adam_like_newton"), newton_like),
                 correction=(Fact("adam_sign_step"), sign_like and not newton_like))


@check(right="note", wrong="foil")
def adam_first_form(version):
    """The note's first update, with the hats read as bias-corrected moments, is Kingma & Ba's
    Algorithm 1; without the correction the first steps are ten times too small."""
    ref = adam_steps(_GRADS)
    got = adam_steps(_GRADS, corrected=version == "note")
    gap = max(abs(a - b) for a, b in zip(got, ref, strict=True))
    facts = [Fact("adam_reference", n=len(_GRADS))]
    return judge(version, facts,
                 note=(Fact("hats_bias_corrected", gap=gap), gap < 1e-15),
                 foil=(Fact("hats_raw", gap=gap), gap < 1e-15))


@check(right="note", wrong="foil")
def adam_moments(version):
    """The recursions m_t = β₁m_{t−1} + (1 − β₁)g_t and v_t likewise equal the closed forms
    (1 − β)Σ β^{t−i} g_i (and g_i²); without the factor 1 − β they do not."""
    b1, b2 = 0.9, 0.999
    scale = {"note": (1 - b1, 1 - b2), "foil": (1.0, 1.0)}[version]
    m = v = 0.0
    gap = 0.0
    for t, g in enumerate(_GRADS, start=1):
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        past = _GRADS[:t]
        mc = scale[0] * sum(b1 ** (t - i) * gi for i, gi in enumerate(past, start=1))
        vc = scale[1] * sum(b2 ** (t - i) * gi * gi for i, gi in enumerate(past, start=1))
        gap = max(gap, abs(m - mc), abs(v - vc))
    facts = [Fact("moment_recursions", n=len(_GRADS))]
    return judge(version, facts,
                 note=(Fact("moments_closed_form", gap=gap), gap < 1e-12),
                 foil=(Fact("moments_no_factor", gap=gap), gap < 1e-12))


@check(right="note", wrong="foil")
def adam_diagonal_preconditioner(version):
    """On a quadratic with a non-diagonal Hessian Newton's first step points at the minimum;
    Adam's first step is −η·sign(g), at an angle to it: no curvature information."""
    h = np.array([[2.0, 1.5], [1.5, 2.0]])
    x0 = np.array([1.0, -0.2])
    g = h @ x0
    newton = -np.linalg.solve(h, g)
    adam = -0.1 * g / (np.abs(g) + 1e-8)
    cos = float(newton @ adam / (np.linalg.norm(newton) * np.linalg.norm(adam)))
    facts = [Fact("newton_adam_steps", newton=vec(newton, ".4g"), adam=vec(adam, ".4g"), cos=cos)]
    return judge(version, facts,
                 note=(Fact("adam_ignores_curvature"), bool(np.allclose(x0 + newton, 0))
                       and cos < 0.99),
                 foil=(Fact("adam_follows_newton"), cos > 0.99))


@check(right="note", wrong="foil")
def newton_vs_gd(version):
    """On f = xᵀHx/2 with H = diag(1, 100), Newton reaches 0 in one step; gradient descent with
    learning rate 1/100 is still far after 10 steps."""
    hess, x0 = np.diag([1.0, 100.0]), np.array([1.0, 1.0])
    newton = x0 - np.linalg.solve(hess, hess @ x0)
    x = x0.copy()
    for _ in range(10):
        x = x - 0.01 * hess @ x
    facts = [Fact("newton_gd", newton=float(np.linalg.norm(newton)), gd=vec(x, ".4g"))]
    return judge(version, facts,
                 note=(Fact("orders_differ"), float(np.linalg.norm(newton)) < 1e-12
                       and float(np.linalg.norm(x)) > 0.5),
                 foil=(Fact("orders_alike"), float(np.linalg.norm(x)) < 1e-6))
