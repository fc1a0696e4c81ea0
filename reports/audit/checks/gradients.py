"""Evidence on the matrix gradients of backpropagation: a linear layer's weight and input
gradients, and the three paths by which Q, K and V return their gradients to X. Each formula is
the note's, evaluated as written, against central differences."""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Fact, Math, Said, check, num_grad, softmax, verdict
from reports.audit.formula import evaluate

_DY = r"\frac{\partial L}{\partial Y}"


def _linear_setup():
    """X (3×4), a square W (4×4) so that a transposed formula has the right shape and differs
    only in value, and G = ∂L/∂Y for L = Σ G ⊙ (XW)."""
    rng = np.random.default_rng(34)
    return rng.normal(size=(3, 4)), rng.normal(size=(4, 4)), rng.normal(size=(3, 4))


def _linear_grad(wrt: str, form: str):
    """Central differences of L = Σ G ⊙ (XW) by ``wrt`` ("W" or "X") against ``form``."""
    x, w, g = _linear_setup()
    at = {"W": w, "X": x}[wrt]
    fd = num_grad(lambda a: float(np.sum(g * ((x @ a) if wrt == "W" else (a @ w)))), at)
    value = np.asarray(evaluate(form, X=x, W=w, **{"∂L/∂Y": g}))
    gap = float(np.max(np.abs(fd - value))) if value.shape == at.shape else math.inf
    claim = Fact("grad_form", form=Math(form), gap=gap, shape=value.shape == at.shape)
    return verdict([Fact("linear_setup")], claim, gap < 1e-8)


@check(right="note", wrong="foil", other=r"\left(" + _DY + r"\right)^\top X", said=(
    Said("∂W∂L=XT∂Y∂L", r"X^\top" + _DY),
    Said("相乘得 Rd×dk，与 W 同维", r"X^\top" + _DY,
         (r"the product $X^\top\,\partial L/\partial Y$ has the shape of $W$",
          r"乘积 $X^\top\,\partial L/\partial Y$ 与 $W$ 形状相同")),
))
def linear_grad_weight(form):
    """∂L/∂W = XᵀG, by central differences; GᵀX, its transpose, is another matrix."""
    return _linear_grad("W", form)


@check(right="note", wrong="foil", other=_DY + "W", said=Said("∂X∂L=∂Y∂LWT", _DY + r"W^\top"))
def linear_grad_input(form):
    """∂L/∂X = GWᵀ, by central differences; GW, without the transpose, is another matrix."""
    return _linear_grad("X", form)


_PATHS = (r"\frac{\partial L}{\partial Q}W_Q^\top+\frac{\partial L}{\partial K}W_K^\top"
          r"+\frac{\partial L}{\partial V}W_V^\top")


@check(right="note", wrong="foil", other=r"\frac{\partial L}{\partial V}W_V^\top", said=(
    Said("∂X∂L=∂Q∂LWQT+∂K∂LWKT+∂V∂LWVT", _PATHS),
    Said("累加回传给 X", _PATHS, ("the gradients of the three paths add up at $X$",
                              "三条路径的梯度在 $X$ 处相加")),
))
def qkv_accumulation(form):
    """X feeds Q, K and V, so its gradient is the sum of the three paths' gradients; the value
    path alone is not enough."""
    rng = np.random.default_rng(35)
    x = rng.normal(size=(3, 4))
    wq, wk, wv = (rng.normal(size=(4, 2)) for _ in range(3))
    c = rng.normal(size=(3, 2))

    def loss(q, k, v):
        return float(np.sum(c * (softmax(q @ k.T / math.sqrt(2)) @ v)))

    q, k, v = x @ wq, x @ wk, x @ wv
    env = {"∂L/∂Q": num_grad(lambda t: loss(t, k, v), q),
           "∂L/∂K": num_grad(lambda t: loss(q, t, v), k),
           "∂L/∂V": num_grad(lambda t: loss(q, k, t), v), "W_Q": wq, "W_K": wk, "W_V": wv}
    direct = num_grad(lambda t: loss(t @ wq, t @ wk, t @ wv), x)
    gap = float(np.max(np.abs(direct - evaluate(form, **env))))
    claim = Fact("qkv_sum" if form == _PATHS else "qkv_value_only", gap=gap)
    return verdict([Fact("qkv_setup")], claim, gap < 1e-7)
