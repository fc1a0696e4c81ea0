"""Assertions for your own pytest files::

    from derivations.testing import assert_proved, assert_fails_at

    def test_my_claim():
        assert_proved(MY_CLAIM)

A failing assertion's message is the text ``python -m derivations verify`` prints: the step, its
rule, the point with its sizes and values, and both sides.  They raise ``AssertionError`` directly,
so they work under ``python -O`` and outside pytest too.
"""

from __future__ import annotations

from derivations.claimfiles import explain, summary
from derivations.engine import ChainResult, Derivation, verify

__all__ = ["assert_fails_at", "assert_proved"]


def _checked(claim) -> ChainResult:
    if not isinstance(claim, Derivation):
        raise TypeError(f"expected a Derivation, got {type(claim).__name__} {claim!r:.60}")
    return verify(claim)


def assert_proved(claim: Derivation) -> ChainResult:
    """Verify ``claim``; fail unless it is ``proved``, saying why.  Returns the result."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    result = _checked(claim)
    if result.status != "proved":
        raise AssertionError(summary(result))
    return result


def assert_fails_at(claim: Derivation, step: int) -> dict:
    """Verify ``claim``; fail unless it is ``failed`` first at ``step`` (1-based) with a
    counterexample.  Returns that counterexample
    (``{"point", "previous", "current"}``).  For tests that a wrong step is caught."""
    __tracebackhide__ = True
    result = _checked(claim)
    if result.status != "failed" or result.failed_step != step:
        first = "" if result.failed_step is None else f", first at step {result.failed_step}"
        raise AssertionError("\n".join(
            [f"expected claim {claim.id!r} to fail at step {step}; it is {result.status}{first}",
             *(f"  {line}" for line in explain(result))]))
    ce = result.steps[step - 1].counterexample
    # the sides may print alike in 15 digits and differ further down, where the check compares
    if not ce or not {"point", "previous", "current"} <= set(ce):
        raise AssertionError(f"claim {claim.id!r} fails at step {step} without a counterexample: "
                             f"{ce!r}")
    return ce
