"""Scaled dot-product attention with typed shapes, the notes' misplaced bracket, the residual
Jacobian, the collapse of a purely linear MLP, multi-head shapes and the softmax backward pass.

Shapes: Q is n×d_k (n queries), K is m×d_k (m keys), V is m×d_v; the scores S = QKᵀ/√d_k are
n×m and the softmax runs over the m keys of each row.

Typed building blocks (SymPy matrix expressions that check their shapes when built and become
explicit matrices once every size is a number):

* ``softmax_over_keys(S, m)`` — row-wise softmax of an n×m score matrix; anything without one
  column per key raises :class:`AttentionShapeError` naming expected vs got.
* ``Attention(Q, K, V)`` — n×d_v; ``Jacobian(f, x)`` — the Jacobian of a column vector f by a
  column-vector MatrixSymbol x (entry (a, b) = ∂f_a/∂x_b); ``MultiHead(heads, w_o_blocks)``.

Final results:

* ``ATTENTION`` = softmax_over_keys(QKᵀ/√d_k, m)·V (n×d_v)
* ``RESIDUAL_JACOBIAN`` = I + J_F with F(x) = W₂ tanh(W₁x + b₁); ``JACOBIAN_F`` = J_F in closed
  form W₂ diag(1 − tanh²(W₁x + b₁)) W₁
* ``MLP_COLLAPSED`` = (W₂W₁)x + (W₂b₁ + b₂)
* ``MULTIHEAD`` = Σ_e head_e W_O^{(e)} for h = ``HEADS`` heads, n×d_model with d_model = h·d_k
* ``SOFTMAX_BACKWARD`` = A ⊙ (dA − (dA ⊙ A) 1 1ᵀ) (matrix form), and ``SOFTMAX_BACKWARD_ROW``
  = s_j (a_j − Σ_i a_i s_i) (index form: z the logits of one row, a = dA for that row)
"""

from __future__ import annotations

import sympy as sp
from sympy.matrices.expressions.diagonal import DiagMatrix

from derivations.core import Derivation, Domain, Step


class AttentionShapeError(sp.ShapeError):
    """An attention building block got an argument of the wrong shape."""


def _is_number(x) -> bool:
    return bool(sp.sympify(x, strict=True).is_Integer)


class KeySoftmax(sp.MatrixExpr):
    """Row-wise softmax over the key axis of an n×m score matrix."""

    def __new__(cls, scores, keys):
        scores, keys = sp.sympify(scores, strict=True), sp.sympify(keys, strict=True)
        if sp.sympify(scores.shape[1], strict=True) != keys:
            raise AttentionShapeError(
                f"softmax over keys: expected scores of shape (rows, {keys}) — one column per "
                f"key — got {tuple(scores.shape)}")
        return super().__new__(cls, scores, keys)

    @property
    def shape(self):
        return self.args[0].shape

    def _latex(self, printer):
        arg = printer._print(self.args[0])
        return rf"\operatorname{{softmax}}_{{\text{{keys}}}}\left({arg}\right)"

    def _entry(self, i, j, **kwargs):
        S, k = self.args[0], sp.Dummy("k", integer=True)
        return sp.exp(S[i, j]) / sp.Sum(sp.exp(S[i, k]), (k, 0, self.shape[1] - 1))

    def doit(self, **hints):
        S = self.args[0].doit(**hints) if hints.get("deep", True) else self.args[0]
        rows, cols = S.shape
        if not (_is_number(rows) and _is_number(cols)):
            return KeySoftmax(S, self.args[1])
        S = sp.ImmutableMatrix(S.as_explicit())
        rows, cols = int(rows), int(cols)
        return sp.ImmutableMatrix(rows, cols, lambda a, b: sp.exp(S[a, b]) / sp.Add(
            *[sp.exp(S[a, k]) for k in range(cols)]))


def softmax_over_keys(scores, keys):
    """softmax taken over the keys (columns) of each row; ``scores`` must have ``keys`` columns."""
    return KeySoftmax(scores, keys)


