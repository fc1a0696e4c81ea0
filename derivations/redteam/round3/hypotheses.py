"""Class 6 — hypotheses the sampler may not meet.

x > 1000 where values are drawn up to 100; the equality a + b = 1; a probability vector
(Σ p_k = 1, a Sum inside a hypothesis) — softmax outputs, the KL divergence's log(p/q)
structure; a centred vector (Σ z_k = 0). TRUE claims that need the hypothesis should be proved
or refused naming it; FALSE ones are false inside the region. Witnesses draw inside the region
by construction (b = 1 − a; p normalised; z centred) at sizes 1..7 and evaluate with mpmath.
"""

from __future__ import annotations

import random

import mpmath as mp
import sympy as sp

from derivations import Domain
from derivations.redteam.round3.common import add_to, claim, pts
from derivations.redteam.round3.common import holds as _holds

CLS = "hypotheses"
CASES: list = []
add = add_to(CASES, CLS)

x = sp.Symbol("x", real=True)
xp = sp.Symbol("x", positive=True)
a, b = sp.symbols("a b", real=True)
ap, bp = sp.symbols("a b", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
j, k, l = sp.symbols("j k l", integer=True, positive=True)
P = sp.IndexedBase("p", positive=True)
Q = sp.IndexedBase("q", positive=True)
S = sp.IndexedBase("s", positive=True)
Z = sp.IndexedBase("z", real=True)
DN = Domain(dims=(n,))
DNJ = Domain(dims=(n,), indices={j: (1, n)})
ONE_P = sp.Eq(sp.Sum(P[k], (k, 1, n)), 1)
ONE_Q = sp.Eq(sp.Sum(Q[k], (k, 1, n)), 1)
ONE_S = sp.Eq(sp.Sum(S[k], (k, 1, n)), 1)
CENTRED = sp.Eq(sp.Sum(Z[k], (k, 1, n)), 0)


def holds(lhs, rhs, points, dps=60) -> bool:
    """60 digits: the points are made at 80, so Σ p = 1 and Σ z = 0 hold to 10^-80."""
    return _holds(lhs, rhs, points, dps=dps)


def simplex(size, seed):
    rng = random.Random(seed)
    raw = [mp.mpf(rng.uniform(0.05, 1)) for _ in range(size)]
    total = mp.fsum(raw)
    return [r / total for r in raw]


def centred(size, seed):
    rng = random.Random(seed)
    raw = [mp.mpf(rng.uniform(-3, 3)) for _ in range(size)]
    mean = mp.fsum(raw) / size
    return [r - mean for r in raw]


def vectors(make, sizes=range(1, 8), per=3, seed=0):
    with mp.workdps(80):
        return [tuple(make(m, seed + 17 * m + t)) for m in sizes for t in range(per)]


def on_line():
    """(a, 1 − a) for a across (−100, 100) — the line a + b = 1."""
    return [(v, 1 - v) for v in pts(-100, 100, 10, 1)]


def on_line_positive():
    return [(v, 1 - v) for v in pts("0.001", "0.999", 10, 2)]


def kl(p, q):
    return mp.fsum(pi * mp.log(pi / qi) for pi, qi in zip(p, q, strict=True))


# --- x > 1000 -----------------------------------------------------------------------------------
add("hyp_gt1000_relu_default_range_true", True,
    lambda: claim("hyp_gt1000_relu_default_range_true", sp.Max(x, 1000), x,
                  hypotheses=(sp.Gt(x, 1000),)),
    lambda: holds(lambda v: max(v, 1000), lambda v: v, pts(1000, 10**12, 10, 3, log=True),
                  dps=60))

add("hyp_gt1000_relu_with_range_true", True,
    lambda: claim("hyp_gt1000_relu_with_range_true", sp.Max(x, 1000), x,
                  Domain(ranges={x: (1000, 10**6)}), hypotheses=(sp.Gt(x, 1000),)),
    lambda: holds(lambda v: max(v, 1000), lambda v: v, pts(1000, 10**6, 10, 4, log=True),
                  dps=60))

# the number of digits is not 4 everywhere above 1000: ⌊log10 x⌋ = 5 at 10^5
add("hyp_gt1000_digit_count", False,
    lambda: claim("hyp_gt1000_digit_count", sp.floor(sp.log(x) / sp.log(10)), 3,
                  Domain(ranges={x: (1000, 10**6)}), hypotheses=(sp.Gt(x, 1000),)),
    lambda: holds(lambda v: mp.floor(mp.log10(v)), lambda v: 3,
                  [mp.mpf(10) ** 5, *pts(1001, 10**6, 6, 5)], dps=60))

# tanh(x/10^4) < 1 for every x; above 10^7 the gap is below 10^-868
add("hyp_gt1e7_tanh_is_one", False,
    lambda: claim("hyp_gt1e7_tanh_is_one", sp.tanh(xp / 10**4), 1,
                  hypotheses=(sp.Gt(xp, 10**7),)),
    lambda: holds(lambda v: mp.tanh(v / 10**4), lambda v: 1, pts(10**7, 2 * 10**7, 5, 6),
                  dps=2000))

# min(x, 10^6) = x for 1000 < x <= 10^6 only
add("hyp_gt1000_clip_1e6", False,
    lambda: claim("hyp_gt1000_clip_1e6", sp.Min(x, 10**6), x, hypotheses=(sp.Gt(x, 1000),)),
    lambda: holds(lambda v: min(v, 10**6), lambda v: v, pts(1001, 10**12, 10, 7, log=True),
                  dps=60))

# √((x − 1)²) = x − 1 under x >= 2 (a bound by a constant)
add("hyp_ge2_sqrt_square_true", True,
    lambda: claim("hyp_ge2_sqrt_square_true", sp.sqrt((x - 1) ** 2), x - 1,
                  hypotheses=(sp.Ge(x, 2),)),
    lambda: holds(lambda v: mp.sqrt((v - 1) ** 2), lambda v: v - 1, pts(2, 10**6, 8, 8),
                  dps=60))

# --- a + b = 1 ----------------------------------------------------------------------------------
add("hyp_line_product_true", True,
    lambda: claim("hyp_line_product_true", a * b, a - a**2, hypotheses=(sp.Eq(a + b, 1),)),
    lambda: holds(lambda u, v: u * v, lambda u, v: u - u**2, on_line(), dps=60))

add("hyp_line_product_quarter", False,
    lambda: claim("hyp_line_product_quarter", a * b, sp.Rational(1, 4),
                  hypotheses=(sp.Eq(a + b, 1),)),
    lambda: holds(lambda u, v: u * v, lambda u, v: mp.mpf(1) / 4, on_line(), dps=60))

# binary entropy is log 2 only at a = 1/2
add("hyp_line_entropy_log2", False,
    lambda: claim("hyp_line_entropy_log2", -ap * sp.log(ap) - bp * sp.log(bp), sp.log(2),
                  hypotheses=(sp.Eq(ap + bp, 1),)),
    lambda: holds(lambda u, v: -u * mp.log(u) - v * mp.log(v), lambda u, v: mp.log(2),
                  on_line_positive(), dps=60))

# (a − b)² = 1 − 4ab on the line (a + b)² = 1
add("hyp_line_square_true", True,
    lambda: claim("hyp_line_square_true", (a - b) ** 2, 1 - 4 * a * b,
                  hypotheses=(sp.Eq(a + b, 1),)),
    lambda: holds(lambda u, v: (u - v) ** 2, lambda u, v: 1 - 4 * u * v, on_line(), dps=60))

# --- a probability vector: Σ s_k = 1 ------------------------------------------------------------
# the softmax Jacobian times the outputs: Σ_k s_k (δ_jk − s_j) = s_j (1 − Σ s) = 0
add("hyp_softmax_jacobian_rows_true", True,
    lambda: claim("hyp_softmax_jacobian_rows_true",
                  sp.Sum(S[k] * (sp.KroneckerDelta(j, k) - S[j]), (k, 1, n)), 0, DNJ,
                  hypotheses=(ONE_S,)),
    lambda: all(holds(lambda *s, jj=jj: mp.fsum(s[q] * ((q == jj) - s[jj])
                                                for q in range(len(s))),
                      lambda *s: 0, [v for v in vectors(simplex, seed=1) if len(v) > jj])
                for jj in range(7)))

# s_k in place of s_j: Σ_k s_k(δ_jk − s_k) = s_j − Σ s_k², not 0
add("hyp_softmax_jacobian_rows_wrong", False,
    lambda: claim("hyp_softmax_jacobian_rows_wrong",
                  sp.Sum(S[k] * (sp.KroneckerDelta(j, k) - S[k]), (k, 1, n)), 0, DNJ,
                  hypotheses=(ONE_S,)),
    lambda: holds(lambda *s: mp.fsum(s[q] * ((q == 0) - s[q]) for q in range(len(s))),
                  lambda *s: 0, vectors(simplex, sizes=(2, 3, 5), seed=2)))

# Σ p_k² = 1 on the simplex only at n = 1 or a vertex
add("hyp_simplex_sum_of_squares", False,
    lambda: claim("hyp_simplex_sum_of_squares", sp.Sum(P[k] ** 2, (k, 1, n)), 1, DN,
                  hypotheses=(ONE_P,)),
    lambda: holds(lambda *p: mp.fsum(v**2 for v in p), lambda *p: 1,
                  vectors(simplex, sizes=(2, 3, 4), seed=3)))

# Σ p_k (log(p_k/q_k) + 1) = KL(p‖q) + 1 needs Σ p = 1: the gradient's structure
add("hyp_kl_gradient_contraction_true", True,
    lambda: claim("hyp_kl_gradient_contraction_true",
                  sp.Sum(P[k] * (sp.log(P[k] / Q[k]) + 1), (k, 1, n)),
                  sp.Sum(P[k] * sp.log(P[k] / Q[k]), (k, 1, n)) + 1, DN,
                  hypotheses=(ONE_P,)),
    lambda: holds(lambda *pq: kl(pq[::2], pq[1::2]) + mp.fsum(pq[::2]),
                  lambda *pq: kl(pq[::2], pq[1::2]) + 1,
                  [tuple(v for pair in zip(p, simplex(len(p), 99), strict=True) for v in pair)
                   for p in vectors(simplex, seed=4)]))

# the same without the + 1
add("hyp_kl_gradient_contraction_wrong", False,
    lambda: claim("hyp_kl_gradient_contraction_wrong",
                  sp.Sum(P[k] * (sp.log(P[k] / Q[k]) + 1), (k, 1, n)),
                  sp.Sum(P[k] * sp.log(P[k] / Q[k]), (k, 1, n)), DN, hypotheses=(ONE_P,)),
    lambda: holds(lambda *pq: kl(pq[::2], pq[1::2]) + mp.fsum(pq[::2]),
                  lambda *pq: kl(pq[::2], pq[1::2]),
                  [tuple(v for pair in zip(p, simplex(len(p), 98), strict=True) for v in pair)
                   for p in vectors(simplex, seed=5)]))

# the generalised KL Σ (p log(p/q) − p + q) is KL on two probability vectors
add("hyp_generalised_kl_true", True,
    lambda: claim("hyp_generalised_kl_true",
                  sp.Sum(P[k] * sp.log(P[k] / Q[k]) - P[k] + Q[k], (k, 1, n)),
                  sp.Sum(P[k] * sp.log(P[k] / Q[k]), (k, 1, n)), DN,
                  hypotheses=(ONE_P, ONE_Q)),
    lambda: holds(lambda *pq: kl(pq[::2], pq[1::2]) - mp.fsum(pq[::2]) + mp.fsum(pq[1::2]),
                  lambda *pq: kl(pq[::2], pq[1::2]),
                  [tuple(v for pair in zip(p, simplex(len(p), 97), strict=True) for v in pair)
                   for p in vectors(simplex, seed=6)]))

# KL is not symmetric, on the simplex as anywhere
add("hyp_kl_symmetric", False,
    lambda: claim("hyp_kl_symmetric", sp.Sum(P[k] * sp.log(P[k] / Q[k]), (k, 1, n)),
                  sp.Sum(Q[k] * sp.log(Q[k] / P[k]), (k, 1, n)), DN,
                  hypotheses=(ONE_P, ONE_Q)),
    lambda: holds(lambda *pq: kl(pq[::2], pq[1::2]), lambda *pq: kl(pq[1::2], pq[::2]),
                  [tuple(v for pair in zip(p, simplex(len(p), 96), strict=True) for v in pair)
                   for p in vectors(simplex, sizes=(2, 3), seed=7)]))

# --- a centred vector: Σ z_k = 0 -----------------------------------------------------------------
# Σ (z_k − mean)² = Σ z_k² when the mean is 0
add("hyp_centred_variance_true", True,
    lambda: claim("hyp_centred_variance_true",
                  sp.Sum((Z[k] - sp.Sum(Z[l], (l, 1, n)) / n) ** 2, (k, 1, n)),
                  sp.Sum(Z[k] ** 2, (k, 1, n)), DN, hypotheses=(CENTRED,)),
    lambda: holds(lambda *z: mp.fsum((v - mp.fsum(z) / len(z)) ** 2 for v in z),
                  lambda *z: mp.fsum(v**2 for v in z), vectors(centred, seed=8)))

# Σ z_k² = (Σ z_k)² = 0: false unless z = 0
add("hyp_centred_square_is_zero", False,
    lambda: claim("hyp_centred_square_is_zero", sp.Sum(Z[k] ** 2, (k, 1, n)),
                  sp.Sum(Z[k], (k, 1, n)) ** 2, DN, hypotheses=(CENTRED,)),
    lambda: holds(lambda *z: mp.fsum(v**2 for v in z), lambda *z: mp.fsum(z) ** 2,
                  vectors(centred, sizes=(2, 3), seed=9)))
