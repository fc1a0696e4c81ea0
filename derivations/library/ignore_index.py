"""Cross-entropy with ``ignore_index``: the mean over the positions that count, and its gradient.

B positions with weights w_b: w_b = 1 for a position that counts, 0 for one whose target is
``ignore_index``.  The loss is the weighted mean L = Σ_b w_b ℓ_b / Σ_b w_b with
ℓ_b = −Σ_c y_{b,c} log p_{b,c}, and its gradient is

    ∂L/∂z_{a,j} = w_a (p_{a,j} − y_{a,j}) / Σ_b w_b:

the mean over the N = Σ_b w_b counted positions, exactly zero on an ignored row.  The identity
holds for any weights with Σ_b w_b > 0, so it is checked at weights drawn from [0, 1]; 0/1 weights
are the model's case.  The all-ignored batch (Σ w = 0) is outside the domain: the model refuses it.

Final result: ``GRADIENT`` in ``a``, ``j``, ``B``, ``n``, ``Z`` (logits), ``w`` (weights).
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Notation, Step
from derivations.library import notation as nt
from derivations.library.cross_entropy import TARGETS, Target, Z, a, b, batch_probability, c, j, n

B = sp.Symbol("B", integer=True, positive=True)
wt = sp.IndexedBase("w", nonnegative=True)
delta = sp.KroneckerDelta
COUNT = sp.Sum(wt[b], (b, 1, B))

LOSS = -sp.Sum(wt[b] * sp.Sum(Target(b, c) * sp.log(batch_probability(b, c)), (c, 1, n)),
               (b, 1, B)) / COUNT
GRADIENT = wt[a] * (batch_probability(a, j) - Target(a, j)) / COUNT

# the count of positions that count, N_w, and the loss over them, with the probabilities P
IGNORE = Notation("ignore_index", (B, n, Z, wt, nt.u), builds_on=(nt.CROSS_ENTROPY,))
NW = sp.Symbol("N_w", nonnegative=True)
NW_DEF = IGNORE.define("N_w", NW, COUNT, text="how many positions count")
L = sp.Symbol("L", real=True)
PB = nt.PB
L_DEF = IGNORE.define(
    "L", L, -sp.Sum(wt[b] * sp.Sum(Target(b, c) * sp.log(PB[b, c]), (c, 1, n)), (b, 1, B)) / NW,
    text="the mean loss over the positions that count")
_N_POS = sp.Symbol("N_pos", positive=True)  # what the symbolic route may take N_w to be

COUNTED = Assumption(
    "at least one position counts",
    "N_w = sum_b w_b > 0: the model refuses a batch in which every target is ignored.",
    r"N_w = \sum_{b=1}^{B} w_b > 0",
    rewrites=((COUNT, _N_POS),))

cross_entropy_ignore_index = Derivation(
    "cross_entropy_ignore_index",
    "Cross-entropy with ignore_index: ∂L/∂z_a = w_a (p_a − y_a)/Σ_b w_b, zero on ignored rows",
    sp.Eq(sp.Derivative(L, Z[a, j]), wt[a] * (PB[a, j] - Target(a, j)) / NW, evaluate=False),
    (COUNTED, TARGETS),
    (
        Step(-sp.Sum(wt[b] * sp.Sum(Target(b, c) * delta(a, b) * (delta(c, j) - PB[b, j]),
                                    (c, 1, n)), (b, 1, B)) / NW,
             "the definition of L; ∂ log P_{b,c}/∂Z_{a,j} = δ_ab(δ_cj − P_{b,j}); the weights "
             "and the targets do not depend on Z", ("L", "at least one position counts")),
        Step(-wt[a] * sp.Sum(Target(a, c) * (delta(c, j) - PB[a, j]), (c, 1, n)) / NW,
             "δ_ab keeps the term b = a, for 1 ≤ a ≤ B", ("at least one position counts",)),
        Step(wt[a] * (PB[a, j] * sp.Sum(Target(a, c), (c, 1, n)) - Target(a, j)) / NW,
             "linearity of the sum; δ_cj keeps the term c = j", ("at least one position counts",)),
        Step(wt[a] * (PB[a, j] - Target(a, j)) / NW, "Σ_c y_{a,c} = 1",
             ("targets are distributions",)),
    ),
    Domain(dims=(B, n), indices={a: (1, B), j: (1, n)}, ranges={wt: (0.0, 1.0)}, max_dim=3),
    (L_DEF,),
)

CLAIMS = (cross_entropy_ignore_index,)
