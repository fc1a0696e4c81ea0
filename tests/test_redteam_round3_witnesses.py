"""The third red-team round: every witness confirms its case's declared truth without the engine.

The engine's outcomes on these cases are measured (derivations/redteam/round3/BASELINE.txt), not
asserted here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from derivations.redteam.round3 import CASES
from derivations.redteam.round3.cli_cases import FILES
from derivations.redteam.round3.run import check_witnesses

CLASSES = {"saturation", "cancellation", "points never drawn", "complex symbols",
           "chains of trust", "hypotheses", "time", "incompleteness", "battery"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_witness_confirms_the_declared_truth(case):
    assert case.witness() is case.true


def test_the_round_is_broad_enough():
    assert len({c.id for c in CASES}) == len(CASES)
    false, true = [c for c in CASES if not c.true], [c for c in CASES if c.true]
    assert len(CASES) >= 100 and len(false) >= 60 and len(true) >= 20
    per_class = Counter(c.cls for c in CASES)
    assert set(per_class) == CLASSES and min(per_class.values()) >= 8
    assert len(FILES) >= 15 and sum(c.id.startswith("cli_") for c in CASES) == len(FILES)


def test_a_wrong_declaration_is_reported():
    """The check can fail: a case declared with the opposite truth is a mismatch."""
    picks = [next(c for c in CASES if c.cls == cls and c.true is t)
             for cls, t in (("saturation", False), ("cancellation", True), ("battery", False),
                            ("points never drawn", False), ("complex symbols", True))]
    flipped = [replace(c, true=not c.true) for c in picks]
    lines: list[str] = []
    assert check_witnesses(flipped, out=lines.append) == len(flipped)
    assert sum(line.startswith("WITNESS MISMATCH") for line in lines) == len(flipped)
