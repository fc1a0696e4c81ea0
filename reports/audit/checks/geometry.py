"""Evidence on the geometry of dot products: lengths, angles, cosine similarity, and what a
larger dot product buys in attention."""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Fact, Math, Nums, Said, check, softmax, vec, verdict
from reports.audit.formula import equation, evaluate

_LAW = r"\lVert v\rVert\,\lVert w\rVert\cos\theta"
_READS_LAW = ("the dot product is the product of the lengths times the cosine of the angle, "
              "$v\\cdot w = \\lVert v\\rVert\\,\\lVert w\\rVert\\cos\\theta$",
              "点积等于两个长度之积乘以夹角的余弦，$v\\cdot w = \\lVert v\\rVert\\,\\lVert w\\rVert"
              "\\cos\\theta$")


def _angle(v: np.ndarray, w: np.ndarray) -> float:
    """The angle between v and w from their polar angles, not from their dot product."""
    return math.atan2(v[1], v[0]) - math.atan2(w[1], w[0])


@check(right="note", wrong="foil", other=r"\cos\theta", said=(
    Said("v⋅w=∥v∥∥w∥cosθ", _LAW),
    Said("“箭头的长度” × “它们方向一致的程度”", _LAW, _READS_LAW),
    Said("向量的内积可以反映向量的相似性", _LAW, _READS_LAW),
))
def dot_cos_identity(law):
    """v·w = ‖v‖‖w‖cos θ, with θ measured from the vectors' directions."""
    rng = np.random.default_rng(11)
    pairs = [(rng.normal(size=2), rng.normal(size=2)) for _ in range(5)]
    gap = max(abs(float(v @ w) - evaluate(law, v=v, w=w, theta=_angle(v, w))) for v, w in pairs)
    claim = Fact("dot_law_lengths" if law == _LAW else "dot_law_cos", gap=gap)
    return verdict([Fact("dot_pairs", n=len(pairs))], claim, gap < 1e-12)


_COSINE = r"\frac{v\cdot w}{\lVert v\rVert\,\lVert w\rVert}"


@check(right="correction", wrong="note", other=_COSINE,
       said=Said("点积（余弦相似度）", r"v\cdot w",
                 ("the cosine similarity is the dot product $v\\cdot w$",
                  "余弦相似度就是点积 $v\\cdot w$")))
def dot_is_cosine(similarity):
    """The dot product equals the cosine of the angle only for unit vectors."""
    pairs = [(np.array([2.0, 0.0]), np.array([3.0, 0.0])),
             (np.array([1.0, 1.0]), np.array([0.0, 2.0]))]
    cosines = [math.cos(_angle(v, w)) for v, w in pairs]
    got = [float(evaluate(similarity, v=v, w=w)) for v, w in pairs]
    ok = all(abs(g - c) < 1e-12 for g, c in zip(got, cosines, strict=True))
    facts = [Fact("cosine_pair", pair=Math(rf"v = {vec(v, 'g').tex},\ w = {vec(w, 'g').tex}"),
                  cos=c)
             for (v, w), c in zip(pairs, cosines, strict=True)]
    claim = Fact("similarity_cos" if similarity == _COSINE else "similarity_dot",
                 got=Nums(got, ".4f"))
    return verdict(facts, claim, ok)


@check(right="note", wrong="foil", other="1×(−1)=1", said=(
    Said("1×1+0×0=1", "1×1+0×0=1"), Said("1×0+0×1=0", "1×0+0×1=0"),
    Said("1×(−1)=−1", "1×(−1)=−1"),
))
def dot_examples(arithmetic):
    """The note's three products with (1, 0): same direction, perpendicular, opposite — each
    written-out sum evaluated as written, against the dot products computed from the vectors."""
    a = np.array([1, 0])
    got = tuple(int(a @ np.array(b)) for b in ((1, 0), (0, 1), (-1, 0)))
    left, right = equation(arithmetic)
    value = float(right({}))
    facts = [Fact("dot_three", got=vec(got, "g"))]
    return verdict(facts, Fact("dot_written", sum=Math(arithmetic.replace("×", r"\times ")
                                                      .replace("−", "-"))),
                   left({}) == value and value in got)


@check(right="correction", wrong="note", other="dot", said=(
    Said("“我的查询方向”和“你的键方向”对齐了多少", "cos",
         ("the weight follows the alignment, $\\cos\\theta$", "权重取决于对齐程度 $\\cos\\theta$")),
    Said("就是用尺子量两个向量的方向", "cos",
         ("the score measures the directions alone, $\\cos\\theta$",
          "分数只量方向，即 $\\cos\\theta$")),
    Said("越对齐，越“关注”", "cos",
         ("the better aligned key gets more weight", "方向越一致的键得到的权重越大")),
))
def dot_alignment_vs_length(measure):
    """q = (1, 0); k₁ = (1, 0) is perfectly aligned, k₂ = (3, 3) is 45° off but longer: the dot
    product, and so the weight, goes to the longer key."""
    q, keys = np.array([1.0, 0.0]), [np.array([1.0, 0.0]), np.array([3.0, 3.0])]
    cosines = [float(q @ k / np.linalg.norm(k)) for k in keys]
    w = softmax(np.array([q @ k for k in keys]))
    winner = int(np.argmax(w)) + 1
    by = {"cos": cosines, "dot": [float(q @ k) for k in keys]}[measure]
    predicted = int(np.argmax(by)) + 1
    facts = [Fact("alignment_case", cos1=cosines[0], cos2=cosines[1], w1=float(w[0]),
                  w2=float(w[1]), winner=winner)]
    claim = Fact("winner_aligned" if measure == "cos" else "winner_longer", k=predicted)
    return verdict(facts, claim, winner == predicted)
