"""The audit's data: sentences and coverage, verdicts and both languages, the evidence view."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reports.audit import errata, evidence, notes
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


def _split(text):
    return [text[a:b] for a, b in notes.sentences(text)]


# ----------------------------------------------------------------------------- splitter
def test_sentences_split_on_chinese_punctuation_and_line_breaks():
    text = "第一句。第二句！第三？第四；\n\n第五\n---\n0.5 的小数. 不断开"
    assert _split(text) == ["第一句。", "第二句！", "第三？", "第四；", "第五",
                            "0.5 的小数. 不断开"]


def test_sentence_offsets_are_exact_and_skip_outer_spaces():
    text = "  甲乙。 丙丁；\n"
    spans = notes.sentences(text)
    assert spans == [(2, 5), (6, 9)] and [text[a:b] for a, b in spans] == ["甲乙。", "丙丁；"]
    assert notes.sentences("") == [] and notes.sentences("--- **\n") == []


# a note flattened to one line, like the web copy of an outline
OUTLINE = ("# 标题 > 来源：某处。 词表 常见的算法有 BPE等 输入：我有一个苹果 Norm作用：归一化，"
           "保证数值在一个范围内 1. **除以 $\\sqrt{d_k}$ **：防止分数过大 - 每个值在 0 到 1 之间 "
           "- 每行加起来等于 1 - 分数越大，权重越大 公式： $\\begin{gathered}a=b\\\\c=d\\\\e=f"
           "\\end{gathered}$ 其后。")


def test_a_single_line_outline_splits_into_its_sentences():
    assert notes.single_line(OUTLINE) and not notes.single_line("甲。\n乙。\n" * 20)
    assert not notes.single_line("第一行\n前文【】甲乙丙后文")  # short: split at line breaks
    got = _split(OUTLINE)
    for sentence in ("词表", "常见的算法有 BPE等", "输入：我有一个苹果",
                     "Norm作用：归一化，保证数值在一个范围内", "- 每个值在 0 到 1 之间",
                     "- 每行加起来等于 1", "- 分数越大，权重越大", "公式：", "其后。"):
        assert sentence in got, (sentence, got)
    assert "1. **除以 $\\sqrt{d_k}$ **：防止分数过大" in got  # no cut inside the math or at 1.


def test_a_display_of_several_rows_is_one_sentence_per_formula():
    got = _split(OUTLINE)
    rows = [s for s in got if s.startswith(("$\\begin", "c=d", "e=f"))]
    assert rows == ["$\\begin{gathered}a=b\\\\", "c=d\\\\", "e=f\\end{gathered}$"], got


def test_no_boundary_inside_math_a_number_or_a_diagram():
    text = "单行" * 40 + " 取 $x；y$ 为例 0.5 的数 flowchart LR a --- b r1 --> r2 end 图说明。"
    got = _split(text)
    assert any("$x；y$" in s for s in got)
    assert "flowchart LR a --- b r1 --> r2 end" in got
    assert not any(s in ("0.", "5 的数") for s in got)


def test_multi_line_notes_keep_their_line_sentences():
    text = "第一行 有空格\n第二行：内容"
    assert _split(text) == ["第一行 有空格", "第二行：内容"]


def test_coverage_counts_first_occurrence_and_whole_sentence_quotes():
    text = "标题\n甲说一。乙说二。标题\n甲说一。"
    cov = notes.coverage(text, ["甲说一", "标题"])
    # "标题" equals two whole sentences; "甲说一" covers its first occurrence only
    assert (cov["covered"], cov["sentences"]) == (3, 5)
    assert cov["missing"] == ["乙说二。", "甲说一。"]


def test_coverage_names_a_quote_that_runs_over_several_sentences():
    text = "甲说一。乙说二。丙说三。"
    cov = notes.coverage(text, ["说一。乙说", "丙说三"])
    assert cov["straddling"] == [("说一。乙说", 2)] and cov["covered"] == 3


def test_locator_gives_line_column_sentence_and_context():
    text = "第一行\n前文【】甲乙丙后文"
    loc = notes.locate(text, "甲乙丙")
    assert (loc["line"], loc["column"], loc["sentence"], loc["unit"]) == (2, 5, 2, "line")
    assert "【甲乙丙】后文" in loc["context"]
    assert notes.locate(text, "不存在") is None
    flat = notes.locate(OUTLINE, "输入：我有一个苹果")
    assert flat["unit"] == "sentence" and flat["line"] == 1
    assert _split(OUTLINE)[flat["sentence"] - 1] == "输入：我有一个苹果"


def test_title_is_the_first_line_without_markup():
    assert notes.title("\n# 课堂记录 [[a|b]] · [[c]]\n正文") == "课堂记录"
    with pytest.raises(notes.NotesError, match="first non-empty line"):
        notes.title("\n \n")


@pytest.mark.skipif(not SHARED_NOTES.is_dir(), reason="lecture notes not checked out")
def test_real_notes_are_split_into_sentences_and_covered():
    """The second note is one long line: it must split into its real sentences (not the 39
    blocks of several claims a line-and-full-stop splitter gives) and they must be covered."""
    titles = errata.read_titles()
    counts = {}
    for name, title in titles.items():
        text = notes.read_note(SHARED_NOTES, name)
        assert notes.title(text) == title
        quotes = [r["quote"] for r in RECORDS + MARKS if r["note"] == name]
        cov = notes.coverage(text, quotes)
        assert cov["share"] >= notes.MIN_COVERAGE, (name, cov["missing"][:5])
        counts[name[:3]] = cov["sentences"]
        assert max(b - a for a, b in notes.sentences(text)) < 300, name
    assert counts["000"] == 189 and counts["002"] >= 120 and counts["003"] >= 40


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


KINDS = {k: {"en": "a", "zh": "甲"} for k in ("heading", "recap", "paraphrase")}


@pytest.mark.parametrize(("marks", "message"), [
    ([["句", "recap"]], "a recap expected the id of the record it restates"),
    ([["句", "heading", "n000-e16"]], r"a record id is for kinds \['recap'"),
    ([["句", "recap", "x", "y"]], r"expected \[quote, kind\] or \[quote, kind, record id\]"),
])
def test_a_recap_names_the_record_it_restates(marks, message):
    with pytest.raises(errata.ErrataError, match=message):
        errata.validate_nonclaims({"kinds": KINDS, "note": [{"name": "000_a.txt",
                                                             "marks": marks}]})


def test_a_recap_may_only_restate_a_claim_judged_correct():
    marks = errata.validate_nonclaims({"kinds": KINDS, "note": [{"name": "000_a.txt", "marks": [
        ["甲", "recap", "n000-dot-sum"], ["乙", "recap", "n000-lossless-to-shallow"],
        ["丙", "paraphrase", "n000-nowhere"]]}]})
    problems = errata.cited_problems(RECORDS, marks)
    assert len(problems) == 2
    assert "recaps 'n000-lossless-to-shallow', whose verdict is 'imprecise'" in problems[0]
    assert "cites 'n000-nowhere', expected a record id" in problems[1]
    assert errata.cited_problems(RECORDS, MARKS) == []


# ----------------------------------------------------------------------------- the records' data
def test_scope_and_verdict_are_separate_fields():
    assert {r["scope"] for r in RECORDS} == set(errata.SCOPES)
    assert {r["verdict"] for r in RECORDS} == set(errata.VERDICTS)
    wrong_history = [r["id"] for r in ERRATA if r["scope"] == "history"]
    assert {"n000-boltzmann-distribution", "n000-bridle-softmax"} <= set(wrong_history)


def test_counts_per_note_and_verdict(audit):
    assert audit["summary"] == {
        "000_621967656cfd78b6.txt": {"correct": 100, "imprecise": 20, "error": 2, "reported": 1},
        "002_da94e4b5210d0f8d.txt": {"correct": 47, "imprecise": 5, "error": 1},
        "003_a83e13780b5fae71.txt": {"correct": 23, "imprecise": 3},
    }
    assert len(RECORDS) == 202


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


def test_chinese_prose_uses_full_width_punctuation_and_the_glossary_terms():
    """The Chinese a lecturer would sign: no ASCII , ; : ( ) beside Chinese characters, and
    词元 / 层规范化 / 雅可比矩阵 rather than token / LayerNorm / a bare 雅可比."""
    half = re.compile(r"[\u4e00-\u9fff][,;:()]|[,;:(][\u4e00-\u9fff]")
    avoided = re.compile(r"\btoken\b|LayerNorm|雅可比(?!矩阵)|蒙特卡洛|偏差修正")
    keys = [k for k in errata.BILINGUAL.values()]
    for rec in RECORDS:
        for key in keys:
            prose = errata._MATH.sub("", rec.get(key) or "")
            assert not half.search(prose), (rec["id"], key, half.search(prose))
            assert not avoided.search(prose), (rec["id"], key, avoided.search(prose))
    for table in ("say", "term"):
        for key, entry in evidence.phrases()[table].items():
            prose = errata._MATH.sub("", entry["zh"])
            assert not half.search(prose), (key, prose)
            assert not avoided.search(prose), (key, prose)


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
    fake = dict(_by_id("n002-adam-epsilon-inside"), reason_zh="重算无误。")
    assert "contradicts verdict 'imprecise'" in errata.contradiction(fake)


def test_errata_sit_on_the_wrong_sentence():
    # Kingma and Ba's update with the standard hats is right; ε inside the root is the variant
    assert _by_id("n002-adam-update")["verdict"] == "correct"
    assert _by_id("n002-adam-epsilon-inside")["verdict"] == "imprecise"
    assert _by_id("n002-adam-m")["verdict"] == "correct"  # the recursion itself is right
    assert _by_id("n002-adam-m-again")["verdict"] == "correct"


def test_the_0_5_example_is_judged_by_the_notes_own_words():
    """「0.5 左右」 (about 0.5): rows of such components saturate, as the note says; the
    arithmetic with every component exactly 0.5 cannot show it, and that is the erratum."""
    overflow = _by_id("n000-overflow")
    assert overflow["verdict"] == "correct"
    assert "∞" in errata.run_evidence(overflow["evidence"], "note", overflow["quote"])["detail"]
    one_hot = _by_id("n000-only-0-or-1")
    assert one_hot["verdict"] == "correct"
    ran = errata.run_evidence(one_hot["evidence"], "note", one_hot["quote"])
    assert ran["passed"] and "0.9908" in ran["detail"]
    assert _by_id("n000-e16")["verdict"] == "correct"
    for rid in ("n000-random-example", "n000-constant-components"):
        assert _by_id(rid)["verdict"] == "imprecise", rid
        note = errata.run_evidence(_by_id(rid)["evidence"], "note", _by_id(rid)["quote"])
        assert not note["passed"] and "0.0625" in note["detail"], rid


# what the two reviews found: four wrong verdicts, ten debatable ones (one a miss), and a reading
# that refuted a word the note did not write
REVIEWED = {
    "n000-only-0-or-1": ("error", "correct"), "n000-residual-foundation": ("imprecise", "correct"),
    "n002-embedding-high-dim": ("imprecise", "correct"),
    "n002-adam-update": ("imprecise", "correct"),
    "n000-attention-start": ("imprecise", "correct"),
    "n000-she-several-tokens": ("imprecise", "correct"),
    "n000-only-activation": ("imprecise", "correct"), "n000-summary-rows": ("imprecise", "correct"),
    "n000-e16": ("imprecise", "correct"), "n000-residual-toy": ("imprecise", "correct"),
    "n000-slight-amplification": ("imprecise", "correct"),
    "n002-essence-weights-input": ("imprecise", "correct"),
    "n002-adam-epsilon-inside": ("error", "imprecise"),
    "n002-linear-to-vocab": ("correct", "imprecise"),
    "n002-residual-explosion": ("imprecise", "correct"),
    "n002-norm-gradients": ("correct", "correct"),
    "n002-rope": ("imprecise", "imprecise"),
}


@pytest.mark.parametrize("rid", sorted(REVIEWED))
def test_every_reviewed_verdict_says_what_it_was_and_why(rid):
    rec = _by_id(rid)
    was, now = REVIEWED[rid]
    assert (rec["rejudged_from"], rec["verdict"]) == (was, now)
    assert rec["rejudged"] and CJK.search(rec["rejudged_zh"])
    # the report shows it where the reason shows
    from reports.render import i18n
    from reports.view import errata as errata_view

    shown = errata_view.erratum(rec | {"evidence": {"kind": "computation", "ref": "",
                                                   "passed": True, "detail": ""}},
                                {}, "zh", i18n.ui("zh"))["why"]
    assert any(p.plain.startswith(rec["rejudged_zh"][:8]) for p in shown), rid


def test_a_rejudged_verdict_needs_its_earlier_verdict_and_reason():
    base = dict(next(r for r in errata.read() if r["id"] == "n002-adam-update"))
    raw = {k: v for k, v in base.items() if v not in (None, [])}
    with pytest.raises(errata.ErrataError, match="rejudged_from: expected one of"):
        errata.validate({"record": [raw | {"rejudged_from": "wrong"}]})
    with pytest.raises(errata.ErrataError, match="rejudged: missing"):
        errata.validate({"record": [{k: v for k, v in raw.items()
                                     if k not in ("rejudged", "rejudged_zh")}]})


def test_errata_have_a_second_independent_check_or_sources():
    lacking = [r["id"] for r in ERRATA if not (r["cross_check"] or r["see_also"] or r["sources"])]
    assert lacking == []
    for rec in ERRATA:
        if rec["cross_check"]:
            assert rec["cross_check"] != rec["evidence"], rec["id"]
            assert errata.run_evidence(rec["cross_check"])["passed"], rec["id"]


def test_history_rests_on_sources_and_says_so(audit):
    history = [r for r in audit["records"] if r["scope"] == "history"]
    assert len(history) == 5
    for rec in history:
        assert rec["evidence"]["kind"] == "sources" and rec["sources"], rec["id"]
        rows = rec["evidence_view"]["rows"]
        cited = [r for r in rows if r["version"] == "cited"]
        assert len(cited) == 1 and cited[0]["passed"] is None, rec["id"]
        assert cited[0]["label"] == load_mod.LABELS["cited"]
        assert not any(r["version"] in ("note", "correction", "computed") for r in rows)
        assert rec["evidence_view"]["summary"]["en"].startswith("Source-based, not computed")
        assert rec["evidence_view"]["summary"]["zh"].startswith("依据文献，非计算")


def test_a_source_based_summary_counts_its_sources_in_each_language():
    rec = {"verdict": "correct", "evidence": None, "missing_condition": None,
           "missing_condition_zh": None, "sources": [{"cite": "A", "locator": "p. 1"}]}
    no_tail = {"en": "", "zh": ""}
    one = load_mod._summary(rec, [], no_tail)
    assert one == {"en": "Source-based, not computed (1 source).",
                   "zh": "依据文献，非计算（共 1 篇）。"}
    two = load_mod._summary(rec | {"sources": rec["sources"] * 2}, [], no_tail)
    assert two["en"] == "Source-based, not computed (2 sources)."


def test_a_sentence_is_judged_by_the_words_it_writes():
    """理解 (understand) is judged as written: no reading puts 缓解 (alleviate) in its place and
    then refutes the word put in."""
    for rid in ("n002-residual-explosion", "n002-norm-gradients"):
        rec = _by_id(rid)
        assert rec["reading"] is None and rec["verdict"] == "correct", rid
        assert "理解" in rec["reason_zh"], rid
    assert not any("缓解" in (r["reading_zh"] or "") for r in RECORDS)


_LITERAL = re.compile(r"原文为“([^”]+)”")


def _reads_a_word_of_its_quote(rec) -> bool:
    """The reading names the note's literal word (原文为“…”), and that word is in the quote."""
    found = _LITERAL.search(rec.get("reading_zh") or "")
    return bool(found) and found.group(1) in rec["quote"]


