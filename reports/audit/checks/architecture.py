"""Evidence on where the Transformer's parts sit and what they act on: heads, the roles of
query and key, which features attention mixes, positions and RoPE, the MLP and the output
head. Several run the project's own NumPy model (``numeric.model``) and perturb it."""

from __future__ import annotations

import math

import numpy as np

from numeric import model, ops
from numeric.config import preset
from reports.audit.checks.attention import attend, weights
from reports.audit.evidence import Fact, Nums, check, dims, judge, num_jac, softmax, vec


@check(right="note", wrong="foil")
def multihead_shapes(version):
    """h = 8 heads of d_k = 512/8 = 64: the concatenation is n×512 and W_O maps it to n×512."""
    h, d_model = 8, 512
    d_k = d_model // h
    rng = np.random.default_rng(18)
    x = rng.normal(size=(3, d_model))
    heads = []
    for _ in range(h):
        wq, wk, wv = (rng.normal(size=(d_model, d_k)) / math.sqrt(d_model) for _ in range(3))
        heads.append(softmax((x @ wq) @ (x @ wk).T / math.sqrt(d_k)) @ (x @ wv))
    concat = np.concatenate(heads, axis=1)
    out = concat @ rng.normal(size=(h * d_k, d_model))
    facts = [Fact("heads_shapes", h=h, dk=d_k, concat=dims(concat.shape), out=dims(out.shape))]
    return judge(version, facts,
                 note=(Fact("heads_split", dk=64), concat.shape[1] == d_model == 8 * 64),
                 foil=(Fact("heads_full", width=h * d_model), concat.shape[1] == h * d_model))


@check(right="correction", wrong="note")
def one_head_several_tokens(version):
    """One head can spread its weight over subject, verb and clause at once; what it cannot do
    is keep their contents apart: it returns one weighted average of their values."""
    w = softmax(np.array([4.0, 4.0, 4.0, -4.0, -4.0]))  # subject, verb, clause, two others
    attended = int(np.sum(w > 0.25))
    v = np.random.default_rng(3).normal(size=(5, 6))
    traded = v.copy()
    traded[0] += 1.0
    traded[1] -= 1.0  # another subject and verb, with the same sum
    one = float(np.max(np.abs(w @ v - w @ traded)))
    heads = [softmax(np.array([8.0 if j == i else -8.0 for j in range(5)])) for i in range(3)]
    three = float(np.max(np.abs(np.concatenate([hd @ v for hd in heads])
                                - np.concatenate([hd @ traded for hd in heads]))))
    facts = [Fact("one_head_weights", w=vec(w, ".3f"), attended=attended),
             Fact("heads_keep_apart", one=one, three=three)]
    return judge(version, facts,
                 note=(Fact("one_head_one_token"), attended <= 1),
                 correction=(Fact("one_head_averages"), attended >= 3 and one < 1e-12
                             and three > 0.5))


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


@check(right="correction", wrong="note")
def query_role(version):
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
    sets_row = moved["q"][0] == [j]
    sets_column = moved["q"][1] == [j] and len(moved["q"][0]) > 1
    return judge(version, facts,
                 note=(Fact("query_is_queried"), sets_column),
                 correction=(Fact("query_asks"), sets_row and moved["k"][1] == [j]))


@check(right="correction", wrong="note")
def attention_mixes_features(version):
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
    return judge(version, facts,
                 note=(Fact("columns_independent"), cross < 1e-12 and probs < 1e-12),
                 correction=(Fact("columns_mix"), cross > 1e-6 and probs > 1e-6
                             and fixed < 1e-15))


