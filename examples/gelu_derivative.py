"""GELU's derivative, exact and in the tanh approximation.

GELU(x) = x Φ(x) with Φ the standard normal CDF, so GELU'(x) = Φ(x) + x φ(x).  The tanh form
GELU(x) ≈ x/2 · (1 + tanh u), u = √(2/π)(x + c x³) with c = 0.044715 (the claim holds for
every c > 0), has derivative
(1 + tanh u)/2 + x/2 · (1 − tanh² u) · √(2/π)(1 + 3c x²).
"""

import sympy as sp

from derivations import Derivation, Step

x = sp.Symbol("x", real=True)
c = sp.Symbol("c", positive=True)  # the tanh form holds for every c; GELU uses c = 0.044715

Phi = (1 + sp.erf(x / sp.sqrt(2))) / 2  # standard normal CDF
phi = sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)  # standard normal density

GELU_EXACT = Derivation(
    id="gelu_derivative_exact",
    title="GELU'(x) = Φ(x) + x φ(x)",
    statement=sp.Eq(sp.Derivative(x * Phi, x), Phi + x * phi, evaluate=False),
    assumptions=(),
    steps=(
        Step(Phi + x * sp.Derivative(Phi, x), "product rule"),
        Step(Phi + x * sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi),
             "erf'(t) = 2/√π e^{-t²}, chain rule with t = x/√2"),
        Step(Phi + x * phi, "the standard normal density"),
    ),
)

u = sp.sqrt(2 / sp.pi) * (x + c * x**3)
du = sp.sqrt(2 / sp.pi) * (1 + 3 * c * x**2)

GELU_TANH = Derivation(
    id="gelu_derivative_tanh",
    title="The derivative of GELU's tanh approximation",
    statement=sp.Eq(sp.Derivative(x / 2 * (1 + sp.tanh(u)), x),
                    (1 + sp.tanh(u)) / 2 + x / 2 * (1 - sp.tanh(u)**2) * du, evaluate=False),
    assumptions=(),
    steps=(
        Step((1 + sp.tanh(u)) / 2 + x / 2 * sp.Derivative(sp.tanh(u), x), "product rule"),
        Step((1 + sp.tanh(u)) / 2 + x / 2 * (1 - sp.tanh(u)**2) * du,
             "tanh' = 1 − tanh², chain rule"),
    ),
)

CLAIMS = [GELU_EXACT, GELU_TANH]
