"""`python -m reports audit NOTES_DIR --registry FILE --claims FILE.py`: the errata report of the
reader's own notes. The worked example (examples/notes) builds into both editions; every mistake
in a registry is one line naming the record and the field, exit 2."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from reports.__main__ import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "notes"


def audit(folder: Path, *extra: str) -> int:
    return main(["audit", str(folder / "notes"), "--registry", str(folder / "registry.toml"),
                 "--claims", str(folder / "claims.py"), "--out", str(folder / "out"),
                 "--no-pdf", *extra])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("own") / "example"
    shutil.copytree(EXAMPLE, folder)
    assert audit(folder) == 0
    return folder


def test_the_example_builds_into_both_editions(built):
    en = (built / "out" / "html" / "index.html").read_text(encoding="utf-8")
    zh = (built / "out" / "html" / "index.zh.html").read_text(encoding="utf-8")
    for page in (en, zh):
        for rid in ("tanh-derivative", "score-scaling"):  # the deliberate errors, shown in full
            assert f'id="erratum-{rid}"' in page
        assert 'href="#claim-notes_tanh_derivative"' in page  # the evidence claim, linked
        assert 'id="claim-notes_tanh_derivative"' in page
    assert "Activations and their gradients" in en
    # the records' Chinese and the claims file's
    assert "符号错误" in zh and "tanh 的导数是 1 − tanh²" in zh
    for lang in ("en", "zh"):
        tex = (built / "out" / "latex" / lang / "report.tex").read_text(encoding="utf-8")
        assert "erratum-tanh-derivative" in tex


def test_it_prints_each_record_and_the_coverage(built, capsys):
    assert audit(built) == 0
    out = capsys.readouterr().out
    assert "tanh-derivative              error      evidence claim:notes_tanh_derivative: " \
           "passed (your claim notes_tanh_derivative: proved)" in out
    assert "coverage: activations.md: 5/8 sentences (62 %) carry a record" in out
    # and the report shows it beside the note, in each edition's words
    html = built / "out" / "html"
    assert "audited: 5 of 8 sentences (62 %) carry a record<" in (
        html / "index.html").read_text(encoding="utf-8")
    assert "审阅覆盖：8 句中 5 句有记录（62%）<" in (html / "index.zh.html").read_text(
        encoding="utf-8")
    # tanh = 2σ(2x) − 1: SymPy's simplify leaves it, the symbolic route's exponential form shows it
    assert "claim:notes_tanh_as_logistic: passed (your claim notes_tanh_as_logistic: proved)" \
        in out


def test_a_claim_only_numerically_checked_does_not_pass(tmp_path, capsys):
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE, folder)
    claims = folder / "claims.py"
    # the record's claim replaced by Σ sin(i)/i = (π − 1)/2: true, and no form of SymPy's reaches it
    claims.write_text(claims.read_text(encoding="utf-8") + (
        "\ni = sp.Symbol('i', integer=True, positive=True)\n"
        "TANH_AS_LOGISTIC = Derivation(id='notes_tanh_as_logistic', title='a Fourier series',"
        " statement=sp.Eq(sp.Sum(sp.sin(i) / i, (i, 1, sp.oo)), (sp.pi - 1) / 2,"
        " evaluate=False), assumptions=(), steps=(Step((sp.pi - 1) / 2, 'Fourier'),),"
        " domain=Domain())\n"
        "CLAIMS = [SIGMOID_DERIVATIVE, TANH_AS_LOGISTIC, TANH_DERIVATIVE, SOFTPLUS_DERIVATIVE]\n"),
        encoding="utf-8")
    audit(folder)
    out = capsys.readouterr().out
    assert "claim:notes_tanh_as_logistic: NOT passed (your claim notes_tanh_as_logistic: " \
           "numeric)" in out


def test_a_failed_claim_shows_so(built, tmp_path, capsys):
    folder = tmp_path / "f"
    shutil.copytree(built, folder, ignore=shutil.ignore_patterns("out"))
    claims = folder / "claims.py"
    claims.write_text(claims.read_text(encoding="utf-8").replace(
        'Step(1 / sp.cosh(x)**2, "tanh\' = 1/cosh²")',
        'Step(2 / sp.cosh(x)**2, "tanh\' = 1/cosh²")'), encoding="utf-8")
    assert audit(folder) == 0
    out = capsys.readouterr().out
    assert "claim:notes_tanh_derivative: NOT passed (your claim notes_tanh_derivative: failed " \
           "at step 1)" in out
    zh = (folder / "out" / "html" / "index.zh.html").read_text(encoding="utf-8")
    assert "你的命题 notes_tanh_derivative：未通过，第 1 步" in zh


BAD = [
    ('quote = "tanh\'(x) = 1 + tanh²(x)"', 'quote = "tanh\'(x) = 1 + tanh(x)"',
     "registry.toml: record 'tanh-derivative': quote: not found in activations.md: "
     "\"tanh'(x) = 1 + tanh(x)\""),
    ('evidence = "claim:notes_tanh_derivative"', 'evidence = "claim:tanh_derivative"',
     "record 'tanh-derivative': evidence: claim 'tanh_derivative' is not in the --claims files"),
    ('evidence = "check:scaled_score_variance"', 'evidence = "check:score_variance"',
     "record 'score-scaling': evidence: no function 'score_variance' in the --claims files"),
    ('evidence = "check:scaled_score_variance"', 'evidence = "scaled_score_variance"',
     "record 'score-scaling': evidence: expected 'claim:ID' or 'check:FUNCTION' or the name "
     "of a function registered with reports.audit.evidence.check, got 'scaled_score_variance', "
     "which is no registered function; write 'claim:scaled_score_variance' or "
     "'check:scaled_score_variance'"),
    ('verdict = "error"\nscope = "transformer-math"\nreason = "The sign',
     'verdict = "wrong"\nscope = "transformer-math"\nreason = "The sign',
     "record 'tanh-derivative': verdict: expected one of ['correct', 'error', 'imprecise', "
     "'reported'], got 'wrong'"),
    ('id = "softplus-derivative"\nnote = "activations.md"\n',
     'id = "softplus-derivative"\n',
     "record 'softplus-derivative': note: missing (expected a non-empty string)"),
    ('correction_text = "Divide by', 'corection = "Divide by',
     "record 'score-scaling': corection: unknown field"),
    ('note = "activations.md"\nquote = "σ\'(x)', 'note = "other.md"\nquote = "σ\'(x)',
     "record 'logistic-derivative': note: note other.md: expected a file in"),
    ("[notes.\"activations.md\"]", "[[notes]]",
     "registry.toml: notes: expected tables [notes.\"FILE\"]"),
    ('id = "tanh-logistic"', 'id = "logistic-derivative"',
     "record 'logistic-derivative': id: expected a new id, got one used before"),
]


@pytest.mark.parametrize("old, new, needle", BAD, ids=[b[2][:40] for b in BAD])
def test_a_mistake_is_one_line_naming_the_record_and_field(built, tmp_path, capsys, old, new,
                                                          needle):
    folder = tmp_path / "bad"
    shutil.copytree(built, folder, ignore=shutil.ignore_patterns("out"))
    registry = folder / "registry.toml"
    text = registry.read_text(encoding="utf-8")
    assert old in text
    registry.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert audit(folder) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("audit: error: "), err
    assert needle in err, err
    assert not (folder / "out").exists()  # nothing was built


def test_a_check_that_returns_no_bool_is_refused(built, tmp_path, capsys):
    folder = tmp_path / "c"
    shutil.copytree(built, folder, ignore=shutil.ignore_patterns("out"))
    with (folder / "claims.py").open("a", encoding="utf-8") as f:
        f.write("\n\ndef scaled_score_variance():\n    return 'yes'\n")
    assert audit(folder) == 2
    err = capsys.readouterr().err
    assert "record 'score-scaling': evidence: check:scaled_score_variance returned str 'yes', " \
           "expected a bool or (bool, detail)" in err


# ------------------------------------------------------------------- a note written in LaTeX
# a tutor's note as notes are written: formulas in $…$; one right, one with the normaliser
# squared, one slip in words, one fact the project proves, one fact of history
LATEX_NOTE = r"""# Softmax, my notes

