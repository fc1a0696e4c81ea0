"""Evidence on the attention formula softmax(QKᵀ/√d_k)V: its bracket, its rows, the score
matrix, shapes, what it is linear in, and the graph its weights form. A formula a note writes
is evaluated as written and compared with attention computed one query at a time."""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import (
    Fact,
    Math,
    Nums,
    Said,
    attention_loop,
    check,
    dims,
    num_jac,
    softmax,
    verdict,
)
from reports.audit.formula import FormulaError, evaluate


def _qkv(n: int = 4, d_k: int = 3, d_v: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))


def attend(x: np.ndarray, wq, wk, wv) -> np.ndarray:
    q, k, v = x @ wq, x @ wk, x @ wv
    return softmax(q @ k.T / math.sqrt(q.shape[1])) @ v


def weights(rng, d_in: int = 6, d_k: int = 3):
    return tuple(rng.normal(size=(d_in, d_k)) for _ in range(3))


def _value(form: str, **env):
    """``form`` evaluated as written; None when its shapes do not multiply."""
    try:
        return np.asarray(evaluate(form, **env))
    except (ValueError, FormulaError):
        return None


_FIX = r"\operatorname{softmax}(QK^\top/\sqrt{d_k})V"


@check(right="note", wrong="source", other=_FIX,
       said=Said("Softmax(dkQKTV)", r"\operatorname{softmax}(QK^\top V/\sqrt{d_k})"))
def source_bracket_typo(form):
    """The source's Softmax(QKᵀV/√d_k) against the note's own fix Softmax(QKᵀ/√d_k)V, both
    evaluated as written and compared with attention computed one query at a time."""
    q, k, v = _qkv()
    got, doubled = _value(form, Q=q, K=k, V=v, d_k=3.0), _value(form, Q=q, K=k, V=2 * v, d_k=3.0)
    ref = attention_loop(q, k, v)
    gap = float(np.max(np.abs(got - ref))) if got.shape == ref.shape else math.inf
    linear = bool(np.allclose(doubled, 2 * got))
    claim = Fact("formula_vs_loop", form=Math(form), gap=gap, linear=linear)
    return verdict([Fact("loop_setup")], claim, gap < 1e-12 and linear)


_ATTENTION = r"\operatorname{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
_READS_FORMULA = ("attention computed as $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})\\,V$, "
                  "all queries at once",
                  "注意力按 $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})\\,V$ "
                  "计算，所有查询一次算完")


@check(right="note", wrong="foil",
       other=r"\operatorname{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)^\top V", said=(
           Said("Attention(Q,K,V)=Softmax(dkQKT)V", _ATTENTION),
           Said("通过 QKT/dk 计算关系矩阵，用 Softmax 归一化", _ATTENTION, _READS_FORMULA),
           Said("Attention(Q,K,V) = softmax", _ATTENTION,
                ("the note's formula, continued: divided by $\\sqrt{d_k}$, then times $V$",
                 "讲义的公式接着写：除以 $\\sqrt{d_k}$，再乘 $V$")),
           Said("所有 token 同时计算 Attention", _ATTENTION, _READS_FORMULA),
           Said("用矩阵乘法算相似度，用 softmax 变成概率分布", _ATTENTION, _READS_FORMULA),
           Said("融合上下文后的新表示", _ATTENTION, _READS_FORMULA),
           Said("除以 $\\sqrt{d_k}$ 后 softmax，变成概率分布", _ATTENTION, _READS_FORMULA),
           Said("一次看完整条序列", _ATTENTION, _READS_FORMULA),
       ))
def attention_formula(form):
    """softmax(QKᵀ/√d_k)V for all rows at once equals attention computed query by query; the
    transposed weights do not."""
    rng = np.random.default_rng(14)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    got = _value(form, Q=q, K=k, V=v, d_k=3.0)
    gap = float(np.max(np.abs(got - attention_loop(q, k, v))))
    claim = Fact("softmax_over_keys" if form == _ATTENTION else "softmax_over_queries", gap=gap)
    return verdict([Fact("loop_setup")], claim, gap < 1e-12)


_ROWS = ("each row of the weights $A$ is a distribution over the keys, and each output row a "
         "weighted average of the rows of $V$",
         "权重 $A$ 的每一行都是键上的概率分布，每个输出行都是"
         " $V$ 各行的加权平均")


