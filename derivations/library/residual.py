"""The residual block's Jacobian with a tanh MLP branch, and the collapse of a purely linear MLP.

Shapes: x is d×1.  The residual branch is written as chapter 5's Y = XW reads for one column
vector, z = Wᵀx: W₁ d×h, b₁ h×1, W₂ h×d.  The collapsed MLP keeps the left-multiplied W₁x
of the notes it answers: W₁ h×d, W₂ d×h, b₂ d×1.  Jacobians of column vectors follow the
engine's layout: entry (a, b) of ∂f/∂x is ∂f_a/∂x_b.

Final results:

* ``RESIDUAL_JACOBIAN`` = I + W₂ᵀ diag(1 − tanh²(W₁ᵀx + b₁)) W₁ᵀ, the Jacobian of x + F(x) with
  F(x) = W₂ᵀ tanh(W₁ᵀx + b₁); ``JACOBIAN_F`` = W₂ᵀ diag(1 − tanh²(W₁ᵀx + b₁)) W₁ᵀ
* ``MLP_COLLAPSED`` = (W₂W₁)x + (W₂b₁ + b₂)
"""

from __future__ import annotations

import sympy as sp
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
from sympy.matrices.expressions.diagonal import DiagMatrix

from derivations.engine import Derivation, Domain, Notation, Step


class JacobianShapeError(sp.ShapeError):
    """A Jacobian was asked of something that is not a column vector."""


class Jacobian(sp.MatrixExpr):
    """∂f/∂x for column vectors: entry (a, b) = ∂f_a/∂x_b.

    Symbolically ``doit`` applies the sum rule, ∂x/∂x = I, ∂c/∂x = 0 for c free of x, constant
    left factors (∂(A g)/∂x = A ∂g/∂x) and the elementwise chain rule ∂φ(u)/∂x = diag(φ'(u)) ∂u/∂x;
    anything else stays unevaluated.  Once f and x are explicit it differentiates entry by entry,
    which is how the numeric route checks the symbolic rules."""

    def __new__(cls, f, var):
        f, var = sp.sympify(f, strict=True), sp.sympify(var, strict=True)
        if f.shape[1] != 1 or var.shape[1] != 1:
            raise JacobianShapeError(f"Jacobian: expected column vectors, got f {tuple(f.shape)}"
                                     f" by x {tuple(var.shape)}")
        return super().__new__(cls, f, var)

    @property
    def shape(self):
        return (self.args[0].shape[0], self.args[1].shape[0])

    def _latex(self, printer):
        f, var = (printer._print(a) for a in self.args)
        if isinstance(self.args[0], sp.MatAdd | sp.MatMul):  # a sum or a product in brackets
            f = rf"\left({f}\right)"
        return rf"\frac{{\partial {f}}}{{\partial {var}}}"

    def doit(self, **hints):
        f, var = self.args
        f = f.doit(**hints) if hints.get("deep", True) else f
        if isinstance(var, sp.MatrixBase):
            return sp.ImmutableMatrix(_explicit(f).jacobian(list(var)))
        return _symbolic_jacobian(f, var)


def _explicit(f) -> sp.ImmutableMatrix:
    """An explicit matrix for a matrix expression over explicit matrices, product by product:
    SymPy's own ``as_explicit`` writes every entry of a product as a Sum first, which costs
    seconds at size 6."""
    if isinstance(f, sp.MatrixBase):
        return sp.ImmutableMatrix(f)
    if isinstance(f, sp.MatAdd):
        return sp.ImmutableMatrix(sp.Add(*[_explicit(t) for t in f.args]))
    if isinstance(f, sp.MatMul):
        scalar, factors = f.as_coeff_matrices()
        out = _explicit(factors[0])
        for M in factors[1:]:
            out = out * _explicit(M)
        return sp.ImmutableMatrix(scalar * out)
    if isinstance(f, ElementwiseApplyFunction):
        return sp.ImmutableMatrix(_explicit(f.expr).applyfunc(f.function))
    return sp.ImmutableMatrix(f.as_explicit())


class Diag(DiagMatrix):
    """diag(v) for a column vector v; once v is explicit, an explicit diagonal matrix (SymPy's
    DiagMatrix stays unevaluated, and the numeric route would expand each entry as a Sum)."""

    def doit(self, **hints):
        v = self.args[0].doit(**hints) if hints.get("deep", True) else self.args[0]
        if isinstance(v, sp.MatrixBase):
            return sp.ImmutableMatrix(sp.diag(*v))
        return Diag(v)


def _symbolic_jacobian(f, var):
    if f == var:
        return sp.Identity(var.shape[0])
    if not f.has(var):
        return sp.ZeroMatrix(f.shape[0], var.shape[0])
    if isinstance(f, sp.MatAdd):
        return sp.MatAdd(*[_symbolic_jacobian(t, var) for t in f.args]).doit()
    if isinstance(f, sp.MatMul):
        scalar, factors = f.as_coeff_matrices()
        if len(factors) > 1 and not any(M.has(var) for M in factors[:-1]):
            inner = _symbolic_jacobian(factors[-1], var)
            if not isinstance(inner, Jacobian):
                return sp.MatMul(scalar, *factors[:-1], inner).doit()
    if isinstance(f, ElementwiseApplyFunction):
        fn, u = f.function, f.expr
        inner = _symbolic_jacobian(u, var)
        if not isinstance(inner, Jacobian):
            t = fn.variables[0]
            slope = sp.Lambda(t, sp.diff(fn.expr, t))
            return sp.MatMul(Diag(u.applyfunc(slope)), inner).doit()
    return Jacobian(f, var)


