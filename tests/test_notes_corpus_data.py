"""The labelled notes corpus (tests/notes_corpus/) is consistent with its notes and its truths hold.

Everything here is checked without the project: the spans by markdown-it-py, each planted error by
its witness (mpmath, fractions, NumPy at a concrete point), and each formula with links between
plain numbers by its check expression.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
import shutil
import sys
import tomllib
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

CORPUS = Path(__file__).parent / "notes_corpus"
NOTES = CORPUS / "notes"
sys.path.insert(0, str(CORPUS))
import make_index  # noqa: E402

KINDS = {
    "chain", "equation", "definition", "parameter", "declaration", "approx", "property",
    "not checkable",
}
# kinds whose links between plain numbers must carry a check
NUMERIC_KINDS = {"chain", "equation", "approx"}
FORMULAS = tomllib.loads((CORPUS / "formulas.toml").read_text(encoding="utf-8"))["formula"]
ERRORS = tomllib.loads((CORPUS / "key.toml").read_text(encoding="utf-8"))["error"]
ERROR_IDS = [f"{e['file'][:2]}:{e['locator'][:30]}" for e in ERRORS]
TEXT = {p.name: p.read_text(encoding="utf-8") for p in NOTES.glob("*.md")}


def softmax(z):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def approx(value, written: str) -> bool:
    """value lies within half a unit of the last digit written ('0.665', '5.4e8', '2981')."""
    digits = Decimal(written)
    half = Decimal(5).scaleb(digits.as_tuple().exponent - 1)
    if isinstance(value, Fraction):
        return abs(value - Fraction(digits)) <= Fraction(half)
    with mpmath.workdps(50):
        return abs(mpmath.mpf(value) - mpmath.mpf(str(digits))) <= mpmath.mpf(str(half))


def evaluate(expression: str):
    with mpmath.workdps(50):
        names = {
            "mp": mpmath.mp, "Fraction": Fraction, "np": np, "math": math, "itertools": itertools,
            "softmax": softmax, "approx": approx,
        }
        return eval(expression, names)  # the corpus's own expressions, nothing from outside


def test_the_corpus_has_its_size():
    assert len(TEXT) >= 12
    assert len(FORMULAS) >= 300
    assert len(ERRORS) >= 36
    per_note = {name: sum(r["file"] == name for r in FORMULAS) for name in TEXT}
    assert all(20 <= n <= 40 for n in per_note.values()), per_note


def test_the_index_lists_exactly_the_math_spans():
    assert make_index.check(NOTES, CORPUS / "formulas.toml") == []


@pytest.mark.parametrize(
    "change",
    ["shift", "drop", "latex"],
)
def test_the_index_check_finds_a_wrong_index(tmp_path, change):
    text = (CORPUS / "formulas.toml").read_text(encoding="utf-8")
    first = FORMULAS[0]
    if change == "shift":
        text = text.replace(f"start = {first['start']}\n", f"start = {first['start'] + 1}\n", 1)
    elif change == "drop":
        text = text.split("[[formula]]", 2)
        text = text[0] + "[[formula]]" + text[2]
    else:
        text = text.replace(first["latex"], first["latex"] + " ", 1)
    wrong = tmp_path / "formulas.toml"
    wrong.write_text(text, encoding="utf-8")
    assert make_index.check(NOTES, wrong)


def test_the_index_check_finds_a_formula_added_to_a_note(tmp_path):
    notes = tmp_path / "notes"
    shutil.copytree(NOTES, notes)
    name = sorted(TEXT)[0]
    (notes / name).write_text(TEXT[name] + "\n再加一个 $x = 1$。\n", encoding="utf-8")
    assert make_index.check(notes, CORPUS / "formulas.toml")


def test_spans_are_found_in_every_kind_of_delimiter():
    text = (
        "# 标题 $a$\n\n文字 \\(b = 1\\) 和 $c$。\n\n$$\nd = 2\n$$\n\n\\[ e = 3 \\]\n\n"
        "> [!note] 标注\n> 这里 $f$ 成立。\n\n\\begin{align}\ng &= h\n\\end{align}\n"
    )
    found = [(s.latex, s.display) for s in make_index.spans(text)]
    assert found == [
        ("a", False), ("b = 1", False), ("c", False), ("d = 2", True), ("e = 3", True),
        ("f", False), ("\\begin{align}\ng &= h\n\\end{align}", True),
    ]
    assert all(text[s.start : s.end] == s.latex for s in make_index.spans(text))


def test_every_formula_is_labelled():
    for r in FORMULAS:
        assert r["kind"] in KINDS, r
        assert isinstance(r["correct"], bool), r


@pytest.mark.parametrize("error", ERRORS, ids=ERROR_IDS)
def test_each_planted_error_is_located_and_labelled(error):
    text = TEXT[error["file"]]
    assert text.count(error["locator"]) == 1
    at = text.index(error["locator"])
    end = at + len(error["locator"])
    hits = [
        r for r in FORMULAS if r["file"] == error["file"] and r["start"] <= at and end <= r["end"]
    ]
    assert len(hits) == 1 and hits[0]["latex"] == error["latex"]
    assert hits[0]["correct"] is False
    assert error["correct"] != error["latex"]
    if "link" in error:
        assert error["link"] in error["latex"] and re.search(r"=|\\approx", error["link"])
    for field in ("type", "what", "what_zh", "witness"):
        assert error[field].strip(), field


def test_only_the_planted_errors_are_marked_wrong():
    planted = {(e["file"], e["latex"]) for e in ERRORS}
    marked = {(r["file"], r["latex"]) for r in FORMULAS if not r["correct"]}
    assert marked == planted
    assert sum(not r["correct"] for r in FORMULAS) == len(ERRORS)


@pytest.mark.parametrize("error", ERRORS, ids=ERROR_IDS)
def test_each_witness_shows_the_formula_is_wrong(error):
    assert bool(evaluate(error["witness"])) is True


def test_approx_fails_on_a_wrong_rounding():
    assert approx(mpmath.sqrt(128), "11.3") and not approx(mpmath.sqrt(128), "11.2")
    assert approx(536870912, "5.4e8") and not approx(536870912, "5.3e8")


def test_a_witness_can_say_false():
    """The witness of a planted error, with the written number corrected, no longer holds."""
    assert evaluate("Fraction('0.5') + Fraction('0.1') * 2 != Fraction('0.7')") is False
    assert bool(evaluate("abs(mp.sqrt(128) - mp.mpf('11.3')) > mp.mpf('0.05')")) is False


CHECKED = [r for r in FORMULAS if "check" in r]


@pytest.mark.parametrize("formula", CHECKED, ids=[f"{r['file'][:2]}@{r['start']}" for r in CHECKED])
def test_each_check_agrees_with_the_label(formula):
    assert bool(evaluate(formula["check"])) is formula["correct"]


def test_checks_include_wrong_formulas():
    """The check of a planted numeric error is False: the checks can fail."""
    assert sum(not r["correct"] for r in CHECKED) >= 10


_NOISE = re.compile(
    r"\\text\{[^}]*\}|\\(?:frac|sqrt|times|cdot|left|right|big|Big|quad|qquad)|\\[,;! ]"
)


def _plain_number(side: str) -> bool:
    side = _NOISE.sub(" ", side)
    return bool(re.search(r"\d", side)) and not re.search(r"[A-Za-z\\]", side)


def test_every_link_between_plain_numbers_has_a_check():
    missing = []
    for r in FORMULAS:
        if r["kind"] not in NUMERIC_KINDS:
            continue
        sides = re.split(r"=|\\approx", r["latex"])
        if any(_plain_number(a) and _plain_number(b) for a, b in itertools.pairwise(sides)):
            if "check" not in r:
                missing.append((r["file"], r["latex"]))
    assert missing == []


def test_plain_number_detection():
    assert _plain_number(r" 0.5 + 0.1 \times 2 ") and _plain_number(r"\frac{0.07}{1 - 0.9}")
    assert not _plain_number(r"g_1 ") and not _plain_number(r"\sqrt{d_k}")


# --- readings ---------------------------------------------------------------------------------
# An expected reading is either "not understood: <why>" or an expression of the reading language
# (Python syntax). Its numeric links are evaluated here by a small interpreter of our own (exact
# fractions for the decimals as written, mpmath for the functions), so a reading that mistypes a
# number or a bracket disagrees with the formula's label.

NOT_UNDERSTOOD = "not understood: "


class _Symbolic(Exception):
    """The term holds a symbol: its value is not a number."""


_FUNCTIONS = {"sqrt": mpmath.sqrt, "exp": mpmath.exp, "log": mpmath.log, "sin": mpmath.sin,
              "cos": mpmath.cos}
_CONSTANTS = {"e": mpmath.e, "pi": mpmath.pi}


def _number(x):
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _equal(x, y) -> bool:
    if isinstance(x, Fraction) and isinstance(y, Fraction):
        return x == y
    return abs(_number(x) - _number(y)) < mpmath.mpf(10) ** -40


def _elementwise(op, a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return tuple(_elementwise(op, x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, tuple):
        return tuple(_elementwise(op, x, b) for x in a)
    if isinstance(b, tuple):
        return tuple(_elementwise(op, a, y) for y in b)
    return op(a, b)


def _power(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction) and b.denominator == 1:
        return a ** int(b)
    return mpmath.power(_number(a), _number(b))


def _matmul(a, b):
    return tuple(
        tuple(sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0])))
        for i in range(len(a))
    )


def _value(node, source):
    """The number (or tuple, or matrix as nested tuples) a term of a reading stands for."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise _Symbolic
        return Fraction(ast.get_source_segment(source, node))
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise _Symbolic
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _elementwise(lambda x, _: -x, _value(node.operand, source), Fraction(0))
    if isinstance(node, ast.BinOp):
        a, b = _value(node.left, source), _value(node.right, source)
        if isinstance(node.op, ast.Mult) and _is_matrix(a) and _is_matrix(b):
            return _matmul(a, b)
        ops = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y,
               ast.Mult: lambda x, y: x * y, ast.Pow: _power,
               ast.Div: lambda x, y: x / y if isinstance(x, Fraction) and isinstance(y, Fraction)
               else _number(x) / _number(y)}
        return _elementwise(ops[type(node.op)], a, b)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name == "Matrix" and len(node.args) == 1 and isinstance(node.args[0], ast.List):
            return tuple(tuple(_value(c, source) for c in row.elts) for row in node.args[0].elts)
        args = [_value(a, source) for a in node.args]
        if name == "Tuple":
            return tuple(args)
        if name == "softmax" and len(args) == 1 and isinstance(args[0], tuple):
            exps = [mpmath.exp(_number(x)) for x in args[0]]
            return tuple(x / sum(exps) for x in exps)
        if name in _FUNCTIONS and len(args) == 1:
            return _FUNCTIONS[name](_number(args[0]))
    raise _Symbolic