@check(right="note", wrong="foil", other="columns", said=(
    Said("Softmax 作为注意力机制核心", "rows", _ROWS),
    Said("用 A 对 V 进行加权行混合", "rows", _ROWS),
    Said("单头注意力只能给出一种分布", "rows", ("one head gives one distribution over the keys per "
                                        "query, one row of $A$",
                                        "一个头对每个查询给出一个键上的分布，即 "
                                        "$A$ 的一行")),
    Said("把每一行分数变成**概率分布**", "rows", _ROWS),
    Said("每行加起来等于 1", "rows", _ROWS),
    Said("对 V 做**加权平均**", "rows", _ROWS),
    Said("用这些权重去加权所有词的 Value", "rows", _ROWS),
    Said("任意两个位置直接交互", "rows", ("every weight $a_{ij}$ is positive: each position "
                                    "reads every other directly",
                                    "每个权重 $a_{ij}$ 都为正：每个位置"
                                    "都直接读取其他每个位置")),
    Said("Attention（行操作）", "rows", ("attention mixes the rows of $V$ (the tokens), with "
                                     "weights in the rows of $A$",
                                     "注意力混合 $V$ 的各行（即各词元），"
                                     "权重在 $A$ 的各行")),
))
def attention_row_mixing(axis):
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
    if axis == "rows":
        return verdict(facts, Fact("rows_distribution"),
                       bool(np.allclose(rows, 1)) and convex and a.min() > 0)
    return verdict(facts, Fact("columns_distribution"), bool(np.allclose(cols, 1)))


_ENTRY = r"q_i^\top k_j"
_READS_ENTRY = ("entry $(i, j)$ of $QK^\\top$ is $q_i^\\top k_j$, query $i$ against key $j$",
                "$QK^\\top$ 的第 $(i, j)$ 个元素是 $q_i^\\top k_j$，即查询 $i$ 对键 $j$")


@check(right="note", wrong="foil", other=r"q_j^\top k_i", said=(
    Said("qiTkj 表示“Token i 的查询”与“Token j 的键”的匹配度", _ENTRY),
    Said("sij=qiTkj", _ENTRY),
    Said("计算是通过矩阵乘法完成的", _ENTRY, _READS_ENTRY),
    Said("得到一个 $n \\times n$ 的相似矩阵", _ENTRY, _READS_ENTRY),
    Said("第 $i$ 个词和第 $j$ 个词有多相关", _ENTRY, _READS_ENTRY),
))
def qk_entry(form):
    """(QKᵀ)_ij = q_i·k_j: query i against key j, a matrix that is not symmetric."""
    rng = np.random.default_rng(16)
    q, k = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    s = q @ k.T
    entry = all(abs(s[i, j] - np.asarray(evaluate(form, **{
        "q_i": q[i:i + 1].T, "k_j": k[j:j + 1].T, "q_j": q[j:j + 1].T, "k_i": k[i:i + 1].T}))
        .item()) < 1e-12 for i in range(4) for j in range(4))
    by_sum = all(abs(s[i, j] - sum(q[i, m] * k[j, m] for m in range(3))) < 1e-12
                 for i in range(4) for j in range(4))
    asym = float(np.max(np.abs(s - s.T)))
    facts = [Fact("score_matrix", shape=dims(s.shape), entry=by_sum, asym=asym)]
    return verdict(facts, Fact("entry_as_written", form=Math(form)), entry)


_PROJECT = ("$Q = XW_Q$ with $X$ of $n\\times d_{\\mathrm{model}}$ and $W_Q$ of "
            "$d_{\\mathrm{model}}\\times d_k$: $Q$ is $n\\times d_k$", "$Q = XW_Q$，$X$ 为 "
            "$n\\times d_{\\mathrm{model}}$，$W_Q$ 为 $d_{\\mathrm{model}}\\times d_k$：$Q$ 为 $n"
            "\\times d_k$")


