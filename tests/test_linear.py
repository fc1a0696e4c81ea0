"""Linear-layer gradients: each claim proved, each result re-derived entry by entry on explicit
matrices and by finite differences, and realistic wrong steps rejected."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from derivations import Derivation, DerivationError, Domain, Step, verify
from derivations.library import linear as lin
from numeric import finite_diff as fd

# float64 central differences of a function that is linear in every argument: only rounding.
FD_STEP = 1e-6
FD_ATOL = 1e-8

SHAPES = [(2, 3, 2), (1, 2, 3), (3, 1, 2)]  # (n, d, m), non-square so transposes matter


def _explicit(name, rows, cols):
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{name}{i}{j}"))


def _grad(loss, M):
    return M.applyfunc(lambda e: sp.diff(loss, e))


def _at(shape_subs, expr):
    return sp.Matrix(expr.xreplace(shape_subs).as_explicit())


@pytest.mark.parametrize("claim", [c.id for c in lin.CLAIMS])
def test_claim_is_proved(verified, claim):
    result = verified.assert_proved(claim)
    assert all(s.symbolic == "zero" and s.numeric == "agree" for s in result.steps)


@pytest.mark.parametrize("n,d,m", SHAPES)
def test_gradients_entrywise_on_explicit_matrices(n, d, m):
    # variables
    X, W, G = _explicit("x", n, d), _explicit("w", d, m), _explicit("g", n, m)
    b = _explicit("b", m, 1)
    # forward
    Y = X * W + sp.ones(n, 1) * b.T
    loss = (G.T * Y).trace()
    # backward, one scalar derivative per entry
    dW, dX, db = _grad(loss, W), _grad(loss, X), _grad(loss, b)
    # check against the module's results at these sizes
    sub = {lin.n: n, lin.d: d, lin.m: m, lin.X: X, lin.W: W, lin.G: G, lin.b: b}
    assert sp.simplify(dW - _at(sub, lin.GRAD_W)) == sp.zeros(d, m)
    assert sp.simplify(dX - _at(sub, lin.GRAD_X)) == sp.zeros(n, d)
    assert sp.simplify(db - _at(sub, lin.GRAD_B)) == sp.zeros(m, 1)


@pytest.mark.parametrize("n,d,m", SHAPES)
def test_qkv_gradient_entrywise(n, d, m):
    X = _explicit("x", n, d)
    Ws = {c: _explicit(f"w{c}", d, m) for c in "qkv"}
    Gs = {c: _explicit(f"g{c}", n, m) for c in "qkv"}
    loss = sum(((Gs[c].T * X * Ws[c]).trace() for c in "qkv"), sp.Integer(0))
    dX = _grad(loss, X)
    sub = {lin.n: n, lin.d: d, lin.m: m, lin.X: X,
           lin.W_Q: Ws["q"], lin.W_K: Ws["k"], lin.W_V: Ws["v"],
           lin.G_Q: Gs["q"], lin.G_K: Gs["k"], lin.G_V: Gs["v"]}
    assert sp.simplify(dX - _at(sub, lin.QKV_GRAD_X)) == sp.zeros(n, d)


@pytest.mark.parametrize("n,d,m", SHAPES)
def test_gradients_by_finite_differences(n, d, m):
    # variables
    rng = np.random.default_rng(7)
    X, W, G = rng.normal(size=(n, d)), rng.normal(size=(d, m)), rng.normal(size=(n, m))
    b = rng.normal(size=(m,))

    def loss(X, W, b):  # forward
        return float(np.sum(G * (X @ W + b)))

    def by_fd(f, A):  # backward by central differences
        return fd.derivative(fd.rowwise(f), A, h=FD_STEP).reshape(A.shape)

    f = sp.lambdify((lin.X, lin.W, lin.G), lin.GRAD_W.xreplace({lin.n: n, lin.d: d, lin.m: m}))
    np.testing.assert_allclose(by_fd(lambda A: loss(X, A, b), W), f(X, W, G), atol=FD_ATOL)
    np.testing.assert_allclose(by_fd(lambda A: loss(A, W, b), X), G @ W.T, atol=FD_ATOL)
    np.testing.assert_allclose(by_fd(lambda a: loss(X, W, a), b), G.T @ np.ones(n), atol=FD_ATOL)


def test_engine_rejects_sympys_silent_zero():
    F = sp.MatrixSymbol("F", 3, 3)
    wrong = sp.Trace(F.T * F) - 3
    assert wrong.diff(F) == sp.ZeroMatrix(3, 3)  # the answer trusted below; the truth is 2F
    d = Derivation("silent_zero", "trusts SymPy", sp.Eq(sp.Derivative(wrong, F),
                   sp.ZeroMatrix(3, 3), evaluate=False), (),
                   (Step(sp.ZeroMatrix(3, 3), "SymPy's matrix derivative"),))
    result = verify(d)
    assert result.status == "failed" and result.failed_step == 1
    ce = result.steps[0].counterexample
    F_vals = sp.Matrix(3, 3, lambda i, j: sp.Float(ce["point"][f"F[{i},{j}]"]))
    prev = sp.Matrix(sp.sympify(ce["previous"]))
    assert (prev - 2 * F_vals).norm() < 1e-10  # the entrywise derivative the engine found is 2F


def _grad_w_claim(rhs, W_, X_, G_, dims):
    loss = sp.Trace(G_.T * X_ * W_)
    return Derivation("wrong_grad_w", "transpose swap", sp.Eq(sp.Derivative(loss, W_), rhs,
                      evaluate=False), (), (Step(rhs, "∂tr(AW)/∂W = Aᵀ"),),
                      Domain(dims=dims, max_dim=3))


def test_transpose_swap_square_shapes_fails():
    k = sp.Symbol("k", integer=True, positive=True)
    X_, W_, G_ = (sp.MatrixSymbol(s, k, k) for s in "XWG")
    result = verify(_grad_w_claim(G_.T * X_, W_, X_, G_, (k,)))
    assert result.status == "failed" and result.failed_step == 1
    assert result.steps[0].counterexample["previous"] != result.steps[0].counterexample["current"]


def test_transpose_swap_general_shapes_is_a_shape_error():
    with pytest.raises(DerivationError, match=r"wrong_grad_w.*step 1.*shape mismatch.*\(d, m\)"):
        _grad_w_claim(lin.G.T * lin.X, lin.W, lin.X, lin.G, (lin.n, lin.d, lin.m))


def test_bias_gradient_without_the_sum_fails():
    # averaging instead of summing over the n rows: right shape, wrong value
    wrong = lin.G.T * lin.ONES / lin.n
    d = Derivation("bias_mean", "mean, not sum", sp.Eq(sp.Derivative(lin.LOSS, lin.b), wrong,
                   evaluate=False), (), (Step(wrong, "∂(bᵀc)/∂b = c"),), lin.DOMAIN)
    result = verify(d)
    assert result.status == "failed" and result.failed_step == 1


def test_bias_gradient_dropping_the_ones_is_a_shape_error():
    with pytest.raises(DerivationError, match=r"step 1.*expected \(m, 1\).*got \(m, n\)"):
        Derivation("bias_no_sum", "G transposed only", sp.Eq(sp.Derivative(lin.LOSS, lin.b),
                   lin.G.T, evaluate=False), (), (Step(lin.G.T, "∂(bᵀc)/∂b = c"),), lin.DOMAIN)


def test_qkv_with_a_missing_term_fails():
    wrong = lin.G_Q * lin.W_Q.T + lin.G_K * lin.W_K.T
    d = Derivation("qkv_missing_v", "V forgotten",
                   sp.Eq(sp.Derivative(lin.QKV_LOSS, lin.X), wrong, evaluate=False), (),
                   (Step(wrong, "∂tr(AX)/∂X = Aᵀ for each term"),), lin.DOMAIN)
    result = verify(d)
    assert result.status == "failed" and result.failed_step == 1
