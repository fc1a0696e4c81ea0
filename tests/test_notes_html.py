"""The annotated copy of a note: the note's text, its formulas typeset with their marks, the
checks one click away, a summary and the symbol table, in English and Chinese."""

from __future__ import annotations

import re
import shutil

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
