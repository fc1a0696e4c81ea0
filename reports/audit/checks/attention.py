"""Evidence on the attention formula softmax(QKᵀ/√d_k)V: its bracket, its rows, the score
matrix, shapes, what it is linear in, and the graph its weights form."""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import (
    Fact,
    Math,
    Nums,
    attention_loop,
    check,
    dims,
    judge,
    num_jac,
    softmax,
)


def _qkv(n: int = 4, d_k: int = 3, d_v: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))


def attend(x: np.ndarray, wq, wk, wv) -> np.ndarray:
    q, k, v = x @ wq, x @ wk, x @ wv
    return softmax(q @ k.T / math.sqrt(q.shape[1])) @ v


def weights(rng, d_in: int = 6, d_k: int = 3):
    return tuple(rng.normal(size=(d_in, d_k)) for _ in range(3))


@check(right="note", wrong="source")
def source_bracket_typo(version):
    """The source's Softmax(QKᵀV/√d_k) against the note's own fix Softmax(QKᵀ/√d_k)V, both
    compared with attention computed one query at a time."""
    forms = {"source": (lambda q, k, v: softmax(q @ k.T @ v / math.sqrt(q.shape[1])),
                        r"\operatorname{softmax}(QK^\top V/\sqrt{d_k})"),
             "note": (lambda q, k, v: softmax(q @ k.T / math.sqrt(q.shape[1])) @ v,
                      r"\operatorname{softmax}(QK^\top/\sqrt{d_k})\,V")}
    f, tex = forms[version]
    q, k, v = _qkv()
    got = f(q, k, v)
    gap = float(np.max(np.abs(got - attention_loop(q, k, v))))
    linear = bool(np.allclose(f(q, k, 2 * v), 2 * got))
    claim = Fact("formula_vs_loop", form=Math(tex), gap=gap, linear=linear)
    return judge(version, [Fact("loop_setup")],
                 **{version: (claim, gap < 1e-12 and linear)})


@check(right="note", wrong="foil")
def attention_formula(version):
    """softmax(QKᵀ/√d_k)V for all rows at once equals attention computed query by query; the
    softmax taken down the columns does not."""
    rng = np.random.default_rng(14)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    axis = {"note": 1, "foil": 0}[version]
    got = softmax(q @ k.T / math.sqrt(3), axis=axis) @ v
    gap = float(np.max(np.abs(got - attention_loop(q, k, v))))
    claim = Fact("softmax_over_keys" if axis else "softmax_over_queries", gap=gap)
    return judge(version, [Fact("loop_setup")], **{version: (claim, gap < 1e-12)})


@check(right="note", wrong="foil")
def attention_row_mixing(version):
    """A is n×n with positive rows that sum to 1, and every output row is a weighted average of
    the rows of V; the columns of A do not sum to 1."""
    rng = np.random.default_rng(15)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    a = softmax(q @ k.T / math.sqrt(3))
    out = a @ v
    convex = bool(np.all(out >= v.min(axis=0) - 1e-12) and np.all(out <= v.max(axis=0) + 1e-12))
    rows, cols = a.sum(axis=1), a.sum(axis=0)
    facts = [Fact("weights_matrix", shape=dims(a.shape), least=float(a.min()),
                  rows=Nums(rows, ".12g"), cols=Nums(cols, ".3f"), convex=convex)]
    return judge(version, facts,
                 note=(Fact("rows_distribution"), bool(np.allclose(rows, 1)) and convex
                       and a.min() > 0),
                 foil=(Fact("columns_distribution"), bool(np.allclose(cols, 1))))


@check(right="note", wrong="foil")
def qk_entry(version):
    """(QKᵀ)_ij = q_i·k_j: query i against key j, a matrix that is not symmetric."""
    rng = np.random.default_rng(16)
    q, k = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    s = q @ k.T
    entry = all(abs(s[i, j] - sum(q[i, m] * k[j, m] for m in range(3))) < 1e-12
                for i in range(4) for j in range(4))
    asym = float(np.max(np.abs(s - s.T)))
    facts = [Fact("score_matrix", shape=dims(s.shape), entry=entry, asym=asym)]
    return judge(version, facts,
                 note=(Fact("entry_query_key"), entry),
                 foil=(Fact("scores_symmetric"), asym < 1e-12))


@check(right="note", wrong="foil")
def attention_shapes(version):
    """X (n×d_model) times W (d_model×d_k) gives Q, K, V of n×d_k; the output is n×d_k too."""
    n, d_model, d_k = 5, 16, 4
    rng = np.random.default_rng(17)
    x = rng.normal(size=(n, d_model))
    wq, wk, wv = (rng.normal(size=(d_model, d_k)) for _ in range(3))
    q, k, v = x @ wq, x @ wk, x @ wv
    out = softmax(q @ k.T / math.sqrt(d_k)) @ v
    facts = [Fact("shapes", x=dims(x.shape), w=dims(wq.shape), q=dims(q.shape),
                  a=dims((n, n)), out=dims(out.shape))]
    return judge(version, facts,
                 note=(Fact("projections_dk", n=n, d=d_k), q.shape == k.shape == (n, d_k)),
                 foil=(Fact("projections_dmodel", n=n, d=d_model), q.shape == (n, d_model)))


@check(right="note", wrong="foil")
def naive_self_attention(version):
    """With X in every role the score matrix XXᵀ is symmetric: one vector plays query and key,
    so token i cannot attend to j more than j attends to i."""
    x = np.random.default_rng(20).normal(size=(4, 3))
    s = x @ x.T
    asym = float(np.max(np.abs(s - s.T)))
    facts = [Fact("naive_scores", asym=asym, out=dims((softmax(s) @ x).shape))]
    return judge(version, facts,
                 note=(Fact("roles_conflict"), asym < 1e-12),
                 foil=(Fact("roles_free"), asym > 1e-6))


