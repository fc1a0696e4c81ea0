"""The labelled notes corpus (tests/notes_corpus/) is consistent with its notes and its truths hold.

Everything here is checked without the project: the spans by markdown-it-py, each planted error by
its witness (mpmath, fractions, NumPy at a concrete point), and each formula with links between
plain numbers by its check expression.
"""

from __future__ import annotations

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
