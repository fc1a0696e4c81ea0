"""Every witnessed red-team case's truth, confirmed without the engine (mpmath or NumPy)."""

from __future__ import annotations

import pytest

from derivations.redteam import CASES

WITNESSED = [c for c in CASES if c.witness is not None]


@pytest.mark.parametrize("case", WITNESSED, ids=[c.id for c in WITNESSED])
def test_witness_confirms_the_declared_truth(case):
    assert case.witness() is case.true


def test_a_witness_can_say_false():
    """The check above can fail: a witness of a false case says so."""
    false = [c for c in WITNESSED if not c.true]
    assert false and all(c.witness() is False for c in false[:5])
