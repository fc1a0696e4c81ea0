"""`python -m reports build --claims FILE.py`: the reader's claims as a section "Your derivations"
(你的推导) of both editions, laid out like the shipped claims; without --claims the report is as
before; the cache keys on the files' bytes; a bad file is one line and exit 2.

Rendered from the fixture's data (``--data``), so only the reader's claims are verified here.
"""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_bad_input import assert_user_error, run

from reports.__main__ import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "report_data.json"
EXAMPLE = ROOT / "examples" / "logsumexp_grad.py"
WRONG = """
import sympy as sp
from derivations import with_step
from logsumexp_grad import LSE_GRADIENT, Z, j, z
CLAIMS = [with_step(LSE_GRADIENT, 3, sp.exp(z[j]) / Z**2)]
"""


def build(out: Path, cache: Path, *claims: Path) -> int:
    extra = ["--claims", *map(str, claims)] if claims else []
    return main(["build", "--data", str(FIXTURE), "--out", str(out), "--no-pdf",
                 "--cache-dir", str(cache), *extra])


def claim_sections(html: str) -> dict[str, str]:
    return {m.group(2): m.group(0) for m in re.finditer(
        r'<section class="claim[^"]*" id="(claim-([^"]+))".*?</section>', html, re.S)}


class _Layout(HTMLParser):
    """(tag, class) of every element outside typeset math: what a claim's section is made of."""

    def __init__(self):
        super().__init__()
        self.parts, self.math = set(), 0

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if self.math or cls.startswith("katex"):
            self.math += tag == "span"
            return
        self.parts.add((tag, re.sub(r"(badge|claim)-\w+", r"\1-STATUS", cls)))

    def handle_endtag(self, tag):
        if self.math and tag == "span":
            self.math -= 1


def layout(section: str) -> set:
    parser = _Layout()
    parser.feed(section)
    return parser.parts


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("yours")
    folder = root / "mine"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder / "logsumexp_grad.py")
    (folder / "wrong.py").write_text(_wrong_with_new_id(), encoding="utf-8")
    cache = root / "cache"
    assert build(root / "plain", cache) == 0
    assert build(root / "out", cache, folder / "logsumexp_grad.py", folder / "wrong.py") == 0
    return root


def _wrong_with_new_id() -> str:
    """The example with a squared normalizer, under an id of its own (ids are anchors)."""
    return WRONG.replace(
        "CLAIMS = [with_step(LSE_GRADIENT, 3, sp.exp(z[j]) / Z**2)]",
        "from dataclasses import replace\n"
        "WRONG = with_step(LSE_GRADIENT, 3, sp.exp(z[j]) / Z**2)\n"
        "CLAIMS = [replace(WRONG, id='logsumexp_gradient_squared')]")


def test_both_editions_have_the_section_with_the_claims(built):
    for page, heading in (("index.html", "Your derivations"), ("index.zh.html", "你的推导")):
        html = (built / "out" / "html" / page).read_text(encoding="utf-8")
        start = html.index('id="topic-yours"')
        assert heading in html[start:start + 400]
        sections = claim_sections(html[start:])
        assert {"logsumexp_gradient", "logsumexp_gradient_squared"} <= set(sections)
    for lang, heading in (("en", "Your derivations"), ("zh", "你的推导")):
        tex = (built / "out" / "latex" / lang / "report.tex").read_text(encoding="utf-8")
        assert f"\\section{{{heading}}}\\label{{topic-yours}}" in tex
        assert "\\label{claim-logsumexp_gradient}" in tex


def test_a_users_claim_is_laid_out_like_a_shipped_one(built):
    html = (built / "out" / "html" / "index.html").read_text(encoding="utf-8")
    sections = claim_sections(html)
    start = html.index('id="topic-yours"')
    shipped = set().union(*(layout(s) for s in claim_sections(html[:start]).values()))
    mine = layout(sections["logsumexp_gradient"])
    assert mine <= shipped, mine - shipped  # nothing of its own: the shipped claims' layout
    assert {("ol", "steps"), ("span", "badge badge-STATUS")} <= mine or len(mine) > 8
    assert "gelu" not in html  # only the files named


