"""The causal mask: masked keys get weight exactly 0 and gradient exactly 0, and the softmax over
the kept keys is unchanged by them.

One query row: kept keys 1..n (the keys at or before the query), masked keys n+1..n+p, n and p
symbolic.  The model adds a bias M to every masked score and takes M = −∞
(``np.where(mask, x, -inf)``): IEEE exp(−inf) is +0 exactly, so the model's values are the limits
M → −∞ of the finite-M expressions below, which is how the claims state them:

    s_i(M) = e^{z_i}/(Z + e^M Z_m)   (kept i),   s_j(M) = e^{z_j + M}/(Z + e^M Z_m)   (masked j),

with Z = Σ_{k≤n} e^{z_k}, Z_m = Σ_{n<k≤n+p} e^{z_k}.  In the limit the masked weight is 0, the
kept weights are softmax(z_1..z_n) — the softmax of ``derivations.library.softmax`` over the
kept keys — and the gradient of any kept weight by a masked score is 0.

Domain: every score real, every size ≥ 1 (a causal row always keeps its own key).
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Notation, Step, lemma
from derivations.library import notation as nt
from derivations.library.softmax import Z, i, k, n, z

p = sp.Symbol("p", integer=True, positive=True)
r = sp.Symbol("r", integer=True, positive=True)
M = sp.Symbol("M", real=True)
j = n + r  # a masked key
Z_MASKED = sp.Sum(sp.exp(z[k]), (k, n + 1, n + p))
_SHIFTED = sp.Sum(sp.exp(z[k] + M), (k, n + 1, n + p))
_DENOM = Z + sp.exp(M) * Z_MASKED


def weight(a, masked):
    """The model's softmax weight of key a with bias M on the masked keys, at finite M."""
    return sp.exp(z[a] + M if masked else z[a]) / (Z + _SHIFTED)


def _lim(e):
    return sp.Limit(e, M, -sp.oo)


FACTOR = Assumption(
    "constant factor out of the sum",
    "e^{z_k + M} = e^M e^{z_k} and e^M does not depend on k: "
    "sum_k e^{z_k + M} = e^M sum_k e^{z_k}.",
    r"\sum_{k=n+1}^{n+p} e^{z_k+M} = e^{M}\sum_{k=n+1}^{n+p} e^{z_k}",
    rewrites=((_SHIFTED, sp.exp(M) * Z_MASKED),), kind="lemma")

MASKED = Domain(dims=(n, p), indices={r: (1, p)}, max_dim=3)
KEPT = Domain(dims=(n, p), indices={i: (1, n), r: (1, p)}, max_dim=3)

# the masked keys' total Z_m, the weights' denominator D at a finite bias M, and the weights of a
# kept key (w) and of a masked one (w̃)
MASK = Notation("causal mask", (n, p, z, M), builds_on=(nt.SOFTMAX,))
Zm = sp.Symbol("Z_m", positive=True)
ZM_DEF = MASK.define("Z_m", Zm, Z_MASKED, text="the masked keys' total")
Dn = sp.Symbol("D", positive=True)
D_DEF = MASK.define("D", Dn, nt.Z + _SHIFTED,
                    text="the weights' denominator with the bias M on the masked keys")
w = sp.IndexedBase("w", positive=True)
W_DEF = MASK.define("w", w, sp.exp(z[i]) / Dn, params=(i,), text="the weight of a kept key i")
wt = sp.IndexedBase("wtilde", positive=True)
_jj = sp.Symbol("j", integer=True, positive=True)
WT_DEF = MASK.define("w̃", wt, sp.exp(z[_jj] + M) / Dn, params=(_jj,),
                     text="the weight of a masked key j")
S_, ZS = nt.s, nt.Z
_FOLDED_DENOM = ZS + sp.exp(M) * Zm

