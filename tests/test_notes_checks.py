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


@pytest.mark.parametrize("latex, verdict", [
    # "=" reads as a rounding only with a decimal point and two significant digits or more
    ("1 - 0.9 = 0", "failed"), ("0.9 \\times 0.9 = 1", "failed"), ("\\frac{24}{7} = 3", "failed"),
    ("0.9^{10} = 0.3", "failed"), ("\\frac18 = 0.1", "failed"),
    ("0.9^{10} = 0.35", "proved"), ("e^{-1} = 0.37", "proved"), ("\\frac18 = 0.125", "proved"),
    ("0.9^{10} \\approx 0.3", "proved")])
def test_equal_is_a_rounding_only_with_digits_enough_to_read_it_so(latex, verdict):
    (f,) = check_text(f"${latex}$").formulas  # the real reader: these forms are its own
    assert f.verdict == verdict
    if verdict == "failed":
        assert "= is exact here" in f.reason
        assert f.failed_links[0].counterexample["shown"] == latex.split("= ")[-1]


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


# ---- notes read by the real reader: the classes of context a note's prose and layout carry ----

def real(text: str) -> dict:
    """Each formula's (verdict, reason) by its LaTeX, the note read by the LaTeX reader."""
    return {f.latex: (f.verdict, f.reason) for f in check_text(text).formulas}


def test_a_definition_with_a_square_root_holds_beyond_its_paragraph():
    got = real("$a \\in \\mathbb{R}$ and $r = \\sqrt{a^2 + 1}$.\n\nThen $r^2 = a^2 + 1$.\n\n"
               "Wrongly $r^2 = a^2$.\n")
    assert got["r = \\sqrt{a^2 + 1}"][0] == "definition"
    assert got["r^2 = a^2 + 1"][0] == "proved"
    assert got["r^2 = a^2"][0] == "failed"  # the near miss


MEAN = ("# Mean\n\nFor $\\mathbf{x} \\in \\mathbb{R}^n$, $\\mu = \\frac{1}{n}\\sum_{i=1}^{n} x_i$."
        "\n\n## Example\n\n")


def test_an_example_step_whose_values_are_missing_is_not_failed():
    got = real(MEAN + "With $n = 3$: $\\frac{1}{n-1}\\sum_{i=1}^{n}(x_i - \\mu)^2 = 1$.\n")
    verdict, reason = got["\\frac{1}{n-1}\\sum_{i=1}^{n}(x_i - \\mu)^2 = 1"]
    assert verdict == "not checkable" and "values of x" in reason


@pytest.mark.parametrize("shown, verdict", [("1", "proved"), ("2", "failed")])
def test_an_example_step_is_recomputed_from_a_bold_vectors_values(shown, verdict):
    got = real(MEAN + f"$\\mathbf{{x}} = (1, 2, 3)$, $n = 3$: "
                      f"$\\frac{{1}}{{n-1}}\\sum_{{i=1}}^{{n}}(x_i - \\mu)^2 = {shown}$.\n")
    assert got[f"\\frac{{1}}{{n-1}}\\sum_{{i=1}}^{{n}}(x_i - \\mu)^2 = {shown}"][0] == verdict


XAVIER = ("$m, n \\in \\mathbb{N}$ and $a = \\sqrt{\\frac{6}{m + n}}$.\n\n## Numbers\n\n"
          "$m = n = 3$: $a = \\sqrt{6/6} = 1$.\n\n")


@pytest.mark.parametrize("shown, verdict", [("0.71", "proved"), ("0.8", "failed")])
def test_a_value_given_twice_holds_in_its_own_paragraph(shown, verdict):
    got = real(XAVIER + f"$m = n = 6$: $a = \\sqrt{{6/12}} \\approx {shown}$.\n\n"
               "Another layer: $a = \\sqrt{\\frac{6}{2 + 4}}$.\n")
    assert got["a = \\sqrt{6/6} = 1"][0] == "proved"
    assert got[f"a = \\sqrt{{6/12}} \\approx {shown}"][0] == verdict
    # m and n have two values by now: which example the last line is about is not said
    assert got["a = \\sqrt{\\frac{6}{2 + 4}}"][0] == "not checkable"