The gradient is the softmax: $\partial_j \log Z = \frac{e^{z_j}}{\sum_k e^{z_k}}$.
Written out again, $\partial_j \log Z = \frac{e^{z_j}}{(\sum_k e^{z_k})^2}$.
Each entry of softmax(z) is positive, and the entries sum to 2.
Adding a constant to every logit leaves the softmax unchanged.
Bridle named the softmax in 1990.
"""
LATEX_REGISTRY = r"""
[[record]]
id = "lse-gradient"
note = "softmax.md"
quote = '\frac{e^{z_j}}{\sum_k e^{z_k}}'
verdict = "correct"
scope = "transformer-math"
reason = "Term by term."
evidence = "claim:logsumexp_gradient"

[[record]]
id = "lse-squared"
note = "softmax.md"
quote = '\frac{e^{z_j}}{(\sum_k e^{z_k})^2}'
verdict = "error"
scope = "transformer-math"
reason = "The normaliser enters once."
correction_text = "The gradient is $e^{z_j}/\\sum_k e^{z_k}$."
evidence = "claim:logsumexp_gradient"
note_version = "claim:lse_squared"

[[record]]
id = "softmax-sum"
note = "softmax.md"
quote = "the entries sum to 2"
verdict = "error"
scope = "transformer-math"
reason = "Each entry is a share of the sum."
correction_text = "The entries sum to 1."
evidence = "check:sums_to_one"
note_version = "check:sums_to_one"