class Attention(sp.MatrixExpr):
    """softmax(QKᵀ/√d_k)V, typed by its own rule: Q n×d_k, K m×d_k, V m×d_v → n×d_v."""

    def __new__(cls, Q, K, V):
        Q, K, V = (sp.sympify(a, strict=True) for a in (Q, K, V))
        if sp.sympify(Q.shape[1], strict=True) != sp.sympify(K.shape[1], strict=True):
            raise AttentionShapeError(f"attention: queries and keys need the same width d_k, got "
                                      f"Q {tuple(Q.shape)} and K {tuple(K.shape)}")
        if sp.sympify(K.shape[0], strict=True) != sp.sympify(V.shape[0], strict=True):
            raise AttentionShapeError(f"attention: one value row per key, expected V with "
                                      f"{K.shape[0]} rows, got V {tuple(V.shape)}")
        return super().__new__(cls, Q, K, V)

    @property
    def shape(self):
        return (self.args[0].shape[0], self.args[2].shape[1])

    def _latex(self, printer):
        return r"\operatorname{Attention}\left(" + ", ".join(printer._print(a) for a in self.args) \
            + r"\right)"

    def doit(self, **hints):
        Q, K, V = (a.doit(**hints) for a in self.args) if hints.get("deep", True) else self.args
        out = KeySoftmax(Q * K.T / sp.sqrt(K.shape[1]), K.shape[0]) * V
        return out.doit(**hints) if hints.get("deep", True) else out


class Jacobian(sp.MatrixExpr):
    """∂f/∂x for column vectors: entry (a, b) = ∂f_a/∂x_b.

    Symbolically only linearity and ∂x/∂x = I are applied (other terms stay unevaluated); once
    f and x are explicit the Jacobian is computed entry by entry."""

    def __new__(cls, f, var):
        f, var = sp.sympify(f, strict=True), sp.sympify(var, strict=True)
        if f.shape[1] != 1 or var.shape[1] != 1:
            raise AttentionShapeError(f"Jacobian: expected column vectors, got f {tuple(f.shape)}"
                                      f" by x {tuple(var.shape)}")
        return super().__new__(cls, f, var)

    @property
    def shape(self):
        return (self.args[0].shape[0], self.args[1].shape[0])

    def _latex(self, printer):
        f, var = (printer._print(a) for a in self.args)
        return rf"\frac{{\partial \left({f}\right)}}{{\partial {var}}}"

    def doit(self, **hints):
        f, var = self.args
        f = f.doit(**hints) if hints.get("deep", True) else f
        if isinstance(var, sp.MatrixBase):
            return sp.ImmutableMatrix(sp.ImmutableMatrix(f.as_explicit()).jacobian(list(var)))
        if isinstance(f, sp.MatAdd):
            return sp.MatAdd(*[Jacobian(t, var).doit(**hints) for t in f.args]).doit()
        if f == var:
            return sp.Identity(var.shape[0])
        return Jacobian(f, var)


class MultiHead(sp.MatrixExpr):
    """Concat(head_1, …, head_h)·W_O with W_O given as its h row blocks W_O^{(e)}.

    Typing: every head n×d_v, every block d_v×d_model, as many blocks as heads → n×d_model."""

    def __new__(cls, heads, w_o_blocks):
        heads, blocks = sp.Tuple(*heads), sp.Tuple(*w_o_blocks)
        if len(heads) != len(blocks) or not heads:
            raise AttentionShapeError(f"multi-head: expected one W_O block per head, got "
                                      f"{len(heads)} heads and {len(blocks)} blocks")
        for e, (H, B) in enumerate(zip(heads, blocks, strict=True)):
            if H.shape != heads[0].shape or B.shape != blocks[0].shape:
                raise AttentionShapeError(f"multi-head: head {e} is {tuple(H.shape)} and its block "
                                          f"{tuple(B.shape)}; expected {tuple(heads[0].shape)} "
                                          f"and {tuple(blocks[0].shape)} like head 0")
            if sp.sympify(H.shape[1], strict=True) != sp.sympify(B.shape[0], strict=True):
                raise AttentionShapeError(f"multi-head: block {e} must have d_v = {H.shape[1]} "
                                          f"rows, got {tuple(B.shape)}")
        return super().__new__(cls, heads, blocks)

    @property
    def shape(self):
        return (self.args[0][0].shape[0], self.args[1][0].shape[1])

    def _latex(self, printer):
        heads = ", ".join(printer._print(H) for H in self.args[0])
        blocks = r" \\ ".join(printer._print(B) for B in self.args[1])
        return (rf"\operatorname{{Concat}}\left({heads}\right)"
                rf"\begin{{bmatrix}}{blocks}\end{{bmatrix}}")

    def doit(self, **hints):
        heads = [H.doit(**hints) for H in self.args[0]]
        blocks = [B.doit(**hints) for B in self.args[1]]
        if all(isinstance(x, sp.MatrixBase) for x in heads + blocks):
            return sp.ImmutableMatrix(sp.Matrix.hstack(*heads) * sp.Matrix.vstack(*blocks))
        # SymPy's block algebra: a 1×h block row times an h×1 block column
        return sp.block_collapse(sp.BlockMatrix([heads]) * sp.BlockMatrix([[B] for B in blocks]))


