"""Random variables a note gives a normal or a uniform law: E and Var of them checked from the
law's mean and variance, the parameters' conditions kept as hypotheses, and every property the
two moments do not settle refused with its reason (never checked with a law not the note's)."""

from __future__ import annotations

import pytest

from derivations.notes import check_text

NORMAL = "Let $W \\sim \\mathcal{N}(\\mu, \\sigma^2)$.\n\n"
XAVIER = ("Let $W \\sim \\mathcal{N}\\!\\left(0, \\frac{2}{n_{\\text{in}} + "
          "n_{\\text{out}}}\\right)$.\n\n")
UNIFORM = "Let $X \\sim U(a, b)$.\n\n"
SYMMETRIC = "Let $X \\sim \\mathcal{U}(-a, a)$.\n\n"
STANDARD = "Let $Z \\sim N(0, 1)$ and $Y \\sim N(0, 1)$.\n\n"


def last(text: str):
    return check_text(text).formulas[-1]


@pytest.mark.parametrize("law, stated, verdict", [
    (NORMAL, "\\mathbb{E}[W] = \\mu", "numeric"),
    (NORMAL, "\\mathbb{E}[W] = 0", "not checkable"),  # μ dropped: a W of another law
    (NORMAL, "\\mathbb{E}[W] = 2\\mu", "failed"),
    (NORMAL, "\\mathrm{Var}(W) = \\sigma^2", "numeric"),
    (NORMAL, "\\mathrm{Var}(W) = \\sigma", "failed"),  # the second parameter is the variance
    (NORMAL, "\\mathrm{Var}(3W + 1) = 9\\sigma^2", "numeric"),
    (NORMAL, "\\mathrm{Var}(3W + 1) = 3\\sigma^2", "failed"),
    (NORMAL, "\\mathbb{E}[W^2] = \\mu^2 + \\sigma^2", "numeric"),
    (NORMAL, "\\mathbb{E}[W^2] = 2\\mu^2 + \\sigma^2", "failed"),
    # μ dropped: read as a W of another law (the limit of that rule: not failed, not checked)
    (NORMAL, "\\mathbb{E}[W^2] = \\sigma^2", "not checkable"),
    (XAVIER, "\\mathrm{Var}(W) = \\frac{2}{n_{\\text{in}} + n_{\\text{out}}}", "numeric"),
    (XAVIER, "\\mathrm{Var}(W) = \\frac{1}{n_{\\text{in}} + n_{\\text{out}}}", "failed"),
    (STANDARD, "\\mathrm{Var}(Z) = 1", "numeric"),
    (STANDARD, "\\mathrm{Var}(Z) = 2", "failed"),
    (STANDARD, "\\mathbb{E}[Z + Y] = 0", "numeric"),  # linearity needs no independence
    # variables given laws are independent (READING.md §9): their product's moments settle
    (STANDARD, "\\mathbb{E}[ZY] = 0", "numeric"),
    (STANDARD, "\\mathbb{E}[ZY] = 1", "failed"),
    (STANDARD, "\\mathrm{Var}(Z + Y) = 2", "numeric"),
    (STANDARD, "\\mathrm{Var}(Z + Y) = 1", "failed"),
    (STANDARD, "\\mathrm{Var}\\left(\\sum_{i=1}^{n} Z Y\\right) = n^2", "numeric"),
    (UNIFORM, "\\mathbb{E}[X] = \\frac{a + b}{2}", "numeric"),
    (UNIFORM, "\\mathbb{E}[X] = \\frac{a + b}{3}", "failed"),
    (UNIFORM, "\\mathrm{Var}(X) = \\frac{(b - a)^2}{12}", "numeric"),
    (UNIFORM, "\\mathrm{Var}(X) = \\frac{(b - a)^2}{6}", "failed"),
    (SYMMETRIC, "\\mathrm{Var}(X) = \\frac{a^2}{3}", "numeric"),
    (SYMMETRIC, "\\mathrm{Var}(X) = \\frac{a^2}{2}", "failed"),
    (SYMMETRIC, "\\mathbb{E}[X] = 0", "numeric"),
])
def test_e_and_var_of_a_normal_or_uniform_variable(law, stated, verdict):
    got = check_text(law + f"So ${stated}$.\n").formulas
    assert got[0].verdict == "not checkable" and "a declaration" in got[0].reason
    assert got[-1].latex == stated and got[-1].verdict == verdict, got[-1].reason


