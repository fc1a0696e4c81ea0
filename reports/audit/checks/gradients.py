"""Evidence on the matrix gradients of backpropagation: a linear layer's weight and input
gradients, and the three paths by which Q, K and V return their gradients to X."""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Fact, Math, check, judge, num_grad, softmax


def _linear_setup():
    """X (3×4), a square W (4×4) so that a transposed formula has the right shape and differs
    only in value, and G = ∂L/∂Y for L = Σ G ⊙ (XW)."""
    rng = np.random.default_rng(34)
    return rng.normal(size=(3, 4)), rng.normal(size=(4, 4)), rng.normal(size=(3, 4))


def _linear_grad(version, wrt: str, forms: dict):
    """Central differences of L = Σ G ⊙ (XW) by ``wrt`` ("W" or "X") against the version's
    form, {version: (fn(x, w, g), tex)}."""
    x, w, g = _linear_setup()
    at = {"W": w, "X": x}[wrt]
    fd = num_grad(lambda a: float(np.sum(g * ((x @ a) if wrt == "W" else (a @ w)))), at)
    fn, tex = forms[version]
    value = fn(x, w, g)
    gap = float(np.max(np.abs(fd - value)))
    facts = [Fact("linear_setup")]
    return judge(version, facts, **{version: (Fact("grad_form", form=Math(tex), gap=gap,
                                                   shape=value.shape == at.shape), gap < 1e-8)})


@check(right="note", wrong="foil")
def linear_grad_weight(version):
    """∂L/∂W = XᵀG, by central differences; GᵀX, its transpose, is another matrix."""
    return _linear_grad(version, "W", {"note": (lambda x, w, g: x.T @ g, r"X^\top G"),
                                       "foil": (lambda x, w, g: g.T @ x, r"G^\top X")})


@check(right="note", wrong="foil")
def linear_grad_input(version):
    """∂L/∂X = GWᵀ, by central differences; GW, without the transpose, is another matrix."""
    return _linear_grad(version, "X", {"note": (lambda x, w, g: g @ w.T, r"GW^\top"),
                                       "foil": (lambda x, w, g: g @ w, r"GW")})


@check(right="note", wrong="foil")
def qkv_accumulation(version):
    """X feeds Q, K and V, so its gradient is the sum of the three paths' gradients; the value
    path alone is not enough."""
    rng = np.random.default_rng(35)
    x = rng.normal(size=(3, 4))
    wq, wk, wv = (rng.normal(size=(4, 2)) for _ in range(3))
    c = rng.normal(size=(3, 2))

    def loss(q, k, v):
        return float(np.sum(c * (softmax(q @ k.T / math.sqrt(2)) @ v)))

    q, k, v = x @ wq, x @ wk, x @ wv
    gq = num_grad(lambda t: loss(t, k, v), q)
    gk = num_grad(lambda t: loss(q, t, v), k)
    gv = num_grad(lambda t: loss(q, k, t), v)
    direct = num_grad(lambda t: loss(t @ wq, t @ wk, t @ wv), x)
    paths = {"note": gq @ wq.T + gk @ wk.T + gv @ wv.T, "foil": gv @ wv.T}
    gap = float(np.max(np.abs(direct - paths[version])))
    claim = Fact("qkv_sum" if version == "note" else "qkv_value_only", gap=gap)
    return judge(version, [Fact("qkv_setup")], **{version: (claim, gap < 1e-7)})