causal_mask_weight_zero = Derivation(
    "causal_mask_weight_zero",
    "Causal mask: a masked key's weight is exactly 0",
    sp.Eq(_lim(wt[j]), 0, evaluate=False),
    (FACTOR,),
    (
        Step(_lim(sp.exp(M) * sp.exp(z[j]) / _FOLDED_DENOM),
             "the definitions of w̃ and D; e^{z_j + M} = e^M e^{z_j} and Σ_k e^{z_k + M} = e^M Z_m",
             ("w̃", "constant factor out of the sum")),
        Step(sp.Integer(0), "e^M → 0 while the denominator → Z > 0"),
    ),
    MASKED,
    (WT_DEF, ZM_DEF),
)

causal_mask_kept_softmax = Derivation(
    "causal_mask_kept_softmax",
    "Causal mask: the kept keys' weights are the softmax over the kept keys alone",
    sp.Eq(_lim(w[i]), S_[i], evaluate=False),
    (FACTOR,),
    (
        Step(_lim(sp.exp(z[i]) / _FOLDED_DENOM), "the definitions of w and D; "
             "Σ_k e^{z_k + M} = e^M Z_m", ("w", "constant factor out of the sum")),
        Step(S_[i], "e^M Z_m → 0: no masked score is left in the weight; the definition of s_i",
             ("s",)),
    ),
    KEPT,
    (W_DEF, ZM_DEF, nt.S_DEF),
)

_delta = sp.KroneckerDelta
INDEX_RANGES = Assumption(
    "masked index",
    "j = n + r with 1 <= r <= p lies in n+1..n+p and outside 1..n: the masked sum keeps its term "
    "k = j, the kept sum has none, and delta_ij = 0 for a kept i <= n.",
    r"n < j \le n + p,\ i \le n",
    rewrites=((sp.Sum(sp.exp(M + z[k]) * _delta(k, j), (k, n + 1, n + p)), sp.exp(M + z[j])),
              (sp.Sum(sp.exp(z[k]) * _delta(k, j), (k, 1, n)), sp.Integer(0)),
              (_delta(i, j), sp.Integer(0))),
    kind="lemma")

causal_mask_weight_derivative = Derivation(
    "causal_mask_weight_derivative",
    "Causal mask at finite M: ∂w_i/∂z_j = −w_i w̃_j for a kept i and a masked j",
    sp.Eq(sp.Derivative(w[i], z[j]), -w[i] * wt[j], evaluate=False),
    (INDEX_RANGES,),
    (
        Step(sp.exp(z[i]) * _delta(i, j) / Dn
             - sp.exp(z[i]) * (sp.Sum(sp.exp(z[k]) * _delta(k, j), (k, 1, n))
                               + sp.Sum(sp.exp(M + z[k]) * _delta(k, j), (k, n + 1, n + p)))
             / Dn**2,
             "the definitions of w and D; quotient rule, ∂z_k/∂z_j = δ_kj", ("w",)),
        Step(-w[i] * wt[j],
             "j is masked and i kept: −e^{z_i} e^{z_j + M}/D² = −w_i w̃_j; the definitions of w "
             "and w̃", ("masked index", "w", "w̃")),
    ),
    KEPT,
    (W_DEF, WT_DEF),
)

causal_mask_zero_gradient = Derivation(
    "causal_mask_zero_gradient",
    "Causal mask: the gradient of every kept weight by a masked score is exactly 0",
    sp.Eq(_lim(sp.Derivative(w[i], z[j])), 0, evaluate=False),
    (lemma(causal_mask_weight_derivative), FACTOR),
    (
        Step(_lim(-w[i] * wt[j]), "∂w_i/∂z_j = −w_i w̃_j", ("causal_mask_weight_derivative",)),
        Step(_lim(-sp.exp(z[i]) * sp.exp(M) * sp.exp(z[j]) / _FOLDED_DENOM**2),
             "the definitions of w, w̃ and D; e^{z_j + M} = e^M e^{z_j}",
             ("w", "w̃", "constant factor out of the sum")),
        Step(sp.Integer(0), "the masked weight w̃_j → 0 and w_i stays bounded"),
    ),
    KEPT,
    (W_DEF, WT_DEF, ZM_DEF),
)

CLAIMS = (causal_mask_weight_zero, causal_mask_kept_softmax, causal_mask_weight_derivative,
          causal_mask_zero_gradient)
