"""The engine's public names in one place: the claim types (:mod:`derivations.claim`) and the
chain that checks them (:mod:`derivations.chain`).

A :class:`Derivation` is data; ``verify`` compares every step with the one before it in two
independent ways — symbolically (:mod:`derivations.symbolic`) and numerically at sampled points
(:mod:`derivations.pointwise`) — and checks every premise numerically where it can.
"""

from __future__ import annotations

from derivations.chain import (
    PREMISE_STATUSES,
    STATUSES,
    ChainResult,
    PremiseCheck,
    StepResult,
    check_premises,
    verify,
)
from derivations.claim import (
    ASSUMPTION_RULES,
    KINDS,
    Assumption,
    Derivation,
    Domain,
    Step,
    lemma,
    with_step,
)
from derivations.errors import DerivationError
from derivations.pointwise import DIGITS, HIGH_DIGITS, MAX_DIM, NUMERIC_RTOL, POINTS
from derivations.pointwise import structures as structures_of
from derivations.symbolic import SYMBOLIC_OPS, symbolic_check

__all__ = [
    "ASSUMPTION_RULES", "DIGITS", "HIGH_DIGITS", "MAX_DIM", "NUMERIC_RTOL", "POINTS",
    "PREMISE_STATUSES", "STATUSES", "SYMBOLIC_OPS", "KINDS", "Assumption", "ChainResult",
    "Derivation", "DerivationError", "Domain", "PremiseCheck", "Step", "StepResult",
    "check_premises", "lemma", "structures_of", "symbolic_check", "verify", "with_step",
]
