"""``infer(formulas, overrides)``: the symbol table of a whole note (READING.md §1).

What the formulas show one by one (:mod:`.infer`), then what the note's definitions and gradient
names show once those are known (:mod:`.forward`, which reads definitions' bodies with the
builder and so comes after it).  It may not decide anything itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from derivations.notes.latex.forward import forward_shapes
from derivations.notes.latex.infer import walk_note
from derivations.notes.latex.table import Overrides, SymbolTable


def infer(formulas: Sequence[str], overrides: Overrides | None = None) -> SymbolTable:
    """The symbol table of a note: what its formulas show, corrected by its symbols block."""
    table, trees = walk_note(formulas, overrides)
    forward_shapes(table, trees)
    return table
