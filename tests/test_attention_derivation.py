"""Attention derivations: each claim proved, each result re-computed another way (NumPy, PyTorch
autograd, finite differences, explicit SymPy Jacobians), and realistic mistakes rejected."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import derivations
from derivations import Derivation, Domain, Step, verify, with_step
from derivations.library import attention as T
from derivations.library import heads_shapes as HS
from derivations.library import residual as R
from derivations.testing import assert_fails_at
from numeric import finite_diff as fd

# float64 against 50-digit SymPy values or float64 PyTorch: rounding only
FLOAT_ATOL = 1e-12
# central differences with step 1e-6 on tanh/exp of O(1) inputs: truncation ~1e-12, rounding ~1e-10
FD_STEP = 1e-6
FD_ATOL = 1e-8

ATT_SHAPES = [(1, 1, 1, 1), (2, 3, 2, 1), (3, 2, 1, 4)]  # (n, m, d_k, d_v)


def _rand(rng, *shape):
    return rng.normal(size=shape)


def _np_softmax_rows(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def _explicit_value(expr, sizes, arrays):
    sub = dict(sizes)
    sub.update({M.xreplace(sizes): sp.ImmutableMatrix(arr) for M, arr in arrays.items()})
    return np.array(sp.ImmutableMatrix(expr.xreplace(sizes).xreplace(sub).doit()).evalf(30),
                    dtype=float)


@pytest.mark.parametrize("claim", [c.id for c in (*T.CLAIMS, *R.CLAIMS, *HS.CLAIMS)])
def test_claim_is_proved(verified, claim):
    verified.assert_proved(claim)


@pytest.mark.parametrize("n,m,dk,dv", ATT_SHAPES)
def test_attention_matches_numpy(n, m, dk, dv):
    # variables
    rng = np.random.default_rng(n * 100 + m * 10 + dv)
    Qv, Kv, Vv = _rand(rng, n, dk), _rand(rng, m, dk), _rand(rng, m, dv)
    sizes = {T.n: n, T.m: m, T.d_k: dk, T.d_v: dv}
    # forward, two ways
    ours = _explicit_value(T.ATTENTION, sizes, {T.Q: Qv, T.K: Kv, T.V: Vv})
    numpy_ref = _np_softmax_rows(Qv @ Kv.T / np.sqrt(dk)) @ Vv
    # check
    assert ours.shape == (n, dv)
    np.testing.assert_allclose(ours, numpy_ref, atol=FLOAT_ATOL)
    assert T.Attention(T.Q, T.K, T.V).shape == (T.n, T.d_v)


@pytest.mark.parametrize("n,m,dk,dv", ATT_SHAPES)
def test_attention_matches_torch(n, m, dk, dv):
    torch = pytest.importorskip("torch", reason="optional extra torch not installed")
    # variables
    rng = np.random.default_rng(n * 100 + m * 10 + dv)
    Qv, Kv, Vv = _rand(rng, n, dk), _rand(rng, m, dk), _rand(rng, m, dv)
    sizes = {T.n: n, T.m: m, T.d_k: dk, T.d_v: dv}
    # forward, SymPy and PyTorch
    ours = _explicit_value(T.ATTENTION, sizes, {T.Q: Qv, T.K: Kv, T.V: Vv})
    torch_ref = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(a)[None] for a in (Qv, Kv, Vv)))[0].numpy()
    # check
    np.testing.assert_allclose(ours, torch_ref, atol=FLOAT_ATOL)


def test_attention_rejects_mismatched_inputs():
    K_wide = sp.MatrixSymbol("K", T.m, T.d_k + 1)
    with pytest.raises(T.AttentionShapeError, match=r"same width d_k.*Q \(n, d_k\).*K"):
        T.Attention(T.Q, K_wide, T.V)
    V_short = sp.MatrixSymbol("V", T.n, T.d_v)
    with pytest.raises(T.AttentionShapeError, match=r"expected V with m rows, got V \(n, d_v\)"):
        T.Attention(T.Q, T.K, V_short)


def test_misplaced_bracket_is_a_shape_error_for_general_shapes():
    with pytest.raises(sp.ShapeError, match=r"shape \(rows, m\).*got \(n, d_v\)"):
        T.misplaced_attention(T.Q, T.K, T.V)
    with pytest.raises(T.AttentionShapeError, match=r"got \(2, 3\)"):
        T.softmax_over_keys(sp.ones(2, 3), 4)
    # the product itself is well-typed: only the key-wise softmax of it is not
    assert (T.Q * T.K.T * T.V).shape == (T.n, T.d_v)


def test_misplaced_bracket_where_it_type_checks_differs_and_is_not_convex():
    # variables: d_v = m, so softmax(QKᵀV/√d_k) type-checks; V's entries all lie in [5, 6]
    n, m, dk = 2, 3, 2
    Q_, K_, V_ = (sp.MatrixSymbol(s, r, c) for s, r, c in (("Q", n, dk), ("K", m, dk), ("V", m, m)))
    rng = np.random.default_rng(3)
    arrays = {Q_: _rand(rng, n, dk), K_: _rand(rng, m, dk), V_: rng.uniform(5, 6, size=(m, m))}
    # forward
    right = _explicit_value(T.softmax_over_keys(Q_ * K_.T / sp.sqrt(dk), m) * V_, {}, arrays)
    wrong = _explicit_value(T.misplaced_attention(Q_, K_, V_), {}, arrays)
    # check: correct rows are convex combinations of V's rows, the misplaced rows are softmax rows
    assert np.all((right >= 5) & (right <= 6))
    np.testing.assert_allclose(wrong.sum(axis=1), 1.0, atol=FLOAT_ATOL)
    assert np.all(wrong < 1) and np.abs(right - wrong).max() > 1


def test_v_moved_inside_the_softmax_fails():
    k = sp.Symbol("k", integer=True, positive=True)  # d_v = m = k: the only case that type-checks
    Q_, K_, V_ = sp.MatrixSymbol("Q", T.n, T.d_k), sp.MatrixSymbol("K", k, T.d_k), \
        sp.MatrixSymbol("V", k, k)
    wrong = T.misplaced_attention(Q_, K_, V_)
    d = Derivation("v_inside", "V inside the softmax", sp.Eq(T.Attention(Q_, K_, V_), wrong,
                   evaluate=False), (), (Step(wrong, "move V into the softmax"),),
                   Domain(dims=(T.n, T.d_k, k), max_dim=3))
    result = verify(d)
    assert result.status == "failed" and result.failed_step == 1
    assert result.steps[0].counterexample is not None


def _attention_arrays(n, m, dk, dv, seed):
    rng = np.random.default_rng(seed)
    return {T.Q: _rand(rng, n, dk), T.K: _rand(rng, m, dk), T.V: _rand(rng, m, dv)}


def _entry_value(expr, sizes, arrays, indices):
    """A scalar claim expression at explicit sizes, matrices and indices (50 digits)."""
    sub = {M.xreplace(sizes): sp.ImmutableMatrix(a) for M, a in arrays.items()}
    concrete = expr.xreplace({**sizes, **indices}).doit().xreplace(sub).doit()
    return float(sp.N(concrete, 50))


@pytest.mark.parametrize("n,m,dk,dv", [(2, 3, 2, 2), (3, 4, 1, 3)])
def test_attention_entry_and_row_sums_match_numpy(n, m, dk, dv):
    # variables
    arrays = _attention_arrays(n, m, dk, dv, seed=m * 7 + dv)
    sizes = {T.n: n, T.m: m, T.d_k: dk, T.d_v: dv}
    # forward in NumPy
    weights = _np_softmax_rows(arrays[T.Q] @ arrays[T.K].T / np.sqrt(dk))
    out = weights @ arrays[T.V]
    # check every entry of the claim's Σ_j s_ij V_jc and its weights' row sums
    for r in range(n):
        # the claims count entries from 1: row r of NumPy is i = r + 1
        row_sum = _entry_value(T.attention_weights_sum_to_one.checked.lhs, sizes, arrays,
                               {T.i: r + 1})
        assert abs(row_sum - 1.0) < FLOAT_ATOL
        for col in range(dv):
            got = _entry_value(T.ATTENTION_ENTRY, sizes, arrays, {T.i: r + 1, T.c: col + 1})
            assert abs(got - out[r, col]) < FLOAT_ATOL


def test_misplaced_entry_is_the_softmax_over_value_columns():
    # variables: d_v = 2 value columns, m = 3 keys
    n, m, dk, dv = 2, 3, 2, 2
    arrays = _attention_arrays(n, m, dk, dv, seed=9)
    sizes = {T.n: n, T.m: m, T.d_k: dk, T.d_v: dv}
    # forward: the row softmax of QKᵀV/√d_k in NumPy, and the true attention
    wrong = _np_softmax_rows(arrays[T.Q] @ arrays[T.K].T @ arrays[T.V] / np.sqrt(dk))
    right = _np_softmax_rows(arrays[T.Q] @ arrays[T.K].T / np.sqrt(dk)) @ arrays[T.V]
    # check: the claim's entry is the column softmax, its rows sum to 1 over d_v, and it is
    # not the attention
    for r in range(n):
        for col in range(dv):
            got = _entry_value(T.MISPLACED_ENTRY, sizes, arrays, {T.i: r + 1, T.c: col + 1})
            assert abs(got - wrong[r, col]) < FLOAT_ATOL
    np.testing.assert_allclose(wrong.sum(axis=1), 1.0, atol=FLOAT_ATOL)
    assert np.abs(wrong - right).max() > 0.1
    assert T.MISPLACED_ARGUMENT.shape == (T.n, T.d_v)


def test_attention_entry_with_1_over_dk_fails_at_its_step():
    wrong = sp.Sum(T.sm.softmax_of(lambda u: T.score(T.i, u) / sp.sqrt(T.d_k), T.j, T._col, 1,
                                   T.m) * T.entry(T.V, T.j, T.c), (T.j, 1, T.m))
    # written out, without the weights s_ij: the step no longer cites their definition
    assert_fails_at(with_step(T.attention_shapes, 1, wrong, by=("entry of a matrix product",)), 1)


def test_weights_summing_to_m_fails_at_the_last_step():
    assert_fails_at(with_step(T.attention_weights_sum_to_one, 2, T.m), 2)


def test_misplaced_rows_summed_over_the_keys_fail():
    # "the softmax still normalises over the m keys": then Σ_c over d_v columns would be d_v/m
    assert_fails_at(with_step(T.misplaced_bracket, 2, T.d_v / T.m), 2)


def test_misplaced_normaliser_squared_fails_at_step_1():
    top, bottom = T._MISPLACED_TOP, T._MISPLACED_BOTTOM
    assert_fails_at(with_step(T.misplaced_bracket, 1,
                              sp.Sum(top, (T.c, 1, T.d_v)) / bottom ** 2), 1)


@pytest.mark.parametrize("dim,hidden", [(1, 2), (2, 3), (3, 1)])
def test_residual_jacobian_by_explicit_sympy_and_finite_differences(dim, hidden):
    # variables: one column x, the branch's weights d×h and h×d (a vector's layer is z = Wᵀx)
    rng = np.random.default_rng(dim * 10 + hidden)
    vals = {R.W_IN: _rand(rng, dim, hidden), R.b_1: _rand(rng, hidden, 1),
            R.W_OUT: _rand(rng, hidden, dim), R.x: _rand(rng, dim, 1)}
    sizes = {R.d: dim, R.h: hidden}
    # forward
    W1, b1, W2, x0 = (vals[k] for k in (R.W_IN, R.b_1, R.W_OUT, R.x))

    def residual(xv):
        return (xv + W2.T @ np.tanh(W1.T @ xv + b1)).ravel()

    # backward: central differences, SymPy's jacobian of the explicit map, and NumPy's closed form
    by_fd = fd.jacobian(fd.rowwise(residual), x0, h=FD_STEP)
    xs = sp.Matrix(dim, 1, lambda r, c: sp.Symbol(f"x{r}"))
    explicit_map = xs + sp.Matrix(W2.T) * (sp.Matrix(W1.T) * xs
                                           + sp.Matrix(b1)).applyfunc(sp.tanh)
    sym_jac = np.array(explicit_map.jacobian(list(xs)).subs(
        {xs[r]: x0[r, 0] for r in range(dim)}).evalf(30), dtype=float)
    numpy_closed = np.eye(dim) + W2.T @ np.diag(1 - np.tanh(W1.T @ x0 + b1).ravel() ** 2) @ W1.T
    # check the claim's closed form I + W₂ᵀ diag(1 − tanh²(W₁ᵀx + b₁)) W₁ᵀ
    claimed = _explicit_value(R.RESIDUAL_JACOBIAN, sizes, vals)
    np.testing.assert_allclose(claimed, sym_jac, atol=FLOAT_ATOL)
    np.testing.assert_allclose(numpy_closed, sym_jac, atol=FLOAT_ATOL)
    np.testing.assert_allclose(by_fd, sym_jac, atol=FD_ATOL)


def test_residual_jacobian_without_the_identity_fails():
    assert_fails_at(with_step(R.residual_jacobian, 5, R.JACOBIAN_F), 5)


def test_residual_jacobian_in_the_other_layout_fails():
    # W₁ D W₂ = (W₂ᵀ D W₁ᵀ)ᵀ, the same shape: the Jacobian of the row convention's x W₁, taken
    # for the column x, is wrong at the step that differentiates u = W₁ᵀx + b₁
    wrong = sp.MatAdd(sp.Identity(R.d), R.W_IN * R.DS * R.W_OUT)
    assert_fails_at(with_step(R.residual_jacobian, 5, wrong), 5)


def test_residual_jacobian_with_a_wrong_tanh_slope_fails_at_the_chain_rule():
    v = sp.Symbol("v")
    wrong_slope = R.Diag(R.U.applyfunc(sp.Lambda(v, 1 + sp.tanh(v) ** 2)))  # for D, 1 − tanh²
    wrong = sp.MatAdd(sp.Identity(R.d), sp.MatMul(R.W_OUT.T, wrong_slope, R.Jacobian(R.U, R.x)))
    assert_fails_at(with_step(R.residual_jacobian, 4, wrong, by=()), 4)


def test_symbolic_jacobian_rules():
    # the rules the symbolic route applies, one by one
    assert R.Jacobian(R.x, R.x).doit() == sp.Identity(R.d)
    assert R.Jacobian(R.PRE, R.x).doit() == R.W_IN.T
    assert R.Jacobian(R.W_1 * R.x + R.b_1, R.x).doit() == R.W_1
    assert R.Jacobian(R.b_1, R.x).doit() == sp.ZeroMatrix(R.h, R.d)
    assert R.Jacobian(R.F, R.x).doit() == R.JACOBIAN_F
    with pytest.raises(R.JacobianShapeError, match=r"column vectors, got f \(h, d\)"):
        R.Jacobian(R.W_1, R.x)


@pytest.mark.parametrize("dim,hidden", [(1, 2), (3, 2)])
def test_mlp_collapse_numerically(dim, hidden):
    rng = np.random.default_rng(11)
    vals = {R.W_1: _rand(rng, hidden, dim), R.b_1: _rand(rng, hidden, 1),
            R.W_2: _rand(rng, dim, hidden), R.b_2: _rand(rng, dim, 1), R.x: _rand(rng, dim, 1)}
    W1, b1, W2, b2, x0 = (vals[k] for k in (R.W_1, R.b_1, R.W_2, R.b_2, R.x))
    two_layers = W2 @ (W1 @ x0 + b1) + b2
    one_layer = _explicit_value(R.MLP_COLLAPSED, {R.d: dim, R.h: hidden}, vals)
    np.testing.assert_allclose(one_layer, two_layers, atol=FLOAT_ATOL)


def test_mlp_collapse_without_w2_b1_fails():
    assert_fails_at(with_step(R.mlp_collapse, 2, (R.W_2 * R.W_1) * R.x + R.b_2), 2)


@pytest.mark.parametrize("heads,dv", [(1, 2), (3, 2), (4, 1)])
def test_multihead_entries_match_numpy_concatenation(heads, dv):
    # variables: h heads of n×d_v, W_O (h·d_v)×D
    n, D = 2, 3
    rng = np.random.default_rng(heads * 10 + dv)
    H = rng.normal(size=(heads, n, dv))
    W = rng.normal(size=(heads * dv, D))
    sizes = {HS.h: heads, HS.n: n, HS.d_v: dv, HS.D: D}
    # forward in NumPy: concatenate, then project
    reference = np.concatenate(list(H), axis=1) @ W
    # check both sides of the claim, entry by entry
    values = {HS.H[e, r, t]: H[e, r, t] for e in range(heads) for r in range(n) for t in range(dv)}
    W_sym = HS.W_O.xreplace(sizes)
    for side in (HS.multihead_shapes.checked.lhs, HS.PER_HEAD):
        for r in range(n):
            for col in range(D):
                expr = side.xreplace({**sizes, HS.i: r, HS.c: col}).doit()
                expr = expr.xreplace({W_sym: sp.ImmutableMatrix(W)}).doit().xreplace(values)
                assert abs(float(expr) - reference[r, col]) < FLOAT_ATOL


def test_multihead_with_heads_paired_to_wrong_blocks_fails():
    e, t = HS.e, HS.t
    wrong = sp.Sum(HS.H[e, HS.i, t] * HS.W_O[(HS.h - 1 - e) * HS.d_v + t, HS.c],
                   (t, 0, HS.d_v - 1), (e, 0, HS.h - 1))
    assert_fails_at(with_step(HS.multihead_shapes, 2, wrong), 2)


@pytest.mark.parametrize("heads", [1, 2, 3])
def test_multihead_typing_and_values(heads):
    n, dk, dv = sp.symbols("n d_k d_v", integer=True, positive=True)
    d_model = heads * dk
    X_ = sp.MatrixSymbol("X", n, d_model)
    wq = [sp.MatrixSymbol(f"Wq{e}", d_model, dk) for e in range(heads)]
    wk = [sp.MatrixSymbol(f"Wk{e}", d_model, dk) for e in range(heads)]
    wv = [sp.MatrixSymbol(f"Wv{e}", d_model, dv) for e in range(heads)]
    wo = [sp.MatrixSymbol(f"Wo{e}", dv, d_model) for e in range(heads)]
    out = HS.multihead(X_, wq, wk, wv, wo)
    assert out.shape == (n, d_model)
    assert (X_ + out).shape == (n, d_model)  # the residual add type-checks
    # numeric: n = 2, d_k = 1, d_v = 2 against NumPy's concatenate-then-project
    sizes = {n: 2, dk: 1, dv: 2}
    rng = np.random.default_rng(heads)
    arrays = {M: _rand(rng, *(int(s) for s in M.xreplace(sizes).shape))
              for M in [X_, *wq, *wk, *wv, *wo]}
    Xv = arrays[X_]
    head_vals = [_np_softmax_rows((Xv @ arrays[q]) @ (Xv @ arrays[k]).T / np.sqrt(1))
                 @ (Xv @ arrays[v]) for q, k, v in zip(wq, wk, wv, strict=True)]
    reference = np.hstack(head_vals) @ np.vstack([arrays[o] for o in wo])
    np.testing.assert_allclose(_explicit_value(out, sizes, arrays), reference, atol=FLOAT_ATOL)


def test_multihead_rejects_a_wrong_projection_block():
    n, dk, dv = sp.symbols("n d_k d_v", integer=True, positive=True)
    H = [sp.MatrixSymbol(f"H{e}", n, dv) for e in range(2)]
    with pytest.raises(HS.HeadsShapeError, match=r"block 0 must have d_v = d_v rows"):
        HS.MultiHead(H, [sp.MatrixSymbol(f"Wo{e}", dk, 2 * dk) for e in range(2)])
    with pytest.raises(HS.HeadsShapeError, match=r"one W_O block per head.*2 heads and 1"):
        HS.MultiHead(H, [sp.MatrixSymbol("Wo0", dv, 2 * dk)])


@pytest.mark.parametrize("rows,keys", [(1, 1), (2, 3), (3, 4)])
def test_softmax_backward_matches_torch_autograd(rows, keys):
    torch = pytest.importorskip("torch", reason="optional extra torch not installed")
    # variables
    rng = np.random.default_rng(rows * 10 + keys)
    S, dA = _rand(rng, rows, keys), _rand(rng, rows, keys)
    # forward and backward in PyTorch
    S_t = torch.tensor(S, requires_grad=True)
    A_t = torch.softmax(S_t, dim=1)
    A_t.backward(torch.tensor(dA))
    # the module's matrix form, at these sizes
    Av = A_t.detach().numpy()
    ours = _explicit_value(T.SOFTMAX_BACKWARD, {T.n: rows, T.m: keys}, {T.A_: Av, T.dA: dA})
    np.testing.assert_allclose(ours, S_t.grad.numpy(), atol=FLOAT_ATOL)


def test_softmax_backward_row_form_by_finite_differences():
    N = 4
    rng = np.random.default_rng(5)
    zv, av = rng.normal(size=N), rng.normal(size=N)

    def upstream(zz):  # the scalar whose gradient is dS: L = Σ_i a_i s_i(z)
        return float(av @ _np_softmax_rows(zz[None])[0])

    by_fd = fd.derivative(fd.rowwise(upstream), zv, h=FD_STEP)
    row = T.SOFTMAX_BACKWARD_ROW.xreplace({T.N: N})
    values = {T.z[q + 1]: zv[q] for q in range(N)} | {T.a[q + 1]: av[q] for q in range(N)}
    ours = np.array([float(row.xreplace({T.j_key: jj}).doit().xreplace(values))
                     for jj in range(1, N + 1)])
    np.testing.assert_allclose(ours, by_fd, atol=FD_ATOL)


def test_softmax_backward_cites_the_softmax_jacobian():
    result = verify(T.attention_softmax_backward).to_dict()
    assert result["premise_checks"][0]["name"] == "softmax_jacobian"
    assert result["premise_checks"][0]["status"] == "lemma"


def test_softmax_backward_without_the_rowsum_fails():
    wrong = T.s(T.j_key) * T.a[T.j_key]  # dS = A ⊙ dA, the rowsum term dropped
    assert_fails_at(with_step(T.attention_softmax_backward, 3, wrong), 3)


def test_every_claim_object_is_named_by_its_id():
    misnamed = [(name, c.id) for name, module in derivations.modules() for c in module.CLAIMS
                if getattr(module, c.id, None) is not c]
    assert misnamed == []


def test_softmax_has_one_constructor():
    # the cross-entropy probability and the attention weight are softmax_of expressions
    from derivations.library import cross_entropy as ce
    from derivations.library import softmax as sm
    assert ce.probability(ce.j) == sm.softmax_of(lambda u: ce.z[u], ce.j, ce.l, 1, ce.n)
    assert T.weight(T.i, T.j) == sm.softmax_of(lambda u: T.score(T.i, u), T.j, T._col, 1, T.m)


def test_entries_count_from_1_as_d2l_writes_them():
    # V_{jc} is SymPy's V[j − 1, c − 1], printed without the shift and without a comma
    assert sp.latex(T.entry(T.V, T.j, T.c)) == "{V}_{jc}"
    assert T.entry(T.V, T.j, T.c).doit() == T.V[T.j - 1, T.c - 1]
    assert sp.latex(T.entry(T.V, 2, T.c)) == "{V}_{2,c}"
    # every sum of the attention claims runs from 1
    lows = {lim[1] for c in (T.attention_shapes, T.attention_weights_sum_to_one,
                             T.misplaced_bracket)
            for e in (c.statement, *(s.expr for s in c.steps), *(d.body for d in c.definitions))
            for x in sp.preorder_traversal(e) if isinstance(x, sp.Sum) for lim in x.limits}
    assert lows == {1}


def test_an_entry_counted_from_0_fails_at_its_step():
    # Σ_{j=1}^{m} s_ij V[j, c]: the 0-based value row of key j is the next key's row
    wrong = sp.Sum(T.w[T.i, T.j] * T.V[T.j, T.c - 1], (T.j, 1, T.m - 1))
    assert_fails_at(with_step(T.attention_shapes, 1, wrong), 1)
