"""LaTeX renderer: escaping by default, SymPy TeX untouched, and a real XeLaTeX PDF."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from reports.pipeline import build
from reports.render import latex, plots
from reports.render.katex import Tex
from reports.render.latex import LatexSafe, tex_escape
from reports.view import edition

SPECIALS = {
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
}
needs_tex = pytest.mark.skipif(not latex.tex_available(), reason=latex.TEX_HINT)



@pytest.fixture(scope="module")
def tex_source(tmp_path_factory, data) -> str:
    figs = [{"name": n} for n, _ in plots.FIGURES]
    path = latex.render(edition.build_view(data, figs), tmp_path_factory.mktemp("tex"))
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("char", "escaped"), sorted(SPECIALS.items()))
def test_each_special_character_is_escaped(char, escaped):
    assert tex_escape(f"a{char}b") == f"a{escaped}b"


def test_escape_is_single_pass_and_leaves_safe_text_alone():
    # A naive chain of str.replace would re-escape the braces of \textbackslash{}.
    assert tex_escape("\\{") == r"\textbackslash{}\{"
    assert tex_escape(LatexSafe(r"\frac{1}{2}")) == r"\frac{1}{2}"
    assert tex_escape("中文 <script>") == "中文 <script>"


def test_template_escapes_by_default_and_math_passes_through():
    env = latex.environment()
    t = env.from_string(r"\VAR{text} | \VAR{f | math} | \VAR{g | math(True)} | \VAR{raw | raw}")
    out = t.render(text="50% & $x_1$", f=Tex(r"\frac{a}{b}", True), g=Tex("x^2"),
                   raw=r"\ok")
    assert out == ("50\\% \\& \\$x\\_1\\$ | \\fitdisplay{\\frac{a}{b}}{\\fitpiece{\\frac{a}{b}}} | "
                   "$\\displaystyle x^2$ | \\ok")


def test_inline_math_may_break_after_a_comma_and_display_math_is_untouched():
    # TeX breaks inline math only after relations and operators: a tuple ran into the margin
    tuple_ = "(0.333, 0.333, 0.333, 0.000, 0.000)"
    assert latex.math(Tex(tuple_, False)) == "$" + tuple_.replace(", ", ",\\allowbreak ") + "$"
    assert latex.math(Tex("a_{i,j}", False)) == "$a_{i,j}$"
    assert "allowbreak" not in latex.math(Tex(tuple_, True))


def test_math_filter_and_badge_reject_wrong_input():
    with pytest.raises(TypeError, match="expected Tex, got str"):
        latex.math(r"\frac{a}{b}")
    with pytest.raises(ValueError, match="expected one of"):
        latex.badge("maybe")


def test_breakable_escapes_and_allows_breaks_inside_long_tokens():
    brk = latex.ALLOW_BREAK
    assert latex.breakable("reports.errata.qk_entry") == (
        f"reports.{brk}errata.{brk}qk\\_{brk}entry")
    assert latex.breakable("a&b%c") == r"a\&b\%c"  # no break point, escaped all the same
    assert latex.breakable("f(x)") == f"f{brk}(x)"
    assert latex.breakable("无空格的中文") == "无空格的中文"


def test_breakable_rejects_text_that_is_already_tex():
    with pytest.raises(TypeError, match="expected plain text, got LatexSafe"):
        latex.breakable(LatexSafe(r"\frac{a}{b}"))


def test_report_tex_content(tex_source, data):
    src = tex_source
    assert r"\documentclass[a4paper,11pt,fontset=none,scheme=plain]{ctexart}" in src
    # Quoted note: markup kept as text, % escaped, Chinese untouched (break points aside).
    assert r"缩放因子取 1/d\_k，使方差为 1 <script>alert(1)</script> 约 100\%" in \
        src.replace(latex.ALLOW_BREAK, "")
    # SymPy's LaTeX arrives untouched.
    for claim in data["claims"]:
        for step in claim["steps"]:
            assert step["latex"] in src
    assert r"\begin{aligned}" in src and r"\begin{pmatrix}" in src and r"\text{（二元" in src
    flat = src.replace(latex.ALLOW_BREAK, "")
    assert r"Variance of the dot product qᵀk = q₁k₁ + ... + q\_dk\_d is d\_k" in flat
    assert r"\failbox{FAILED: a step does not follow" in src and "(FAILED at step 2)" in src
    assert r"\label{claim-scaled_variance_wrong}" in src


def test_errata_in_full_then_checked_claims_one_row_each(tex_source):
    full = tex_source.split(r"\label{errata-corrections}")[1].split(r"\label{errata-checked}")[0]
    checked = tex_source.split(r"\label{errata-checked}")[1]
    error, imprecise = r"\label{erratum-note1-scale}", r"\label{erratum-note3-residual}"
    assert full.index(error) < full.index(imprecise)
    assert "note2-softmax" not in full and full.count(r"\begin{tabular}") == 2
    for head in ("The notes say", "Correction", "Why", "Evidence"):
        assert full.count(rf"\textbf{{{head}}}") == 2
    lines = checked.splitlines()
    at = next(i for i, line in enumerate(lines) if r"\label{erratum-note2-softmax}" in line)
    row, evidence = lines[at], lines[at + 1]
    assert row.startswith(r"\item \vcorrect") and r"\passed" in evidence
    assert r"The note's Jacobian matches the derived one entry by entry." in \
        row.replace(latex.ALLOW_BREAK, "")
    assert "$" not in row  # no formula in a compact row
    assert r"\subsubsection*{《lecture2.md》}" in checked
    assert "Audited claims by verdict, per note" in tex_source
    assert "all notes & 1 & 1 & 1" in tex_source


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    assert len(reader.pages) > 0
    return "".join(page.extract_text() or "" for page in reader.pages)


def squash(text: str) -> str:
    return "".join(text.split())


# Display formulas far wider than the page (RoPE's unrolled sums), one a little too wide, and
# a long proportional-serif formula: each must wrap or shrink, never run into the margin.
ROPE_TERM = (r"\left(\sin{\left(10000^{- \frac{j}{h}} m \right)} {q_{1}}_{j} + "
             r"\cos{\left(10000^{- \frac{j}{h}} m \right)} {q_{2}}_{j}\right) "
             r"\left(\sin{\left(10000^{- \frac{j}{h}} n \right)} {k_{1}}_{j} + "
             r"\cos{\left(10000^{- \frac{j}{h}} n \right)} {k_{2}}_{j}\right)")
WIDE_FORMULAS = (
    ROPE_TERM + " + " + ROPE_TERM + " = " + ROPE_TERM + " - " + ROPE_TERM,
    r"\sum_{j=0}^{h - 1} \left(" + " + ".join([ROPE_TERM] * 3) + r"\right)",
    " + ".join([r"\frac{e^{z_{1}}}{\sum_{k=1}^{n} e^{z_{k}}}"] * 11),
)


def widened(data: dict) -> dict:
    """``data`` with the first claim's steps replaced by :data:`WIDE_FORMULAS`."""
    out = json.loads(json.dumps(data))
    steps = out["claims"][0]["steps"]
    for step, tex in zip(steps, WIDE_FORMULAS, strict=False):
        step["latex"] = tex
    # a rule citing a definition by its name in text, a letter DejaVu Serif lacks
    steps[0]["rule"] = "the definition of ℓ"
    return out


