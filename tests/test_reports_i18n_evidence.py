"""The audit's evidence values are one record in two languages: each is rendered from a typed
result (phrase id and values) in English and in Chinese, with the same numbers and formulas,
math typeset as $…$."""

from __future__ import annotations

import re

import pytest

from reports.audit import errata, evidence
from reports.audit.errata import view
from reports.render import i18n
from reports.view import errata as report_view


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


@pytest.mark.parametrize(("raw", "expected"), [
    ({"say": {"x": {"en": "a {n}"}}}, "phrases say.x: expected en and zh strings"),
    ({"say": {"x": {"en": "a {n:.2f}", "zh": "甲 {n:.3f}"}}},
     "phrases say.x: en and zh expected the same placeholders"),
    ({"say": {"x": {"en": "a {n}", "zh": "甲 {m}"}}}, "expected the same placeholders"),
    ({"term": {"t": {"zh": "甲"}}}, "phrases term.t: expected en and zh strings"),
])
def test_a_phrase_missing_a_language_or_unlike_its_twin_is_refused(raw, expected):
    assert evidence.validate_phrases({"say": {"x": {"en": "a {n:.2f}", "zh": "甲 {n:.2f}"}}})
    with pytest.raises(evidence.EvidenceError, match=re.escape(expected)):
        evidence.validate_phrases(raw)


def test_a_fact_renders_its_values_in_each_language():
    fact = evidence.Fact("dims", dims=evidence.Nums((64, 4096), "g")).to_json()
    assert evidence.render(fact, "en").endswith("$d_k$ = 64, 4096")
    assert evidence.render(fact, "zh").endswith("$d_k$ = 64、4096")
    yes = evidence.Fact("lossless_stack", stack=evidence.Term("stack_random"), low=0.5,
                        high=2.0, lossless=False).to_json()
    assert "lossless: no" in evidence.render(yes, "en") and "无损：否" in evidence.render(yes, "zh")
    assert "50 layers of random" in evidence.render(yes, "en")
    assert "50 层随机" in evidence.render(yes, "zh")
    tiny = evidence.Fact("jacobian_moves", gap=2e-7).to_json()
    assert "$2\\times10^{-7}$" in evidence.render(tiny, "en")
    assert "$2\\times10^{-7}$" in evidence.render(tiny, "zh")
    with pytest.raises(evidence.EvidenceError, match="phrase 'nope': expected a"):
        evidence.render({"say": "nope", "values": {}}, "en")
    with pytest.raises(evidence.EvidenceError, match=r"expected values \['dims'\]"):
        evidence.render({"say": "dims", "values": {}}, "en")
    with pytest.raises(evidence.EvidenceError, match="fact value: expected a number"):
        evidence.Fact("dims", dims=[1, 2])


def test_an_untranslated_value_fails_the_audit_and_shows_marked(monkeypatch):
    rec = next(r for r in errata.read() if r["verdict"] == "error")
    fn = evidence.CHECKS[rec["evidence"]]
    runs = {view.run_key(rec, rec["evidence"], v): errata.run_evidence(rec["evidence"], v,
                                                                       rec["quote"])
            for v in (fn.right, fn.wrong)}
    if rec["cross_check"]:
        runs[(rec["cross_check"], evidence.CHECKS[rec["cross_check"]].right, "")] = \
            errata.run_evidence(rec["cross_check"])
    monkeypatch.setattr(view, "rendered", lambda facts: {"en": "english only"})
    statuses = {c: "proved" for c in rec["see_also"]}
    shown = {**rec, "evidence_view": view.evidence_view(rec, runs, statuses)}
    gaps = view.untranslated_values([shown])
    assert any("'english only' has no Chinese text" in g for g in gaps), gaps
    # the Chinese edition shows the English text marked untranslated, never silently
    t = i18n.ui("zh")
    row = report_view._evidence({**shown, "evidence": runs[view.run_key(rec, rec["evidence"],
                                                                       fn.right)]},
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
            assert shown["version_label"] == row["label"][lang]
        assert not ev["summary"].missing
    zh = report_view._evidence(rec, "zh", i18n.ui("zh"))
    assert any("\u4e00" <= ch <= "\u9fff" for ch in "".join(
        p for p in zh["rows"][0]["value"].parts if isinstance(p, str)))


REPR = re.compile(r"\b(?:True|False|inf|nan|array)\b|\['|\(\d+,\)")


@pytest.mark.parametrize("name", sorted(evidence.CHECKS))
def test_checks_write_math_as_latex_and_no_python_reprs(name):
    fn = evidence.CHECKS[name]
    for version in (fn.right, fn.wrong):
        res = fn(version)
        for text in (res.detail, res.detail_zh):
            assert not errata.pseudo_tex(text), (name, version, text)
            assert not REPR.search(text), (name, version, text)
            assert "$$" not in text and text.count("$") % 2 == 0, (name, version, text)
        problems = view.value_problems(name, {"en": res.detail, "zh": res.detail_zh})
        assert problems == [], problems


def test_the_remark_on_an_unrun_note_version_appears_only_when_it_is_true(audit):
    """A correction shown without the note's own version is remarked on; a record whose rows
    run the note (or rest on sources) is not."""
    t = i18n.ui("en")
    for rec in audit["records"]:
        assert report_view._evidence(rec, "en", t)["note_run"], rec["id"]
    rec = next(r for r in audit["records"] if r["verdict"] == "error")
    rows = [r for r in rec["evidence_view"]["rows"] if r["version"] != "note"]
    bare = {**rec, "evidence_view": {**rec["evidence_view"], "rows": rows}}
    assert not report_view._evidence(bare, "en", t)["note_run"]
