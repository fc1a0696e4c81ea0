"""Sub- and superscripts: entries or names, labels, powers and transposes (READING.md §1).

A mixin of :class:`.builder.Builder`.  It may decide, by the symbol table, whether ``x_s`` is an
entry or a name, whether ``x^s`` is a label, a transpose or a power; it may not guess where the
rules are silent: it refuses instead.
"""

from __future__ import annotations

import sympy as sp
from lark import Token, Tree

import derivations.notes.latex.nodes as N
from derivations.notes.latex.trees import _script_name, inner, is_compound, script_letters
from derivations.notes.reasons import kind_word, say


class Scripts:
    def scripts_on_result(self, result, post):
        for kind, script in post:
            if kind == "SUB":
                idx = self.indices(script)
                result = N.EntryOf(result, *idx)
            else:
                result = self.power(result, script, script)
        return result

    def indices(self, script):
        self.in_script += 1
        try:
            return self._indices(script)
        finally:
            self.in_script -= 1

    def _indices(self, script):
        letters = script_letters(script)
        if letters is not None:
            return [self.sym(str(x), x) for x in letters]
        node = inner(script)
        while isinstance(node, Tree) and node.data in ("list", "product") and \
                len(node.children) == 1:
            node = node.children[0]
        if isinstance(node, Tree) and node.data == "paren":  # PE_{(pos, 2i)}
            node = node.children[1]
        if isinstance(node, Tree) and node.data == "list":
            return [self.ex(c) for c in node.children if not isinstance(c, Token)]
        return [self.ex(node)]

    # -- postfix -------------------------------------------------------------------------------
    def x_subscript(self, node):
        return self.postfix(node)

    x_superscript = x_prime = x_subscript

    def postfix(self, node):
        scripts, primes, top = [], 0, node
        while isinstance(node, Tree) and node.data in ("subscript", "superscript", "prime"):
            if node.data == "prime":
                primes += 1
            else:
                scripts.insert(0, (str(node.children[1]) == "_", node.children[2]))
            node = node.children[0]
        subs = [s for is_sub, s in scripts if is_sub]
        sups = [s for is_sub, s in scripts if not is_sub]
        if len(subs) > 1 or len(sups) > 1:
            self.refuse(top, say("read.double_script"))
        if isinstance(node, Token) and node.type in ("LETTER", "SYMBOL", "TEXTWORD", "WORD"):
            return self.symbol_with_scripts(node, subs, sups, primes, top)
        if primes:
            self.refuse(top, say("read.prime_expression"))
        result = self.ex(node)
        if isinstance(node, Tree) and node.data == "norm" and subs:
            p = inner(subs[0])
            result = N.Norm(result.args[0], "F" if str(p) == "F" else self.ex(p))
            subs = []
        elif subs and not (isinstance(node, Tree) and node.data in ("paren", "bracket")):
            self.refuse(top, say("read.subscript_expression"))
        for s in subs:
            result = N.EntryOf(result, *self.indices(s))
        for s in sups:
            result = self.power(result, s, top)
        return result

    def symbol_with_scripts(self, tok, subs, sups, primes, top):
        name = str(tok)
        if name == "i" and tok.start_pos in self.imaginary_at and not subs and not sups:
            return sp.I
        if name == "infty" and tok.type == "SYMBOL":
            self.refuse(tok, say("read.infinity"))
        if tok.type == "WORD" and not self.known_word(name):
            if len(name) > 2:
                self.refuse(tok, say("read.no_name", name=name))
            alone = self.t.letters
            if name.islower() and alone is not None and not (set(name) <= alone):
                missing = " and ".join(sorted({c for c in name if c not in alone}))
                self.refuse(tok, say("read.two_letters", name=name, first=name[0],
                                     second=name[1], missing=missing))
            first = self.sym(name[0], tok)
            last = Token("LETTER", name[1], start_pos=tok.start_pos + 1)
            return N.mul(first, self.symbol_with_scripts(last, subs, sups, primes, top))
        sup = sups[0] if sups else None
        if sup is not None:
            label = self.label(sup)
            if label is not None:
                name, sup = f"{name}^{label}", None
            else:
                self.check_power_of(name, sup, bool(subs))
        name += "_prime" * primes
        if subs:
            s = subs[0]
            sub_name = _script_name(s)
            entry = None
            if sub_name is not None and self.t.kind(f"{name}_{sub_name}") is not None and \
                    self.t[f"{name}_{sub_name}"].declared:
                entry = None
            elif is_compound(s):
                entry = self.indices(s)
            else:
                letters = script_letters(s)
                for x in letters or ():
                    if str(x) in self.t.conflicts and str(x) not in self.bound:
                        # p_y with y a vector and an index: an entry or a name, by that choice
                        self.refuse(x, self.t.conflicts[str(x)])
                if letters and all(str(x) in self.bound or self.t.is_index(str(x))
                                   for x in letters):
                    entry = [self.sym(str(x), x) for x in letters]
                elif int_of(inner(s)) is not None and self.t.has_entries(name):
                    number = int_of(inner(s))
                    shape = self.t.size_of(name)
                    if number >= 10 and not (shape and len(shape) == 1):
                        # S_{11}: row 1, column 1 as often as entry eleven
                        self.refuse(s, say("read.two_digits", name=name, number=number,
                                           row=str(number)[0], column=str(number)[1:]))
                    entry = [sp.Integer(number)]
                elif letters and len(letters) == 1 and self.t.has_entries(name) and \
                        self.t.kind(str(letters[0])) == "size":
                    entry = [self.sym(str(letters[0]), letters[0])]  # x_L, the last of x_0 … x_L
                elif letters and len(letters) == 1 and self.last_of_sequence(name, str(letters[0])):
                    entry = [self.sym(str(letters[0]), letters[0])]  # η_T, η_t = f(t) at t = T
            if entry is None and sub_name is None:
                self.refuse(s, say("read.subscript_neither"))
            if entry is not None:
                if name == "delta" and len(entry) == 2 and not (
                        "delta" in self.t and self.t["delta"].declared):
                    result = sp.KroneckerDelta(*entry, evaluate=False)
                else:
                    if name in self.t.conflicts:
                        self.refuse(tok, self.t.conflicts[name])
                    result = self.t.base(name)[tuple(entry)]
            else:
                result = self.sym(f"{name}_{sub_name}", tok)
        else:
            result = self.sym(name, tok)
        if sup is not None:
            result = self.power(result, sup, top)
        return result

    def last_of_sequence(self, name, letter) -> bool:
        """``η_T`` where the note gives ``η_t = f(t)``: the capital of the sequence's variable
        is where ``t`` runs to, and ``η_T`` that sequence's entry there (never a new name)."""
        variable = self.t.sequences.get(name)
        return variable is not None and letter == variable.upper() != variable and \
            self.t.kind(letter) in (None, "scalar", "size", "index") and \
            letter not in self.t.conflicts

    def check_power_of(self, name, sup, entry):
        """``W^V`` with V a size, ``e^{x}`` with e subscripted elsewhere: a power only of what the
        table knows as a number."""
        node = _bare(inner(sup))
        known = not entry and self.t.kind(name) in ("scalar", "size", "index")
        if isinstance(node, Token) and node.type == "LETTER" and node.isupper() and \
                node != "T" and not known:
            self.refuse(node, say("read.power_or_label", node=node, name=name,
                                  kind=kind_word(self.t.kind(str(node)))))
        if name == "e" and not entry and "e" in self.t and not self.t.declared("e"):
            self.refuse(sup, say("read.euler"))

    def label(self, sup):
        node = inner(sup)
        if isinstance(node, Tree) and node.data == "list" and len(node.children) == 1:
            node = node.children[0]
        if isinstance(node, Tree) and node.data == "product" and len(node.children) == 1:
            node = node.children[0]
        if isinstance(node, Tree) and node.data == "bracket":
            self.refuse(node, say("read.bracket_label"))
        if isinstance(node, Tree) and node.data == "paren":
            items = node.children[1].children
            one = items[0] if len(items) == 1 else None
            one = one.children[0] if isinstance(one, Tree) and len(one.children) == 1 else one
            if isinstance(one, Token) and one.type in ("LETTER", "NUMBER"):
                if str(one) in self.bound:
                    self.refuse(one, say("read.label_bound", one=one))
                return f"({one})"
            self.refuse(node, say("read.paren_label"))
        if isinstance(node, Token) and node.type == "LETTER" and node.isupper() and node != "T" \
                and self.t.kind(str(node)) not in ("size", "scalar", "index"):
            return str(node)
        if isinstance(node, Token) and node.type == "TEXTWORD" and \
                not self.src.startswith("\\operatorname", node.start_pos):
            return str(node)  # y^{\text{LS}}: an upright word is a label
        return None

    def power(self, base, sup, where):
        node = inner(sup)
        if isinstance(node, Tree) and node.data == "list" and len(node.children) == 1:
            node = node.children[0]
        if isinstance(node, Tree) and node.data == "product" and len(node.children) == 1:
            node = node.children[0]
        if isinstance(node, Token) and node.type == "TOP":
            return N.transpose(base)
        if isinstance(node, Token) and node.type == "WORD" and base is not sp.E and \
                not self.known_word(str(node)):
            self.refuse(node, say("read.word_label", node=node, product='·'.join(str(node))))
        if isinstance(node, Token) and str(node) == "T" and node.type == "LETTER":
            kind = self.t.kind("T")
            if kind not in ("size", "scalar", "index"):
                self.note("^T read as a transpose")
                return N.transpose(base)
            # an entry q_i^T is as often a row transposed as a power: only a symbol the table
            # knows as a number takes the power T
            known = isinstance(base, sp.Symbol) and self.t.kind(base.name) in (
                "scalar", "size", "index")
            if N.is_matrix(base) or not base.is_commutative or not known:
                self.refuse(node, say("read.power_or_transpose"))
        return N.power(base, self.ex(node))


def int_of(node):
    """The whole number a script is, or None."""
    while isinstance(node, Tree) and node.data in ("list", "product") and len(node.children) == 1:
        node = node.children[0]
    if isinstance(node, Token) and node.type == "NUMBER" and str(node).isdigit():
        return int(str(node))
    return None


def _bare(node):
    while isinstance(node, Tree) and node.data in ("list", "product") and len(node.children) == 1:
        node = node.children[0]
    return node
