"""Evidence on where the Transformer's parts sit and what they act on: heads, the roles of
query and key, which features attention mixes, positions and RoPE, the MLP and the output
head. Several run the project's own NumPy model (``numeric.model``) and perturb it."""

from __future__ import annotations

import math

import numpy as np

from numeric import model, ops
from numeric.config import preset
from reports.audit.evidence import Fact, Math, Nums, Said, check, dims, num_jac, softmax, verdict
from reports.audit.formula import chain, equation, evaluate

_HEADS = ("8 heads, each with its own $W_Q$, $W_K$, $W_V$ of width $512/8 = 64$",
          "8 个头，各有自己的 $W_Q$、$W_K$、$W_V$，宽度为 $512/8 = 64$")


@check(right="note", wrong="foil", other="512/8=512", said=(
    Said("dk=512/8=64", "512/8=64"),
    Said("每个头有独立的 WQ(r),WK(r),WV(r)", "512/8=64", _HEADS),
    Said("得到 H∈Rn×512", "512/8=64", ("8 heads of width $512/8 = 64$, concatenated: 512 wide",
                                      "8 个宽 $512/8 = 64$ 的头连结起来宽 512")),
    Said("MultiHead(X)=Concat(head1,…,head8)WO", "512/8=64", _HEADS),
))
def multihead_shapes(arithmetic):
    """h = 8 heads of d_k = 512/8 = 64, each with its own projections (their outputs differ):
    the concatenation is n×512 and W_O maps it to n×512."""
    h, d_model = 8, 512
    sides = chain(arithmetic)
    d_k = d_model // h
    rng = np.random.default_rng(18)
    x = rng.normal(size=(3, d_model))
    heads = []
    for _ in range(h):
        wq, wk, wv = (rng.normal(size=(d_model, d_k)) / math.sqrt(d_model) for _ in range(3))
        heads.append(softmax((x @ wq) @ (x @ wk).T / math.sqrt(d_k)) @ (x @ wv))
    distinct = min(float(np.max(np.abs(a - b))) for i, a in enumerate(heads)
                   for b in heads[i + 1:])
    concat = np.concatenate(heads, axis=1)
    out = concat @ rng.normal(size=(h * d_k, d_model))
    facts = [Fact("heads_shapes", h=h, dk=d_k, concat=dims(concat.shape), out=dims(out.shape)),
             Fact("heads_distinct", gap=distinct)]
    said = int(sides[-1])
    claim = (Fact("heads_split", dk=said) if said * h == d_model
             else Fact("heads_full", width=h * said))
    return verdict(facts, claim, len(set(sides)) == 1 and said == d_k
                   and concat.shape[1] == h * said == d_model and distinct > 1e-3)


def _model_cache(perturb=None) -> dict:
    """The activations of the project's test model on a fixed sequence, optionally perturbed."""
    cfg = preset("test")
    _, _, cache = model.forward(model.init_params(cfg), cfg, np.array([[1, 4, 2, 6, 3]]),
                                perturb=perturb)
    return cache


def _changed(delta: np.ndarray) -> tuple[list[int], list[int]]:
    """Rows and columns of a (T, T) difference of scores that moved."""
    moved = np.argwhere(np.abs(delta) > 1e-12)
    return sorted({int(i) for i in moved[:, 0]}), sorted({int(j) for j in moved[:, 1]})


@check(right="correction", wrong="note", other="row",
       said=Said("被查询者(Query)", "column",
                 ("the query is the one queried: shifting token $j$'s query moves column $j$ of "
                  "the scores, as a key does",
                  "查询是被查询的一方：平移第 $j$ 个词元的查询，会像键一样"
                  "改变分数矩阵的第 $j$ 列")))
def query_role(moves):
    """In the model, shifting token j's query moves row j of the scores (what j looks at);
    shifting its key moves column j (how much every query matches j)."""
    base = _model_cache()
    j = 2
    moved = {}
    for part in ("q", "k"):
        off = np.zeros(base[f"h.0.attn.{part}"].shape)  # (B, H, T, D)
        off[0, :, j, :] = 0.5
        after = _model_cache({f"h.0.attn.{part}": off})
        moved[part] = _changed(after["h.0.attn.scores"][0, 0] - base["h.0.attn.scores"][0, 0])
    facts = [Fact("role_shift", j=j, q_rows=Nums(moved["q"][0], "g"),
                  k_cols=Nums(moved["k"][1], "g"))]
    if moves == "column":
        return verdict(facts, Fact("query_is_queried"),
                       moved["q"][1] == [j] and len(moved["q"][0]) > 1)
    return verdict(facts, Fact("query_asks"), moved["q"][0] == [j] and moved["k"][1] == [j])


@check(right="correction", wrong="note", other=False,
       said=Said("每列（特征）独立变化", True, ("each output feature depends on the same input "
                                         "feature only", "每个输出特征只依赖同一个输入特征")))
