"""Shapes a note states: ``X^⊤G ∈ ℝ^{d_out×d_in}``, ``A = softmax(S) ∈ ℝ^{n×n}``, checked
against the shapes of what they are made of.

A matrix the note declares (``Q ∈ ℝ^{n×d_k}``) has its shape; a name it defines by a matrix
expression (``S = QK^⊤/√d_k``) has that expression's; a product has the rows of its first
factor and the columns of its last, a transpose the two swapped, a sum and a function applied
entry by entry (softmax, LayerNorm, exp …) the shape of what they take.  Anything else — a
factor of unknown shape, a product whose inner sizes differ — has no shape here, and the
statement is not judged.  Two routes agree before anything is said: the sizes as symbols, and
the same shape worked out again with the sizes replaced by distinct primes.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef

from derivations.notes.reasons import say

# functions a note applies to a whole matrix entry by entry (or row by row): the result has
# the shape of the argument
SAME_SHAPE = frozenset({"softmax", "LayerNorm", "RMSNorm", "ReLU", "GELU", "Dropout", "dropout",
                        "sigma", "sigmoid", "tanh", "exp", "log", "SiLU", "Swish"})
_PRIMES = (101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173)


class NoShape(ValueError):
    """The expression's shape cannot be told from what the note says."""


def shape_of(expr, known: dict[str, tuple]) -> tuple | None:
    """(rows, columns) of a matrix expression, or None for a scalar; NoShape when it cannot
    be told.  ``known``: name -> shape of the names the note defined by matrix expressions."""
    if isinstance(expr, sp.MatrixSymbol):
        return tuple(expr.shape)
    if isinstance(expr, sp.IndexedBase | sp.Symbol):
        name = str(getattr(expr, "name", expr))
        if name in known:
            return known[name]
        shape = getattr(expr, "shape", None)
        if isinstance(expr, sp.IndexedBase) and shape is not None and len(shape) == 2:
            return tuple(shape)
        if isinstance(expr, sp.Symbol) and (expr.is_integer or expr.is_number):
            return None
        raise NoShape(f"the shape of {name} is not said")
    if isinstance(expr, sp.Number | sp.NumberSymbol):
        return None
    if isinstance(expr, sp.Transpose) or (isinstance(expr, sp.Function)
                                          and type(expr).__name__ == "transpose"):
        inner = shape_of(expr.args[0], known)
        return None if inner is None else (inner[1], inner[0])
    if isinstance(expr, sp.MatMul | sp.Mul):
        shapes = [s for s in (shape_of(a, known) for a in expr.args) if s is not None]
        if len(shapes) > 1 and any(shape_of(a, known) is not None and a.is_commutative
                                   for a in expr.args):
            # a matrix read as a commuting symbol (G of entries G_ij): SymPy may have put it
            # anywhere in the product, so the order the note wrote is lost
            raise NoShape("a product whose order is not kept")
        if not shapes:
            return None
        for left, right in zip(shapes, shapes[1:], strict=False):
            if sp.simplify(left[1] - right[0]) != 0:
                raise NoShape("a product whose inner sizes differ")
        return shapes[0][0], shapes[-1][1]
    if isinstance(expr, sp.MatAdd | sp.Add):
        shapes = {s for s in (shape_of(a, known) for a in expr.args) if s is not None}
        if len(shapes) > 1:
            raise NoShape("a sum of matrices of different shapes")
        return next(iter(shapes), None)
    if isinstance(expr, sp.Pow) and shape_of(expr.base, known) is None:
        return None if shape_of(expr.exp, known) is None else _raise("a power of a matrix")
    if isinstance(expr, sp.Derivative) and len(expr.variable_count) == 1 \
            and expr.variable_count[0][1] == 1 and isinstance(expr.expr, sp.Symbol) \
            and expr.expr.is_commutative and str(expr.expr) not in known:
        # the gradient of a scalar (a commuting name of no shape) by a matrix: its shape
        by = shape_of(expr.variable_count[0][0], known)
        return by if by is not None else _raise("a derivative by a scalar")
    if isinstance(expr, AppliedUndef | sp.Function) and len(expr.args) == 1 \
            and type(expr).__name__ in SAME_SHAPE:
        return shape_of(expr.args[0], known)
    raise NoShape(f"{type(expr).__name__} has no shape rule here")


