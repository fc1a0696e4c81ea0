"""The reading language of the notes reader: one LaTeX formula to SymPy, shown back.

The rules are READING.md beside this file.  Public names:

- ``infer(formulas, overrides)`` → :class:`SymbolTable`; ``parse_overrides(text)`` reads a
  ``symbols`` block;
- ``read(latex, table)`` → :class:`Understood` or :class:`NotUnderstood`;
- ``to_latex``, ``to_text``: the reading shown back;
- ``lower(expr, table)``: the vocabulary written out for the engine (:class:`NotLowered`);
- ``parse_expected(text, table)``, ``same_reading``, ``first_difference``: expected readings.
"""

from derivations.notes.latex.expected import (
    ExpectedError,
    first_difference,
    parse_expected,
    same_reading,
)
from derivations.notes.latex.nodes import (
    Approx,
    Chain,
    Define,
    EntryOf,
    Formulas,
    In,
    MaxOver,
    Norm,
    R,
    Range,
    odot,
)
from derivations.notes.latex.notetable import infer
from derivations.notes.latex.overrides import parse_overrides
from derivations.notes.latex.printer import table_text, to_latex, to_text
from derivations.notes.latex.reading import NotUnderstood, Reading, Understood, read
from derivations.notes.latex.table import (
    Evidence,
    OverrideError,
    Overrides,
    SymbolInfo,
    SymbolTable,
)
from derivations.notes.latex.vocabulary import NotLowered, lower

__all__ = [
    "Approx", "Chain", "Define", "EntryOf", "Evidence", "ExpectedError", "Formulas", "In",
    "MaxOver", "Norm", "NotLowered", "NotUnderstood", "OverrideError", "Overrides", "R",
    "Range", "Reading", "SymbolInfo", "SymbolTable", "Understood", "first_difference", "infer",
    "lower", "odot", "parse_expected", "parse_overrides", "read", "same_reading", "table_text",
    "to_latex", "to_text",
]
