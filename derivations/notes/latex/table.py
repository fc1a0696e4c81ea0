"""The symbol table: what each symbol of a note is, and what that rests on.

A :class:`SymbolTable` is filled by :func:`.notetable.infer` from a note's formulas and corrected by
the note's ``symbols`` block (:func:`parse_overrides`).  It may answer what a name is and give
its SymPy object; it may not read formulas itself.  Every entry says what it rests on; a name
with two incompatible kinds is a conflict, listed, and never resolved silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy as sp

from derivations.notes.latex.lexicon import GRADIENT
from derivations.notes.reasons import kind_word, say

KINDS = ("scalar", "size", "index", "vector", "matrix", "function", "name")
DEFAULT_FUNCTIONS = ("f", "g", "h", "sigma", "phi", "varphi", "Phi", "psi")
DEFAULT_INDICES = ("i", "j")


@dataclass(frozen=True)
class Evidence:
    """Where a decision comes from: formula number (-1: the symbols block), offset, and why."""

    formula: int
    offset: int
    text: str

    def __str__(self):
        if self.formula < 0:
            return self.text
        return f"{self.text} (formula {self.formula + 1})"


@dataclass
class SymbolInfo:
    name: str
    kind: str = "scalar"
    shape: tuple = ()
    range: tuple | None = None
    random: bool = False
    declared: bool = False
    rests_on: list = field(default_factory=list)

    def describe(self) -> str:
        kind = self.kind
        if self.shape:
            kind += " " + "×".join(str(s) for s in self.shape)
        if self.range:
            kind += f" in {self.range[0]}..{self.range[1]}"
        return kind + (" (random)" if self.random else "")


class OverrideError(ValueError):
    """A line of a symbols block that cannot be read."""


@dataclass(frozen=True)
class Declaration:
    line: int
    kind: str
    names: tuple
    range: tuple | None = None
    shape: tuple = ()
    law: str = ""  # random q, k ~ N(0, 1): the law of each (of each entry), as LaTeX


@dataclass(frozen=True)
class Overrides:
    declarations: tuple = ()


def _dim(text):
    factor, _, name = str(text).rpartition("*")  # 4*d: a multiple of a size
    if factor.isdigit():
        return sp.Integer(int(factor)) * _dim(name)
    return sp.Integer(int(text)) if re.fullmatch(r"-?\d+", str(text)) else \
        sp.Symbol(str(text), integer=True, positive=True)


class SymbolTable:
    """Name → :class:`SymbolInfo`; gives each name its SymPy object by its kind."""

    def __init__(self):
        self.entries: dict[str, SymbolInfo] = {}
        self.conflicts: dict[str, str] = {}
        self.indexed: set[str] = set()  # names used with entries (IndexedBase)
        self.gradient_names = False  # the note writes a gradient d + a name (dW, dx)
        # i: declared the imaginary unit; written other than leading a product (unknown: yes)
        self.imaginary, self.i_elsewhere = False, True
        self.letters: set[str] | None = None  # the letters the note writes on their own
        # name -> the variable of the sequence the note gives it (η_t = f(t): "eta" -> "t")
        self.sequences: dict[str, str] = {}

    # -- filling ---------------------------------------------------------------------------
    def get(self, name) -> SymbolInfo | None:
        return self.entries.get(name)

    def __getitem__(self, name) -> SymbolInfo:
        return self.entries[name]

    def __contains__(self, name):
        return name in self.entries

    def note(self, name, kind, evidence, **extra) -> SymbolInfo:
        """Record that ``name`` is of ``kind``; a declared kind wins, a clash is a conflict."""
        info = self.entries.get(name)
        if info is None:
            info = self.entries[name] = SymbolInfo(name, kind, **extra)
            info.rests_on.append(evidence)
            return info
        if info.declared and evidence.formula >= 0:
            return info
        if info.kind != kind and not _compatible(info.kind, kind):
            if evidence.formula < 0:
                info.kind = kind
            else:
                self.conflicts.setdefault(
                    name, say("read.conflict", name=name, kind=kind_word(info.kind),
                              first_evidence=str(info.rests_on[0]), other=kind_word(kind),
                              second_evidence=str(evidence)))
                return info
        if _rank(kind) > _rank(info.kind):
            info.kind = kind
        for key, value in extra.items():
            if value and not getattr(info, key):
                setattr(info, key, value)
        # each piece of evidence once: z_i written four times in one formula is one reason
        if len(info.rests_on) < 4 and str(evidence) not in map(str, info.rests_on):
            info.rests_on.append(evidence)
        return info

    # -- reading ---------------------------------------------------------------------------
    def kind(self, name) -> str | None:
        info = self.entries.get(name)
        return info.kind if info else None

    def is_gradient(self, word) -> bool:
        """Whether a run ``dX`` or ``dx`` is the name of a gradient: always, unless both d and X
        are sizes (``dV``, a count of parameters, is then their product)."""
        if not GRADIENT.fullmatch(word) or self.kind(word) not in (
                None, "scalar", "vector", "matrix", "name"):
            return False
        return not (self.kind("d") == "size" and self.kind(word[1]) == "size")

    def declared(self, name) -> bool:
        info = self.entries.get(name)
        return bool(info and info.declared)

    def is_index(self, name) -> bool:
        if name not in self.entries:
            return name in DEFAULT_INDICES
        return self.kind(name) == "index"

    def is_function(self, name) -> bool:
        info = self.entries.get(name)
        if info is None:
            return name in DEFAULT_FUNCTIONS
        return info.kind == "function"

    def has_entries(self, name) -> bool:
        return name in self.indexed or self.kind(name) == "vector" or (
            self.kind(name) == "matrix" and name in self.indexed)

    def euler(self) -> bool:
        """Whether ``e`` is Euler's number (no entry makes it a symbol)."""
        return "e" not in self.entries

    def size_of(self, name):
        info = self.entries.get(name)
        if info and info.shape:
            return tuple(_dim(d) for d in info.shape)
        return None

    def symbol(self, name):
        """The SymPy object of ``name`` used as a whole."""
        info = self.entries.get(name)
        kind = info.kind if info else "index" if name in DEFAULT_INDICES else "scalar"
        if kind == "size":
            return sp.Symbol(name, integer=True, positive=True)
        if kind == "index":
            return sp.Symbol(name, integer=True)
        if kind in ("vector", "matrix"):
            shape = self.size_of(name)
            if kind == "matrix":
                # a matrix as a whole never commutes, even where the note also writes its
                # entries (A_{ij}): as an IndexedBase, AB = BA would hold
                return sp.MatrixSymbol(name, *shape) if shape else sp.Symbol(
                    name, commutative=False)
            if name in self.indexed or kind == "vector" and shape:
                return self.base(name)
            return sp.Symbol(name, commutative=False)
        return sp.Symbol(name, real=True)

    def base(self, name):
        """The IndexedBase of a name used with entries."""
        shape = self.size_of(name)
        if shape:
            return sp.IndexedBase(name, shape=shape, real=True)
        return sp.IndexedBase(name, real=True)

    def function(self, name):
        return sp.Function(name)

    def range_of(self, name):
        info = self.entries.get(name)
        if info and info.range:
            return tuple(_dim(b) for b in info.range)
        return None

    # -- printing --------------------------------------------------------------------------
    def rows(self) -> list[tuple[str, str, str]]:
        """(symbol, kind with shape or range, what it rests on), sorted by name."""
        out = []
        for name in sorted(self.entries):
            info = self.entries[name]
            why = "; ".join(str(e) for e in info.rests_on)
            if name in self.conflicts:
                why += f"; CONFLICT: {self.conflicts[name]}"
            out.append((name, info.describe(), why))
        return out

    def __str__(self):
        rows = [("symbol", "kind", "rests on"), *self.rows()]
        w0 = max(len(r[0]) for r in rows)
        w1 = max(len(r[1]) for r in rows)
        return "\n".join(f"{a:<{w0}}  {b:<{w1}}  {c}".rstrip() for a, b, c in rows)


_RANKS = {"name": 0, "scalar": 1, "vector": 2, "matrix": 3, "size": 2, "index": 2,
          "function": 2}


def _rank(kind):
    return _RANKS.get(kind, 0)


def _compatible(a, b):
    """Kinds that refine each other rather than clash (a scalar found later to be a vector)."""
    pair = {a, b}
    return pair <= {"scalar", "vector", "matrix", "name"} or pair <= {"size", "scalar", "name"}
