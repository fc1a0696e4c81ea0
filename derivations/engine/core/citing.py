"""Citing: a proved claim used as a premise of another, in three forms — as it stands
(:func:`lemma`), with matrix sides (:func:`cite`), and at particular values of its symbols
(:func:`instance`).  Each gives an :class:`Assumption` of kind ``lemma`` whose ``source`` is the
claim: verifying the citing chain verifies the cited claim too, and the chain is ``proved`` only
if the claim is.  The rewrite is the cited claim as it was checked, its definitions unfolded;
its formula is printed as written.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from derivations.engine.core.claim import Assumption, Derivation
from derivations.engine.core.definitions import unfold
from derivations.engine.core.printing import latex


def lemma(claim: Derivation) -> Assumption:
    """Cite a claim as the rewrite lhs -> rhs; verifying the citing chain verifies the claim too."""
    checked = claim.checked
    return Assumption(claim.id, f"Proved as claim {claim.id}.",
                      latex(claim.statement, claim.definitions_used),
                      rewrites=((checked.lhs, checked.rhs),), kind="lemma", source=claim)


def cite(claim: Derivation) -> Assumption:
    """:func:`lemma` for a claim whose sides are matrix expressions.

    ``Basic.replace`` with a matrix pattern goes through ``match``, which raises on matrix
    expressions; an exact-equality query does the same rewrite without it.  The citation keeps
    the claim as its source, so the citing chain is only as good as the claim.
    """
    checked = claim.checked
    return replace(lemma(claim), rewrites=(exact_rewrite(checked.lhs, checked.rhs),))


def exact_rewrite(old: sp.Basic, new: sp.Basic) -> tuple:
    """A rewrite for ``Assumption(rewrites=...)``: every subterm equal to ``old`` becomes ``new``
    (by equality, not by pattern: matrix expressions cannot be matched)."""
    return (_Equals(old), _Constant(new))


class _Equals:
    """Query: the subterm equals ``expr`` (a class, not a lambda, so that it pickles)."""

    def __init__(self, expr):
        self.expr = expr

    def __call__(self, e) -> bool:
        return e == self.expr


class _Constant:
    """Replacement: always ``expr``."""

    def __init__(self, expr):
        self.expr = expr

    def __call__(self, e):
        return self.expr


def instance(claim: Derivation, mapping: dict, why: str) -> Assumption:
    """Cite ``claim`` at ``mapping`` (symbol -> expression, which may use the claim's
    definitions): a claim proved for every value of a symbol holds for any expression meeting
    that symbol's assumptions, which ``why`` states."""
    defined = claim.definitions_used
    flat = {k: unfold(v, defined) for k, v in mapping.items()}
    lhs, rhs = claim.checked.lhs.xreplace(flat), claim.checked.rhs.xreplace(flat)
    shown = ", ".join(f"{sp.sstr(k)} = {sp.sstr(v)}" for k, v in flat.items())
    return Assumption(f"{claim.id} at {shown}", f"Proved as claim {claim.id}, taken at {shown}: "
                      f"{why}", latex(claim.statement.xreplace(mapping), defined),
                      rewrites=((lhs, rhs),), kind="lemma", source=claim)
