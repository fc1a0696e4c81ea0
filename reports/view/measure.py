"""How heavy the report's formulas are to read: the nesting depth of fractions and roots, and how
many symbols a formula shows (:mod:`derivations.tex`).

A handout reads badly when a formula stacks fractions inside fractions inside roots, or runs
over several lines; both are measured on every formula of an edition's view, as typeset.  The
build prints the summary (:func:`summary`); the tests hold the shipped claims to a bound.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from derivations.tex import depth, length
from reports.render.katex import Tex

# "claim 'softmax_jacobian' step 3": a formula's label names its claim and what it is
_LABEL = re.compile(r"^claim '([^']+)' (\w+)")

@dataclass(frozen=True)
class Measured:
    claim: str  # the claim's id
    kind: str  # statement, definition, step, final, assumption, condition, ...
    depth: int
    length: int
    tex: str


def claim_formulas(formulas: list[Tex]) -> list[Measured]:
    """The measures of every formula that belongs to a claim (by its label), each once: a view
    lists a claim both in its topic and among all claims."""
    out, seen = [], set()
    for f in formulas:
        found = _LABEL.match(f.label)
        if found and (f.label, f.tex) not in seen:
            seen.add((f.label, f.tex))
            out.append(Measured(found.group(1), found.group(2), depth(f.tex), length(f.tex),
                                f.tex))
    return out


@dataclass(frozen=True)
class Summary:
    formulas: int  # formulas of claims measured
    deepest: Measured | None  # the formula that nests deepest (the first, in page order)
    steps: int  # displayed steps
    median_step: float  # median length of a displayed step, in symbols
    page_formulas: int  # every formula of the page, the audit's and the prose's included
    page_depth: int  # how deep the deepest of those nests

    @property
    def line(self) -> str:
        deep = (f"max nesting {self.deepest.depth} ({self.deepest.kind} of "
                f"{self.deepest.claim})") if self.deepest else "none"
        return (f"{self.formulas} formulas of claims, {deep}, median step "
                f"{self.median_step:g} symbols over {self.steps} steps; "
                f"{self.page_formulas} formulas in all, max nesting {self.page_depth}")


def summary(formulas: list[Tex], claims: set[str] | None = None) -> Summary:
    """Depth and length over the formulas of ``claims`` (every claim by default), and the depth
    over every formula."""
    measured = [m for m in claim_formulas(formulas) if claims is None or m.claim in claims]
    deepest = max(measured, key=lambda m: m.depth, default=None)
    steps = [m.length for m in measured if m.kind == "step"]
    every = {(f.label, f.tex) for f in formulas}
    return Summary(len(measured), deepest, len(steps),
                   statistics.median(steps) if steps else 0.0, len(every),
                   max((depth(tex) for _, tex in every), default=0))
