"""The student edition as a reader sees it on paper and on a screen: no heading alone at the
foot of a page, no 「常见误区」 box split across pages, the contents on the first page, no
fraction inside a fraction, figure type at least 8 pt at print size, and step reasons dark
enough to read. The PDF checks read the compiled PDF's text page by page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib
import matplotlib.figure
import matplotlib.pyplot as plt
import matplotlib.text
import pytest

from reports.render import fonts, i18n, latex, plots
from reports.render.katex import Prose, Tex
from reports.view import fractions, student, student_read
from reports.view.model import figure_stem

FIXTURE = Path(__file__).parent / "fixtures" / "student_claims.json"
TEMPLATES = Path(student.__file__).resolve().parent.parent / "render" / "templates"
META = {"date": "2026-12-01", "version": "0"}
# the body text: 11 pt DejaVu Serif at Scale=0.92 (preamble.tex.j2)
BODY_PT = 11 * 0.92


@pytest.fixture(scope="module")
def mine(data, audit) -> dict:
    """The report data with the student edition's claims (tests/fixtures/student_claims.json),
    the audit's errata and the fixture's figure data."""
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return {**data, "claims": fixture["claims"], "crosschecks": fixture["crosschecks"],
            "errata": {"records": audit["records"], "summary": audit["summary"]}}


@pytest.fixture(scope="module")
def views(mine) -> dict:
    figures = [{"name": name} for name, _ in plots.FIGURES]
    return {lang: student.build_view(mine, figures, lang, META) for lang in i18n.LANGS}


# ----------------------------------------------------------------------------- page text
def page_lines(pdf: Path) -> list[list[str]]:
    """Each page's non-empty lines (``pdftotext -layout``), its page number left out."""
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    pages = []
    for page in text.split("\f")[:-1]:
        lines = [" ".join(x.split()) for x in page.splitlines() if x.strip()]
        if lines and lines[-1].isdigit():
            lines.pop()
        pages.append(lines)
    return pages


# what the layout of a display formula leaves on a label's line: brackets, scripts, no words
_WORDS = re.compile(r"[\u4e00-\u9fff]|[A-Za-z]{2,}")


def _is_label(line: str, label: str) -> bool:
    """``line`` is the heading ``label``: the same words, or a label with a colon and then
    only the scraps of a formula, or a chapter's heading (「5 线性层」) and then its title."""
    if line == label:
        return True
    if re.match(r"\d+ ", label):
        return line.startswith(label)
    return line.startswith(label) and label[-1] in ":：" and not _WORDS.search(line[len(label):])


def lonely_headings(pages: list[list[str]], labels: list[str], mark: str) -> list[str]:
    """Where a heading stands alone: a page whose last line is a label (「推导步骤」, 「其中：」,
    a chapter's 「N 名称」 …), or whose first line is the ✓ mark that stands under a
    derivation's title (the title then ended the page before)."""
    out = []
    for n, lines in enumerate(pages, start=1):
        if lines and any(_is_label(lines[-1], x) for x in labels):
            out.append(f"page {n} ends with {lines[-1]!r}")
        if n > 1 and lines and lines[0].startswith(mark):
            out.append(f"page {n} starts with {lines[0]!r}, its title ends page {n - 1}")
    return out


def split_boxes(pages: list[list[str]], box: str, correct: str) -> list[str]:
    """The boxes (their heading starts with ``box`` and a number) whose 「正确的说法」 label
    ``correct`` is not on the page of their heading."""
    heading = re.compile(rf"^{re.escape(box)} (\d+\.\d+)")
    out, open_box = [], None
    for n, lines in enumerate(pages, start=1):
        for line in lines:
            m = heading.match(line)
            if m:
                if open_box:
                    out.append(f"box {open_box[0]} (page {open_box[1]}): no {correct!r}")
                open_box = (m.group(1), n)
            elif line.startswith(correct) and open_box:
                if open_box[1] != n:
                    out.append(f"box {open_box[0]}: heading on page {open_box[1]}, "
                               f"{correct!r} on page {n}")
                open_box = None
    return out + ([f"box {open_box[0]}: no {correct!r}"] if open_box else [])


