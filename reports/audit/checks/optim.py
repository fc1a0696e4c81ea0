"""Evidence on optimisers: Adam's update, moments and bias correction, where ε goes, and how
Adam differs from Newton's method."""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Fact, Math, Nums, Said, check, vec, verdict
from reports.audit.formula import equation, evaluate

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


_KINGMA_BA = r"\frac{\eta}{\sqrt{\hat{v}_t}+\epsilon}\hat{m}_t"
_INSIDE = r"\frac{\eta}{\sqrt{\hat{v}_t + \varepsilon}} \hat{m}_t"


def _first_step(form: str, g: float, lr=1e-3, eps=1e-8) -> float:
    """The first parameter increment, −(the note's step) with m̂₁ = g and v̂₁ = g²."""
    return -float(evaluate(form, eta=lr, epsilon=eps, **{"hat m_t": g, "hat v_t": g * g}))


@check(right="correction", wrong="note", other=_KINGMA_BA, said=Said(_INSIDE, _INSIDE))
def adam_eps_inside(form):
    """The note's second update, evaluated as written, against Algorithm 1 of Kingma & Ba: ε
    inside the root changes the step tenfold once |g| is near √ε."""
    facts, ok = [], True
    for g in (1.0, 1e-3, 1e-5, 1e-7):
        ref = adam_steps([g])[0]
        ok &= abs(_first_step(form, g) - ref) <= 1e-9 * abs(ref)
        facts.append(Fact("eps_step", g=Nums([g], "g"), ref=ref,
                          inside=adam_steps([g], eps_inside=True)[0]))
    claim = Fact("eps_inside_root" if form == _INSIDE else "eps_outside_root")
    return verdict(facts, claim, ok)


@check(right="correction", wrong="note", other="sign",
       said=Said("不算 H，可达到二阶收敛效果", "newton",
                 ("on a quadratic, Adam's first step lands on the minimum, as Newton's does",
                  "在二次函数上，Adam 的第一步像牛顿法一样直接落到极小点")))
def adam_not_second_order(like):
    """On f(x) = a·x²/2 Newton lands on 0 in one step; Adam's first step is −η·sign(g), blind to
    the curvature a and to the distance x₀."""
    lr, facts, newton_like, sign_like = 0.1, [], True, True
    for a, x0 in ((0.01, 1.0), (100.0, 1.0), (1.0, 3.0)):
        step = adam_steps([a * x0], lr=lr)[0]
        newton_like &= abs(x0 + step) < 1e-9
        sign_like &= abs(step + lr * math.copysign(1, x0)) < 1e-5 * lr
        facts.append(Fact("adam_vs_newton", a=a, x0=x0, step=step, newton=-x0))
    if like == "newton":
        return verdict(facts, Fact("adam_like_newton"), newton_like)
    return verdict(facts, Fact("adam_sign_step"), sign_like and not newton_like)


_UPDATE = r"-\frac{\eta}{\sqrt{\hat{v}_t}+\epsilon}\hat{m}_t"


@check(right="note", wrong="foil", other=r"-\frac{\eta}{\sqrt{v_t}+\epsilon}m_t",
       said=Said(_UPDATE, _UPDATE))
def adam_first_form(form):
    """The note's first update, evaluated as written with m̂_t and v̂_t the bias-corrected
    moments (Kingma & Ba's notation), is Algorithm 1 step by step; with the raw moments in their
    place the first steps are several times off."""
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
    ref = adam_steps(_GRADS)
    m = v = 0.0
    got = []
    for t, g in enumerate(_GRADS, start=1):
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        got.append(float(evaluate(form, eta=lr, epsilon=eps, m_t=m, v_t=v,
                                  **{"hat m_t": m / (1 - b1**t), "hat v_t": v / (1 - b2**t)})))
    gap = max(abs(a - b) for a, b in zip(got, ref, strict=True))
    facts = [Fact("adam_reference", n=len(_GRADS))]
    claim = Fact("hats_bias_corrected" if form == _UPDATE else "hats_raw", gap=gap)
    return verdict(facts, claim, gap < 1e-15)


_M = r"m_t=\beta_1m_{t-1}+(1-\beta_1)g_t"
_V = r"v_t=\beta_2v_{t-1}+(1-\beta_2)g_t^2"