d, h = sp.symbols("d h", integer=True, positive=True)
x = sp.MatrixSymbol("x", d, 1)
W_1 = sp.MatrixSymbol("W_1", h, d)
b_1 = sp.MatrixSymbol("b_1", h, 1)
W_2 = sp.MatrixSymbol("W_2", d, h)
b_2 = sp.MatrixSymbol("b_2", d, 1)
# the residual branch's weights, d×h and h×d: a single column vector's layer is z = Wᵀx
W_IN = sp.MatrixSymbol("W_1", d, h)
W_OUT = sp.MatrixSymbol("W_2", h, d)
_u = sp.Symbol("w")  # the bound variable of the elementwise maps, named apart from u
PRE = W_IN.T * x + b_1
TANH = PRE.applyfunc(sp.Lambda(_u, sp.tanh(_u)))
F = W_OUT.T * TANH
SLOPE = Diag(PRE.applyfunc(sp.Lambda(_u, 1 - sp.tanh(_u) ** 2)))
JACOBIAN_F = W_OUT.T * SLOPE * W_IN.T
RESIDUAL_JACOBIAN = sp.Identity(d) + JACOBIAN_F

# the branch's pre-activation u = W₁ᵀx + b₁, an h×1 column
RESIDUAL = Notation("residual block", (d, h, x, W_IN, b_1, W_OUT))
U = sp.MatrixSymbol("u", h, 1)
U_DEF = RESIDUAL.define("u", U, PRE, text="the pre-activation of the branch, h×1")
_TANH_U = U.applyfunc(sp.Lambda(_u, sp.tanh(_u)))
# the slope of tanh at u, on the diagonal
DS = sp.MatrixSymbol("D", h, h)
D_DEF = RESIDUAL.define("D", DS, Diag(U.applyfunc(sp.Lambda(_u, 1 - sp.tanh(_u) ** 2))),
                        text="the slope of tanh at u, entry by entry on the diagonal, h×h")
_SLOPE_U = DS

residual_jacobian = Derivation(
    id="residual_jacobian",
    title="∂(x + W₂ᵀ tanh(W₁ᵀx + b₁))/∂x = I + W₂ᵀ diag(1 − tanh²(W₁ᵀx + b₁)) W₁ᵀ",
    statement=sp.Eq(Jacobian(sp.MatAdd(x, W_OUT.T * _TANH_U), x),
                    sp.MatAdd(sp.Identity(d), W_OUT.T * _SLOPE_U * W_IN.T), evaluate=False),
    assumptions=(),
    # MatAdd/MatMul built without evaluation: ``+`` would run Jacobian.doit and jump to the end
    steps=(
        Step(sp.MatAdd(Jacobian(x, x), Jacobian(W_OUT.T * _TANH_U, x)),
             "the Jacobian of a sum is the sum of Jacobians"),
        Step(sp.MatAdd(sp.Identity(d), Jacobian(W_OUT.T * _TANH_U, x)),
             "∂x/∂x = I: the skip path passes the gradient unchanged"),
        Step(sp.MatAdd(sp.Identity(d), sp.MatMul(W_OUT.T, Jacobian(_TANH_U, x))),
             "W₂ does not depend on x: ∂(W₂ᵀ tanh(u))/∂x = W₂ᵀ ∂tanh(u)/∂x"),
        Step(sp.MatAdd(sp.Identity(d), sp.MatMul(W_OUT.T, _SLOPE_U, Jacobian(U, x))),
             "chain rule, entry by entry: ∂tanh(u)/∂u = 1 − tanh²(u), so ∂tanh(u)/∂x = "
             "D ∂u/∂x; the definition of D", ("D",)),
        Step(sp.MatAdd(sp.Identity(d), W_OUT.T * _SLOPE_U * W_IN.T),
             "the definition of u: ∂(W₁ᵀx + b₁)/∂x = W₁ᵀ", ("u",)),
    ),
    domain=Domain(dims=(d, h)),
    definitions=(U_DEF, D_DEF),
)

MLP = W_2 * (W_1 * x + b_1) + b_2
MLP_COLLAPSED = (W_2 * W_1) * x + (W_2 * b_1 + b_2)
# one weight and one bias, grouped as written (SymPy would flatten the sum)
MLP_GROUPED = sp.MatAdd(sp.MatMul(sp.MatMul(W_2, W_1), x), sp.MatAdd(W_2 * b_1, b_2))

mlp_collapse = Derivation(
    id="mlp_collapse",
    title="Without a nonlinearity two linear layers are one: W₂(W₁x + b₁) + b₂ = (W₂W₁)x + "
          "(W₂b₁ + b₂)",
    statement=sp.Eq(MLP, MLP_GROUPED, evaluate=False),
    assumptions=(),
    steps=(
        Step(W_2 * W_1 * x + W_2 * b_1 + b_2, "distribute W₂ over the sum"),
        Step(MLP_GROUPED, "group: one weight W₂W₁ (d×d) and one bias W₂b₁ + b₂ (d×1)"),
    ),
    domain=Domain(dims=(d, h), max_dim=3),
)

CLAIMS = (residual_jacobian, mlp_collapse)