@pytest.fixture(scope="module")
def pdf_build(tmp_path_factory, data):
    if not latex.tex_available():
        pytest.skip(latex.TEX_HINT)
    saved = {k: os.environ.get(k) for k in ("SOURCE_DATE_EPOCH", "FORCE_SOURCE_DATE")}
    os.environ.update(SOURCE_DATE_EPOCH="1700000000", FORCE_SOURCE_DATE="1")
    try:
        out = tmp_path_factory.mktemp("pdf") / "build"
        cache = build.Cache(out.parent / "cache")
        cold: list[str] = []
        wide = widened(data)
        build.build(out, data=wide, log=cold.append, cache=cache)
        # A second compile in another folder: the PDF must not depend on where it was built.
        elsewhere = out.parent / "elsewhere"
        shutil.copytree(out / "latex" / "en", elsewhere)
        again = latex.compile_pdf(elsewhere / "report.tex", out.parent / "again.pdf")
        lines: list[str] = []
        build.build(out.parent / "warm", data=wide, log=lines.append, cache=cache)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    pdf_line = next(line for line in lines if line.split()[1] == "render")
    return {"pdf": out / "pdf" / "report.en.pdf", "zh": out / "pdf" / "report.zh.pdf",
            "again": again.path, "missing": again.missing, "tex_dir": elsewhere,
            "overfull": again.overfull, "cold_lines": cold,
            "warm": out.parent / "warm" / "pdf" / "report.en.pdf", "warm_line": pdf_line}


@needs_tex
def test_pdf_has_every_section(pdf_build, data):
    text = squash(pdf_text(pdf_build["pdf"]))
    titles = [c["id"] for c in data["claims"]]
    titles += ["How to read this report", "Contents", "Figures", "Errata in the lecture notes",
               "FAILED", "Figure 1", "Figure 4"]
    missing = [t for t in titles if squash(t) not in text]
    assert missing == []
    assert "缩放因子" in text


