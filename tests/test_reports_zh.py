"""Chinese a lecturer would sign: one glossary (reports/render/i18n/glossary.toml, each term with
its source) applied to every Chinese string the report shows; full-width punctuation in Chinese
text; no English words in the Chinese student edition outside the notes' quotes, formulas and
a short list of proper names. Each check also has a failing case."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markupsafe import Markup

from reports.render import html, i18n
from reports.render.i18n import zh_style
from reports.view import edition, student
from reports.view import errata as errata_view
from tests.page_lines import PageLines

GLOSSARY = zh_style.Glossary()
SOURCES = {"d2l-zh TERMINOLOGY.md", "textbook usage"}
# proper names and the notation of the notes that stay in Latin script in the student edition,
# beyond the glossary's allow_english list
ALLOW = {"BERT-base"}  # a model's name


def _audit_strings(audit: dict) -> list[dict]:
    """The audit's Chinese evidence: each row's label and value, each record's summary."""
    out = []
    for rec in audit["records"]:
        view = rec.get("evidence_view") or {}
        for i, row in enumerate(view.get("rows") or []):
            for key in ("label", "value"):
                value = row.get(key)
                if isinstance(value, dict) and value.get("zh"):
                    # a cited source is a reference in its own language and typography
                    # (authors, title, “…”, commas): neither glossary nor punctuation applies
                    out.append({"file": "evidence", "key": f"{rec['id']}.rows[{i}].{key}",
                                "zh": value["zh"], "latex": False,
                                "reference": row.get("version") == "cited" and key == "value"})
        summary = view.get("summary") or {}
        if summary.get("zh"):
            out.append({"file": "evidence", "key": f"{rec['id']}.summary", "zh": summary["zh"],
                        "latex": False})
    return out


@pytest.fixture(scope="module")
def chinese(audit) -> list[dict]:
    """Every Chinese string: UI, claims, cross-check sentences, figures (ui.toml), the
    registry's corrections and reasons, the audit's evidence."""
    return zh_style.project_strings(zh_style.ROOT) + _audit_strings(audit)


def _where(rows: list[dict], kinds: tuple[str, ...]) -> list[str]:
    found = []
    for r in rows:
        for f in zh_style.check(r["zh"], GLOSSARY, latex=r["latex"]):
            if f.kind in kinds and not r.get("reference"):
                found.append(f"{r['file']}::{r['key']}: {f.kind} {f.match!r} in "
                             f"{f.context!r} ({f.hint})")
    return found


def test_every_term_says_where_it_comes_from():
    assert len(GLOSSARY.terms) > 100
    for slug, term in GLOSSARY.terms.items():
        assert term.get("en") and term.get("zh"), slug
        assert term.get("source") in SOURCES, (slug, term.get("source"))


def test_every_chinese_string_uses_the_glossary_terms(chinese):
    assert len(chinese) > 1000
    found = _where(chinese, ("avoid_variant",))
    assert found == [], "\n".join(found)


def test_every_chinese_string_has_full_width_punctuation(chinese):
    found = _where(chinese, ("halfwidth_punct", "halfwidth_in_sentence", "space_fullwidth"))
    assert found == [], "\n".join(found)


def test_every_chinese_string_has_no_english_words_or_identifiers(chinese):
    # outside math, code (`...`), slots (<tensor>), quotes and first-mention glosses: only the
    # glossary's allow_english words (proper names, abbreviations, softmax, tanh, ...)
    found = _where(chinese, ("english_word", "code_identifier"))
    assert found == [], f"{len(found)} English words:\n" + "\n".join(found)


def test_no_chinese_string_writes_a_word_twice(chinese):
    found = _where(chinese, ("repeated_word",))
    assert found == [], "\n".join(found)


def test_every_formula_the_chinese_edition_shows_has_its_words_in_chinese(chinese):
    # a registry formula with English inside \\text{} is shown through its *_zh twin
    found = _where(chinese, ("english_in_formula",))
    assert found == [], f"{len(found)} formulas:\n" + "\n".join(found[:20])