# --- attention and the misplaced bracket ------------------------------------------------------

n, m, d_k, d_v = sp.symbols("n m d_k d_v", integer=True, positive=True)
Q = sp.MatrixSymbol("Q", n, d_k)
K = sp.MatrixSymbol("K", m, d_k)
V = sp.MatrixSymbol("V", m, d_v)
SCORES = Q * K.T / sp.sqrt(d_k)
ATTENTION = softmax_over_keys(SCORES, m) * V

# Exponentials of sums at 50 digits are the costly part of the numeric route; sizes 1..3.
_ATT_DOMAIN = Domain(dims=(n, m, d_k, d_v), max_dim=3)

attention_shapes = Derivation(
    id="attention_shapes",
    title="Attention(Q, K, V) = softmax(QKᵀ/√d_k)V is n×d_v, the softmax over the m keys",
    statement=sp.Eq(Attention(Q, K, V), ATTENTION, evaluate=False),
    assumptions=(),
    steps=(Step(ATTENTION, "definition; the scores QKᵀ/√d_k are n×m and each row is normalised "
                "over its m keys"),),
    domain=_ATT_DOMAIN,
)


def misplaced_attention(Q_, K_, V_):
    """The notes' softmax(QKᵀV/√d_k): the product is n×d_v, so the key-wise softmax raises
    AttentionShapeError unless d_v happens to equal m."""
    return softmax_over_keys(Q_ * K_.T * V_ / sp.sqrt(K_.shape[1]), K_.shape[0])


misplaced_bracket = Derivation(
    id="misplaced_bracket",
    title="softmax(QKᵀV/√d_k) is misbracketed: its argument is n×d_v, not the n×m scores",
    statement=sp.Eq(Q * K.T * V / sp.sqrt(d_k), SCORES * V, evaluate=False),
    assumptions=(),
    steps=(Step(SCORES * V, "associativity: QKᵀV/√d_k = (QKᵀ/√d_k)V, the n×m scores times the "
                "m×d_v values; the key index is summed away before any softmax could see it"),),
    domain=Domain(dims=(n, m, d_k, d_v), max_dim=3),
)

# --- residual Jacobian, linear MLP collapse ---------------------------------------------------

d, h = sp.symbols("d h", integer=True, positive=True)
x = sp.MatrixSymbol("x", d, 1)
W_1 = sp.MatrixSymbol("W_1", h, d)
b_1 = sp.MatrixSymbol("b_1", h, 1)
W_2 = sp.MatrixSymbol("W_2", d, h)
b_2 = sp.MatrixSymbol("b_2", d, 1)
_u = sp.Symbol("u")  # a named bound variable: SymPy's own would print as d, the dimension's name
PRE = W_1 * x + b_1
F = W_2 * PRE.applyfunc(sp.Lambda(_u, sp.tanh(_u)))
JACOBIAN_F = W_2 * DiagMatrix(PRE.applyfunc(sp.Lambda(_u, 1 - sp.tanh(_u) ** 2))) * W_1
RESIDUAL_JACOBIAN = sp.Identity(d) + Jacobian(F, x)

residual_jacobian = Derivation(
    id="residual_jacobian",
    title="∂(x + F(x))/∂x = I + ∂F/∂x, for F(x) = W₂ tanh(W₁x + b₁)",
    statement=sp.Eq(Jacobian(x + F, x), RESIDUAL_JACOBIAN, evaluate=False),
    assumptions=(),
    steps=(
        Step(Jacobian(x, x) + Jacobian(F, x), "the Jacobian of a sum is the sum of Jacobians"),
        Step(RESIDUAL_JACOBIAN, "∂x/∂x = I: the skip path passes the gradient unchanged"),
    ),
    domain=Domain(dims=(d, h), max_dim=3),
)

MLP = W_2 * (W_1 * x + b_1) + b_2
MLP_COLLAPSED = (W_2 * W_1) * x + (W_2 * b_1 + b_2)

mlp_collapse = Derivation(
    id="mlp_collapse",
    title="Without a nonlinearity two linear layers are one: W₂(W₁x + b₁) + b₂ = (W₂W₁)x + "
          "(W₂b₁ + b₂)",
    statement=sp.Eq(MLP, MLP_COLLAPSED, evaluate=False),
    assumptions=(),
    steps=(
        Step(W_2 * W_1 * x + W_2 * b_1 + b_2, "distribute W₂ over the sum"),
        Step(MLP_COLLAPSED, "group: one weight W₂W₁ (d×d) and one bias W₂b₁ + b₂ (d×1)"),
    ),
    domain=Domain(dims=(d, h), max_dim=3),
)

# --- multi-head shapes ------------------------------------------------------------------------

