"""GELU's derivative, exact and in the tanh approximation, written with Φ, φ and u as definitions.

GELU(x) = x Φ(x) with Φ the standard normal CDF, so GELU'(x) = Φ(x) + x φ(x).  The tanh form
GELU(x) ≈ x/2 · (1 + tanh u), u = √(2/π)(x + c x³) with c = 0.044715 (the claim holds for
every c > 0), has derivative (1 + tanh u)/2 + x/2 · (1 − tanh² u) · √(2/π)(1 + 3c x²).
"""

import sympy as sp

from derivations import Derivation, Notation, Step

x = sp.Symbol("x", real=True)
c = sp.Symbol("c", positive=True)  # the tanh form holds for every c; GELU uses c = 0.044715

NOTATION = Notation("GELU", (x, c))
Phi, phi = sp.Function("Phi", real=True), sp.Function("phi", real=True)
PHI = NOTATION.define("Φ", Phi, (1 + sp.erf(x / sp.sqrt(2))) / 2, r"\Phi", params=(x,),
                      text="the standard normal distribution function")
PHI_PDF = NOTATION.define("φ", phi, sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi), r"\varphi",
                          params=(x,), text="the standard normal density")
u = sp.Symbol("u", real=True)
U = NOTATION.define("u", u, sp.sqrt(2 / sp.pi) * (x + c * x**3), text="the tanh form's argument")
du = sp.sqrt(2 / sp.pi) * (1 + 3 * c * x**2)

GELU_EXACT = Derivation(
    id="gelu_derivative_exact",
    title="GELU'(x) = Φ(x) + x φ(x)",
    statement=sp.Eq(sp.Derivative(x * Phi(x), x), Phi(x) + x * phi(x), evaluate=False),
    assumptions=(),
    steps=(
        Step(Phi(x) + x * sp.Derivative(Phi(x), x), "product rule"),
        Step(Phi(x) + x * sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi),
             "the definition of Φ: erf'(w) = 2/√π e^{-w²}, chain rule with w = x/√2", ("Φ",)),
        Step(Phi(x) + x * phi(x), "the definition of φ, the standard normal density", ("φ",)),
    ),
    definitions=(PHI, PHI_PDF),
)

GELU_TANH = Derivation(
    id="gelu_derivative_tanh",
    title="The derivative of GELU's tanh approximation",
    statement=sp.Eq(sp.Derivative(x / 2 * (1 + sp.tanh(u)), x),
                    (1 + sp.tanh(u)) / 2 + x / 2 * (1 - sp.tanh(u)**2) * du, evaluate=False),
    assumptions=(),
    steps=(
        Step((1 + sp.tanh(u)) / 2 + x / 2 * sp.Derivative(sp.tanh(u), x), "product rule"),
        Step((1 + sp.tanh(u)) / 2 + x / 2 * (1 - sp.tanh(u)**2) * du,
             "the definition of u: tanh' = 1 − tanh², chain rule", ("u",)),
    ),
    definitions=(U,),
)

CLAIMS = [GELU_EXACT, GELU_TANH]
