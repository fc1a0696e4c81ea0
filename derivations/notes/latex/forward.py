"""Kinds and shapes a note shows through its definitions and its gradients (READING.md §1,
"Gradients and definitions of matrices").

It may give a name defined as an expression of matrices with known shapes the shape of that
expression (``S = QK^\\top / \\sqrt{d_k}`` with ``Q, K \\in \\mathbb{R}^{n \\times d_k}``: n×n), a
name defined as softmax (or another function of :data:`.sizes.SAME_SIZE`) of such a matrix its
shape, and a gradient ``dX`` — or a name defined as ``\\frac{\\partial L}{\\partial X}`` — the kind
and shape of ``X``.  It may not change a declared kind, a name with entries or a shape already
known, nor take a shape from numbers (``A = [[0.5, …]]`` is an example's value, not A's shape).
"""

from __future__ import annotations

import sympy as sp
from lark import Token, Tree
from sympy.matrices.expressions.matexpr import MatrixExpr

from derivations.notes.latex.builder import Builder
from derivations.notes.latex.lexicon import GRADIENT
from derivations.notes.latex.sizes import SAME_SIZE, _single
from derivations.notes.latex.table import Evidence, SymbolTable
from derivations.notes.latex.trees import node_name

_OPEN = ("scalar", "matrix", "vector", "name")  # kinds a definition or a gradient may refine


def _name(node):
    """The table name of a symbol written as a token or a token with a name subscript."""
    node = _single(node)
    if isinstance(node, Token) and node.type == "NUMBER":
        return None
    return node_name(node)


def _offset(node):
    while isinstance(node, Tree):
        node = node.children[0]
    return node.start_pos or 0


def _open(table: SymbolTable, name) -> bool:
    info = table.get(name)
    return info is None or (not info.declared and not info.shape and info.kind in _OPEN
                            and name not in table.conflicts)


def _dims(shape):
    """A shape as the table writes it (names and whole numbers), or None."""
    out = []
    for d in shape:
        if isinstance(d, sp.Integer):
            out.append(str(d))
        elif isinstance(d, sp.Symbol):
            out.append(d.name)
        else:
            return None
    return tuple(out) if any(not x.isdigit() for x in out) else None


def _definitions(tree):
    """(lhs, rhs) of each top-level ``X = …`` or ``X := …`` of a formula."""
    for item in tree.children:
        if isinstance(item, Tree) and item.data == "chain" and len(item.children) >= 3 and \
                str(item.children[1]) in ("=", ":="):
            yield item.children[0], item.children[2]


def _note(table, name, kind, shape, formula, node, why) -> bool:
    before = (table.kind(name), table.get(name) and table[name].shape)
    info = table.note(name, kind, Evidence(formula, _offset(node), why), shape=shape)
    return (info.kind, info.shape) != before


def _defined(table: SymbolTable, source: str, formula: int, lhs, rhs,
             mentioned_gradients) -> bool:
    name = _name(lhs)
    if name is None or not _open(table, name) or name in mentioned_gradients:
        return False
    try:  # the left side must read as that one name: AB of two letters is the product A·B
        head = Builder(table, source).ex(lhs)
    except Exception:  # noqa: BLE001 - a left side the reader refuses defines nothing
        return False
    if not isinstance(head, sp.Symbol | sp.IndexedBase | sp.MatrixSymbol) or str(
            getattr(head, "name", head)) != name:
        return False
    value = _single(rhs)
    if isinstance(value, Tree) and value.data == "dfrac":
        return _gradient_of(table, name, _leibniz_variable(value), formula, lhs,
                            "defined as its derivative ∂/∂")
    try:
        body = Builder(table, source).ex(rhs)
    except Exception:  # noqa: BLE001 - a body the reader refuses shows no shape
        return False
    if body.atoms(sp.ImmutableMatrix):
        return False  # numbers written out: an example's value
    labels = {base.label for base in body.atoms(sp.IndexedBase)}
    if any(s.is_commutative and not s.is_integer and table.kind(s.name) != "scalar"
           for s in body.atoms(sp.Symbol) - labels):
        return False  # a factor of no known kind yet (dO before O's shape is known)
    kind = "matrix"
    if isinstance(body, MatrixExpr) and not labels:
        # (a matrix with entries taken as a whole counts as a scalar factor in SymPy's shapes)
        shape = _dims(body.shape)
        why = "defined by an expression of shape " + "×".join(map(str, body.shape))
    elif type(body).__name__ in SAME_SIZE and len(body.args) == 1 and \
            isinstance(body.args[0], (sp.MatrixSymbol, sp.IndexedBase)) and body.args[0].shape:
        arg = body.args[0]
        shape, kind = _dims(arg.shape), "matrix" if len(arg.shape) == 2 else "vector"
        why = f"{type(body).__name__} of {arg.name if hasattr(arg, 'name') else arg}, a " \
              f"{kind} " + "×".join(map(str, arg.shape))
    else:
        return False
    return shape is not None and _note(table, name, kind, shape, formula, lhs, why)


def _leibniz_variable(dfrac):
    """The one variable of ``\\frac{\\partial L}{\\partial X}``, else None."""
    den = dfrac.children[5]
    if len(den.children) != 1:
        return None
    return _name(den.children[0].children[1])


def _gradient_of(table, name, forward, formula, node, why) -> bool:
    info = table.get(forward) if forward else None
    if info is None or info.kind not in ("matrix", "vector") or forward in table.conflicts:
        return False
    text = f"{why}{forward}" if why.endswith("∂") else why
    return _note(table, name, info.kind, info.shape, formula, node,
                 f"{text}, which is a {info.describe()}")


def _gradient_names(tree):
    """(node, name) of each gradient name a formula writes: ``dA``, ``dW_Q``."""
    for node in tree.iter_subtrees_topdown():
        for c in node.children:
            if isinstance(c, Token) and c.type == "WORD" and GRADIENT.fullmatch(str(c)):
                yield c, str(c)
        if node.data == "subscript" and isinstance(node.children[0], Token) and \
                node.children[0].type == "WORD" and GRADIENT.fullmatch(str(node.children[0])):
            name = _name(node)
            if name:
                yield node, name


def forward_shapes(table: SymbolTable, trees):
    """Refine ``table`` by the note's definitions and gradient names; ``trees`` are
    ``(formula number, source, parse tree)``."""
    names = {str(t) for _, _, tree in trees for t in tree.scan_values(
        lambda v: isinstance(v, Token))}
    names |= set(table.entries)
    # a gradient dX of an X the note writes takes X's shape, never its definition's: a body of
    # another shape is then the note's error to find, not a shape to adopt
    gradients = {name for _, _, tree in trees for _, name in _gradient_names(tree)
                 if name[1:] in names}
    for _ in range(4):  # S from Q and K, A from S, O from A and V, dO from O …
        changed = False
        for k, source, tree in trees:
            for node, name in _gradient_names(tree):
                if table.is_gradient(name.split("_")[0]) and _open(table, name):
                    changed |= _gradient_of(table, name, name[1:], k, node,
                                            f"the gradient of {name[1:]}")
            for lhs, rhs in _definitions(tree):
                changed |= _defined(table, source, k, lhs, rhs, gradients)
        if not changed:
            break
