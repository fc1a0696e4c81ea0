"""Checking a claim: every step against the one before, and every premise, in two routes.

* symbolically — the difference, after the rewrites of the assumptions the step cites and the
  definitions of expectation and variance, simplifies to zero within a budget of SymPy
  operations;
* numerically — both sides agree at ``POINTS`` sampled points (see
  :mod:`derivations.engine.numeric.pointwise`).

Symbolic success without numeric agreement is impossible; numeric agreement without symbolic
success is ``numeric`` (or ``timed out`` when a budget ran out), never ``proved``
(:mod:`derivations.engine.core.status`).  Each rewrite an assumption contributes is checked
numerically at its instances in the citing steps: a false one makes the claim ``failed`` naming
the premise; one that cannot be checked is reported "assumed, unchecked".

Every claim's checks start from an empty SymPy cache
(:func:`derivations.engine.budget.fresh_start`), so what they count, and so every budget's
outcome, depends on the claim alone: the same on any machine, at any load, in any order.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp

from derivations.engine.core import status as st
from derivations.engine.core.budget import (
    OverBudget,
    Use,
    fresh_start,
    peaks,
)
from derivations.engine.core.claim import Derivation
from derivations.engine.core.conditions import conditions
from derivations.engine.core.errors import DerivationError, Unseparated
from derivations.engine.core.printing import latex, legend
from derivations.engine.core.status import PREMISE_STATUSES, STATUSES
from derivations.engine.independence import REFUSED, numbers_only
from derivations.engine.numeric.pointwise import REPLACED_FROM, compare, safe_eval
from derivations.engine.numeric.probe import (
    APPROX_POINTS,
    approximate,
    fragile,
    fragile_operator,
    probe,
)
from derivations.engine.numeric.sampling import FEW_PROBE_SIZES, PROBE_SIZES, structures
from derivations.engine.premises import PremiseCheck, check_premises
from derivations.engine.symbolic.check import REFUTED_OPS, SYMBOLIC_OPS, symbolic_check_detail
from derivations.engine.trust import lemmas_where_cited, why_not_proved

__all__ = ["PREMISE_STATUSES", "STATUSES", "ChainResult", "PremiseCheck", "StepResult",
           "check_premises", "verify", "verify_many"]


@dataclass
class StepResult:
    index: int
    latex: str
    rule: str
    by: tuple[str, ...]
    symbolic: str  # one of status.SYMBOLIC_OUTCOMES
    numeric: str  # one of status.NUMERIC_OUTCOMES; partial: some points ran out of budget
    status: str  # one of status.STATUSES
    points: int
    counterexample: dict | None = None
    seconds: float = 0.0
    reason: str = ""  # why a step is not proved, when the route says more than its status
    # when a budget stopped a route: {"route": "symbolic" | "numeric", "by": "operations" |
    # "backstop", "limit": SymPy operations or CPU seconds, "points": points left out}
    timed_out: dict | None = None

    def to_dict(self) -> dict:
        return {
            "index": self.index, "latex": self.latex, "rule": self.rule, "by": list(self.by),
            "symbolic": self.symbolic, "numeric": self.numeric, "status": self.status,
            "points": self.points, "counterexample": self.counterexample, "reason": self.reason,
            "timed_out": self.timed_out,
        }


@dataclass
class ChainResult:
    derivation: Derivation
    steps: list[StepResult]
    seconds: float
    premises: dict[str, str] = field(default_factory=dict)  # cited claim id -> its status
    premise_checks: list[PremiseCheck] = field(default_factory=list)
    module: str = ""
    # kind of budget (symbolic, numeric, premises, probe) -> what its computations used
    usage: dict[str, Use] = field(default_factory=dict)
    # SymPy algorithms its numeric route tried to call and was refused (independence.FORBIDDEN);
    # such a point decided nothing, and the shipped claims' tests require there are none
    refused: tuple[str, ...] = ()
    # cited claim id -> why it is not proved (its first step or premise that is not), in a line
    premise_reasons: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.derivation.id

    @property
    def status(self) -> str:
        if self.failed_premise:
            return st.FAILED
        # a chain resting on an unproved premise is not proved; one resting on a failed claim is
        # no better than numeric (its own steps may all be right: its support is not)
        cited = [st.NUMERIC if s == st.FAILED else s for s in self.premises.values()]
        return st.worst([s.status for s in self.steps] + cited)

    @property
    def failed_step(self) -> int | None:
        return next((s.index for s in self.steps if s.status == "failed"), None)

    @property
    def failed_premise(self) -> str | None:
        return next((p.name for p in self.premise_checks if p.status == "failed"), None)

    @property
    def unchecked(self) -> list[str]:
        return [p.name for p in self.premise_checks if p.status == "assumed, unchecked"]

    def to_dict(self) -> dict:
        d = self.derivation
        defined = d.definitions_used
        return {
            "id": d.id, "title": d.title, "module": self.module or d.id.split("_")[0],
            "statement": latex(d.statement, defined, d.order),
            "definitions": legend(defined, d.order),
            "assumptions": [{"name": a.name, "text": a.text, "latex": a.latex, "kind": a.kind}
                            for a in d.assumptions],
            "conditions": conditions(d),
            "hypotheses": [latex(h, defined, d.order) for h in d.hypotheses],
            "premises": dict(self.premises),
            "premise_checks": [p.to_dict() for p in self.premise_checks],
            "unchecked": self.unchecked, "failed_premise": self.failed_premise,
            "status": self.status, "seconds": round(self.seconds, 3),
            "failed_step": self.failed_step, "steps": [s.to_dict() for s in self.steps],
        }


REPLACEMENTS = 20  # further points tried in place of those where a side is undefined


def _step_numeric(d, points, prev_expr, expr, prev_vals, vals, where: str):
    """(numeric, counterexample, reason, timed_out): points where a budget stopped an evaluation
    are left out and said so; points where a side is undefined (no precision of the ladder
    evaluates it) or where the two sides cannot be separated at the digits the numeric route
    may use are replaced by further points of the same structures and said so; only a real
    difference is a counterexample.  A step that could be compared at fewer than half of its
    points is refused; one left with points it could not separate is not proved."""
    counter, left_out, undefined = compare(d, points, prev_vals, vals)
    notes, unresolved = [], None
    if undefined and not counter:
        bad = [p for p, _ in undefined]
        errors = [e for _, e in undefined]
        found = 0
        for k in range(REPLACEMENTS):
            if found == len(bad):
                break
            structure = points[bad[k % len(bad)]]
            point = REPLACED_FROM + k
            a, b = safe_eval(d, prev_expr, point, structure), safe_eval(d, expr, point, structure)
            counter, stopped, still = compare(d, [structure], [a], [b])
            if counter:
                break
            errors += [e for _, e in still]
            found += not (stopped or still)
        defined = len(points) - len(left_out) - len(bad) + found
        separated = [e for e in errors if isinstance(e, Unseparated)]
        if not counter and defined < len(points) / 2:
            if separated:  # refused by the caller, unless the symbolic route shows it is zero
                return "unresolved", None, (
                    f"the two sides could be compared at only {defined} of "
                    f"{len(points) + REPLACEMENTS} points tried ({separated[0]}); the numeric "
                    f"route cannot tell them apart on most of the claim's domain — state the "
                    f"claim where its sides can be separated (a range of smaller arguments, "
                    f"symbolic sizes)"), _unseparated(separated, len(points) - defined)
            raise DerivationError(
                f"{where}: the two sides could be evaluated at only {defined} of "
                f"{len(points) + REPLACEMENTS} points tried ({undefined[0][1]}); the claim is "
                f"undefined on most of its domain — declare where it holds (ranges, a positive "
                f"symbol, a hypothesis)")
        if not separated:
            notes.append(f"undefined at {len(bad)} of {len(points)} points ({undefined[0][1]}); "
                         f"{found} replaced by other points")
        else:
            notes.append(f"cannot separate the two sides at {len(separated)} of the points "
                         f"tried ({separated[0]}); {found} of {len(bad)} replaced by other "
                         f"points")
            if found < len(bad) and not counter:
                unresolved = _unseparated(separated, len(bad) - found)
    if counter:
        return "disagree", counter, "", None
    if left_out:
        first = left_out[0]
        notes.append(f"{len(left_out)} of {len(points)} points left out: {first}; checked at "
                     f"the others")
        return "partial", None, "; ".join(notes), _stopped("numeric", first, len(left_out))
    if unresolved:
        return "partial", None, "; ".join(notes), unresolved
    return "agree", None, "; ".join(notes), None


def _unseparated(separated: list[Unseparated], points: int) -> dict:
    """The numeric route's stop, for a step left with points it could not separate."""
    first = separated[0]
    return {"route": "numeric", "by": first.by, "points": points,
            "limit": max(e.limit for e in separated if e.by == first.by)}


