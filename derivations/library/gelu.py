"""GELU: the exact derivative, the tanh approximation the model runs and its derivative, and what
the MLP computes when the nonlinearity is switched off.

Exact: GELU(x) = x Φ(x), Φ(x) = (1 + erf(x/√2))/2, φ(x) = e^{−x²/2}/√(2π); GELU′ = Φ + xφ.
Tanh form (the model's): ½x(1 + tanh u), u = c(x + a x³), c = √(2/π), a = 0.044715.  Since
½(1 + tanh u) = σ(2u) with σ(z) = 1/(1 + e^{−z}), the model evaluates x σ(2u), and its backward
σ + x σ(1 − σ)·2c(1 + 3a x²) with σ = σ(2u).
Identity switch (``activation="identity"``): the activation's Jacobian is I, so the MLP is the
affine map of ``mlp_collapse`` and its input gradient is W₁ᵀW₂ᵀG.

Domain: x real; a and c are the model's constants, exactly.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Step, cite, lemma
from derivations.library import residual

x = sp.Symbol("x", real=True)
u = sp.Symbol("u", real=True)
C = sp.sqrt(2 / sp.pi)
A = sp.Rational(44715, 10**6)  # 0.044715 as the model's float constant reads
U = C * (x + A * x**3)


def sigmoid(z):
    return 1 / (1 + sp.exp(-z))


PHI_CDF = (1 + sp.erf(x / sp.sqrt(2))) / 2
PHI_PDF = sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)
GELU_EXACT = x * PHI_CDF
GELU_TANH = x * (1 + sp.tanh(U)) / 2
SIG = sigmoid(2 * U)
GELU_SIGMOID = x * SIG
GELU_TANH_DERIVATIVE = SIG + x * SIG * (1 - SIG) * 2 * C * (1 + 3 * A * x**2)

gelu_exact_derivative = Derivation(
    "gelu_exact_derivative",
    "GELU: d/dx [x Φ(x)] = Φ(x) + x φ(x)",
    sp.Eq(sp.Derivative(GELU_EXACT, x), PHI_CDF + x * PHI_PDF, evaluate=False),
    (),
    (
        Step(PHI_CDF + x * sp.Derivative(PHI_CDF, x), "product rule"),
        Step(PHI_CDF + x * PHI_PDF,
             "erf′(w) = 2e^{−w²}/√π and the chain rule with w = x/√2 give Φ′ = φ"),
    ),
    Domain(),
)

_w = sp.Wild("w")
TANH = Assumption(
    "definition of tanh", "tanh w = (e^w - e^-w)/(e^w + e^-w)",
    r"\tanh w = \frac{e^{w}-e^{-w}}{e^{w}+e^{-w}}",
    rewrites=((sp.tanh(_w), (sp.exp(_w) - sp.exp(-_w)) / (sp.exp(_w) + sp.exp(-_w))),),
    kind="lemma")

gelu_tanh_sigmoid = Derivation(
    "gelu_tanh_sigmoid",
    "GELU (tanh form): ½x(1 + tanh u) = x σ(2u), the form the model evaluates",
    sp.Eq(GELU_TANH, GELU_SIGMOID, evaluate=False),
    (TANH,),
    (
        Step(x * (1 + (sp.exp(U) - sp.exp(-U)) / (sp.exp(U) + sp.exp(-U))) / 2,
             "tanh u = (eᵘ − e⁻ᵘ)/(eᵘ + e⁻ᵘ)", ("definition of tanh",)),
        Step(x * sp.exp(U) / (sp.exp(U) + sp.exp(-U)), "common denominator"),
        Step(GELU_SIGMOID, "divide numerator and denominator by eᵘ"),
    ),
    Domain(),
)

gelu_tanh_derivative = Derivation(
    "gelu_tanh_derivative",
    "GELU (tanh form): the derivative is σ + x σ(1 − σ)·2c(1 + 3a x²), σ = σ(2u)",
    sp.Eq(sp.Derivative(GELU_TANH, x), GELU_TANH_DERIVATIVE, evaluate=False),
    (lemma(gelu_tanh_sigmoid),),
    (
        Step(sp.Derivative(GELU_SIGMOID, x), "½(1 + tanh u) = σ(2u)", ("gelu_tanh_sigmoid",)),
        Step(SIG + x * sp.Derivative(SIG, x), "product rule"),
        Step(SIG + x * 2 * sp.exp(-2 * U) / (1 + sp.exp(-2 * U)) ** 2 * sp.diff(U, x),
             "chain rule: d/dz (1 + e^{−z})^{−1} = e^{−z}/(1 + e^{−z})², z = 2u"),
        Step(GELU_TANH_DERIVATIVE, "e^{−z}/(1 + e^{−z})² = σ(z)(1 − σ(z)); u′ = c(1 + 3a x²)"),
    ),
    Domain(),
)

# --- the identity switch ------------------------------------------------------------------------

_M = residual
G = sp.MatrixSymbol("G", _M.d, 1)  # ∂L/∂(MLP output)
MLP_LOSS = sp.Trace(G.T * _M.MLP)
IDENTITY_MLP_GRAD = _M.W_1.T * _M.W_2.T * G

mlp_identity_grad_input = Derivation(
    "mlp_identity_grad_input",
    "Identity activation: the MLP is one affine map and its input gradient is W₁ᵀW₂ᵀG",
    sp.Eq(sp.Derivative(MLP_LOSS, _M.x), IDENTITY_MLP_GRAD, evaluate=False),
    (cite(_M.mlp_collapse),),
    (
        Step(sp.Derivative(sp.Trace(G.T * _M.MLP_COLLAPSED), _M.x),
             "W₂(W₁x + b₁) + b₂ = (W₂W₁)x + (W₂b₁ + b₂)", ("mlp_collapse",)),
        Step(sp.Derivative(sp.Trace(G.T * _M.W_2 * _M.W_1 * _M.x), _M.x),
             "the bias term Gᵀ(W₂b₁ + b₂) does not depend on x"),
        Step(IDENTITY_MLP_GRAD, "∂tr(Ax)/∂x = Aᵀ with A = GᵀW₂W₁: (GᵀW₂W₁)ᵀ = W₁ᵀW₂ᵀG"),
    ),
    Domain(dims=(_M.d, _M.h), max_dim=3),
)

CLAIMS = (gelu_exact_derivative, gelu_tanh_sigmoid, gelu_tanh_derivative, mlp_identity_grad_input)