RECURSION = ("$\\beta = 0.9$, $v_0 = 0$.\n\n$$v_t = \\beta v_{t-1} + (1 - \\beta)\\, g_t$$\n\n"
             "For a constant gradient $v_t = (1 - \\beta^{t+1})\\, g$.\n\n")


@pytest.mark.parametrize("shown, verdict", [("0.2", "proved"), ("0.3", "failed")])
def test_an_entry_of_a_recursion_is_computed_from_it(shown, verdict):
    got = real(RECURSION + f"With $g_1 = 2$: $v_1 = 0.9 \\times 0 + 0.1 \\times 2 = {shown}$.\n")
    verdict_of_closed_form, reason = got["v_t = (1 - \\beta^{t+1})\\, g"]
    # a second formula for v_t is no definition: it is checked against the recursion (this one
    # is wrong: at t = 1 it gives (1 − β²) g), and the example's v_1 comes from the recursion
    assert verdict_of_closed_form == "failed" and "by induction" in reason
    assert got[f"v_1 = 0.9 \\times 0 + 0.1 \\times 2 = {shown}"][0] == verdict


@pytest.mark.parametrize("rhs, verdict", [("1", "not checkable"), ("2", "failed")])
def test_a_link_that_holds_only_without_a_negligible_epsilon_is_not_failed(rhs, verdict):
    got = real("$x \\in \\mathbb{R}$, $\\epsilon = 10^{-5}$ and "
               "$y = \\frac{x^2}{x^2 + \\epsilon}$.\n\n## Ignoring it\n\n"
               f"$$\\frac{{y}}{{x}} = \\frac{{{rhs}}}{{x}}$$\n")
    verdict_, reason = got[f"\\frac{{y}}{{x}} = \\frac{{{rhs}}}{{x}}"]
    assert verdict_ == verdict
    if verdict == "not checkable":
        assert "taken as 0" in reason


@pytest.mark.parametrize("written, verdict", [("0.6931", "proved"), ("0.6831", "failed")])
def test_decimals_that_round_an_irrational_value_are_judged_by_their_digits(written, verdict):
    got = real("$L_{\\text{bit}} = \\frac{L_{\\text{nat}}}{\\ln 2}$.\n\n"
               f"With $L_{{\\text{{nat}}}} = 2.0794$: "
               f"$L_{{\\text{{bit}}}} = \\frac{{2.0794}}{{{written}}}$.\n")
    assert got[f"L_{{\\text{{bit}}}} = \\frac{{2.0794}}{{{written}}}"][0] == verdict


def test_a_symbol_stated_in_an_unread_formula_is_not_checked_as_free():
    said = real("Each $m_i \\sim \\mathcal{B}(p)$, so $m_i^2 = m_i$.\n")
    verdict, reason = said["m_i^2 = m_i"]
    assert verdict == "not checkable" and "not read" in reason
    # a law that is read (Bernoulli: the values 0 and 1) makes it hold
    said = real("Each $m_i \\sim \\operatorname{Bernoulli}(p)$, so $m_i^2 = m_i$.\n")
    assert said["m_i^2 = m_i"][0] == "proved"
    # the near miss: a plain vector m, nothing said of it, is checked and fails
    plain = real("For $m \\in \\mathbb{R}^n$, $m_i^2 = m_i$.\n")
    assert plain["m_i^2 = m_i"][0] == "failed"


@pytest.mark.parametrize("index, verdict", [("j", "proved"), ("i", "failed")])
def test_a_vector_named_softmax_of_a_vector_is_defined_by_its_entries(index, verdict):
    got = real("$z \\in \\mathbb{R}^K$, $s := \\operatorname{softmax}(z)$.\n\n"
               f"$$\\frac{{\\partial \\log s_i}}{{\\partial z_j}} = \\delta_{{ij}} - s_{index}$$\n")
    assert got["s := \\operatorname{softmax}(z)"][0] == "definition"
    assert got[f"\\frac{{\\partial \\log s_i}}{{\\partial z_j}} = \\delta_{{ij}} - s_{index}"][0] \
        == verdict