def _probe_sizes(symbolic: str, prev: sp.Basic, cur: sp.Basic) -> tuple:
    """The sizes past the sampled ones a step is probed at: all of them before it may end
    `numeric`; 7, 9 and 12 for a step the symbolic route proved that holds a fragile operator;
    none for one whose only fragile part is a sum's symbolic bounds (its index ends are probed
    at the sampled sizes)."""
    if symbolic != "zero":
        return PROBE_SIZES
    return FEW_PROBE_SIZES if fragile_operator(prev, cur) else ()


def _stopped(route: str, exc: OverBudget, points: int = 0) -> dict:
    return {"route": route, "by": exc.kind, "limit": exc.limit, "points": points}


def verify(d: Derivation, symbolic_ops: int = SYMBOLIC_OPS,
           progress: Callable[[str], None] | None = None,
           done: dict[str, ChainResult] | None = None, module: str = "") -> ChainResult:
    """Check every step of ``d``, its premises, and every claim it cites as a lemma (``done``
    memoizes them).  Both routes check ``d.checked``, the claim with its definitions unfolded;
    the steps are printed as written.  Runs in the main thread only: its budgets use a signal
    timer."""
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError(f"claim {d.id!r}: verify runs in the main thread only (its budgets "
                           f"use a signal timer, which reaches no other thread)")
    done = {} if done is None else done
    done.setdefault(d.id, None)  # in progress: a lemma that leads back here is a cycle
    try:
        return _verify(d, symbolic_ops, progress, done, module)
    finally:
        if done.get(d.id) is None:
            done.pop(d.id, None)


