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

from derivations.engine import Derivation, Domain, Notation, Step

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

# the layer's output Y and the loss as seen from it, L = tr(GᵀY): G is the upstream gradient
# ∂L/∂Y (claim linear_upstream_gradient), so ∂L/∂W is the layer's backward
LINEAR = Notation("linear layer", (n, d, m, X, W, b, G))
Y_S = sp.MatrixSymbol("Y", n, m)
Y_DEF = LINEAR.define("Y", Y_S, Y, text="the layer's output, n×m")
L = sp.Symbol("L", real=True)
L_DEF = LINEAR.define("L", L, sp.Trace(G.T * Y_S),
                      text="the loss through Y, for the upstream gradient G = ∂L/∂Y")
UPSTREAM = Notation("upstream gradient", (n, m, G, Y_S))
L_Y_DEF = UPSTREAM.define("L", L, sp.Trace(G.T * Y_S),
                          text="a loss that is linear in the layer's output Y")
QKV = Notation("Q, K and V", (n, d, m, X, W_Q, W_K, W_V, G_Q, G_K, G_V))
# Q, K, V in this order, as written (SymPy would sort them K, Q, V)
_QKV = sp.Add(sp.Trace(G_Q.T * X * W_Q), sp.Trace(G_K.T * X * W_K), sp.Trace(G_V.T * X * W_V),
              evaluate=False)
QKV_L_DEF = QKV.define("L", L, _QKV, text="the loss through the three projections XW_Q, "
                       "XW_K and XW_V, for their upstream gradients G_Q, G_K and G_V")
A_QKV = sp.MatrixSymbol("A", d, n)
A_DEF = QKV.define("A", A_QKV, sp.MatAdd(W_Q * G_Q.T, W_K * G_K.T, W_V * G_V.T),
                   text="the summed coefficient of X, d×n")

# Entrywise derivatives of explicit matrices grow fast with the sizes; 1..3 covers the
# non-square cases (d ≠ m, n ≠ d) that catch a transpose placed on the wrong factor.
DOMAIN = Domain(dims=(n, d, m), max_dim=3)
# six explicit matrices per point: sizes 1..2 still give d ≠ m and n ≠ d
QKV_DOMAIN = Domain(dims=(n, d, m), max_dim=3)


def _d(expr, var):
    return sp.Derivative(expr, var)


linear_upstream_gradient = Derivation(
    id="linear_upstream_gradient",
    title="Linear layer: with L = tr(GᵀY), the upstream gradient ∂L/∂Y is G",
    statement=sp.Eq(_d(L, Y_S), G, evaluate=False),
    assumptions=(),
    steps=(Step(G, "the definition of L; ∂tr(GᵀY)/∂Y = G", ("L",)),),
    domain=DOMAIN,
    definitions=(L_Y_DEF,),
)

linear_grad_weight = Derivation(
    id="linear_grad_weight",
    title="Linear layer: the weight gradient is XᵀG",
    statement=sp.Eq(_d(L, W), GRAD_W, evaluate=False),
    assumptions=(),
    steps=(
        Step(_d(sp.Trace(G.T * X * W), W),
             "the definitions of L and Y; the bias term tr(Gᵀ1bᵀ) does not depend on W",
             ("L",)),
        Step(GRAD_W, "∂tr(AW)/∂W = Aᵀ with A = GᵀX"),
    ),
    domain=DOMAIN,
    definitions=(L_DEF,),
)

linear_grad_input = Derivation(
    id="linear_grad_input",
    title="Linear layer: the input gradient is GWᵀ",
    statement=sp.Eq(_d(L, X), GRAD_X, evaluate=False),
    assumptions=(),
    steps=(
        Step(_d(sp.Trace(G.T * X * W), X),
             "the definitions of L and Y; the bias term tr(Gᵀ1bᵀ) does not depend on X",
             ("L",)),
        Step(_d(sp.Trace(W * G.T * X), X), "cyclic property of the trace"),
        Step(sp.Transpose(W * G.T), "∂tr(AX)/∂X = Aᵀ with A = WGᵀ"),
        Step(GRAD_X, "(WGᵀ)ᵀ = GWᵀ"),
    ),
    domain=DOMAIN,
    definitions=(L_DEF,),
)

linear_grad_bias = Derivation(
    id="linear_grad_bias",
    title="Linear layer: the bias gradient is Gᵀ1, the column sums of G",
    statement=sp.Eq(_d(L, b), GRAD_B, evaluate=False),
    assumptions=(),
    steps=(
        Step(_d(sp.Trace(G.T * ONES * b.T), b),
             "the definitions of L and Y; the term tr(GᵀXW) does not depend on b", ("L",)),
        Step(_d(sp.Trace(b.T * G.T * ONES), b), "cyclic property of the trace"),
        Step(GRAD_B, "∂(bᵀc)/∂b = c with c = Gᵀ1: the broadcast over n rows becomes a sum"),
    ),
    domain=DOMAIN,
    definitions=(L_DEF,),
)

qkv_accumulation = Derivation(
    id="qkv_accumulation",
    title="Q, K and V share X, so their input gradients add",
    statement=sp.Eq(_d(L, X), sp.MatAdd(G_Q * W_Q.T, G_K * W_K.T, G_V * W_V.T), evaluate=False),
    assumptions=(),
    steps=(
        Step(_d(sp.Add(sp.Trace(W_Q * G_Q.T * X), sp.Trace(W_K * G_K.T * X),
                       sp.Trace(W_V * G_V.T * X), evaluate=False), X),
             "the definition of L; the cyclic property of the trace, term by term", ("L",)),
        Step(_d(sp.Trace(A_QKV * X), X),
             "linearity of the trace: one trace of the summed coefficient A", ("A",)),
        Step(A_QKV.T, "∂tr(AX)/∂X = Aᵀ"),
        Step(sp.MatAdd(G_Q * W_Q.T, G_K * W_K.T, G_V * W_V.T),
             "the definition of A; the transpose of a sum is the sum of the transposes", ("A",)),
    ),
    domain=QKV_DOMAIN,
    definitions=(QKV_L_DEF, A_DEF),
)

CLAIMS = (linear_upstream_gradient, linear_grad_weight, linear_grad_input, linear_grad_bias,
          qkv_accumulation)
