"""Refusals of what the grammar parses but a reading would only guess (READING.md §2, "Refused
although it parses"): shapes written with ``\\times``, units after numbers, a change or gradient
written before a symbol, the imaginary unit, a letter before one term in parentheses, indexing
with square brackets, a juxtaposition after ``/``, a gradient at a point, bare comma lists.

Each check looks at a product's factors (or a formula's pieces) as parsed and raises through the
builder's ``refuse``, naming the token; it may not build or change a reading.
"""

from __future__ import annotations

import sympy as sp
from lark import Token, Tree

import derivations.notes.latex.nodes as N
from derivations.notes.latex.imaginary import imaginary_allowed
from derivations.notes.reasons import say

_SCRIPTED = ("subscript", "superscript")
# letters that notes put after a number as a unit: thousand, million, billion, giga
_UNIT_LETTERS = ("K", "M", "B", "G")


def _one(node):
    while isinstance(node, Tree) and node.data in ("product", "list") and len(node.children) == 1:
        node = node.children[0]
    return node


def _name_base(node):
    """The name token a factor is written on (``W_P``, ``x^{(0)}``, ``Q``), else None."""
    while isinstance(node, Tree) and node.data in _SCRIPTED:
        node = node.children[0]
    if isinstance(node, Token) and node.type in ("LETTER", "SYMBOL", "WORD", "TEXTWORD"):
        return node
    return None


def _written_name(node):
    """The table name of a factor written as a name with a subscript name (``W_2``), else its
    base's name."""
    if isinstance(node, Tree) and node.data == "subscript" and isinstance(node.children[0],
                                                                          Token):
        script = node.children[2]
        inner = script.children[1] if isinstance(script, Tree) and script.data == "group" \
            else script
        if isinstance(inner, Token):
            return f"{node.children[0]}_{inner}"
    base = _name_base(node)
    return str(base) if base is not None else None


def _adjacent_symbol(d, node) -> bool:
    """Whether ``node`` is a Greek or decorated symbol written right after the letter ``d``
    (``d\\hat{x}``, ``d\\theta``), with no space between."""
    base = _name_base(node)
    if base is None or base.type != "SYMBOL":
        return False
    return base.start_pos == d.end_pos


def _times_operands(node):
    """The operands of a chain ``a \\times b \\times …``, or None if ``node`` is none."""
    node = _one(node)
    if not (isinstance(node, Tree) and node.data == "binop" and str(node.children[1]) == "×"):
        return None
    left = _times_operands(node.children[0]) or [_one(node.children[0])]
    return left + [_one(node.children[2])]


def _is_dimension(node) -> bool:
    """A letter or name, or a juxtaposition of them (``n``, ``d_{\\text{model}}``, ``h d_v``)."""
    node = _one(node)
    if isinstance(node, Tree) and node.data == "product":
        return all(_is_dimension(c) for c in node.children)
    if isinstance(node, Tree) and node.data == "subscript":
        return _name_base(node) is not None
    return isinstance(node, Token) and node.type in ("LETTER", "SYMBOL", "WORD", "TEXTWORD")


def _paren_times(node):
    """Whether a factor is ``(a \\times b)``: a parenthesised product written with ×."""
    if not (isinstance(node, Tree) and node.data == "paren"):
        return False
    items = [c for c in node.children[1].children if isinstance(c, Tree)
             or c.type != "COMMA"]
    return len(items) == 1 and _times_operands(items[0]) is not None


def check_factor(b, kids, k, fn):
    """Refusals for factor ``k`` of a product ``kids`` (a juxtaposition); ``fn`` is the function
    the factor names, or None."""
    c = kids[k]
    nxt = kids[k + 1] if k + 1 < len(kids) else None
    prev = kids[k - 1] if k > 0 else None
    if len(kids) > 1 and _paren_times(c):
        b.refuse(c, say("read.shape_product"))
    if isinstance(c, Token):
        _units(b, c, prev, nxt)
        _change(b, c, nxt)
        _imaginary(b, c, k, nxt)
    base = _name_base(c)
    if base is not None and fn is None:
        _powered_function(b, c, base, nxt)
        _application(b, c, base, nxt)
        _indexing(b, c, base, nxt)
        _scripted_function(b, c, base, nxt)


