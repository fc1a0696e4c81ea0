"""The one place the note level meets the LaTeX reader (:mod:`derivations.notes.latex`).

The note level needs, for a whole note, a symbol table (what each symbol is and on what that
rests, corrected by the user's block) and, for each formula, a *reading*: its parts and the
relations between them (``a = b ≈ c``), each part as plain SymPy the engine checks (named
functions — softmax, σ, Var, LayerNorm — lowered), the reading printed in LaTeX, and each part's
LaTeX as written.  A formula the reader cannot read with certainty is ``not understood``, with
the token and why; the reader never guesses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import sympy as sp

from derivations.notes.model import SymbolRow

# relations the note level knows what to do with; the reader names them with these words
EQUAL, DEFINE, APPROX = "=", ":=", "≈"
ORDER = ("<", "≤", ">", "≥", "≠")
DECLARE = ("∈", "~", "⊂", "⊆", ":")
OTHER = ("→", "↦", "∝", "≡", "⇒", "⟺", "=>")


@dataclass(frozen=True)
class Reading:
    """A formula as the reader understood it.  ``parts`` has one more entry than ``relations``
    (a bare expression: one part, no relation)."""

    parts: tuple[sp.Basic, ...] = ()
    relations: tuple[str, ...] = ()
    printed: str = ""  # the reading in LaTeX, as the reader's printer writes it
    part_latex: tuple[str, ...] = ()  # each part's LaTeX as the note wrote it
    not_understood: str = ""  # "token `\\foo`: why"; empty when understood
    # a formula of several statements (``a = b,\quad c = d``): each its own reading
    pieces: tuple[Reading, ...] = ()
    unlowered: dict = field(default_factory=dict)  # part index -> why it cannot be lowered
    notes: tuple[str, ...] = ()  # the defaults the reading rests on, in the reader's words
    # whether the reader takes the first link as a candidate definition (a bare symbol, entry or
    # function of symbols on the left); None: the reader does not say, the note level decides
    defines: bool | None = None
    # the arguments of a function the formula defines, f(x) = …: x is its variable there
    bound: tuple[str, ...] = ()

    @property
    def understood(self) -> bool:
        return not self.not_understood


@dataclass
class NoteSymbols:
    """What a note's symbols are: the table shown to the reader, and what the engine needs to
    draw values — sizes, index ranges, random variables, ranges, constants."""

    rows: list[SymbolRow] = field(default_factory=list)
    known: set = field(default_factory=set)  # SymPy objects (Symbol, IndexedBase, MatrixSymbol…)
    dims: tuple = ()
    indices: dict = field(default_factory=dict)  # index symbol -> (low, high)
    random: dict = field(default_factory=dict)
    ranges: dict = field(default_factory=dict)
    constants: tuple = ()
    laws: dict = field(default_factory=dict)  # name -> its law, as text (Bernoulli(q))
    conditions: dict = field(default_factory=dict)  # name -> its law's conditions (σ² > 0)
    digest: str = ""  # a stable text of all of the above, for the cache key
    # the table's own words for a symbol it could not decide (e.g. two readings of one name)
    notes: list[str] = field(default_factory=list)
    # one side of a link read again (LaTeX -> plain SymPy, or None when it is not read): a side
    # with its decimals replaced by names, to bound it while they range over their roundings
    reread: Callable[[str], object] | None = None


class OverridesError(ValueError):
    """The user's symbols block is malformed: the reader's message, naming the line."""


class Reader(Protocol):
    """What the note level asks of the LaTeX reader."""

    version: str

    def symbols(self, text: str, formulas: list, path=None) -> NoteSymbols: ...

    def read(self, latex: str, symbols: NoteSymbols) -> Reading: ...
