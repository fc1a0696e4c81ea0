"""The student edition's PDF read back word by word (``pdftotext -bbox-layout``): no number
split from the × or relation before it at the end of a line, no relation pulled apart by
justification, no matrix inline; each figure cited in the text by the number it stands under;
and the English edition spelt with -ize throughout."""

from __future__ import annotations

import html
import itertools
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from reports.render import fonts, i18n, latex, plots
from reports.render.katex import Prose, Tex
from reports.view import student, student_data, student_read, student_tex

FIXTURE = Path(__file__).parent / "fixtures" / "student_claims.json"
META = {"date": "2026-12-01", "version": "0"}
# a line ends in one of these and the next starts with a number: the number was split off
BEFORE_NUMBER = ("=", "×", "≈", "≤", "≥", "<", ">", "≠", "·")
_NUMBER = re.compile(r"^[−-]?\d")
# a relation's space, 5 mu of 10.95 pt = 3.0 pt, at most doubled by justification (「d_k = 4096」
# of exercise 4.1 stood 7.6 pt from its relation)
MAX_RELATION_GAP_PT = 6.0


@pytest.fixture(scope="module")
def views(data, audit) -> dict:
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    mine = {**data, "claims": fixture["claims"], "crosschecks": fixture["crosschecks"],
            "errata": {"records": audit["records"], "summary": audit["summary"]}}
    figures = [{"name": name} for name, _ in plots.FIGURES]
    return {"data": mine, **{lang: student.build_view(mine, figures, lang, META)
                             for lang in i18n.LANGS}}


# ----------------------------------------------------------------------------- the PDF
def pdf_lines(pdf: Path) -> list[tuple[int, float, float, list[str], list[float]]]:
    """Each line of ``pdf``: (page, left, right, its words, the gaps between its words)."""
    out = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True,
                         text=True, check=True).stdout
    lines, page = [], 0
    for m in re.finditer(r'<page |<line xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)"[^>]*>'
                         r'(.*?)</line>', out, re.S):
        if m.group(0).startswith("<page"):
            page += 1
            continue
        words = [(float(a), float(b), html.unescape(w)) for a, b, w in re.findall(
            r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)"[^>]*>(.*?)</word>', m.group(3))]
        lines.append((page, float(m.group(1)), float(m.group(2)), [w for _, _, w in words],
                      [b0 - a1 for (_, a1, _), (b0, _, _) in itertools.pairwise(words)]))
    return lines


def _right_margin(lines) -> float:
    """Where the justified lines of the text end: the most common right edge."""
    return Counter(round(right) for _, _, right, _, _ in lines).most_common(1)[0][0]


def split_numbers(lines) -> list[str]:
    """The justified lines that end in a relation or × while the next line starts with a
    number: 「2×0.731 = / 1.462」 (a display, centred, never reaches the right margin)."""
    edge = _right_margin(lines)
    return [f"page {page}: {' '.join(words[-3:])} / {nxt[3][0]}"
            for (page, _, right, words, _), nxt in itertools.pairwise(lines)
            if right >= edge - 2 and words and words[-1].endswith(BEFORE_NUMBER)
            and nxt[3] and _NUMBER.match(nxt[3][0])]


def stretched_relations(lines) -> list[str]:
    """Relations of a justified line with more than :data:`MAX_RELATION_GAP_PT` on both sides:
    「d_k  =  4096」 pulled apart to fill the line."""
    edge = _right_margin(lines)
    out = []
    for page, _, right, words, gaps in lines:
        if right < edge - 2:
            continue
        for k in range(1, len(words) - 1):
            if words[k] in ("=", "≤", "≥", "<", ">") and \
                    min(gaps[k - 1], gaps[k]) > MAX_RELATION_GAP_PT:
                out.append(f"page {page}: {' '.join(words[max(0, k - 2):k + 3])}")
    return out


_HAN = re.compile(r"^[\u4e00-\u9fff]$")


def spread_lines(lines) -> list[str]:
    """Justified lines whose Chinese characters stand apart, three or more in a row each a word
    of its own: 「每 个 乘 积 的 方 差 为」, pulled apart to fill the line before a long inline
    formula (in a line set normally the characters of a phrase are one word)."""
    edge = _right_margin(lines)
    out = []
    for page, _, right, words, _ in lines:
        if right < edge - 2:
            continue
        run = 0
        for k, w in enumerate(words):
            run = run + 1 if _HAN.match(w) else 0
            if run == 3:
                out.append(f"page {page}: {' '.join(words[max(0, k - 2):k + 4])}")
    return out


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory, views) -> dict:
    if not latex.tex_available() or shutil.which("pdftotext") is None:
        pytest.skip(f"{latex.TEX_HINT}; and poppler-utils (pdftotext)")
    out = tmp_path_factory.mktemp("student-print")
    lines = {}
    for lang in i18n.LANGS:
        folder = out / f"student-{lang}"
        plots.render(views["data"], None, folder / "figures", (lang,), fonts.cjk_font(),
                     {n: {"student": s} for n, s in student.figure_symbols().items()})
        tex = latex.render(views[lang], folder, template=latex.STUDENT_TEMPLATE,
                           name="student.tex")
        lines[lang] = pdf_lines(latex.compile_pdf(tex, out / f"student.{lang}.pdf",
                                                  1700000000).path)
    return lines


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_no_number_is_split_from_its_relation_and_no_relation_is_stretched(pdfs, lang):
    lines = pdfs[lang]
    assert sum(len(w) for _, _, _, w, _ in lines) > 3000
    assert split_numbers(lines) == []
    assert stretched_relations(lines) == []
    assert spread_lines(lines) == []