@needs_tex
def test_chinese_pdf_has_every_section(pdf_build, data):
    text = squash(pdf_text(pdf_build["zh"]))
    wanted = [c["id"] for c in data["claims"]]
    wanted += ["阅读指南", "目录", "讲义勘误", "图1", "图4", "中文版", "2026-12-01"]
    assert [t for t in wanted if squash(t) not in text] == []


@needs_tex
def test_pdf_is_reproducible_under_source_date_epoch(pdf_build):
    assert pdf_build["pdf"].read_bytes() == pdf_build["again"].read_bytes()


@needs_tex
def test_every_edition_compiles_in_two_passes(pdf_build):
    # the seeded contents give the first pass its final layout, in the student editions too
    # (their errata are put in the contents by hand)
    pdf_lines = [line for line in pdf_build["cold_lines"] if "pdf/" in line]
    passes = re.findall(r"pdf/(\S+)\.pdf \((\d) XeLaTeX passes\)", " ".join(pdf_lines))
    assert sorted(passes) == [(f"{kind}.{lang}", "2") for kind in ("report", "student")
                              for lang in ("en", "zh")], pdf_lines


@needs_tex
def test_unchanged_report_reuses_the_cached_pdf(pdf_build):
    assert "cached" in pdf_build["warm_line"]
    assert pdf_build["warm"].read_bytes() == pdf_build["pdf"].read_bytes()


@needs_tex
def test_fonts_cover_every_character(pdf_build):
    # Titles carry ᵀ ₁ ∂ ≤ β; XeTeX would drop an unsupported glyph with only a log line.
    assert pdf_build["missing"] == []


@needs_tex
def test_no_line_runs_into_the_margin(pdf_build):
    # Long ids, dotted evidence paths and wide note formulas must wrap or shrink to fit.
    assert pdf_build["overfull"] == []


@needs_tex
def test_no_line_runs_into_the_margin_in_either_edition(pdf_build):
    # the build reports every Overfull \hbox wider than 1pt of both logs (en and zh)
    pdf_lines = [line for line in pdf_build["cold_lines"] if "report.zh.pdf" in line]
    assert pdf_lines, pdf_build["cold_lines"]  # the Chinese edition was compiled and reported
    assert [line for line in pdf_build["cold_lines"] if "overfull" in line] == []


def test_wide_formulas_are_cut_only_between_whole_terms():
    pieces = latex.math_pieces(WIDE_FORMULAS[0])
    assert len(pieces) == 8 and pieces[2].startswith("{}+ ") and pieces[4].startswith("{}= ")
    assert "".join(p.removeprefix("{}") for p in pieces).replace(" ", "") == \
        WIDE_FORMULAS[0].replace(" ", "")
    # never inside a group or a number, never at a sign
    assert latex.math_pieces(r"x = -0.5 + 1e-05 - y_{a+b} (c - d)") == [
        "x", "{}= -0.5", "{}+ 1e-05", "{}- y_{a+b} (c - d)"]
    assert latex.math_pieces(r"\left(a + b") == [r"\left(a + b"]  # unbalanced: left whole
    # one long group (a sum over a big bracket) opens into fixed-size delimiters to wrap inside
    inside = latex.math_pieces(WIDE_FORMULAS[1])
    assert len(inside) == 6 and inside[0].startswith(r"\sum_{j=0}^{h - 1} \Bigl(")
    assert inside[-1].endswith(r"\Bigr)") and latex.math_pieces(r"\left(a + b\right)") == [
        r"\left(a + b\right)"]  # a short group stays whole
    shown = latex.math(Tex(WIDE_FORMULAS[0], True, "wide"))
    assert shown.startswith("\\fitdisplay{") and shown.count("\\fitpiece{") == 8


def test_overfull_boxes_are_read_from_the_log():
    log = ("Overfull \\hbox (103.04137pt too wide) in paragraph at lines 1619--1619\n"
           "\\TU/DejaVuSansMono(0)/m/n/10.95 reports.errata.checks_misc.boltzmann_softmax\n"
           "Underfull \\hbox (badness 10000) in paragraph at lines 5--6\n"
           "Overfull \\hbox (3.4809pt too wide) in alignment at lines 136--147\n")
    assert latex.overfull_boxes(log) == [
        "Overfull \\hbox (103.04137pt too wide) in paragraph at lines 1619--1619",
        "Overfull \\hbox (3.4809pt too wide) in alignment at lines 136--147",
    ]
    assert latex.overfull_boxes("Underfull \\hbox (badness 10000) in paragraph") == []
    # a box less than a point too wide is invisible: not reported, but anything above is
    assert latex.overfull_boxes("Overfull \\hbox (0.8pt too wide) detected at line 9\n") == []
    assert latex.overfull_boxes("Overfull \\hbox (1.2pt too wide) detected at line 9\n") == [
        "Overfull \\hbox (1.2pt too wide) detected at line 9"]


