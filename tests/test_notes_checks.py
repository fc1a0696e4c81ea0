"""The note level's checks: links verified by the engine, numbers exactly, ≈ by the digits
shown, definitions unfolded and scoped; each checker also rejects a wrong input."""

from __future__ import annotations

import pytest

from derivations.notes import check_text
from tests.notes_fake_reader import FakeReader


def verdicts(text: str) -> list[tuple[str, str]]:
    return [(f.latex, f.verdict) for f in check_text(text, reader=FakeReader()).formulas]


def one(text: str):
    return check_text(text, reader=FakeReader()).formulas


def test_a_true_chain_is_proved_and_a_wrong_link_fails_with_its_point():
    ok, bad = one("$$(x+y)^2 = x^2 + 2xy + y^2$$\n\n$$(x+y)^2 = x^2 + 2xy + y^2 = x^2 + y^2$$\n")
    assert ok.verdict == "proved" and ok.mark == "✔"
    assert bad.verdict == "failed" and bad.mark == "✘"
    assert [k.status for k in bad.links] == ["proved", "failed"]
    point = bad.failed_links[0].counterexample["point"]
    assert set(point) == {"x", "y"}
    assert "link 2" in bad.reason


def test_a_definition_is_unfolded_in_later_formulas():
    d, right, wrong = one("Let $s = x^2 + 1$. Then $s - 1 = x^2$ but not $s = x^2$.")
    assert d.verdict == "definition"
    assert right.verdict == "proved"
    assert wrong.verdict == "failed"
    # the failing link names the definition it used, and the definition names the line
    assert wrong.failed_links[0].definitions == {"s": "line 1: s = x^2 + 1"}
    assert "contradict" in wrong.reason and "contradicts it" in d.reason


def test_definitions_are_scoped_by_section():
    # a subsection's own meaning of s ends with it; the note's meaning holds before and after
    text = ("# A\n\nLet $s = x^2 + 1$.\n\n## A1\n\nHere $s := x^2 + 2$, so $s - 1 = x^2$ fails.\n\n"
            "## A2\n\nAgain $s - 1 = x^2$.\n")
    got = one(text)
    assert [f.verdict for f in got] == ["definition", "definition", "failed", "proved"]
    # a definition made in one section still holds in the next when that one makes none
    later = one("# A\n\n## A1\n\nLet $s = x^2 + 1$.\n\n## A2\n\nThen $s - 1 = x^2$.\n")
    assert [f.verdict for f in later] == ["definition", "proved"]


def test_colon_equals_redefines_and_equals_restates():
    got = one("$s = x^2 + 1$ and $s := x^2 + 1$ then $s - 1 = x^2$.")
    assert [f.verdict for f in got] == ["definition", "definition", "proved"]


def test_a_value_is_used_by_the_steps_of_its_example_only():
    # x = 2 holds for the example's computations; a general identity is checked generally:
    # x^2 = 2x is true at x = 2 and must still fail
    text = "With $x = 2$ we get $x^2 \\approx 4.0$.\n\nIn general $x^2 = 2x$.\n"
    example, step, general = one(text)
    assert example.verdict == "not checkable" and "value" in example.reason
    assert step.verdict == "proved" and step.mark == "≈"
    assert general.verdict == "failed"


@pytest.mark.parametrize("latex, verdict", [
    ("e^{-1} \\approx 0.37", "proved"), ("e^{-1} \\approx 0.36", "failed"),
    ("\\frac13 = 0.333", "proved"), ("\\frac13 = 0.334", "failed"),
    ("0.27 < 0.73", "proved"), ("0.73 < 0.27", "failed")])
def test_numbers_are_judged_exactly_by_the_digits_shown(latex, verdict):
    (f,) = one(f"${latex}$")
    assert f.verdict == verdict
    if verdict == "proved" and "approx" in latex:
        assert f.mark == "≈"


def test_what_is_not_checked_says_why():
    got = {f.latex: f for f in one("$T < 1$, $\\sqrt{T}$, $\\foo$, $f(x+c) = f(x)$, "
                                    "$x \\in \\mathbb{R}$, $x + y = w$.")}
    assert got["T < 1"].verdict == "not checkable" and "values" in got["T < 1"].reason
    assert got["\\sqrt{T}"].reason.startswith("an expression")
    assert got["\\foo"].verdict == "not understood" and "\\foo" in got["\\foo"].reason
    assert got["f(x+c) = f(x)"].verdict == "not checkable"
    assert got["x \\in \\mathbb{R}"].reason.startswith("a declaration")
    assert "w" in got["x + y = w"].reason


def test_a_formula_of_several_statements_takes_the_worst():
    (f,) = one("$s = x^2 + 1,\\quad s - 1 = x^2$")
    assert f.verdict == "proved" and [k.index for k in f.links] == [1]


def test_every_verdict_is_in_the_vocabulary():
    from derivations.notes import VERDICTS
    from derivations.notes.model import FormulaResult

    with pytest.raises(ValueError, match="verdict"):
        FormulaResult(0, 0, 1, 1, "x", False, "", "wrong", "why")
    assert set(VERDICTS) >= {"proved", "failed", "definition", "not checkable",
                             "not understood"}


def test_the_vocabulary_starts_with_the_engines_statuses():
    from derivations.engine import STATUSES
    from derivations.notes.model import STATUSES as WRITTEN

    assert WRITTEN == STATUSES
