"""The audit's evidence values are one record in two languages: every row value and summary has
a Chinese text with the same numbers and formulas as the English, math typeset as $…$."""

from __future__ import annotations

import re

import pytest

from reports.audit import errata, evidence
from reports.audit.errata import view
from reports.render import i18n
from reports.view import edition as report_view


def test_every_evidence_value_has_a_chinese_text(audit):
    gaps = view.untranslated_values(audit["records"])
    assert gaps == [], "evidence values not bilingual:\n" + "\n".join(gaps)
    values = [row["value"] for r in audit["records"] for row in r["evidence_view"]["rows"]]
    assert len(values) > 100  # the audit really ran: an empty list would pass vacuously


GOOD = {"en": r"$d_k = 64$: divisor 8, variance 1", "zh": r"$d_k = 64$：除数 8，方差 1"}


@pytest.mark.parametrize(("value", "expected"), [
    ({"en": GOOD["en"]}, "has no Chinese text"),
    ({"en": GOOD["en"], "zh": " "}, "has no Chinese text"),
    ({"en": "sqrt(d_k) = 8", "zh": "sqrt(d_k) = 8"}, "ASCII pseudo-TeX"),
    ({"en": GOOD["en"], "zh": r"$d_k = 64$：除数 8，方差 2"}, "numbers differ"),
    ({"en": GOOD["en"], "zh": r"$d_k=64$：除数 8，方差 1"}, "formulas differ"),
])
def test_a_value_missing_or_unlike_its_chinese_text_is_named(value, expected):
    assert view.value_problems("rec row 1", GOOD) == []
    problems = view.value_problems("rec row 1", value)
    assert problems and all(p.startswith("rec row 1") for p in problems)
    assert any(expected in p for p in problems), problems


def test_an_untranslated_check_fails_the_audit_and_shows_marked(monkeypatch, audit):
    rec = next(r for r in errata.read() if r["verdict"] == "error")
    monkeypatch.setitem(evidence.CHECKS, rec["evidence"],
                        lambda version="correction": evidence.Result(True, "english only"))
    runs = {(rec["evidence"], v): errata.run_evidence(rec["evidence"], v)
            for v in ("note", "correction")}
    if rec["cross_check"]:
        runs[(rec["cross_check"], "correction")] = errata.run_evidence(rec["cross_check"])
    statuses = {c: "proved" for c in rec["see_also"]}
    shown = {**rec, "evidence_view": view.evidence_view(rec, runs, statuses)}
    gaps = view.untranslated_values([shown])
    assert any("'english only' has no Chinese text" in g for g in gaps), gaps
    # the Chinese edition shows the English text marked untranslated, never silently
    t = i18n.ui("zh")
    row = report_view._evidence({**shown, "evidence": runs[(rec["evidence"], "correction")]},
                                "zh", t)["rows"][0]
    assert row["value"].missing and "english only" in str(row["value"].parts)


def test_each_edition_shows_the_value_in_its_language(audit):
    rec = next(r for r in audit["records"] if r["verdict"] == "error")
    for lang in ("en", "zh"):
        ev = report_view._evidence(rec, lang, i18n.ui(lang))
        for shown, row in zip(ev["rows"], rec["evidence_view"]["rows"], strict=True):
            words = [p for p in shown["value"].parts if isinstance(p, str)]
            expected = [w for w in re.split(r"\$[^$]*\$", row["value"][lang]) if w]
            assert words == expected and not shown["value"].missing
        assert not ev["summary"].missing
    zh = report_view._evidence(rec, "zh", i18n.ui("zh"))
    assert any("\u4e00" <= ch <= "\u9fff" for ch in "".join(
        p for p in zh["rows"][0]["value"].parts if isinstance(p, str)))


REPR = re.compile(r"\b(?:True|False|inf|nan|array)\b|\['|\(\d+,\)")


def test_checks_write_math_as_latex_and_no_python_reprs():
    for name, fn in evidence.CHECKS.items():
        for version in evidence.VERSIONS:
            res = fn(version)
            for text in (res.detail, res.detail_zh):
                assert not errata.pseudo_tex(text), (name, version, text)
                assert not REPR.search(text), (name, version, text)
