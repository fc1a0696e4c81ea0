"""Realistic wrong derivations, built from the real claims, that the engine must refuse to pass.

A mutant replaces ONE step of a claim by a plausible mistake — sign flip, transpose or order swap,
a dropped or squared factor, a wrong index or a missing Kronecker delta, ε inside the root, V
inside the softmax.  Replacing the last step replaces the statement's right-hand side with it, so
the claim itself is wrong.  A mutant is killed when ``verify`` reports its replaced step, checked
against the step before it, ``failed`` with a counterexample, or when the definition is refused
as malformed (a shape mismatch, raised as :class:`DerivationError` naming claim and step).
The mistakes themselves are listed per module in derivations/mutants/specs.py.

``python -m derivations.mutants [CLAIM ...]`` prints the kill table; exit 1 if any mutant
survives or a claim has fewer than ``MIN_MUTANTS``.
"""

from __future__ import annotations

import functools
import multiprocessing
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

import sympy as sp

import derivations
from derivations.cli import Parser
from derivations.engine import (
    Derivation,
    DerivationError,
    verify,
    with_step,
)
from derivations.mutants import specs as mutant_specs

MIN_MUTANTS = 3


@dataclass(frozen=True)
class Mutant:
    claim: str
    name: str
    step: int  # 1-based index of the replaced step
    expr: Callable[[], sp.Basic]  # lazy: a mistyped expression may raise when built

    def build(self, original: Derivation) -> Derivation:
        """The claim with step ``step`` replaced; a shape error of SymPy or of the typed blocks
        while building the wrong expression is a refusal, reported like the engine's."""
        where = f"claim {self.claim!r}, step {self.step} (mutant {self.name!r})"
        try:
            expr = self.expr()
        except sp.ShapeError as exc:
            raise DerivationError(f"{where}: shape mismatch while building: {exc}") from exc
        return with_step(original, self.step, expr)


def alone(d: Derivation, step: int) -> Derivation:
    """Step ``step`` of ``d`` as a claim of its own: the step before it (or the left-hand side)
    equals it, under the same domain, hypotheses, assumptions and definitions.  The steps before
    it are the original claim's, proved with it (tests/test_budget.py verifies every shipped
    claim); checked again for each mutant they cost half the suite.  The steps after it cannot
    change whether it fails."""
    prev = d.lhs if step == 1 else d.steps[step - 2].expr
    return replace(d, statement=sp.Eq(prev, d.steps[step - 1].expr, evaluate=False),
                   steps=(d.steps[step - 1],))


def run(mutant: Mutant, original: Derivation, lemmas: dict | None = None) -> dict:
    """The verdict on one mutant as plain data: killed | refused | SURVIVED.

    The replaced step is checked against the one before it (:func:`alone`), as ``verify``
    checks every step.  ``failed`` rests on the numeric route alone (a step fails iff it has a
    counterexample); the symbolic route then runs at the budget of a refuted step
    (``REFUTED_OPS``), and SymPy must not call the wrong step zero within it.  ``lemmas``
    keeps the results of the lemmas the claim cites across its mutants (none of them is
    changed).
    """
    out = {"claim": mutant.claim, "mutant": mutant.name, "step": mutant.step}
    try:
        wrong = mutant.build(original)
    except DerivationError as exc:
        return out | {"verdict": "refused", "detail": str(exc), "symbolic": None}
    lemmas = {} if lemmas is None else lemmas
    result = verify(alone(wrong, mutant.step), done=lemmas)
    lemmas.pop(wrong.id, None)  # the mutant is not the claim its id names
    step = result.steps[0]
    failed_step = result.failed_step and result.failed_step + mutant.step - 1
    killed = (result.status == "failed" and failed_step == mutant.step
              and bool(step.counterexample))
    return out | {"verdict": "killed" if killed else "SURVIVED", "status": result.status,
                  "failed_step": failed_step, "counterexample": step.counterexample,
                  "symbolic": step.symbolic,
                  "detail": f"status {result.status}, failed at step {failed_step}"}


@functools.cache
def registry() -> dict[str, tuple[Mutant, ...]]:
    """claim id -> its mutants, for every module of ``derivations.MODULES`` that is present."""
    out: dict[str, tuple[Mutant, ...]] = {}
    for name, module in derivations.modules():
        if name not in mutant_specs.SPECS:
            continue
        for claim, specs in mutant_specs.SPECS[name](module).items():
            out[claim] = tuple(Mutant(claim, label, step, fn) for label, step, fn in specs)
    return out


_KNOWN: dict = {}  # claim id -> its result, verified before kill_table (inherited by its workers)


def claim_outcomes(claim: str) -> list[dict]:
    """Every mutant of one claim, the lemmas it cites verified once for all of them (or taken
    from the results ``kill_table`` was given: a lemma is one of the unchanged claims)."""
    original = derivations.get(claim)
    lemmas = {k: v for k, v in _KNOWN.items() if k != claim}
    return [run(mutant, original, lemmas) for mutant in registry().get(claim, ())]


def kill_table(names=None, jobs: int = 1, known: dict | None = None) -> list[dict]:
    """Outcomes of the mutants of ``names`` (all claims by default), in claim order.  ``known``:
    results of shipped claims already verified (id -> ChainResult), whose statuses the mutants'
    citations of them take instead of verifying them again."""
    claims = list(names) if names else [d.id for d in derivations.claims()]
    _KNOWN.clear()
    _KNOWN.update(known or {})
    try:
        if jobs <= 1:
            per_claim = [claim_outcomes(c) for c in claims]
        else:
            # fork: workers inherit the imported modules and _KNOWN; each runs its claims in its
            # main thread, where the budgets' signal timer works
            ctx = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
                per_claim = list(pool.map(claim_outcomes, claims))
    finally:
        _KNOWN.clear()
    return [o for outcomes in per_claim for o in outcomes]


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m derivations.mutants",
                                     description="Verify every mutant; print the kill table.")
    parser.add_argument("names", nargs="*", metavar="CLAIM")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    known = [d.id for d in derivations.claims()]
    unknown = [n for n in args.names if n not in known]
    if unknown or args.jobs < 1:
        what = (f"unknown claim(s) {', '.join(unknown)}; known claims: {', '.join(known)}"
                if unknown else f"--jobs expected >= 1, got {args.jobs}")
        print(f"error: {what}", file=sys.stderr)
        return 2
    chosen = args.names or known
    thin = [c for c in chosen if len(registry().get(c, ())) < MIN_MUTANTS]
    outcomes = kill_table(chosen, args.jobs)
    for o in outcomes:
        print(f"{o['claim']:34s} {o['step']:>2d} {o['verdict']:8s} {o['mutant']}")
    killed = sum(o["verdict"] != "SURVIVED" for o in outcomes)
    refused = sum(o["verdict"] == "refused" for o in outcomes)
    print(f"{killed}/{len(outcomes)} mutants killed ({refused} refused as malformed) "
          f"over {len(chosen)} claims")
    if thin:
        print(f"claims with fewer than {MIN_MUTANTS} mutants: {', '.join(thin)}")
    return 0 if killed == len(outcomes) and not thin else 1