SOFTMAX = "$z \\in \\mathbb{R}^K$, $s := \\operatorname{softmax}(z)$.\n\n"


def test_when_i_differs_from_j_is_the_case_of_the_next_formula():
    got = real(SOFTMAX + "When $i \\neq j$:\n\n$$\\frac{\\partial s_i}{\\partial z_j} = "
                         "-s_i s_j$$\n\nWhen $i = j$:\n\n$$\\frac{\\partial s_i}{\\partial z_j}"
                         " = s_i (1 - s_i)$$\n")
    assert got["i \\neq j"][0] == "not checkable" and got["i = j"][0] == "not checkable"
    assert got["\\frac{\\partial s_i}{\\partial z_j} = -s_i s_j"][0] in ("proved", "numeric")
    assert got["\\frac{\\partial s_i}{\\partial z_j} = s_i (1 - s_i)"][0] in ("proved",
                                                                               "numeric")
    # the near miss: with no case stated, the same formula is false in general
    bare = real(SOFTMAX + "$$\\frac{\\partial s_i}{\\partial z_j} = -s_i s_j$$\n")
    assert bare["\\frac{\\partial s_i}{\\partial z_j} = -s_i s_j"][0] == "failed"


SHAPES = ("$X \\in \\mathbb{R}^{n \\times d}$, $W \\in \\mathbb{R}^{d \\times m}$ and "
          "$S = XW$.\n\n")


@pytest.mark.parametrize("stated, verdict", [
    ("XW \\in \\mathbb{R}^{n \\times m}", "proved"),
    ("X^\\top X \\in \\mathbb{R}^{n \\times n}", "failed"),
    ("A = \\operatorname{softmax}(S) \\in \\mathbb{R}^{n \\times m}", "not checkable"),
    ("A = \\operatorname{softmax}(S) \\in \\mathbb{R}^{n \\times d}", "failed")])
def test_a_stated_shape_is_judged_by_the_shapes_of_its_factors(stated, verdict):
    got = real(SHAPES + f"Then ${stated}$.\n")
    assert got[stated][0] == verdict
    if verdict == "failed":
        assert "by shapes" in got[stated][1]


def test_a_matrix_of_no_stated_shape_is_not_judged():
    got = real("$X \\in \\mathbb{R}^{n \\times d}$. "
               "Then $X^\\top G \\in \\mathbb{R}^{n \\times d}$.\n")
    assert got["X^\\top G \\in \\mathbb{R}^{n \\times d}"][0] == "not checkable"


def test_a_name_defined_twice_in_one_section_is_not_used():
    got = real("$x, y \\in \\mathbb{R}$.\n\n$L = x^2$ here, and for the batch $L = y^2$.\n\n"
               "So $L - x^2 = 0$.\n")
    verdict, reason = got["L - x^2 = 0"]
    assert verdict == "not checkable" and "defined twice" in reason
    # the near miss: := says the second meaning replaces the first, and is used
    again = real("$x, y \\in \\mathbb{R}$.\n\n$L = x^2$ here, and now $L := y^2$.\n\n"
                 "So $L - x^2 = 0$.\n")
    assert again["L - x^2 = 0"][0] == "failed"


def test_a_name_used_as_a_constant_and_with_an_index_is_not_used():
    got = real("$x \\in \\mathbb{R}$ and $g = x^2$.\n\nSo $\\sum_{t=1}^{T} g_t = T x^2$.\n")
    verdict, reason = got["\\sum_{t=1}^{T} g_t = T x^2"]
    assert verdict == "not checkable" and "constant and with an index" in reason
    plain = real("$x \\in \\mathbb{R}$ and $g = x^2$.\n\nSo $g + 1 = x^2 + 2$.\n")
    assert plain["g + 1 = x^2 + 2"][0] == "failed"


def test_sizes_multiplied_as_shapes_are_not_algebra():
    got = real(SHAPES + "So $(n \\times d)(d \\times m) = n \\times m$ and "
                        "$(n + d)(d + m) = n m$.\n")
    verdict, reason = got["(n \\times d)(d \\times m) = n \\times m"]
    # refused by the reader (it names shapes) or left unchecked by the checks: never algebra
    assert verdict in ("not understood", "not checkable") and "shapes" in reason
    assert got["(n + d)(d + m) = n m"][0] == "failed"  # the near miss: plain algebra



