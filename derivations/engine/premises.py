"""A claim's premises, checked: each rewrite an assumption contributes is tried, with numbers
alone, at its instances in the steps that cite it — and past them, by the steps' wider probe,
since a premise must hold on the claim's whole domain.  A false one makes the claim ``failed``,
naming the premise; one that cannot be checked is reported "assumed, unchecked"; a lemma (a
cited claim) is verified on its own (:mod:`derivations.engine.chain`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import SimpleNamespace

import sympy as sp

from derivations.engine.core.budget import OverBudget, budget
from derivations.engine.core.claim import Derivation
from derivations.engine.core.errors import Unseparated
from derivations.engine.core.expressions import symbols_of
from derivations.engine.core.status import PREMISE_STATUSES
from derivations.engine.independence import numbers_only
from derivations.engine.numeric.pointwise import compare, safe_eval
from derivations.engine.numeric.probe import fragile_operator
from derivations.engine.numeric.probe import probe as wider
from derivations.engine.numeric.sampling import FEW_PROBE_SIZES, structures
from derivations.engine.symbolic.check import normal_forms

__all__ = ["MAX_INSTANCES", "PREMISE_OPS", "PREMISE_STATUSES", "PremiseCheck", "check_premises"]

MAX_INSTANCES = 6  # instances of one rewrite checked per claim
PREMISE_OPS = 1_000_000  # SymPy operations to find the instances of one premise
# a premise is checked by numbers alone, so even one with no fragile operator is probed one size
# past the sampled ones; its larger sizes cost the most (a double sum at 12 has 144 terms)
PREMISE_PROBE_SIZES = (7,)


@dataclass
class PremiseCheck:
    name: str
    status: str  # one of PREMISE_STATUSES
    detail: str = ""
    counterexample: dict | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "status": self.status, "detail": self.detail,
                "counterexample": self.counterexample}


def _forms(d: Derivation, step_index: int, rewrites) -> list[sp.Basic]:
    """The expressions the symbolic route rewrites for a step, both sides
    (:func:`~derivations.engine.symbolic.normal_forms`)."""
    prev = d.lhs if step_index == 1 else d.steps[step_index - 2].expr
    return [form for e in (prev, d.steps[step_index - 1].expr)
            for form in normal_forms(e, rewrites, tuple(d.domain.random))]


def _instances(expr: sp.Basic, pattern, replacement, bound=()):
    """(lhs, rhs, enclosing Sum limits) for every subexpression the rewrite applies to."""
    if callable(pattern) and not isinstance(pattern, sp.Basic):
        hit = pattern(expr)
        if hit:
            yield expr, replacement(expr), bound
    else:
        match = expr.match(pattern)
        if match is not None:
            yield expr, sp.sympify(replacement, strict=True).xreplace(match), bound
    if isinstance(expr, sp.Sum | sp.Product):
        # the bounds lie outside the sum's own variables, the body inside them
        for _var, lo, hi in expr.limits:
            for part in (lo, hi):
                yield from _instances(part, pattern, replacement, bound)
        yield from _instances(expr.function, pattern, replacement, bound + tuple(expr.limits))
        return
    for arg in expr.args:
        if isinstance(arg, sp.Basic):
            yield from _instances(arg, pattern, replacement, bound)


def _check_instance(d: Derivation, lhs, rhs, bound) -> tuple[str, dict | None]:
    """A premise's instance ``lhs -> rhs`` checked with numbers alone (the numeric route)."""
    with numbers_only():
        return _instance_by_numbers(d, lhs, rhs, bound)