def test_the_print_checks_find_a_split_number_and_a_stretched_relation():
    full, short = 533.0, 300.0
    lines = [(8, 72.0, full, ["而不是", "2×0.731", "="], [3.0, 3.0]),
             (8, 72.0, 120.0, ["1.462。"], []),
             (24, 72.0, full, ["−9.95", "×"], [2.0]),
             (24, 72.0, full, ["10−5", "，小了十倍。"], [1.0]),
             (9, 250.0, short, ["E", "[v̂t", "]", "="], [1.0, 1.0, 3.0]),
             (9, 260.0, 290.0, ["1", "−", "β1t"], [2.0, 2.0]),
             (13, 72.0, full, ["dk", "=", "4096。用本章"], [7.6, 7.6]),
             (13, 72.0, full, ["dk", "=", "4096。"], [3.0, 3.0])]
    assert split_numbers(lines) == ["page 8: 而不是 2×0.731 = / 1.462。", "page 24: −9.95 × / 10−5"]
    assert stretched_relations(lines) == ["page 13: dk = 4096。用本章"]
    spread = [(26, 72.0, full, ["4.1", "每", "个", "乘", "积", "的", "方", "差", "为"],
               [5.5] + [1.4] * 7),
              (26, 72.0, full, ["每个乘积的方差为", "0.25", "·", "0.25"], [3.0, 2.0, 2.0]),
              (26, 72.0, 200.0, ["小", "了", "十", "倍。"], [1.4] * 3)]
    assert spread_lines(lines + spread) == ["page 26: 每 个 乘 积 的 方"]


def test_a_number_stays_with_the_relation_before_it_in_the_tex():
    tex = latex.math(Tex(r"2\times 0.731 = 1.462,\ x = y,\ -9.95\times10^{-5} \le -1", False),
                     keep_numbers=True)
    # no break after the relation or ×; a relation may break before it instead
    assert r"\times\nobreak  0.731 \penalty500 =\nobreak  1.462" in tex
    # before a number that ends the formula (「… + σ_q²σ_k² = 1」) only when nothing else can
    assert r"\times\nobreak 10^{-5} \nobreak \le\nobreak  -1" in tex
    alone = latex.math(Tex(r"\sigma_q^2\sigma_k^2 = 1", False), keep_numbers=True)
    assert r"\penalty500 =\nobreak  1" in alone
    assert "x = y" in tex
    # the full report's formulas are as they were
    assert "nobreak" not in latex.math(Tex(r"2\times 0.731 = 1.462", False))


# ----------------------------------------------------------------------------- matrices
def inline_matrices(view: dict) -> list[str]:
    return [f.tex[:40] for f in student_read.formulas(view)
            if not f.display and "matrix}" in f.tex]


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_no_matrix_stands_inline(views, lang):
    assert inline_matrices(views[lang]) == []
    boxes = {it["id"]: it for t in views[lang]["topics"] for it in t["parts"]
             if it["type"] == "box"}
    counter = boxes["graph"]["counter"].parts
    assert [x.tex[:4] for x in counter if isinstance(x, Tex) and x.display] == ["P = "]


def test_an_inline_matrix_is_found_and_set_as_a_display():
    p = Prose(("权重为 ", Tex(r"P = \begin{pmatrix}0.5&0.5\end{pmatrix}", False), "，共 4 个"))
    assert inline_matrices({"topics": [{"intro": p}]}) == [
        r"P = \begin{pmatrix}0.5&0.5\end{pmatrix}"]
    shown = student_tex.displayed_matrices(p)
    assert shown.parts == ("权重为 ", Tex(r"P = \begin{pmatrix}0.5&0.5\end{pmatrix}\text{，}",
                                          True), "共 4 个")
    assert inline_matrices({"topics": [{"intro": shown}]}) == []


