"""The imaginary unit (READING.md §2): ``i`` leading a product reads as ``I`` only where the note
writes ``i`` nowhere else, or declares ``imaginary i``; a wrong complex identity fails, a right
one is proved."""

import pytest
import sympy as sp

from derivations.notes import check_text
from derivations.notes.latex import infer, parse_expected, parse_overrides, read, same_reading
from derivations.notes.latex.table import OverrideError
from derivations.notes.latex_adapter import reader

EULER = (r"e^{i\alpha} e^{i\beta} = (\cos\alpha + i\sin\alpha)(\cos\beta + i\sin\beta) = "
         r"\cos\alpha\cos\beta {sign} \sin\alpha\sin\beta + i(\sin\alpha\cos\beta + "
         r"\cos\alpha\sin\beta) = \cos(\alpha + \beta) + i\sin(\alpha + \beta)")


def _read(formulas, symbols=""):
    table = infer(formulas, parse_overrides(symbols) if symbols else None)
    return read(formulas[-1], table), table


@pytest.mark.parametrize(("formulas", "symbols", "want"), [
    ([r"x_1 + i x_2"], "", "x_1 + ImaginaryUnit*x_2"),
    ([r"e^{i\theta}"], "", "exp(ImaginaryUnit*theta)"),
    ([r"e^{\mathrm{i}\theta}"], "", "exp(ImaginaryUnit*theta)"),
    ([r"x_i = 1", r"e^{i\theta}"], "imaginary i", "exp(ImaginaryUnit*theta)"),
])
def test_read_as_the_imaginary_unit(formulas, symbols, want):
    got, table = _read(formulas, symbols)
    assert hasattr(got, "expr"), (got.token, got.why)
    assert same_reading(got.expr, parse_expected(want, table)), got.text
    assert got.expr.has(sp.I)


@pytest.mark.parametrize("formulas", [
    [r"x_{i} + i y"],                              # i an index in the same formula
    [r"x_i = 1", r"e^{i\theta}"],                  # … or elsewhere in the note
    [r"i = 0, 1, \dots, n", r"e^{i a}"],           # a range of i
    [r"2i + i x"],                                 # i a factor not leading
    [r"\omega_{2i} = 1", r"e^{i a}"],              # in a compound subscript
])
def test_refused_where_i_may_be_an_index(formulas):
    got, _ = _read(formulas)
    assert not hasattr(got, "expr"), got.text
    assert got.token == "i" and "nowhere else" in got.why


def test_only_i_is_declared_imaginary():
    with pytest.raises(OverrideError, match="only i"):
        parse_overrides("imaginary j")


def test_a_wrong_complex_identity_fails_and_a_right_one_is_proved():
    right, wrong = (EULER.replace("{sign}", sign) for sign in "-+")
    text = f"# e\n\n$$\n{right}\n$$\n\n$$\n{wrong}\n$$\n"
    right, wrong = check_text(text, reader=reader()).formulas
    assert right.verdict == "proved", right.reason
    assert wrong.verdict == "failed"
    # the wrong middle term makes links 2 and 3 false, link 1 stays true
    assert [link.status for link in wrong.links] == ["proved", "failed", "failed"]
