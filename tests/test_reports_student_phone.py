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
    // a display's piece that opens with a binary operator (「{}−y_j」): the space before the
    // operator (from the piece before it on the line) against the space KaTeX sets after it,
    // in em of the formula; a piece whose bracket waits for the next line though it would fit
    operatorGaps: [...document.querySelectorAll('.formula.pieces')].flatMap(f => {
      const pieces = [...f.querySelectorAll('.piece')];
      return pieces.slice(1).flatMap((p, k) => {
        const op = p.querySelector('.katex-html .mbin'), prev = pieces[k];
        const space = op && op.nextElementSibling;
        if (!space || !space.matches('.mspace')) return [];
        const seen = [...p.querySelectorAll('.katex-html *')].filter(e => !e.children.length
            && e.textContent.replace(/\u200b/g, '').trim()
            && getComputedStyle(e).color !== 'rgba(0, 0, 0, 0)');
        if (!seen.length || !op.contains(seen[0])) return [];  // an operator inside the piece
        const a = prev.getBoundingClientRect(), b = op.getBoundingClientRect();
        if (a.bottom <= b.top || a.top >= b.bottom) return [];  // the piece starts a line
        const em = parseFloat(getComputedStyle(op).fontSize);
        return [{text: p.textContent.slice(0, 16), before: (b.left - a.right) / em,
                 after: parseFloat(getComputedStyle(space).marginRight) / em}];
      });
    }),
    // a bracket opened across pieces (「\\left( … \\right.」 … 「\\left. … \\right)」) whose
    // pieces stand on two lines though together they fit the formula's width: 「(x_i」/「−μ)」
    bracketsBroken: [...document.querySelectorAll('.formula.pieces')].flatMap(f => {
      const out = [], tex = p => (p.querySelector('annotation') || {}).textContent || '';
      let open = null;
      for (const p of f.querySelectorAll('.piece')) {
        const t = tex(p);
        if (open === null && /\\\\right\\.\\s*(\\\\kern[^ ]*\\s*)?$/.test(t)) {
          open = [p];
          continue;
        }
        if (open === null) continue;
        open.push(p);
        if (!/^(\\\\displaystyle\\s*)?(\\\\kern[^ ]*\\s*)?\\\\left\\./.test(t)) continue;
        const boxes = open.map(q => q.getBoundingClientRect());
        const width = boxes.reduce((w, b) => w + b.width, 0);
        const apart = boxes.slice(1).some((b, k) => b.top >= boxes[k].bottom - 1
            || boxes[k].top >= b.bottom - 1);
        if (apart && width <= f.clientWidth)
          out.push(open.map(q => q.textContent.slice(0, 12)).join(' / '));
        open = null;
      }
      return out;
    }),
    // 「，」 after a formula set apart from the formula's last box (on another line, or at the
    // far end of a line the formula wraps in), and 「（」 ending a line its formula does not
    // start: punctuation away from its formula
    punctApart: (() => {
      const out = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      const glyphs = k => [...k.querySelectorAll('.katex-html *')].filter(e => !e.children.length
          && e.textContent.replace(/\u200b/g, '').trim() && e.getBoundingClientRect().width);
      const mark = (n, at) => { const r = document.createRange();
        r.setStart(n, at); r.setEnd(n, at + 1); return r.getBoundingClientRect(); };
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const prev = n.previousSibling, next = n.nextSibling;
        if (/^[，。；：、]/.test(n.data) && prev && prev.nodeType === 1) {
          const k = prev.matches('.katex') ? prev : [...prev.querySelectorAll('.katex')].pop();
          const g = k && prev.textContent.trimEnd().endsWith(k.textContent.trimEnd())
              ? [...k.querySelector('.katex-html').children].pop() : null;
          if (!g) continue;
          const a = g.getBoundingClientRect(), b = mark(n, 0);
          const right = Math.max(a.left, ...glyphs(g).map(e => e.getBoundingClientRect().right));
          const em = parseFloat(getComputedStyle(n.parentElement).fontSize);
          if (b.top >= a.bottom - 2 || b.left - right > em)
            out.push(k.textContent.slice(-12) + ' | ' + n.data.slice(0, 4));
        }
        if (/[（「]$/.test(n.data) && next && next.nodeType === 1) {
          const k = next.matches('.katex') ? next : next.querySelector('.katex');
          const g = k && glyphs(k)[0];
          if (!g || !next.textContent.startsWith(k.textContent)) continue;
          const b = mark(n, n.data.length - 1), a = g.getBoundingClientRect();
          if (a.top >= b.bottom - 2)
            out.push(n.data.slice(-6) + ' | ' + k.textContent.slice(0, 12));
        }
      }
      return out;
    })(),
    // the contents: the left edge where each entry's first visible box starts, its list style
    contents: [...document.querySelectorAll('#contents li')].map(li => ({
      text: li.innerText.trim(), marker: getComputedStyle(li).listStyleType,
      left: Math.round(li.firstElementChild.getBoundingClientRect().left)})),
  };
}"""


def phone_facts(sync_api, page: Path, change: str = "") -> dict:
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM),
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            tab = browser.new_page(viewport={"width": PHONE, "height": 800})
            tab.route(lambda url: not url.startswith("file://"), lambda route: route.abort())
            tab.goto(page.as_uri(), wait_until="load")
            if change:
                tab.evaluate(change)
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


# KaTeX's medium space around a binary operator is 4/18 em; the space before one that starts
# a piece of a display is the same, within a pixel's rounding at the formula's size
OPERATOR_GAP_TOLERANCE = 0.03


def uneven_operators(gaps: list[dict]) -> list[tuple[str, float, float]]:
    return [(g["text"], round(g["before"], 3), round(g["after"], 3)) for g in gaps
            if abs(g["before"] - g["after"]) > OPERATOR_GAP_TOLERANCE]


@pytest.mark.parametrize("lang", sorted(STUDENT))
def test_a_binary_minus_is_spaced_alike_on_both_sides(phone, lang):
    gaps = phone[lang]["operatorGaps"]
    assert len(gaps) > 20, gaps  # 「p_j −y_j」, 「(1 −β_1)」, 「δ_ij −1/d」 and the others
    assert {round(g["after"], 2) for g in gaps} == {0.22}
    assert uneven_operators(gaps) == []


@pytest.mark.parametrize("lang", sorted(STUDENT))
def test_no_bracket_breaks_on_a_phone_when_it_fits_a_line(phone, lang):
    assert phone[lang]["bracketsBroken"] == []


@pytest.mark.parametrize("lang", sorted(STUDENT))
def test_punctuation_stays_with_its_formula_on_a_phone(phone, lang):
    assert phone[lang]["punctApart"] == []


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


def test_the_gap_check_finds_the_space_doubled_before_a_minus(sync_api, student_built, tmp_path):
    """「p_j  −y_j」: the pieces of a display set with a gap between them as well as KaTeX's own
    space before the operator (the page before) are found; set with none, they are not."""
    from reports.render.katex import Tex, render_all

    first, second = render_all([Tex("\\displaystyle {p}_{j}"), Tex("\\displaystyle {}- {y}_{j}")])
    page = tmp_path / "html" / "gap.html"
    page.parent.mkdir()
    shutil.copytree(student_built / "html" / "katex", page.parent / "katex")
    side = ('<div class="formula pieces"><span class="side" style="display:flex;column-gap:GAP">'
            '<span class="piece">' + first + '</span><span class="piece">' + second
            + '</span></span></div>')
    page.write_text('<html><head><link rel="stylesheet" href="katex/katex.min.css"></head><body>'
                    + side.replace("GAP", ".3em") + side.replace("GAP", "0") + '</body></html>',
                    encoding="utf-8")
    gaps = phone_facts(sync_api, page)["operatorGaps"]
    assert len(gaps) == 2
    assert len(uneven_operators(gaps[:1])) == 1 and uneven_operators(gaps[1:]) == []
    assert gaps[0]["before"] > gaps[0]["after"] + 0.2


def test_the_bracket_check_finds_a_bracket_broken_in_a_line_it_fits(sync_api, student_built):
    """The edition's page laid out as it was (each bracket's pieces loose in their side, a gap
    between pieces): 7.6's 「−(θ(1 − ηλ) − ηg」 and its bracket's end stand on two lines though
    they fit one, and are found (on that page 6.2's 「(x_i」 / 「−μ)」 too)."""
    loose = """() => {
      for (const b of [...document.querySelectorAll('.bracket')]) b.replaceWith(...b.childNodes);
      for (const s of document.querySelectorAll('.formula.pieces .side, .formula.pieces .group'))
        s.style.columnGap = '.3em';
    }"""
    broken = phone_facts(sync_api, student_built / "html" / STUDENT["zh"], loose)["bracketsBroken"]
    assert any("θ(1−ηλ)" in b for b in broken), broken


def test_the_punctuation_check_finds_a_mark_apart_from_its_formula(sync_api, student_built):
    """The page as it was: a 「（」 outside its formula's run, and a formula as wide as the line
    set as one box with its 「。」 after the box: answer 1.2's 「。」 at the far end of the line
    and box 4.3's 「（」 at a line's end are found."""
    was = """() => {
      for (const g of document.querySelectorAll('.glue')) {
        if (g.firstChild.nodeType === 3 && /^[（「]/.test(g.firstChild.data))
          g.before(g.firstChild);
        Object.assign(g.style, {display: 'inline', whiteSpace: 'nowrap'});
        const k = g.querySelector(':scope > .katex');
        if (k) Object.assign(k.style, {display: 'inline-block', whiteSpace: 'normal',
                                       maxWidth: 'calc(100% - 1.2em)'});
      }
    }"""
    apart = phone_facts(sync_api, student_built / "html" / STUDENT["zh"], was)["punctApart"]
    assert any(a.endswith("| 。") and "EE⊤" in a for a in apart), apart
    assert any(a.startswith("（ | cos") for a in apart), apart
