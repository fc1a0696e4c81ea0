"""The symbol table inferred from a note's formulas, in order, and its symbols block.

It may record what the formulas show: declarations (``x \\in \\mathbb{R}^{n\\times d}``, ``i =
1, \\dots, n``), the bound variables of sums (indices inside their sum only), compound
subscripts (``m_{t-1}``: t an index, m has entries), entries of a function's result, symbols
transposed as a whole, symbols given a tuple of values (``x = (1, 2)``: entries), functions
defined in the note (``f(x) = …``, or ``R(m\\theta) = …`` with R in neither its argument nor the
right side), whether the note writes gradient names (``dW``), the sizes :mod:`.sizes` finds, and
a default function letter also used as a plain symbol (a conflict).  It may not guess from letter
shapes or habits; what no rule settles stays a scalar, as READING.md says.
"""

from __future__ import annotations

from lark import Token, Tree

from derivations.notes.latex.sizes import _single, same_size
from derivations.notes.latex.table import (
    DEFAULT_FUNCTIONS,
    Evidence,
    SymbolTable,
)
from derivations.notes.latex.trees import (
    _bound_text,
    _dims,
    _free_letters,
    _mentions,
    _multiple,
    _one_term,
    _paren_next,
    bound_letters,
    first_offset,
    head,
    inner,
    is_compound,
    letters_in,
    mentioned_function,
    node_name,
    script_letters,
    tok_name,
)


