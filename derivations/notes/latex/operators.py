"""Operators of a formula to SymPy: derivatives (Leibniz fractions, ∇), the named operators
(\\log, \\exp, \\max …) and sums and products over an index, by the rules of READING.md.

A mixin of :class:`.builder.Builder`: it may use the builder's table, its refusals and its
notes, and reads nothing the builder does not give it.
"""

from __future__ import annotations

import sympy as sp
from lark import Token, Tree

import derivations.notes.latex.nodes as N
from derivations.notes.latex.primes import operator_prime
from derivations.notes.latex.scripts import int_of
from derivations.notes.latex.trees import inner, script_letters
from derivations.notes.reasons import say

_OPS = {"log": sp.log, "ln": sp.log, "exp": sp.exp, "sin": sp.sin, "cos": sp.cos, "tan": sp.tan,
        "tanh": sp.tanh, "sinh": sp.sinh, "cosh": sp.cosh, "max": sp.Max, "min": sp.Min}


class _Operator:
    """∂/∂x or ∇_W waiting for what follows it in its product."""

    def __init__(self, variables, node):
        self.variables, self.node = variables, node


class Operators:
    """Derivatives, named operators, sums and products (mixed into the builder)."""

    def x_nabla(self, node):
        return _Operator([self.ex(inner(node.children[2]))], node)

    def x_dfrac(self, node):
        num, den = node.children[2], node.children[5]
        parts = num.children
        order, body = None, None
        for p in parts[1:]:
            if isinstance(p, Token) and p.type == "NUMBER":
                order = int(str(p))
            elif isinstance(p, Tree) and p.data == "group":
                order = int_of(inner(p))
                if order is None:
                    self.refuse(p, say("read.order_whole"))
            elif not isinstance(p, Token):
                body = p
        variables = []
        for dvar in den.children:
            f = dvar.children[1]
            if isinstance(f, Tree) and f.data == "superscript" and \
                    self.label(f.children[2]) is None:
                k = int_of(inner(f.children[2]))
                if k is None:
                    self.refuse(f, say("read.denominator_order"))
                variables.append((self.ex(f.children[0]), k))
            else:
                variables.append((self.ex(f), 1))
        total = sum(k for _, k in variables)
        if (order or 1) != total:
            self.refuse(num, say("read.orders", top=order or 1, bottom=total))
        variables = [v if k == 1 else (v, k) for v, k in reversed(variables)]
        if body is None:
            return _Operator(variables, node)
        return N.derivative(self.ex(body), *variables)

    def x_opapp(self, node):
        op, scripts, arg = node.children
        return self.operator(op, scripts, arg)

    def x_opapp_prime(self, node):
        op, *primes, scripts, arg = node.children
        if scripts.children:
            self.refuse(scripts, say("read.prime_script", op=op))
        return operator_prime(self, op, len(primes), arg)

    def x_opapp_big(self, node):
        op, scripts, big = node.children
        return self.operator(op, scripts, big)

    def operator(self, op, scripts, arg):
        subs = [s for k, s in zip(scripts.children[::2], scripts.children[1::2], strict=True)
                if k.type == "SUB"]
        sups = [s for k, s in zip(scripts.children[::2], scripts.children[1::2], strict=True)
                if k.type == "SUP"]
        name = str(op)
        if isinstance(arg, Token) and arg.type == "WORD" and not self.known_word(str(arg)):
            self.refuse(arg, say("read.operator_run", name=name, arg=arg, first=arg[0],
                                 rest=arg[1:]))
        base, post = _paren_base(arg)
        if base is not None:
            args = self.arguments(base)
        else:
            args = [self.ex(arg)]
        if subs:
            if name not in ("max", "min") or len(args) != 1:
                self.refuse(op, say("read.operator_subscript", name=name))
            var = script_letters(subs[0])
            if not var or len(var) != 1:
                self.refuse(subs[0], say("read.max_index"))
            self.refuse(op, say("read.min_over", name=name, var=var[0])) \
                if name == "min" else None
            j = str(var[0])
            return N.MaxOver(args[0], sp.Tuple(sp.Symbol(j, integer=True), *self.index_range(
                j, arg, subs[0])))
        if name in ("max", "min") and len(args) < 2:
            self.refuse(op, say("read.one_argument", name=name))
        if name not in ("max", "min") and len(args) != 1:
            self.refuse(op, say("read.takes_one", name=name))
        result = N.apply(_OPS[name], *args)
        for s in sups:
            result = self.power(result, s, op)
        return self.scripts_on_result(result, post) if post else result

    def arguments(self, paren):
        return [self.whole(c) for c in paren.children[1].children if not isinstance(c, Token)
                or c.type not in ("COMMA",)]

    def x_bigop(self, node):
        big, scripts, body = node.children
        pairs = list(zip(scripts.children[::2], scripts.children[1::2], strict=True))
        subs = [s for k, s in pairs if k.type == "SUB"]
        sups = [s for k, s in pairs if k.type == "SUP"]
        if len(subs) != 1 or len(sups) > 1:
            self.refuse(big, say("read.big_scripts", big=big))
        sub = inner(subs[0])
        if isinstance(sub, Tree) and sub.data == "script_rel":
            var = script_letters(sub.children[0])
            if str(sub.children[1]) != "=" or not var or len(var) != 1:
                self.refuse(sub, say("read.big_condition", big=big))
            names = [str(var[0])]
            if not sups:
                self.refuse(big, say("read.big_upper", big=big))
            bounds = [(self.ex(sub.children[2]), self.limit_value(sups[0]))]
        else:
            letters = script_letters(subs[0])
            if not letters or sups:
                self.refuse(sub, say("read.big_subscript", big=big))
            names = [str(v) for v in letters]
            bounds = [self.index_range(n, body, subs[0]) for n in names]
        self.bound += names
        try:
            result = self.ex(body)
        finally:
            del self.bound[len(self.bound) - len(names):]
        cls = sp.Sum if str(big) == "sum" else sp.Product
        for name, (lo, hi) in reversed(list(zip(names, bounds, strict=True))):
            result = cls(result, (sp.Symbol(name, integer=True), lo, hi))
        return result

    def index_range(self, name, body, node):
        """The range of an index a sum leaves unbounded: declared, else a declared vector's size."""
        rng = self.t.range_of(name)
        if rng:
            return rng
        for base, pos, count in _bases_indexed_by(body, name):
            size = self.t.size_of(base)
            if size and len(size) == count:
                self.note(f"the range of {name} is 1..{size[pos]}, a dimension of {base}")
                return (sp.Integer(1), size[pos])
        self.refuse(node, say("read.range", name=name))


def _paren_base(node):
    """A parenthesised group with the scripts on it: (group, [(SUB|SUP, script)…]) or (None, [])."""
    post = []
    while isinstance(node, Tree) and node.data in ("subscript", "superscript"):
        post.insert(0, (str(node.children[1]) == "_" and "SUB" or "SUP", node.children[2]))
        node = node.children[0]
    if isinstance(node, Tree) and node.data in ("paren", "bracket"):
        return node, post
    return None, []


def _bases_indexed_by(node, name):
    if isinstance(node, Token):
        return
    if node.data == "subscript" and isinstance(node.children[0], Token):
        letters = script_letters(node.children[2])
        names = [str(x) for x in letters or []]
        if name in names:
            yield str(node.children[0]), names.index(name), len(names)
    for c in node.children:
        yield from _bases_indexed_by(c, name)