def _instance_by_numbers(d: Derivation, lhs, rhs, bound) -> tuple[str, dict | None]:
    free = lhs.free_symbols | rhs.free_symbols
    indices = dict(d.domain.indices)
    for var, lo, hi in bound:
        if var in free and var not in indices:
            indices[var] = (lo, hi)
    probe = SimpleNamespace(id=d.id, lhs=lhs, steps=(SimpleNamespace(expr=rhs),),
                            symbols=symbols_of((lhs, rhs)),
                            domain=replace(d.domain, indices=indices),
                            # the claim's hypotheses restrict the premise's points as its own
                            hypotheses=getattr(d, "hypotheses", ()))
    try:
        points = structures(probe)
    except Exception as exc:  # noqa: BLE001 - a range that cannot be drawn leaves it unchecked
        return "unchecked", {"error": str(exc)}
    a = [safe_eval(probe, lhs, p, s) for p, s in enumerate(points)]
    b = [safe_eval(probe, rhs, p, s) for p, s in enumerate(points)]
    counter, _, undefined = compare(probe, points, a, b)
    if counter is not None:
        return "failed", counter
    # a premise undefined at a point, or that cannot be separated from false there, is not
    # checked
    unseparated = [e for _, e in undefined if isinstance(e, Unseparated)]
    errors = unseparated + [v[2] for v in a + b if v[2]]
    if errors:
        return "unchecked", {"error": str(errors[0])}
    if counter is None:
        # the premise must hold on the claim's whole domain, not only where the claim is
        # sampled: the steps' wider probe, at its sizes, index ends and values
        counter = wider(probe, lhs, rhs, points,
                        FEW_PROBE_SIZES if fragile_operator(lhs, rhs) else PREMISE_PROBE_SIZES)
    return ("failed", counter) if counter else ("checked", None)


def check_premises(d: Derivation, ops: int = PREMISE_OPS) -> list[PremiseCheck]:
    """Check each assumption's rewrites numerically at their instances in the citing steps."""
    own = d.symbols
    out = []
    for a in d.assumptions:
        if a.source is not None:
            out.append(PremiseCheck(a.name, "lemma", f"claim {a.source.id}, verified on its own"))
            continue
        if not a.rewrites:
            out.append(PremiseCheck(a.name, "assumed, unchecked", "no rewrite to check"))
            continue
        citing = [n for n, s in enumerate(d.steps, start=1) if a.name in s.by]
        seen, checked, unchecked, failed = set(), 0, [], None
        for pattern, replacement in a.rewrites:
            found, seen_before = [], set(seen)
            try:
                with budget(ops, f"finding instances of premise {a.name!r}", kind="premises"):
                    for n in citing:
                        for form in _forms(d, n, a.rewrites):
                            for lhs, rhs, bound in _instances(form, pattern, replacement):
                                if lhs != rhs and (lhs, rhs) not in seen:
                                    seen.add((lhs, rhs))
                                    found.append((lhs, rhs, bound))
            except OverBudget as exc:
                # where the search was stopped depends on the timer: nothing it found counts
                found, seen = [], seen_before
                unchecked.append(f"{pattern}: {exc}")
            for lhs, rhs, bound in found[:MAX_INSTANCES]:
                new = (rhs.free_symbols - lhs.free_symbols) - own
                if new:
                    unchecked.append(f"{lhs} -> {rhs} introduces {sorted(map(str, new))}")
                    continue
                status, info = _check_instance(d, lhs, rhs, bound)
                if status == "failed":
                    failed = (f"{lhs} -> {rhs}", info)
                    break
                if status == "checked":
                    checked += 1
                else:
                    unchecked.append(f"{lhs} -> {rhs}: {info['error']}")
            if failed:
                break
        if failed:
            out.append(PremiseCheck(a.name, "failed", f"the rewrite {failed[0]} is false",
                                    failed[1]))
        elif unchecked or not checked:
            why = "; ".join(unchecked[:2]) or ("no instance in the citing steps" if citing
                                               else "declared, not cited by any step")
            out.append(PremiseCheck(a.name, "assumed, unchecked", why))
        else:
            out.append(PremiseCheck(a.name, "checked", f"{checked} instance(s) agree numerically"))
    return out
