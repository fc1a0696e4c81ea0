"""The red team of the symbolic route's own methods (derivations/engine/symbolic/methods.py),
written by a reviewer from the README and the public API alone, each case confirmed with mpmath or
plain Python integers (never SymPy): limits of integer sequences (long periods, plateaus, slow
convergence), empty ranges (beyond the sampled sizes too), jumps at integers and 0, special
functions, logarithms and floor identities.  The reviewer's normal-law expectations (one quadrature
per point and law, minutes per case) are not among them.

:data:`CASES` are :class:`derivations.redteam.cases.Case` of the classes "sequence limits",
"empty ranges" and "jumps and forms".
"""

from __future__ import annotations

import re

import mpmath as mp

from derivations.redteam.cases import Case
from derivations.redteam.own.common import RAW, Raw

# the cases compute their own numbers as they are defined: at 40 digits
with mp.workdps(40):
    from derivations.redteam.own import (  # noqa: F401
        edges,
        forms,
        forms_twins,
        joint,
        limits,
        phases,
        reach,
        sums,
    )

_CLASSES = {"L": "sequence limits", "TL": "sequence limits", "X": "sequence limits",
            "TX": "sequence limits", "S": "empty ranges", "TS": "empty ranges",
            "P": "jumps and forms", "TP": "jumps and forms", "R": "sequence limits",
            "TR": "sequence limits", "J": "jumps and forms", "TJ": "jumps and forms",
            "QL": "sequence limits", "TQL": "sequence limits", "QJ": "jumps and forms",
            "QS": "empty ranges", "QI": "shared integration", "TQI": "shared integration",
            "TQH": "premises", "VL": "sequence limits", "TVL": "sequence limits",
            "VJ": "jumps and forms", "TVJ": "jumps and forms", "VS": "empty ranges",
            "VH": "premises", "TVH": "premises", "WJ": "jumps and forms",
            "TWJ": "jumps and forms"}


def _witness(raw: Raw):
    def truth() -> bool:
        with mp.workdps(40):
            agrees, _ = raw.check()
        return raw.truth if agrees else not raw.truth
    return truth


CASES: list[Case] = [Case(f"own_{r.id}", _CLASSES[re.match(r"[A-Z]+", r.id).group()], r.truth,
                          r.build, _witness(r)) for r in RAW]