HEADS = 2  # the smallest count for which concatenation is more than a rename
D_MODEL = HEADS * d_k
X = sp.MatrixSymbol("X", n, D_MODEL)
W_Q = [sp.MatrixSymbol(f"W_Q{e}", D_MODEL, d_k) for e in range(1, HEADS + 1)]
W_K = [sp.MatrixSymbol(f"W_K{e}", D_MODEL, d_k) for e in range(1, HEADS + 1)]
W_V = [sp.MatrixSymbol(f"W_V{e}", D_MODEL, d_v) for e in range(1, HEADS + 1)]
W_O = [sp.MatrixSymbol(f"W_O{e}", d_v, D_MODEL) for e in range(1, HEADS + 1)]
HEAD = [sp.MatrixSymbol(f"H_{e}", n, d_v) for e in range(1, HEADS + 1)]
MULTIHEAD = sp.MatAdd(*[HEAD[e] * W_O[e] for e in range(HEADS)])


def multihead(X_, w_q, w_k, w_v, w_o):
    """MultiHead(X) with head e = Attention(X W_Q^e, X W_K^e, X W_V^e); every size is checked."""
    heads = [Attention(X_ * q, X_ * k_, X_ * v_) for q, k_, v_ in zip(w_q, w_k, w_v, strict=True)]
    return MultiHead(heads, w_o)


# the typed construction at symbolic sizes: n×d_model, so X + MULTIHEAD_OF_X is well-typed
MULTIHEAD_OF_X = multihead(X, W_Q, W_K, W_V, W_O)

multihead_shapes = Derivation(
    id="multihead_shapes",
    title="Multi-head: concat of h n×d_v heads times W_O ((h·d_v)×d_model) is n×d_model",
    # MatAdd without doit: ``X + MultiHead(...)`` would evaluate the block product on the spot
    statement=sp.Eq(sp.MatAdd(X, MultiHead(HEAD, W_O)), X + MULTIHEAD, evaluate=False),
    assumptions=(),
    steps=(Step(X + MULTIHEAD, "block product: [head_1 … head_h] times the row blocks of W_O "
                "is the sum of the per-head projections, n×d_model like the residual stream X"),),
    domain=Domain(dims=(n, d_k, d_v), max_dim=3),
)

# --- softmax backward -------------------------------------------------------------------------

N = sp.Symbol("N", integer=True, positive=True)  # the number of keys in one row
i, j, k = sp.symbols("i j k", integer=True)
z = sp.IndexedBase("z")  # one row of scores
a = sp.IndexedBase("a")  # the upstream gradient dA for that row
_total = sp.Sum(sp.exp(z[k]), (k, 1, N))


def _s(idx):
    return sp.exp(z[idx]) / _total


SOFTMAX_BACKWARD_ROW = _s(j) * (a[j] - sp.Sum(a[i] * _s(i), (i, 1, N)))

attention_softmax_backward = Derivation(
    id="attention_softmax_backward",
    title="Softmax backward per row: dS_j = s_j (dA_j − Σ_i dA_i s_i)",
    statement=sp.Eq(sp.Sum(a[i] * sp.Derivative(_s(i), z[j]), (i, 1, N)), SOFTMAX_BACKWARD_ROW),
    assumptions=(),
    steps=(
        Step(sp.Sum(a[i] * _s(i) * (sp.KroneckerDelta(i, j) - _s(j)), (i, 1, N)),
             "softmax Jacobian ∂s_i/∂z_j = s_i (δ_ij − s_j)"),
        Step(sp.Sum(a[i] * _s(i) * sp.KroneckerDelta(i, j), (i, 1, N))
             - _s(j) * sp.Sum(a[i] * _s(i), (i, 1, N)), "distribute the sum over i"),
        Step(a[j] * _s(j) - _s(j) * sp.Sum(a[i] * _s(i), (i, 1, N)),
             "the Kronecker delta keeps the term i = j"),
        Step(SOFTMAX_BACKWARD_ROW, "factor s_j"),
    ),
    domain=Domain(dims=(N,), indices={j: (1, N)}, max_dim=3),
)

# matrix form for an n×m attention matrix A = softmax_over_keys(S) and upstream dA
A_ = sp.MatrixSymbol("A", n, m)
dA = sp.MatrixSymbol("dA", n, m)
SOFTMAX_BACKWARD = sp.HadamardProduct(
    A_, dA - sp.HadamardProduct(dA, A_) * sp.OneMatrix(m, 1) * sp.OneMatrix(1, m))

CLAIMS = (attention_shapes, misplaced_bracket, residual_jacobian, mlp_collapse, multihead_shapes,
          attention_softmax_backward)
