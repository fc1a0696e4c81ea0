"""The third round of adversarial claims: an outside review written from the public API only.

Classes (one module each, `CASES` in each): saturation below the working precision
(`saturation`), its mirror — true identities that cancel catastrophically (`cancellation`),
points never drawn (`unsampled`), complex symbols (`complex_values`), chains of trust
(`trust`), hypotheses the sampler may not meet (`hypotheses`), time (`timing`), incompleteness
(`incomplete`, `layernorm`), and a battery of every function at ±10^k (`battery`). Claim files
for the command line are in `cli/` (`cli_cases` reads them).

Every case carries a witness that decides its truth without the engine and without SymPy's
integrate/limit/summation/doit/simplify/solve (see `common`).

    python -m derivations.redteam.round3                  # every witness against its truth
    python -m derivations.redteam.round3 --engine         # and every case through the engine
    python -m derivations.redteam.round3 --engine --only ID [ID ...]

With ``--engine`` each case runs in its own process with a wall-time cap of 300 s: a package
case through ``verify``, a claim file of ``cli/`` as ``python -m derivations verify FILE.py
--json`` — the way a user runs it. The table counts, by class, the false cases that ended
failed / refused / numeric / timed out / proved / over the cap, and the true cases that ended
proved / numeric / timed out / failed / refused / over the cap; every wrong outcome (a false
case not failed or refused, a true case not proved) gets a line with its wall time.
`BASELINE.txt` is that run against the engine of the day.
"""

from __future__ import annotations

from derivations.redteam.cases import Case
from derivations.redteam.round3 import (
    battery,
    cancellation,
    cli_cases,
    complex_values,
    hypotheses,
    incomplete,
    layernorm,
    saturation,
    timing,
    trust,
    unsampled,
)

MODULES = (saturation, cancellation, unsampled, complex_values, trust, hypotheses, timing,
           incomplete, layernorm, battery, cli_cases)
CASES: list[Case] = [case for module in MODULES for case in module.CASES]