def test_a_product_whose_order_is_not_kept_is_not_judged():
    import sympy as sp

    from derivations.notes.shapes import NoShape, shape_of

    n, d = sp.symbols("n d", integer=True, positive=True)
    X, W = sp.MatrixSymbol("X", n, d), sp.MatrixSymbol("W", d, n)
    assert shape_of(X * W, {}) == (n, n) and shape_of(W.T * X.T, {}) == (n, n)
    # G, a matrix read as a commuting symbol (its entries G_ij): G X may be X G as written
    G = sp.IndexedBase("G")
    with pytest.raises(NoShape):
        shape_of(sp.Mul(G, X, evaluate=False), {"G": (n, n)})
    assert shape_of(sp.Mul(3, X, evaluate=False), {}) == (n, d)  # a scalar factor is fine


EXAMPLE = SOFTMAX + "Its entries are $s_i$.\n\n## Example\n\n$z = (1, 2, 3)$.\n\n"


@pytest.mark.parametrize("shown, verdict", [("0.665", "proved"), ("0.666", "failed")])
def test_a_vectors_values_reach_its_entries_of_a_declared_size(shown, verdict):
    got = real(EXAMPLE + f"So $s_3 \\approx {shown}$.\n")
    assert got[f"s_3 \\approx {shown}"][0] == verdict


@pytest.mark.parametrize("terms, verdict", [("2.718 + 7.389", "proved"),
                                            ("2.718 + 7.489", "not checkable")])
def test_approx_against_a_sum_of_rounded_decimals(terms, verdict):
    got = real(f"$e^{{1}} + e^{{2}} \\approx {terms}$\n")
    assert got[f"e^{{1}} + e^{{2}} \\approx {terms}"][0] == verdict


def test_a_number_supposed_for_a_defined_entry_is_not_blamed():
    got = real(EXAMPLE + "If $s_3 = 0.25$, then … ; and $s_3 = \\frac{e^{3}}{e^{1} + e^{2} + "
                         "e^{3}} = 0.5$.\n")
    verdict, reason = got["s_3 = 0.25"]
    assert verdict == "not checkable" and "supposes" in reason
    # the near miss: a computation the note carries out is checked, and its wrong link fails
    assert got["s_3 = \\frac{e^{3}}{e^{1} + e^{2} + e^{3}} = 0.5"][0] == "failed"


def test_a_name_defined_again_in_a_section_beside_holds_there_only():
    # (in other terms: s = y + 1 after s = x², not a restatement checked against the first)
    got = real("# N\n\n$x, y \\in \\mathbb{R}$.\n\n## A\n\n$s = x^2$.\n\n## B\n\nHere "
               "$s = y + 1$, so $s - y = 1$.\n\n## C\n\nThen $s - x^2 = 0$.\n")
    assert got["s - y = 1"][0] == "proved"  # B's own meaning, in B
    verdict, reason = got["s - x^2 = 0"]
    assert verdict == "not checkable" and "defined twice" in reason


def test_a_matrix_whose_entries_the_note_writes_still_does_not_commute():
    """A and B declared n×n, their entries A_{ij} written too: as wholes they are matrices, so
    AB = BA fails (as entries' bases they would commute and it would be proved)."""
    head = (r"设 $A \in \mathbb{R}^{n \times n}$，$B \in \mathbb{R}^{n \times n}$，"
            "元素为 $A_{ij}$、$B_{ij}$。\n\n")
    got = real(head + r"于是 $AB = BA$，$A^\top B = B A^\top$。" + "\n")
    assert got["AB = BA"][0] == "failed" and got[r"A^\top B = B A^\top"][0] == "failed"
    # the near misses that hold: a transpose of a product, a sum
    got = real(head + r"于是 $(AB)^\top = B^\top A^\top$，且 $A + B = B + A$。" + "\n")
    assert got[r"(AB)^\top = B^\top A^\top"][0] == "proved"
    assert got["A + B = B + A"][0] == "proved"


