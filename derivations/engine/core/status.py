"""The status words: one vocabulary for the engine, the command line and the report.

A step or a claim is

* ``proved`` — the symbolic route showed the difference is zero and the numbers agree at every
  point (and every claim it cites is proved);
* ``numeric`` — the numbers agree, but the symbolic route finished without showing zero;
* ``timed out`` — the numbers agree as far as they were computed, but a route ran out of its
  budget (see :mod:`derivations.engine.core.budget`): SymPy operations, the numeric route's work,
  or the digits within which it can tell the two sides apart — at some points they could not be
  separated (:class:`~derivations.engine.core.errors.Unseparated`), and an agreement there
  proves nothing.  More budget might prove it, nothing was decided;
* ``failed`` — some step differs from the one before it at a point, or a premise is false.

The claim's status is the worst of its steps' and its cited claims', in the order of ``RANK``:
a claim with one step that SymPy could not show and another that ran out of budget is
``numeric``, since more budget would not prove it.
"""

from __future__ import annotations

PROVED, NUMERIC, TIMED_OUT, FAILED = "proved", "numeric", "timed out", "failed"
STATUSES = (PROVED, NUMERIC, TIMED_OUT, FAILED)  # in the order a report lists them
RANK = {PROVED: 0, TIMED_OUT: 1, NUMERIC: 2, FAILED: 3}

# what each route says of one step
SYMBOLIC_OUTCOMES = ("zero", "inconclusive", "timeout", "error")
# partial: some points ran out of budget, or could not be separated within the digits allowed
NUMERIC_OUTCOMES = ("agree", "disagree", "partial")

PREMISE_STATUSES = ("checked", "failed", "assumed, unchecked", "lemma")


def worst(statuses) -> str:
    """The status of a whole made of parts with these statuses (``proved`` if there are none)."""
    return max(statuses, key=RANK.__getitem__, default=PROVED)


def step_status(symbolic: str, numeric: str, counterexample) -> str:
    """A step's status from what the two routes said."""
    if counterexample:
        return FAILED
    if symbolic == "zero":
        return PROVED if numeric == "agree" else TIMED_OUT
    return TIMED_OUT if symbolic == "timeout" else NUMERIC
