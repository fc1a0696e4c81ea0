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
from derivations.engine.core.definitions import ordered, unfold
from derivations.library import notation as nt
from derivations.library import residual

x = nt.xg
Phi, phi, sigma, u_s, c_s, a_s = nt.Phi, nt.phi, nt.sig, nt.ug, nt.cg, nt.ag
DEFS = ordered((nt.PHI_DEF, nt.PHI_PDF_DEF, nt.SIG_DEF, nt.U_DEF))


def _full(expr):
    """``expr`` with GELU's definitions written out: what the claims are checked as."""
    return unfold(expr, DEFS)


u = sp.Symbol("u", real=True)
C = _full(c_s)
A = _full(a_s)
U = _full(u_s)


def sigmoid(z):
    return 1 / (1 + sp.exp(-z))


PHI_CDF = _full(Phi(x))
PHI_PDF = _full(phi(x))
GELU_EXACT = x * PHI_CDF
GELU_TANH_FOLDED = x * sp.Add(1, sp.tanh(u_s), evaluate=False) / 2
GELU_TANH = _full(GELU_TANH_FOLDED)
SIG_FOLDED = sigma(2 * u_s)
SIG = _full(SIG_FOLDED)
GELU_SIGMOID = x * SIG
DERIVATIVE_FOLDED = SIG_FOLDED + x * SIG_FOLDED * (1 - SIG_FOLDED) * 2 * c_s * (1 + 3 * a_s * x**2)
GELU_TANH_DERIVATIVE = _full(DERIVATIVE_FOLDED)

gelu_exact_derivative = Derivation(
    "gelu_exact_derivative",
    "GELU: d/dx [x Φ(x)] = Φ(x) + x φ(x)",
    sp.Eq(sp.Derivative(x * Phi(x), x), Phi(x) + x * phi(x), evaluate=False),
    (),
    (
        Step(Phi(x) + x * sp.Derivative(Phi(x), x), "product rule"),
        Step(Phi(x) + x * phi(x),
             "the definitions of Φ and φ: erf′(w) = 2e^{−w²}/√π and the chain rule with "
             "w = x/√2 give Φ′ = φ", ("Φ", "φ")),
    ),
    Domain(),
    (nt.PHI_DEF, nt.PHI_PDF_DEF),
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
    sp.Eq(GELU_TANH_FOLDED, x * SIG_FOLDED, evaluate=False),
    (TANH,),
    (
        Step(x * (1 + (sp.exp(u_s) - sp.exp(-u_s)) / (sp.exp(u_s) + sp.exp(-u_s))) / 2,
             "tanh u = (eᵘ − e⁻ᵘ)/(eᵘ + e⁻ᵘ)", ("definition of tanh",)),
        Step(x * sp.exp(u_s) / (sp.exp(u_s) + sp.exp(-u_s)), "common denominator"),
        Step(x * SIG_FOLDED, "divide the numerator and the denominator by eᵘ; the definition of "
             "σ", ("σ",)),
    ),
    Domain(),
    (nt.SIG_DEF, nt.U_DEF),
)

_z = 2 * u_s

gelu_tanh_derivative = Derivation(
    "gelu_tanh_derivative",
    "GELU (tanh form): the derivative is σ + x σ(1 − σ)·2c(1 + 3a x²), σ = σ(2u)",
    sp.Eq(sp.Derivative(GELU_TANH_FOLDED, x), DERIVATIVE_FOLDED, evaluate=False),
    (lemma(gelu_tanh_sigmoid),),
    (
        Step(sp.Derivative(x * SIG_FOLDED, x), "½x(1 + tanh u) = x σ(2u)", ("gelu_tanh_sigmoid",)),
        Step(SIG_FOLDED + x * sp.Derivative(SIG_FOLDED, x), "product rule"),
        Step(SIG_FOLDED + 2 * x * sp.exp(-_z) / (1 + sp.exp(-_z)) ** 2 * c_s * (1 + 3 * a_s * x**2),
             "the definitions of σ and u: dσ(2u)/dx = 2e^{−2u}/(1 + e^{−2u})² · du/dx and "
             "du/dx = c(1 + 3a x²)", ("σ", "u")),
        Step(DERIVATIVE_FOLDED, "the definition of σ: e^{−2u}/(1 + e^{−2u})² = σ(2u)(1 − σ(2u))",
             ("σ",)),
    ),
    Domain(),
    (nt.SIG_DEF, nt.U_DEF),
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
        Step(sp.Derivative(sp.Trace(G.T * _M.MLP_GROUPED), _M.x),
             "W₂(W₁x + b₁) + b₂ = (W₂W₁)x + (W₂b₁ + b₂)", ("mlp_collapse",)),
        Step(sp.Derivative(sp.Trace(G.T * _M.W_2 * _M.W_1 * _M.x), _M.x),
             "the bias term Gᵀ(W₂b₁ + b₂) does not depend on x"),
        Step(IDENTITY_MLP_GRAD, "∂tr(Ax)/∂x = Aᵀ with A = GᵀW₂W₁: (GᵀW₂W₁)ᵀ = W₁ᵀW₂ᵀG"),
    ),
    Domain(dims=(_M.d, _M.h), max_dim=3),
)

CLAIMS = (gelu_exact_derivative, gelu_tanh_sigmoid, gelu_tanh_derivative, mlp_identity_grad_input)