VAR_HEAD = "$q_i$, $k_j$ and $x \\in \\mathbb{R}^{d_k}$.\n\n"


@pytest.mark.parametrize("scale, verdict", [("d_k", "failed"), ("\\sqrt{d_k}", "proved")])
def test_var_of_a_term_not_written_out_still_takes_its_factor_out_squared(scale, verdict):
    """q_iᵀk_j (vectors of no size) cannot be written out; inside Var it is one random scalar
    of unknown law, and Var(q_iᵀk_j / d_k) = Var(q_iᵀk_j) / d_k fails whatever it is."""
    stated = (f"\\mathrm{{Var}}\\left(\\frac{{q_i^\\top k_j}}{{{scale}}}\\right) = "
              "\\frac{\\mathrm{Var}(q_i^\\top k_j)}{d_k}")
    got = check_text(VAR_HEAD + f"$${stated}$$\n").formulas[-1]
    assert got.verdict == verdict and got.links[0].status == verdict


def test_a_term_not_written_out_on_one_side_only_is_not_checked():
    got = check_text(VAR_HEAD + "$$\\frac{\\mathrm{Var}(q_i^\\top k_j)}{d_k} = "
                                "\\frac{d_k}{d_k} = 1$$\n").formulas[-1]
    first, second = got.links
    assert first.status == "not checkable" and "only one side" in first.reason
    assert second.status == "proved" and got.verdict == "not checkable"


GRADS = ("$X \\in \\mathbb{R}^{n\\times d}$, $W \\in \\mathbb{R}^{d\\times m}$, "
         "$G \\in \\mathbb{R}^{n\\times m}$.\n\n")


@pytest.mark.parametrize("stated, verdict", [
    ("\\nabla_X L = W^\\top G", "failed"),   # (m×d)(n×m): no product
    ("\\nabla_X L = W G^\\top", "failed"),   # d×n, the gradient is n×d
    ("\\nabla_X L = G W^\\top", "not checkable"),  # fits: L is not written out
    ("\\nabla_W L = X^\\top G", "not checkable")])
def test_a_gradient_is_judged_by_the_shapes_of_its_sides(stated, verdict):
    got = real(GRADS + f"$${stated}$$\n")
    assert got[stated][0] == verdict
    if verdict == "failed":
        assert "by shapes" in got[stated][1]


def test_statements_side_by_side_are_read_each_on_its_own():
    """One statement refused (a row slice G_{i,:}) leaves the others read and checked."""
    grads = "\\nabla_W L = X^\\top G, \\qquad \\nabla_X L = {}, \\qquad \\nabla_b L = " \
            "\\sum_{{i=1}}^{{n}} G_{{i,:}}"
    wrong, right = grads.format("W^\\top G"), grads.format("G W^\\top")
    got = real(GRADS + f"$${wrong}$$\n\n$${right}$$\n")
    verdict, reason = got[wrong]
    assert verdict == "failed" and "by shapes" in reason and "`:` at character" in reason
    offset = int(reason.split("`:` at character ")[1].split(":")[0])
    assert wrong[offset] == ":"
    assert got[right][0] == "not checkable"  # the near miss: every statement that is read fits


LAW = ("For each entry, $m_i \\sim \\operatorname{Bernoulli}(1 - p)$, independently; "
       "$x \\in \\mathbb{R}^n$.\n\n")


@pytest.mark.parametrize("stated, verdict", [
    ("\\mathbb{E}[p\\, m_i x_i] = x_i", "failed"),
    ("\\mathbb{E}\\left[\\frac{m_i x_i}{1 - p}\\right] = x_i", "numeric"),
    ("\\mathbb{E}[m_i^3] = 1 - p", "numeric"),   # m³ = m: the law's values are 0 and 1
    ("\\mathbb{E}[m_i^2] = p", "failed"),
    ("\\mathrm{Var}(m_i) = p(1-p)", "numeric"),
    ("\\mathrm{Var}(m_i) = p", "failed")])
