"""A parse tree to SymPy, by the rules of READING.md and the symbol table.

It may decide, by the table, what a symbol is (entry or name, application or product, transpose
or power) and record the defaults it used as notes.  It may not guess: where READING.md calls a
construct ambiguous, or a symbol is a conflict of the table, it raises :class:`Refusal` naming
the token and its offset.  Expressions are built through :mod:`.nodes` and stay unevaluated.
"""

from __future__ import annotations

import sympy as sp
from lark import Token, Tree

import derivations.notes.latex.nodes as N
from derivations.notes.latex.guards import (
    check_divisor,
    check_factor,
    check_operand,
    check_vector_order,
)
from derivations.notes.latex.integrals import infinity, integral
from derivations.notes.latex.operators import Operators, _Operator, _paren_base
from derivations.notes.latex.primes import prime_application, primed
from derivations.notes.latex.scripts import Scripts
from derivations.notes.latex.table import SymbolTable
from derivations.notes.latex.trees import inner
from derivations.notes.reasons import say


class Refusal(Exception):
    def __init__(self, token: str, offset: int, why: str):
        super().__init__(f"{token!r} at {offset}: {why}")
        self.token, self.offset, self.why = token, offset, why


def _tok(node) -> Token:
    while isinstance(node, Tree):
        node = node.children[0]
    return node


