"""Every backward of numeric/ops.py names the derived claims it implements, and they exist.

A backward is each ``*_backward`` function, plus ``merge_heads`` (the backward of split_heads).
Its docstring carries one ``Claims: id, id.`` line; each id must be a claim of ``derivations``,
and every claim so named must have a live cross-check record (numeric.crosscheck).
"""

from __future__ import annotations

import inspect
import re

import pytest

import derivations
from numeric import ops

BACKWARDS = sorted([name for name, fn in vars(ops).items()
                    if inspect.isfunction(fn) and name.endswith("_backward")] + ["merge_heads"])
CLAIMS_LINE = re.compile(r"^\s*Claims:\s*(.+?)\.?\s*$", re.MULTILINE)


def named_claims(fn) -> list[str]:
    """The ids on the ``Claims:`` line of ``fn``'s docstring ([] if there is none)."""
    found = CLAIMS_LINE.findall(inspect.getdoc(fn) or "")
    return [c.strip() for line in found for c in line.split(",") if c.strip()]


def test_every_op_with_a_backward_is_listed():
    forwards = {n.removesuffix("_forward") for n in vars(ops) if n.endswith("_forward")}
    assert {n.removesuffix("_backward") for n in BACKWARDS if n != "merge_heads"} == forwards


@pytest.mark.parametrize("name", BACKWARDS)
def test_backward_names_existing_claims(name):
    ids = named_claims(getattr(ops, name))
    assert ids, f"ops.{name}: its docstring names no claim (expected a 'Claims: id, ...' line)"
    problem = derivations.unknown_names(ids)
    assert problem is None, f"ops.{name}: {problem}"


def test_the_check_fails_on_a_backward_without_claims():
    def broken_backward(dout, cache):
        """Gradient of something, no claim named."""
        return dout

    def wrong_backward(dout, cache):
        """Claims: softmax_jacobian, no_such_claim."""
        return dout

    assert named_claims(broken_backward) == []
    assert derivations.unknown_names(named_claims(wrong_backward)) is not None
    assert "no_such_claim" in derivations.unknown_names(named_claims(wrong_backward))


def test_named_claims_have_crosscheck_records(crosscheck_records):
    checked = {r.claim for r in crosscheck_records}
    missing = {n: [c for c in named_claims(getattr(ops, n)) if c not in checked]
               for n in BACKWARDS}
    assert not any(missing.values()), missing
