"""Evidence on the geometry of dot products: lengths, angles, cosine similarity, and what a
larger dot product buys in attention."""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Fact, Math, Nums, check, judge, softmax, vec


def _angle(v: np.ndarray, w: np.ndarray) -> float:
    """The angle between v and w from their polar angles, not from their dot product."""
    return math.atan2(v[1], v[0]) - math.atan2(w[1], w[0])


@check(right="note", wrong="foil")
def dot_cos_identity(version):
    """v·w = ‖v‖‖w‖cos θ, with θ measured from the vectors' directions."""
    rng = np.random.default_rng(11)
    pairs = [(rng.normal(size=2), rng.normal(size=2)) for _ in range(5)]
    law = {"note": lambda v, w: np.linalg.norm(v) * np.linalg.norm(w) * math.cos(_angle(v, w)),
           "foil": lambda v, w: math.cos(_angle(v, w))}[version]
    gap = max(abs(float(v @ w) - law(v, w)) for v, w in pairs)
    return judge(version, [Fact("dot_pairs", n=len(pairs))],
                 note=(Fact("dot_law_lengths", gap=gap), gap < 1e-12),
                 foil=(Fact("dot_law_cos", gap=gap), gap < 1e-12))


@check(right="correction", wrong="note")
def dot_is_cosine(version):
    """The dot product equals the cosine of the angle only for unit vectors."""
    pairs = [(np.array([2.0, 0.0]), np.array([3.0, 0.0])),
             (np.array([1.0, 1.0]), np.array([0.0, 2.0]))]
    cosines = [math.cos(_angle(v, w)) for v, w in pairs]
    got = [float(v @ w) if version == "note"
           else float(v @ w / (np.linalg.norm(v) * np.linalg.norm(w))) for v, w in pairs]
    ok = all(abs(g - c) < 1e-12 for g, c in zip(got, cosines, strict=True))
    facts = [Fact("cosine_pair", pair=Math(rf"v = {vec(v, 'g').tex},\ w = {vec(w, 'g').tex}"),
                  cos=c)
             for (v, w), c in zip(pairs, cosines, strict=True)]
    return judge(version, facts,
                 note=(Fact("similarity_dot", got=Nums(got, ".4f")), ok),
                 correction=(Fact("similarity_cos", got=Nums(got, ".4f")), ok))


@check(right="note", wrong="foil")
def dot_examples(version):
    """The note's three products with (1, 0): same direction, perpendicular, opposite."""
    a = np.array([1, 0])
    got = tuple(int(a @ np.array(b)) for b in ((1, 0), (0, 1), (-1, 0)))
    facts = [Fact("dot_three", got=vec(got, "g"))]
    return judge(version, facts,
                 note=(Fact("dot_three_note"), got == (1, 0, -1)),
                 foil=(Fact("dot_three_foil"), min(got) >= 0))


@check(right="correction", wrong="note")
def dot_alignment_vs_length(version):
    """q = (1, 0); k₁ = (1, 0) is perfectly aligned, k₂ = (3, 3) is 45° off but longer: the dot
    product, and so the weight, goes to the longer key."""
    q, keys = np.array([1.0, 0.0]), [np.array([1.0, 0.0]), np.array([3.0, 3.0])]
    cosines = [float(q @ k / np.linalg.norm(k)) for k in keys]
    w = softmax(np.array([q @ k for k in keys]))
    winner = int(np.argmax(w)) + 1
    facts = [Fact("alignment_case", cos1=cosines[0], cos2=cosines[1], w1=float(w[0]),
                  w2=float(w[1]), winner=winner)]
    return judge(version, facts,
                 note=(Fact("winner_aligned", k=1), winner == 1),
                 correction=(Fact("winner_longer", k=2), winner == 2))
