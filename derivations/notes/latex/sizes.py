"""Sizes that a note shows without declaring them (READING.md §1, "vector with a size").

It may give a vector the size its definition or its bold twin shows: ``s := softmax(z)`` with
``z \\in \\mathbb{R}^K`` is of size K; entries ``x_i`` beside ``\\mathbf{x} \\in \\mathbb{R}^d``
are of size d.  It may not change a kind, nor a size already known or declared.
"""

from __future__ import annotations

from lark import Token, Tree

from derivations.notes.latex.nodes import ALIASES
from derivations.notes.latex.table import Evidence, SymbolTable

# functions of the vocabulary whose value is a vector of their argument's size
SAME_SIZE = ("softmax", "LayerNorm", "RMSNorm", "sigmoid", "ReLU", "GELU")


def _single(node):
    while isinstance(node, Tree) and node.data in ("product", "list") and len(node.children) == 1:
        node = node.children[0]
    return node


def _name(node):
    if isinstance(node, Token) and node.type in ("LETTER", "SYMBOL", "TEXTWORD", "WORD"):
        return str(node)
    return None


def same_size(walk, lhs, rhs):
    r"""``s := softmax(z)`` with ``z \in \mathbb{R}^K``: s is a vector of size K (a function
    of the vocabulary that maps a vector to one of its size, entry by entry or as a whole)."""
    name, value = _name(_single(lhs)), _single(rhs)
    if not name or _single(lhs).type == "WORD" or not (
            isinstance(value, Tree) and value.data == "product" and len(value.children) == 2):
        return
    f, arg = value.children
    if _name(f) is None or ALIASES.get(str(f), str(f)) not in SAME_SIZE or not (
            isinstance(arg, Tree) and arg.data == "paren"):
        return
    items = [a for a in arg.children[1].children if not isinstance(a, Token)]
    vec = _name(_single(items[0])) if len(items) == 1 else None
    info = walk.t.get(vec) if vec else None
    if info is not None and info.kind == "vector" and len(info.shape) == 1:
        walk.t.note(name, "vector", walk.ev(lhs, f"{f} of {vec}, a vector of size "
                                                 f"{info.shape[0]}"), shape=info.shape)


def bold_entries(table: SymbolTable):
    r"""``\mathbf{x} \in \mathbb{R}^d`` and entries ``x_i``: notes write the entries of a bold
    vector in plain type, so the plain ``x`` with entries takes the bold one's size."""
    for name, info in list(table.entries.items()):
        plain = name[3:]
        if not name.startswith("bf_") or info.kind != "vector" or len(info.shape) != 1:
            continue
        entries = table.get(plain)
        if entries is None or plain not in table.indexed or entries.shape or \
                entries.kind != "vector" or entries.declared:
            continue
        entries.shape = info.shape
        entries.rests_on.append(Evidence(info.rests_on[0].formula, info.rests_on[0].offset,
                                         f"the entries of \\mathbf{{{plain}}}, of size "
                                         f"{info.shape[0]}"))
