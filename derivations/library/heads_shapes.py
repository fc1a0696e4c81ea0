"""Multi-head attention's output projection for h heads, h symbolic.

Head e (0 ≤ e < h) is an n×d_v matrix H_e with entries ``H[e, i, t]``; Concat(H_0, …, H_{h−1})
is n×(h·d_v), column r holding column r mod d_v of head ⌊r/d_v⌋; W_O is (h·d_v)×D, and its rows
e·d_v … e·d_v + d_v − 1 form the block W_O^{(e)} (d_v×D).

Typed building block: ``MultiHead(heads, w_o_blocks)`` = Concat(heads)·W_O for an explicit list
of heads (``per_head_sum`` gives Σ_e head_e W_O^{(e)}).

Final result: ``PER_HEAD`` = Σ_e (H_e W_O^{(e)})_ic, entry (i, c) of Concat(H)·W_O (n×D, the
width of the residual stream).
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Notation, Step
from derivations.library.attention import Attention


class HeadsShapeError(sp.ShapeError):
    """A multi-head building block got heads or W_O blocks of the wrong shape."""


class MultiHead(sp.MatrixExpr):
    """Concat(head_1, …, head_h)·W_O with W_O given as its h row blocks W_O^{(e)}.

    Typing: every head n×d_v, every block d_v×d_model, as many blocks as heads → n×d_model."""

    def __new__(cls, heads, w_o_blocks):
        heads, blocks = sp.Tuple(*heads), sp.Tuple(*w_o_blocks)
        if len(heads) != len(blocks) or not heads:
            raise HeadsShapeError(f"multi-head: expected one W_O block per head, got "
                                      f"{len(heads)} heads and {len(blocks)} blocks")
        for e, (H, B) in enumerate(zip(heads, blocks, strict=True)):
            if H.shape != heads[0].shape or B.shape != blocks[0].shape:
                raise HeadsShapeError(f"multi-head: head {e} is {tuple(H.shape)} and its block "
                                          f"{tuple(B.shape)}; expected {tuple(heads[0].shape)} "
                                          f"and {tuple(blocks[0].shape)} like head 0")
            if sp.sympify(H.shape[1], strict=True) != sp.sympify(B.shape[0], strict=True):
                raise HeadsShapeError(f"multi-head: block {e} must have d_v = {H.shape[1]} "
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


def multihead(X_, w_q, w_k, w_v, w_o):
    """MultiHead(X) with head e = Attention(X W_Q^e, X W_K^e, X W_V^e); every size is checked."""
    heads = [Attention(X_ * q, X_ * k_, X_ * v_) for q, k_, v_ in zip(w_q, w_k, w_v, strict=True)]
    return MultiHead(heads, w_o)


def per_head_sum(heads, w_o_blocks):
    """Σ_e head_e W_O^{(e)} for explicit lists of heads and blocks, typed by MultiHead: the
    form that the claim below proves equal to Concat(heads)·W_O for any number of heads."""
    return MultiHead(heads, w_o_blocks).doit()


h, n, d_v, D = sp.symbols("h n d_v D", integer=True, positive=True)
i, c = sp.symbols("i c", integer=True, nonnegative=True)
# bound: r a column of the concatenation, e a head, t a column inside one head
r, e, t = sp.symbols("r e t", integer=True, nonnegative=True)
H = sp.IndexedBase("H", real=True)
W_O = sp.MatrixSymbol("W_O", h * d_v, D)


def concat(row, col):
    """Entry (row, col) of Concat(H_0, …, H_{h−1}): head ⌊col/d_v⌋, its column col mod d_v."""
    return H[sp.floor(col / d_v), row, sp.Mod(col, d_v)]


def _is_column_sum(x) -> bool:
    return isinstance(x, sp.Sum) and x.limits == ((r, 0, h * d_v - 1),)


def _split(x: sp.Sum) -> sp.Sum:
    return sp.Sum(x.function.xreplace({r: e * d_v + t}), (t, 0, d_v - 1), (e, 0, h - 1))


# Both premises are rewrites that the engine checks numerically where the steps use them, with
# the bound indices drawn inside their ranges.
BLOCK_SPLIT = Assumption(
    "block split",
    "r = e·d_v + t is a bijection from 0 ≤ e < h, 0 ≤ t < d_v onto 0 ≤ r < h·d_v, so "
    "a sum over the h·d_v columns r is a sum over heads e and columns t of a head.",
    r"\sum_{r=0}^{h d_v-1} f(r) = \sum_{e=0}^{h-1} \sum_{t=0}^{d_v-1} f(e d_v + t)",
    rewrites=((_is_column_sum, _split),), kind="lemma")
EUCLIDEAN_DIVISION = Assumption(
    "Euclidean division",
    "For integers e ≥ 0 and 0 ≤ t < d_v: floor((e·d_v + t)/d_v) = e and t mod d_v = t.",
    r"\left\lfloor \frac{e d_v + t}{d_v} \right\rfloor = e,\quad t \bmod d_v = t",
    rewrites=((sp.floor((e * d_v + t) / d_v), e), (sp.Mod(t, d_v), t)), kind="lemma")

CONCAT_PROJECTION = sp.Sum(concat(i, r) * W_O[r, c], (r, 0, h * d_v - 1))
BLOCKS = sp.Sum(concat(i, e * d_v + t) * W_O[e * d_v + t, c], (t, 0, d_v - 1), (e, 0, h - 1))
PER_HEAD = sp.Sum(H[e, i, t] * W_O[e * d_v + t, c], (t, 0, d_v - 1), (e, 0, h - 1))

# an entry of the concatenation, named as the reader writes it
HEADS = Notation("multi-head", (h, n, d_v, D, H, W_O))
Cc = sp.IndexedBase("C", real=True)
_row, _column = sp.symbols("i r", integer=True, nonnegative=True)
C_DEF = HEADS.define("C", Cc, concat(_row, _column), params=(_row, _column),
                     text="entry (i, r) of Concat(H_0, …, H_{h−1}): column r mod d_v of head "
                          "⌊r/d_v⌋")

multihead_shapes = Derivation(
    id="multihead_shapes",
    title="Multi-head: Concat(H_1, …, H_h) W_O = Σ_e H_e W_O^(e) for h heads of n×d_v, an "
          "n×D matrix like the residual stream",
    statement=sp.Eq(sp.Sum(Cc[i, r] * W_O[r, c], (r, 0, h * d_v - 1)), PER_HEAD, evaluate=False),
    assumptions=(BLOCK_SPLIT, EUCLIDEAN_DIVISION),
    steps=(
        Step(sp.Sum(Cc[i, e * d_v + t] * W_O[e * d_v + t, c], (t, 0, d_v - 1), (e, 0, h - 1)),
             "write the column index r < h·d_v as r = e·d_v + t with head e < h and "
             "0 ≤ t < d_v: the sum over r splits into h blocks of d_v columns", ("block split",)),
        Step(PER_HEAD, "the definition of C; ⌊(e·d_v + t)/d_v⌋ = e and (e·d_v + t) mod d_v = t: "
             "column e·d_v + t of the concatenation is column t of head e, and row e·d_v + t of "
             "W_O is row t of W_O^(e)", ("Euclidean division", "C")),
    ),
    domain=Domain(dims=(h, n, d_v, D), indices={i: (0, n - 1), c: (0, D - 1)}),
    definitions=(C_DEF,),
)

CLAIMS = (multihead_shapes,)
