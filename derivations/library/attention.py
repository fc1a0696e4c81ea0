"""Scaled dot-product attention with typed shapes, the notes' misplaced bracket and the softmax
backward pass.

Shapes: Q is n×d_k (n queries), K is m×d_k (m keys), V is m×d_v; the scores S = QKᵀ/√d_k are
n×m and the softmax runs over the m keys of each row.  Entries are counted from 1, as d2l
counts them (:class:`Entry`; SymPy's matrix algebra counts from 0).

Typed building blocks (SymPy matrix expressions that check their shapes when built and become
explicit matrices once every size is a number):

* ``softmax_over_keys(S, m)`` — row-wise softmax of an n×m score matrix; anything without one
  column per key raises :class:`AttentionShapeError` naming expected vs got.
* ``Attention(Q, K, V)`` — n×d_v.

Final results:

* ``ATTENTION`` = softmax_over_keys(QKᵀ/√d_k, m)·V (n×d_v); ``ATTENTION_ENTRY`` = Σ_j s_ij V_jc
  with ``weight(i, j)`` = s_ij = exp(q_iᵀk_j/√d_k)/Σ_l exp(q_iᵀk_l/√d_k)
* ``MISPLACED_ARGUMENT`` = QKᵀV/√d_k (n×d_v) and ``MISPLACED_ENTRY``, entry (i, c) of its row
  softmax, whose rows sum to 1 over the d_v value columns
* ``SOFTMAX_BACKWARD`` = A ⊙ (dA − (dA ⊙ A) 1 1ᵀ) (matrix form), and ``SOFTMAX_BACKWARD_ROW``
  = s_j (a_j − Σ_i a_i s_i) (index form: z the logits of one row, a = dA for that row)
"""

from __future__ import annotations

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement
from sympy.printing.precedence import PRECEDENCE

from derivations.engine import Assumption, Derivation, Domain, Notation, Step, lemma
from derivations.engine.core.citing import exact_rewrite
from derivations.library import notation as nt
from derivations.library import softmax as sm


class AttentionShapeError(sp.ShapeError):
    """An attention building block got an argument of the wrong shape."""


def _is_number(x) -> bool:
    return bool(sp.sympify(x, strict=True).is_Integer)


_col = sp.Symbol("l", integer=True, nonnegative=True)  # the bound index of a row normaliser


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
        S = self.args[0]
        return sm.softmax_of(lambda u: S[i, u], j, _col, 0, self.shape[1] - 1)

    def doit(self, **hints):
        S = self.args[0].doit(**hints) if hints.get("deep", True) else self.args[0]
        rows, cols = S.shape
        if not (_is_number(rows) and _is_number(cols)):
            return KeySoftmax(S, self.args[1])
        S = sp.ImmutableMatrix(S.as_explicit())
        rows, cols = int(rows), int(cols)
        # each row's exponentials and their total once, not a Sum per entry
        exps = [[sp.exp(S[a, u]) for u in range(cols)] for a in range(rows)]
        totals = [sp.Add(*row) for row in exps]
        return sp.ImmutableMatrix(rows, cols, lambda a, b: exps[a][b] / totals[a])


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


class Entry(MatrixElement):
    """Entry (i, j) of a matrix counted from 1, as a lecturer and d2l write it: SymPy's
    M[i − 1, j − 1] (its matrix algebra counts from 0), printed M_{ij}.  Its value is SymPy's
    entry, so both routes evaluate it as any matrix element."""

    def _latex(self, printer):
        parent = printer.parenthesize(self.parent, PRECEDENCE["Atom"], strict=True)
        rows = (self.i + 1, self.j + 1)
        sep = "" if all(isinstance(x, sp.Symbol) for x in rows) else ","
        return f"{{{parent}}}_{{{sep.join(printer._print(x) for x in rows)}}}"


def entry(matrix, row, col):
    """Entry (row, col) of ``matrix``, both counted from 1."""
    return Entry(matrix, row - 1, col - 1)