def _raise(why: str):
    raise NoShape(why)


def declared(space) -> tuple | None:
    """The (rows, columns) of a space ℝ^{a×b} as the reader gives it (a node with the sizes
    for arguments), or None when it is not a space of matrices."""
    if type(space).__name__ == "R" and len(space.args) == 2:
        return tuple(space.args)
    return None


def judge(expr, space, known: dict[str, tuple]) -> tuple[bool, str] | None:
    """Whether ``expr ∈ space`` holds by shapes, and the shape found; None when the shape of
    ``expr`` or of the space cannot be told (then nothing is said)."""
    want = declared(space)
    if want is None:
        return None
    try:
        got = shape_of(expr, known)
    except NoShape:
        return None
    if got is None:
        return None
    symbolic = all(sp.simplify(a - b) == 0 for a, b in zip(got, want, strict=True))
    sizes = sorted({s for d in (*got, *want) for s in sp.sympify(d, strict=True).free_symbols},
                   key=str)
    if len(sizes) > len(_PRIMES):
        return None
    at = dict(zip(sizes, _PRIMES, strict=False))
    numeric = all(sp.sympify(a, strict=True).xreplace(at)
                  == sp.sympify(b, strict=True).xreplace(at)
                  for a, b in zip(got, want, strict=True))
    if symbolic != numeric:  # the two routes disagree: nothing is judged
        return None
    return symbolic, f"{sp.latex(got[0])} \\times {sp.latex(got[1])}"


def _differ(a, b) -> bool:
    """Two sizes differ by both routes: as symbols, and with the sizes replaced by primes."""
    sizes = sorted(sp.sympify(a - b, strict=True).free_symbols, key=str)
    if len(sizes) > len(_PRIMES):
        return False
    at = dict(zip(sizes, _PRIMES, strict=False))
    a, b = sp.sympify(a, strict=True), sp.sympify(b, strict=True)
    return sp.simplify(a - b) != 0 and a.xreplace(at) != b.xreplace(at)


def undefined_product(expr, known: dict[str, tuple]) -> str | None:
    """A product in ``expr`` of two matrices whose inner sizes differ (Wᵀ G with W d×m and G
    n×m): the shapes, written out, or None when every product whose factors' shapes can be
    told is defined."""
    if not isinstance(expr, sp.Basic):
        return None
    for node in sp.preorder_traversal(expr):
        if not isinstance(node, sp.MatMul | sp.Mul):
            continue
        try:
            shapes = [(a, shape_of(a, known)) for a in node.args]
        except NoShape:
            continue
        shaped = [(a, s) for a, s in shapes if s is not None]
        if any(a.is_commutative for a, _ in shaped) and len(shaped) > 1:
            continue  # the order the note wrote is lost: nothing is said
        for (_, left), (_, right) in zip(shaped, shaped[1:], strict=False):
            if _differ(left[1], right[0]):
                return (f"({sp.latex(left[0])} \\times {sp.latex(left[1])})"
                        f"({sp.latex(right[0])} \\times {sp.latex(right[1])})")
    return None


def different_shapes(lhs, rhs, known: dict[str, tuple]) -> str | None:
    """The two shapes when both sides of an equation are matrices whose shapes can be told and
    differ (by both routes), else None."""
    try:
        a, b = shape_of(lhs, known), shape_of(rhs, known)
    except NoShape:
        return None
    if a is None or b is None or not any(_differ(x, y) for x, y in zip(a, b, strict=True)):
        return None
    return say("check.shapes_against", a=f"{sp.latex(a[0])} \\times {sp.latex(a[1])}",
               b=f"{sp.latex(b[0])} \\times {sp.latex(b[1])}")