@pytest.mark.parametrize("law, stated, why", [
    (NORMAL, "\\mathbb{E}[W^4] = 3\\sigma^4 + 6\\mu^2\\sigma^2 + \\mu^4",
     "a moment beyond the variance"),  # true for the normal law, but not from two moments
    (NORMAL, "W^2 = W", "outside E and Var"),  # the Bernoulli power rule is no rule here
    (NORMAL, "\\mathbb{E}[e^{W}] = e^{\\mu}", ""),
    (UNIFORM, "\\mathrm{Var}(X^2) = 1", "a moment beyond the variance"),
])
def test_what_two_moments_do_not_settle_is_refused_with_its_reason(law, stated, why):
    got = last(law + f"So ${stated}$.\n")
    assert got.latex == stated and got.verdict == "not checkable", got.reason
    assert why in got.reason


def test_a_wrong_power_rule_is_not_proved_for_a_normal_variable():
    # m^2 = m holds for a Bernoulli variable and is proved there; for W ~ N it is refused
    text = ("Let $m_i \\sim \\operatorname{Bernoulli}(q)$ and $W \\sim \\mathcal{N}(0, 1)$.\n\n"
            "So $m_i^2 = m_i$ and $W^2 = W$.\n")
    got = {f.latex: f for f in check_text(text).formulas}
    assert got["m_i^2 = m_i"].verdict == "proved"
    assert got["W^2 = W"].verdict == "not checkable"


def test_the_parameters_conditions_are_hypotheses_of_the_link():
    # |X - (a+b)/2| ≤ (b-a)/2 aside, sqrt of the variance is (b - a)/sqrt(12) only where a < b
    got = last(UNIFORM + "So $\\sqrt{\\mathrm{Var}(X)} = \\frac{b - a}{\\sqrt{12}}$.\n")
    assert got.verdict in ("proved", "numeric"), got.reason
    wrong = last(UNIFORM + "So $\\sqrt{\\mathrm{Var}(X)} = \\frac{a - b}{\\sqrt{12}}$.\n")
    assert wrong.verdict == "failed"


@pytest.mark.parametrize("law, why", [
    ("$W \\sim \\mathcal{N}(0, -1)$", "break its condition"),
    ("$X \\sim U(1, 0)$", "break its condition"),
    ("$w \\sim \\operatorname{Laplace}(0, 1)$", "not a law the checks know"),
    ("$W \\sim \\mathcal{N}(0)$", "of 2 parameters"),
])
def test_a_law_the_checks_cannot_use_says_why(law, why):
    got = check_text(f"Let {law}. So $\\mathbb{{E}}[W] = 0$.\n").formulas
    assert why in got[0].reason, got[0].reason
    assert got[-1].verdict != "failed"


def test_a_variance_stated_in_other_parameters_is_about_another_variable():
    # notes reuse W for each initialisation: Var(W) = 2/n_in after W ~ N(0, 2/(n_in + n_out))
    # is He's W, not this one; it is not checked (and so not failed)
    got = last(XAVIER + "He: $\\mathrm{Var}(W) = \\frac{2}{n_{\\text{in}}}$.\n")
    assert got.verdict == "not checkable" and "different parameters" in got.reason



def _scaled(law: str) -> str:
    return ("```symbols\nsize d_k\nvector q, k : d_k\nrandom q, k ~ " + law + "\n```\n\n# v\n\n"
            "$$\\operatorname{Var}(q^\\top k) = d_k$$\n\n"
            "$$\\operatorname{Var}\\left(\\frac{q^\\top k}{d_k}\\right) = 1$$\n")


def test_a_law_in_the_symbols_block_is_each_entry_s():
    note = check_text(_scaled("N(0, 1)"))
    assert [f.verdict for f in note.formulas] == ["numeric", "failed"]
    assert any("law Normal(0, 1)" in row.rests_on for row in note.symbols)


def test_a_law_in_the_symbols_block_must_be_a_law_and_only_of_a_random_variable():
    from derivations.notes.run import NotesError

    with pytest.raises(NotesError, match="not a law the checks know"):
        check_text(_scaled("q + 1"))
    with pytest.raises(NotesError, match="only a random variable has a law"):
        check_text("```symbols\nsize d ~ N(0, 1)\n```\n\n# v\n\n$$d = 1$$\n")
