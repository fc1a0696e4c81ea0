"""The engine: where soundness lives.  Its one public face is this module.

A claim is data (:mod:`~derivations.engine.claim`: a statement, named premises, steps and the
domain they are sampled over, :mod:`~derivations.engine.domain`); :func:`verify`
(:mod:`~derivations.engine.chain`) compares every step with the one before it in two independent
routes — symbolically (:mod:`~derivations.engine.symbolic`) and numerically at sampled points
(:mod:`~derivations.engine.pointwise`, with sums written out by :mod:`~derivations.engine.finite`
and E and Var evaluated by :mod:`~derivations.engine.stochastic`) — and checks every premise where
it can.  Every computation that can run long has a budget counted in SymPy operations
(:mod:`~derivations.engine.budget`); the words a result is given are
:mod:`~derivations.engine.status`; citing a proved claim is :mod:`~derivations.engine.citing`;
what a claim takes as given about its symbols is :mod:`~derivations.engine.conditions`; the
notation a claim is written in — definitions, unfolded for checking, folded for printing — is
:mod:`~derivations.engine.definitions` and :mod:`~derivations.engine.printing`.
"""

from __future__ import annotations

from derivations.engine.chain import ChainResult, PremiseCheck, StepResult, verify, verify_many
from derivations.engine.citing import cite, instance, lemma
from derivations.engine.claim import (
    ASSUMPTION_RULES,
    KINDS,
    Assumption,
    Derivation,
    Step,
    with_step,
)
from derivations.engine.definitions import Definition, Notation
from derivations.engine.domain import Domain
from derivations.engine.errors import DerivationError
from derivations.engine.printing import latex
from derivations.engine.status import PREMISE_STATUSES, STATUSES
from derivations.engine.stochastic import E, Var
from derivations.engine.symbolic import SYMBOLIC_OPS, symbolic_check

__all__ = [
    "ASSUMPTION_RULES", "KINDS", "PREMISE_STATUSES", "STATUSES", "SYMBOLIC_OPS", "Assumption",
    "ChainResult", "Definition", "Derivation", "DerivationError", "Domain", "E", "Notation",
    "PremiseCheck", "Step",
    "StepResult", "Var", "cite", "instance", "latex", "lemma", "symbolic_check", "verify",
    "verify_many", "with_step",
]
