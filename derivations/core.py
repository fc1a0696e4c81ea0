"""The derivation engine: a claim, its named assumptions, and a chain of steps checked twice.

A :class:`Derivation` is data.  ``verify`` compares every step with the one before it in two
independent ways:

* symbolically — the difference, after the rewrites of the assumptions the step cites and the
  definitions of expectation and variance, simplifies to zero within a time limit;
* numerically — both sides agree at ``POINTS`` random points evaluated at ``DIGITS`` digits, with
  symbolic dimensions and indices replaced by random small integers, matrices by explicit matrices
  and derivatives taken entry by entry on those explicit matrices.

The numeric route never uses SymPy's matrix calculus or the assumptions' rewrites, so a silent wrong
answer on the symbolic side (SymPy has returned zero for ``(Trace(F.T*F)-3).diff(F)``) shows up as a
disagreement, and the step is ``failed``.  Symbolic success without numeric agreement is impossible;
numeric agreement without symbolic success is ``numeric``, never ``proved``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import sympy as sp

from derivations.pointwise import DIGITS, MAX_DIM, NUMERIC_RTOL, POINTS
from derivations.pointwise import counterexample as _counterexample
from derivations.pointwise import safe_eval as _safe_eval
from derivations.pointwise import structures as structures_of
from derivations.symbolic import SYMBOLIC_SECONDS, symbolic_check

__all__ = [
    "ASSUMPTION_RULES", "DIGITS", "MAX_DIM", "NUMERIC_RTOL", "POINTS", "STATUSES",
    "SYMBOLIC_SECONDS", "KINDS", "Assumption", "ChainResult", "Derivation", "DerivationError",
    "Domain", "Step", "StepResult", "lemma", "symbolic_check", "verify", "with_step",
]


ASSUMPTION_RULES = frozenset(
    {"assumption", "independence", "stationarity", "identically distributed", "moments"}
)
STATUSES = ("proved", "numeric", "failed")


class DerivationError(ValueError):
    """A derivation is malformed; the message names the claim and the step."""


@dataclass(frozen=True)
class Assumption:
    """A named premise.  ``rewrites`` are (pattern, replacement) pairs — SymPy ``Wild`` allowed —
    that the symbolic check applies to steps citing it; the numeric check never uses them.

    kind: "hypothesis" (assumed, e.g. independence) or "lemma" (a true identity or an earlier
    claim).  A lemma with a ``source`` claim is only as good as that claim: a chain citing it is
    ``proved`` only if the source is too (see :func:`lemma`).
    """

    name: str
    text: str
    latex: str = ""
    rewrites: tuple[tuple[sp.Basic, sp.Basic], ...] = ()
    kind: str = "hypothesis"
    source: Derivation | None = field(default=None, compare=False, repr=False)


KINDS = ("hypothesis", "lemma")


def with_step(d: Derivation, index: int, expr: sp.Basic) -> Derivation:
    """``d`` with step ``index`` (1-based) replaced by ``expr``, rule and citations kept; replacing
    the last step replaces the statement's right-hand side too.  The result is validated anew."""
    if not 1 <= index <= len(d.steps):
        raise IndexError(f"claim {d.id!r} has steps 1..{len(d.steps)}, got {index}")
    steps = list(d.steps)
    steps[index - 1] = replace(steps[index - 1], expr=expr)
    statement = sp.Eq(d.lhs, expr, evaluate=False) if index == len(steps) else d.statement
    return replace(d, statement=statement, steps=tuple(steps))


def lemma(claim: Derivation) -> Assumption:
    """Cite a claim as the rewrite lhs -> rhs; verifying the citing chain verifies the claim too."""
    return Assumption(claim.id, f"Proved as claim {claim.id}.", sp.latex(claim.statement),
                      rewrites=((claim.lhs, claim.rhs),), kind="lemma", source=claim)


@dataclass(frozen=True)
class Step:
    expr: sp.Basic
    rule: str
    by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Domain:
    """How random points are drawn.

    dims: symbols that are sizes (drawn from 1..max_dim); integer symbols not named in
    ``indices`` are dims by default.  indices: index symbol -> (low, high), high may be a dim.
    ranges: symbol / IndexedBase / MatrixSymbol -> (low, high) for real values.
    random: Symbol or IndexedBase -> (mean, variance): independent normal random variables that
    ``E`` and ``Var`` are evaluated over on the numeric side.
    """

    dims: tuple[sp.Symbol, ...] = ()
    indices: dict = field(default_factory=dict)
    ranges: dict = field(default_factory=dict)
    random: dict = field(default_factory=dict)
    max_dim: int = MAX_DIM


@dataclass(frozen=True)
class Derivation:
    id: str
    title: str
    statement: sp.Eq
    assumptions: tuple[Assumption, ...]
    steps: tuple[Step, ...]
    domain: Domain = field(default_factory=Domain)

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def lhs(self) -> sp.Basic:
        return self.statement.lhs

    @property
    def rhs(self) -> sp.Basic:
        return self.statement.rhs


@dataclass
class StepResult:
    index: int
    latex: str
    rule: str
    by: tuple[str, ...]
    symbolic: str  # zero | inconclusive | timeout | error
    numeric: str  # agree | disagree
    status: str
    points: int
    counterexample: dict | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "index": self.index, "latex": self.latex, "rule": self.rule, "by": list(self.by),
            "symbolic": self.symbolic, "numeric": self.numeric, "status": self.status,
            "points": self.points, "counterexample": self.counterexample,
        }