def test_missing_glyphs_are_read_from_the_log():
    log = ("Missing character: There is no ᵀ (U+1D40) in font [lmroman10-regular]!\n"
           "Missing character: There is no ₁ (U+2081) in font [lmroman10-regular]!\n"
           "Missing character: There is no ᵀ (U+1D40) in font [lmroman10-regular]!\n")
    assert latex.missing_glyphs(log) == ["ᵀ", "₁"]
    assert latex.missing_glyphs("Output written on report.xdv") == []


@needs_tex
def test_latex_error_is_reported_with_log_lines(tmp_path):
    tex = tmp_path / "broken.tex"
    tex.write_text("\\documentclass{article}\\begin{document}$\\frac{a$\\end{document}\n")
    with pytest.raises(latex.LatexError, match="latexmk failed") as err:
        latex.compile_pdf(tex, tmp_path / "out.pdf")
    assert "broken.tex" in str(err.value)
    assert not (tmp_path / "out.pdf").exists()


def test_pdf_error_card_has_both_versions_with_numbers(tmp_path, data):
    from tests.test_reports_html import _with_evidence_view

    figs = [{"name": n} for n, _ in plots.FIGURES]
    for lang, (note, corr) in {"en": ("variance after dividing by d\\_k",
                                      "variance after dividing by √d\\_k"),
                               "zh": ("除以 d\\_k 后的方差", "除以 √d\\_k 后的方差")}.items():
        tex = latex.render(edition.build_view(_with_evidence_view(data), figs, lang),
                           tmp_path / lang).read_text(encoding="utf-8")
        card = tex.split(r"\label{erratum-note1-scale}")[1].split(r"\end{tabular}")[0]
        flat = card.replace(latex.ALLOW_BREAK, "")
        assert rf"\notpassed{{}} \textbf{{{note}}}" in flat and "0.0156 at d\\_k = 64" in flat
        assert rf"\passed{{}} \textbf{{{corr}}}" in flat and "1.002 at d\\_k = 64" in flat
        assert r"$\operatorname{Var} = 1/d_k$" in card


