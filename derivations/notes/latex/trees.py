"""Reading a formula's parse tree: the name a token or a script holds, the letters of a script,
the letters used bare or inside scripts, dimensions and bounds as written.

It may look at the tree only; what a name is (an index, a size, a function) is the symbol
table's to say (:mod:`.infer`, :mod:`.table`).
"""

from __future__ import annotations

from lark import Token, Tree

from derivations.notes.latex.sizes import _single
from derivations.notes.latex.table import DEFAULT_FUNCTIONS

NAME_TOKENS = ("LETTER", "SYMBOL", "TEXTWORD", "WORD")



def tok_name(node):
    return str(node) if isinstance(node, Token) and node.type in NAME_TOKENS else None


def head(node, table):
    """The symbol a script attaches to: the last letter of a run that is no known name."""
    from derivations.notes.latex.nodes import vocabulary

    name = tok_name(node)
    if name and node.type == "WORD" and vocabulary(name) is None and not (
            name in table and table[name].declared) and not table.is_gradient(name):
        return name[-1]
    return name


def inner(script):
    """The content of a script: a brace group's content, or the single token."""
    if isinstance(script, Tree) and script.data == "group":
        return script.children[1]
    return script


def script_letters(script) -> list[Token] | None:
    """The letters of a script made only of names (``i``, ``{ij}``, ``{i,j}``), else None."""
    node = inner(script)
    if isinstance(node, Token):
        if node.type in ("LETTER", "SYMBOL"):
            return [node]
        if node.type == "WORD":
            return [Token("LETTER", ch, start_pos=node.start_pos + k) for k, ch in enumerate(node)]
        return None
    if node.data == "list":
        out = []
        for child in node.children:
            if isinstance(child, Token):
                continue
            got = script_letters(child)
            if got is None or len(got) != 1 and len(node.children) > 1:
                return None
            out += got
        return out
    if node.data == "product" and all(isinstance(c, Token) and c.type in ("LETTER", "SYMBOL")
                                      for c in node.children):
        return list(node.children)
    if node.data == "product" and len(node.children) == 1:
        return script_letters(node.children[0])
    return None


def letters_in(node) -> list[Token]:
    if isinstance(node, Token):
        if node.type in ("LETTER", "SYMBOL"):
            return [node]
        if node.type == "WORD":
            return [Token("LETTER", ch, start_pos=node.start_pos + k) for k, ch in enumerate(node)]
        return []
    return [t for c in node.children for t in letters_in(c)]


def is_compound(script) -> bool:
    node = inner(script)
    while isinstance(node, Tree) and node.data in ("list", "product") and len(node.children) == 1:
        node = node.children[0]
    return isinstance(node, Tree) and script_letters(script) is None


def first_offset(node) -> int:
    if isinstance(node, Token):
        return node.start_pos or 0
    for c in node.children:
        off = first_offset(c)
        if off is not None:
            return off
    return 0


def mentioned_function(item):
    """The default function letter a formula only names (``\\Phi`` alone), else None: a
    mention says which function a letter is, it uses no value."""
    if item.data != "chain" or len(item.children) != 1:
        return None
    prod = item.children[0]
    if isinstance(prod, Tree) and prod.data == "product" and len(prod.children) == 1:
        name = tok_name(prod.children[0])
        if name in DEFAULT_FUNCTIONS and prod.children[0].type in ("LETTER", "SYMBOL"):
            return prod.children[0]
    return None


def _paren_next(kids, k) -> bool:
    nxt = kids[k + 1] if k + 1 < len(kids) else None
    return isinstance(nxt, Tree) and nxt.data == "paren"


def _one_term(paren) -> bool:
    """Whether a parenthesised group holds one term (no sum, no list)."""
    items = [c for c in paren.children[1].children if not isinstance(c, Token)]
    return len(items) == 1 and not (isinstance(_single(items[0]), Tree) and _single(
        items[0]).data in ("add", "sub"))


def _mentions(node, name) -> bool:
    """Whether the name token ``name`` occurs anywhere in ``node``."""
    if isinstance(node, Token):
        return tok_name(node) == name or node.type == "WORD" and name in str(node)
    return any(_mentions(c, name) for c in node.children)


def _script_name(script):
    """A subscript as part of a name (``Q``, ``AB``, ``\\text{model}``, ``1``), else None."""
    node = inner(script)
    while isinstance(node, Tree) and node.data in ("list", "product") and len(node.children) == 1:
        node = node.children[0]
    if isinstance(node, Token) and node.type in ("LETTER", "SYMBOL", "TEXTWORD", "WORD", "NUMBER"):
        return str(node)
    if isinstance(node, Tree) and node.data == "product" and all(
            isinstance(c, Token) and c.type in ("LETTER", "WORD", "NUMBER") for c in node.children):
        return "".join(str(c) for c in node.children)
    return None


def node_name(node):
    """The reading name of a dimension or symbol written as a token or a name with a subscript."""
    node = _single(node)
    if isinstance(node, Token):
        return tok_name(node) or (str(node) if node.type == "NUMBER" else None)
    if isinstance(node, Tree) and node.data == "subscript" and tok_name(node.children[0]):
        sub = _script_name(node.children[2])
        return f"{node.children[0]}_{sub}" if sub else None
    return None


def _multiple(node):
    """``4d``, ``3 d_k``: a whole number times a size, as a dimension ``4*d``, else None."""
    node = _single(node)
    if isinstance(node, Tree) and node.data == "product" and len(node.children) == 2 and \
            isinstance(node.children[0], Token) and node.children[0].type == "NUMBER" and \
            str(node.children[0]).isdigit():
        name = node_name(node.children[1])
        return f"{node.children[0]}*{name}" if name and not name.isdigit() else None
    return None


def head_name(node):
    """The name of a symbol written as a token (``x``, ``\\hat{x}``), else None."""
    return tok_name(node)


def _bound_text(node):
    node = _single(node)
    if isinstance(node, Token) and node.type in ("NUMBER", "LETTER", "SYMBOL", "WORD"):
        return str(node)
    return None


def _dims(node):
    node = _single(node)
    if isinstance(node, Tree) and node.data == "binop" and str(node.children[1]) == "×":
        return _dims(node.children[0]) + _dims(node.children[2])
    return [node]


def _free_letters(node) -> set[str]:
    """The names of ``node`` used bare: outside subscripted names and big operators."""
    if isinstance(node, Token):
        return {str(node)} if node.type in ("LETTER", "SYMBOL") else set()
    kids = node.children
    if node.data in ("subscript", "bigop"):  # η_{\min} is a name of its own, not η
        return set()
    if node.data == "superscript":
        kids = [kids[0], kids[2]]
    return set().union(*(_free_letters(c) for c in kids)) if kids else set()


def bound_letters(node) -> set[str]:
    """The letters inside the node's big operators (a sum's bound variable and its limits)."""
    if isinstance(node, Token):
        return set()
    if node.data == "bigop":
        return {str(t) for t in letters_in(node)}
    return set().union(*(bound_letters(c) for c in node.children)) if node.children else set()


def _scripted(node) -> set[str]:
    """The letters inside the node's subscripts and big operators (bound or labels there)."""
    if isinstance(node, Token):
        return set()
    if node.data == "subscript":  # its script only: η_{\min} holds no t
        return {str(t) for t in letters_in(node.children[2])} | _scripted(node.children[0])
    if node.data == "bigop":
        return {str(t) for t in letters_in(node)}
    return set().union(*(_scripted(c) for c in node.children)) if node.children else set()
