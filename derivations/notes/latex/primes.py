"""A prime on a function before its argument, ``f'(x)``, ``\\sigma'(x)``, ``\\tanh'(x)``,
``\\mathrm{GELU}'(x)`` (READING.md §1, "Derivatives written with a prime").

It may read ``f'(x)`` as the derivative of ``f(x)`` by ``x`` when ``f`` is a function of the table
or the vocabulary (or an operator such as ``\\tanh``) and ``x`` one plain variable, a scalar of the
note.  It may not guess: a prime on a symbol that is no function (``x'(t)``: a new name ``x'``
times ``(t)``, or a derivative of ``x``?), a derivative taken at a point (``\\sigma'(0)``), at an
expression (``\\sigma'(2x)``: the derivative of σ at 2x, or of σ(2x)?), or by a vector or an
entry is refused, naming the token and what to write.
"""

from __future__ import annotations

import sympy as sp
from lark import Token, Tree

import derivations.notes.latex.nodes as N
from derivations.notes.reasons import say


def primed(node):
    """``(base token, number of primes)`` of a factor ``f'``, ``f''``, else None."""
    count = 0
    while isinstance(node, Tree) and node.data == "prime":
        count += 1
        node = node.children[0]
    return (node, count) if count else None


def _variable(b, paren, written):
    """The one plain variable a primed function is applied to, or a refusal."""
    items = [c for c in paren.children[1].children if not isinstance(c, Token)
             or c.type != "COMMA"]
    if len(items) != 1:
        b.refuse(paren, say("read.prime_several", written=written))
    arg = b.ex(items[0])
    if isinstance(arg, sp.Number) or arg.is_number:
        b.refuse(paren, say("read.prime_point", written=written, arg=arg))
    plain = isinstance(arg, sp.Symbol) and arg.is_commutative and arg.is_real and \
        not arg.is_integer
    if not plain:
        b.refuse(paren, say("read.prime_expression_arg", written=written, arg=arg))
    return arg


def prime_application(b, c, paren, post):
    """The reading of ``f'(x)`` (``c`` the primed factor, ``paren`` its argument group,
    ``post`` the scripts on the group)."""
    base, order = primed(c)
    written = b.src[base.start_pos:c_end(c)] if isinstance(base, Token) else "f'"
    fn = b.function_of(base) if isinstance(base, Token) else None
    if fn is None:
        name = str(base) if isinstance(base, Token) else "this"
        b.refuse(c, say("read.prime_no_function", name=name))
    return _derivative(b, fn, order, paren, post, written)


def operator_prime(b, op, order, arg_node):
    """``\\tanh'(x)``: an operator with a prime, applied to its parenthesised argument."""
    paren, post = _paren_of(arg_node)
    written = "\\" + str(op) + "'" * order
    if paren is None:
        b.refuse(op, say("read.prime_parentheses", written=written))
    fn = {"log": sp.log, "ln": sp.log, "exp": sp.exp, "sin": sp.sin, "cos": sp.cos,
          "tan": sp.tan, "tanh": sp.tanh, "sinh": sp.sinh, "cosh": sp.cosh}.get(str(op))
    if fn is None:
        b.refuse(op, say("read.prime_operator", written=written, op=op))
    return _derivative(b, fn, order, paren, post, written)


def _derivative(b, fn, order, paren, post, written):
    x = _variable(b, paren, written)
    result = N.derivative(N.apply(fn, x), x if order == 1 else (x, order))
    b.note(f"{written}(x) read as the derivative of the function by its argument")
    return b.scripts_on_result(result, post) if post else result


def c_end(node):
    """The end offset of a factor's last token."""
    while isinstance(node, Tree):
        node = node.children[-1]
    return node.end_pos if node.end_pos is not None else node.start_pos + len(str(node))


def _paren_of(node):
    post = []
    while isinstance(node, Tree) and node.data in ("subscript", "superscript"):
        post.insert(0, (str(node.children[1]) == "_" and "SUB" or "SUP", node.children[2]))
        node = node.children[0]
    if isinstance(node, Tree) and node.data == "paren":
        return node, post
    return None, []
