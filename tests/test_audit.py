"""The audit's data: scope and verdict, both languages, locators, evidence view, coverage."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reports.audit import errata, notes
from reports.audit.errata import view as load_mod

REPO = Path(__file__).resolve().parents[1]
SHARED_NOTES = REPO.parent / "shared" / "notes"
RECORDS = errata.read()
MARKS = errata.read_nonclaims()
ERRATA = [r for r in RECORDS if r["verdict"] in errata.NEEDS_CORRECTION]
CJK = re.compile(r"[\u4e00-\u9fff]")
REPR = re.compile(r"\bTrue\b|\bFalse\b|\[\s*'|\{'|array\(|np\.|\bnan\b|\binf\b")



def _by_id(rid):
    return next(r for r in RECORDS if r["id"] == rid)


# ----------------------------------------------------------------------------- splitter
def test_sentences_split_on_chinese_punctuation_and_line_breaks():
    text = "第一句。第二句！第三？第四；\n\n第五\n---\n0.5 的小数. 不断开"
    got = [text[a:b] for a, b in notes.sentences(text)]
    assert got == ["第一句。", "第二句！", "第三？", "第四；", "第五", "0.5 的小数. 不断开"]


def test_sentence_offsets_are_exact_and_skip_outer_spaces():
    text = "  甲乙。 丙丁；\n"
    spans = notes.sentences(text)
    assert spans == [(2, 5), (6, 9)] and [text[a:b] for a, b in spans] == ["甲乙。", "丙丁；"]
    assert notes.sentences("") == [] and notes.sentences("--- **\n") == []


def test_coverage_counts_first_occurrence_and_whole_sentence_quotes():
    text = "标题\n甲说一。乙说二。标题\n甲说一。"
    cov = notes.coverage(text, ["甲说一", "标题"])
    # "标题" equals two whole sentences; "甲说一" covers its first occurrence only
    assert (cov["covered"], cov["sentences"]) == (3, 5)
    assert cov["missing"] == ["乙说二。", "甲说一。"]


def test_locator_gives_line_column_and_context():
    text = "第一行\n前文【】甲乙丙后文"
    loc = notes.locate(text, "甲乙丙")
    assert (loc["line"], loc["column"]) == (2, 5) and "【甲乙丙】后文" in loc["context"]
    assert notes.locate(text, "不存在") is None


def test_title_is_the_first_line_without_markup():
    assert notes.title("\n# 课堂记录 [[a|b]] · [[c]]\n正文") == "课堂记录"
    with pytest.raises(notes.NotesError, match="first non-empty line"):
        notes.title("\n \n")


@pytest.mark.skipif(not SHARED_NOTES.is_dir(), reason="lecture notes not checked out")
def test_real_notes_coverage_at_least_95_percent():
    titles = errata.read_titles()
    for name, title in titles.items():
        text = notes.read_note(SHARED_NOTES, name)
        assert notes.title(text) == title
        quotes = [r["quote"] for r in RECORDS + MARKS if r["note"] == name]
        cov = notes.coverage(text, quotes)
        assert cov["share"] >= notes.MIN_COVERAGE, (name, cov["missing"][:5])


def test_check_fails_below_95_percent(tmp_path):
    titles = errata.read_titles()
    for name, title in titles.items():
        quotes = [r["quote"] for r in RECORDS + MARKS if r["note"] == name]
        extra = [f"未覆盖的第{i}句。" for i in range(len(quotes) // 10 + 1)]
        (tmp_path / name).write_text("\n".join([title, *quotes, *extra]), encoding="utf-8")
    code, lines = notes.check(tmp_path)
    assert code == 1
    assert any("expected at least 95 %" in line for line in lines)
    assert any("uncovered: '未覆盖的第0句。'" in line for line in lines)


def test_check_reports_a_wrong_title(tmp_path):
    for name in errata.read_titles():
        quotes = [r["quote"] for r in RECORDS + MARKS if r["note"] == name]
        (tmp_path / name).write_text("\n".join(["别的标题", *quotes]), encoding="utf-8")
    code, lines = notes.check(tmp_path)
    assert code == 1 and any(line.startswith("title: ") and "别的标题" in line for line in lines)


def test_nonclaim_marks_need_a_known_kind():
    with pytest.raises(errata.ErrataError, match="kind expected one of"):
        errata.validate_nonclaims({"kinds": {"heading": {"en": "a", "zh": "甲"}},
                                   "note": [{"name": "000_a.txt", "marks": [["句", "nope"]]}]})
    with pytest.raises(errata.ErrataError, match="expected en and zh"):
        errata.validate_nonclaims({"kinds": {"heading": {"en": "a"}}})


# ----------------------------------------------------------------------------- the records' data
def test_scope_and_verdict_are_separate_fields():
    assert {r["scope"] for r in RECORDS} == set(errata.SCOPES)
    assert {r["verdict"] for r in RECORDS} == set(errata.VERDICTS)
    wrong_history = [r["id"] for r in ERRATA if r["scope"] == "history"]
    assert {"n000-boltzmann-distribution", "n000-bridle-softmax"} <= set(wrong_history)


def test_every_human_language_field_in_both_languages():
    kinds = [{"reason": m["reason"], "reason_zh": m["reason_zh"]} for m in MARKS]
    for rec in RECORDS + kinds:
        for en, zh in errata.BILINGUAL.items():
            if rec.get(en) is None and rec.get(zh) is None:
                continue
            assert rec.get(en) and rec.get(zh), (rec.get("id"), en)
            assert CJK.search(rec[zh]), (rec.get("id"), zh, rec[zh])
            assert len(CJK.findall(rec[en])) <= 4, (rec.get("id"), en, rec[en])
    for rec in ERRATA:
        assert rec["correction_text"] and rec["correction_text_zh"], rec["id"]


def test_no_ascii_pseudo_tex_in_prose():
    for rec in RECORDS:
        for key in (*errata.BILINGUAL, *errata.BILINGUAL.values()):
            assert errata.pseudo_tex(rec.get(key)) == [], (rec["id"], key)
    for bad in ("mu_q", "sqrt(d_k)", "m_hat", "q^T k", "E^T e_i"):
        assert errata.pseudo_tex(f"see {bad} here"), bad
    assert errata.pseudo_tex("math $q^\\top k/\\sqrt{d_k}$ stays inside dollars") == []


def test_reasons_never_contradict_verdicts():
    for rec in RECORDS:
        assert errata.contradiction(rec) is None, rec["id"]
    fake = dict(_by_id("n000-dot-sum"), reason="Correct in form, but the note is wrong here.")
    assert "contradicts verdict 'correct'" in errata.contradiction(fake)
    fake = dict(_by_id("n000-misplaced-bracket"), reason_zh="重算无误。")
    assert "contradicts verdict 'error'" in errata.contradiction(fake)


def test_errata_sit_on_the_wrong_sentence():
    assert _by_id("n002-adam-update")["verdict"] == "imprecise"  # uses undefined hats
    assert _by_id("n002-adam-m")["verdict"] == "correct"  # the recursion itself is right
    assert _by_id("n002-adam-m-again")["verdict"] == "correct"
    assert "\\hat m_t" in _by_id("n002-adam-update")["correction_latex"]


def test_overflow_record_never_endorses_saturation_for_equal_scores():
    overflow = _by_id("n000-overflow")
    assert "uniform" in overflow["correction_text"] and "均匀" in overflow["correction_text_zh"]
    one_hot = _by_id("n000-only-0-or-1")
    assert one_hot["verdict"] == "error"
    fixed = errata.run_evidence(one_hot["evidence"], "correction")
    assert fixed["passed"] and "0.25, 0.25, 0.25, 0.25" in fixed["detail"]
    assert not errata.run_evidence(one_hot["evidence"], "note")["passed"]


def test_errata_have_a_second_independent_check():
    lacking = [r["id"] for r in ERRATA if not (r["cross_check"] or r["see_also"])]
    assert lacking == []
    for rec in ERRATA:
        if rec["cross_check"]:
            assert rec["cross_check"] != rec["evidence"], rec["id"]
            assert errata.run_evidence(rec["cross_check"])["passed"], rec["id"]


# ----------------------------------------------------------------------------- evidence view
def test_evidence_view_contract(audit):
    for rec in audit["records"]:
        view = rec["evidence_view"]
        assert set(view) == {"rows", "summary"} and set(view["summary"]) == {"en", "zh"}
        for row in view["rows"]:
            assert set(row) == {"version", "label", "value", "math", "passed"}
            assert row["version"] in ("note", "correction", "independent")
            assert set(row["label"]) == {"en", "zh"} and isinstance(row["passed"], bool)
            assert isinstance(row["math"], str) and set(row["value"]) == {"en", "zh"}
            for text in row["value"].values():
                assert text and not REPR.search(text), (rec["id"], text)
        versions = [row["version"] for row in view["rows"]]
        if rec["verdict"] in errata.NEEDS_CORRECTION:
            assert versions[:2] == ["note", "correction"], rec["id"]
            assert view["rows"][0]["passed"] is False, rec["id"]
            assert view["rows"][1]["passed"] is True, rec["id"]
        else:
            assert versions[0] == "note" and "correction" not in versions
            assert view["rows"][0]["passed"] is True, rec["id"]
            assert "\n" not in view["summary"]["en"] and len(view["summary"]["en"]) < 400
        assert all(row["passed"] for row in view["rows"] if row["version"] == "independent"), \
            rec["id"]


def test_loaded_records_carry_title_and_locator(audit):
    assert audit["notes"]["000_621967656cfd78b6.txt"]["title"] == "Tranforms讲义"
    rec = next(r for r in audit["records"] if r["id"] == "n000-misplaced-bracket")
    assert rec["note_title"] == "Tranforms讲义"
    if SHARED_NOTES.is_dir():
        assert rec["locator"]["line"] == 74 and rec["quote"] in rec["locator"]["context"]


def test_plain_removes_python_reprs():
    assert load_mod.plain("p - y = ['-4/5', '1/2']; ok: True, bad: False") == \
        "p - y = [-4/5, 1/2]; ok: yes, bad: no"
    assert load_mod.plain("exp(1024) = inf, softmax = [nan, nan]") == \
        "exp(1024) = ∞, softmax = [NaN, NaN]"


def test_counts_per_note(audit):
    total = sum(sum(c.values()) for c in audit["summary"].values())
    assert total == len(RECORDS) >= 170