def _is_matrix(x):
    return isinstance(x, tuple) and x and isinstance(x[0], tuple)


def _flat(x):
    if isinstance(x, tuple):
        return [y for item in x for y in _flat(item)]
    return [x]


def _literal_texts(node, source):
    """The digits as written of a literal number or a tuple of them, else None."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Tuple":
        texts = [_literal_texts(a, source) for a in node.args]
        return None if None in texts else [t for ts in texts for t in ts]
    scientific = (
        isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
        and isinstance(node.left, ast.Constant) and isinstance(node.right, ast.BinOp)
        and isinstance(node.right.op, ast.Pow) and getattr(node.right.left, "value", None) == 10
    )
    if scientific:
        exponent = ast.get_source_segment(source, node.right.right).strip("()")
        return [f"{ast.get_source_segment(source, node.left)}e{exponent}"]
    if isinstance(node, ast.Constant | ast.UnaryOp):
        try:
            _value(node, source)
        except _Symbolic:
            return None
        return [ast.get_source_segment(source, node).replace(" ", "")]
    return None


def _links(node):
    """The relations of a reading, in order: (name, lhs, rhs)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("Chain", "Formulas"):
            return [link for a in node.args for link in _links(a)]
        if node.func.id in ("Eq", "Approx") and len(node.args) == 2:
            return [(node.func.id, node.args[0], node.args[1])]
    return []


