"""The student edition on a 390 px phone, measured in headless Chromium: every figure's type
at least 11 CSS px (its narrow drawing, panels stacked), no display formula wider than its box,
no short right side of a relation alone on a line, the contents with the answers a peer of the
chapters, and figures' alt texts without TeX."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_reports_browser import CHROMIUM, STUDENT, pytestmark, student_built, sync_api

__all__ = ["pytestmark", "student_built", "sync_api"]  # the browser module's guard and fixtures

PHONE = 390
# the smallest type a phone reader can read without zooming (a figure's words and numbers)
MIN_FIGURE_PX = 11
# matplotlib's mathtext sets a script (10⁻⁴'s exponent) at 0.7 of its base
SCRIPT = 0.7

FACTS = """async () => {
  await document.fonts.ready;
  // the figures load as a reader scrolls to them: all of them now, in the source the
  // browser picks for this width
  await Promise.all([...document.images].map(i => { i.loading = 'eager';
      return i.complete ? 1 : new Promise(r => { i.onload = i.onerror = r; }); }));
  const right = e => e.getBoundingClientRect().right;
  return {
    figures: [...document.querySelectorAll('figure img')].map(
        i => ({src: i.currentSrc, width: i.getBoundingClientRect().width, alt: i.alt})),
    // a display wider than its box (it scrolls, and the reader misses its end), or an inline
    // formula that runs past the right edge of its paragraph
    overflowing: [
      ...[...document.querySelectorAll('.formula, .katex-display')].filter(
          e => e.scrollWidth > e.clientWidth + 1),
      ...[...document.querySelectorAll('.katex')]
          .filter(k => !k.closest('.formula, .katex-display'))
          .filter(k => right(k) > right(k.parentElement.closest(
              'p, li, div, aside, figcaption, h1, h2, h3, h4') || document.body) + 1),
    ].map(e => e.textContent.slice(0, 40)),
    // a line of a display holding only a relation and a short right side (「⪰ 0」)
    lonelyRelations: [...document.querySelectorAll('.formula.pieces')].flatMap(f => {
      const pieces = [...f.querySelectorAll('.piece')];
      const lines = new Map();
      for (const p of pieces) {
        const top = Math.round(p.getBoundingClientRect().top / 4);
        lines.set(top, [...(lines.get(top) || []), p]);
      }
      return [...lines.values()].filter(l => l.length === 1
          && /^[=<>≤≥⪰⪯≈≠⟺∈]/.test(l[0].querySelector('.katex-html').textContent.trim())
          && l[0].querySelector('.katex-html').textContent.trim().length <= 4)
        .map(l => l[0].textContent.slice(0, 16));
    }),
    // the contents: the left edge where each entry's first visible box starts, its list style
    contents: [...document.querySelectorAll('#contents li')].map(li => ({
      text: li.innerText.trim(), marker: getComputedStyle(li).listStyleType,
      left: Math.round(li.firstElementChild.getBoundingClientRect().left)})),
  };
}"""


def phone_facts(sync_api, page: Path) -> dict:
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM),
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            tab = browser.new_page(viewport={"width": PHONE, "height": 800})
            tab.route(lambda url: not url.startswith("file://"), lambda route: route.abort())
            tab.goto(page.as_uri(), wait_until="load")
            return tab.evaluate(FACTS)
        finally:
            browser.close()


_TEXT = re.compile(r'<g id="text_\d+">\s*<!-- .*? -->\s*<g transform="[^"]*scale\(([0-9.]+) -'
                   r'[0-9.]+\)">(.*?)</g>\s*</g>', re.S)


def figure_type_px(svg: str, shown_px: float) -> tuple[float, float]:
    """The smallest words or numbers of a matplotlib SVG (its glyphs drawn as paths) and the
    smallest script (an exponent) in CSS px, when the SVG is shown ``shown_px`` wide: a text
    group's scale is its size in the SVG's units, 0.01 of a point; scripts are scaled again."""
    width = float(re.search(r'viewBox="0 0 ([0-9.]+)', svg).group(1))
    sizes = [(float(scale) * 100, SCRIPT if "scale(0.7)" in body else 1.0)
             for scale, body in _TEXT.findall(svg)]
    assert sizes, "no text found in the figure"
    base = min(s for s, _ in sizes) * shown_px / width
    return base, min(s * k for s, k in sizes) * shown_px / width


@pytest.fixture(scope="module")
def phone(sync_api, student_built) -> dict:
    return {lang: phone_facts(sync_api, student_built / "html" / STUDENT[lang])
            for lang in STUDENT}


@pytest.mark.parametrize("lang", sorted(STUDENT))
def test_every_figure_s_type_is_at_least_11_px_on_a_phone(phone, student_built, lang):
    figures = phone[lang]["figures"]
    assert len(figures) == 4
    for fig in figures:
        svg = student_built / "html" / fig["src"].split("/html/", 1)[1]
        assert svg.name.removesuffix(".svg").removesuffix("-zh").endswith("-narrow"), svg.name
        base, script = figure_type_px(svg.read_text(encoding="utf-8"), fig["width"])
        assert base >= MIN_FIGURE_PX and script >= SCRIPT * MIN_FIGURE_PX, (svg.name, base, script)


def test_the_print_drawing_of_two_panels_is_too_small_on_a_phone(student_built):
    """The check can fail: the drawing printed in the PDF, two panels side by side, shrunk to a
    phone's width sets its type near 7 px, as the lecturer saw."""
    svg = (student_built / "html" / "figures" / "adam_moments-student.svg").read_text()
    base, script = figure_type_px(svg, 368)
    assert base < MIN_FIGURE_PX and script < 6