def _units(b, c, prev, nxt):
    """``124\\text{M}``, ``124M``: a unit after a number."""
    if not (isinstance(prev, Token) and prev.type == "NUMBER"):
        return
    if c.type == "TEXTWORD" and not (isinstance(nxt, Tree) and nxt.data == "paren") and \
            not b.known_word(str(c)) and str(c) != "e":
        b.refuse(c, say("read.unit_text", number=prev, unit=c))
    if c.type == "LETTER" and str(c) in _UNIT_LETTERS and nxt is None and \
            c.start_pos == prev.end_pos and str(c) not in b.t:
        b.refuse(c, say("read.unit_letter", number=prev, unit=c))


def _change(b, c, nxt):
    """``\\Delta\\theta``, ``d\\hat{x}``: a change, a gradient or a differential of a symbol."""
    if c.type == "SYMBOL" and str(c) in ("Delta", "delta") and nxt is not None and \
            _name_base(nxt) is not None:
        b.refuse(c, say("read.delta", op=c))
    if c.type == "LETTER" and str(c) == "d" and nxt is not None and \
            _adjacent_symbol(c, nxt) and (b.t.gradient_names or b.t.kind("d") != "size"):
        b.refuse(c, say("read.d_before", name=_name_base(nxt)))


def _imaginary(b, c, k, nxt):
    """``x_1 + i x_2``, ``e^{i\\theta}``, ``\\mathrm{i}``: the imaginary unit."""
    if str(c)[:1] != "i" or b.in_script:
        return
    leads = k == 0 and (nxt is not None or c.type == "WORD" and not b.known_word(str(c)))
    if c.type == "TEXTWORD" and str(c) == "i" or c.type in ("LETTER", "WORD") and leads and \
            "i" not in b.bound and not b.t.declared("i"):
        if str(c) == "i" and imaginary_allowed(b):
            b.imaginary_at.add(c.start_pos)
            return
        b.refuse(c, say("read.imaginary"))


def _application(b, c, base, nxt):
    """``F(x_l)``, ``p(x)``: a letter before parentheses around one term, no function known."""
    name = _written_name(c)
    if base.type in ("LETTER", "SYMBOL", "WORD") and _one_term(_paren_base(nxt)) and \
            b.t.kind(name) != "matrix" and not b.t.declared(name) and \
            not (base.type == "WORD" and b.known_word(str(base))):
        b.refuse(nxt, say("read.function_or_product", name=base))


def _scripted_function(b, c, base, nxt):
    """``\\mathrm{softmax}_j(e_{ij})``: a function of the vocabulary with a subscript (over j?)
    before its argument, which would read as an entry softmax[j] times the argument."""
    paren = _paren_base(nxt)
    if isinstance(c, Tree) and c.data == "subscript" and paren is not None and (
            N.vocabulary(str(base)) is not None or (
                base.type == "TEXTWORD" and len(str(base)) > 1 and _one_term(paren))):
        b.refuse(c, say("read.function_subscript", name=base))


def _powered_function(b, c, base, nxt):
    """``\\operatorname{sech}^2(x)``: an upright word or a function with a superscript before its
    argument, which would read as a power of the word's symbol times the argument."""
    if not (isinstance(c, Tree) and c.data == "superscript" and _paren_base(nxt) is not None):
        return
    word = str(base)
    if base.type == "TEXTWORD" and len(word) > 1 or N.vocabulary(word) is not None or \
            b.function_of(base) is not None:
        b.refuse(c, say("read.function_power", name=word))


def _indexing(b, c, base, nxt):
    """``W_P[t]``: square brackets after a symbol around one term, as code indexes."""
    if not (isinstance(nxt, Tree) and nxt.data == "bracket"):
        return
    items = [x for x in nxt.children[1].children if isinstance(x, Tree) or x.type != "COMMA"]
    if len(items) != 1 or not (isinstance(_one(items[0]), Tree) and _one(items[0]).data in (
            "add", "sub")):
        b.refuse(nxt, say("read.indexing", name=base))


