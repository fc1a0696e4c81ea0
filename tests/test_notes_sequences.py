"""Sequences a note gives from entries of themselves (a recursion, a closed form in its own start
values) and values it states for them: checked at the start, computed, and blamed only when the
words before them conclude them (READING.md §8, whose examples are checked here too)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from derivations.notes import check_text
from derivations.notes.reasons import data_of, plain
from derivations.notes.wording import CONCLUDED, SUPPOSED, stance

SPEC = Path(__file__).parents[1] / "derivations" / "notes" / "latex" / "READING.md"
SCHEDULE = "学习率按 $\\eta_t = \\eta_0 \\cdot 0.5^{t}$ 衰减，$\\eta_0 = 0.8$"


def _examples() -> list[tuple[int, str, list[str]]]:
    text = SPEC.read_text(encoding="utf-8")
    block = re.search(r"```stated-examples\n(.*?)```", text, re.DOTALL)
    assert block, "READING.md has no stated-examples block"
    first = text[:block.start(1)].count("\n") + 1
    out, note = [], None
    for k, line in enumerate(block.group(1).splitlines()):
        if line.startswith("note:"):
            note = (first + k, line.removeprefix("note:").strip())
        elif line.startswith("verdicts:"):
            out.append((*note, [v.strip() for v in line.removeprefix("verdicts:").split("|")]))
    return out


EXAMPLES = _examples()


def test_the_spec_has_its_examples():
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize("line, note, verdicts", EXAMPLES, ids=[f"L{e[0]}" for e in EXAMPLES])
def test_spec_example(line, note, verdicts):
    got = [f.verdict for f in check_text(note + "\n").formulas]
    assert got == verdicts, f"READING.md line {line}: {note}"


def _by_latex(text: str) -> dict:
    return {f.latex: f for f in check_text(text).formulas}


def test_a_concluded_value_is_blamed_with_the_value_the_closed_form_gives():
    got = _by_latex(SCHEDULE + "，所以 $\\eta_3 = 0.2$。\n")
    closed, wrong = got["\\eta_t = \\eta_0 \\cdot 0.5^{t}"], got["\\eta_3 = 0.2"]
    assert closed.verdict == "definition" and "closed form" in closed.reason
    assert wrong.verdict == "failed" and wrong.mark == "✘"
    link = wrong.failed_links[0]
    said = data_of(link.reason)
    assert said["key"] == "link.concluded_with"
    assert said["params"]["equation"] == "\\eta_3 = \\eta_0 \\cdot 0.5^{3} = 0.1"
    assert said["params"]["values"] == "\\eta_{0} = 0.8"
    assert link.definitions == {"\\eta_t": "line 1: \\eta_t = \\eta_0 \\cdot 0.5^{t}"}
    assert link.counterexample  # the two sides as numbers
    zh = plain(wrong.reason, "zh")
    assert "推出的结论" in zh and "0.1" in zh and "不是" in zh
    # the right value is proved (the check can tell the two apart)
    assert _by_latex(SCHEDULE + "，所以 $\\eta_3 = 0.1$。\n")["\\eta_3 = 0.1"].verdict == "proved"


@pytest.mark.parametrize("words", ["设 ", "若 ", "假设 ", "If ", "Suppose "])
def test_a_supposed_value_is_not_blamed(words):
    wrong = _by_latex(SCHEDULE + f"。{words}$\\eta_3 = 0.2$。\n")["\\eta_3 = 0.2"]
    assert wrong.verdict == "not checkable"
    assert data_of(wrong.reason)["key"] == "link.supposed"


def test_a_value_the_words_say_nothing_of_is_not_blamed_and_says_so():
    wrong = _by_latex(SCHEDULE + "，$\\eta_3 = 0.2$。\n")["\\eta_3 = 0.2"]
    assert wrong.verdict == "not checkable"
    said = data_of(wrong.reason)
    assert said["key"] == "link.unsaid" and said["params"]["value"] == "0.1"


def test_a_conclusion_after_a_supposition_against_the_definition_is_not_blamed():
    got = _by_latex(SCHEDULE + "。设 $\\eta_3 = 0.2$，则 $\\eta_5 = 0.05$。\n")
    assert data_of(got["\\eta_5 = 0.05"].reason)["key"] == "link.after_supposition"
    # in a paragraph of its own the conclusion is blamed again
    again = _by_latex(SCHEDULE + "。设 $\\eta_3 = 0.2$。\n\n所以 $\\eta_5 = 0.05$。\n")
    assert again["\\eta_5 = 0.05"].verdict == "failed"


def test_a_closed_form_that_misses_its_start_value_fails_and_computes_nothing():
    got = _by_latex("Let $a_n = a_1 r^{n}$ with $a_1 = 2$ and $r = 3$; hence $a_2 = 18$.\n")
    closed = got["a_n = a_1 r^{n}"]
    assert closed.verdict == "failed"
    assert data_of(closed.reason)["key"] == "sequence.start_fails"
    assert closed.failed_links[0].counterexample
    # a_2 = 18 is what a_1 r^n gives, 6 what a_1 r^{n-1} gives: neither is taken
    assert got["a_2 = 18"].verdict == "not checkable"
    right = _by_latex("Let $a_n = a_1 r^{n-1}$ with $a_1 = 2$ and $r = 3$; hence $a_2 = 6$.\n")
    assert right["a_n = a_1 r^{n-1}"].verdict == "definition"
    assert right["a_2 = 6"].verdict == "proved"


@pytest.mark.parametrize("recursion", ["\\eta_{t+1} = 0.5\\,\\eta_t",
                                       "\\eta_t = 0.5\\,\\eta_{t-1}"])
def test_a_recursion_is_recorded_not_blamed_and_its_terms_are_computed(recursion):
    head = f"按 ${recursion}$ 衰减，$\\eta_0 = 0.8$，所以 "
    ok = _by_latex(head + "$\\eta_3 = 0.1$。\n")
    assert ok[recursion].verdict == "not checkable"
    assert data_of(ok[recursion].reason)["key"] == "check.recursion"
    assert ok["\\eta_3 = 0.1"].verdict == "proved"
    assert _by_latex(head + "$\\eta_3 = 0.2$。\n")["\\eta_3 = 0.2"].verdict == "failed"


def test_a_claim_at_any_index_is_checked_with_the_closed_form():
    head = "设 $h \\in \\mathbb{R}$，$x_k = x_0 + k h$。"
    assert _by_latex(head + "于是 $x_{k+1} - x_k = h$。\n")["x_{k+1} - x_k = h"].verdict == \
        "proved"
    wrong = _by_latex(head + "于是 $x_{k+1} - x_k = 2 h$。\n")["x_{k+1} - x_k = 2 h"]
    assert wrong.verdict == "failed"
    assert wrong.failed_links[0].definitions == {"x_k": "line 1: x_k = x_0 + k h"}
    assert "x_k from line 1" in wrong.reason


@pytest.mark.parametrize("before, previous, want", [
    ("，所以 ", None, CONCLUDED), ("。设 ", None, SUPPOSED), ("Hence, ", None, CONCLUDED),
    ("so that ", None, SUPPOSED), ("所以，若 ", None, SUPPOSED), ("i.e. ", None, CONCLUDED),
    ("，则 ", None, CONCLUDED), ("再举一个：若 ", None, SUPPOSED),
    # a conclusion goes on across a comma or "且", not across a sentence or a paragraph
    ("，", CONCLUDED, CONCLUDED), ("$ 且 $", CONCLUDED, CONCLUDED), ("。", CONCLUDED, None),
    ("\n\n", CONCLUDED, None),
    # a supposition does not: "若 p = 0.9，L = …" writes its consequence so
    ("，", SUPPOSED, None),
    # no marker, or one inside a word meaning neither
    ("衰减，", None, None), ("学习率的取值为 ", None, None), ("", None, None),
])
def test_the_words_before_a_formula(before, previous, want):
    assert stance(before, previous) == want


def test_a_closed_form_in_other_symbols_than_its_recursion_is_not_checked():
    head = "预热 $\\eta_{t+1} = \\eta_t + \\delta$，$\\eta_0 = 0$。"
    apart = _by_latex(head + "又 $\\eta_t = \\frac{t}{5} \\eta_{\\max}$。\n")
    said = data_of(apart["\\eta_t = \\frac{t}{5} \\eta_{\\max}"].reason)
    assert said["key"] == "closedform.apart"
    # in the recursion's own symbols the closed form is checked, right and wrong
    assert _by_latex(head + "又 $\\eta_t = t \\delta$。\n")["\\eta_t = t \\delta"].verdict == \
        "proved"
    assert _by_latex(head + "又 $\\eta_t = (t + 1) \\delta$。\n")[
        "\\eta_t = (t + 1) \\delta"].verdict == "failed"


COSINE = ("余弦调度：$\\eta_t = \\eta_{\\min} + \\frac{1}{2}(\\eta_{\\max} - \\eta_{\\min})"
          "\\left(1 + \\cos\\frac{\\pi t}{T}\\right)$。\n\n取 $\\eta_{\\max} = 0.001$，"
          "$\\eta_{\\min} = 0$，$T = 10$，于是 ")


@pytest.mark.parametrize("shown, verdict", [("0.0005", "proved"), ("0.0006", "failed")])
def test_a_schedule_with_a_half_in_it_holds_beyond_its_paragraph(shown, verdict):
    # the ½ of \frac{1}{2} is no decimal of an example: the schedule is the note's, and the
    # example's step in the next paragraph is checked with it
    got = _by_latex(COSINE + f"$\\eta_5 = {shown}$。\n")
    assert got[f"\\eta_5 = {shown}"].verdict == verdict


def test_an_examples_step_against_a_closed_form_names_it_when_it_fails():
    head = "取 $a_0 = 1$，$r = 0.5$。等比数列 $a_k = a_0 r^{k}$，所以 "
    wrong = _by_latex(head + "$a_0 + a_1 + a_2 + a_3 = 1.75$。\n")["a_0 + a_1 + a_2 + a_3 = 1.75"]
    assert wrong.verdict == "failed"
    assert wrong.failed_links[0].definitions == {"a_k": "line 1: a_k = a_0 r^{k}"}
    right = _by_latex(head + "$a_0 + a_1 + a_2 + a_3 = 1.875$。\n")
    assert right["a_0 + a_1 + a_2 + a_3 = 1.875"].verdict == "proved"


ADAM = "一阶矩按 $m_t = \\beta_1 m_{t-1} + (1 - \\beta_1) g_t$ 更新，初值 $m_0 = 0$。\n\n"


def test_a_value_at_a_free_index_is_every_entrys_and_the_slip_after_it_is_found():
    got = _by_latex(ADAM + "取 $\\beta_1 = 0.9$，梯度恒为 $g_t = 1$，于是 $m_1 = 0.1$，"
                    "$m_2 = 0.19$，$m_3 = 0.271$。\n\n偏差校正：$\\hat{m}_t = \\frac{m_t}{1 - "
                    "\\beta_1^t}$，所以 $\\hat{m}_2 = \\frac{0.19}{1 - 0.9^2} = 1$。\n\n又因为 "
                    "$1 - 0.9^{3} = 0.271$，可得 $\\hat{m}_3 = 0.9$。\n")
    shown = data_of(got["g_t = 1"].reason)  # the reading, shown back
    assert shown["key"] == "check.gives_every_value"
    assert shown["params"]["first"] == "g_{1}" and shown["params"]["line"] == "1"
    assert "g_{1} = g_{2} = … = 1" in got["g_t = 1"].reason
    for entry in ("m_1 = 0.1", "m_2 = 0.19", "m_3 = 0.271",
                  "\\hat{m}_2 = \\frac{0.19}{1 - 0.9^2} = 1"):
        assert got[entry].verdict == "proved", (entry, got[entry].reason)
    wrong = got["\\hat{m}_3 = 0.9"]
    assert wrong.verdict == "failed"
    link = wrong.failed_links[0]
    assert link.counterexample["current"] == "0.9" and link.counterexample["previous"] == "1.0"
    assert "\\hat{m}_3 = 1, not 0.9" in link.reason


@pytest.mark.parametrize("said", [
    "当 $t = 1$ 时，梯度 $g_t = 1$",       # t given a value before, in a formula
    "梯度 $g_t = 1$（这里 $t = 1$）",       # after it, in its paragraph
    "t = 1 时梯度 $g_t = 1$",              # in words
    "at t=1 the gradient is $g_t = 1$",
])
def test_a_value_at_a_bound_index_is_not_generalised(said):
    got = _by_latex(ADAM + f"取 $\\beta_1 = 0.9$，{said}，所以 $m_2 = 0.5$，$m_3 = 0.9$。\n")
    assert data_of(got["g_t = 1"].reason)["key"] == "check.gives_value"
    assert got["m_2 = 0.5"].verdict != "failed" and got["m_3 = 0.9"].verdict != "failed"


def test_a_value_at_a_letter_no_other_formula_indexes_by_is_not_generalised():
    got = _by_latex("初值 $m_0 = 0$，$\\beta_1 = 0.9$，梯度恒为 $g_t = 1$。\n")
    assert data_of(got["g_t = 1"].reason)["key"] == "check.gives_value"


def test_an_entry_given_at_its_index_wins_over_every_entrys_value():
    got = _by_latex(ADAM + "取 $\\beta_1 = 0.9$，梯度恒为 $g_t = 1$，但设 $g_2 = 0.5$，"
                    "于是 $m_2 = 0.14$，$m_3 = 0.226$，所以 $m_3 = 0.25$。\n")
    assert got["m_2 = 0.14"].verdict == "proved" and got["m_3 = 0.226"].verdict == "proved"
    assert got["m_3 = 0.25"].verdict == "failed"


@pytest.mark.parametrize("shown, verdict", [("0.19", "proved"), ("0.18", "failed")])
def test_an_entry_of_a_recursion_in_symbols_is_computed_from_it(shown, verdict):
    # m_2 = 0.9 (0.9 · 0 + 0.1 g) + 0.1 g = 0.19 g: no definition of m_2 but a value to check
    note = f"$m_0 = 0$，$m_t = 0.9 m_{{t-1}} + 0.1 g$。所以 $m_2 = {shown} g$。\n"
    got = {f.latex: f for f in check_text(note).formulas}
    assert got[f"m_2 = {shown} g"].verdict == verdict


COSINE_ALONE = ("$\\eta_t = \\eta_{\\min} + \\frac{1}{2}(\\eta_{\\max} - \\eta_{\\min})"
          "\\left(1 + \\cos\\frac{\\pi t}{T}\\right)$\n\n")


@pytest.mark.parametrize("end, verdict", [("\\eta_{\\min}", "proved"),
                                          ("\\eta_{\\max}", "failed")])
def test_the_end_of_a_schedule_is_checked_with_the_letters_of_its_definition(end, verdict):
    # T and η_max stand in the definition just above: the line is no refusal but a claim
    got = {f.latex: f for f in check_text(COSINE_ALONE + f"所以 $\\eta_T = {end}$。\n").formulas}
    assert got[f"\\eta_T = {end}"].verdict == verdict


@pytest.mark.parametrize("shown, verdict", [("0.0729", "proved"), ("0.0739", "failed")])
def test_a_sequence_given_in_its_own_section_hides_the_one_of_the_section_before(shown,
                                                                                 verdict):
    note = ("# t\n\n## 余弦\n\n" + COSINE_ALONE + "## 指数衰减\n\n"
            "$\\gamma = 0.9$，$\\eta_0 = 0.1$，$\\eta_t = \\eta_0 \\gamma^t$。"
            f"所以 $\\eta_3 = {shown}$。\n")
    got = {f.latex: f for f in check_text(note).formulas}
    assert got["\\eta_0 = 0.1"].verdict == "not checkable"  # a start value, not the cosine's
    assert got[f"\\eta_3 = {shown}"].verdict == verdict
