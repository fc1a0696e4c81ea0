"""A note is checked to its end: a formula the checks cannot finish gets a verdict that names
what stopped them, and the formulas after it are still checked."""

from __future__ import annotations

import pytest
import sympy as sp

from derivations.notes import check_text
from derivations.notes.terms import _objects

FFN = r"""# FFN
Weights $W_1 \in \mathbb{R}^{d \times 4d}$, $b_1 \in \mathbb{R}^{4d}$,
$W_2 \in \mathbb{R}^{4d \times d}$, $b_2 \in \mathbb{R}^{d}$.

$$\operatorname{FFN}(x) = \operatorname{ReLU}(x W_1 + b_1) W_2 + b_2$$

$$2 + 2 = 5$$
"""


def test_a_matrix_product_beside_a_declared_vector_gets_a_verdict():
    # variables: a product of matrices with a vector of declared size inside one function
    result = check_text(FFN, "ffn.md", store=None)
    # check: every formula has its verdict, the one after it included
    by_latex = {f.latex: f for f in result.formulas}
    assert by_latex["2 + 2 = 5"].verdict == "failed"
    ffn = next(f for f in result.formulas if f.latex.startswith(r"\operatorname{FFN}"))
    assert ffn.verdict == "not checkable" and "FFN" in ffn.reason


def test_the_objects_of_a_term_leave_out_the_sizes_of_its_vectors():
    i, n, size = sp.symbols("i n K", integer=True)
    s, x = sp.IndexedBase("s", shape=(size,)), sp.Symbol("x")
    w = sp.MatrixSymbol("W", n, n)
    assert _objects(sp.Sum(s[i] * x, (i, 1, n))) == {n, x, s}
    # the size K is used when the term names it outside the shape
    assert _objects(s[i] * size) == {i, size, s}
    assert _objects(sp.Integral(x**2, (x, 0, size))) == {size}
    assert _objects(w * x) == {x, w}


def test_a_failure_inside_the_checks_is_that_formula_s_verdict(monkeypatch):
    from derivations.notes import checks

    real = checks.check_formula

    def stops_on_three(formula, reading, *args):
        if "3" in formula.latex:
            raise NotImplementedError("a form the checks do not handle")
        return real(formula, reading, *args)

    monkeypatch.setattr(checks, "check_formula", stops_on_three)
    first, broken, last = check_text("$$1 + 1 = 2$$\n\n$$1 + 3 = 4$$\n\n$$2 + 2 = 5$$\n",
                                     "n.md", store=None).formulas
    assert first.verdict == "proved" and last.verdict == "failed"
    assert broken.verdict == "not checkable"
    assert "NotImplementedError: a form the checks do not handle" in broken.reason


CHAIN = r"""# Uniform
$$\mathrm{Var}\big(U(-a,a)\big) = \int_{-a}^{a} \frac{x^2}{2a}\, dx = \frac{a^2}{{value}}$$
"""


@pytest.mark.parametrize("value, verdict", [("2", "failed"), ("3", "not checkable")])
def test_a_chain_with_one_unread_term_checks_the_links_between_read_terms(value, verdict):
    # variables: a chain whose first term is outside the language
    got, = check_text(CHAIN.replace("{value}", value), "u.md", store=None).formulas
    # check: link 2 (integral = value) is checked; link 1 is said not understood, never judged
    assert got.verdict == verdict, got.reason
    first, second = got.links
    assert first.status == "not checkable" and "term 1 is not understood" in first.reason
    assert second.status == ("failed" if value == "2" else "proved")
    assert got.reading.startswith(r"\text{?} = \int")


def test_a_chain_with_no_two_read_terms_side_by_side_stays_not_understood():
    got, = check_text(r"$$U(a) = \int_0^1 x\, dx = U(b)$$", "u.md", store=None).formulas
    assert got.verdict == "not understood"
    got, = check_text(r"$$U(0, 1) = 1 \le U(1, 2)$$", "u.md", store=None).formulas
    assert got.verdict == "not understood"  # another relation than =: not cut apart