def contents_problems(pages: list[list[str]], answers: str, first_chapter: str,
                      notation: str) -> list[str]:
    """The contents end page 1 (its last entry, the answers, is there, and its last line),
    page 2 starts with the notation map and chapter 1 follows it: on page 2, or first on page
    3 when the map takes page 2 (the English map, longer than the Chinese, does)."""
    out = []
    if not pages[0] or not re.fullmatch(rf"{re.escape(answers)} \d+", pages[0][-1]):
        out.append(f"page 1 does not end with the contents' last entry {answers!r}")
    # pdftotext gives the typographic apostrophe the words write as '
    if len(pages) < 2 or not pages[1] or \
            not pages[1][0].replace("\u2019", "'").startswith(notation.replace("\u2019", "'")):
        out.append(f"page 2 does not start with {notation!r}: "
                   f"{pages[1][:1] if len(pages) > 1 else 'no page 2'}")
    elif not any(x.startswith(first_chapter) for x in pages[1]) and not (
            len(pages) > 2 and pages[2] and pages[2][0].startswith(first_chapter)
            and not any(x.startswith(first_chapter) for x in pages[1])):
        out.append(f"chapter 1 {first_chapter!r} does not start on page 2 or first on page 3")
    return out


def _labels(view: dict) -> list[str]:
    s, colon = view["s"], view["t"]["meta"]["colon"].strip()
    labels = [s["steps"], s["where"] + colon, s["correct"] + colon, s["summary"],
              s["exercises"], s["answers"]]
    for topic in view["topics"]:
        name = topic["name"].parts[0]
        labels.append(f"{topic['number']} {name.strip() if isinstance(name, str) else ''}")
    return labels


@pytest.fixture(scope="module")
def pdf_pages(tmp_path_factory, mine, views) -> dict:
    if not latex.tex_available() or shutil.which("pdftotext") is None:
        pytest.skip(f"{latex.TEX_HINT}; and poppler-utils (pdftotext)")
    out = tmp_path_factory.mktemp("student-pdf")
    pages = {}
    for lang, view in views.items():
        folder = out / f"student-{lang}"
        plots.render(mine, None, folder / "figures", (lang,), fonts.cjk_font(),
                     {n: {"student": s} for n, s in student.figure_symbols().items()})
        tex = latex.render(view, folder, template=latex.STUDENT_TEMPLATE, name="student.tex")
        pdf = latex.compile_pdf(tex, out / f"student.{lang}.pdf", 1700000000).path
        pages[lang] = page_lines(pdf)
    return pages


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_no_heading_stands_alone_at_the_foot_of_a_page(pdf_pages, views, lang):
    view = views[lang]
    pages = pdf_pages[lang]
    assert len(pages) > 10 and sum(x == view["s"]["steps"] for p in pages for x in p) > 20
    assert lonely_headings(pages, _labels(view), view["s"]["verified"]) == []


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_a_box_is_never_split_across_pages(pdf_pages, views, lang):
    s = views[lang]["s"]
    boxes = [it for t in views[lang]["topics"] for it in t["parts"]
             if it["type"] == "box" and it["kind"] != "history"]
    pages = pdf_pages[lang]
    assert sum(x.startswith(s["box_heading"] + " ") for p in pages for x in p) == len(boxes)
    assert split_boxes(pages, s["box_heading"], s["correct"]) == []


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_the_contents_fit_the_first_page_and_chapter_1_starts_the_second(pdf_pages, views,
                                                                         lang):
    view = views[lang]
    first = _labels(view)[-len(view["topics"])]
    assert contents_problems(pdf_pages[lang], view["s"]["answers"], first,
                             view["s"]["notation_heading"]) == []