def test_the_chinese_edition_shows_a_formulas_twin_and_the_english_one_the_formula():
    rec = {"claim_latex": r"a=b\ \text{for every key}", "claim_latex_zh": r"a=b\ \text{对每个键}"}
    assert errata_view.formula(rec, "claim_latex", "zh") == rec["claim_latex_zh"]
    assert errata_view.formula(rec, "claim_latex", "en") == rec["claim_latex"]
    assert errata_view.formula({"claim_latex": "a=b"}, "claim_latex", "zh") == "a=b"
    assert zh_style.check(rec["claim_latex"], GLOSSARY, latex=True)  # the check can fail
    assert not zh_style.check(rec["claim_latex_zh"], GLOSSARY, latex=True)


@pytest.mark.parametrize(("text", "kind"), [
    ("用蒙特卡洛估计方差", "avoid_variant"),
    ("LayerNorm 的梯度", "avoid_variant"),
    ("每个 token 的嵌入", "avoid_variant"),
    ("softmax 雅可比的对角线", "avoid_variant"),
    ("符号: 差为零", "halfwidth_punct"),
    ("一致 (20 个点)", "halfwidth_punct"),
    ("文献：Boltzmann 1868; Boltzmann 1877", "halfwidth_in_sentence"),
    ("见 h.0.attn.w_q 的梯度", "code_identifier"),
    ("for every key 成立", "english_word"),
    ("超时 timed out：已算出", "english_word"),  # a gloss needs the parentheses
    ("（timed out）：已算出", "english_word"),  # and the Chinese term before them
    ("模型关于 <tensor> 与 wte 的梯度", "english_word"),  # a slot is masked, a name is not
    ("{n} 条仅数值核验核验", "repeated_word"),
])
def test_a_forbidden_variant_or_half_width_mark_is_found(text, kind):
    assert kind in {f.kind for f in zh_style.check(text, GLOSSARY)}, text


@pytest.mark.parametrize("text", [
    "层规范化（LayerNorm）的梯度",  # first mention: the English glossed after the term
    "用蒙特卡罗估计 $\\mathrm{Var}(q^\\top k)$",  # math is never checked
    "查询（Query）是“查询者”",  # a first mention glossed in full-width parentheses
    "数值 0.5，共 3 个点",
    "超时（timed out）：已算出的数值一致",  # a gloss of several words
    "对比模型关于 <tensor> 的梯度",  # a cross-check slot, filled as code
    "对比模型在 `split_heads` 之前的梯度",  # code
    "用第 {{chapter:softmax}} 章的雅可比矩阵",  # a reference the student edition numbers
])
def test_the_preferred_form_passes(text):
    found = [f for f in zh_style.check(text, GLOSSARY) if f.kind != "english_in_formula"]
    assert found == [], found


# ---------------------------------------------------------------- the Chinese student edition

class _Text(PageLines):
    """The visible text of a page, a line per block; formulas as one masked character, the
    notes' quotes (``.note-quote``) and references to cited sources (``.reference``) left
    out."""

    BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "td", "th", "figcaption", "blockquote", "div"}

    def __init__(self) -> None:
        super().__init__()
        self.skip = 0

    def hidden(self) -> bool:
        return bool(self.skip)

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if (self.skip or "note-quote" in cls or "reference" in cls or "mathstub" in cls
                or tag in ("style", "title", "code")):
            self.skip += 1
            if "mathstub" in cls or tag == "code":  # a formula or code: neither word nor CJK
                self.buf.append(zh_style.MASK)
            return
        if tag in self.BLOCKS:
            self.flush()

    def handle_endtag(self, tag):
        if self.skip:
            self.skip -= 1
        elif tag in self.BLOCKS:
            self.flush()



class _Stub(dict):
    def __getitem__(self, tex):
        return Markup('<span class="mathstub">x</span>')


