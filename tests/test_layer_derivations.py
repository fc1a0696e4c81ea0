"""LayerNorm, GELU, positions and embedding claims: each proved, each result re-computed another
way (NumPy finite differences at small sizes, the model's own ops, explicit SymPy matrices), and
a wrong step rejected at that step."""

from __future__ import annotations

import functools
import math

import claim_family
import numpy as np
import pytest
import sympy as sp

from derivations import with_step
from derivations.library import embedding as EM
from derivations.library import gelu as GE
from derivations.library import layernorm as LN
from derivations.library import positions as PO
from derivations.testing import assert_fails_at
from numeric import finite_diff, ops

SEED = 5
FD_H = 1e-6
# central differences of smooth float64 functions of O(1) values: error ~h² + 1e-16/h ≈ 1e-10
FD_ATOL = 1e-8
EXACT_ATOL = 1e-12
CLAIMS = [d.id for m in (LN, GE, PO, EM) for d in m.CLAIMS]


fd = functools.partial(finite_diff.gradient, h=FD_H)
test_claims_are_registered, test_claim_is_proved = claim_family.tests(CLAIMS)


# ----------------------------------------------------------------------------- LayerNorm
def _ln_grad_formula(d):
    """GRAD_INPUT lambdified at size d, as a function of (x, g, j)."""
    xs, gs = sp.symbols(f"x0:{d}"), sp.symbols(f"g0:{d}")
    sub = {LN.d: d}
    out = []
    for jj in range(1, d + 1):
        e = LN.GRAD_INPUT.xreplace({**sub, LN.j: jj}).doit()
        e = e.xreplace({LN.x[a]: xs[a - 1] for a in range(1, d + 1)})
        e = e.xreplace({LN.g[a]: gs[a - 1] for a in range(1, d + 1)})
        out.append(e)
    return sp.lambdify([xs, gs, LN.eps], out)


@pytest.mark.parametrize("d", [1, 3, 6])
def test_layernorm_input_gradient_by_fd_and_by_the_op(rng, d):
    x, g, eps = rng.normal(size=d) * 2 + 1, rng.normal(size=d), 1e-5

    def loss(v):
        xhat = (v - v.mean()) / np.sqrt(v.var() + eps)
        return float(np.sum(g * xhat))

    formula = np.array(_ln_grad_formula(d)(x, g, eps))
    assert np.allclose(formula, fd(loss, x), atol=FD_ATOL)
    # the model's op with γ = 1 gets dout = g as ∂L/∂x̂
    _, cache = ops.layernorm_forward(x[None], np.ones(d), np.zeros(d), eps)
    dx, _, _ = ops.layernorm_backward(g[None], cache)
    assert np.allclose(dx[0], formula, atol=EXACT_ATOL)


def test_layernorm_affine_gradients_match_the_op(rng):
    n, d = 4, 3
    x, gam, bet, dout = (rng.normal(size=s) for s in ((n, d), d, d, (n, d)))
    out, cache = ops.layernorm_forward(x, gam, bet)
    _, dg, db = ops.layernorm_backward(dout, cache)
    xhat = cache[0]
    assert np.allclose(dg, (dout * xhat).sum(0), atol=EXACT_ATOL)
    assert np.allclose(db, dout.sum(0), atol=EXACT_ATOL)
    assert np.allclose(dg, fd(lambda v: float(np.sum(dout * (xhat * v + bet))), gam), atol=FD_ATOL)


def test_layernorm_sigma_derivative_by_fd(rng):
    x, eps = rng.normal(size=5), 1e-3
    sigma = lambda v: math.sqrt(v.var() + eps)  # noqa: E731
    xhat = (x - x.mean()) / sigma(x)
    assert np.allclose(fd(sigma, x), xhat / x.size, atol=FD_ATOL)


def test_layernorm_wrong_twin_fails_at_the_dropped_projection():
    wrong = with_step(LN.layernorm_grad_input, 5, (LN.g[LN.j] - LN.MEAN_G) / LN.SIGMA)
    assert_fails_at(wrong, 5)


# ----------------------------------------------------------------------------- GELU
def test_gelu_exact_derivative_by_fd():
    xs = np.linspace(-4, 4, 17)
    gelu = np.vectorize(lambda v: v * 0.5 * (1 + math.erf(v / math.sqrt(2))))
    phi = np.exp(-xs**2 / 2) / math.sqrt(2 * math.pi)
    big_phi = 0.5 * (1 + np.vectorize(math.erf)(xs / math.sqrt(2)))
    num = np.array([(gelu(v + FD_H) - gelu(v - FD_H)) / (2 * FD_H) for v in xs])
    assert np.allclose(num, big_phi + xs * phi, atol=FD_ATOL)


def test_gelu_tanh_forms_match_the_ops():
    xs = np.linspace(-6, 6, 25)
    fwd = sp.lambdify(GE.x, GE.GELU_TANH)
    deriv = sp.lambdify(GE.x, GE.GELU_TANH_DERIVATIVE)
    out, cache = ops.gelu_forward(xs)
    assert np.allclose(out, fwd(xs), atol=EXACT_ATOL)
    assert np.allclose(ops.gelu_backward(np.ones_like(xs), cache), deriv(xs), atol=EXACT_ATOL)
    num = (fwd(xs + FD_H) - fwd(xs - FD_H)) / (2 * FD_H)
    assert np.allclose(num, deriv(xs), atol=FD_ATOL)


