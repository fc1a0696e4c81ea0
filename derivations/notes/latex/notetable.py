"""``infer(formulas, overrides)``: the symbol table of a whole note (READING.md §1).

The symbols block first, then what the formulas show one by one (:mod:`.infer`'s walk, repeated
while entries and indices feed each other), then what the note's definitions and gradient names
show once those are known (:mod:`.forward`, which reads definitions' bodies with the builder and
so comes after it).  It may not decide what a construct means itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from lark import Token

from derivations.notes.latex.forward import forward_shapes
from derivations.notes.latex.imaginary import other_uses, other_uses_in_source
from derivations.notes.latex.infer import _Walk
from derivations.notes.latex.lexicon import GRADIENT
from derivations.notes.latex.parser import ParseFailure, parse
from derivations.notes.latex.sizes import bold_entries
from derivations.notes.latex.table import DEFAULT_FUNCTIONS, Evidence, Overrides, SymbolTable
from derivations.notes.latex.tokens import TokenError


def infer(formulas: Sequence[str], overrides: Overrides | None = None) -> SymbolTable:
    """The symbol table of a note: what its formulas show, corrected by its symbols block."""
    table, trees = walk_note(formulas, overrides)
    forward_shapes(table, trees)
    return table


def walk_note(formulas: Sequence[str], overrides: Overrides | None = None):
    """The symbol table of what a note's formulas show, corrected by its symbols block, and the
    parse trees it rests on, ``(formula number, source, tree)`` (:func:`.notetable.infer` adds
    what definitions and gradients show)."""
    table = SymbolTable()
    if overrides is not None:
        apply_overrides(table, overrides)
    trees, unparsed = [], []
    for k, src in enumerate(formulas):
        try:
            trees.append((k, parse(src)))
        except (ParseFailure, TokenError):
            unparsed.append(src)  # it says nothing about its symbols, but may use i
    table.i_elsewhere = any(other_uses(tree) for _, tree in trees) or any(
        other_uses_in_source(src) for src in unparsed)
    tokens = [tok for _, tree in trees for tok in tree.scan_values(
        lambda v: isinstance(v, Token) and v.type in ("WORD", "LETTER"))]
    table.gradient_names = any(t.type == "WORD" and GRADIENT.fullmatch(t) for t in tokens)
    table.letters = {str(t) for t in tokens if t.type == "LETTER"}
    for _ in range(3):  # entries and indices feed each other
        before = {n: (i.kind, len(i.rests_on)) for n, i in table.entries.items()}, \
            len(table.indexed)
        for k, tree in trees:
            try:
                _Walk(table, k).walk(tree)
            except (AttributeError, IndexError, TypeError, ValueError):
                continue  # a tree the walk does not know says nothing; read() will refuse it
        after = {n: (i.kind, len(i.rests_on)) for n, i in table.entries.items()}, \
            len(table.indexed)
        if after == before:
            break
    for name, info in table.entries.items():
        if name in DEFAULT_FUNCTIONS and info.kind == "function" and any(
                "used as a symbol" in e.text for e in info.rests_on) and not info.declared:
            table.conflicts.setdefault(name, f"{name} is applied as a function and used as a "
                                             "plain symbol; declare it in the symbols block")
    bold_entries(table)
    return table, [(k, formulas[k], tree) for k, tree in trees]


def apply_overrides(table: SymbolTable, overrides: Overrides):
    for decl in overrides.declarations:
        ev = Evidence(-1, 0, f"declared (symbols block, line {decl.line})")
        if decl.kind == "imaginary":
            table.imaginary = True
            continue
        for name in decl.names:
            if decl.kind == "random":
                # random says nothing of the kind: a kind the block gives is declared, else
                # the formulas still tell it (q, k \in \mathbb{R}^{d_k}: random vectors)
                kind = table.kind(name)
                info = table.note(name, kind or "scalar", ev)
                info.random = True
                info.declared = kind is not None and info.declared
                continue
            info = table.note(name, decl.kind, ev, shape=decl.shape, range=decl.range)
            info.kind, info.declared = decl.kind, True
            if decl.shape:
                info.shape = decl.shape
            if decl.range:
                info.range = decl.range
            if decl.kind in ("vector",):
                table.indexed.add(name)
            table.conflicts.pop(name, None)
        for dim in (*decl.shape, *(decl.range or ())):
            if not dim.lstrip("-").isdigit() and table.kind(dim) not in ("size",):
                table.note(dim, "size", ev).declared = True