def _verify(d, symbolic_ops, progress, done, module) -> ChainResult:
    premises = {}
    for a in d.assumptions:
        if a.source is not None:
            if a.source.id in done and done[a.source.id] is None:
                chain = [k for k, v in done.items() if v is None]
                raise DerivationError(f"claim {d.id!r} cites lemma {a.source.id!r}, which leads "
                                      f"back to it: a cycle of lemmas "
                                      f"{' → '.join([*chain, a.source.id])}")
            if a.source.id not in done:
                done[a.source.id] = verify(a.source, symbolic_ops, progress, done)
            premises[a.source.id] = done[a.source.id].status
    reasons = {cid: why_not_proved(done[cid]) for cid, status in premises.items()
               if status != st.PROVED}
    fresh_start()
    start = time.perf_counter()
    written, d = d, d.checked
    refused = len(REFUSED)
    with numbers_only():
        points = structures(d)
    if approximate(d.expressions):
        # each value is a quadrature, a series or a limit, dear at every digit of the ladder:
        # six points at the small sizes and the two at the large one
        points = points[:APPROX_POINTS - 2] + points[-2:]
    random_bases = tuple(d.domain.random)
    prev_expr = d.lhs
    with numbers_only():
        prev_vals = [safe_eval(d, prev_expr, p, s) for p, s in enumerate(points)]
    results = []
    for n, step in enumerate(d.steps, start=1):
        t0 = time.perf_counter()
        with numbers_only():
            vals = [safe_eval(d, step.expr, p, s) for p, s in enumerate(points)]
            numeric, counter, reason, timed_out = _step_numeric(
                d, points, prev_expr, step.expr, prev_vals, vals,
                f"claim {d.id!r}, step {n} ({step.rule!r})")
        rewrites = tuple(rw for a in d.assumptions if a.name in step.by for rw in a.rewrites)
        symbolic, detail, _, stopped = symbolic_check_detail(
            prev_expr, step.expr, rewrites, random_bases, d.domain.indices,
            min(symbolic_ops, REFUTED_OPS) if counter else symbolic_ops,
            own=None if counter else d.domain, hypotheses=d.hypotheses)
        if stopped is not None:
            timed_out = _stopped("symbolic", stopped)
        if not counter and (symbolic != "zero" or fragile(prev_expr, step.expr)):
            with numbers_only():
                counter = probe(d, prev_expr, step.expr, points, _probe_sizes(
                    symbolic, prev_expr, step.expr))
            if counter:
                numeric, reason = "disagree", f"found by the wider probe ({counter['probe']})"
        if numeric == "unresolved":  # most points could not be separated, none differ
            if symbolic != "zero":
                raise DerivationError(f"claim {d.id!r}, step {n} ({step.rule!r}): {reason}")
            numeric = "partial"  # shown zero by the symbolic route: timed out, not refused
        status = st.step_status(symbolic, numeric, counter)
        if timed_out and timed_out.get("points", 0) >= len(points) and status == st.NUMERIC:
            status = st.TIMED_OUT  # no point was compared: the numbers decided nothing
        if timed_out and timed_out["by"] in ("digits", "size") and status == st.NUMERIC:
            status = st.TIMED_OUT  # points the numbers could not separate decided nothing
        if not counter and symbolic != "zero":
            reason = "; ".join(r for r in (f"symbolic route: {symbolic}"
                                           + (f" ({detail})" if detail else ""), reason) if r)
        elif not counter and detail:  # proved by one of the route's own methods: which one
            reason = "; ".join(r for r in (f"symbolic route: {detail}", reason) if r)
        results.append(StepResult(
            index=n, latex=latex(written.steps[n - 1].expr, written.definitions_used,
                                       written.order),
            rule=step.rule, by=written.steps[n - 1].by, symbolic=symbolic,
            numeric=numeric, status=status, points=len(points), counterexample=counter,
            seconds=time.perf_counter() - t0, reason=reason,
            timed_out=timed_out if status == st.TIMED_OUT else None))
        prev_expr, prev_vals = step.expr, vals
    checks = lemmas_where_cited(d, check_premises(d), premises)
    result = ChainResult(written, results, time.perf_counter() - start, premises, checks, module,
                         peaks(), tuple(REFUSED[refused:]), reasons)
    done[d.id] = result
    if progress:
        progress(f"{d.id}: {result.status} ({len(results)} steps, {result.seconds:.2f} s)")
    return result


def verify_many(claims, progress: Callable[[str], None] | None = None,
                done: dict[str, ChainResult] | None = None,
                module_of: Callable[[Derivation], str] = lambda d: "") -> list[ChainResult]:
    """Verify each claim once, in order: a claim listed twice, or cited as a lemma by several
    (``done`` memoizes results by id, across calls when the caller keeps it), is verified once.
    ``module_of`` names the module a claim comes from, for its result."""
    done = {} if done is None else done
    out = []
    for d in claims:
        if d.id not in done:
            verify(d, progress=progress, done=done, module=module_of(d))
        result = done[d.id]
        result.module = result.module or module_of(d)  # first verified as another's lemma
        out.append(result)
    return out
