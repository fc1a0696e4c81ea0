"""Chains of trust: what a claim inherits from the claims it cites.

A cited claim (:func:`~derivations.engine.core.citing.lemma`, ``cite``, ``instance``) is
verified on its own, and the citing claim is ``proved`` only if it is.  When it is not — only
``numeric``, ``timed out`` or ``failed`` — the citing claim says which and why
(:func:`why_not_proved`), and the rewrite it took from that claim is no longer taken on trust:
it is checked with numbers at its instances in the citing steps, under the citing claim's own
domain, like a premise (:func:`lemmas_where_cited`).  False there, it makes the citing claim
``failed``, naming the lemma and the point: a lemma proved on (0, 1) and cited on (0, 5), or a
numeric-only lemma that is false where it is used, cannot lend a step its support.
"""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from derivations.engine.core import status as st
from derivations.engine.premises import PremiseCheck, check_premises

__all__ = ["lemmas_where_cited", "why_not_proved"]


def why_not_proved(result) -> str:
    """One line: the first premise or step of a claim's result that is not proved, and why."""
    failed = next((p for p in result.premise_checks if p.status == "failed"), None)
    if failed is not None:
        return f"its premise {failed.name!r} failed: {failed.detail}"
    for cid, status in result.premises.items():
        if status != st.PROVED:
            return f"it cites claim {cid!r}, which is {status}"
    step = next((s for s in result.steps if s.status != st.PROVED), None)
    if step is None:
        return ""
    if step.status == st.FAILED:
        return f"step {step.index} ({step.rule}) differs from the one before it at a point"
    return f"step {step.index} ({step.rule}) is {step.status}: {step.reason or step.symbolic}"


def lemmas_where_cited(d, checks: list[PremiseCheck], cited: dict) -> list[PremiseCheck]:
    """``checks`` with each lemma whose source claim is not proved checked with numbers at its
    instances in ``d``'s citing steps (see the module)."""
    unproved = [a for a in d.assumptions if a.source is not None
                and cited.get(a.source.id, st.PROVED) != st.PROVED]
    if not unproved:
        return checks
    as_premises = SimpleNamespace(
        id=d.id, lhs=d.lhs, steps=d.steps, symbols=d.symbols, domain=d.domain,
        hypotheses=d.hypotheses,
        assumptions=tuple(replace(a, source=None, kind="hypothesis") for a in unproved))
    found = {p.name: p for p in check_premises(as_premises)}
    out = []
    for p in checks:
        a = next((a for a in unproved if a.name == p.name), None)
        if a is None:
            out.append(p)
            continue
        q, status = found[a.name], cited[a.source.id]
        if q.status == "failed":
            out.append(PremiseCheck(a.name, "failed", f"claim {a.source.id} is {status} on its "
                                    f"own, and {q.detail} where this claim is checked",
                                    q.counterexample))
        else:
            out.append(PremiseCheck(a.name, "lemma", f"claim {a.source.id}, {status} on its own; "
                                    f"where this claim cites it: {q.status} ({q.detail})"))
    return out
