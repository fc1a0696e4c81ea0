"""A note is checked to its end: a formula the checks cannot finish gets a verdict that names
what stopped them, and the formulas after it are still checked."""

from __future__ import annotations

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