@pytest.mark.parametrize("lang", sorted(STUDENT))
def test_no_formula_runs_past_its_box_or_leaves_a_short_side_alone(phone, lang):
    facts = phone[lang]
    assert facts["overflowing"] == []
    assert facts["lonelyRelations"] == []


@pytest.mark.parametrize("lang", sorted(STUDENT))
def test_the_answers_are_a_peer_of_the_chapters_in_the_contents(phone, lang):
    entries = phone[lang]["contents"]
    assert len(entries) == 8
    assert {e["marker"] for e in entries} == {"none"}
    assert len({e["left"] for e in entries}) == 1, entries
    assert [re.match(r"\d+", e["text"]).group(0) for e in entries[:-1]] == [
        str(n) for n in range(1, 8)]
    assert not entries[-1]["text"][0].isdigit()


@pytest.mark.parametrize("lang", sorted(STUDENT))
def test_figure_alt_texts_hold_no_tex(phone, lang):
    alts = [f["alt"] for f in phone[lang]["figures"]]
    assert len(alts) == 4 and all(alts)
    assert [a for a in alts if re.search(r"[\\$^_{}]", a)] == []
    assert any("ε" in a for a in alts) and any("dₖ" in a for a in alts)


def test_the_phone_checks_find_what_the_lecturer_saw(sync_api, student_built, tmp_path):
    """A display wider than its box, 「⪰ 0」 alone on a line, and the answers indented under
    chapter 7 of a numbered list are found."""
    page = tmp_path / "html" / "bad.html"
    page.parent.mkdir()
    shutil.copytree(student_built / "html" / "katex", page.parent / "katex")
    katex = ('<span class="katex"><span class="katex-html">'
             '<span class="base" style="display:inline-block;width:{}px">{}</span></span></span>')
    piece = '<span class="piece" style="white-space:nowrap">{}</span>'
    page.write_text(
        '<html><head><link rel="stylesheet" href="katex/katex.min.css"></head><body>'
        '<div class="formula" style="width:319px;overflow-x:auto">' + katex.format(336, "x")
        + '</div><div class="formula pieces" style="width:300px;display:flex;flex-wrap:wrap">'
        + piece.format(katex.format(280, "J+J")) + piece.format(katex.format(40, "⪰ 0"))
        + '</div><nav id="contents"><ol><li><a href="#t7">Adam</a></li>'
        '<li style="list-style:none"><a href="#answers">练习答案</a></li></ol></nav>'
        '</body></html>', encoding="utf-8")
    facts = phone_facts(sync_api, page)
    assert facts["overflowing"] == ["x"]
    assert facts["lonelyRelations"] == ["⪰ 0"]
    assert [e["marker"] for e in facts["contents"]] == ["decimal", "none"]