def test_the_page_checks_find_a_lonely_heading_a_split_box_and_a_long_contents():
    labels = ["推导步骤", "其中：", "正确的说法：", "5 线性层"]
    good = [["1 嵌入", "推导步骤", "1. 定义"], ["2. 约去", "正确的说法： ( )", "x = y"]]
    assert lonely_headings(good, labels, "✓ 已逐步验证") == []
    bad = [["5.1 线性层：权重梯度", "推导步骤"], ["1. 定义", "其中： ( ⊤ )"],
           ["5 线性层与注意力的反向传播"], ["✓ 已逐步验证（完整报告 §4.2）", "x"]]
    assert lonely_headings(bad, labels, "✓ 已逐步验证") == [
        "page 1 ends with '推导步骤'", "page 2 ends with '其中： ( ⊤ )'",
        "page 3 ends with '5 线性层与注意力的反向传播'",
        "page 4 starts with '✓ 已逐步验证（完整报告 §4.2）', its title ends page 3"]
    whole = [["常见误区 6.1 恒等支路", "正确的说法：", "σ ≥ 1"],
             ["常见误区 6.2 残差", "正确的说法："]]
    assert split_boxes(whole, "常见误区", "正确的说法") == []
    split = [["常见误区 6.1 恒等支路", "正确的说法：", "常见误区 6.2 残差", "反例：…"],
             ["正确的说法：", "∏ …"], ["常见误区 6.3 x"]]
    assert split_boxes(split, "常见误区", "正确的说法") == [
        "box 6.2: heading on page 1, '正确的说法' on page 2", "box 6.3: no '正确的说法'"]
    fits = [["目录", "7 Adam 与 AdamW 20", "练习答案 24"],
            ["本册记号与 d2l 的对照", "• …", "1 嵌入：从词元到向量", "…"]]
    assert contents_problems(fits, "练习答案", "1 嵌入", "本册记号") == []
    spills = [["Contents", "5 Backpropagation 13"],
              ["6 Residual 17", "Answers to the exercises 26", "1 Embeddings: from tokens"]]
    assert len(contents_problems(spills, "Answers to the exercises", "1 Embeddings",
                                 "This edition")) == 2
    map_fills = [["Contents", "Answers to the exercises 26"], ["This edition’s symbols", "• …"],
                 ["1 Embeddings: from tokens to vectors"]]
    assert contents_problems(map_fills, "Answers to the exercises", "1 Embeddings",
                             "This edition") == []
    no_chapter = [["Contents", "Answers to the exercises 26"], ["This edition’s symbols", "• …"],
                  ["• …", "1 Embeddings: from tokens to vectors"]]
    assert contents_problems(no_chapter, "Answers to the exercises", "1 Embeddings",
                             "This edition") == [
        "chapter 1 '1 Embeddings' does not start on page 2 or first on page 3"]


# ----------------------------------------------------------------------------- fractions
def _all_tex(view: dict) -> list[str]:
    return [f.tex for f in student_read.formulas(view)]


def test_no_formula_holds_a_fraction_inside_a_fraction(views):
    for lang, view in views.items():
        found = [(x[:60], fractions.nested(x)) for x in _all_tex(view) if fractions.nested(x)]
        assert found == [], lang
    # layer normalization's results: 1/σ in front, every fraction in the bracket full size
    claims = [it for t in views["zh"]["topics"] for it in t["parts"] if it["type"] == "claim"]
    ln = next(c for c in claims if c["href"].endswith("layernorm_xhat_derivative"))
    right = ln["statement"][0]["tex"].tex.split(" = ")[-1]
    assert re.fullmatch(r"\\frac\{1\}\{\\sigma\S*\} \\left\(.*\\frac\{1\}\{d\}.*\\right\)",
                        right), right


def test_a_fraction_inside_a_fraction_is_found_and_taken_apart():
    tex = r"\frac{\delta - \frac{1}{d}}{\sigma} - \frac{\left(x - \mu\right) \frac{a}{b}}{s^{2}}"
    assert fractions.nested(tex) == [r"\frac{\delta - \frac{1}{d}}{\sigma}",
                                     r"\frac{\left(x - \mu\right) \frac{a}{b}}{s^{2}}"]
    flat = fractions.unnest(tex)
    assert flat == (r"\frac{1}{\sigma} \left(\delta - \frac{1}{d}\right) - \frac{1}{s^{2}} "
                    r"\left(x - \mu\right) \frac{a}{b}")
    assert fractions.nested(flat) == []
    # an operator's fraction, and fractions side by side, are no nesting
    assert fractions.nested(r"\frac{\partial}{\partial x} \frac{a}{b} + \dfrac{c}{d}") == []
    assert fractions.nested(r"\frac{a}{1 + \tfrac{b}{c}}") == [r"\frac{a}{1 + \tfrac{b}{c}}"]