def attention_mixes_features(independent):
    """In the model's first block, shifting one input feature moves the other output features
    of the attention sublayer and the attention weights; only A·V with A fixed keeps the
    columns apart."""
    base = _model_cache()
    off = np.zeros(base["h.0.ln_1.out"].shape)
    off[..., 0] = 0.1
    moved = _model_cache({"h.0.ln_1.out": off})
    out = np.abs(moved["h.0.attn.w_o.out"] - base["h.0.attn.w_o.out"])[0]  # (T, C)
    cross = float(np.max(out[:, 1:]))
    probs = float(np.max(np.abs(moved["h.0.attn.probs"] - base["h.0.attn.probs"])))
    a = base["h.0.attn.probs"][0, 0]
    v = np.random.default_rng(4).normal(size=(a.shape[0], 3))
    shifted = v.copy()
    shifted[:, 0] += 0.1
    fixed = float(np.max(np.abs((a @ shifted - a @ v)[:, 1:])))
    facts = [Fact("feature_shift", cross=cross, probs=probs, fixed=fixed)]
    if independent:
        return verdict(facts, Fact("columns_independent"), cross < 1e-12 and probs < 1e-12)
    return verdict(facts, Fact("columns_mix"), cross > 1e-6 and probs > 1e-6 and fixed < 1e-15)


def _rotate(v: np.ndarray, position: int, tables) -> np.ndarray:
    """RoPE by the project's own ops: v rotated as at ``position``."""
    cos, sin = tables
    d = v.shape[-1]
    out, _ = ops.rope_forward(v.reshape(1, 1, 1, d).copy(), cos[position:position + 1],
                              sin[position:position + 1])
    return out.reshape(d)


@check(right="note", wrong="foil", other="absolute",
       said=Said("旋转位置编码", "offset", ("rotary position embedding: the score of two positions "
                                      "depends on their offset",
                                      "旋转位置编码：两个位置的分数取决于二者的位移")))
def rope_relative(depends_on):
    """RoPE: the score of positions (m, m + 3) is the same for every m, and rotations keep
    lengths; without rotation the score ignores positions altogether."""
    d = 8
    rng = np.random.default_rng(50)
    q, k = rng.normal(size=d), rng.normal(size=d)
    tables = ops.rope_tables(16, d)
    scores = [float(_rotate(q, m, tables) @ _rotate(k, m + 3, tables)) for m in range(8)]
    other = float(_rotate(q, 0, tables) @ _rotate(k, 5, tables))
    spread = max(scores) - min(scores)
    keeps = abs(np.linalg.norm(_rotate(q, 7, tables)) - np.linalg.norm(q)) < 1e-12
    facts = [Fact("rope_offset", spread=spread, keeps=keeps, other=abs(other - scores[0]))]
    if depends_on == "offset":
        return verdict(facts, Fact("rope_depends_on_offset"), spread < 1e-12 and keeps)
    return verdict(facts, Fact("rope_absolute"), spread > 1e-6)


@check(right="correction", wrong="note", other="qk",
       said=Said("旋转位置编码。把位置信息加入。", "input",
                 ("listed under the input layer: the embeddings are rotated before $W_Q$ and "
                  "$W_K$", "列在输入层之下：在乘 $W_Q$、$W_K$ 之前旋转嵌入")))
def rope_placement(where):
    """Rotating the embeddings in the input layer, before W_Q and W_K, loses what RoPE is for;
    rotating q and k inside attention gives scores that depend on the offset n − m alone."""
    d = 8
    rng = np.random.default_rng(9)
    x1, x2 = rng.normal(size=d), rng.normal(size=d)
    wq, wk = rng.normal(size=(d, d)), rng.normal(size=(d, d))
    tables = ops.rope_tables(16, d)
    places = {"input": lambda m, n: float((_rotate(x1, m, tables) @ wq)
                                          @ (_rotate(x2, n, tables) @ wk)),
              "qk": lambda m, n: float(_rotate(x1 @ wq, m, tables) @ _rotate(x2 @ wk, n, tables))}
    spreads = {}
    for place, score in places.items():
        vals = [score(m, m + 3) for m in range(8)]
        spreads[place] = max(vals) - min(vals)
    facts = [Fact("rope_places", inputs=spreads["input"], qk=spreads["qk"])]
    claim = Fact("rope_in_input" if where == "input" else "rope_in_attention")
    return verdict(facts, claim, spreads[where] < 1e-9)


def _head() -> tuple[np.ndarray, int, int]:
    """The output layer on three hidden states of d = 8, vocabulary V = 11: softmax(HW)."""
    rng = np.random.default_rng(40)
    h, w = rng.normal(size=(3, 8)), rng.normal(size=(8, 11))
    return softmax(h @ w), 8, 11


@check(right="note", wrong="foil", other="d",
       said=Said("Linear 线性层+softmax 层", "V", ("a linear layer gives each position one logit "
                                              "per vocabulary word, $V$ of them, then softmax",
                                              "线性层给每个位置的词表中每个词各一个 logit，共 $V$ "
                                              "个，"
                                              "再经 softmax")))