def named_entry(expr, row, col, names: dict):
    """Entry (row, col), counted from 1, of a matrix expression as SymPy's matrix algebra writes
    it, with every index counted from 1: each bound index (a SymPy Dummy) is renamed by its range
    (``names`` maps an upper limit such as m − 1 to a symbol) and shifted to run from 1, and each
    entry of a matrix symbol is an :class:`Entry`.  Renaming and shifting a bound variable leave
    the value unchanged; a name that would capture another bound index of the same name is
    refused."""
    out = expr[row - 1, col - 1]

    def shifted(node):
        limits, body = [], node.function
        for var, low, high in node.limits:
            if isinstance(var, sp.Dummy):
                if high not in names:
                    raise ValueError(f"no name for a bound index up to {high}")
                new = names[high]
            else:
                new = var
            if low != 0:
                raise ValueError(f"expected a bound index from 0, got {var} from {low}")
            body = body.xreplace({var: new - 1})
            limits.append((new, 1, high + 1))
        return sp.Sum(body, *limits)

    out = out.replace(lambda e: isinstance(e, sp.Sum), shifted)
    out = out.replace(lambda e: type(e) is MatrixElement and isinstance(e.parent, sp.MatrixSymbol),
                      lambda e: Entry(*e.args))
    for node in sp.preorder_traversal(out):
        if isinstance(node, sp.Sum):
            inner = {v for s in node.function.atoms(sp.Sum) for v in s.variables}
            if inner & set(node.variables):
                raise ValueError(f"renaming the bound indices of {expr[row - 1, col - 1]} "
                                 f"captures one of them")
    return out


# --- attention, entry by entry -----------------------------------------------------------------

n, m, d_k, d_v = sp.symbols("n m d_k d_v", integer=True, positive=True)
Q = sp.MatrixSymbol("Q", n, d_k)
K = sp.MatrixSymbol("K", m, d_k)
V = sp.MatrixSymbol("V", m, d_v)
SCORES = Q * K.T / sp.sqrt(d_k)
ATTENTION = softmax_over_keys(SCORES, m) * V

# free indices: query row i, value column c; bound: key j, width r (r runs over the d_k entries,
# as in the variance claims)
i, c = sp.symbols("i c", integer=True, nonnegative=True)
j, r = sp.symbols("j r", integer=True, nonnegative=True)


def score(row, key):
    """S_row,key = q_rowᵀk_key/√d_k, one entry of the n×m scores (row and key from 1)."""
    return sp.Sum(entry(K, key, r) * entry(Q, row, r), (r, 1, d_k)) / sp.sqrt(d_k)


def weight(row, key):
    """s_row,key: the softmax of row ``row`` of the scores over the m keys."""
    return sm.softmax_of(lambda u: score(row, u), key, _col, 1, m)


ATTENTION_ENTRY = sp.Sum(weight(i, j) * entry(V, j, c), (j, 1, m))
_ENTRIES = Domain(dims=(n, m, d_k, d_v), indices={i: (1, n), c: (1, d_v)})

# the scores S_ij and the weights s_ij of one head
ATTENTION_NOTATION = Notation("attention", (n, m, d_k, d_v, Q, K, V))
S = sp.IndexedBase("S", real=True)
S_DEF = ATTENTION_NOTATION.define("S", S, score(i, j), params=(i, j),
                                  text="the score of query i for key j, q_iᵀk_j/√d_k")
w = sp.IndexedBase("s", positive=True)
W_DEF = ATTENTION_NOTATION.define(
    "s", w, sp.exp(S[i, j]) / sp.Sum(sp.exp(S[i, _col]), (_col, 1, m)), params=(i, j),
    text="the weight of key j for query i: the softmax of row i of the scores over the m keys")


_PRODUCT_ENTRY = entry(ATTENTION, i, c)
ENTRY_OF_PRODUCT = Assumption(
    "entry of a matrix product",
    "Entry (i, c) of AB is sum_j A_ij B_jc.  SymPy's matrix algebra writes it with bound indices "
    "of its own; named here j for the keys, r across the width d_k and l in the normaliser.",
    r"(AB)_{ic} = \sum_{j} A_{ij} B_{jc}",
    rewrites=(exact_rewrite(_PRODUCT_ENTRY,
                            named_entry(Attention(Q, K, V).doit(), i, c, {m - 1: j, d_k - 1: r})),),
    kind="lemma")