[[record]]
id = "softmax-shift"
note = "softmax.md"
quote = "Adding a constant to every logit"
verdict = "correct"
scope = "transformer-math"
reason = "The factor cancels."
evidence = "claim:softmax_shift_invariance"
see_also = ["log_sum_exp", "lse_squared"]

[[record]]
id = "bridle"
note = "softmax.md"
quote = "Bridle named the softmax in 1990"
verdict = "correct"
scope = "history"
reason = "His paper of 1990 names it."
sources = [{ cite = "J. S. Bridle, Probabilistic interpretation (1990)", locator = "p. 227" }]
"""
# the claims: the example's, its variant with the squared normaliser (the note as written), and
# a second file that reaches the same claim again, as a file that imports it does
WRONG_STEP = """
import sympy as sp
from derivations import with_step
from logsumexp_grad import LSE_GRADIENT, Z, j, z
SQUARED = with_step(LSE_GRADIENT, 3, sp.exp(z[j]) / Z**2, id="lse_squared")
CLAIMS = [LSE_GRADIENT, SQUARED]
"""
CHECKS = """
import numpy as np
from pathlib import Path

CALLS = Path(__file__).with_name("calls.txt")


def sums_to_one():
    with CALLS.open("a") as f:
        f.write("sums_to_one\\n")
    z = np.random.default_rng(0).normal(size=(10, 4))
    s = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return bool(np.allclose(s.sum(axis=1), 1.0)), {"en": "10 rows sum to 1",
                                                    "zh": "10 行之和都是 1"}
