"""The annotated copy of a note: the note's text, its formulas typeset with their marks, the
checks one click away, a summary and the symbol table, in English and Chinese."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from derivations.notes import check_notes
from reports.render import notes as page
from tests.notes_fake_reader import FakeReader

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="Node.js is needed for build-time KaTeX")

NOTE = ("# Algebra\n\nLet $s = x^2 + 1$. Then $s - 1 = x^2$.\n\n"
        "$$(x+y)^2 = x^2 + 2xy + y^2 = x^2 + y^2$$\n\nAnd $\\foo$ and <script>alert(1)</script>.\n"
        "\n$$\\unknownmacro{x}$$\n")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("notes")
    (out / "algebra.md").write_text(NOTE, encoding="utf-8")
    result = check_notes([out / "algebra.md"], reader=FakeReader(), cache=None)
    written = page.write(result, out / "html")
    return {p.name: p.read_text(encoding="utf-8") for p in written}


def test_both_languages_with_marks_and_checks(pages):
    en, zh = pages["algebra.html"], pages["algebra.zh.html"]
    for html in (en, zh):
        assert html.count('class="fm"') == 5
        assert html.count("<details") == 5
        assert 'class="mark v-failed' in html and 'class="mark v-proved' in html
        assert "katex" in html
    assert "every formula checked" in en and "逐条核验公式" in zh
    assert "不成立的推导环节" in zh and "Links that do not hold" in en


def test_the_note_cannot_run_code_and_bad_tex_is_shown_as_written(pages):
    html = pages["algebra.html"]
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert re.search(r'<code class="tex"[^>]*>\\unknownmacro\{x\}</code>', html)


def test_the_failed_link_shows_its_point(pages):
    html = pages["algebra.html"]
    failed = html[html.index('<details class="check v-failed"'):]
    failed = failed[:failed.index("</details>")]
    assert "at x = " in failed and "left side" in failed


def test_the_chinese_symbol_table_reads_every_inference_of_the_corpus():
    # variables: every note of the labelled corpus and the shipped notes
    from derivations.notes.latex_adapter import reader
    from derivations.notes.markdown import parse
    from reports.render import notes_symbols

    root = Path(__file__).resolve().parent
    paths = sorted((root / "notes_corpus" / "notes").glob("*.md"))
    paths += sorted((root.parent.parent / "shared" / "notes").glob("*"))
    unread, rows = set(), 0
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        for row in reader().symbols(text, parse(text).formulas, path).rows:
            rows += 1
            shown = notes_symbols.row_zh(row.to_dict())
            assert shown["kind"] != row.kind or row.kind not in ("vector", "matrix", "index")
            unread |= {p for p in row.rests_on.split("; ") if p
                       and notes_symbols.part_zh(p) is None}
    assert rows > 100 and unread == set()


def test_a_part_no_pattern_reads_keeps_its_english():
    from reports.render import notes_symbols

    assert notes_symbols.part_zh("a dimension of ℝ^… (formula 2)") == "ℝ^… 的一个维度（公式 2）"
    assert notes_symbols.part_zh("something new (formula 2)") is None
    row = {"name": "x", "kind": "vector", "shape": "", "rests_on": "something new"}
    assert notes_symbols.row_zh(row) == {**row, "kind": "向量"}


def test_the_chinese_page_says_a_statement_cannot_be_checked_and_a_definition_needs_none(
        tmp_path):
    # "无须核验" says there is no need to check; a link the reader cannot check is "无法核验"
    (tmp_path / "n.md").write_text("设 $s = x^2 + 1$。又 $a + b = 1$。\n", encoding="utf-8")
    result = check_notes([tmp_path / "n.md"], cache=None)
    assert [f.verdict for f in result.notes[0].formulas] == ["definition", "not checkable"]
    zh = next(p for p in page.write(result, tmp_path / "html")
              if p.name.endswith(".zh.html")).read_text(encoding="utf-8")
    assert "无须核验" not in zh.replace("定义或表达式（无须核验）", "")
    assert re.search(r'<summary><span class="mark v-not-checkable">·</span>[^<]*无法核验</summary>',
                     zh)
    assert "1 · 无法核验" in zh and "1 · 定义" in zh