# ----------------------------------------------------------------------------- exercises
def opening_displays(view: dict) -> list[str]:
    """Exercises and answers whose first part is a display: their number stands alone on a
    line above it."""
    items = [(e["number"], e["question"]) for t in view["topics"] for e in t["exercises"]]
    items += [(a["number"], a["answer"]) for a in view["answers"]]
    return [number for number, p in items
            if p.parts and isinstance(p.parts[0], Tex) and p.parts[0].display]


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_no_exercise_or_answer_opens_with_a_display(views, lang):
    view = views[lang]
    assert opening_displays(view) == []
    # the long computation of answer 4.1 stands on a line of its own, after its words
    answer = next(a["answer"] for a in view["answers"] if a["number"] == "4.1")
    shown = [x.tex for x in answer.parts if isinstance(x, Tex) and x.display]
    assert len(shown) == 1 and shown[0].startswith("0.25") and "displaystyle" not in shown[0]


def test_an_exercise_that_opens_with_a_display_is_found():
    matrix = Tex(r"J = \begin{pmatrix}0&1\\1&0\end{pmatrix}", False)
    p = student_tex.displayed_matrices(Prose((matrix, "。计算 ……")))
    view = {"topics": [{"exercises": [{"number": "6.2", "question": p}]}],
            "answers": [{"number": "6.2", "answer": Prose(("设 ", matrix, "。"))}]}
    assert opening_displays(view) == ["6.2"]
    # written in display style: a display as well, its \displaystyle dropped
    long = student_tex.displayed_matrices(Prose((Tex(r"\displaystyle 1 + 1 = 2", False), "，所以")))
    assert long.parts == (Tex(r"1 + 1 = 2\text{，}", True), "所以")
    assert opening_displays({"topics": [], "answers": [{"number": "4.1", "answer": long}]}) \
        == ["4.1"]


# ----------------------------------------------------------------------------- figures cited
CITE = {"en": r"see Figure (\d+)", "zh": r"见图 (\d+)"}


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_each_figure_is_cited_by_its_own_number(views, lang):
    view = views[lang]
    text = "\n".join(student_read.visible_text(view))
    figures = {it["name"]: it["number"] for t in view["topics"] for it in t["parts"]
               if it["type"] == "figure"}
    assert sorted(figures.values()) == [1, 2, 3, 4]
    cited = Counter(int(n) for n in re.findall(CITE[lang], text))
    assert set(cited) == set(figures.values()), cited
    # each citation is written {{figure:name}} and resolves to the number that figure stands under
    raw = json.dumps(student_data.words(), ensure_ascii=False)
    assert sorted(set(re.findall(r"\{\{figure:(\w+)\}\}", raw))) == sorted(figures)
    refs = student_data.numbers(student_data.topics_data(), {}, set(figures))
    assert {name: int(refs[f"figure:{name}"]) for name in figures} == figures
    # the box 「除以 √d_k 管住的是什么」 cites figure 2, the saturation figure
    boxes = {it["id"]: it for t in view["topics"] for it in t["parts"] if it["type"] == "box"}
    assert re.search(CITE[lang], boxes["half_example"]["wrong"].plain).group(1) == \
        str(figures["saturation"])


def test_a_citation_of_an_unknown_figure_is_refused():
    refs = student_data.numbers(student_data.topics_data(), {}, {"saturation"})
    assert student_data.resolve("见图 {{figure:saturation}}", refs) == "见图 1"
    with pytest.raises(student_data.StudentError, match=r"\{\{figure:saturatoin\}\}"):
        student_data.resolve("见图 {{figure:saturatoin}}", refs)


# ----------------------------------------------------------------------------- spelling
# words whose -ise is no -ize suffix (British and American spell them alike)
NOT_IZE = {"exercise", "exercises", "imprecise", "precise", "concise", "raise", "raises",
           "likewise", "otherwise", "rise", "arise", "arises", "noise", "promise", "premise",
           "premises", "surprise", "wise", "advise", "comprise", "comprises", "revise",
           "devise", "expertise", "compromise", "paradise", "praise", "elementwise"}
_ISE = re.compile(r"\b[A-Za-z]+(?:is(?:e|es|ed|er|ers|ing)|isations?)\b")


def ise_spellings(texts: list[str]) -> list[str]:
    return sorted({w for t in texts for w in _ISE.findall(t) if w.lower() not in NOT_IZE})


def test_the_english_edition_spells_ize(views):
    texts = student_read.visible_text(views["en"])
    assert len(texts) > 200
    assert ise_spellings(texts) == []
    assert any("normalize" in t for t in texts)


def test_an_ise_spelling_is_found():
    assert ise_spellings(["the unnormalised predictions; the normaliser; at initialisation",
                          "an exercise, imprecise, and the normalizer"]) == [
        "initialisation", "normaliser", "unnormalised"]