def test_every_reading_names_the_literal_word_of_its_quote():
    readings = [r for r in RECORDS if r["reading"]]
    assert "n002-relevance-matmul" in {r["id"] for r in readings}
    for rec in readings:
        assert _reads_a_word_of_its_quote(rec), (rec["id"], rec["reading_zh"])
    rec = _by_id("n002-relevance-matmul")
    assert not _reads_a_word_of_its_quote(rec | {"reading_zh": "原文为“解决”；按“缓解”来读。"})
    assert not _reads_a_word_of_its_quote(rec | {"reading_zh": "按“缓解”来读。"})


# ----------------------------------------------------------------------------- evidence view
def test_evidence_view_contract(audit):
    for rec in audit["records"]:
        view = rec["evidence_view"]
        assert set(view) == {"rows", "summary"} and set(view["summary"]) == {"en", "zh"}
        for row in view["rows"]:
            assert set(row) == {"version", "label", "value", "math", "passed"}
            assert row["version"] in ("computed", "note", "correction", "source", "foil",
                                      "independent", "cited")
            assert set(row["label"]) == {"en", "zh"}
            assert (row["passed"] is None) == (row["version"] in ("computed", "cited"))
            assert isinstance(row["math"], str) and set(row["value"]) == {"en", "zh"}
            for text in row["value"].values():
                assert text and not REPR.search(text), (rec["id"], text)
                assert "$$" not in text and text.count("$") % 2 == 0, (rec["id"], text)
        shown = [(r["version"], r["passed"]) for r in view["rows"]
                 if r["version"] in ("note", "correction", "source", "foil")]
        expected = {"correct": [("note", True), ("foil", False)],
                    "error": [("note", False), ("correction", True)],
                    "imprecise": [("note", False), ("correction", True)],
                    "reported": [("source", False), ("note", True)]}[rec["verdict"]]
        assert shown == (expected if rec["evidence"]["kind"] == "computation" else []), rec["id"]
        assert all(row["passed"] for row in view["rows"] if row["version"] == "independent"), \
            rec["id"]
        assert "\n" not in view["summary"]["en"] and "Not as the verdict" not in \
            view["summary"]["en"], rec["id"]