@check(right="note", wrong="foil", other="X", said=(
    Said("Q=XWQ", "XW_Q"),
    Said("X∈Rn×d（行是token，列是特征）", "XW_Q", _PROJECT),
    Said("这是我们进入Attention的起点", "XW_Q", ("attention starts from $X$: $Q = XW_Q$ (and $K$, "
                                           "$V$ likewise)",
                                           "注意力从 $X$ 出发：$Q = XW_Q$（$K$、$V$ 同理）")),
    Said("WQ,WK,WV∈Rdmodel×dk", "XW_Q", _PROJECT),
    Said("以输入自己本身来建立注意力权重", "XW_Q", _PROJECT),
    Said("先分别用不同的权重矩阵乘以 X做映射", "XW_Q", _PROJECT),
    Said("来自**同一个输入序列 X**", "XW_Q", _PROJECT),
    Said("$Q = XW_Q", "XW_Q"),
))
def attention_shapes(form):
    """X (n×d_model) times W (d_model×d_k) gives Q, K, V of n×d_k; the output is n×d_k too."""
    n, d_model, d_k = 5, 16, 4
    rng = np.random.default_rng(17)
    x = rng.normal(size=(n, d_model))
    wq, wk, wv = (rng.normal(size=(d_model, d_k)) for _ in range(3))
    q, k, v = x @ wq, x @ wk, x @ wv
    out = softmax(q @ k.T / math.sqrt(d_k)) @ v
    facts = [Fact("shapes", x=dims(x.shape), w=dims(wq.shape), q=dims(q.shape),
                  a=dims((n, n)), out=dims(out.shape))]
    got = _value(form, X=x, W_Q=wq)
    same = got is not None and got.shape == (n, d_k) and bool(np.allclose(got, q))
    claim = (Fact("projections_dk", n=n, d=d_k) if form != "X"
             else Fact("projections_dmodel", n=n, d=d_model))
    return verdict(facts, claim, same)


@check(right="note", wrong="foil", other=r"XW_QW_K^\top X^\top", said=(
    Said("用 XXT 计算相似度", "XX^T"),
    Said("角色冲突", "XX^T", ("scoring with $XX^\\top$, one vector as both query and key",
                           "用 $XX^\\top$ 打分，同一个向量既当查询又当键")),
))
def naive_self_attention(form):
    """With X in every role the score matrix XXᵀ is symmetric: one vector plays query and key,
    so token i cannot attend to j more than j attends to i."""
    rng = np.random.default_rng(20)
    x = rng.normal(size=(4, 3))
    wq, wk = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    s = _value(form, X=x, W_Q=wq, W_K=wk)
    asym = float(np.max(np.abs(s - s.T)))
    facts = [Fact("naive_scores", asym=float(np.max(np.abs(x @ x.T - (x @ x.T).T))),
                  out=dims((softmax(x @ x.T) @ x).shape))]
    claim = Fact("roles_conflict" if form == "XX^T" else "roles_free_as_written",
                 form=Math(form))
    return verdict(facts, claim, asym < 1e-12)


@check(right="note", wrong="foil", other=r"\operatorname{softmax}(QK^T)", said=(
    Said("可正可负 - 大小不固定 - 不是概率分布", "QK^T", ("the raw scores $QK^\\top$",
                                                "原始分数 $QK^\\top$")),
    Said("QK^T 只是相似度分数", "QK^T"),
))
def scores_not_distribution(form):
    """The raw scores QKᵀ take both signs and their rows do not sum to 1; after the softmax
    they would."""
    rng = np.random.default_rng(21)
    q, k = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    s = q @ k.T
    facts = [Fact("raw_scores", low=float(s.min()), high=float(s.max()),
                  sums=Nums(s.sum(axis=1), ".2f"))]
    got = _value(form, Q=q, K=k)
    is_dist = bool(got.min() >= 0 and np.allclose(got.sum(axis=1), 1))
    return verdict(facts, Fact("not_weights_as_written", form=Math(form)), not is_dist)


@check(right="correction", wrong="note", other="AXW_V", said=(
    Said("Y=AX", "AX"),
    Said("对原始输入进行加权", "AX", ("the weights multiply the raw input: $AX$",
                                "权重直接乘原始输入：$AX$")),
))
def attention_output_needs_wv(form):
    """The attention output is A·V = A·X·W_V, not A·X."""
    rng = np.random.default_rng(62)
    x, (wq, wk, wv) = rng.normal(size=(4, 6)), weights(rng)
    a = softmax((x @ wq) @ (x @ wk).T / math.sqrt(3))
    ref = attend(x, wq, wk, wv)
    got = _value(form, A=a, X=x, W_V=wv)
    same = got.shape == ref.shape and bool(np.allclose(got, ref, atol=1e-12))
    return verdict([Fact("attention_output", shape=dims(ref.shape))],
                   Fact("output_as_written", form=Math(form), shape=dims(got.shape), same=same),
                   same)


