"""Assertions shared by the derivation tests (imported by them; not collected as tests)."""

from derivations import verify


def assert_fails_at(d, index: int) -> dict:
    """``d`` verifies ``failed`` exactly at step ``index`` with a counterexample; returns it."""
    result = verify(d)
    assert result.status == "failed"
    assert result.failed_step == index
    ce = result.steps[index - 1].counterexample
    assert ce is not None and {"point", "previous", "current"} <= set(ce)
    assert ce["previous"] != ce["current"]
    return ce
