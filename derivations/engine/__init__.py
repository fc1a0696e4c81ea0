"""The engine: where soundness lives.  Its one public face is this module.

A claim is data: a statement, named premises, steps and the domain they are sampled over.
:func:`verify` compares every step with the one before it in two independent routes, each a
room of its own, and checks every premise where it can:

* :mod:`~derivations.engine.symbolic` — the symbolic route: is the difference zero?
* :mod:`~derivations.engine.numeric` — the numeric route: are the two sides equal at sampled
  points, at high precision?
* :mod:`~derivations.engine.core` — what a claim is and what both routes use: claims, domains,
  definitions and their printing, E and Var, budgets counted in SymPy operations, statuses.
* here, the judge that runs both routes and combines their answers:
  :mod:`~derivations.engine.chain` (steps), :mod:`~derivations.engine.premises` (premises) and
  :mod:`~derivations.engine.independence` (while the numeric route runs, SymPy's own algorithms
  for the claim's operators refuse to run).

Neither route imports the other, and the core imports neither (``tests/test_layout.py``).
"""

from __future__ import annotations

from derivations.engine.chain import ChainResult, PremiseCheck, StepResult, verify, verify_many
from derivations.engine.core.citing import cite, instance, lemma
from derivations.engine.core.claim import (
    ASSUMPTION_RULES,
    KINDS,
    Assumption,
    Derivation,
    Step,
    with_step,
)
from derivations.engine.core.definitions import Definition, Notation
from derivations.engine.core.domain import Domain
from derivations.engine.core.errors import DerivationError
from derivations.engine.core.printing import latex
from derivations.engine.core.status import PREMISE_STATUSES, STATUSES
from derivations.engine.core.stochastic import E, Var
from derivations.engine.symbolic.check import SYMBOLIC_OPS, symbolic_check

__all__ = [
    "ASSUMPTION_RULES", "KINDS", "PREMISE_STATUSES", "STATUSES", "SYMBOLIC_OPS", "Assumption",
    "ChainResult", "Definition", "Derivation", "DerivationError", "Domain", "E", "Notation",
    "PremiseCheck", "Step",
    "StepResult", "Var", "cite", "instance", "latex", "lemma", "symbolic_check", "verify",
    "verify_many", "with_step",
]
