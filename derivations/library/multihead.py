"""Multi-head plumbing and the whole attention backward.

Split and merge (``ops.split_heads`` / ``ops.merge_heads``), h heads of width D, h and D symbolic:
split(X)[e, t, r] = X[t, (e−1)D + r] for 1 ≤ e ≤ h, 1 ≤ r ≤ D.  Merge is its inverse, and the
backward of the split is the merge of the upstream gradient: for L = Σ G[e,t,r]·split(X)[e,t,r],
∂L/∂X[t, (f−1)D + s] = G[f, t, s].  The one fact about indices used is division with remainder:
(e−1)D + r = (f−1)D + s with 1 ≤ r, s ≤ D holds only for e = f and r = s.

The attention backward for one head, from the upstream gradient dO of O = PV with the attention
weights P = softmax_keys(S), S = QKᵀ/√D (n queries, m keys):
dV = PᵀdO and dP = dO Vᵀ (the trace rule, as for a linear layer), dS row by row from the softmax
backward (``attention_softmax_backward``), dQ = dS K/√D and dK = dSᵀQ/√D.

Domain: sizes symbolic (numerically 1..3), every value real.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Notation, Step
from derivations.library import attention as att
from derivations.library.rules import DIFF_UNDER_SUM

h, D, T = sp.symbols("h D T", integer=True, positive=True)
e, t, r, f, u, s = sp.symbols("e t r f u s", integer=True, positive=True)
X = sp.IndexedBase("X", real=True)
G = sp.IndexedBase("G", real=True)
delta = sp.KroneckerDelta


def split(e_, t_, r_):
    """split(X)[e, t, r] = X[t, (e − 1)D + r]."""
    return X[t_, (e_ - 1) * D + r_]


_SPLIT_LOSS = sp.Sum(sp.Sum(sp.Sum(G[e, t, r] * split(e, t, r), (r, 1, D)), (t, 1, T)), (e, 1, h))
_FLAT = (e - 1) * D + r

DIVISION = Assumption(
    "division with remainder",
    "For 1 <= r, s <= D: (e-1)D + r = (f-1)D + s only if e = f and r = s.",
    r"\delta_{(e-1)D+r,\,(f-1)D+s} = \delta_{ef}\,\delta_{rs}\quad (1\le r,s\le D)",
    rewrites=((delta(_FLAT, (f - 1) * D + s), delta(e, f) * delta(r, s)),
              (delta((f - 1) * D + s, _FLAT), delta(e, f) * delta(r, s))),
    kind="lemma")

# the split entry and the loss through the heads, L = Σ G ⊙ split(X)
SPLIT = Notation("split heads", (h, D, T, X, G))
Xs = sp.Function("Xsplit", real=True)
XS_DEF = SPLIT.define("X^(e)", Xs, split(e, t, r), r"X^{{({0})}}_{{{1},{2}}}", params=(e, t, r),
                      text="entry (t, r) of head e of the split: column (e − 1)D + r of X")
L = sp.Symbol("L", real=True)
L_DEF = SPLIT.define("L", L, _SPLIT_LOSS.xreplace({split(e, t, r): Xs(e, t, r)}),
                     text="the loss through the heads, for their upstream gradient G")
_COLUMN = X[u, (f - 1) * D + s]

split_heads_backward = Derivation(
    "split_heads_backward",
    "Multi-head: the backward of split_heads is merge_heads of the upstream gradient",
    sp.Eq(sp.Derivative(L, _COLUMN), G[f, u, s], evaluate=False),
    (DIFF_UNDER_SUM, DIVISION),
    (
        Step(sp.Sum(sp.Sum(sp.Sum(G[e, t, r] * sp.Derivative(Xs(e, t, r), _COLUMN),
                                  (r, 1, D)), (t, 1, T)), (e, 1, h)),
             "the definition of L; differentiation under a finite sum",
             ("L", "differentiation under a finite sum")),
        Step(sp.Sum(sp.Sum(sp.Sum(G[e, t, r] * delta(t, u) * delta(_FLAT, (f - 1) * D + s),
                                  (r, 1, D)), (t, 1, T)), (e, 1, h)),
             "the definition of the split: ∂X_{t,(e−1)D+r}/∂X_{u,(f−1)D+s} = δ_tu "
             "δ_{(e−1)D+r,(f−1)D+s}", ("X^(e)",)),
        Step(sp.Sum(sp.Sum(sp.Sum(G[e, t, r] * delta(t, u) * delta(e, f) * delta(r, s),
                                  (r, 1, D)), (t, 1, T)), (e, 1, h)),
             "division with remainder", ("division with remainder",)),
        Step(G[f, u, s], "the deltas keep the term e = f, t = u, r = s: the merge of G at "
             "column (f−1)D + s"),
    ),
    Domain(dims=(h, D, T), indices={f: (1, h), u: (1, T), s: (1, D)}, max_dim=3),
    (L_DEF,),
)

# --- one head: dV, dP, dQ, dK -------------------------------------------------------------------

n, m, d_k, d_v = att.n, att.m, att.d_k, att.d_v
P = sp.MatrixSymbol("P", n, m)
Vm = sp.MatrixSymbol("V", m, d_v)
dO = sp.MatrixSymbol("dO", n, d_v)
Q = sp.MatrixSymbol("Q", n, d_k)
K = sp.MatrixSymbol("K", m, d_k)
dS = sp.MatrixSymbol("dS", n, m)
_DOM = Domain(dims=(n, m, d_k, d_v), max_dim=3)

attention_grad_values = Derivation(
    "attention_grad_values",
    "Attention backward through O = PV: dV = PᵀdO",
    sp.Eq(sp.Derivative(sp.Trace(dO.T * P * Vm), Vm), P.T * dO, evaluate=False),
    (),
    (Step(P.T * dO, "∂tr(AV)/∂V = Aᵀ with A = dOᵀP"),),
    _DOM,
)

attention_grad_probs = Derivation(
    "attention_grad_probs",
    "Attention backward through O = PV: dP = dO Vᵀ",
    sp.Eq(sp.Derivative(sp.Trace(dO.T * P * Vm), P), dO * Vm.T, evaluate=False),
    (),
    (
        Step(sp.Derivative(sp.Trace(Vm * dO.T * P), P), "cyclic property of the trace"),
        Step(dO * Vm.T, "∂tr(AP)/∂P = Aᵀ with A = V dOᵀ: (V dOᵀ)ᵀ = dO Vᵀ"),
    ),
    _DOM,
)

_SCORE_LOSS = sp.Trace(dS.T * Q * K.T) / sp.sqrt(d_k)

attention_grad_query = Derivation(
    "attention_grad_query",
    "Attention backward through S = QKᵀ/√d_k: dQ = dS K/√d_k",
    sp.Eq(sp.Derivative(_SCORE_LOSS, Q), dS * K / sp.sqrt(d_k), evaluate=False),
    (),
    (
        Step(sp.Derivative(sp.Trace(K.T * dS.T * Q) / sp.sqrt(d_k), Q),
             "cyclic property of the trace"),
        Step(dS * K / sp.sqrt(d_k), "∂tr(AQ)/∂Q = Aᵀ with A = KᵀdSᵀ: (KᵀdSᵀ)ᵀ = dS K"),
    ),
    _DOM,
)

attention_grad_key = Derivation(
    "attention_grad_key",
    "Attention backward through S = QKᵀ/√d_k: dK = dSᵀQ/√d_k",
    sp.Eq(sp.Derivative(_SCORE_LOSS, K), dS.T * Q / sp.sqrt(d_k), evaluate=False),
    (),
    (
        Step(sp.Derivative(sp.Trace(K * Q.T * dS) / sp.sqrt(d_k), K),
             "a trace equals the trace of the transpose, then the cyclic property"),
        Step(dS.T * Q / sp.sqrt(d_k), "∂tr(KA)/∂K = Aᵀ with A = QᵀdS: (QᵀdS)ᵀ = dSᵀQ"),
    ),
    _DOM,
)

CLAIMS = (split_heads_backward, attention_grad_values, attention_grad_probs, attention_grad_query,
          attention_grad_key)
