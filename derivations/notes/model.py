"""What the notes reader says of a note: one verdict per formula, in one vocabulary.

A formula's verdict is one of the engine's statuses (``proved``, ``numeric``, ``timed out``,
``failed``: its links were checked as claims are) or ``definition`` (it gives a new symbol its
meaning; later formulas are checked with it unfolded), ``not checkable`` (it states nothing the
engine can check — an expression, a declaration, a condition, a value for an example, a symbol
the note never introduces — and the reason says which), ``not understood`` (the LaTeX reader
refused it, naming the token and why).  The same words appear in the terminal, in ``--json`` and
on the annotated page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from derivations.notes.reasons import data_of, from_data
from derivations.notes.verdicts import (  # noqa: F401 - this module's face shows them too
    APPROX_MARK,
    DEFINITION,
    MARKS,
    NOT_CHECKABLE,
    NOT_UNDERSTOOD,
    RANK,
    STATUSES,
    VERDICTS,
    worst,
)


@dataclass(frozen=True)
class Link:
    """One checked link of a formula: ``lhs relation rhs``, its status and, when it failed, the
    point where the two sides differ."""

    index: int  # 1-based within the formula
    relation: str
    lhs: str  # LaTeX
    rhs: str
    status: str
    reason: str = ""
    counterexample: dict | None = None
    # the definitions the check unfolded: name -> "line N: LaTeX" of the formula that made it
    definitions: dict = field(default_factory=dict)
    # for a failed link: the engine claim that failed, as Python source (derivations.notes.errata
    # writes it to a claims file the errata report verifies)
    claim: str = ""

    def to_dict(self) -> dict:
        return {"index": self.index, "relation": self.relation, "lhs": self.lhs,
                "rhs": self.rhs, "status": self.status, "reason": self.reason,
                "counterexample": self.counterexample, "definitions": dict(self.definitions),
                "claim": self.claim, "reason_said": data_of(self.reason)}

    @classmethod
    def from_dict(cls, data: dict, index: int | None = None) -> Link:
        """A link from its ``to_dict()``, its reason keyed again where it was (``index``: a
        new index in place of the one it had)."""
        fields = {k: v for k, v in data.items() if k not in ("reason_said", "index")}
        fields["reason"] = from_data(data.get("reason_said")) or data["reason"]
        return cls(data["index"] if index is None else index, **fields)


@dataclass(frozen=True)
class FormulaResult:
    index: int
    start: int
    end: int
    line: int
    latex: str
    display: bool
    reading: str  # the reading, LaTeX ("" when not understood)
    verdict: str
    reason: str
    links: tuple[Link, ...] = ()
    approx: bool = False  # its verdict rests on ≈ judged by the digits shown
    sentence: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"formula {self.index}: verdict: expected one of {list(VERDICTS)}, "
                             f"got {self.verdict!r}")

    @property
    def mark(self) -> str:
        return APPROX_MARK if self.approx and self.verdict == "proved" else MARKS[self.verdict]

    @property
    def given(self) -> bool:
        """Not checked because the note gives it (a value for an example, a recursion): nothing
        is wrong with it, unlike a statement the reader cannot check."""
        key = (data_of(self.reason) or {}).get("key", "")
        return self.verdict == NOT_CHECKABLE and (key.startswith("check.gives_")
                                                  or key == "check.recursion")

    @property
    def failed_links(self) -> list[Link]:
        return [k for k in self.links if k.status == "failed"]

    def to_dict(self) -> dict:
        out = {"index": self.index, "start": self.start, "end": self.end, "line": self.line,
               "latex": self.latex, "display": self.display, "reading": self.reading,
               "verdict": self.verdict, "reason": self.reason,
               "reason_said": data_of(self.reason), "mark": self.mark,
               "links": [k.to_dict() for k in self.links]}
        failed = self.failed_links
        if failed:
            out["failed_link"] = failed[0].to_dict()
            out["counterexample"] = failed[0].counterexample
        return out


@dataclass(frozen=True)
class SymbolRow:
    """One line of a note's symbol table: what a symbol is taken to be and on what it rests."""

    name: str  # LaTeX
    kind: str  # size, index, scalar, vector, matrix, parameter, random variable, function, …
    shape: str = ""
    rests_on: str = ""  # what the inference rests on (a formula, a sentence, the user's block)

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "shape": self.shape,
                "rests_on": self.rests_on}


@dataclass
class NoteResult:
    path: str
    text: str
    formulas: list[FormulaResult]
    symbols: list[SymbolRow] = field(default_factory=list)
    title: str = ""
    seconds: float = 0.0
    cached: int = 0  # formulas whose verdict came from the cache

    def counts(self) -> dict[str, int]:
        return count(self.formulas)

    def to_dict(self) -> dict:
        return {"path": self.path, "title": self.title, "counts": self.counts(),
                "formulas": [f.to_dict() for f in self.formulas],
                "symbols": [s.to_dict() for s in self.symbols]}

    @classmethod
    def from_dict(cls, data: dict, text: str) -> NoteResult:
        """A note's result from its ``to_dict()`` (a cached report stage) and its text."""
        formulas = []
        for f in data["formulas"]:
            links = tuple(Link.from_dict(x) for x in f["links"])
            formulas.append(FormulaResult(
                f["index"], f["start"], f["end"], f["line"], f["latex"], f["display"],
                f["reading"], f["verdict"], from_data(f.get("reason_said")) or f["reason"], links,
                f["mark"] == APPROX_MARK and f["verdict"] == "proved"))
        return cls(data["path"], text, formulas, [SymbolRow(**s) for s in data["symbols"]],
                   data["title"])

    def _repr_html_(self) -> str:
        from derivations.notes.display import note_html

        return note_html(self)


def count(formulas) -> dict[str, int]:
    return {v: sum(1 for f in formulas if f.verdict == v) for v in VERDICTS}


@dataclass
class NotesResult:
    notes: list[NoteResult]
    seconds: float = 0.0

    @property
    def formulas(self) -> list[FormulaResult]:
        return [f for n in self.notes for f in n.formulas]

    def counts(self) -> dict[str, int]:
        return count(self.formulas)

    @property
    def failed(self) -> list[tuple[NoteResult, FormulaResult]]:
        return [(n, f) for n in self.notes for f in n.formulas if f.verdict == "failed"]

    def to_dict(self) -> dict:
        return {"verdicts": list(VERDICTS), "counts": self.counts(),
                "notes": [n.to_dict() for n in self.notes]}

    def _repr_html_(self) -> str:
        from derivations.notes.display import notes_html

        return notes_html(self)