class _Walk:
    def __init__(self, table: SymbolTable, formula: int):
        self.t, self.f, self.bound = table, formula, []
        self.mentions: set[int] = set()  # products that only name a function ($\Phi$ alone)

    def ev(self, node, text):
        return Evidence(self.f, first_offset(node), text)

    def index(self, tok, why):
        name = str(tok)
        if name in self.bound or self.t.kind(name) in ("size", "function"):
            return
        if not name[:1].islower():  # a capital letter is never an index unless declared
            return
        if name == "e" or len(name) > 1 and name not in ("alpha", "beta", "gamma", "mu", "nu"):
            return
        self.t.note(name, "index", self.ev(tok, why))

    def entries(self, base, node, why):
        if base is None:
            return
        self.t.indexed.add(base)
        info = self.t.get(base)
        kind = "matrix" if info and info.kind == "matrix" else "vector"
        self.t.note(base, kind, self.ev(node, why))

    def walk(self, node):
        if isinstance(node, Token):
            return
        handler = getattr(self, "on_" + node.data, None)
        if handler is not None and handler(node) is False:
            return
        for c in node.children:
            self.walk(c)

    def on_bigop(self, node):
        scripts = node.children[1].children
        var = None
        for kind, script in zip(scripts[::2], scripts[1::2], strict=True):
            body = inner(script)
            if kind.type == "SUB":
                if isinstance(body, Tree) and body.data == "script_rel":
                    var = letters_in(body.children[0])
                else:
                    var = script_letters(script) or []
            else:
                hi = tok_name(_single(body)) or self.named_bound(body)
                if hi and not self.t.is_index(hi):
                    self.t.note(hi, "size", self.ev(body, "the upper bound of a sum"))
        names = [str(v) for v in var or []]
        self.bound += names
        for c in node.children[1:]:
            self.walk(c)
        del self.bound[len(self.bound) - len(names):]
        return False

    def on_subscript(self, node):
        base, _, script = node.children
        name = head(base, self.t)
        letters = script_letters(script)
        if isinstance(base, Tree) and base.data in ("paren", "bracket"):
            for tok in letters or letters_in(inner(script)):
                self.index(tok, "the subscript of an entry of a result")
            return
        if name is None:
            return
        if is_compound(script):
            for tok in letters_in(inner(script)):
                self.index(tok, f"a letter of the compound subscript of {name}")
            self.entries(name, node, "has a compound subscript")
            return
        if not letters:
            return
        names = [str(x) for x in letters]
        if all(n in self.bound or self.t.is_index(n) for n in names):
            for n in names:
                if n not in self.bound and n not in self.t:
                    self.t.note(n, "index", self.ev(node, "a default index letter (i, j)"))
            self.entries(name, node, "subscripted by an index")
        elif len(names) == 1 and self.t.has_entries(name) and len(name) == 1:
            self.index(letters[0], f"the subscript of {name}, which has entries")
        if name == "e" and self.t.has_entries("e"):
            self.t.note("e", "vector", self.ev(node, "e has entries, so it is no Euler's number"))

    def on_dnum(self, node):
        # \frac{d\sigma}{dx}: the function differentiated, named without its argument — no value
        for c in node.children:
            if isinstance(c, Tree) and c.data == "product" and len(c.children) == 1 and \
                    tok_name(c.children[0]) in DEFAULT_FUNCTIONS:
                self.mentions.add(id(c))

    def on_superscript(self, node):
        base, _, script = node.children
        body = inner(script)
        name = head(base, self.t)
        if name and isinstance(body, Token) and body.type == "TOP":
            first = name[1] if self.t.is_gradient(name) else name[:1]
            kind = "matrix" if first.isupper() else "vector"
            info = self.t.get(name)
            if info is None or info.kind == "scalar" and not info.declared:
                self.t.note(name, kind, self.ev(node, "transposed as a whole"))

    def on_product(self, node):
        kids = node.children
        for k, c in enumerate(kids):
            base = c
            if isinstance(c, Tree) and c.data in ("superscript", "prime"):
                base = c.children[0]
            name = tok_name(base)
            if name not in DEFAULT_FUNCTIONS or id(node) in self.mentions:
                continue
            if c is not base and (c.data == "superscript" and _paren_next(kids, k)
                                  or c.data == "prime" and not _paren_next(kids, k)):
                continue  # \Phi^{-1}(p), \sigma' alone: the function named, no value
            nxt = kids[k + 1] if k + 1 < len(kids) else None
            # f'(x) applies f as much as f(x) does
            applied = (base is c or c.data == "prime") and isinstance(nxt, Tree) and (
                nxt.data == "paren" or nxt.data in ("subscript", "superscript") and
                isinstance(nxt.children[0], Tree) and nxt.children[0].data == "paren")
            self.t.note(name, "function" if applied else "scalar",
                        self.ev(c, "applied to an argument" if applied else "used as a symbol"))

    def on_chain(self, node):
        kids = node.children
        if len(kids) == 3 and str(kids[1]) == "∈":
            self.declaration(kids[0], kids[2])
        if len(kids) >= 3 and str(kids[1]) in ("=", ":="):
            value = _single(kids[2])
            name = tok_name(_single(kids[0]))
            if name and _single(kids[0]).type != "WORD" and isinstance(value, Tree) and \
                    value.data == "paren" and sum(isinstance(c, Token) and c.type == "COMMA"
                                                  for c in value.children[1].children):
                self.entries(name, kids[0], "given a tuple of values")  # x = (1, 2)
        if len(kids) == 3 and str(kids[1]) in ("=", ":="):
            self.sequence(kids[0], kids[2])
            same_size(self, kids[0], kids[2])
            lhs = kids[0]
            if isinstance(lhs, Tree) and lhs.data == "product" and len(lhs.children) == 2:
                f, arg = lhs.children
                if not (tok_name(f) and isinstance(arg, Tree) and arg.data == "paren" and
                        isinstance(f, Token) and f.type in ("LETTER", "SYMBOL")):
                    return
                if all(tok_name(_single(a)) for a in arg.children[1].children
                       if not isinstance(a, Token)):
                    self.t.note(str(f), "function", self.ev(f, "defined as a function here"))
                elif _one_term(arg) and not _mentions(arg, str(f)) and \
                        not _mentions(kids[2], str(f)):
                    # R(m\theta) = [matrix]: one term, and R occurs neither in it nor on the
                    # right, so R(…) = … defines R; a(b + c) = ab + ac, k(x - 1) = 0 and
                    # p(1 - p) = … stay products
                    self.t.note(str(f), "function", self.ev(
                        f, "defined as a function here (absent from its argument and the right "
                           "side)"))

    def sequence(self, lhs, rhs):
        """η_t = η_min + ½(η_max − η_min)(1 + cos(πt/T)): a one-letter subscript that the right
        side uses as a value, outside any script, is the variable η depends on — η has
        entries, t is an index (η_0 is then η's entry 0, not a name)."""
        one = _single(lhs)
        if not (isinstance(one, Tree) and one.data == "subscript"):
            return
        name = head(one.children[0], self.t)
        letters = script_letters(one.children[2])
        if name is None or not letters or len(letters) != 1 or is_compound(one.children[2]):
            return
        letter = str(letters[0])
        free = _free_letters(rhs)
        if letter not in free or name in free:
            return  # β_t = β^t: β would be a sequence and a number at once
        # t both a value and a subscript on the right (v̂_t = v_t/(1 − β₂^{t−1})): v_t is v's
        # entry at t as much; a letter a sum binds is not the variable of the left side
        if letter in bound_letters(rhs):
            return
        self.index(letters[0], f"the subscript of {name}, a value on the right side")
        if self.t.is_index(letter):
            self.entries(name, one, f"its subscript {letter} is a value on the right side")
            self.t.sequences.setdefault(name, letter)

    def declaration(self, lhs, rhs):
        one = _single(lhs)
        names = [head(one, self.t)] if isinstance(one, Token) and (
            one.type != "WORD" or head(one, self.t) == str(one)) else []
        if isinstance(one, Tree) and one.data == "subscript" and tok_name(one.children[0]) and \
                not is_compound(one.children[2]) and not any(
                    self.t.is_index(str(x)) for x in script_letters(one.children[2]) or ()):
            names = [node_name(one)]  # W_Q, W_1 \in \mathbb{R}^{…}: the name's own space
        names = [n for n in names if n]
        space = _single(rhs)
        if isinstance(space, Tree) and space.data == "set":
            items = [c for c in space.children[1].children if not isinstance(c, Token)
                     or c.type == "DOTS"]
            if len(items) >= 2 and len(names) == 1:
                self.range(names[0], items[0], items[-1], lhs)
            return
        dims = []
        if isinstance(space, Tree) and space.data == "superscript":
            if tok_name(space.children[0]) is not None or space.children[0].type != "REALS":
                return
            dims = _dims(inner(space.children[2]))
        elif not (isinstance(space, Token) and space.type == "REALS"):
            return
        dim_names = [node_name(d) or _multiple(d) for d in dims]
        if None in dim_names:
            return
        for d, name in zip(dims, dim_names, strict=True):
            if not name.isdigit():
                self.t.note(name.split("*")[-1], "size", self.ev(d, "a dimension of ℝ^…"))
        kind = "scalar" if not dims else "vector" if len(dims) == 1 else "matrix"
        for n in names:
            self.t.note(n, kind, self.ev(lhs, "declared ∈ ℝ" + ("^…" if dims else "")),
                        shape=tuple(dim_names))

    def named_bound(self, node):
        """A bound written as a name with a subscript (``d_k`` in ``\\sum_{i=1}^{d_k}``,
        ``i = 1, \\dots, d_k``), its subscript no index: that name, a size; else None."""
        name = node_name(node)
        if not name or "_" not in name or self.t.is_index(name.split("_", 1)[1]):
            return None
        return name

    def range(self, name, lo, hi, node):
        hi_name = tok_name(_single(hi)) or self.named_bound(hi)
        if hi_name:
            self.t.note(hi_name, "size", self.ev(hi, f"the upper end of {name}'s range"))
        lo_text, hi_text = _bound_text(lo), _bound_text(hi)
        if lo_text and hi_text:
            self.t.note(name, "index", self.ev(node, "a range is declared"),
                        range=(lo_text, hi_text))

    def on_start(self, node):
        items = [c for c in node.children if isinstance(c, Tree)]
        if items and all(mentioned_function(item) is not None for item in items):
            # "$\Phi$ is the normal CDF", "$f, g$ are functions": named, no value used
            self.mentions.update(id(item.children[0]) for item in items)
        run = []  # x, y, z ∈ ℝ^d: the bare symbols before a declaration share it
        for item in items:
            kids = item.children
            if item.data == "chain" and len(kids) == 3 and str(kids[1]) == "∈":
                for lhs in run:
                    self.declaration(lhs, kids[2])
            run = run + [kids[0]] if item.data == "chain" and len(kids) == 1 and (isinstance(
                _single(kids[0]), Token) or node_name(kids[0])) else []
        for a, b, c in zip(items, items[1:], items[2:], strict=False):
            if a.data == "chain" and b.data == "dots_item" and c.data == "chain" and \
                    len(a.children) == 3 and str(a.children[1]) == "=" and len(c.children) == 1:
                name = tok_name(_single(a.children[0]))
                if name:
                    self.range(name, a.children[2], c.children[0], a)
