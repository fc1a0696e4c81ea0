"""The tests every claim family's file starts with: its claims are registered with
``derivations`` and each is ``proved`` (verified once per test process, see ``verified`` in
conftest.py).  A file binds them to module-level names, so pytest collects them there::

    test_claims_are_registered, test_claim_is_proved = claim_family.tests(CLAIMS)
"""

from __future__ import annotations

import pytest

import derivations


def tests(claim_ids: list[str]):
    """(test that ``claim_ids`` are registered claims, test parametrized over them that each
    is proved)."""
    ids = list(claim_ids)
    if not ids:
        raise ValueError("claim_family.tests: expected claim ids, got none")

    def test_claims_are_registered():
        assert set(ids) <= {d.id for d in derivations.claims()}

    @pytest.mark.parametrize("claim", ids)
    def test_claim_is_proved(verified, claim):
        verified.assert_proved(claim)

    return test_claims_are_registered, test_claim_is_proved