@check(right="note", wrong="foil", other=r"m_t=\beta_1m_{t-1}+g_t", said=(
    Said(_M, _M), Said(_V, _V),
    Said(r"$m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t$",
         r"m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t"),
    Said(r"$v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2$",
         r"v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2"),
    Said("一阶矩（动量）+二阶矩（自适应缩放）", _M,
         ("the first moment is the moving average $m_t = \\beta_1 m_{t-1} + (1 - \\beta_1) g_t$ "
          "(the second likewise for $g_t^2$)", "一阶矩是滑动平均 $m_t = \\beta_1 m_{t-1} + "
          "(1 - \\beta_1) g_t$（二阶矩对 $g_t^2$ 同理）")),
))
def adam_moments(recursion):
    """The note's recursion, run as written from 0, equals the closed form (1 − β)Σ β^{t−i} x_i
    of the moving average (x = g for m_t, g² for v_t); without the factor 1 − β it does not."""
    lhs, rhs = equation(recursion)
    second = recursion.lstrip().startswith("v")
    beta = 0.999 if second else 0.9
    prev, gap = 0.0, 0.0
    for t, g in enumerate(_GRADS, start=1):
        prev = float(rhs({"beta_1": 0.9, "beta_2": 0.999, "g_t": g, "m_t-1": prev,
                          "v_t-1": prev}))
        xs = [gi * gi if second else gi for gi in _GRADS[:t]]
        closed = (1 - beta) * sum(beta ** (t - i) * x for i, x in enumerate(xs, start=1))
        gap = max(gap, abs(prev - closed))
    facts = [Fact("moment_recursions", n=len(_GRADS))]
    claim = Fact("recursion_as_written", eq=Math(recursion), gap=gap)
    return verdict(facts, claim, gap < 1e-12)


@check(right="note", wrong="foil", other="follows",
       said=Said("不算 H", "ignores", ("Adam computes no Hessian $H$: its first step ignores the "
                                     "curvature", "Adam 不计算黑塞矩阵 $H$：它的第一步与曲率无关")))
def adam_diagonal_preconditioner(curvature):
    """On a quadratic with a non-diagonal Hessian Newton's first step points at the minimum;
    Adam's first step is −η·sign(g), at an angle to it: no curvature information."""
    h = np.array([[2.0, 1.5], [1.5, 2.0]])
    x0 = np.array([1.0, -0.2])
    g = h @ x0
    newton = -np.linalg.solve(h, g)
    adam = -0.1 * g / (np.abs(g) + 1e-8)
    cos = float(newton @ adam / (np.linalg.norm(newton) * np.linalg.norm(adam)))
    facts = [Fact("newton_adam_steps", newton=vec(newton, ".4g"), adam=vec(adam, ".4g"), cos=cos)]
    if curvature == "ignores":
        return verdict(facts, Fact("adam_ignores_curvature"),
                       bool(np.allclose(x0 + newton, 0)) and cos < 0.99)
    return verdict(facts, Fact("adam_follows_newton"), cos > 0.99)


@check(right="note", wrong="foil", other="alike",
       said=Said("梯度下降是一阶方法 牛顿法是二阶方法", "differ",
                 ("gradient descent uses the gradient only; Newton's method also the Hessian, and "
                  "reaches a quadratic's minimum in one step",
                  "梯度下降只用梯度；牛顿法还用黑塞矩阵，"
                  "一步就到达二次函数的极小点")))
def newton_vs_gd(orders):
    """On f = xᵀHx/2 with H = diag(1, 100), Newton reaches 0 in one step; gradient descent with
    learning rate 1/100 is still far after 10 steps."""
    hess, x0 = np.diag([1.0, 100.0]), np.array([1.0, 1.0])
    newton = x0 - np.linalg.solve(hess, hess @ x0)
    x = x0.copy()
    for _ in range(10):
        x = x - 0.01 * hess @ x
    facts = [Fact("newton_gd", newton=float(np.linalg.norm(newton)), gd=vec(x, ".4g"))]
    if orders == "differ":
        return verdict(facts, Fact("orders_differ"), float(np.linalg.norm(newton)) < 1e-12
                       and float(np.linalg.norm(x)) > 0.5)
    return verdict(facts, Fact("orders_alike"), float(np.linalg.norm(x)) < 1e-6)
