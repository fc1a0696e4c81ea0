"""The parser benchmark's judge: our verdicts, and the by-value comparison it uses for others."""

import sympy as sp

from derivations.notes.latex.bench_parsers import SPEC, _same_by_value, judge, time_ours
from derivations.notes.latex.examples import Example, load


def test_ours_are_all_faithful_on_the_spec():
    examples = load(SPEC)
    counts, rows = judge(examples, {})
    assert counts["ours"]["faithful"] == len(examples) == len(rows)
    assert time_ours(examples[:3], 1) > 0


def test_a_wrong_reading_is_counted_wrong():
    wrong = Example("", r"a - b", "", "a + b", 0)
    counts, _ = judge([wrong], {"fake": lambda s: sp.Symbol("a") - sp.Symbol("b")})
    assert counts["ours"]["silently wrong"] == 1
    assert counts["fake"]["silently wrong"] == 1


def test_by_value_comparison():
    a, b = sp.symbols("a b")
    assert _same_by_value(sp.Eq(a + b, b), sp.Eq(b + a, b))
    assert _same_by_value(a + b, a - b) is False
    assert _same_by_value(sp.Eq(a, b), a) is False
