"""A refusal speaks of the note and says what to write in it: an engine refusal in the note's
terms (its symbols block, a law, an index range), never the engine's Python API or a claim id;
a parse error names what the user writes, never the grammar's token names; ``\\lg`` is refused
with what to write.  Each checker has a failing case (the old messages)."""

from __future__ import annotations

import re

import pytest

from derivations.notes import check_notes, reasons
from derivations.notes.latex import read
from derivations.notes.latex.parser import _WORDS
from derivations.notes.refusals import engine_refusal, plain

# the engine's words for a Python author: a note can write none of them
PYTHON = re.compile(r"Domain\s*\(|Domain \(ranges|constants=|dims=|\bparams\b|claim 'note-")
# the grammar's names of its tokens, lower-cased as a parse error once showed them
GRAMMAR = re.compile(r"(?<!\\)(?<!a )\b(symbol|textword|top|word|opname|reals|beginmat|bigop|"
                     r"frac|int|sub|sup|lpar|rpar|lbrace|rbrace|minus|plus|\$end)\b")

UNDECLARED = ("claim 'note-adb99240f5b1': definition '\\\\mu' refers to x, which is not "
              "declared: neither its parameter (none), another definition of the claim nor a "
              "symbol of the claim (d, epsilon, hat_x, i, x); use x in the claim or declare it "
              "in its Domain (ranges=, constants= or dims=), or make it one of the definition's "
              "params")
NOT_RANDOM = ("claim 'note-950af131874e': k, q inside E or Var is neither random nor a constant; "
              "declare it in Domain(random={...: (mean, variance)}) or Domain(constants=(...))")
INDEX = ("claim 'note-1': index j is not declared in Domain, so it would be drawn as a real "
         "number; declare its range, e.g. Domain(indices={j: (1, n)}) with n its size")
OTHER = ("claim 'note-2': the condition a > 0 holds nowhere in the ranges; no point can be "
         "drawn — widen the range (Domain(ranges={a: (1, 2)}))")


def _both(reason) -> str:
    return reasons.text(reason, "en") + "\n" + reasons.text(reason, "zh")


@pytest.mark.parametrize(("error", "key", "says"), [
    (UNDECLARED, "refusal.undeclared", "vector x : n"),
    (NOT_RANDOM, "refusal.no_law", r"k \sim \mathcal{N}(0, 1)"),
    (INDEX, "refusal.index_range", r"j = 1, \dots, n"),
    (OTHER, "link.no_claim", "holds nowhere in the ranges"),
])
def test_an_engine_refusal_says_what_to_write_in_the_note(error, key, says):
    said = engine_refusal(error)
    assert said.key == key
    assert says in reasons.text(said, "en") and says in reasons.text(said, "zh")
    assert not PYTHON.search(_both(said)), _both(said)


@pytest.mark.parametrize("error", [UNDECLARED, NOT_RANDOM, INDEX, OTHER])
def test_the_old_messages_leak_the_python_api(error):
    assert PYTHON.search(_both(reasons.say("link.no_claim", error=error)))


def test_plain_keeps_the_engine_s_words_without_its_advice():
    assert plain(OTHER) == "the condition a > 0 holds nowhere in the ranges; no point can be drawn"
    assert plain("a plain failure") == "a plain failure"


@pytest.mark.parametrize("latex", ["x^-1", "a_", r"x ^ \top \top", r"\frac{a}{", "a = = b",
                                   r"\sum_{i=1}^{n}", r"y^{LS}_i _ 2", r"(a + b"])
def test_a_parse_error_names_what_the_user_writes(latex):
    got = read(latex)
    assert not got.ok
    for lang in ("en", "zh"):
        assert not GRAMMAR.search(reasons.text(got.why, lang)), reasons.text(got.why, lang)


def test_the_old_parse_error_names_grammar_tokens():
    old = "minus '-' is not expected here; expected a letter, a number, symbol, textword, top, {"
    assert GRAMMAR.search(old)
    assert all(w == w.strip() and w for w in _WORDS.values())


def test_a_sign_after_a_script_says_to_brace_it():
    got = read("e^-x + 1")
    assert got.why.key == "parse.script_braces" and "^{-x}" in got.why


def test_lg_is_refused_with_what_to_write():
    got = read(r"\lg 100 = 2")
    assert not got.ok and got.why.key == "read.lg"
    assert r"\log x / \log 10" in reasons.text(got.why, "zh")
    assert read(r"\log 100 / \log 10 = 2").ok