class Builder(Operators, Scripts):
    """Builds the SymPy of a parse tree; :class:`Scripts` reads sub- and superscripts,
    :class:`Operators` derivatives, named operators, sums and products."""

    def __init__(self, table: SymbolTable, source: str):
        self.t, self.src, self.notes, self.bound = table, source, [], []
        self.in_script = 0  # inside a subscript: letters there are indices
        self.bound_real: list[str] = []  # variables of the integrals around: real
        self.i_elsewhere = False  # the formula writes i other than leading a product
        self.imaginary_at: set[int] = set()  # offsets of the i's read as the imaginary unit

    def refuse(self, node, why):
        tok = _tok(node)
        start = tok.start_pos or 0
        end = tok.end_pos if tok.end_pos is not None else start + len(str(tok))
        raise Refusal(self.src[start:end] or str(tok), start, why)

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)

    # -- names ------------------------------------------------------------------------------
    def sym(self, name, node=None):
        if name in self.bound:
            return sp.Symbol(name, integer=True)
        if name in self.bound_real:
            return sp.Symbol(name, real=True)
        if name in self.t.conflicts:
            self.refuse(node, self.t.conflicts[name])
        if name == "e" and self.t.euler():
            self.note("e read as Euler's number")
            return sp.E
        if name == "pi":
            return sp.pi
        if self.t.kind(name) == "function" and node is not None:
            self.refuse(node, say("read.function_alone", name=name))
        return self.t.symbol(name)

    def known_word(self, word) -> bool:
        return N.vocabulary(word) is not None or word in self.t or self.t.is_gradient(word)

    def function_of(self, node):
        """The function a head token names (with its scripts), or None."""
        scripts = []
        while isinstance(node, Tree) and node.data == "subscript":
            scripts.append(node.children[2])
            node = node.children[0]
        if not isinstance(node, Token) or node.type not in ("LETTER", "SYMBOL", "WORD",
                                                             "TEXTWORD"):
            return None
        word = str(node)
        if word in self.t.conflicts and node.type in ("LETTER", "SYMBOL"):
            self.refuse(node, self.t.conflicts[word])
        if word in ("E", "Var") and node.type == "TEXTWORD" or word == "Var":
            if scripts:
                self.note(f"the subscript of {word} is dropped")
            return N.vocabulary(word)
        if scripts:
            if word == "GELU" and _script_word(scripts[0]) == "tanh":
                return N.VOCABULARY["GELU_tanh"]
            return None
        if word == "sigma" and self.t.is_function(word):
            return N.VOCABULARY["sigmoid"]
        if N.vocabulary(word) is not None and (node.type in ("TEXTWORD", "WORD")):
            return N.vocabulary(word)
        if self.t.is_function(word) and node.type != "WORD" or self.t.kind(word) == "function":
            if word in self.t.conflicts:
                self.refuse(node, self.t.conflicts[word])
            return self.t.function(word)
        if node.type == "TEXTWORD" and (len(word) > 1 or self.src.startswith(
                "\\operatorname", node.start_pos)):
            # an upright word before a parenthesis is an operator name: \mathrm{Std}(x)
            return sp.Function(word)
        return None

    # -- structure ---------------------------------------------------------------------------
    def whole(self, node):
        """A value that may be ∞ (an argument, an item of a tuple, a limit)."""
        inf = infinity(node)
        return self.ex(node) if inf is None else inf

    def limit_value(self, script):
        return self.whole(inner(script))

    def x_integral(self, node):
        return integral(self, node)

    def ex(self, node):
        if isinstance(node, Token):
            return self.token(node)
        method = getattr(self, "x_" + node.data, None)
        if method is None:
            self.refuse(node, say("read.node_here", what=node.data))
        return method(node)

    def token(self, tok):
        if tok.type == "NUMBER":
            return N.number(str(tok))
        if tok.type in ("LETTER", "SYMBOL", "TEXTWORD", "WORD"):
            return self.symbol_with_scripts(tok, [], [], 0, tok)
        if tok.type == "DOTS":
            self.refuse(tok, say("read.dots"))
        if tok.type == "REALS":
            self.refuse(tok, say("read.reals"))
        self.refuse(tok, say("read.token_here", kind=tok.type.lower(), token=str(tok)))

    def x_add(self, node):
        return N.add(self.ex(node.children[0]), self.ex(node.children[2]))

    def x_sub(self, node):
        return N.sub(self.ex(node.children[0]), self.ex(node.children[2]))

    def x_neg(self, node):
        return N.neg(self.ex(node.children[1]))

    def x_pos(self, node):
        return self.ex(node.children[1])

    def x_binop(self, node):
        a, op, b = node.children
        check_divisor(self, op, b)
        x, y = self.ex(a), self.ex(b)
        if op == "/":
            return N.div(x, y)
        if op == "⊙":
            return N.hadamard(x, y)
        check_vector_order(self, op, (x, y))
        return N.mul(x, y)

    def x_paren(self, node):
        items = [self.whole(c) for c in node.children[1].children if not isinstance(c, Token)
                 or c.type != "COMMA"]
        return items[0] if len(items) == 1 else sp.Tuple(*items)

    def x_list(self, node):
        items = [self.ex(c) for c in node.children if not isinstance(c, Token)]
        return items[0] if len(items) == 1 else sp.Tuple(*items)

    def x_bracket(self, node):
        items = [c for c in node.children[1].children if not isinstance(c, Token)]
        if len(items) != 1:
            self.refuse(node, say("read.interval"))
        return self.ex(items[0])

    def x_brace(self, node):
        return self.ex(node.children[1])

    def x_set(self, node):
        self.refuse(node, say("read.set"))

    def x_abs(self, node):
        return sp.Abs(self.ex(node.children[1]), evaluate=False)

    def x_norm(self, node):
        inside = self.ex(node.children[1])
        if isinstance(inside, sp.Indexed):
            # ‖g_1‖ of a scalar entry would be |g_1|: the note means g_1 as a vector of its own
            self.refuse(node, say("read.norm_entry", entry=inside, base=inside.base,
                                  name=f"{inside.base}_{'_'.join(map(str, inside.indices))}"))
        return N.Norm(inside)

    def x_frac(self, node):
        return N.div(self.ex(node.children[2]), self.ex(node.children[5]))

    def x_sqrt(self, node):
        return N.sqrt(self.ex(node.children[2]))

    def x_root(self, node):
        return N.root(self.ex(node.children[5]), self.ex(node.children[2]))

    def x_matrix(self, node):
        rows = [[self.ex(c) for c in row.children if not isinstance(c, Token)]
                for row in node.children[1].children if isinstance(row, Tree)]
        if len({len(r) for r in rows}) != 1:
            self.refuse(node, say("read.rows"))
        return sp.ImmutableMatrix(rows)

    # -- products ------------------------------------------------------------------------------
    def x_product(self, node):
        return self.product(list(node.children))

    def product(self, kids):
        out = []
        k = 0
        while k < len(kids):
            c = kids[k]
            fn = self.function_of(c)
            nxt = kids[k + 1] if k + 1 < len(kids) else None
            base, post = _paren_base(nxt) if nxt is not None else (None, [])
            if fn is not None and base is not None:
                app = N.apply(fn, *self.arguments(base))
                out.append(self.scripts_on_result(app, post) if post else app)
                k += 2
                continue
            if fn is not None and isinstance(c, Token) and c.type == "TEXTWORD" and \
                    N.vocabulary(str(c)) is not None and nxt is not None:
                self.refuse(c, say("read.parentheses", name=c))
            if base is not None and isinstance(c, Token) and c.type in ("LETTER", "SYMBOL") \
                    and len(self.arguments(base)) > 1:
                self.refuse(nxt, say("read.no_function", name=c))
            if base is not None and primed(c) is not None:
                out.append(prime_application(self, c, base, post))
                k += 2
                continue
            if isinstance(c, Token) and c.type == "NUMBER" and out:
                self.refuse(c, say("read.number_after"))
            if isinstance(c, Tree) and c.data == "opapp" and nxt is not None and \
                    _paren_base(c.children[2])[0] is None and not _starts_operator(nxt, self):
                self.refuse(nxt, say("read.applies_to", op=c.children[0]))
            check_factor(self, kids, k, fn)
            built = self.ex(c)
            if isinstance(built, _Operator):
                if k + 1 >= len(kids):
                    self.refuse(c, say("read.operator_nothing"))
                check_operand(self, kids[k + 1:])
                rest = self.product(kids[k + 1:])
                out.append(N.derivative(rest, *built.variables))
                break
            if base is not None and fn is None and isinstance(c, Token) and \
                    c.type in ("LETTER", "SYMBOL"):
                self.note(f"{c}(…) read as a product: {c} is no function")
            out.append(built)
            k += 1
        if len(out) > 1 and any(isinstance(f, sp.Tuple) for f in out):
            self.refuse(kids[0], say("read.tuple_product"))
        check_vector_order(self, kids[0], out)
        return out[0] if len(out) == 1 else N.mul(*out)


def _script_word(script):
    node = inner(script)
    while isinstance(node, Tree) and len(node.children) == 1:
        node = node.children[0]
    return str(node) if isinstance(node, Token) else None


def _starts_operator(node, builder) -> bool:
    while isinstance(node, Tree) and node.data in ("subscript", "superscript"):
        node = node.children[0]
    if isinstance(node, Tree):
        return node.data in ("opapp", "opapp_big", "bigop")
    return builder.function_of(node) is not None