@pytest.fixture(scope="module")
def student_zh(audit, tmp_path_factory) -> list[str]:
    """The visible lines of the Chinese student edition of the shipped claims (their engine
    output as of tests/fixtures/student_claims.json, translated now) and the audit's errata."""
    fixture = Path(__file__).parent / "fixtures" / "student_claims.json"
    data = {**json.loads(fixture.read_text(encoding="utf-8")), "plot_data": {},
            "training": {"steps": [], "loss": []},
            "errata": {"records": audit["records"], "summary": {}}}
    figures = [{"name": n} for n in ("variance_vs_dk", "saturation", "depth_gradnorm",
                                     "training_loss")]
    view = student.build_view(data, figures, "zh", {"date": "2026-12-01", "version": "0"})
    out = tmp_path_factory.mktemp("student")
    page = html.render(view, out, rendered=_Stub(), template=html.STUDENT_TEMPLATE)
    parser = _Text()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.flush()
    return parser.lines


@pytest.fixture(scope="module")
def full_zh(audit, crosscheck_records, tmp_path_factory) -> list[str]:
    """The visible lines of the full Chinese report of the fixture's claims (engine output as
    of tests/fixtures/student_claims.json, translated now), their cross-checks on the live
    model and the audit's errata."""
    fixture = json.loads((Path(__file__).parent / "fixtures" / "student_claims.json")
                         .read_text(encoding="utf-8"))
    ids = {c["id"] for c in fixture["claims"]}
    data = {**fixture, "plot_data": {}, "training": {"steps": [], "loss": []},
            "crosschecks": [r.to_dict() for r in crosscheck_records if r.claim in ids],
            "errata": {"records": audit["records"], "summary": {}}}
    figures = [{"name": n} for n in ("variance_vs_dk", "saturation", "depth_gradnorm",
                                     "training_loss")]
    view = edition.build_view(data, figures, "zh", {"date": "2026-12-01", "version": "0"})
    out = tmp_path_factory.mktemp("full")
    page = html.render(view, out, rendered=_Stub())
    parser = _Text()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.flush()
    return parser.lines


def _english(lines: list[str]) -> list[str]:
    found = []
    for line in lines:
        avoided = zh_style.check_avoid(line, GLOSSARY)
        found += [f"{f.match!r} in {f.context!r}" for f in zh_style.check_english(
            line, GLOSSARY, avoided) if f.match not in ALLOW]
    return found


EDITIONS = [("student_zh", 200), ("full_zh", 1000)]  # fixture, lines it has at least


@pytest.mark.parametrize(("edition_lines", "at_least"), EDITIONS)
def test_the_chinese_editions_have_no_english_words(request, edition_lines, at_least):
    lines = request.getfixturevalue(edition_lines)
    assert len(lines) > at_least
    found = _english(lines)
    assert found == [], f"{len(found)} English words:\n" + "\n".join(found)


@pytest.mark.parametrize(("edition_lines", "at_least"), EDITIONS)
def test_the_chinese_editions_have_full_width_punctuation(request, edition_lines, at_least):
    lines = request.getfixturevalue(edition_lines)
    assert len(lines) > at_least
    # " · " separates the parts of a status line, in both languages
    found = [f"{f.match!r} in {f.context!r}" for line in lines
             for f in zh_style.check_punct(line.replace(" · ", "·"))]
    assert found == [], "\n".join(found)


def test_an_english_word_or_identifier_in_the_edition_is_found():
    assert _english(["证据：已证明；见 softmax_jacobian 模块"]) != []
    assert _english(["for every key 成立"]) != []
    assert _english(["讲义原话：“for every key”"]) == []
    assert _english(["词元 for every key（Query）"]) != []


def test_the_student_edition_shows_no_code_identifiers(student_zh):
    ids = [c["id"] for c in json.loads((Path(__file__).parent / "fixtures" /
                                        "student_claims.json").read_text())["claims"]]
    text = "\n".join(student_zh)
    assert [i for i in ids if i in text] == []
    assert not re.search(r"\bn00\d-|h\.\d\.|numeric\.", text)


def test_every_ui_word_has_both_languages():
    for lang in i18n.LANGS:
        assert i18n.ui(lang)["student"]["title"]
    assert edition.FILES["zh"] != student.FILES["zh"]