def test_a_bernoulli_variable_gives_e_and_var_their_values(stated, verdict):
    formulas = check_text(LAW + f"So ${stated}$.\n").formulas
    assert formulas[0].verdict == "not checkable" and "Bernoulli" in formulas[0].reason
    assert formulas[-1].latex == stated and formulas[-1].verdict == verdict
    if "x_i" in stated:
        assert "x taken as not random" in formulas[-1].links[0].reason


def test_a_law_the_checks_do_not_know_says_so():
    got = real("$w \\sim \\operatorname{Laplace}(0, 1)$. So $\\mathbb{E}[w] = 0$.\n")
    assert "not a law the checks know" in got["w \\sim \\operatorname{Laplace}(0, 1)"][1]
    assert got["\\mathbb{E}[w] = 0"][0] != "failed"


@pytest.mark.parametrize("stated, verdict", [("m_i^2 = m_i", "proved"), ("m_i^2 = 1", "failed"),
                                             ("e^{m_i} = 1 + (e - 1) m_i", "not checkable")])
def test_a_bernoulli_variable_takes_the_values_0_and_1(stated, verdict):
    formulas = check_text(LAW + f"So ${stated}$.\n").formulas
    assert formulas[-1].latex == stated and formulas[-1].verdict == verdict


@pytest.mark.parametrize("stated, verdict", [
    ("\\phi(x) = \\frac{1}{\\sqrt{2\\pi}} e^{-x^2/2}", "proved"),
    ("\\phi(x) = \\frac{1}{\\sqrt{2\\pi}} e^{-x^2}", "failed"),
    ("\\mathrm{ReLU}(x) = \\max(0, x)", "proved"),
    ("\\mathrm{ReLU}(x) = \\max(1, x)", "failed")])
def test_a_known_function_written_out_in_its_variable_is_checked(stated, verdict):
    """x in φ(x) = … is φ's variable, not a symbol the note must introduce first."""
    assert real(f"$${stated}$$\n")[stated][0] == verdict


def test_a_symbol_beside_the_functions_variable_must_still_be_introduced():
    stated = "\\mathrm{ReLU}(x) = \\max(c, x)"
    verdict, reason = real(f"$${stated}$$\n")[stated]
    assert verdict == "not checkable" and "uses c" in reason


LSE = ("$$\\frac{\\partial}{\\partial z_j} \\log \\sum_{k=1}^{n} e^{z_k} = "
       "\\frac{e^{z_j}}{%s}$$\n")


@pytest.mark.parametrize("denominator, verdict", [
    ("\\sum_{k=1}^{n} e^{z_k}", "proved"), ("(\\sum_{k=1}^{n} e^{z_k})^2", "failed")])
def test_a_free_index_of_a_summed_vector_ranges_over_the_sum(denominator, verdict):
    # z_j names one of the entries the sum runs over: at j = 2, n = 1 the formula means nothing
    # (it was failed there), so j is drawn in 1..n and the reason says so
    formula = check_text(LSE % denominator).formulas[0]
    assert formula.verdict == verdict
    assert all("1 ≤ j ≤ n" in link.reason for link in formula.links) and formula.links
    for link in formula.links:
        point = (link.counterexample or {}).get("point")
        if point:
            assert 1 <= int(point["j"]) <= int(point["n"])


@pytest.mark.parametrize("power, shown, verdict", [
    ("t", "0.001", "proved"), ("t", "0.002", "failed"), ("t-1", "0.001", "failed")])
def test_a_value_computed_through_a_definition_is_checked_against_it(power, shown, verdict):
    # v̂_t = v_t/(1 − β₂^{t−1}) divides by zero at t = 1: the value stated for v̂_1 is none of it
    note = (f"设 $\\beta_2 = 0.999$，$v_1 = 0.00025$。\n\n"
            f"$$\\hat{{v}}_t = \\frac{{v_t}}{{1 - \\beta_2^{{{power}}}}}$$\n\n"
            f"$\\hat{{v}}_1 = 0.00025 / {shown}$\n")
    formula = check_text(note).formulas[-1]
    assert formula.verdict == verdict
    if power == "t-1":
        assert "not defined" in formula.links[0].reason
