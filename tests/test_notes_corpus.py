"""The notes reader measured on the labelled corpus (tests/notes_corpus/): its notes, every
formula with its kind, correctness and expected reading (formulas.toml), and the key of the
planted errors (key.toml).

Asserted: readings faithful to the expected ones >= 90 %; silent misreadings (a reading that
differs structurally from the expected one, or one of a formula the language leaves out, and
not marked not understood) <= 1 %; planted errors found (the formula marked ✘) >= 80 %; right
formulas marked ✘: none.  The figures are printed (``pytest -s``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from derivations.notes import check_notes
from derivations.notes.markdown import parse

CORPUS = Path(__file__).resolve().parent / "notes_corpus"
FAITHFUL, SILENT, FOUND = 0.90, 0.01, 0.80


def _load(name: str, table: str) -> list[dict]:
    return tomllib.loads((CORPUS / name).read_text(encoding="utf-8"))[table]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    if not (CORPUS / "formulas.toml").is_file():
        pytest.fail(f"the labelled corpus is missing: expected {CORPUS}/formulas.toml")
    formulas, key = _load("formulas.toml", "formula"), _load("key.toml", "error")
    result = check_notes([CORPUS / "notes"], cache=tmp_path_factory.mktemp("cache"))
    by_file = {Path(n.path).name: n for n in result.notes}
    return formulas, key, by_file


def test_every_formula_is_found_at_its_offsets(corpus):
    formulas, _, by_file = corpus
    got = {(name, f.start, f.end, f.latex) for name, n in by_file.items() for f in n.formulas}
    want = {(f["file"], f["start"], f["end"], f["latex"]) for f in formulas}
    assert want - got == set() and got - want == set()


def _readings(formulas: list[dict]) -> tuple[int, int, int, list[str]]:
    from derivations.notes import latex as lx
    from derivations.notes.latex_adapter import overrides_text

    faithful = silent = total = 0
    wrong: list[str] = []
    for name in sorted({f["file"] for f in formulas}):
        path = CORPUS / "notes" / name
        text = path.read_text(encoding="utf-8")
        lines = overrides_text(text, path)
        table = lx.infer([f.latex for f in parse(text).formulas],
                         lx.parse_overrides(lines) if lines else None)
        for f in (f for f in formulas if f["file"] == name and "reading" in f):
            total += 1
            got = lx.read(f["latex"], table)
            expected = f["reading"]
            refused = expected.startswith("not understood")
            if isinstance(got, lx.NotUnderstood):
                faithful += refused
                continue
            same = not refused and lx.same_reading(got.expr, lx.parse_expected(expected, table))
            faithful += same
            if not same:
                silent += 1
                wrong.append(f"{name}: {f['latex']!r}: read {got.text}, expected {expected}")
    return faithful, silent, total, wrong


def test_readings_are_faithful_and_never_silently_wrong(corpus):
    formulas, _, _ = corpus
    faithful, silent, total, wrong = _readings(formulas)
    assert total >= 300, f"expected readings for >= 300 formulas, got {total}"
    print(f"\nreadings: {faithful}/{total} faithful ({100 * faithful / total:.1f} %), "
          f"{silent} silent misreadings ({100 * silent / total:.1f} %)")
    assert faithful / total >= FAITHFUL, wrong[:10]
    assert silent / total <= SILENT, wrong[:10]


def test_planted_errors_found_and_right_formulas_never_failed(corpus):
    formulas, key, by_file = corpus
    verdicts = {(name, f.start): f for name, n in by_file.items() for f in n.formulas}
    found, missed = 0, []
    for err in key:
        text = by_file[err["file"]].text
        at = text.index(err["locator"])
        hit = next(f for (name, _), f in verdicts.items()
                   if name == err["file"] and f.start <= at < f.end)
        if hit.verdict == "failed":
            found += 1
        else:
            missed.append(f"{err['file']}: {err['latex'][:50]!r}: {hit.verdict} ({hit.reason})")
    blamed = [f"{f['file']}: {f['latex']!r}: {verdicts[(f['file'], f['start'])].reason}"
              for f in formulas
              if f["correct"] and verdicts[(f["file"], f["start"])].verdict == "failed"]
    counts = {}
    for f in verdicts.values():
        counts[f.verdict] = counts.get(f.verdict, 0) + 1
    print(f"\nplanted errors found: {found}/{len(key)} ({100 * found / len(key):.1f} %); "
          f"right formulas marked failed: {len(blamed)}; verdicts: {counts}")
    assert len(key) >= 36
    assert not blamed, blamed[:10]
    assert found / len(key) >= FOUND, missed
