"""The HTML report in a real headless Chromium: offline, typeset, fonts loaded, no raw TeX."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reports.pipeline import build

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="Debian's chromium is not installed at /usr/bin/chromium "
                              "(.ci/run installs it)"),
    pytest.mark.skipif(shutil.which("node") is None,
                       reason="Node.js is needed to typeset the HTML report"),
]


SHOTS = Path(__file__).resolve().parent.parent / "reports" / "build" / "screenshots"
PAGES = {"en": "index.html", "zh": "index.zh.html"}
STUDENT = {"en": "student.html", "zh": "student.zh.html"}


def static_formulas(index: Path) -> int:
    """KaTeX formulas in the page source: the browser must show every one of them."""
    return index.read_text(encoding="utf-8").count('<span class="katex">')


def checked_ids(data: dict) -> list[str]:
    records = data["errata"]["records"]
    return [r["id"] for r in records if r["verdict"] not in ("error", "imprecise")]


PROBE = """() => ({
  text: document.body.innerText,
  formulas: document.querySelectorAll('.katex').length,
  displayFormulas: document.querySelectorAll('.katex-display').length,
  errors: document.querySelectorAll('.katex-error').length,
  scripts: document.querySelectorAll('script').length,
  figures: [...document.querySelectorAll('figure img')].map(
      i => ({src: i.getAttribute('src'), w: i.naturalWidth})),
  fonts: [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family),
  failedSections: [...document.querySelectorAll('section.claim-failed')].map(
      s => ({id: s.id, color: getComputedStyle(s).borderTopColor})),
  quote: (document.querySelector('#erratum-note1-scale blockquote') || {}).innerText,
  checkedRows: [...document.querySelectorAll('ul.checked li[id]')].map(
      r => ({id: r.id, quote: r.querySelector('q').innerText,
             evidence: (r.querySelector('.evidence-line') || {}).innerText})),
  untranslated: document.querySelectorAll('.untranslated').length,
  switchTo: (document.querySelector('.lang-switch a') || {}).getAttribute('href'),
  pageWidth: document.documentElement.scrollWidth,
  viewWidth: document.documentElement.clientWidth,
  // what a reader cannot see: content cut off by a box that hides its overflow (KaTeX's
  // MathML copy, hidden for screen readers on purpose, aside); a table cell that scrolls
  clipped: [...document.querySelectorAll('body *')].filter(e => {
      const x = getComputedStyle(e).overflowX;
      return (x === 'hidden' || x === 'clip') && e.scrollWidth > e.clientWidth + 1
          && !e.classList.contains('katex-mathml');
    }).map(e => e.tagName + '.' + e.className),
  scrollingCells: [...document.querySelectorAll('td, th')].filter(
      e => e.scrollWidth > e.clientWidth + 1).length,
  figureLabels: [...document.querySelectorAll('figcaption strong')].map(
      e => e.innerText.slice(0, 12)),
  // Chinese punctuation that starts a line right after an inline formula (「，则」 first on a line)
  punctAfterFormula: (() => {
    const out = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const prev = n.previousSibling;
      if (!/^[，。；：、？！）」』》]/.test(n.data) || !prev || prev.nodeType !== 1) continue;
      const k = prev.matches('.katex') ? prev : [...prev.querySelectorAll('.katex')].pop();
      const boxes = k ? [...k.getClientRects()] : [];
      // only a formula that ends the element before the mark: words after it (a quote going
      // on past its formula) stand between the two
      if (!boxes.length || !prev.textContent.trimEnd().endsWith(k.textContent.trimEnd())) continue;
      const r = document.createRange();
      r.setStart(n, 0);
      r.setEnd(n, 1);
      if (r.getBoundingClientRect().top >= boxes[boxes.length - 1].bottom - 2)
        out.push(k.textContent.slice(-16) + ' | ' + n.data.slice(0, 8));
    }
    return out;
  })(),
  // a formula broken across lines though it would fit on one: an inline formula (its KaTeX
  // boxes on several lines), or one formula of a display cut into pieces (a group, or a side
  // of it between relations), each measured against the width it has
  formulasBroken: (() => {
    const lines = els => {
      let n = 0, bottom = -Infinity;
      for (const r of els.map(e => e.getBoundingClientRect()).sort((a, b) => a.top - b.top)) {
        if (r.top >= bottom - 1) { n += 1; bottom = r.bottom; }
        else bottom = Math.max(bottom, r.bottom);
      }
      return n;
    };
    const room = e => {
      const s = getComputedStyle(e);
      return e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    };
    const inline = [...document.querySelectorAll('.katex')]
      .filter(k => !k.parentElement.closest('.katex-display, .formula.pieces'))
      .map(k => [k, [...k.querySelectorAll('.katex-html > .base, .katex-html > .katex-base')],
                 k.parentElement.closest('p, li, div, td, th, aside, figcaption, h1, h2, h3')]);
    const pieces = [...document.querySelectorAll('.formula.pieces .group, .formula.pieces .side')]
      .map(g => [g, [...g.children], g.closest('.formula')]);
    return [...inline, ...pieces].filter(([e, kids, box]) => {
      if (kids.length < 2 || lines(kids) < 2) return false;
      const gap = parseFloat(getComputedStyle(e).columnGap) || 0;
      const width = kids.reduce((w, k) => w + k.getBoundingClientRect().width, 0)
          + gap * (kids.length - 1);
      return width <= room(box);
    }).map(([e]) => e.textContent.slice(0, 24));
  })(),
  // a box's label (「原讲义有误」) over the first line of the quote below it
  labelsOverQuote: [...document.querySelectorAll('.box-kind')].filter(t => {
    const line = t.closest('aside').querySelector('.box-line');
    const r = line && line.getClientRects()[0], b = t.getBoundingClientRect();
    return r && b.bottom > r.top + 1 && b.top < r.bottom - 1 && b.right > r.left
        && b.left < r.right;
  }).map(t => t.closest('aside').id),
  // a figure not seen whole: wider than the window, or scrolling inside its frame
  figuresCut: [...document.querySelectorAll('figure img')].filter(i => {
    const r = i.getBoundingClientRect(), f = i.closest('figure');
    return r.left < 0 || r.right > document.documentElement.clientWidth + 1
        || f.scrollWidth > f.clientWidth + 1;
  }).map(i => i.getAttribute('src')),
})"""
RAW_TEX = ("\\frac", "\\begin", "\\operatorname", "\\mathbb", "\\top")


def probe(sync_api, index: Path, screenshot: Path | None = None, width: int = 1100) -> dict:
    """Open ``index`` offline in Chromium; return page facts and every non-file request."""
    outside: list[str] = []
    requested: list[str] = []

    def guard(route):
        outside.append(route.request.url)
        route.abort()

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.on("request", lambda req: requested.append(req.url))
            # Chromium does not route file:// requests; everything else is aborted and kept.
            page.route(lambda url: not url.startswith("file://"), guard)
            page.goto(index.as_uri(), wait_until="load")
            page.evaluate("document.fonts.ready.then(() => true)")
            facts = page.evaluate(PROBE)
            if screenshot is not None:
                page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    return {"facts": facts, "outside": outside, "requested": requested}


def page_problems(result: dict, n_formulas: int) -> list[str]:
    """What is wrong with a probed page, as readable lines (empty when all is well)."""
    facts = result["facts"]
    problems = [f"outside request: {u}" for u in result["outside"]]
    problems += [f"raw TeX visible: {r}" for r in RAW_TEX if r in facts["text"]]
    if facts["pageWidth"] > facts["viewWidth"]:
        problems.append(f"the page scrolls sideways: {facts['pageWidth']} px in a "
                        f"{facts['viewWidth']} px window")
    if facts["errors"]:
        problems.append(f"KaTeX error elements: {facts['errors']}")
    if facts["formulas"] != n_formulas:
        problems.append(f"formulas: expected {n_formulas}, got {facts['formulas']}")
    if facts["scripts"]:
        problems.append(f"script elements: {facts['scripts']}")
    for family in ("KaTeX_Main", "KaTeX_Math"):
        if family not in facts["fonts"]:
            problems.append(f"font not loaded: {family} (loaded: {facts['fonts']})")
    return problems


@pytest.fixture(scope="module")
def sync_api():
    return pytest.importorskip("playwright.sync_api")



@pytest.fixture(scope="module")
def built(tmp_path_factory, data):
    out = tmp_path_factory.mktemp("browser") / "build"
    build.build(out, data=data, pdf=False, log=lambda line: None,
                cache=build.Cache(out.parent / "cache", enabled=False))
    return out


@pytest.fixture(scope="module", params=["en", "zh"])
def page_report(request, sync_api, built, data):
    lang = request.param
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / f"fixture-{lang}-1100.png"
    index = built / "html" / PAGES[lang]
    result = probe(sync_api, index, screenshot=shot)
    narrow = probe(sync_api, index, screenshot=SHOTS / f"fixture-{lang}-400.png", width=400)
    return {**result, "data": data, "screenshot": shot, "lang": lang, "narrow": narrow,
            "formulas": static_formulas(index)}


def test_page_has_no_problems(page_report):
    assert page_report["formulas"] > 0
    assert page_problems(page_report, page_report["formulas"]) == []


def test_page_fits_a_400px_screen(page_report):
    assert page_problems(page_report["narrow"], page_report["formulas"]) == []
    assert (SHOTS / f"fixture-{page_report['lang']}-400.png").is_file()


@pytest.fixture(scope="module")
def student_built(tmp_path_factory, data, audit):
    """The student edition of its own claims (tests/fixtures/student_claims.json) with the
    audit's errata and the fixture's figures."""
    fixture = json.loads((Path(__file__).parent / "fixtures" / "student_claims.json")
                         .read_text(encoding="utf-8"))
    mine = {**data, "claims": fixture["claims"], "crosschecks": fixture["crosschecks"],
            "errata": {"records": audit["records"], "summary": audit["summary"]}}
    out = tmp_path_factory.mktemp("student") / "build"
    build.build(out, data=mine, pdf=False, log=lambda line: None,
                cache=build.Cache(out.parent / "cache", enabled=False))
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_student_edition_reads_on_a_desktop_and_a_phone(sync_api, student_built, lang):
    # nothing scrolls sideways and nothing is cut off, on a desktop and on a 390 px phone; the
    # figures are numbered as in the PDF (1, 2, …)
    index = student_built / "html" / STUDENT[lang]
    n_formulas = static_formulas(index)
    assert n_formulas > 0
    for width in (1100, 390):
        shot = SHOTS / f"fixture-student-{lang}-{width}.png"
        result = probe(sync_api, index, screenshot=shot, width=width)
        assert page_problems(result, n_formulas) == [], f"{lang} at {width} px"
        facts = result["facts"]
        assert facts["clipped"] == [] and facts["scrollingCells"] == 0, (width, facts["clipped"])
        assert facts["punctAfterFormula"] == [], (width, facts["punctAfterFormula"])
        assert facts["figuresCut"] == [], (width, facts["figuresCut"])
        assert facts["formulasBroken"] == [], (width, facts["formulasBroken"])
        assert facts["labelsOverQuote"] == [], (width, facts["labelsOverQuote"])
        assert shot.is_file()
    word = "图" if lang == "zh" else "Figure"
    numbers = [int(label.split()[1].rstrip(".")) for label in facts["figureLabels"]]
    assert len(numbers) == len(facts["figureLabels"])
    assert facts["figureLabels"] and all(label.startswith(word) for label in facts["figureLabels"])
    assert numbers == list(range(1, len(numbers) + 1))


def test_a_cut_off_cell_is_found(sync_api, built, tmp_path):
    """The phone check finds a table cell whose words are cut off, as the lecturer saw."""
    page = tmp_path / "cut.html"
    page.write_text('<html><body><p class="lang-switch"><a href="x">x</a></p><table><tr>'
                    '<td style="max-width:80px;overflow:hidden;white-space:nowrap">'
                    '输入层：先做嵌入，再由旋转位置编码（RoPE）把位置信息加入'
                    '</td></tr></table></body></html>', encoding="utf-8")
    facts = probe(sync_api, page, width=390)["facts"]
    assert facts["clipped"] == ["TD."]


def test_punctuation_after_a_formula_and_a_cut_figure_are_found(sync_api, built, tmp_path):
    """The phone checks find 「，则」 starting a line after a formula, and a two-panel figure
    that scrolls inside its frame, as the lecturer saw them."""
    page = tmp_path / "html" / "bad.html"
    page.parent.mkdir()
    (page.parent / "wide.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="200"></svg>')
    page.write_text('<html><body><p class="lang-switch"><a href="x">x</a></p><p>若 '
                    '<span class="katex" style="display:inline-block;width:360px">x</span>'
                    '，则</p><figure style="overflow-x:auto"><img src="wide.svg" '
                    'style="width:640px"></figure></body></html>', encoding="utf-8")
    facts = probe(sync_api, page, width=390)["facts"]
    assert facts["punctAfterFormula"] == ["x | ，则"]
    assert facts["figuresCut"] == ["wide.svg"]


def test_a_broken_formula_and_a_label_over_a_quote_are_found(sync_api, built, tmp_path):
    """The phone checks find an inline formula broken though it fits a line, a display's
    「P_ij / > 0」 split the same way, and a box's floated label over the quote's first line,
    as the lecturer saw them; a formula wider than the line may wrap."""
    page = tmp_path / "html" / "broken.html"
    page.parent.mkdir()
    shutil.copytree(built / "html" / "katex", page.parent / "katex")
    base = '<span class="katex-base" style="display:inline-block;width:{}px">x</span>'
    katex = '<span class="katex"><span class="katex-html">{}</span></span>'
    page.write_text(
        '<html><head><link rel="stylesheet" href="katex/katex.min.css"></head><body>'
        '<p class="lang-switch"><a href="x">x</a></p>'
        '<p style="width:300px"><span style="display:inline-block;width:200px"></span>'
        + katex.format(base.format(60) * 2) + '</p>'
        '<p style="width:300px">' + katex.format(base.format(200) * 2) + '</p>'
        '<div class="formula pieces" style="width:200px;display:flex;flex-wrap:wrap">'
        '<span class="group" style="display:flex;flex-wrap:wrap;width:30px">'
        '<span class="piece">P<sub>ij</sub></span><span class="piece">&gt; 0</span></span></div>'
        # the label floated right, pushed below the title's line into the quote's first line
        '<aside id="box"><p class="box-head" style="margin:0">误区 <span class="box-kind" '
        'style="float:right;position:relative;top:1.5em">原讲义有误</span></p>'
        '<p class="box-line" style="margin:0">原讲义原话：“……”</p></aside></body></html>',
        encoding="utf-8")
    facts = probe(sync_api, page, width=390)["facts"]
    assert facts["formulasBroken"] == ["xx", "Pij> 0"]
    assert facts["labelsOverQuote"] == ["box"]


def test_language_switch_links_the_other_edition(page_report):
    other = PAGES["zh" if page_report["lang"] == "en" else "en"]
    assert page_report["facts"]["switchTo"] == other


def test_checker_catches_a_broken_page(sync_api, built, data, tmp_path):
    """The same checks on a page with raw TeX, an outside stylesheet and no KaTeX CSS."""
    broken = tmp_path / "html"
    shutil.copytree(built / "html", broken)
    index = broken / "index.html"
    page = index.read_text(encoding="utf-8")
    page = page.replace('<link rel="stylesheet" href="katex/katex.min.css">',
                        '<link rel="stylesheet" href="http://127.0.0.1:9/katex.css">')
    page = page.replace("<main>", "<main><p>\\frac{a}{b} \\begin{aligned}</p>"
                        '<span class="katex-error">x</span>'
                        '<div style="width:3000px">wide</div>')
    index.write_text(page, encoding="utf-8")
    problems = page_problems(probe(sync_api, index), static_formulas(built / "html" /
                                                                     "index.html"))
    text = "\n".join(problems)
    assert "outside request: http://127.0.0.1:9/katex.css" in text
    assert "raw TeX visible: \\frac" in text and "raw TeX visible: \\begin" in text
    assert "KaTeX error elements: 1" in text
    assert "font not loaded: KaTeX_Main" in text
    assert "the page scrolls sideways: " in text


def test_all_requests_were_local_files(page_report):
    assert page_report["requested"], "no request recorded at all"
    assert all(u.startswith("file://") for u in page_report["requested"]), page_report["requested"]
    woff2 = [u for u in page_report["requested"] if u.endswith(".woff2")]
    assert woff2, "no KaTeX font file was requested"


def test_math_typeset_with_chinese_text(page_report):
    facts = page_report["facts"]
    assert facts["displayFormulas"] > 0
    # \text{中文} survives typesetting as visible text.
    assert "二元情形即" in facts["text"]


def test_figures_displayed(page_report):
    figures = page_report["facts"]["figures"]
    assert [f["src"].split("/")[-1].split(".")[0].removesuffix("-zh") for f in figures] == [
        "variance_vs_dk", "saturation", "depth_gradnorm", "training_loss", "adam_moments"]
    for fig in figures:
        assert fig["src"].endswith(".svg")
        assert fig["w"] > 0, f"figure {fig['src']} did not load"


def test_failed_claim_prominent_and_quote_escaped(page_report):
    facts = page_report["facts"]
    assert [s["id"] for s in facts["failedSections"]] == ["claim-scaled_variance_wrong"]
    assert facts["failedSections"][0]["color"] == "rgb(179, 38, 30)"
    assert ("FAILED" if page_report["lang"] == "en" else "未通过") in facts["text"]
    # The quote's <script> is shown as text, not executed or parsed as markup.
    assert "<script>alert(1)</script>" in facts["quote"]
    assert "100%" in facts["quote"]


def test_screenshot_saved(page_report):
    shot = page_report["screenshot"]
    assert shot.is_file()
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_checked_claims_are_one_row_each_with_a_readable_evidence_line(page_report):
    facts = page_report["facts"]
    rows = facts["checkedRows"]
    assert [r["id"] for r in rows] == [f"erratum-{i}" for i in checked_ids(page_report["data"])]
    # The Chinese quote is rendered as text inside the browser's quotation marks.
    assert "softmax 的导数是 s_i(δ_ij − s_j) & 对角阵减外积" in rows[0]["quote"]
    # evidence on the page, in words: no bare pass, no Python list
    assert all(r["evidence"] and len(r["evidence"]) > 12 and "['" not in r["evidence"]
               for r in rows)


def test_untranslated_text_is_marked_only_in_the_chinese_edition(page_report):
    facts = page_report["facts"]
    if page_report["lang"] == "en":
        assert facts["untranslated"] == 0
    else:  # the fixture's registry records carry no _zh twins: shown in English, marked
        assert facts["untranslated"] > 0 and "未译" in facts["text"]