def output_head(size):
    """The output layer maps each d-dimensional hidden state to V logits, then softmax."""
    p, d, v = _head()
    facts = [Fact("head_shapes", logits=dims(p.shape), sums=bool(np.allclose(p.sum(axis=1), 1)))]
    claim = Fact("head_vocab", v=v) if size == "V" else Fact("head_embedding", d=d)
    return verdict(facts, claim, p.shape == (3, {"V": v, "d": d}[size]))


@check(right="correction", wrong="note", other="V",
       said=Said("转换为词的向量",
                 "d", ("the output is a word vector (词向量), $d$ entries like an "
                                    "embedding", "输出是词向量，与嵌入一样有 $d$ 个分量")))
def output_not_word_vector(size):
    """What the output layer's linear map gives each position: V logits, one per word of the
    vocabulary — not a d-dimensional word vector like an embedding row."""
    p, d, v = _head()
    facts = [Fact("head_shapes", logits=dims(p.shape), sums=bool(np.allclose(p.sum(axis=1), 1)))]
    claim = Fact("head_vocab", v=v) if size == "V" else Fact("head_embedding", d=d)
    return verdict(facts, claim, p.shape == (3, {"V": v, "d": d}[size]))


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


_MLP = r"W_2\sigma(W_1x+b_1)+b_2"


@check(right="note", wrong="foil", other="mixes", said=(
    Said("f(x)=W2σ(W1x+b1)+b2", _MLP),
    Said("这是列混合（特征之间混合）", _MLP, ("the MLP $W_2\\sigma(W_1x + b_1) + b_2$ acts on each "
                                      "token's features alone",
                                      "MLP $W_2\\sigma(W_1x + b_1) + b_2$ "
                                      "只作用于每个词元自身的特征")),
    Said("MLP（列操作）", _MLP, ("the MLP acts on each token's features (a column operation)",
                              "MLP 作用于每个词元的特征（列操作）")),
))
def mlp_per_token(form):
    """The MLP, evaluated as written token by token, is the model's row-wise MLP, and it mixes
    features, never tokens."""
    rng = np.random.default_rng(30)
    w1, b1, w2, b2 = (rng.normal(size=s) for s in ((8, 4), 8, (4, 8), 4))
    x = rng.normal(size=(3, 4))

    def rows(xs):
        return _gelu(xs @ w1.T + b1) @ w2.T + b2

    jac = num_jac(lambda v: rows(v.reshape(3, 4)).ravel(), x.ravel())
    cross = float(np.max(np.abs(jac[0:4, 4:12])))
    within = float(np.min(np.abs(jac[0:4, 0:4])))
    if form == "mixes":
        same, holds = True, cross > 1e-8
        claim = Fact("mlp_mixes_tokens")
    else:
        per_token = np.stack([evaluate(form, W_1=w1, W_2=w2, b_1=b1, b_2=b2, x=t, sigma=_gelu)
                              for t in x])
        same = bool(np.allclose(per_token, rows(x)))
        holds = same and cross < 1e-8 and within > 0
        claim = Fact("mlp_features_only")
    looped = np.stack([w2 @ _gelu(w1 @ t + b1) + b2 for t in x])
    facts = [Fact("mlp_jacobian", same=bool(np.allclose(looped, rows(x))), cross=cross,
                  within=within)]
    return verdict(facts, claim, holds and same)


@check(right="note", wrong="foil", other="W_2(W_1x)=W_1(W_2x)", said=(
    Said("W2(W1x)=(W2W1)x", "W_2(W_1x)=(W_2W_1)x"),
    Said("正是激活函数的存在", "activation", ("an activation between two layers keeps them from "
                                      "collapsing into one affine map",
                                      "两层之间的激活函数使它们不会坍缩"
                                      "为一个仿射映射")),
))
def linear_collapse(said):
    """Two affine layers are one affine layer (W₂(W₁x) = (W₂W₁)x, evaluated as written); with
    a ReLU between them no affine map fits."""
    rng = np.random.default_rng(31)
    w1, b1, w2, b2 = (rng.normal(size=s) for s in ((5, 3), 5, (2, 5), 2))
    xs = rng.normal(size=(50, 3))
    two = np.stack([w2 @ (w1 @ x + b1) + b2 for x in xs])
    one = xs @ (w2 @ w1).T + (w2 @ b1 + b2)
    relu = np.stack([w2 @ np.maximum(w1 @ x + b1, 0) + b2 for x in xs])
    design = np.hstack([xs, np.ones((50, 1))])
    resid = float(np.linalg.lstsq(design, relu, rcond=None)[1].sum())
    same = bool(np.allclose(two, one))
    facts = [Fact("collapse", same=same, resid=resid)]
    if said == "activation":
        return verdict(facts, Fact("activation_prevents_collapse"), same and resid > 1e-3)
    lhs, rhs = equation(said)
    square = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    gap = max(float(np.max(np.abs(lhs(env) - rhs(env)))) for env in (
        {"W_1": square[0], "W_2": square[1], "x": x} for x in xs[:5]))
    return verdict(facts, Fact("equation_gap", eq=Math(said), gap=gap), gap < 1e-12)