NOTE = """```symbols
size d
vector x : d
```

$$\\mu = \\frac{1}{d}\\sum_{i=1}^{d} x_i, \\quad
\\sigma^2 = \\frac{1}{d}\\sum_{i=1}^{d} (x_i - \\mu)^2$$

$$\\hat{x}_i = \\frac{x_i - \\mu}{\\sqrt{\\sigma^2 + \\epsilon}}$$

$$\\sum_{i=1}^{d} \\hat{x}_i = 0$$

$$\\sum_{i=1}^{d} \\hat{x}_i = 1$$

$$\\frac{1}{d}\\sum_{i=1}^{d} \\hat{x}_i^2 = 1$$
"""


def test_a_vector_only_definitions_use_is_declared_by_the_symbols_block(tmp_path):
    # x is declared (vector x : d) and used only inside the definitions of μ, σ² and x̂: the
    # links about x̂ are checked — the first holds, the second is wrong, and the third holds
    # only for ε = 0 (its ε stays in x̂), so it fails too
    note = tmp_path / "ln.md"
    note.write_text(NOTE, encoding="utf-8")
    result = check_notes([note], cache=tmp_path / "cache")
    verdicts = [(f.latex, f.verdict) for f in result.formulas if f.verdict != "definition"]
    assert verdicts == [(r"\sum_{i=1}^{d} \hat{x}_i = 0", "proved"),
                        (r"\sum_{i=1}^{d} \hat{x}_i = 1", "failed"),
                        (r"\frac{1}{d}\sum_{i=1}^{d} \hat{x}_i^2 = 1", "failed")]
    for f in result.formulas:
        assert not PYTHON.search(_both(f.reason)), f.reason




SOFTMAX = """{block}$z \\in \\mathbb{{R}}^n$,
$p_i = \\frac{{e^{{z_i}}}}{{\\sum_{{j=1}}^{{n}} e^{{z_j}}}}$.

For a uniform guess $p_i = \\frac{{1}}{{n}}$.
"""


@pytest.mark.parametrize(("block", "verdict", "key"), [
    # declared in the text: a link about z only through p is often under a prose condition
    ("", "not checkable", "refusal.through_definition"),
    # declared in the symbols block: checked for every z, and p_i = 1/n does not hold
    ("```symbols\nvector z : n\n```\n\n", "failed", None),
])
def test_a_vector_declared_in_the_text_is_said_so(tmp_path, block, verdict, key):
    note = tmp_path / "p.md"
    note.write_text(SOFTMAX.format(block=block), encoding="utf-8")
    last = check_notes([note], cache=tmp_path / "cache").formulas[-1]
    assert last.latex == r"p_i = \frac{1}{n}" and last.verdict == verdict, last.reason
    if key:
        assert last.links[0].reason.key == key
        # the refusal says z is declared, never that the note does not say what z is
        assert "declared in the text" in last.reason and "neither" not in last.reason


FLAGSHIP = ("设 $Q \\in \\mathbb{R}^{n \\times d_k}$，$K \\in \\mathbb{R}^{m \\times d_k}$，"
            "$V \\in \\mathbb{R}^{m \\times d_v}$。\n\n")


@pytest.mark.parametrize("latex", [
    "\\operatorname{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V = "
    "\\operatorname{softmax}\\left(\\frac{QK^\\top V}{\\sqrt{d_k}}\\right)",   # the flagship
    "\\operatorname{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V = "
    "\\operatorname{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V",    # the same sides
])
def test_softmax_of_a_matrix_is_refused_with_its_own_reason_never_proved(tmp_path, latex):
    # row by row its values are not written out: shapes alone cannot tell the flagship's two
    # sides apart (both n × d_v), so neither is judged, and neither is said ✔
    (tmp_path / "n.md").write_text(FLAGSHIP + f"$${latex}$$\n", encoding="utf-8")
    got = check_notes([tmp_path / "n.md"], cache=None).notes[0].formulas[-1]
    assert got.verdict == "not checkable"
    assert "softmax of a matrix, row by row: only its shape is checked" in got.reason
    assert "whole vector" not in got.reason


def test_softmax_of_a_matrix_of_the_wrong_shape_fails_and_of_a_vector_keeps_its_reason(tmp_path):
    (tmp_path / "n.md").write_text(
        FLAGSHIP + "$\\operatorname{softmax}\\left(\\frac{QK^\\top V}{\\sqrt{d_k}}\\right) \\in "
        "\\mathbb{R}^{n \\times m}$\n\n$\\operatorname{softmax}\\left(\\frac{QK^\\top V}"
        "{\\sqrt{d_k}}\\right) \\in \\mathbb{R}^{n \\times d_v}$\n\n设 $z \\in \\mathbb{R}^n$。"
        "$\\operatorname{softmax}(2z) = \\operatorname{softmax}(z)$\n", encoding="utf-8")
    got = check_notes([tmp_path / "n.md"], cache=None).notes[0].formulas
    assert [f.verdict for f in got[3:5]] == ["failed", "proved"]
    assert got[-1].verdict == "failed"  # a vector's softmax is checked entry by entry