@check(right="note", wrong="foil")
def scores_not_distribution(version):
    """The raw scores QKᵀ take both signs and their rows do not sum to 1."""
    rng = np.random.default_rng(21)
    s = rng.normal(size=(4, 3)) @ rng.normal(size=(4, 3)).T
    facts = [Fact("raw_scores", low=float(s.min()), high=float(s.max()),
                  sums=Nums(s.sum(axis=1), ".2f"))]
    is_dist = bool(s.min() >= 0 and np.allclose(s.sum(axis=1), 1))
    return judge(version, facts,
                 note=(Fact("scores_not_weights"), not is_dist),
                 foil=(Fact("scores_are_weights"), is_dist))


@check(right="correction", wrong="note")
def attention_output_needs_wv(version):
    """The attention output is A·V = A·X·W_V, not A·X."""
    rng = np.random.default_rng(62)
    x, (wq, wk, wv) = rng.normal(size=(4, 6)), weights(rng)
    a = softmax((x @ wq) @ (x @ wk).T / math.sqrt(3))
    ref = attend(x, wq, wk, wv)
    candidate = {"note": a @ x, "correction": a @ x @ wv}[version]
    same = candidate.shape == ref.shape and bool(np.allclose(candidate, ref, atol=1e-12))
    facts = [Fact("attention_output", shape=dims(ref.shape))]
    return judge(version, facts,
                 note=(Fact("output_ax", shape=dims(candidate.shape), same=same), same),
                 correction=(Fact("output_axwv", shape=dims(candidate.shape), same=same), same))


@check(right="correction", wrong="note")
def attention_not_linear(version):
    """For fixed A the map V ↦ AV is linear, but A = softmax(…) depends on X: doubling X does
    not double the output."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 6))
    w = weights(rng)
    a = softmax((x @ w[0]) @ (x @ w[1]).T / math.sqrt(3))
    fixed = bool(np.allclose(a @ (2 * x @ w[2]), 2 * (a @ (x @ w[2]))))
    gap = float(np.max(np.abs(attend(2 * x, *w) - 2 * attend(x, *w))))
    facts = [Fact("doubling", fixed=fixed, gap=gap)]
    return judge(version, facts,
                 note=(Fact("linear_in_x"), gap < 1e-9),
                 correction=(Fact("linear_fixed_a"), fixed and gap > 1e-6))


@check(right="note", wrong="foil")
def attention_jacobian_varies(version):
    """A linear map has one Jacobian everywhere; self-attention's Jacobian changes with X."""
    rng = np.random.default_rng(65)
    x, w = rng.normal(size=(3, 4)), weights(rng, 4, 2)

    def f(v):
        return attend(v.reshape(3, 4), *w).ravel()

    gap = float(np.max(np.abs(num_jac(f, x.ravel()) - num_jac(f, 2 * x.ravel()))))
    facts = [Fact("jacobian_moves", gap=gap)]
    return judge(version, facts,
                 note=(Fact("attention_nonlinear"), gap > 1e-6),
                 foil=(Fact("attention_linear"), gap < 1e-6))


@check(right="correction", wrong="note")
def attention_stack_nonlinear(version):
    """Two attention layers with residuals and no MLP are still nonlinear in X (the softmax)."""
    rng = np.random.default_rng(63)
    x = rng.normal(size=(4, 6))
    w1, w2 = weights(rng, 6, 6), weights(rng, 6, 6)

    def net(v):
        h = v + attend(v, *w1)
        return h + attend(h, *w2)

    gap = float(np.max(np.abs(net(2 * x) - 2 * net(x))))
    return judge(version, [Fact("stack_doubling", gap=gap)],
                 note=(Fact("stack_linear"), gap < 1e-9),
                 correction=(Fact("stack_nonlinear"), gap > 1e-6))


@check(right="correction", wrong="note")
def attention_graph(version):
    """Attention weights are directed and include self-loops: n² edges, not n(n − 1)/2."""
    n = 4
    q, k, _ = _qkv(n=n, seed=2)
    a = softmax(q @ k.T / math.sqrt(q.shape[1]))
    positive = int(np.count_nonzero(a > 0))
    facts = [Fact("graph_weights", n=n, positive=positive, self_min=float(np.min(np.diag(a))),
                  asym=float(np.max(np.abs(a - a.T))))]
    return judge(version, facts,
                 note=(Fact("complete_undirected", edges=n * (n - 1) // 2),
                       positive == n * (n - 1) // 2),
                 correction=(Fact("directed_loops", edges=n * n), positive == n * n))


@check(right="note", wrong="foil")
def attention_edges_per_query(version):
    """Weights computed one query at a time: n² positive weights, a_ij ≠ a_ji, self-weights > 0."""
    rng = np.random.default_rng(67)
    n, q, k = 5, rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    a = np.array([softmax(np.array([q[i] @ k[j] for j in range(n)])) for i in range(n)])
    asym = float(np.max(np.abs(a - a.T)))
    facts = [Fact("graph_weights", n=n, positive=int(np.sum(a > 0)),
                  self_min=float(np.min(np.diag(a))), asym=asym)]
    return judge(version, facts,
                 note=(Fact("weights_directed"), asym > 1e-3 and bool(np.all(a > 0))),
                 foil=(Fact("weights_symmetric"), asym < 1e-12))
