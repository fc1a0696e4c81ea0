"""`python -m reports audit NOTES_DIR --registry FILE --claims FILE.py`: the errata report of the
reader's own notes. The worked example (examples/notes) builds into both editions; every mistake
in a registry is one line naming the record and the field, exit 2."""

from __future__ import annotations

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
           "passed (notes_tanh_derivative: proved)" in out
    assert "coverage: activations.md: 6/9 sentences (67 %) carry a record" in out
    # and the report shows it beside the note, in each edition's words
    html = built / "out" / "html"
    assert "audited: 6 of 9 sentences (67 %) carry a record<" in (
        html / "index.html").read_text(encoding="utf-8")
    assert "审阅覆盖：9 句中 6 句有记录（67%）<" in (html / "index.zh.html").read_text(
        encoding="utf-8")
    # tanh = 2σ(2x) − 1: SymPy's simplify leaves it, the symbolic route's exponential form shows it
    assert "claim:notes_tanh_as_logistic: passed (notes_tanh_as_logistic: proved)" in out


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
    assert "claim:notes_tanh_as_logistic: NOT passed (notes_tanh_as_logistic: numeric)" in out


def test_a_failed_claim_shows_so(built, tmp_path, capsys):
    folder = tmp_path / "f"
    shutil.copytree(built, folder, ignore=shutil.ignore_patterns("out"))
    claims = folder / "claims.py"
    claims.write_text(claims.read_text(encoding="utf-8").replace(
        'Step(1 / sp.cosh(x)**2, "tanh\' = 1/cosh²")',
        'Step(2 / sp.cosh(x)**2, "tanh\' = 1/cosh²")'), encoding="utf-8")
    assert audit(folder) == 0
    out = capsys.readouterr().out
    assert "claim:notes_tanh_derivative: NOT passed (notes_tanh_derivative: failed at step 1)" \
        in out
    zh = (folder / "out" / "html" / "index.zh.html").read_text(encoding="utf-8")
    assert "notes_tanh_derivative：未通过，第 1 步" in zh


BAD = [
    ('quote = "tanh\'(x) = 1 + tanh²(x)"', 'quote = "tanh\'(x) = 1 + tanh(x)"',
     "registry.toml: record 'tanh-derivative': quote: not found in activations.md: "
     "\"tanh'(x) = 1 + tanh(x)\""),
    ('evidence = "claim:notes_tanh_derivative"', 'evidence = "claim:tanh_derivative"',
     "record 'tanh-derivative': evidence: claim 'tanh_derivative' is not in the --claims files"),
    ('evidence = "check:scaled_score_variance"', 'evidence = "check:score_variance"',
     "record 'score-scaling': evidence: no function 'score_variance' in the --claims files"),
    ('evidence = "check:scaled_score_variance"', 'evidence = "scaled_score_variance"',
     "record 'score-scaling': evidence: expected 'claim:ID' or 'check:FUNCTION', got "
     "'scaled_score_variance'"),
    ('verdict = "error"\nscope = "transformer-math"\nreason = "The sign',
     'verdict = "wrong"\nscope = "transformer-math"\nreason = "The sign',
     "record 'tanh-derivative': verdict: expected one of ['correct', 'error', 'imprecise', "
     "'reported'], got 'wrong'"),
    ('id = "softplus-derivative"\nnote = "activations.md"\n',
     'id = "softplus-derivative"\n',
     "record 'softplus-derivative': note: missing (expected a non-empty string)"),
    ('correction = "Divide by', 'corection = "Divide by',
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