def test_a_failed_claim_shows_its_counterexample_and_is_listed_at_the_top(built):
    html = (built / "out" / "html" / "index.html").read_text(encoding="utf-8")
    failed = claim_sections(html)["logsumexp_gradient_squared"]
    assert 'class="claim claim-failed"' in failed
    alert = html[html.index('id="failures"'):]
    assert 'href="#claim-logsumexp_gradient_squared"' in alert[:alert.index("</div>")]


def test_without_claims_the_report_is_as_before(built, tmp_path):
    plain = (built / "plain" / "html" / "index.html").read_text(encoding="utf-8")
    assert "topic-yours" not in plain and "Your derivations" not in plain
    assert build(tmp_path / "again", built / "cache") == 0
    for rel in ("html/index.html", "html/index.zh.html", "latex/en/report.tex"):
        assert (tmp_path / "again" / rel).read_bytes() == (built / "plain" / rel).read_bytes()


def test_the_cache_keys_on_the_files_contents(tmp_path, capsys):
    mine = tmp_path / "mine.py"
    shutil.copy(EXAMPLE, mine)
    cache = tmp_path / "cache"
    assert build(tmp_path / "a", cache, mine) == 0
    assert re.search(r"yours .* computed", capsys.readouterr().out)
    assert build(tmp_path / "b", cache, mine) == 0
    assert re.search(r"yours .* cached", capsys.readouterr().out)
    text = mine.read_text(encoding="utf-8")
    assert "the delta keeps the term k = j" in text
    mine.write_text(text.replace("the delta keeps the term k = j", "only the term k = j is left"),
                    encoding="utf-8")
    assert build(tmp_path / "c", cache, mine) == 0
    out = capsys.readouterr().out
    assert re.search(r"yours .* computed", out)
    assert "only the term k = j is left" in (tmp_path / "c/html/index.html").read_text("utf-8")


@pytest.mark.parametrize("body,needles", [
    (None, ("--claims", "no such file")),
    ("x = (\n", ("--claims", "SyntaxError")),
    ("import derivations\nCLAIMS = [derivations.get('log_sum_exp')]\n",
     ("--claims", "'log_sum_exp'", "shipped claim")),
], ids=["missing", "syntax", "shipped-id"])
def test_a_bad_claims_file_is_one_line_exit_2(tmp_path, body, needles):
    path = tmp_path / "bad.py"
    if body is not None:
        path.write_text(body, encoding="utf-8")
    proc = run("-m", "reports", "build", "--data", str(FIXTURE), "--out", str(tmp_path / "o"),
               "--no-pdf", "--claims", str(path))
    assert_user_error(proc, *needles)
    assert not (tmp_path / "o").exists()


def test_a_report_of_yours_alone_shows_what_it_has_and_names_a_step_sympy_evaluated(
        tmp_path, monkeypatch, capsys):
    """`python -m derivations report`: no errata table, no figures, no cross-check headings and
    no student edition where there are none; a step SymPy built into the one before is said to
    be so, in both editions."""
    from test_user_claims import SAME_STEP

    from reports.pipeline import mine

    (tmp_path / "logsig.py").write_text(SAME_STEP, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert mine.main(["logsig.py", "--no-pdf"]) == 0
    html = tmp_path / "derivations-report" / "html"
    en, zh = ((html / n).read_text(encoding="utf-8") for n in ("index.html", "index.zh.html"))
    for page in (en, zh):
        for absent in ('id="errata"', 'href="#errata"', 'id="figures"', 'href="#figures"',
                       "Cross-checks</h4>", "交叉核验</h4>"):
            assert absent not in page, absent
    assert not (html / "student.html").exists()
    assert "1 claim: 1 proved, 0 failed." in en and "Yours among them" not in en
    step3 = en.split('id="claim-logsig_derivative-step-3"')[1].split("</li>")[0]
    assert "Printed as step 2: SymPy evaluated this step as it was built" in step3
    assert "<code>sp.Add(..., evaluate=False)</code>" in step3
    assert "与第 2 步打印相同" in zh.split('id="claim-logsig_derivative-step-3"')[1]
    step2 = en.split('id="claim-logsig_derivative-step-2"')[1].split("</li>")[0]
    assert "Printed as step" not in step2