@dataclass
class ChainResult:
    derivation: Derivation
    steps: list[StepResult]
    seconds: float
    premises: dict[str, str] = field(default_factory=dict)  # cited claim id -> its status

    @property
    def id(self) -> str:
        return self.derivation.id

    @property
    def status(self) -> str:
        states = {s.status for s in self.steps}
        if "failed" in states:
            return "failed"
        if "numeric" in states or set(self.premises.values()) - {"proved"}:
            return "numeric"  # a chain resting on an unproved premise is not proved
        return "proved"

    @property
    def failed_step(self) -> int | None:
        return next((s.index for s in self.steps if s.status == "failed"), None)

    def to_dict(self) -> dict:
        d = self.derivation
        return {
            "id": d.id, "title": d.title, "module": _module_of(d),
            "statement": sp.latex(d.statement),
            "assumptions": [{"name": a.name, "text": a.text, "latex": a.latex, "kind": a.kind}
                            for a in d.assumptions],
            "premises": dict(self.premises),
            "status": self.status, "seconds": round(self.seconds, 3),
            "failed_step": self.failed_step, "steps": [s.to_dict() for s in self.steps],
        }


def _module_of(d: Derivation) -> str:
    return getattr(d, "_module", "") or d.id.split("_")[0]


# --- validation -------------------------------------------------------------------------------

def _shape(expr: sp.Basic):
    if isinstance(expr, sp.Derivative):
        inner, var = _shape(expr.expr), expr.variables[0]
        if inner is None and isinstance(var, sp.MatrixSymbol):
            return var.shape
        if inner is not None and isinstance(var, sp.MatrixSymbol) and var.shape[1] == 1:
            return (inner[0], var.shape[0])
        return inner
    if isinstance(expr, sp.MatrixExpr | sp.MatrixBase):
        return tuple(expr.shape)
    return None


def _validate(d: Derivation) -> None:
    where = f"claim {d.id!r}"
    if not isinstance(d.statement, sp.Eq):
        raise DerivationError(f"{where}: statement must be a sympy Eq, got {type(d.statement)!r}")
    if not d.steps:
        raise DerivationError(f"{where}: a derivation needs at least one step, got none")
    declared = {a.name for a in d.assumptions}
    for a in d.assumptions:
        if a.kind not in KINDS:
            raise DerivationError(f"{where}: assumption {a.name!r} has kind {a.kind!r}, "
                                  f"expected one of {KINDS}")
    expected_shape = _shape(d.lhs)
    for n, step in enumerate(d.steps, start=1):
        at = f"{where}, step {n} ({step.rule!r})"
        if not isinstance(step.expr, sp.Basic | sp.MatrixBase):
            raise DerivationError(f"{at}: expected a SymPy expression, got {type(step.expr)!r}")
        missing = [name for name in step.by if name not in declared]
        if missing:
            raise DerivationError(f"{at}: cites undeclared assumption(s) {missing}; "
                                  f"declared: {sorted(declared)}")
        if step.rule in ASSUMPTION_RULES and not step.by:
            raise DerivationError(f"{at}: rule {step.rule!r} applies an assumption and must cite "
                                  f"one of {sorted(declared)} with by=(...)")
        got = _shape(step.expr)
        if got != expected_shape:
            raise DerivationError(f"{at}: shape mismatch, expected {expected_shape} "
                                  f"(shape of the left-hand side), got {got}")
    if d.steps[-1].expr != d.rhs:
        raise DerivationError(f"{where}: the last step must be the statement's right-hand side "
                              f"{d.rhs}, got {d.steps[-1].expr}")


# --- the chain --------------------------------------------------------------------------------

def verify(d: Derivation, symbolic_seconds: float = SYMBOLIC_SECONDS,
           progress: Callable[[str], None] | None = None,
           done: dict[str, ChainResult] | None = None) -> ChainResult:
    """Check every step of ``d``, and every claim it cites as a lemma (``done`` memoizes them)."""
    done = {} if done is None else done
    premises = {}
    for a in d.assumptions:
        if a.source is not None:
            if a.source.id not in done:
                done[a.source.id] = verify(a.source, symbolic_seconds, progress, done)
            premises[a.source.id] = done[a.source.id].status
    start = time.perf_counter()
    structures = structures_of(d)
    random_bases = tuple(d.domain.random)
    prev_expr = d.lhs
    prev_vals = [_safe_eval(d, prev_expr, p, s) for p, s in enumerate(structures)]
    results = []
    for n, step in enumerate(d.steps, start=1):
        t0 = time.perf_counter()
        vals = [_safe_eval(d, step.expr, p, s) for p, s in enumerate(structures)]
        counter = _counterexample(d, structures, prev_vals, vals)
        rewrites = tuple(rw for a in d.assumptions if a.name in step.by for rw in a.rewrites)
        symbolic = symbolic_check(prev_expr, step.expr, rewrites, random_bases,
                                  d.domain.indices, symbolic_seconds)
        status = "failed" if counter else "proved" if symbolic == "zero" else "numeric"
        results.append(StepResult(
            index=n, latex=sp.latex(step.expr), rule=step.rule, by=step.by, symbolic=symbolic,
            numeric="disagree" if counter else "agree", status=status, points=len(structures),
            counterexample=counter, seconds=time.perf_counter() - t0))
        prev_expr, prev_vals = step.expr, vals
    result = ChainResult(d, results, time.perf_counter() - start, premises)
    done[d.id] = result
    if progress:
        progress(f"{d.id}: {result.status} ({len(results)} steps, {result.seconds:.2f} s)")
    return result
