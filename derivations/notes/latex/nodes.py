"""The SymPy shapes a reading is made of, and the one set of constructors that builds them.

The reader (:mod:`.builder`) and the expected-reading parser (:mod:`.expected`) both build through
these constructors, so one formula written twice gives one tree.  Everything stays unevaluated:
a constructor may flatten a sum inside a sum (or a product inside a product) and nothing else.
It may not simplify, reorder or compute.
"""

from __future__ import annotations

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from derivations.engine import E, Var


class _Node(sp.Basic):
    """A node of the reading with no meaning of its own in SymPy (printed by :mod:`.printer`)."""

    def _hashable_content(self):
        return self.args


class Approx(_Node):
    """``lhs ≈ rhs``."""

    @property
    def lhs(self):
        return self.args[0]

    @property
    def rhs(self):
        return self.args[1]


class Define(Approx):
    """``lhs := rhs``."""


class Chain(_Node):
    """``a = b ≈ c``: one relation per link, in order."""


class Formulas(_Node):
    """Several formulas in one, separated at the top level (``\\quad``, a comma, prose)."""


class In(_Node):
    """A declaration ``x ∈ space``."""


class Distributed(_Node):
    """A random variable's law ``x ~ Law(parameters)``: a declaration."""


class R(_Node):
    """The space ℝ, ℝⁿ or ℝ^{n×d}: its arguments are the dimensions."""


class Range(_Node):
    """The index range ``{lo, …, hi}``."""


class _ExprNode(sp.Expr):
    """A node of the reading that stands for a number (it may be multiplied and added)."""

    def _hashable_content(self):
        return self.args


class EntryOf(_ExprNode):
    """An entry of a result that is no symbol: ``softmax(z)_i`` is ``EntryOf(softmax(z), i)``."""

    is_commutative = True


class Norm(sp.Function):
    """``‖x‖`` (one argument: the 2-norm), ``‖x‖_p`` (two); ``‖X‖_F`` is ``Norm(X, F)``."""

    is_commutative = True

    def __new__(cls, *args, **kwargs):
        args = [sp.Symbol("F") if a == "F" else a for a in args]
        return super().__new__(cls, *args, **kwargs)

    @classmethod
    def eval(cls, *args):
        return None


class MaxOver(_ExprNode):
    """``max_j t``: ``MaxOver(t, (j, lo, hi))``."""

    is_commutative = True


class odot(sp.Function):  # noqa: N801 - the name a reading prints
    """``a ⊙ b`` where a and b are no matrices with shapes."""

    @classmethod
    def eval(cls, *args):
        return None


class Vocab(sp.Function):
    """A named function of the vocabulary: never evaluated; ``f(z)[i]`` is its entry."""

    @classmethod
    def eval(cls, *args):
        return None

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        return EntryOf(self, *[sp.sympify(i, strict=True) for i in index])


# the vocabulary; each name is its own class so that a reading prints and compares by name
VOCABULARY_NAMES = (
    "softmax", "sigmoid", "ReLU", "GELU", "GELU_tanh", "LayerNorm", "RMSNorm", "Attention",
    "MultiHead", "FFN", "Concat", "head", "diag", "tr", "CE", "Adam",
)
VOCABULARY: dict[str, type] = {name: type(name, (Vocab,), {}) for name in VOCABULARY_NAMES}
# spellings that differ only in case; any other name (LN, Tr) is a function of its own name
ALIASES = {"Softmax": "softmax", "relu": "ReLU", "Relu": "ReLU", "gelu": "GELU",
           "Gelu": "GELU", "Sigmoid": "sigmoid", "layernorm": "LayerNorm",
           "Layernorm": "LayerNorm", "rmsnorm": "RMSNorm", "attention": "Attention",
           "Multihead": "MultiHead", "multihead": "MultiHead"}
VECTOR_ARGUMENT = ("softmax", "LayerNorm", "RMSNorm")
ENGINE = {"E": E, "Var": Var}


def vocabulary(name: str):
    """The function class of a vocabulary name (aliases folded), or None."""
    name = ALIASES.get(name, name)
    return ENGINE.get(name) or VOCABULARY.get(name)


def is_matrix(x) -> bool:
    return isinstance(x, MatrixExpr)


