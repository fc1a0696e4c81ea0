"""Cross-entropy on softmax probabilities: the log-softmax form and the gradient p − y.

One example: logits z ∈ ℝ^n, probabilities p_j = e^{z_j}/Σ_l e^{z_l}, target class k with one-hot
y_j = δ_jk.  The loss L = −log p_k = −z_k + log Σ_l e^{z_l} has gradient ∂L/∂z_j = p_j − y_j.

A batch: logits z_{b,j} for samples b = 1..B (B symbolic), targets y_b on the probability simplex
(one-hot y_b = e_{k_b} is the usual case, where −Σ_c y_{b,c} log p_{b,c} = −log p_{b,k_b}).  The
mean loss L = −(1/B) Σ_b Σ_c y_{b,c} log p_{b,c} has gradient ∂L/∂z_{a,j} = (p_{a,j} − y_{a,j})/B,
i.e. (P − Y)/B.

Final results:

* ``probability(j)``   p_j in ``z[1..n]``;  ``LOSS`` = −log p_k
* ``LOG_SOFTMAX_LOSS`` −z_k + log Σ_l e^{z_l}
* ``GRADIENT``         p_j − δ_jk in the symbols ``j``, ``k``, ``n``, ``z``
* ``BATCH_LOSS``, ``BATCH_GRADIENT`` = (p_{a,j} − y_{a,j})/B in ``a``, ``j``, ``B``, ``n``, ``Z``
  (2-D logits ``Z[b, c]``) and ``Target(a, j)`` = y_{a,j}
* ``gradient(logits, target)`` / ``batch_gradient(logits, targets)``: explicit SymPy matrices
  p − y and (P − Y)/B for explicit logits and integer targets (1-based classes)
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Step
from derivations.library import notation as nt
from derivations.library.softmax import softmax_of

n, B, j, k, z, Z = nt.n, nt.B, nt.j, nt.tc, nt.z, nt.ZB
a = sp.Symbol("a", integer=True, positive=True)
# bound summation indices: l in normalizers, b over samples, c over classes, m in target weights
l, b, c = nt.lb, nt.bb, nt.cb
m, u, _Target, Target = nt.mb, nt.u, nt._Target, nt.Target
delta = sp.KroneckerDelta


def probability(idx: sp.Basic) -> sp.Basic:
    """p_idx = softmax(z)_idx."""
    return softmax_of(lambda t: z[t], idx, l, 1, n)


def batch_probability(row: sp.Basic, col: sp.Basic) -> sp.Basic:
    """p_{row,col} = softmax(Z_row)_col."""
    return softmax_of(lambda t: Z[row, t], col, l, 1, n)


LOG_NORMALIZER = sp.log(sp.Sum(sp.exp(z[l]), (l, 1, n)))
LOSS = -sp.log(probability(k))
LOG_SOFTMAX_LOSS = -z[k] + LOG_NORMALIZER
GRADIENT = probability(j) - delta(j, k)

BATCH_LOSS = -sp.Sum(sp.Sum(Target(b, c) * sp.log(batch_probability(b, c)), (c, 1, n)),
                     (b, 1, B)) / B
BATCH_GRADIENT = (batch_probability(a, j) - Target(a, j)) / B


def gradient(logits, target: int) -> sp.Matrix:
    """p − y for explicit logits (a list) and a 1-based target class."""
    e = [sp.exp(v) for v in logits]
    total = sum(e)
    return sp.Matrix([e_j / total - (1 if idx == target else 0) for idx, e_j in enumerate(e, 1)])


def batch_gradient(logits, targets) -> sp.Matrix:
    """(P − Y)/B for explicit logits (B rows of n values) and 1-based target classes."""
    rows = [gradient(row, t).T for row, t in zip(logits, targets, strict=True)]
    return sp.Matrix.vstack(*rows) / len(rows)


pj, yj, PB = nt.p, nt.y1, nt.PB  # the defined p_j, y_j and P_{b,c}
ell, L = nt.ell, nt.L_CE

ONE_EXAMPLE = Domain(dims=(n,), indices={j: (1, n), k: (1, n)})

cross_entropy_log_softmax = Derivation(
    "cross_entropy_log_softmax",
    "Cross-entropy of softmax is −z_k + log Σ_l exp(z_l)",
    sp.Eq(-sp.log(pj[k]), LOG_SOFTMAX_LOSS, evaluate=False),
    (),
    (
        Step(-(sp.log(sp.exp(z[k]), evaluate=False) - LOG_NORMALIZER),
             "the definition of p_k; the logarithm of a quotient of positive numbers is the "
             "difference of their logarithms", ("p",)),
        Step(LOG_SOFTMAX_LOSS, "log e^{z_k} = z_k"),
    ),
    Domain(dims=(n,), indices={k: (1, n)}),
    (nt.P_DEF,),
)

cross_entropy_gradient = Derivation(
    "cross_entropy_gradient",
    "The gradient of softmax cross-entropy is p − y",
    sp.Eq(sp.Derivative(ell, z[j]), pj[j] - yj[j], evaluate=False),
    (),
    (
        Step(sp.Derivative(LOG_SOFTMAX_LOSS, z[j]),
             "the definition of ℓ; −log p_k = −z_k + log Σ_l e^{z_l}", ("ℓ",)),
        Step(pj[j] - delta(j, k),
             "∂z_k/∂z_j = δ_jk; ∂ log Σ_l e^{z_l}/∂z_j = e^{z_j}/Σ_l e^{z_l} = p_j", ("p",)),
        Step(pj[j] - yj[j], "the definition of the one-hot target y_j = δ_jk", ("y",)),
    ),
    ONE_EXAMPLE,
    (nt.ELL_DEF, nt.Y_DEF),
)

TARGETS = Assumption(
    "targets are distributions",
    "Each target row y_a is a probability vector, sum_c y_{a,c} = 1 (a one-hot row y_a = e_{k_a} "
    "gives -sum_c y_{a,c} log p_{a,c} = -log p_{a,k_a}).",
    r"\sum_{c=1}^{n} y_{a,c} = 1",
    rewrites=((sp.Sum(Target(a, c), (c, 1, n)), sp.Integer(1)),),
)

def _P(row, col):
    return PB[row, col]


cross_entropy_batch_mean = Derivation(
    "cross_entropy_batch_mean",
    "The gradient of the batch-mean cross-entropy is (P − Y)/B",
    sp.Eq(sp.Derivative(L, Z[a, j]), (_P(a, j) - Target(a, j)) / B, evaluate=False),
    (TARGETS,),
    (
        Step(-sp.Sum(sp.Sum(Target(b, c) * delta(a, b) * (delta(c, j) - _P(b, j)),
                            (c, 1, n)), (b, 1, B)) / B,
             "the definition of L; ∂ log P_{b,c}/∂Z_{a,j} = δ_ab(δ_cj − P_{b,j}); the targets "
             "do not depend on Z", ("L",)),
        Step(-sp.Sum(Target(a, c) * (delta(c, j) - _P(a, j)), (c, 1, n)) / B,
             "δ_ab keeps the term b = a, for 1 ≤ a ≤ B"),
        Step((_P(a, j) * sp.Sum(Target(a, c), (c, 1, n)) - Target(a, j)) / B,
             "linearity of the sum; δ_cj keeps the term c = j"),
        Step((_P(a, j) - Target(a, j)) / B, "Σ_c y_{a,c} = 1", ("targets are distributions",)),
    ),
    Domain(dims=(B, n), indices={a: (1, B), j: (1, n)}, max_dim=3),
    (nt.LB_DEF,),
)

CLAIMS = (cross_entropy_log_softmax, cross_entropy_gradient, cross_entropy_batch_mean)
