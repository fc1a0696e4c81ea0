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



VERDICTS = [e for e in EXAMPLES if e.verdict]


def _note(ex) -> str:
    """The example as a note: its symbols block, its paragraphs, the formula displayed last."""
    block = symbols_block(ex)
    head = f"```symbols\n{block}\n```\n\n" if block.strip() else ""
    paragraphs = "".join(f"{p}\n\n" for p in ex.text)
    return f"{head}# example\n\n{paragraphs}$${ex.latex}$$\n"


def test_the_spec_documents_verdicts():
    assert len(VERDICTS) >= 6


@pytest.mark.parametrize("ex", VERDICTS, ids=[f"L{e.line}" for e in VERDICTS])
def test_spec_example_verdict(ex):
    """What the reader does with the example in a note: the verdict the spec documents (the
    readings above say how a formula reads, not whether it can be checked)."""
    from derivations.notes.run import check_text

    result = check_text(_note(ex), "example.md")
    last = result.formulas[-1]
    assert last.latex == ex.latex
    assert last.verdict == ex.verdict, f"{ex.latex}: {last.verdict} ({last.reason})"