def decimal_text(x: sp.Rational) -> str | None:
    """A rational whose denominator divides a power of ten, as the decimal it is (0.7, 2)."""
    if x.q == 1:
        return str(x.p)
    for k in range(1, 13):
        if (10 ** k) % x.q == 0:
            digits = str(abs(x.p) * (10 ** k // x.q)).rjust(k + 1, "0")
            text = (digits[:-k] + "." + digits[-k:]).rstrip("0")
            return ("-" if x < 0 else "") + text
    return None


class _Written:
    """A decimal whose digits say more than its value (``0.330``, ``1.0``): equal to the value in
    every respect SymPy sees, it keeps the digits as written for the reading shown back — an ≈
    is judged on the digits written."""

    def __new__(cls, text: str):
        value = sp.Rational(text)
        obj = sp.Expr.__new__(cls)
        obj.p, obj.q, obj.written = value.p, value.q, text
        return obj

    def __getnewargs__(self):
        return (self.written,)

    def __hash__(self):  # the value's hash: equal to the value, so hashed as it is
        return hash(sp.Rational(self.p, self.q))

    def __neg__(self):
        text = self.written
        return type(self)(text[1:] if text.startswith("-") else "-" + text)


class WrittenRational(_Written, sp.Rational):
    pass


class WrittenInteger(_Written, sp.Integer):
    pass


def number(text: str) -> sp.Rational:
    """A literal exactly as written: ``0.1`` is 1/10; ``0.10`` is 1/10 that shows back as 0.10."""
    value = sp.Rational(text) if "." in text else sp.Integer(text)
    if decimal_text(value) == text:
        return value
    return (WrittenInteger if value.q == 1 else WrittenRational)(text)


def _flat(cls_names: tuple[str, ...], items):
    out = []
    for item in items:
        item = sp.sympify(item, strict=True)
        if type(item).__name__ in cls_names:
            out.extend(item.args)
        else:
            out.append(item)
    return out


def add(*terms):
    terms = _flat(("Add", "MatAdd"), terms)
    if any(is_matrix(t) for t in terms):
        if all(is_matrix(t) for t in terms):
            return sp.MatAdd(*terms, evaluate=False)
        # a matrix plus a scalar (QKᵀ/√d + M with M undeclared): kept as written
        return sp.Add._from_args(terms, is_commutative=False)
    return sp.Add(*terms, evaluate=False)


def mul(*factors):
    factors = _flat(("Mul", "MatMul"), factors)
    if any(is_matrix(f) for f in factors):
        if all(is_matrix(f) or f.is_commutative for f in factors):
            return sp.MatMul(*factors, evaluate=False)
        # a matrix beside a noncommutative factor (softmax(QKᵀ)·V): SymPy has no class for it,
        # so the product is kept as written, unprocessed
        return sp.Mul._from_args(factors, is_commutative=False)
    return sp.Mul(*factors, evaluate=False)


def neg(x):
    x = sp.sympify(x, strict=True)
    if isinstance(x, sp.Number):
        return -x
    if type(x).__name__ == "Mul" and isinstance(x.args[0], sp.Number) and x.args[0] > 0:
        # -2i is the number -2 times i, as -2*i is: one tree for both spellings
        return mul(-x.args[0], *x.args[1:])
    return mul(sp.Integer(-1), x)


def sub(a, b):
    return add(a, neg(b))


def power(base, exponent):
    base, exponent = sp.sympify(base, strict=True), sp.sympify(exponent, strict=True)
    if base is sp.E:
        return sp.exp(exponent, evaluate=False)
    if is_matrix(base):
        return sp.MatPow(base, exponent, evaluate=False)
    return sp.Pow(base, exponent, evaluate=False)


def div(a, b):
    return mul(a, power(b, sp.Integer(-1)))


def sqrt(x):
    return power(x, sp.Rational(1, 2))


def root(x, n):
    n = sp.sympify(n, strict=True)
    return power(x, sp.Rational(1, n) if isinstance(n, sp.Integer) else power(n, -1))


def transpose(x):
    x = sp.sympify(x, strict=True)
    if is_matrix(x):
        return sp.Transpose(x)
    return sp.transpose(x, evaluate=False)


def hadamard(a, b):
    if is_matrix(a) and is_matrix(b):
        return sp.HadamardProduct(a, b, evaluate=False)
    return odot(a, b)


def apply(func, *args):
    """``func(args)`` unevaluated, for SymPy's own functions and the vocabulary alike.

    A function of one vector written with several arguments, softmax(0.5, 0, -1), takes them as
    one tuple."""
    if getattr(func, "__name__", "") in VECTOR_ARGUMENT and len(args) > 1:
        args = (sp.Tuple(*args),)
    return func(*args, evaluate=False)


class Whole(sp.IndexedBase):
    """A vector or matrix with entries taken as a whole, as the variable of a derivative
    (``∂L/∂z``, ``∇_z L``): SymPy differentiates by no plain IndexedBase."""

    _diff_wrt = True


def _whole(v):
    if isinstance(v, tuple | sp.Tuple):
        return (_whole(v[0]), *v[1:])
    if type(v) is sp.IndexedBase:
        return Whole(v.label, shape=v.shape)
    return v


def derivative(expr, *variables):
    return sp.Derivative(expr, *[_whole(v) for v in variables], evaluate=False)


def relation(op: str, lhs, rhs):
    """One link of a chain; ``op`` is one of ``= := ≈ ≤ ≥ ≠ < >``."""
    if op == ":=":
        return Define(lhs, rhs)
    if op == "≈":
        return Approx(lhs, rhs)
    cls = {"=": sp.Eq, "≤": sp.Le, "≥": sp.Ge, "≠": sp.Ne, "<": sp.Lt, ">": sp.Gt}[op]
    return cls(lhs, rhs, evaluate=False)


RELATION_OPS = {"Equality": "=", "Define": ":=", "Approx": "≈", "LessThan": "≤",
                "GreaterThan": "≥", "Unequality": "≠", "StrictLessThan": "<",
                "StrictGreaterThan": ">"}


def is_relation(x) -> bool:
    return type(x).__name__ in RELATION_OPS


def sides(rel):
    return rel.args[0], rel.args[1]
