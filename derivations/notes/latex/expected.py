"""Expected readings: their textual form (READING.md §6) and the structural comparison.

``parse_expected`` reads a Python-syntax expression by walking its syntax tree — it never calls
``eval`` — and builds it with the reader's own constructors (:mod:`.nodes`) under the same symbol
table, so that one formula written twice is one tree.  ``same_reading`` compares node by node; it
may ignore only the order of the arguments of commutative sums and products, never a bracket, a
term, or how a number was written.
"""

from __future__ import annotations

import ast

import sympy as sp
from sympy.core.function import AppliedUndef

import derivations.notes.latex.nodes as N
from derivations.notes.latex.table import SymbolTable


class ExpectedError(ValueError):
    """An expected reading that cannot be read: where, what was expected and what came."""


def _matrix(rows):
    return sp.ImmutableMatrix(rows)


_CONSTRUCTORS = {
    "Eq": lambda a, b: N.relation("=", a, b), "Ne": lambda a, b: N.relation("≠", a, b),
    "Lt": lambda a, b: N.relation("<", a, b), "Le": lambda a, b: N.relation("≤", a, b),
    "Gt": lambda a, b: N.relation(">", a, b), "Ge": lambda a, b: N.relation("≥", a, b),
    "Approx": N.Approx, "Define": N.Define, "Chain": N.Chain, "In": N.In, "R": N.R,
    "Distributed": N.Distributed,
    "Range": N.Range, "Formulas": N.Formulas, "Tuple": lambda *a: sp.Tuple(*a),
    "Matrix": _matrix, "sqrt": N.sqrt, "root": N.root, "transpose": N.transpose,
    "odot": N.hadamard, "Norm": lambda x, p=None: N.Norm(x) if p is None else N.Norm(x, p),
    "Abs": lambda x: sp.Abs(x, evaluate=False), "EntryOf": N.EntryOf,
    "KroneckerDelta": lambda i, j: sp.KroneckerDelta(i, j, evaluate=False),
    "Derivative": N.derivative, "Rational": lambda p, q: sp.Rational(p, q),
    "Integer": sp.Integer,
    **{name: (lambda f: lambda *a: N.apply(f, *a))(getattr(sp, name))
       for name in ("exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "Max", "Min")},
    **{name: (lambda f: lambda *a: N.apply(f, *a))(cls) for name, cls in N.VOCABULARY.items()},
    "E": lambda x: N.apply(N.E, x), "Var": lambda x: N.apply(N.Var, x),
}
_BINDERS = {"Sum": sp.Sum, "Product": sp.Product, "MaxOver": N.MaxOver, "Integral": sp.Integral}


class _Reader:
    def __init__(self, text: str, table: SymbolTable):
        self.text, self.t, self.bound = text, table, []
        self.real_bound: list[str] = []  # variables of integrals: real, as the reader binds them

    def fail(self, node, what):
        raise ExpectedError(f"at column {getattr(node, 'col_offset', 0) + 1} of {self.text!r}: "
                            f"{what}")

    def name(self, name, node):
        if name in self.bound:
            return sp.Symbol(name, integer=True)
        if name in self.real_bound:
            return sp.Symbol(name, real=True)
        if name == "oo":
            return sp.oo
        if name == "ImaginaryUnit":
            return sp.I
        if name == "e" and self.t.euler():
            return sp.E
        if name == "pi":
            return sp.pi
        return self.t.symbol(name)

    def ev(self, node):
        method = getattr(self, "n_" + type(node).__name__, None)
        if method is None:
            self.fail(node, f"expected a SymPy-constructor expression, got {type(node).__name__}")
        return method(node)

    def n_Expression(self, node):
        return self.ev(node.body)

    def n_Constant(self, node):
        if isinstance(node.value, bool) or node.value is None:
            self.fail(node, f"a constant {node.value!r} is no expression")
        if isinstance(node.value, str):
            return node.value
        if isinstance(node.value, float):
            return N.number(ast.get_source_segment(self.text, node))
        return sp.Integer(node.value)

    def n_Name(self, node):
        if node.id in _CONSTRUCTORS or node.id in _BINDERS:
            self.fail(node, f"{node.id} is a constructor; call it, or write S({node.id!r}) for "
                      "a symbol of that name")
        return self.name(node.id, node)

    def n_Tuple(self, node):
        return tuple(self.ev(e) for e in node.elts)

    def n_List(self, node):
        return [self.ev(e) for e in node.elts]

    def n_UnaryOp(self, node):
        x = self.ev(node.operand)
        if isinstance(node.op, ast.USub):
            return N.neg(x)
        if isinstance(node.op, ast.UAdd):
            return x
        self.fail(node, "only unary - and + are read")

    def n_BinOp(self, node):
        a, b = self.ev(node.left), self.ev(node.right)
        ops = {ast.Add: N.add, ast.Sub: N.sub, ast.Mult: N.mul, ast.MatMult: N.mul,
               ast.Div: N.div, ast.Pow: N.power}
        if type(node.op) not in ops:
            self.fail(node, "only + - * / ** @ are read")
        return ops[type(node.op)](a, b)

    def n_Attribute(self, node):
        if node.attr != "T":
            self.fail(node, f"only .T is read, got .{node.attr}")
        return N.transpose(self.ev(node.value))

    def n_Subscript(self, node):
        base = node.value
        idx = node.slice
        items = [self.ev(e) for e in (idx.elts if isinstance(idx, ast.Tuple) else [idx])]
        if isinstance(base, ast.Name):
            return self.t.base(base.id)[tuple(items)]
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and \
                base.func.id == "S":
            return self.t.base(self.ev(base.args[0]))[tuple(items)]
        return N.EntryOf(self.ev(base), *items)

    def n_Call(self, node):
        if isinstance(node.func, ast.Call) and isinstance(node.func.func, ast.Name) and \
                node.func.func.id == "S" and node.func.args and \
                isinstance(node.func.args[0], ast.Constant):
            # S("R")(theta): the function named R (R itself is a constructor)
            return N.apply(sp.Function(node.func.args[0].value), *[self.ev(a) for a in node.args])
        if not isinstance(node.func, ast.Name):
            self.fail(node, "a call of a name was expected")
        f = node.func.id
        if node.keywords:
            self.fail(node, "keyword arguments are not read")
        if f == "S":
            if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
                self.fail(node, "S takes one name in quotes: S(\"W^Q\")")
            return self.name(node.args[0].value, node)
        if f in _BINDERS:
            return self.binder(node, _BINDERS[f])
        if f == "Derivative":
            return self.derivative(node)
        args = [self.ev(a) for a in node.args]
        if f in _CONSTRUCTORS:
            try:
                return _CONSTRUCTORS[f](*args)
            except TypeError as exc:
                self.fail(node, f"{f}: {exc}")
        if N.vocabulary(f) is not None:
            return N.apply(N.vocabulary(f), *args)
        if f == "sigma":
            return N.apply(N.VOCABULARY["sigmoid"], *args)
        if self.t.is_function(f) or len(f) > 1 and f not in self.t:
            return N.apply(self.t.function(f), *args)
        self.fail(node, f"{f} is neither a constructor of READING.md §6 nor a function of the "
                  "table (declare it: function " + f + ")")

    def binder(self, node, cls):
        if len(node.args) < 2:
            self.fail(node, "a sum needs its body and (j, lo, hi)")
        names = []
        for lim in node.args[1:]:
            if not isinstance(lim, ast.Tuple) or len(lim.elts) != 3 or \
                    not isinstance(lim.elts[0], ast.Name):
                self.fail(lim, "a limit is (j, lo, hi)")
            names.append(lim.elts[0].id)
        real = cls is sp.Integral
        limits = [(sp.Symbol(n, real=True) if real else sp.Symbol(n, integer=True),
                   self.ev(lim.elts[1]), self.ev(lim.elts[2]))
                  for n, lim in zip(names, node.args[1:], strict=True)]
        bound = self.real_bound if real else self.bound
        bound += names
        try:
            body = self.ev(node.args[0])
        finally:
            del bound[len(bound) - len(names):]
        if cls is N.MaxOver:
            return N.MaxOver(body, sp.Tuple(*limits[0]))
        result = body
        for lim in reversed(limits):
            result = cls(result, lim)
        return result

    def derivative(self, node):
        args = [self.ev(a) for a in node.args]
        return N.derivative(args[0], *args[1:])


def parse_expected(text: str, table: SymbolTable | None = None):
    """The tree of an expected reading (READING.md §6)."""
    table = table if table is not None else SymbolTable()
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpectedError(f"at column {exc.offset} of {text!r}: not a Python-syntax "
                            f"expression ({exc.msg})") from None
    return _Reader(text.strip(), table).ev(tree)


# -- structural comparison ---------------------------------------------------------------------
_UNORDERED = ("Add", "Mul", "MatAdd")


def _key(x):
    """A canonical, hashable form of a tree: equal keys are equal readings."""
    if isinstance(x, (list, tuple)):
        return ("seq", tuple(_key(a) for a in x))
    if not isinstance(x, sp.Basic):
        return ("py", repr(x))
    if not x.args or isinstance(x, (sp.Symbol, sp.MatrixSymbol, sp.IndexedBase, sp.Number)):
        return ("atom", sp.srepr(x), getattr(x, "written", ""))  # 0.330 is not 0.33 as written
    head = f"F:{x.func}" if isinstance(x, AppliedUndef) else type(x).__name__
    kids = [_key(a) for a in x.args]
    if head in _UNORDERED or head == "MatMul":
        comm = sorted(k for a, k in zip(x.args, kids, strict=True) if _commutes(a))
        rest = [k for a, k in zip(x.args, kids, strict=True) if not _commutes(a)]
        if head in _UNORDERED and head != "Mul":
            return (head, tuple(sorted(kids)))
        return (head, tuple(comm), tuple(rest))
    return (head, tuple(kids))


def _commutes(a):
    return not N.is_matrix(a) and a.is_commutative is True


def same_reading(a, b) -> bool:
    """Whether two readings are the same tree (up to the order of commutative arguments)."""
    return _key(a) == _key(b)


def first_difference(a, b) -> str | None:
    """Where two readings first differ, in words; None if they are the same."""
    if same_reading(a, b):
        return None
    if not (isinstance(a, sp.Basic) and isinstance(b, sp.Basic)) or type(a) is not type(b) or \
            len(a.args) != len(b.args) or not a.args or (
            isinstance(a, AppliedUndef) and a.func != b.func):
        return _differ(a, b)
    if type(a).__name__ in _UNORDERED or type(a).__name__ == "MatMul":
        only_a = [x for x in a.args if not any(same_reading(x, y) for y in b.args)]
        only_b = [y for y in b.args if not any(same_reading(x, y) for x in a.args)]
        if len(only_a) == 1 and len(only_b) == 1:
            return first_difference(only_a[0], only_b[0])
        return f"in {a}: {only_a or 'the order'} against {only_b or 'the order'}"
    for x, y in zip(a.args, b.args, strict=True):
        d = first_difference(x, y)
        if d:
            return d
    return _differ(a, b)


def _differ(a, b) -> str:
    sa, sb = str(a), str(b)
    if sa == sb:
        sa, sb = sp.srepr(a), sp.srepr(b)
    return f"{sa} differs from {sb}"