def test_each_version_row_shows_only_what_that_version_states(audit):
    """The computed facts appear once; the note's and the alternative's rows do not repeat
    them, and their labels say which version holds."""
    for rec in audit["records"]:
        rows = rec["evidence_view"]["rows"]
        computed = [r for r in rows if r["version"] == "computed"]
        if not computed:
            continue
        for row in rows:
            if row["version"] in ("note", "correction", "source", "foil"):
                for lang in ("en", "zh"):
                    assert computed[0]["value"][lang] not in row["value"][lang], rec["id"]
                holds = "holds" if row["passed"] else "does not hold"
                assert row["label"]["en"].endswith(f" — {holds}"), (rec["id"], row["label"])
                assert row["label"]["zh"].endswith("——成立" if row["passed"] else "——不成立")


def test_imprecise_entries_state_their_missing_condition(audit):
    for rec in audit["records"]:
        summary = rec["evidence_view"]["summary"]
        if rec["verdict"] == "imprecise":
            assert rec["missing_condition"] in summary["en"], rec["id"]
            assert rec["missing_condition_zh"] in summary["zh"], rec["id"]
            assert "讲义的说法不成立" not in summary["zh"], rec["id"]
        if rec["verdict"] == "reported":
            assert summary["zh"].startswith("原文的写法不成立；讲义给出的改正成立")


def test_loaded_records_carry_title_and_locator(audit):
    assert audit["notes"]["000_621967656cfd78b6.txt"]["title"] == "Tranforms讲义"
    rec = next(r for r in audit["records"] if r["id"] == "n000-misplaced-bracket")
    assert rec["note_title"] == "Tranforms讲义"
    if SHARED_NOTES.is_dir():
        assert rec["locator"]["line"] == 74 and rec["quote"] in rec["locator"]["context"]
        assert rec["locator"]["unit"] == "line"
        flat = next(r for r in audit["records"] if r["id"] == "n002-rope")
        assert flat["locator"]["unit"] == "sentence" and flat["locator"]["sentence"] > 10


def test_plain_removes_python_reprs():
    assert load_mod.plain("p - y = ['-4/5', '1/2']; ok: True, bad: False") == \
        "p - y = [-4/5, 1/2]; ok: yes, bad: no"
    assert load_mod.plain("exp(1024) = inf, softmax = [nan, nan]") == \
        "exp(1024) = ∞, softmax = [NaN, NaN]"