@check(right="correction", wrong="note")
def positions_needed(version):
    """Without positions self-attention is permutation-equivariant: reordering the other tokens
    leaves a token's output unchanged, so word order is invisible."""
    rng = np.random.default_rng(61)
    emb, w = rng.normal(size=(3, 6)), weights(rng)
    pos = np.array([[math.sin(p / 10 ** (2 * (i // 2) / 6) + (i % 2) * math.pi / 2)
                     for i in range(6)] for p in range(3)])

    def first_output(order, with_positions):
        x = emb[order] + (pos if with_positions else 0)
        return attend(x, *w)[0]  # the first token stays first

    gaps = {flag: float(np.max(np.abs(first_output([0, 1, 2], flag)
                                      - first_output([0, 2, 1], flag)))) for flag in (False, True)}
    facts = [Fact("order_gap", without=gaps[False], with_=gaps[True])]
    return judge(version, facts,
                 note=(Fact("embeddings_suffice"), gaps[False] > 1e-6),
                 correction=(Fact("positions_added"), gaps[True] > 1e-6 and gaps[False] < 1e-12))


def _rotate(v: np.ndarray, position: int, tables) -> np.ndarray:
    """RoPE by the project's own ops: v rotated as at ``position``."""
    cos, sin = tables
    d = v.shape[-1]
    out, _ = ops.rope_forward(v.reshape(1, 1, 1, d).copy(), cos[position:position + 1],
                              sin[position:position + 1])
    return out.reshape(d)


@check(right="note", wrong="foil")
def rope_relative(version):
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
    return judge(version, facts,
                 note=(Fact("rope_depends_on_offset"), spread < 1e-12 and keeps),
                 foil=(Fact("rope_absolute"), spread > 1e-6))


@check(right="correction", wrong="note")
def rope_placement(version):
    """Rotating the embeddings in the input layer, before W_Q and W_K, loses what RoPE is for;
    rotating q and k inside attention gives scores that depend on the offset n − m alone."""
    d = 8
    rng = np.random.default_rng(9)
    x1, x2 = rng.normal(size=d), rng.normal(size=d)
    wq, wk = rng.normal(size=(d, d)), rng.normal(size=(d, d))
    tables = ops.rope_tables(16, d)
    where = {"note": lambda m, n: float((_rotate(x1, m, tables) @ wq)
                                        @ (_rotate(x2, n, tables) @ wk)),
             "correction": lambda m, n: float(_rotate(x1 @ wq, m, tables)
                                              @ _rotate(x2 @ wk, n, tables))}
    spreads = {}
    for place, score in where.items():
        vals = [score(m, m + 3) for m in range(8)]
        spreads[place] = max(vals) - min(vals)
    facts = [Fact("rope_places", inputs=spreads["note"], qk=spreads["correction"])]
    return judge(version, facts,
                 note=(Fact("rope_in_input"), spreads["note"] < 1e-9),
                 correction=(Fact("rope_in_attention"), spreads["correction"] < 1e-9))


@check(right="note", wrong="foil")
def output_head(version):
    """The output layer maps each d-dimensional hidden state to V logits, then softmax."""
    rng = np.random.default_rng(40)
    h, w = rng.normal(size=(3, 8)), rng.normal(size=(8, 11))
    p = softmax(h @ w)
    facts = [Fact("head_shapes", logits=dims(p.shape), sums=bool(np.allclose(p.sum(axis=1), 1)))]
    return judge(version, facts,
                 note=(Fact("head_vocab", v=11), p.shape == (3, 11)),
                 foil=(Fact("head_embedding", d=8), p.shape == (3, 8)))


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


@check(right="note", wrong="foil")
def mlp_per_token(version):
    """The MLP acts on each token alone: it mixes features, never tokens."""
    rng = np.random.default_rng(30)
    w1, b1, w2, b2 = (rng.normal(size=s) for s in ((8, 4), 8, (4, 8), 4))
    x = rng.normal(size=(3, 4))

    def rows(xs):
        return _gelu(xs @ w1.T + b1) @ w2.T + b2

    per_token = np.stack([w2 @ _gelu(w1 @ t + b1) + b2 for t in x])
    jac = num_jac(lambda v: rows(v.reshape(3, 4)).ravel(), x.ravel())
    cross = float(np.max(np.abs(jac[0:4, 4:12])))
    within = float(np.min(np.abs(jac[0:4, 0:4])))
    same = bool(np.allclose(per_token, rows(x)))
    facts = [Fact("mlp_jacobian", same=same, cross=cross, within=within)]
    return judge(version, facts,
                 note=(Fact("mlp_features_only"), same and cross < 1e-8 and within > 0),
                 foil=(Fact("mlp_mixes_tokens"), cross > 1e-8))


@check(right="note", wrong="foil")
def linear_collapse(version):
    """Two affine layers are one affine layer; with a ReLU between them no affine map fits."""
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
    return judge(version, facts,
                 note=(Fact("activation_prevents_collapse"), same and resid > 1e-3),
                 foil=(Fact("relu_collapses_too"), resid < 1e-9))