@check(right="correction", wrong="note", other=False,
       said=Said("本质是线性操作", True, ("attention is a linear operation on $X$: doubling $X$ "
                                     "doubles the output",
                                     "注意力是对 $X$ 的线性运算：$X$ 加倍，输出也加倍")))
def attention_not_linear(linear):
    """For fixed A the map V ↦ AV is linear, but A = softmax(…) depends on X: doubling X does
    not double the output."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 6))
    w = weights(rng)
    a = softmax((x @ w[0]) @ (x @ w[1]).T / math.sqrt(3))
    fixed = bool(np.allclose(a @ (2 * x @ w[2]), 2 * (a @ (x @ w[2]))))
    gap = float(np.max(np.abs(attend(2 * x, *w) - 2 * attend(x, *w))))
    claim = Fact("linear_in_x") if linear else Fact("linear_fixed_a")
    return verdict([Fact("doubling", fixed=fixed, gap=gap)], claim,
                   (gap < 1e-9) == linear and fixed)


@check(right="note", wrong="foil", other="fixed",
       said=Said("线性操作", "varies", ("the Jacobian of self-attention changes with $X$",
                                     "自注意力的雅可比矩阵随 $X$ 变化")))
def attention_jacobian_varies(jacobian):
    """A linear map has one Jacobian everywhere; self-attention's Jacobian changes with X."""
    rng = np.random.default_rng(65)
    x, w = rng.normal(size=(3, 4)), weights(rng, 4, 2)

    def f(v):
        return attend(v.reshape(3, 4), *w).ravel()

    gap = float(np.max(np.abs(num_jac(f, x.ravel()) - num_jac(f, 2 * x.ravel()))))
    facts = [Fact("jacobian_moves", gap=gap)]
    if jacobian == "varies":
        return verdict(facts, Fact("attention_nonlinear"), gap > 1e-6)
    return verdict(facts, Fact("attention_linear"), gap < 1e-6)


@check(right="correction", wrong="note", other="n^2",
       said=Said(r"$\frac{n(n-1)}{2}$", r"\frac{n(n-1)}{2}"))
def attention_graph(count):
    """Attention weights are directed and include self-loops: n² edges, not n(n − 1)/2."""
    n = 4
    q, k, _ = _qkv(n=n, seed=2)
    a = softmax(q @ k.T / math.sqrt(q.shape[1]))
    positive = int(np.count_nonzero(a > 0))
    facts = [Fact("graph_weights", n=n, positive=positive, self_min=float(np.min(np.diag(a))),
                  asym=float(np.max(np.abs(a - a.T))))]
    said = int(round(float(evaluate(count, n=n))))
    return verdict(facts, Fact("edges_as_written", form=Math(count), count=said),
                   positive == said)


@check(right="note", wrong="foil", other="symmetric",
       said=Said("条无向边", "directed", ("the weights are directed: $a_{ij} \\ne a_{ji}$ in "
                                      "general", "权重是有向的：一般 $a_{ij} \\ne a_{ji}$")))
def attention_edges_per_query(kind):
    """Weights computed one query at a time: n² positive weights, a_ij ≠ a_ji, self-weights > 0."""
    rng = np.random.default_rng(67)
    n, q, k = 5, rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    a = np.array([softmax(np.array([q[i] @ k[j] for j in range(n)])) for i in range(n)])
    asym = float(np.max(np.abs(a - a.T)))
    facts = [Fact("graph_weights", n=n, positive=int(np.sum(a > 0)),
                  self_min=float(np.min(np.diag(a))), asym=asym)]
    if kind == "directed":
        return verdict(facts, Fact("weights_directed"), asym > 1e-3 and bool(np.all(a > 0)))
    return verdict(facts, Fact("weights_symmetric"), asym < 1e-12)
