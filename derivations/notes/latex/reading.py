"""``read(latex, table)``: one formula, understood or not, and the reading's kinds.

It may assemble a formula's pieces (separators, chains continued over aligned lines, ranges,
declarations of several symbols) and say which kind of reading each is.  It may not change what
:mod:`.builder` read: a refusal anywhere makes the whole formula ``NotUnderstood``.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from lark import Token, Tree

import derivations.notes.latex.nodes as N
from derivations.notes.latex.builder import Builder, Refusal
from derivations.notes.latex.guards import check_bare_list, check_comma_term, check_shape_alone
from derivations.notes.latex.imaginary import other_uses
from derivations.notes.latex.lawnames import law_after_sim
from derivations.notes.latex.parser import ParseFailure, parse
from derivations.notes.latex.table import SymbolTable
from derivations.notes.latex.tokens import TokenError
from derivations.notes.latex.trees import first_offset, mentioned_function, tok_name
from derivations.notes.reasons import say


@dataclass(frozen=True)
class Understood:
    """A formula read: its kind, the whole as SymPy, its pieces (a list), the defaults used."""

    source: str
    kind: str
    expr: sp.Basic
    pieces: tuple = ()
    notes: tuple = ()
    defines: sp.Basic | None = None

    ok = True

    @property
    def latex(self) -> str:
        from derivations.notes.latex.printer import to_latex

        return to_latex(self.expr)

    @property
    def text(self) -> str:
        from derivations.notes.latex.printer import to_text

        return to_text(self.expr)

    @property
    def links(self) -> tuple:
        if self.kind == "chain":
            return tuple(self.expr.args)
        if self.kind in ("relation", "definition"):
            return (self.expr,)
        return ()

    @property
    def terms(self) -> tuple:
        links = self.links
        return tuple([links[0].args[0], *(r.args[1] for r in links)]) if links else ()


@dataclass(frozen=True)
class NotUnderstood:
    """A formula outside the language: the token, its offset in ``source``, and why."""

    source: str
    token: str
    offset: int
    why: str

    ok = False

    def __str__(self):
        return f"not understood at {self.offset} ({self.token!r}): {self.why}"


Reading = Understood | NotUnderstood


def read(latex: str, table: SymbolTable | None = None) -> Reading:
    """The reading of one formula under ``table`` (an empty table if None)."""
    table = table if table is not None else SymbolTable()
    try:
        tree = parse(latex)
        builder = Builder(table, latex)
        builder.i_elsewhere = other_uses(tree)
        pieces = _pieces(tree, builder)
    except (TokenError, ParseFailure, Refusal) as exc:
        return NotUnderstood(latex, exc.token, exc.offset, exc.why)
    except Exception as exc:  # noqa: BLE001 - SymPy refusing a node must not stop a whole note
        # a shape or rank mismatch, an argument of the wrong kind: said, never a reading
        return NotUnderstood(latex, latex, 0, say("read.sympy",
                                                  error=f"{type(exc).__name__}: {exc}"))
    notes = list(builder.notes)
    stripped = latex.rstrip()
    if stripped.endswith((".", ",")) and not stripped.endswith("\\,"):
        notes.append(f"the final '{stripped[-1]}' is punctuation")
    if len(pieces) == 1:
        kind, expr, defines = pieces[0]
        return Understood(latex, kind, expr, (), tuple(notes), defines)
    parts = tuple(Understood(latex, k, e, (), (), d) for k, e, d in pieces)
    return Understood(latex, "list", N.Formulas(*[p.expr for p in parts]), parts, tuple(notes))


def _pieces(tree: Tree, b: Builder) -> list[tuple]:
    items = []  # (separator before, node)
    sep = None
    for c in tree.children:
        if isinstance(c, Token):
            if c.type == "PROSE":
                b.note(f"prose dropped: '{c}'")
            sep = c
            continue
        items.append((sep, c))
        sep = None
    check_bare_list(b, items)
    mention = mentioned_function(items[0][1]) if len(items) == 1 else None
    if mention is not None and b.t.is_function(str(mention)) and \
            str(mention) not in b.t.conflicts:
        b.note(f"{mention} only named: the symbol of that name")
        return [("expression", b.t.symbol(str(mention)), None)]
    out, k = [], 0
    while k < len(items):
        sep, node = items[k]
        if node.data == "dots_item":
            b.refuse(node, say("read.dots_range"))
        if k + 2 < len(items) and items[k + 1][1].data == "dots_item":
            out.append(_range(node, items[k + 2][1], b))
            k += 3
            continue
        if k + 3 < len(items) and items[k + 2][1].data == "dots_item" and \
                items[k + 1][1].data == "chain" and len(items[k + 1][1].children) == 1:
            out.append(_range(node, items[k + 3][1], b))  # i = 0, 1, …, n
            k += 4
            continue
        if node.data == "cont":
            if sep is not None and sep.type == "PROSE":
                b.refuse(node, say("read.after_prose", prose=sep))
            if not out or out[-1][0] not in ("relation", "chain", "definition", "expression"):
                b.refuse(node, say("read.continues_nothing"))
            prev = out.pop()
            out.append(_chain(b, None, node.children, prev=prev))
            k += 1
            continue
        j = k
        while j < len(items) and items[j][1].data == "chain" and \
                len(items[j][1].children) == 1 and _symbol_like(items[j][1].children[0]):
            j += 1
        if j > k and j < len(items) and _is_declaration(items[j][1]):
            decl = _chain(b, items[j][1], items[j][1].children)
            space = decl[1].args[1]
            for _, g in items[k:j]:
                out.append(("declaration", N.In(b.ex(g.children[0]), space), None))
            out.append(decl)
            k = j + 1
            continue
        if node.data == "chain" and len(node.children) == 1:
            check_shape_alone(b, node.children[0])
            check_comma_term(b, items, k)
        out.append(_chain(b, node, node.children))
        k += 1
    return out


def _symbol_like(node):
    node = _one(node)
    while isinstance(node, Tree) and node.data in ("subscript", "superscript"):
        node = node.children[0]
    return tok_name(node) is not None


def _one(node):
    while isinstance(node, Tree) and node.data in ("product",) and len(node.children) == 1:
        node = node.children[0]
    return node


def _is_declaration(node):
    return node.data == "chain" and len(node.children) == 3 and str(node.children[1]) == "∈"


def _chain(b: Builder, node, kids, prev=None):
    if prev is not None:
        kind, expr, defines = prev
        links = list(expr.args) if kind == "chain" else [expr] if kind != "expression" else []
        terms = [links[-1].args[1]] if links else [expr]
        kids = list(kids)
    else:
        links, defines = [], None
        terms = [b.ex(kids[0])]
        kids = list(kids[1:])
    ops = []
    for op, term in zip(kids[::2], kids[1::2], strict=True):
        if str(op) == "~":  # a law: only x ~ Law(…) alone, a declaration of what x is
            if len(kids) != 2 or prev is not None or len(terms) != 1:
                b.refuse(op, say("read.law_alone"))
            law = law_after_sim(b, term)
            return ("declaration", N.Distributed(terms[0], b.ex(term) if law is None else law),
                    None)
        if str(op) == "∈":
            if op is not kids[-2] or prev is not None:
                b.refuse(op, say("read.in_where"))
            if len(terms) == 1:
                return ("declaration", N.In(terms[0], _space(b, term)), None)
            links.extend(N.relation(o, lhs, rhs)
                         for o, lhs, rhs in zip(ops, terms, terms[1:], strict=False))
            links.append(N.In(terms[-1], _space(b, term)))
            first = links[0].args[0]
            return ("chain", N.Chain(*links), first if _definable(first) else None)
        ops.append(str(op))
        terms.append(b.ex(term))
    for op, lhs, rhs in zip(ops, terms, terms[1:], strict=False):
        _entry_against_values(b, node if node is not None else kids[0], lhs, rhs)
        links.append(N.relation(op, lhs, rhs))
    if not links:
        return ("expression", terms[0], None)
    first = links[0].args[0]
    if defines is None and _definable(first) and ops and ops[0] in ("=", ":="):
        defines = first
    if len(links) > 1:
        return ("chain", N.Chain(*links), defines)
    kind = "definition" if defines is not None or ops[:1] == [":="] else "relation"
    return (kind, links[0], defines)


def _entry_against_values(b: Builder, node, lhs, rhs):
    """``g_1 = (3, 4)`` with ``g`` having entries elsewhere: an entry, a number, cannot equal a
    tuple or a matrix — the note means ``g_1``, a vector of its own."""
    for entry, other in ((lhs, rhs), (rhs, lhs)):
        if isinstance(entry, sp.Indexed) and isinstance(other, (sp.Tuple, sp.MatrixBase)):
            name = f"{entry.base}_{'_'.join(map(str, entry.indices))}"
            b.refuse(node, say("read.entry_values", entry=entry, base=entry.base, name=name))


def _definable(x) -> bool:
    if isinstance(x, (sp.Symbol, sp.Indexed, sp.MatrixSymbol)):
        return True
    from sympy.core.function import AppliedUndef

    return isinstance(x, AppliedUndef) and all(isinstance(a, sp.Symbol) for a in x.args)


def _space(b: Builder, node):
    node = _one(node)
    if isinstance(node, Token) and node.type == "REALS":
        return N.R()
    if isinstance(node, Tree) and node.data == "superscript" and isinstance(
            node.children[0], Token) and node.children[0].type == "REALS":
        from derivations.notes.latex.trees import _dims, inner

        return N.R(*[b.ex(d) for d in _dims(inner(node.children[2]))])
    if isinstance(node, Tree) and node.data == "set":
        items = [c for c in node.children[1].children if not isinstance(c, Token)
                 or c.type == "DOTS"]
        if len(items) == 3 and isinstance(items[1], Token):
            return N.Range(b.ex(items[0]), b.ex(items[2]))
    b.refuse(node, say("read.after_in"))


def _range(lhs_node, hi_node, b: Builder):
    kids = lhs_node.children
    if lhs_node.data != "chain" or len(kids) != 3 or str(kids[1]) != "=" or \
            hi_node.data != "chain" or len(hi_node.children) != 1:
        b.refuse(lhs_node, say("read.range_form"))
    index = b.ex(kids[0])
    if not isinstance(index, sp.Symbol):
        b.refuse(lhs_node, say("read.range_variable"))
    return ("declaration", N.In(index, N.Range(b.ex(kids[2]), b.ex(hi_node.children[0]))),
            None)


__all__ = ["NotUnderstood", "Reading", "Understood", "first_offset", "read"]
