"""The claims and the check the audit of notes/activations.md cites (see registry.toml)."""

import numpy as np
import sympy as sp

from derivations import Derivation, Domain, Step

x = sp.Symbol("x", real=True)
sigma = 1 / (1 + sp.exp(-x))

SIGMOID_DERIVATIVE = Derivation(
    id="notes_sigmoid_derivative",
    title="The logistic function's derivative is σ(1 − σ)",
    statement=sp.Eq(sp.Derivative(sigma, x), sigma * (1 - sigma), evaluate=False),
    assumptions=(),
    steps=(
        Step(sp.exp(-x) / (1 + sp.exp(-x))**2, "chain rule on (1 + e^{-x})^{-1}"),
        Step(sigma * (1 - sigma), "e^{-x}/(1 + e^{-x}) = 1 − σ"),
    ),
    domain=Domain(),
)

TANH_AS_LOGISTIC = Derivation(
    id="notes_tanh_as_logistic",
    title="tanh is a rescaled logistic: tanh(x) = 2σ(2x) − 1",
    statement=sp.Eq(sp.tanh(x), 2 / (1 + sp.exp(-2 * x)) - 1, evaluate=False),
    assumptions=(),
    steps=(
        Step((sp.exp(x) - sp.exp(-x)) / (sp.exp(x) + sp.exp(-x)), "tanh = sinh/cosh"),
        Step((1 - sp.exp(-2 * x)) / (1 + sp.exp(-2 * x)), "divide above and below by e^x"),
        Step(2 / (1 + sp.exp(-2 * x)) - 1, "split the fraction"),
    ),
    domain=Domain(),
)

TANH_DERIVATIVE = Derivation(
    id="notes_tanh_derivative",
    title="The derivative of tanh is 1 − tanh²",
    statement=sp.Eq(sp.Derivative(sp.tanh(x), x), 1 - sp.tanh(x)**2, evaluate=False),
    assumptions=(),
    steps=(
        Step(1 / sp.cosh(x)**2, "tanh' = 1/cosh²"),
        Step(1 - sp.tanh(x)**2, "cosh² − sinh² = 1"),
    ),
    domain=Domain(),
)

SOFTPLUS_DERIVATIVE = Derivation(
    id="notes_softplus_derivative",
    title="The derivative of the softplus is the logistic function",
    statement=sp.Eq(sp.Derivative(sp.log(1 + sp.exp(x)), x), sigma, evaluate=False),
    assumptions=(),
    steps=(
        Step(sp.exp(x) / (1 + sp.exp(x)), "chain rule: (log u)' = u'/u"),
        Step(sigma, "divide above and below by e^x"),
    ),
    domain=Domain(),
)

CLAIMS = [SIGMOID_DERIVATIVE, TANH_AS_LOGISTIC, TANH_DERIVATIVE, SOFTPLUS_DERIVATIVE]

ZH = {
    "notes_sigmoid_derivative": {"title": "logistic 函数的导数是 σ(1 − σ)",
                                 "rules": {"chain rule on (1 + e^{-x})^{-1}":
                                           "对 (1 + e^{-x})^{-1} 用链式法则"}},
    "notes_tanh_derivative": {"title": "tanh 的导数是 1 − tanh²"},
}


def scaled_score_variance():
    """Var(qᵀk/√d_k) is 1 and Var(qᵀk/d_k) is 1/d_k for independent standard normal entries:
    a Monte Carlo estimate with a fixed seed."""
    d, n = 64, 20_000
    rng = np.random.default_rng(0)
    s = np.einsum("nd,nd->n", rng.standard_normal((n, d)), rng.standard_normal((n, d)))
    by_root, by_d = np.var(s / np.sqrt(d)), np.var(s / d)
    passed = abs(by_root - 1) < 0.05 and abs(by_d * d - 1) < 0.05
    return passed, {
        "en": f"d_k = {d}: Var(qᵀk/√d_k) ≈ {by_root:.3f}, Var(qᵀk/d_k) ≈ {by_d:.4f} ≈ 1/d_k",
        "zh": f"d_k = {d}：Var(qᵀk/√d_k) ≈ {by_root:.3f}，Var(qᵀk/d_k) ≈ {by_d:.4f} ≈ 1/d_k",
    }