"""


def latex_folder(root: Path, registry: str = LATEX_REGISTRY) -> Path:
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "softmax.md").write_text(LATEX_NOTE, encoding="utf-8")
    (root / "registry.toml").write_text(registry, encoding="utf-8")
    shutil.copy(ROOT / "examples" / "logsumexp_grad.py", root / "logsumexp_grad.py")
    (root / "wrong.py").write_text(WRONG_STEP, encoding="utf-8")
    (root / "checks.py").write_text(CHECKS, encoding="utf-8")
    return root


def audit_latex(root: Path, *extra: str) -> int:
    return main(["audit", str(root / "notes"), "--registry", str(root / "registry.toml"),
                 "--claims", str(root / "logsumexp_grad.py"), str(root / "wrong.py"),
                 str(root / "checks.py"), "--out", str(root / "out"), *extra])


@pytest.fixture(scope="module")
def latex_built(tmp_path_factory):
    root = latex_folder(tmp_path_factory.mktemp("latex"))
    (root / "out" / "pdf").mkdir(parents=True)  # an earlier run's PDFs
    (root / "out" / "pdf" / "report.en.pdf").write_bytes(b"%PDF- an earlier build")
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert audit_latex(root, "--no-pdf") == 0
    pages = {lang: (root / "out" / "html" / name).read_text(encoding="utf-8")
             for lang, name in (("en", "index.html"), ("zh", "index.zh.html"))}
    return root, printed.getvalue(), pages


def article(page: str, rid: str) -> str:
    return page.split(f'id="erratum-{rid}"', 1)[1].split("</article>")[0]


def test_a_latex_quote_needs_no_claim_latex_and_is_typeset(latex_built):
    _, _, pages = latex_built
    for page in pages.values():
        quote = article(page, "lse-squared").split('<blockquote class="note-quote"')[1]
        quote = quote.split("</blockquote>")[0]
        shown = re.sub(r"<annotation.*?</annotation>", "", quote)  # KaTeX keeps its source
        assert 'class="katex"' in quote and "\\frac" not in shown, quote[:300]
        # a quote with no math is shown as written, once (no \text{} copy of it)
        said = article(page, "softmax-sum")
        assert said.count("the entries sum to 2") == 2  # the quote and its context


def test_the_note_version_is_the_failing_row(latex_built):
    _, out, pages = latex_built
    assert ("note_version claim:lse_squared: does not hold, as the verdict says (your claim "
            "lse_squared: failed at step 3)") in out
    en, zh = article(pages["en"], "lse-squared"), article(pages["zh"], "lse-squared")
    assert "The note&#39;s version — does not hold" in en and "The correction — holds" in en
    assert "was not run separately" not in en and "The computation contradicts" in en
    assert "讲义的说法——不成立" in zh and "未单独运行讲义版本" not in zh
    assert 'href="#claim-lse_squared"' in en  # the note as written, linked
    # a note's version that holds is said to, in the line and in the summary
    assert "note_version check:sums_to_one: HOLDS, though the verdict says it does not" in out
    assert "Not as the verdict expects" in article(pages["en"], "softmax-sum")


def test_a_shipped_claim_is_cited_as_evidence_and_shown(latex_built):
    _, out, pages = latex_built
    assert ("softmax-shift                correct    evidence claim:softmax_shift_invariance: "
            "passed (the project's claim softmax_shift_invariance: proved)") in out
    for page in pages.values():
        for cid in ("softmax_shift_invariance", "log_sum_exp"):  # evidence and see_also
            assert f'id="claim-{cid}"' in page and f'href="#claim-{cid}"' in page
    # the claim reached through both files is one claim, verified and shown once
    assert pages["en"].count('id="claim-logsumexp_gradient"') == 1


def test_a_correction_in_words_stands_as_the_correction(latex_built):
    _, _, pages = latex_built
    en, zh = article(pages["en"], "softmax-sum"), article(pages["zh"], "softmax-sum")
    correction = en.split("<h5>Correction</h5>")[1].split("</div>")[0]
    assert "The entries sum to 1." in correction and "No formula given" not in en
    assert "未给出公式" not in zh


def test_sources_carry_no_pass_mark(latex_built):
    _, out, pages = latex_built
    assert "bridle                       correct    sources: 1, not computed" in out
    row = pages["en"].split('id="erratum-bridle"')[1].split("</li>")[0]
    assert "Sources, not computed" in row and "badge-pass" not in row


def test_a_report_of_your_notes_has_no_empty_section(latex_built):
    root, _, pages = latex_built
    for lang, page in pages.items():
        assert 'id="figures"' not in page and 'href="#figures"' not in page
        assert "No numeric cross-check" not in page and "没有数值交叉核验" not in page
        assert "讲义在本主题上没有需要更正之处" not in page, lang
    # the student edition is the shipped topics': none of your notes, nothing said of them
    assert not (root / "out" / "html" / "student.html").exists()
    assert not (root / "out" / "latex" / "student-en").exists()
    assert "the same check rejects a wrong variant" not in pages["en"]


def test_no_pdf_keeps_the_pdf_of_an_earlier_run(latex_built):
    root, out, _ = latex_built
    assert (root / "out" / "pdf" / "report.en.pdf").read_bytes() == b"%PDF- an earlier build"
    assert "pdf: not rebuilt (--no-pdf);" in out and "of the earlier build kept" in out


def test_every_bad_formula_is_named_before_anything_is_computed(tmp_path, capsys):
    bad = LATEX_REGISTRY.replace('reason = "Term by term."', r'reason = "Term by $\\frac{a}{$."')
    bad = bad.replace('correction_text = "The entries sum to 1."',
                      'correction_text = "The entries sum to 1."\ncorrection_latex = \'\\sqrt{\'')
    root = latex_folder(tmp_path, bad)
    assert audit_latex(root, "--no-pdf") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2, err
    assert err[0].startswith("audit: error: registry.toml: record 'lse-gradient': reason: KaTeX "
                             "cannot typeset '\\\\frac{a}{'")
    assert err[1].startswith("audit: error: registry.toml: record 'softmax-sum': "
                             "correction_latex: KaTeX cannot typeset '\\\\sqrt{'")
    assert not (root / "calls.txt").exists()  # no check ran, no claim was verified
    assert not (root / "out").exists()


def test_the_note_version_of_a_correct_statement_is_refused(tmp_path, capsys):
    root = latex_folder(tmp_path, LATEX_REGISTRY.replace(
        'evidence = "claim:softmax_shift_invariance"',
        'evidence = "claim:softmax_shift_invariance"\nnote_version = "claim:lse_squared"'))
    assert audit_latex(root, "--no-pdf") == 2
    assert "record 'softmax-shift': note_version: is for verdicts ['error', 'imprecise']" in \
        capsys.readouterr().err


def test_a_claim_of_yours_with_a_shipped_id_is_refused(tmp_path, capsys):
    root = latex_folder(tmp_path)
    (root / "wrong.py").write_text(WRONG_STEP.replace('id="lse_squared"', 'id="log_sum_exp"'),
                                   encoding="utf-8")
    assert audit_latex(root, "--no-pdf") == 2
    err = capsys.readouterr().err
    assert "claim 'log_sum_exp' has the id of a shipped claim but states something else; give " \
           "yours another id" in err


def test_a_registered_function_is_evidence_as_in_the_project_audit(tmp_path, capsys):
    """The project's evidence functions run both versions for a registry of yours too: the
    rows and the summary are the project's audit's."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "t.md").write_text("# Tiny\n\nThe softmax of (1, 2) is (0.27, 0.73).\n",
                                             encoding="utf-8")
    (tmp_path / "registry.toml").write_text(
        '[[record]]\nid = "s12"\nnote = "t.md"\nquote = "The softmax of (1, 2) is (0.27, 0.73)"\n'
        'verdict = "correct"\nscope = "transformer-math"\nreason = "Computed."\n'
        'evidence = "softmax_12"\n', encoding="utf-8")
    assert main(["audit", str(tmp_path / "notes"), "--registry", str(tmp_path / "registry.toml"),
                 "--out", str(tmp_path / "out"), "--no-pdf"]) == 0
    assert "s12                          correct    evidence softmax_12: passed (" in \
        capsys.readouterr().out
    page = (tmp_path / "out" / "html" / "index.html").read_text(encoding="utf-8")
    row = page.split('id="erratum-s12"')[1].split("</li>")[0]
    assert "A wrong variant — does not hold" in row and "The note&#39;s version — holds" in row
    assert "the same check rejects a wrong variant" in page  # and the guide says so