def numeric_truths(reading: str) -> list[bool]:
    """The truth of each link of the reading whose two sides are numbers (others are skipped)."""
    tree = ast.parse(reading, mode="eval").body
    truths = []
    with mpmath.workdps(50):
        for name, lhs, rhs in _links(tree):
            try:
                a, b = _value(lhs, reading), _value(rhs, reading)
            except _Symbolic:
                continue
            if name == "Eq":
                pairs = zip(_flat(a), _flat(b), strict=True)
                truths.append(all(_equal(x, y) for x, y in pairs))
            else:
                written, value = _literal_texts(rhs, reading), a
                if written is None:
                    written, value = _literal_texts(lhs, reading), b
                if written is not None:
                    truths.append(all(approx(v, w)
                                      for v, w in zip(_flat(value), written, strict=True)))
    return truths


def test_every_formula_has_a_reading():
    for r in FORMULAS:
        reading = r["reading"]
        if reading.startswith(NOT_UNDERSTOOD):
            assert len(reading) > len(NOT_UNDERSTOOD) + 5, r
        else:
            ast.parse(reading, mode="eval")


READ = [r for r in FORMULAS if not r["reading"].startswith(NOT_UNDERSTOOD)]


@pytest.mark.parametrize("formula", READ, ids=[f"{r['file'][:2]}@{r['start']}" for r in READ])
def test_the_numbers_of_each_reading_agree_with_the_label(formula):
    truths = numeric_truths(formula["reading"])
    if formula["correct"]:
        assert all(truths)
    elif "check" in formula and truths:
        assert not all(truths)


def test_readings_of_checked_formulas_are_evaluated():
    """The interpreter reaches most formulas with numeric links, wrong ones among them."""
    evaluated = [r for r in READ if "check" in r and numeric_truths(r["reading"])]
    assert len(evaluated) >= 80
    assert sum(not r["correct"] for r in evaluated) >= 10


def test_the_reading_interpreter_finds_a_wrong_number():
    assert numeric_truths("Chain(Eq(g_1, 0.5 + 0.1*2), Eq(0.5 + 0.1*2, 0.7))") == [True]
    assert numeric_truths("Chain(Eq(g_1, 0.5 + 0.1*2), Eq(0.5 + 0.1*2, 0.6))") == [False]
    assert numeric_truths("Approx(sqrt(128), 11.2)") == [False]
    assert numeric_truths("Approx(Tuple(1/3, 2/3), Tuple(0.333, 0.667))") == [True]
    assert numeric_truths("Approx(536870912, 5.4*10**8)") == [True]
    assert numeric_truths("Approx(536870912, 5.3*10**8)") == [False]
    assert numeric_truths(
        "Eq(Matrix([[1, 3], [2, 4]])*Matrix([[1, 1], [0, 1]]), Matrix([[1, 4], [2, 5]]))"
    ) == [False]