def test_a_quoted_fraction_is_set_full_size(views, tmp_path):
    """A note's formula with a fraction, quoted in a box, in display style (its terms at the
    text's size) on the page and in the PDF, and otherwise the note's own."""
    for lang, view in views.items():
        quoted = [x for t in view["topics"] for it in t["parts"] if it["type"] == "box"
                  for q in it["quotes"] for x in q["quote"].parts if isinstance(x, Tex)]
        fracs = [x.tex for x in quoted if "\\frac" in x.tex]
        assert len(fracs) >= 2, lang
        assert all(x.startswith("\\displaystyle ") for x in fracs), fracs
        assert any(r"\frac{n(n-1)}{2}" in x for x in fracs), fracs
        assert any(r"\hat{v}_t" in x for x in fracs), fracs
    tex = latex.render(views["zh"], tmp_path, template=latex.STUDENT_TEMPLATE,
                       name="student.tex").read_text(encoding="utf-8")
    assert r"$\displaystyle \frac{n(n-1)}{2}" in tex


def test_a_definition_after_where_is_in_display_style_on_the_page_too(views, tmp_path):
    from reports.render import html

    page = html.render(views["zh"], tmp_path, template=html.STUDENT_TEMPLATE).read_text(
        encoding="utf-8")
    items = re.findall(r'<ul class="definitions">(.*?)</ul>', page, re.S)
    assert items and all('<span class="formula-inline"><span class="katex">' in x
                         for x in items)
    claims = [it for t in views["zh"]["topics"] for it in t["parts"] if it["type"] == "claim"]
    shown = [d["shown"].tex for c in claims for d in c["definitions"]]
    assert shown and all(x.startswith("\\displaystyle ") for x in shown)
    # P_ij := e^{S_ij}/Σ e^{S_il}: a display fraction (KaTeX's mfrac in display style)
    assert any(re.match(r"\\displaystyle \{?P\}?_\{i ?j\} := \\frac", x) for x in shown), shown


# ----------------------------------------------------------------------------- figures
def effective_sizes(fig, placed_in: float) -> list[tuple[str, float]]:
    """Every visible word or number of ``fig`` with its size on paper (pt) when the figure is
    printed ``placed_in`` inches wide."""
    scale = placed_in / fig.get_figwidth()
    return [(t.get_text(), t.get_fontsize() * scale)
            for t in fig.findobj(matplotlib.text.Text)
            if t.get_visible() and t.get_text().strip()]


def _placed(tex: str, name: str, natural_in: float) -> float:
    """The width (inches) at which ``tex`` includes figure ``name``: at its own size unless
    a width is given (only \\linewidth fractions are written)."""
    m = re.search(r"\\includegraphics(\[[^\]]*\])?\{[^}]*/" + re.escape(name) + r"\.pdf\}", tex)
    assert m, name
    if not m.group(1):
        return natural_in
    w = re.search(r"width=([0-9.]+)\\linewidth", m.group(1))
    assert w, m.group(1)
    return float(w.group(1)) * plots.TEXT_WIDTH_IN


def test_figure_type_is_at_least_8_pt_on_paper(mine, views, tmp_path):
    assert 8 >= 0.79 * BODY_PT
    for lang, view in views.items():
        tex = latex.render(view, tmp_path / lang, template=latex.STUDENT_TEMPLATE,
                           name="student.tex").read_text(encoding="utf-8")
        shown = [it["file"] for t in view["topics"] for it in t["parts"] if it["type"] == "figure"]
        assert len(shown) == 4
        w, rc = plots.words(lang, fonts.cjk_font())
        with matplotlib.rc_context({**plots.RC, **rc}):
            renamings = student.figure_symbols()
            for name, variant in [(n, v) for n, _ in plots.FIGURES for v in ("", "student")]:
                stem = figure_stem(name, lang, variant)
                if stem not in shown:
                    continue
                words = plots._renaming(w, renamings[name]) if variant else w
                fig = plots.draw(name, mine, words)
                try:
                    placed = _placed(tex, stem, fig.get_figwidth())
                    assert placed <= plots.TEXT_WIDTH_IN + 1e-9, (name, placed)
                    sizes = effective_sizes(fig, placed)
                    assert len(sizes) > 8, name
                    small = [(x, round(pt, 1)) for x, pt in sizes if pt < 8]
                    assert small == [], (lang, name, small)
                finally:
                    plt.close(fig)