attention_shapes = Derivation(
    id="attention_shapes",
    title="Attention(Q, K, V) = softmax(QKᵀ/√d_k)V is n×d_v: entry (i, c) = Σ_j s_ij V_jc, "
          "the softmax over the m keys",
    statement=sp.Eq(_PRODUCT_ENTRY, sp.Sum(w[i, j] * entry(V, j, c), (j, 1, m)), evaluate=False),
    assumptions=(ENTRY_OF_PRODUCT,),
    steps=(Step(sp.Sum(w[i, j] * entry(V, j, c), (j, 1, m)),
                "entry (i, c) of the n×m weights times the m×d_v values is a sum over the m "
                "keys j of s_ij V_jc; the definitions of s_ij and S_ij",
                ("entry of a matrix product", "s")),),
    domain=_ENTRIES,
    definitions=(W_DEF,),
    # the weights first, then the values, as in the product PV; QKᵀ as q_i before k_j
    order=("s", "Q"),
)

_ROW_TOTAL = sp.Sum(sp.exp(score(i, j)), (j, 1, m))
_RENAMING = Assumption(
    "bound index renaming",
    "A summation index is a bound name: the sum over the keys j of exp(S_ij) is the sum over l.",
    r"\sum_{j=1}^{m} e^{S_{ij}} = \sum_{l=1}^{m} e^{S_{il}}",
    rewrites=((_ROW_TOTAL, sp.Sum(sp.exp(score(i, _col)), (_col, 1, m))),), kind="lemma")

attention_weights_sum_to_one = Derivation(
    id="attention_weights_sum_to_one",
    title="Each row of attention weights sums to 1 over the m keys: Σ_j s_ij = 1",
    statement=sp.Eq(sp.Sum(w[i, j], (j, 1, m)), 1, evaluate=False),
    assumptions=(_RENAMING,),
    steps=(
        Step(sp.Sum(sp.exp(S[i, j]), (j, 1, m)) / sp.Sum(sp.exp(S[i, _col]), (_col, 1, m)),
             "the definition of s_ij; the normaliser Σ_l exp(S_il) does not depend on j", ("s",)),
        Step(sp.Integer(1), "Σ_j exp(S_ij) = Σ_l exp(S_il)", ("bound index renaming",)),
    ),
    domain=Domain(dims=(n, m, d_k), indices={i: (1, n)}),
    definitions=(W_DEF,),
    order=("Q",),
)

# --- the misplaced bracket ----------------------------------------------------------------------

MISPLACED_ARGUMENT = Q * K.T * V / sp.sqrt(d_k)  # n×d_v: the keys are already summed away


def misplaced_attention(Q_, K_, V_):
    """The notes' softmax(QKᵀV/√d_k) read as attention: the product is n×d_v, so the key-wise
    softmax raises AttentionShapeError unless d_v happens to equal m."""
    return softmax_over_keys(Q_ * K_.T * V_ / sp.sqrt(K_.shape[1]), K_.shape[0])


# entry (i, c) of the row softmax of the n×d_v argument, as SymPy's matrix algebra writes it
MISPLACED_ENTRY = named_entry(softmax_over_keys(MISPLACED_ARGUMENT, d_v), i, c,
                              {m - 1: j, d_k - 1: r})
_MISPLACED_TOP, _MISPLACED_BOTTOM = MISPLACED_ENTRY.as_numer_denom()
_COLUMN_RENAMING = Assumption(
    "bound index renaming",
    "A summation index is a bound name: the sum over the value columns c of exp(U_ic) is the "
    "sum over l.",
    r"\sum_{c=1}^{d_v} e^{U_{ic}} = \sum_{l=1}^{d_v} e^{U_{il}}",
    rewrites=((sp.Sum(_MISPLACED_TOP, (c, 1, d_v)), _MISPLACED_BOTTOM),), kind="lemma")

# the argument's entry U_ic and the weight w_ic its row softmax gives column c, as SymPy writes them
U = sp.IndexedBase("U", real=True)
U_DEF = ATTENTION_NOTATION.define(
    "U", U, _MISPLACED_TOP.args[0], params=(i, c),
    text="entry (i, c) of the misbracketed argument QKᵀV/√d_k")
wm = sp.IndexedBase("w", positive=True)
WM_DEF = ATTENTION_NOTATION.define(
    "w", wm, sp.exp(U[i, c]) / sp.Sum(sp.exp(U[i, _col]), (_col, 1, d_v)), params=(i, c),
    text="the weight the misbracketed softmax gives column c of row i")

