"""Premises a note states (设 … Σ y_i = 1) and identities in letters of their own: the words
that make a premise, and what is still refused or blamed."""

from derivations.notes.run import check_text

CE = ("# ce\n\n{lead} $z \\in \\mathbb{{R}}^n$，$p_i = \\frac{{e^{{z_i}}}}{{\\sum_{{j=1}}^{{n}} "
      "e^{{z_j}}}}$，$\\sum_{{i=1}}^{{n}} y_i = 1$。\n\n$$L = -\\sum_{{i=1}}^{{n}} y_i \\log p_i$$"
      "\n\n$$\\frac{{\\partial L}}{{\\partial z_i}} = {grad}$$\n")


def _verdicts(text: str) -> list[tuple[str, str]]:
    return [(f.latex, f.verdict) for f in check_text(text, "n.md").formulas]


def test_a_premise_after_she_is_a_hypothesis_and_not_checked_itself():
    got = check_text(CE.format(lead="设", grad="p_i - y_i"), "n.md").formulas
    premise = next(f for f in got if f.latex.startswith(r"\sum"))
    assert premise.verdict == "not checkable" and "premise" in premise.reason
    assert got[-1].verdict == "proved" and "assuming the note's premise" in got[-1].reason


def test_a_premise_does_not_make_a_wrong_gradient_right():
    assert _verdicts(CE.format(lead="设", grad="y_i - p_i"))[-1][1] == "failed"


def test_if_is_no_premise_word_and_then_ends_one():
    # 如果 (if) introduces a step a note may get wrong: the sum is then no premise
    for lead in ("如果", "设 $n$ 为类别数，则"):
        got = check_text(CE.format(lead=lead, grad="p_i - y_i"), "n.md").formulas
        premise = next(f for f in got if f.latex.startswith(r"\sum"))
        assert "premise" not in premise.reason, lead
        assert "assuming" not in got[-1].reason and got[-1].verdict != "proved", lead


def test_an_identity_for_all_real_letters_on_both_sides_only():
    assert _verdicts("# a\n\n$$(a - b)^2 = a^2 - 2ab + b^2$$\n")[-1][1] == "proved"
    assert _verdicts("# a\n\n$$(a - b)^2 = a^2 - ab + b^2$$\n")[-1][1] == "failed"
    assert _verdicts("# a\n\n$$x + y = 1$$\n")[-1][1] == "not checkable"


def test_a_bernoulli_variable_is_introduced_by_its_law():
    text = ("# d\n\n$m \\sim \\operatorname{Bernoulli}(1 - p)$.\n\n"
            "$$\\mathbb{E}\\left[\\frac{m}{1 - p} x\\right] = x$$\n\n"
            "$$\\mathbb{E}\\left[\\frac{m}{p} x\\right] = x$$\n")
    got = _verdicts(text)
    assert got[-2][1] in ("proved", "numeric") and got[-1][1] == "failed"


def test_a_definition_or_a_value_after_she_is_no_premise():
    """设 before a definition (σ(x) = …) or a value (η₃ = 0.2, a₁ = 2) defines or states: taken
    for a premise it would stop every later step of the derivation from being checked."""
    text = ("# s\n\n设 $x \\in \\mathbb{R}$，$\\sigma(x) = \\frac{1}{1 + e^{-x}}$。\n\n"
            "$$\\frac{d}{dx}\\sigma(x) = \\sigma(x)\\left(1 + \\sigma(x)\\right)$$\n")
    got = check_text(text, "n.md").formulas
    assert "premise" not in got[1].reason and got[-1].verdict == "failed"
    for value in ("\\eta_3 = 0.2", "a_1 = 2"):
        note = f"# v\n\n$\\eta_t = 0.5^t$, $a_n = 2n$.\n\n设 ${value}$。\n"
        assert "premise" not in check_text(note, "n.md").formulas[-1].reason, value
    # a premise about a sum is still one
    sums = check_text(CE.format(lead="设", grad="p_i - y_i"), "n.md").formulas
    assert "premise" in next(f for f in sums if f.latex.startswith(r"\sum")).reason