def test_identity_mlp_gradient_by_fd(rng):
    d, h = 3, 5
    w1, b1, w2, b2, g = (rng.normal(size=s) for s in ((h, d), h, (d, h), d, d))
    grad = fd(lambda v: float(g @ (w2 @ (w1 @ v + b1) + b2)), rng.normal(size=d))
    assert np.allclose(grad, w1.T @ w2.T @ g, atol=FD_ATOL)
    assert ops.identity_backward(g, None) is g  # the activation's Jacobian is I


def test_gelu_wrong_twin_fails_at_sigma_only():
    assert_fails_at(with_step(GE.gelu_tanh_derivative, 4, GE.SIG), 4)


# ----------------------------------------------------------------------------- positions
def test_sinusoidal_table_shifts_by_one_fixed_rotation_per_pair():
    t_len, c, k = 12, 8, 3
    pe = ops.sinusoidal_encoding(t_len, c)
    for i in range(c // 2):
        w = 10000.0 ** (-2 * i / c)
        m = np.array([[math.cos(w * k), math.sin(w * k)], [-math.sin(w * k), math.cos(w * k)]])
        pairs = pe[:, 2 * i: 2 * i + 2]  # (T, 2): (sin, cos)
        assert np.allclose(pairs[:-k] @ m.T, pairs[k:], atol=EXACT_ATOL)
        formula = sp.lambdify([PO.t, PO.k], PO.offset_map(PO.k, i).xreplace({PO.h: c // 2})
                              * PO.pe_pair(PO.t, i).xreplace({PO.h: c // 2}))
        assert np.allclose(np.array(formula(5, k), float).ravel(), pe[5 + k, 2 * i: 2 * i + 2])


def _rope(x, pos_offset=0):
    cos, sin = ops.rope_tables(pos_offset + x.shape[2], x.shape[3])
    return ops.rope_forward(x, cos[pos_offset:], sin[pos_offset:])


def test_rope_is_orthogonal_and_its_backward_is_the_transpose(rng):
    x, g = rng.normal(size=(1, 2, 5, 6)), rng.normal(size=(1, 2, 5, 6))
    out, cache = _rope(x)
    assert np.allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), atol=EXACT_ATOL)
    dx = ops.rope_backward(g, cache)
    assert np.allclose(dx, fd(lambda v: float(np.sum(g * _rope(v)[0])), x), atol=FD_ATOL)


def test_rope_scores_depend_on_the_offset_only(rng):
    q, k = rng.normal(size=(1, 1, 1, 8)), rng.normal(size=(1, 1, 1, 8))
    cos, sin = ops.rope_tables(20, 8)

    def at(v, p):
        return ops.rope_forward(v, cos[p:p + 1], sin[p:p + 1])[0].ravel()

    scores = {(m, n): float(at(q, m) @ at(k, n)) for m in range(6) for n in range(6)}
    for (m, n), s in scores.items():
        assert s == pytest.approx(scores[(0, n - m)] if n >= m else scores[(m - n, 0)], abs=1e-12)


def test_positions_wrong_twin_fails_at_the_absolute_angle():
    wrong = with_step(PO.rope_pair_relative, 2, PO.q1[PO.j] * PO.rope_out(
        PO.k1[PO.j], PO.k2[PO.j], PO.n, PO.j)[0] + PO.q2[PO.j] * PO.rope_out(
        PO.k1[PO.j], PO.k2[PO.j], PO.n, PO.j)[1])
    assert_fails_at(wrong, 2)


# ----------------------------------------------------------------------------- embedding
def test_embedding_scatter_add_by_fd_and_by_the_op(rng):
    vocab, c = 4, 3
    idx = np.array([[2, 2, 0, 2]])
    wte, dout = rng.normal(size=(vocab, c)), rng.normal(size=(1, 4, c))
    _, cache = ops.embedding_forward(idx, wte)
    dwte = ops.embedding_backward(dout, cache)
    assert np.allclose(dwte, fd(lambda w: float(np.sum(dout * w[idx])), wte), atol=FD_ATOL)
    onehot = np.eye(vocab)[idx[0]]  # (T, V): X of embedding_grad_one_hot
    assert np.allclose(dwte, onehot.T @ dout[0], atol=EXACT_ATOL)
    assert np.allclose(dwte[2], dout[0, [0, 1, 3]].sum(0), atol=EXACT_ATOL)


def test_scatter_add_formula_on_explicit_tokens():
    g = sp.IndexedBase("G")
    for a, b, v in [(1, 1, 1), (2, 1, 2), (1, 2, 2), (2, 3, 1)]:
        got = EM.SCATTER_ADD.xreplace({EM.a: a, EM.b: b, EM.v: v}).xreplace({EM.G: g})
        want = sum((g[t, EM.e] for t, tok in enumerate((a, a, b), 1) if tok == v), sp.S.Zero)
        assert sp.simplify(got - want) == 0


def test_embedding_wrong_twin_fails_on_a_repeated_token():
    overwrite = sp.KroneckerDelta(EM.a, EM.v) * EM.G[2, EM.e] + sp.KroneckerDelta(
        EM.b, EM.v) * EM.G[3, EM.e]
    assert_fails_at(with_step(EM.embedding_grad_scatter_add, 4, overwrite), 4)