@needs_tex
def test_rebuild_is_byte_identical_without_a_date_in_the_environment(tmp_path, data,
                                                                    monkeypatch):
    """`make reports` sets no SOURCE_DATE_EPOCH: the edition's fixed date stands in for it."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.delenv("FORCE_SOURCE_DATE", raising=False)
    outs = []
    for name in ("one", "two"):
        out = tmp_path / name / "build"
        build.build(out, data=data, log=lambda line: None,
                    cache=build.Cache(tmp_path / name / "cache", enabled=False))
        outs.append(out)
    for lang in ("en", "zh"):
        a, b = (o / "pdf" / f"report.{lang}.pdf" for o in outs)
        assert a.read_bytes() == b.read_bytes(), lang


def test_numbers_never_break_across_lines():
    brk = latex.ALLOW_BREAK
    text = latex.breakable("paper step -0.000999, candidate 1e-05; x=2.5")
    for number in ("-0.000999", "1e-05", "2.5"):
        assert number in text.replace(brk + "-", "-"), number  # a break may precede, not split
        assert brk not in text[text.index(number[1:]) : text.index(number[1:]) + len(number)]
    assert latex.breakable("a.b") == f"a.{brk}b"  # words still break at their dots


def test_conditions_are_printed_beside_each_claim(tex_source, data):
    # the layer-norm claim of the fixture is proved under ε > 0; the reader sees that condition
    flat = tex_source.replace(latex.ALLOW_BREAK, "").replace(",\\allowbreak ", ", ")
    block = flat.split(r"\label{claim-layernorm_grad}", 1)[1].split(r"\paragraph{Steps}", 1)[0]
    assert r"\paragraph{Conditions on the symbols}" in block
    assert r"Taken as given by both routes: $n \in \{1, 2, \dots\}$; $\epsilon > 0$" in block
    assert r"The numeric route draws values from: $\epsilon \in [0.001, 0.1]$" in block
    # a claim without conditions has no such paragraph
    plain = flat.split(r"\label{claim-attention_2x2}", 1)[1].split(r"\paragraph{Steps}", 1)[0]
    assert "Conditions on the symbols" not in plain


def test_seeds_number_the_sections_as_latex_does():
    tex = "\n".join([
        r"\begin{document}",
        r"\section*{Guide}",
        r"\section{A}\label{topic-a}",
        r"\subsection{\texorpdfstring{B $x_{1}$}{B x1}}\label{claim-b}",
        r"\subsection{C \{ {nested}}",
        r"\section{D}\label{errata}",
        r"\subsection{E}\label{claim-e}",
        r"\subsubsection*{not numbered}",
        r"\subsection*{Errata}",
        r"\addcontentsline{toc}{subsection}{Errata}",
        r"\section*{More}\label{more}",
        r"\addcontentsline{toc}{section}{More \{x\}}",
    ])
    toc, aux = latex.seeds(tex)
    assert toc.splitlines() == [
        r"\contentsline {section}{\numberline {1}A}{0}{section.1}%",
        r"\contentsline {subsection}{\numberline {1.1}\texorpdfstring{B $x_{1}$}{B x1}}{0}"
        r"{subsection.1.1}%",
        r"\contentsline {subsection}{\numberline {1.2}C \{ {nested}}{0}{subsection.1.2}%",
        r"\contentsline {section}{\numberline {2}D}{0}{section.2}%",
        r"\contentsline {subsection}{\numberline {2.1}E}{0}{subsection.2.1}%",
        # an unnumbered heading in the contents (the student edition's errata): without its line
        # the first pass lays the pages out shorter by one line of contents
        r"\contentsline {subsection}{Errata}{0}{subsection*.1}%",
        r"\contentsline {section}{More \{x\}}{0}{section*.2}%",
    ]
    assert aux.splitlines() == [
        r"\relax ",
        r"\newlabel{topic-a}{{1}{0}{}{section.1}{}}",
        r"\newlabel{claim-b}{{1.1}{0}{}{subsection.1.1}{}}",
        r"\newlabel{errata}{{2}{0}{}{section.2}{}}",
        r"\newlabel{claim-e}{{2.1}{0}{}{subsection.2.1}{}}",
    ]


def test_seeds_refuse_an_unbalanced_title():
    with pytest.raises(latex.LatexError, match="unbalanced braces"):
        latex.seeds(r"\begin{document}\section{A {b}")


@needs_tex
def test_seeded_compile_needs_two_passes_and_gives_the_same_pdf(pdf_build, tmp_path,
                                                                monkeypatch):
    # variables: the English edition's source; the same compiled without the seeds
    def compile_in(folder: Path) -> latex.Compiled:
        work = tmp_path / folder
        shutil.copytree(pdf_build["tex_dir"], work)
        return latex.compile_pdf(work / "report.tex", tmp_path / f"{folder}.pdf", 1700000000)
    seeded = compile_in(Path("a"))
    monkeypatch.setattr(latex, "seeds", lambda tex: ("", "\\relax \n"))
    plain = compile_in(Path("b"))
    # check: the seeds change nothing in the document, and never cost a pass (this small
    # report's contents fit on the page the empty contents already took)
    assert seeded.path.read_bytes() == plain.path.read_bytes()
    assert seeded.passes == 2 and plain.passes >= seeded.passes


LONG_CONTENTS = "\n".join([
    r"\documentclass{article}",
    r"\usepackage{hyperref}",
    r"\begin{document}",
    r"See \S\ref{s-40} and \S\ref{s-7}.",
    r"\tableofcontents",
    *(rf"\clearpage\section{{Section {i} with a title long enough to wrap in the contents "
      rf"when the page is narrow}}\label{{s-{i}}}\subsection{{Part {i}.1}}\subsection{{Part {i}.2}}"
      for i in range(1, 61)),
    r"\end{document}",
])


@needs_tex
def test_seeds_save_the_third_pass_of_a_long_contents(tmp_path, monkeypatch):
    # variables: a document whose contents run over several pages and that cites sections
    def compile_in(folder: str) -> latex.Compiled:
        (tmp_path / folder).mkdir()
        tex = tmp_path / folder / "report.tex"
        tex.write_text(LONG_CONTENTS, encoding="utf-8")
        return latex.compile_pdf(tex, tmp_path / f"{folder}.pdf", 1700000000)
    seeded = compile_in("a")
    monkeypatch.setattr(latex, "seeds", lambda tex: ("", "\\relax \n"))
    plain = compile_in("b")
    # check: without the seeds the contents and the references move the pages once more
    assert (seeded.passes, plain.passes) == (2, 3)
    assert seeded.path.read_bytes() == plain.path.read_bytes()
