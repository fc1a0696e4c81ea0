"""Every worked example of READING.md reads exactly as the spec says, and prints (as the spec
says, where it says it)."""

from pathlib import Path

import pytest

from derivations.notes.latex import (
    first_difference,
    infer,
    parse_expected,
    parse_overrides,
    read,
    same_reading,
)
from derivations.notes.latex.examples import load, symbols_block

SPEC = Path(__file__).parents[1] / "derivations" / "notes" / "latex" / "READING.md"
EXAMPLES = load(SPEC)


def test_the_spec_has_enough_examples():
    assert len(EXAMPLES) >= 25


@pytest.mark.parametrize("ex", EXAMPLES, ids=[f"L{e.line}" for e in EXAMPLES])
def test_spec_example(ex):
    table = infer(list(ex.note_formulas or [ex.latex]), parse_overrides(symbols_block(ex)))
    got = read(ex.latex, table)
    if ex.reading == "NotUnderstood":
        assert not got.ok, f"{ex.latex} was read as {got.text}"
        return
    assert got.ok, f"{ex.latex}: {got}"
    want = parse_expected(ex.reading, table)
    assert same_reading(got.expr, want), first_difference(got.expr, want)
    assert got.latex and got.text
    if ex.printed:
        assert got.latex == ex.printed

