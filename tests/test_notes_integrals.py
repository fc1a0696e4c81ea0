"""Definite integrals and ∞ in notes (READING.md §2, "Integrals and infinity"): each reading
beside a near miss that must be refused (with the token and why), and each checked claim beside
a wrong one that must fail."""

import pytest
import sympy as sp

from derivations.notes import check_text
from derivations.notes import latex as lx
from derivations.notes.latex import infer, parse_expected, read, same_reading
from derivations.notes.latex_adapter import reader


def _read(formula):
    return read(formula, infer([formula]))


READ = [
    (r"\int_{-a}^{a} \frac{x^2}{2a}\, dx", "Integral(x**2/(2*a), (x, -a, a))"),
    (r"\int_0^1 x^2 \,\mathrm{d}x = \frac13", "Eq(Integral(x**2, (x, 0, 1)), 1/3)"),
    (r"\int_{0}^{1} t\, d t", "Integral(t, (t, 0, 1))"),
    (r"\int_0^{\infty} e^{-t}\,dt = 1", "Eq(Integral(exp(-t), (t, 0, oo)), 1)"),
    (r"\sum_{k=1}^{\infty} 2^{-k} = 1", "Eq(Sum(2**(-k), (k, 1, oo)), 1)"),
    (r"\operatorname{softmax}(1, 2, -\infty)", "softmax(Tuple(1, 2, -oo))"),
]


@pytest.mark.parametrize(("formula", "want"), READ)
def test_read(formula, want):
    got = _read(formula)
    assert hasattr(got, "expr"), (got.token, got.why)
    assert same_reading(got.expr, parse_expected(want, infer([formula]))), got.text


REFUSED = [
    (r"\int x\, dx", r"\int", "indefinite"),
    (r"\int_0^1 x^2 + 1\, dx", "+", "ends at its dx"),
    (r"\int_0^1 x\, dx\, y", "y", "after dx"),
    (r"\int_0^1 x^2", r"\int", "no differential"),
    (r"\int_0^1 \int_0^1 x y\, dx\, dy", r"\int", "inside an integrand"),
    (r"\int_0^1 x\, di", "i", "no plain scalar"),
    (r"\int_0 x\, dx", r"\int", "both limits"),
    (r"\infty - \infty", r"\infty", "whole value"),
    (r"M_{ij} = -\infty", r"\infty", "whole value"),
    (r"\infty^2", r"\infty", "whole value"),
]


@pytest.mark.parametrize(("formula", "token", "why"), REFUSED)
def test_refused(formula, token, why):
    got = _read(formula)
    assert not hasattr(got, "expr"), got.text
    assert got.token == token and why in got.why, (got.token, got.why)


NOTE = """# t

```symbols
scalar a, z_1, z_2
```

$$\\int_{{-a}}^{{a}} \\frac{{x^2}}{{2a}}\\, dx = {integral}$$

$$\\operatorname{{softmax}}(z_1, z_2, -\\infty) = \\left(\\frac{{e^{{z_1}}}}{{{den}}},
\\frac{{e^{{z_2}}}}{{{den}}}, 0\\right)$$

$$\\int_0^{{\\infty}} e^{{-t}}\\,dt = {tail}$$
"""


def _verdicts(**values):
    result = check_text(NOTE.format(**values), reader=reader())
    return [f.verdict for f in result.formulas]


def test_right_integrals_and_masked_softmax_are_proved():
    assert _verdicts(integral=r"\frac{a^2}{3}", den=r"e^{z_1} + e^{z_2}", tail="1") == \
        ["proved", "proved", "proved"]


def test_wrong_integrals_and_masked_softmax_fail():
    # e^{-∞} is 0, not 1; the integral of x²/(2a) over [-a, a] is a²/3
    assert _verdicts(integral=r"\frac{a^2}{2}", den=r"e^{z_1} + e^{z_2} + 1", tail="1.0001") == \
        ["failed", "failed", "failed"]


def test_a_softmax_with_a_logit_plus_infinity_is_not_checked():
    text = "# t\n\n$$\\operatorname{softmax}(1, \\infty) = (0, 1)$$\n"
    (f,) = check_text(text, reader=reader()).formulas
    assert f.verdict == "not checkable" and "+∞" in f.reason


MASKED = r"\operatorname{softmax}(z_1, z_2, -\infty) = \left(\frac{e^{z_1}}{e^{z_1} + e^{z_2} + 1}, \frac{e^{z_2}}{e^{z_1} + e^{z_2} + 1}, 0\right)"  # noqa: E501 - as a note writes it


def test_a_list_of_names_introduces_them():
    named = check_text(f"# t\n\nFor two scores $z_1, z_2$:\n\n$${MASKED}$$\n", reader=reader())
    # not introduced but on both sides: an identity for all real z_1, z_2 (READING.md §9)
    unnamed = check_text(f"# t\n\n$${MASKED}$$\n", reader=reader())
    one_side = check_text("# t\n\n$$\\operatorname{softmax}(z_1, z_2, -\\infty) = (0.5, 0.5, 0)$$"
                          "\n", reader=reader())
    assert named.formulas[-1].verdict == "failed"
    assert unnamed.formulas[-1].verdict == "failed"
    assert "identity for all real z_1, z_2" in unnamed.formulas[-1].reason
    assert one_side.formulas[-1].verdict == "not checkable"
    assert "does not introduce" in one_side.formulas[-1].reason


def test_a_vector_s_letter_is_free_to_be_an_integral_s_variable():
    table = lx.infer([r"y = \sum_i w_i x_i"])
    got = lx.read(r"\int_{-a}^{a} \frac{x^2}{2a}\, dx", table)
    assert not isinstance(got, lx.NotUnderstood), got
    assert got.expr.has(sp.Symbol("x", real=True))
    for entry in (r"\int_0^1 x_i\, dx", r"\int_0^1 x_1 x\, dx"):
        refused = lx.read(entry, table)
        assert isinstance(refused, lx.NotUnderstood) and "which is meant" in refused.why