def test_tiny_figure_type_is_found():
    fig = matplotlib.figure.Figure(figsize=(6.0, 3.4))
    ax = fig.add_subplot()
    ax.plot([1, 2], [1, 2], label="curve")
    ax.legend(fontsize=7)
    ax.set_xlabel("step", fontsize=9)
    # a 6 in wide figure printed at 0.66 of the text width: 9 pt becomes 6.5 pt
    sizes = dict(effective_sizes(fig, 0.66 * plots.TEXT_WIDTH_IN))
    assert sizes["curve"] < 8 and sizes["step"] < 8
    assert _placed(r"\includegraphics[width=0.66\linewidth]{figures/x.pdf}", "x", 6.0) == \
        pytest.approx(0.66 * plots.TEXT_WIDTH_IN)
    assert _placed(r"\includegraphics{figures/x.pdf}", "x", 4.2) == 4.2


def test_each_figure_on_the_page_opens_full_size(views, tmp_path):
    from reports.render import html

    page = html.render(views["en"], tmp_path, template=html.STUDENT_TEMPLATE).read_text(
        encoding="utf-8")
    figs = re.findall(r'<figure class="topic-figure[^"]*"[^>]*>\s*<a class="enlarge" '
                      r'href="([^"]+)"><picture><source [^>]*><img src="([^"]+)"', page)
    assert len(figs) == 4 and all(a == b and a.endswith(".svg") for a, b in figs)


# ----------------------------------------------------------------------------- colours
def _hex(colour: str) -> tuple[float, float, float]:
    c = colour.lstrip("#")
    c = "".join(ch * 2 for ch in c) if len(c) == 3 else c
    return tuple(int(c[i:i + 2], 16) / 255 for i in (0, 2, 4))


def contrast(fg: str, bg: str) -> float:
    """The WCAG 2 contrast ratio of two #rrggbb colours."""
    def lum(colour: str) -> float:
        r, g, b = (x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4
                   for x in _hex(colour))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def css_colour(css: str, selector: str, prop: str, variables: dict[str, str]) -> str:
    """The colour that ``selector``'s rule in ``css`` gives ``prop``, var(--x) resolved."""
    m = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert m, selector
    value = re.search(rf"(?<![-\w]){prop}:\s*([^;}}]+)", m.group(1)).group(1).strip()
    while value.startswith("var("):
        value = variables[value[4:-1].strip()]
    return value


def _variables(css: str) -> dict[str, str]:
    return dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{3,6})", css))


def test_step_reasons_are_dark_enough_to_read():
    css = (TEMPLATES / "report.css").read_text(encoding="utf-8") + \
        (TEMPLATES / "student.css").read_text(encoding="utf-8")
    variables = _variables(css)
    reason = css_colour(css, ".student .rule", "color", variables)
    # on the page's white and on the boxes' tints
    backgrounds = ["#ffffff", css_colour(css, ".student .misconception", "background",
                                         variables),
                   css_colour(css, ".student .misconception.k-error", "background", variables)]
    # WCAG AAA (7:1) for the reasons, read as running text; AA (4.5:1) for the other grey
    assert min(contrast(reason, bg) for bg in backgrounds) >= 7, reason
    assert min(contrast(variables["--muted"], bg) for bg in backgrounds) >= 4.5


def test_a_light_grey_fails_the_contrast_check():
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#999999", "#ffffff") < 4.5 < contrast("#5b6470", "#ffffff") < 7
    css = ":root { --muted: #999; } .student .rule { color: var(--muted); }"
    assert css_colour(css, ".student .rule", "color", _variables(css)) == "#999"
    assert contrast(css_colour(css, ".student .rule", "color", _variables(css)),
                    "#ffffff") < 4.5


def test_quotes_keep_the_notes_math_and_reasons_their_words(views):
    """The display-style mark is the only change to a quote: its formula is the note's."""
    for view in views.values():
        for t in view["topics"]:
            for it in t["parts"]:
                if it["type"] != "box":
                    continue
                for q in it["quotes"]:
                    assert isinstance(q["quote"], Prose)
                    for x in q["quote"].parts:
                        if isinstance(x, Tex) and "\\frac" not in x.tex:
                            assert "\\displaystyle" not in x.tex