misplaced_bracket = Derivation(
    id="misplaced_bracket",
    title="softmax(QKᵀV/√d_k) is misbracketed: its argument is n×d_v, not the n×m scores, so "
          "each row is normalised over the d_v value columns, not over the m keys",
    statement=sp.Eq(sp.Sum(wm[i, c], (c, 1, d_v)), 1, evaluate=False),
    assumptions=(_COLUMN_RENAMING,),
    steps=(
        Step(sp.Sum(sp.exp(U[i, c]), (c, 1, d_v))
             / sp.Sum(sp.exp(U[i, _col]), (_col, 1, d_v)),
             "the definition of w_ic: the m keys j are summed away inside U_ic = "
             "Σ_j Σ_r Q_ir K_jr V_jc/√d_k; the normaliser, a sum over the d_v columns, does "
             "not depend on c", ("w",)),
        Step(sp.Integer(1), "Σ_c exp(U_ic) = Σ_l exp(U_il)", ("bound index renaming",)),
    ),
    domain=Domain(dims=(n, m, d_k, d_v), indices={i: (1, n)}),
    definitions=(WM_DEF,),
)

# --- softmax backward ---------------------------------------------------------------------------

# one row of scores is softmax.z over its n keys: the softmax module's own symbols, so that the
# softmax Jacobian is cited, not re-derived
N, z, j_key, i_key = sm.n, sm.z, sm.j, sm.i
a = sp.IndexedBase("a", real=True)  # the upstream gradient dA for that row
s = sm.softmax

SOFTMAX_BACKWARD_ROW = s(j_key) * (a[j_key] - sp.Sum(a[i_key] * s(i_key), (i_key, 1, N)))
sv = nt.s  # the defined s_i = softmax(z)_i
# the upstream gradient's mean under the weights
BACKWARD = Notation("softmax backward", (N, z, a), builds_on=(nt.SOFTMAX,))
abar = sp.Symbol("abar", real=True)
ABAR_DEF = BACKWARD.define("ā", abar, sp.Sum(a[i_key] * sv[i_key], (i_key, 1, N)),
                           text="the mean of the upstream gradient a under s")

attention_softmax_backward = Derivation(
    id="attention_softmax_backward",
    title="Softmax backward per row: dS_j = s_j (dA_j − Σ_i dA_i s_i)",
    statement=sp.Eq(sp.Sum(a[i_key] * sp.Derivative(sv[i_key], z[j_key]), (i_key, 1, N)),
                    sv[j_key] * (a[j_key] - abar), evaluate=False),
    assumptions=(lemma(sm.softmax_jacobian),),
    steps=(
        Step(sp.Sum(a[i_key] * sm.JACOBIAN_FOLDED, (i_key, 1, N)),
             "softmax Jacobian ∂s_i/∂z_j = s_i (δ_ij − s_j)", ("softmax_jacobian",)),
        Step(sp.Sum(a[i_key] * sv[i_key] * sp.KroneckerDelta(i_key, j_key), (i_key, 1, N))
             - sv[j_key] * abar, "distribute the sum over i; the definition of ā", ("ā",)),
        Step(a[j_key] * sv[j_key] - sv[j_key] * abar,
             "the Kronecker delta keeps the term i = j"),
        Step(sv[j_key] * (a[j_key] - abar), "factor s_j"),
    ),
    domain=Domain(dims=(N,), indices={j_key: (1, N)}),
    definitions=(ABAR_DEF,),
    # Σ_i a_i ∂s_i/∂z_j: the upstream gradient weighs the Jacobian; s_j (a_j − ā)
    order=("KroneckerDelta", "a", "s", "Add"),
)

# matrix form for an n×m attention matrix A = softmax_over_keys(S) and upstream dA
A_ = sp.MatrixSymbol("A", n, m)
dA = sp.MatrixSymbol("dA", n, m)
SOFTMAX_BACKWARD = sp.HadamardProduct(
    A_, dA - sp.HadamardProduct(dA, A_) * sp.OneMatrix(m, 1) * sp.OneMatrix(1, m))

CLAIMS = (attention_shapes, attention_weights_sum_to_one, misplaced_bracket,
          attention_softmax_backward)
