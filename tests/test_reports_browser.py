"""The HTML report in a real headless Chromium: offline, typeset, fonts loaded, no raw TeX."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reports import build

FIXTURE = Path(__file__).parent / "fixtures" / "report_data.json"
CHROMIUM = Path("/usr/bin/chromium")

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="Debian's chromium is not installed at /usr/bin/chromium "
                              "(.ci/run installs it)"),
    pytest.mark.skipif(shutil.which("node") is None,
                       reason="Node.js is needed to typeset the HTML report"),
]


def expected_formulas(data: dict) -> int:
    n = 0
    for claim in data["claims"]:
        n += 1 + len(claim["assumptions"]) + len(claim["steps"]) + 1  # statement, ..., result
    for rec in data["errata"]["records"]:
        n += 1 + (1 if rec["correction_latex"] else 0)
    return n


@pytest.fixture(scope="module")
def page_report(tmp_path_factory):
    sync_api = pytest.importorskip("playwright.sync_api")
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    out = tmp_path_factory.mktemp("browser") / "build"
    build.build(out, data=data, pdf=False, log=lambda line: None)
    index = out / "html" / "index.html"

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
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.on("request", lambda req: requested.append(req.url))
            # file:// requests are not routed by Chromium; everything else is aborted and kept.
            page.route(lambda url: not url.startswith("file://"), guard)
            page.goto(index.as_uri(), wait_until="load")
            page.evaluate("document.fonts.ready.then(() => true)")
            facts = page.evaluate(
                """() => ({
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
                  quote: document.querySelector('#erratum-note1-scale blockquote').innerText,
                })"""
            )
            shot = out / "screenshot.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    return {"facts": facts, "outside": outside, "requested": requested, "data": data,
            "screenshot": shot}


def test_no_outside_requests(page_report):
    assert page_report["outside"] == []
    assert all(u.startswith("file://") for u in page_report["requested"]), page_report["requested"]


def test_math_is_typeset_not_raw(page_report):
    facts = page_report["facts"]
    for raw in ("\\frac", "\\begin", "\\operatorname", "\\mathbb", "\\top"):
        assert raw not in facts["text"], f"raw TeX {raw!r} visible on the page"
    assert facts["errors"] == 0
    assert facts["formulas"] == expected_formulas(page_report["data"])
    assert facts["displayFormulas"] > 0
    assert facts["scripts"] == 0
    # \text{中文} survives typesetting as visible text.
    assert "二元情形即" in facts["text"]


def test_katex_fonts_loaded_from_files(page_report):
    facts = page_report["facts"]
    assert "KaTeX_Main" in facts["fonts"], facts["fonts"]
    assert "KaTeX_Math" in facts["fonts"], facts["fonts"]
    woff2 = [u for u in page_report["requested"] if u.endswith(".woff2")]
    assert woff2 and all(u.startswith("file://") for u in woff2)


def test_figures_displayed(page_report):
    figures = page_report["facts"]["figures"]
    assert len(figures) == 4
    for fig in figures:
        assert fig["src"].endswith(".svg")
        assert fig["w"] > 0, f"figure {fig['src']} did not load"


def test_failed_claim_prominent_and_quote_escaped(page_report):
    facts = page_report["facts"]
    assert [s["id"] for s in facts["failedSections"]] == ["claim-scaled_variance_wrong"]
    assert facts["failedSections"][0]["color"] == "rgb(179, 38, 30)"
    assert "FAILED" in facts["text"]
    # The quote's <script> is shown as text, not executed or parsed as markup.
    assert "<script>alert(1)</script>" in facts["quote"]
    assert "100%" in facts["quote"]


def test_screenshot_saved(page_report):
    shot = page_report["screenshot"]
    assert shot.is_file()
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
