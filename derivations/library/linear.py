"""Gradients of a linear layer Y = XW + 1bᵀ, and of a shared input feeding Q, K and V.

The upstream gradient G = ∂L/∂Y enters through L = tr(GᵀY): for any G this L has ∂L/∂Y = G, so
the derivative of L with respect to a parameter is exactly the backward pass of the layer.

Shapes (all symbolic): X is n×d (n rows, one per token), W is d×m, b is m×1, G is n×m; 1 is the
n×1 all-ones column.  For Q/K/V the three projections are d×m with upstream gradients n×m.

Final results (SymPy matrix expressions in the symbols below):

* ``GRAD_W``  = XᵀG            (d×m)
* ``GRAD_X``  = GWᵀ            (n×d)
* ``GRAD_B``  = Gᵀ1            (m×1): the bias gradient sums G over the rows
* ``QKV_GRAD_X`` = G_Q W_Qᵀ + G_K W_Kᵀ + G_V W_Vᵀ (n×d)

The numeric route of the engine re-derives every ∂/∂W entry by entry on explicit matrices, since
SymPy's matrix derivatives have returned silent zeros (``(Trace(F.T*F) - 3).diff(F)``).
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Derivation, Domain, Step

n, d, m = sp.symbols("n d m", integer=True, positive=True)
X = sp.MatrixSymbol("X", n, d)
W = sp.MatrixSymbol("W", d, m)
b = sp.MatrixSymbol("b", m, 1)
G = sp.MatrixSymbol("G", n, m)
ONES = sp.OneMatrix(n, 1)

Y = X * W + ONES * b.T
LOSS = sp.Trace(G.T * Y)

W_Q, W_K, W_V = (sp.MatrixSymbol(f"W_{c}", d, m) for c in "QKV")
G_Q, G_K, G_V = (sp.MatrixSymbol(f"G_{c}", n, m) for c in "QKV")
QKV_LOSS = sp.Trace(G_Q.T * X * W_Q) + sp.Trace(G_K.T * X * W_K) + sp.Trace(G_V.T * X * W_V)

GRAD_W = X.T * G
GRAD_X = G * W.T
GRAD_B = G.T * ONES
QKV_GRAD_X = G_Q * W_Q.T + G_K * W_K.T + G_V * W_V.T

# Entrywise derivatives of explicit matrices grow fast with the sizes; 1..3 covers the
# non-square cases (d ≠ m, n ≠ d) that catch a transpose placed on the wrong factor.
DOMAIN = Domain(dims=(n, d, m), max_dim=3)
# six explicit matrices per point: sizes 1..2 still give d ≠ m and n ≠ d
QKV_DOMAIN = Domain(dims=(n, d, m), max_dim=3)


def _d(expr, var):
    return sp.Derivative(expr, var)


linear_grad_weight = Derivation(
    id="linear_grad_weight",
    title="Linear layer: the weight gradient is XᵀG",
    statement=sp.Eq(_d(LOSS, W), GRAD_W, evaluate=False),
    assumptions=(),
    steps=(
        Step(_d(sp.Trace(G.T * X * W), W), "the bias term tr(Gᵀ1bᵀ) does not depend on W"),
        Step(GRAD_W, "∂tr(AW)/∂W = Aᵀ with A = GᵀX"),
    ),
    domain=DOMAIN,
)

linear_grad_input = Derivation(
    id="linear_grad_input",
    title="Linear layer: the input gradient is GWᵀ",
    statement=sp.Eq(_d(LOSS, X), GRAD_X, evaluate=False),
    assumptions=(),
    steps=(
        Step(_d(sp.Trace(G.T * X * W), X), "the bias term tr(Gᵀ1bᵀ) does not depend on X"),
        Step(_d(sp.Trace(W * G.T * X), X), "cyclic property of the trace"),
        Step((W * G.T).T, "∂tr(AX)/∂X = Aᵀ with A = WGᵀ"),
        Step(GRAD_X, "(WGᵀ)ᵀ = GWᵀ"),
    ),
    domain=DOMAIN,
)

linear_grad_bias = Derivation(
    id="linear_grad_bias",
    title="Linear layer: the bias gradient is Gᵀ1, the column sums of G",
    statement=sp.Eq(_d(LOSS, b), GRAD_B, evaluate=False),
    assumptions=(),
    steps=(
        Step(_d(sp.Trace(G.T * ONES * b.T), b), "the term tr(GᵀXW) does not depend on b"),
        Step(_d(sp.Trace(b.T * G.T * ONES), b), "cyclic property of the trace"),
        Step(GRAD_B, "∂(bᵀc)/∂b = c with c = Gᵀ1: the broadcast over n rows becomes a sum"),
    ),
    domain=DOMAIN,
)

qkv_accumulation = Derivation(
    id="qkv_accumulation",
    title="Q, K and V share X, so their input gradients add",
    statement=sp.Eq(_d(QKV_LOSS, X), QKV_GRAD_X, evaluate=False),
    assumptions=(),
    steps=(
        Step(_d(sp.Trace(W_Q * G_Q.T * X) + sp.Trace(W_K * G_K.T * X)
                + sp.Trace(W_V * G_V.T * X), X), "cyclic property of the trace, term by term"),
        Step(_d(sp.Trace((W_Q * G_Q.T + W_K * G_K.T + W_V * G_V.T) * X), X),
             "linearity of the trace: one trace of a summed coefficient"),
        Step((W_Q * G_Q.T + W_K * G_K.T + W_V * G_V.T).T, "∂tr(AX)/∂X = Aᵀ"),
        Step(QKV_GRAD_X, "the transpose of a sum is the sum of the transposes"),
    ),
    domain=QKV_DOMAIN,
)

CLAIMS = (linear_grad_weight, linear_grad_input, linear_grad_bias, qkv_accumulation)