def check_shape_alone(b, node):
    """A formula that is only ``a \\times b`` of letters (``d_{\\text{in}} \\times
    d_{\\text{out}}``) names a shape: refused."""
    operands = _times_operands(node)
    if operands and all(_is_dimension(x) for x in operands):
        b.refuse(node, say("read.shape_alone"))


def check_bare_list(b, items):
    """Terms separated only by commas, no relation (``Q, K, V``), are no formula: refused.

    ``items`` are the (separator before, node) pairs of the formula's top level."""
    terms = [(sep, node) for sep, node in items if node.data == "chain"
             and len(node.children) == 1]
    if len(terms) < 2 or len(terms) != len(items):
        return
    if all(sep is None or sep.type == "COMMA" for sep, _ in items):
        b.refuse(items[1][1], say("read.list_of_names"))


def check_comma_term(b, items, k):
    """A term alone beside a relation across a bare comma (``V = 50,257``, ``x = 1, 2``): a
    digit group, a list of values or a separate mention — refused."""
    sep, node = items[k]
    after = items[k + 1][0] if k + 1 < len(items) else None
    if node.data == "chain" and len(node.children) == 1 and len(items) > 1 and (
            sep is not None and sep.type == "COMMA" or after is not None and after.type == "COMMA"):
        b.refuse(node, say("read.comma_term"))


def _one_term(paren) -> bool:
    """Whether a parenthesised group holds one term: no sum, no list (``(x_l)``, ``(n^2 d)``,
    ``(n \\cdot d)``, ``(-x)``)."""
    if paren is None:
        return False
    items = [c for c in paren.children[1].children if isinstance(c, Tree)
             or c.type != "COMMA"]
    return len(items) == 1 and not (isinstance(_one(items[0]), Tree) and _one(items[0]).data in (
        "add", "sub"))


def check_divisor(b, op, node):
    """``1/2 x``, ``x / 2\\sigma^2``: a juxtaposition after ``/`` may divide by the product or
    by its first factor only — refused (``x / \\text{RMS}(x)`` divides by one factor)."""
    if str(op) != "/" or not (isinstance(node, Tree) and node.data == "product"):
        return
    kids, k, factors = node.children, 0, 0
    while k < len(kids):
        applied = k + 1 < len(kids) and _paren_base(kids[k + 1]) is not None and \
            b.function_of(kids[k]) is not None
        k += 2 if applied else 1
        factors += 1
    if factors > 1:
        b.refuse(op, say("read.slash"))


def check_operand(b, kids):
    """What a derivative operator applies to (``kids``, the rest of its product): ``∇_θ
    L(θ_{t-1})`` with L no function is a gradient taken at a point, not of a product L·θ."""
    if len(kids) > 1 and _one_term(_paren_base(kids[1])) and isinstance(kids[0], Token) \
            and b.function_of(kids[0]) is None:
        b.refuse(kids[0], say("read.gradient_at_point", name=kids[0]))


def _vector_factors(factors) -> str:
    """The whole vectors of a product, in the order written: ``v`` a vector, ``T`` one
    transposed (entries, x_i, are no whole vectors)."""
    out = ""
    for f in factors:
        if type(f).__name__ in ("Mul", "MatMul"):
            out += _vector_factors(f.args)
        elif isinstance(f, sp.IndexedBase):
            out += "v"
        elif type(f).__name__ in ("transpose", "Transpose") and isinstance(f.args[0],
                                                                           sp.IndexedBase):
            out += "T"
    return out


def check_vector_order(b, node, factors):
    """A product of whole vectors is read only as xᵀy (a number) or with one vector: x yᵀ is
    an outer product, a matrix, and a product of commuting symbols would lose that order."""
    order = _vector_factors(factors)
    if len(order) > 1 and order not in ("Tv", "vv"):
        b.refuse(node, say("read.vector_product"))


def _paren_base(node):
    while isinstance(node, Tree) and node.data in _SCRIPTED:
        node = node.children[0]
    return node if isinstance(node, Tree) and node.data == "paren" else None
