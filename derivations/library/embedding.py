"""Token embedding: the lookup is Eᵀe_i and its gradient is a scatter-add over repeated tokens.

E is the V×C table (``wte``); token i ∈ 1..V selects row i: (Eᵀe_i)_c = Σ_v δ_iv E_vc = E_ic.
A sequence of T tokens is the T×V one-hot matrix X (row t = e_{tok_t}), the lookup is XE, and by
the trace rule of the linear layer the table's gradient is XᵀG for upstream G (T×C): row v of XᵀG
is Σ_t [tok_t = v] G_t — every position holding token v adds its row, which is what
``np.add.at`` does and plain assignment (last row wins) does not.  The scatter-add is shown for
three positions whose first two tokens repeat, with every token drawn from 1..V.

The model has no tied embeddings: ``lm_head.w`` is its own parameter, so no claim adds the output
projection's gradient to ``wte``.

Domain: V, C, T symbolic sizes (numerically 1..3); tokens and indices within 1..V, 1..C.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Derivation, Domain, Notation, Step
from derivations.library.rules import DIFF_UNDER_SUM

V, C, T = sp.symbols("V C T", integer=True, positive=True)
i, v, c, e = sp.symbols("i v c e", integer=True, positive=True)
a, b = sp.symbols("a b", integer=True, positive=True)  # tokens
w = sp.IndexedBase("E", real=True)
G = sp.IndexedBase("G", real=True)
delta = sp.KroneckerDelta

# entry v of the one-hot e_i, and entry c of the lookup Eᵀe_i: the index computation is written
# out, entry of a product, then the one-hot's entries, then the sifting
LOOKUP = Notation("embedding lookup", (V, C, w))
ONE_HOT = sp.Function("onehot", real=True)
ONE_HOT_DEF = LOOKUP.define("e_i", ONE_HOT, delta(i, v), r"(e_{{{0}}})_{{{1}}}", (i, v),
                            text="entry v of the one-hot vector of token i")
LOOKED_UP = sp.Function("lookup", real=True)
LOOKUP_DEF = LOOKUP.define("Eᵀe_i", LOOKED_UP, sp.Sum(w[v, c] * ONE_HOT(i, v), (v, 1, V)),
                           r"(E^{{T}} e_{{{0}}})_{{{1}}}", (i, c),
                           text="entry c of the lookup Eᵀe_i: column c of E against e_i")

embedding_lookup = Derivation(
    "embedding_lookup",
    "Embedding: the lookup Eᵀe_i is row i of the table",
    sp.Eq(LOOKED_UP(i, c), w[i, c], evaluate=False),
    (),
    (
        Step(sp.Sum(w[v, c] * ONE_HOT(i, v), (v, 1, V)),
             "entry c of Eᵀx is Σ_v E_vc x_v; the definition of Eᵀe_i", ("Eᵀe_i",)),
        Step(sp.Sum(delta(i, v) * w[v, c], (v, 1, V)), "the one-hot e_i: (e_i)_v = δ_iv",
             ("e_i",)),
        Step(w[i, c], "δ_iv keeps the term v = i, for 1 ≤ i ≤ V"),
    ),
    Domain(dims=(V, C), indices={i: (1, V), c: (1, C)}, max_dim=3),
    (LOOKUP_DEF, ONE_HOT_DEF),
    # Σ_v E_vc (e_i)_v, the entries in the order of the product Eᵀe_i; then δ_iv first
    order=("KroneckerDelta", "E"),
)

X = sp.MatrixSymbol("X", T, V)
E = sp.MatrixSymbol("E", V, C)
GM = sp.MatrixSymbol("G", T, C)

# the loss through the lookup XE, for the upstream gradient G
EMBEDDING = Notation("embedding", (T, V, C, X, E, GM))
L = sp.Symbol("L", real=True)
L_DEF = EMBEDDING.define("L", L, sp.Trace(GM.T * X * E),
                         text="the loss through the lookup XE, for the upstream gradient G")

embedding_grad_one_hot = Derivation(
    "embedding_grad_one_hot",
    "Embedding backward: for the one-hot rows X, ∂tr(Gᵀ XE)/∂E = XᵀG",
    sp.Eq(sp.Derivative(L, E), X.T * GM, evaluate=False),
    (),
    (
        Step(sp.Derivative(sp.Trace(E * GM.T * X), E),
             "the definition of L; the cyclic property of the trace", ("L",)),
        Step(X.T * GM, "∂tr(EA)/∂E = Aᵀ with A = GᵀX: (GᵀX)ᵀ = XᵀG"),
    ),
    Domain(dims=(T, V, C), max_dim=3),
    (L_DEF,),
)

TOKENS = (a, a, b)  # position 2 repeats the token of position 1
_LOSS = sp.Sum(sum((G[t, c] * w[tok, c] for t, tok in enumerate(TOKENS, 1)), sp.S.Zero),
               (c, 1, C))
SCATTER_ADD = delta(a, v) * (G[1, e] + G[2, e]) + delta(b, v) * G[3, e]
SEQUENCE = Notation("embedding of three tokens", (C, G, w, a, b))
L3 = sp.Symbol("L", real=True)
L3_DEF = SEQUENCE.define("L", L3, _LOSS, text="the loss through the rows of tokens a, a, b, for "
                         "the upstream gradient G")

embedding_grad_scatter_add = Derivation(
    "embedding_grad_scatter_add",
    "Embedding backward: a token's row gets the sum of the gradients of all its positions",
    sp.Eq(sp.Derivative(L3, w[v, e]), SCATTER_ADD, evaluate=False),
    (DIFF_UNDER_SUM,),
    (
        Step(sp.Sum(sum((G[t, c] * sp.Derivative(w[tok, c], w[v, e])
                         for t, tok in enumerate(TOKENS, 1)), sp.S.Zero), (c, 1, C)),
             "the definition of L; differentiation under a finite sum, G does not depend on E",
             ("L", "differentiation under a finite sum")),
        Step(sp.Sum(sum((G[t, c] * delta(tok, v) * delta(c, e)
                         for t, tok in enumerate(TOKENS, 1)), sp.S.Zero), (c, 1, C)),
             "∂E_{tok,c}/∂E_{v,e} = δ_{tok,v} δ_{ce}"),
        Step(sum((G[t, e] * delta(tok, v) for t, tok in enumerate(TOKENS, 1)), sp.S.Zero),
             "δ_ce keeps the term c = e, for 1 ≤ e ≤ C: each position adds its row of G to the row "
             "of its token"),
        Step(SCATTER_ADD, "positions 1 and 2 hold the same token a: their rows add"),
    ),
    Domain(dims=(V, C), indices={a: (1, V), b: (1, V), v: (1, V), e: (1, C)}, max_dim=3),
    (L3_DEF,),
)

CLAIMS = (embedding_lookup, embedding_grad_one_hot, embedding_grad_scatter_add)
