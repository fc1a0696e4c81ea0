"""`python -m derivations report FILE.py ...`: bad input is one line and exit 2, nothing built;
paths are the caller's; the result cache is the project's wherever it is run from."""

from __future__ import annotations

import os

import pytest

from derivations.__main__ import main
from reports.pipeline import build


@pytest.mark.parametrize("files, body, needle", [
    (["nosuch.py"], None, "--claims nosuch.py: no such file"),
    (["empty.py"], "x = 1\n", "--claims empty.py: no Derivation found"),
    # the shipped claim itself: where it is shown, and how an audit of your notes cites it
    (["shipped.py"], "import derivations\nCLAIMS = [derivations.get('log_sum_exp')]\n",
     "claim 'log_sum_exp' is the shipped claim itself; leave it out of your files "
     "(--with-shipped shows the whole report, and an audit of your notes cites it as "
     "claim:log_sum_exp)"),
    # another claim under a shipped claim's id
    (["other.py"], "import dataclasses, derivations\n"
     "CLAIMS = [dataclasses.replace(derivations.get('log_sum_exp'), title='mine')]\n",
     "claim 'log_sum_exp' has the id of a shipped claim; give yours another id"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, monkeypatch, capsys, files, body, needle):
    monkeypatch.chdir(tmp_path)
    if body is not None:
        (tmp_path / files[0]).write_text(body, encoding="utf-8")
    assert main(["report", *files, "--no-pdf"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and needle in err, err
    assert not (tmp_path / "derivations-report").exists()


def test_no_file_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["report"])
    assert stop.value.code == 2
    assert "the following arguments are required: FILE.py" in capsys.readouterr().err


def test_the_cache_is_the_projects_wherever_the_build_starts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert build.DEFAULT_CACHE.is_absolute()
    assert build.DEFAULT_CACHE == build.PROJECT / ".cache" / "reports"
    assert (build.PROJECT / "pyproject.toml").is_file()
    assert not str(build.DEFAULT_CACHE).startswith(os.fspath(tmp_path))


def test_the_command_line_shows_a_matrix_counterexample_as_a_matrix_sizes_first():
    import sympy as sp

    from derivations import Derivation, Domain, Step
    from derivations.claimfiles import explain, verify_many

    n = sp.Symbol("n", integer=True, positive=True)
    A = sp.MatrixSymbol("A", n, n)
    wrong = Derivation(id="my_double", title="A + A = 3A (wrong)",
                       statement=sp.Eq(A + A, 3 * A, evaluate=False), assumptions=(),
                       steps=(Step(3 * A, "collect"),), domain=Domain(dims=(n,), max_dim=3))
    (result,) = verify_many([wrong])
    lines = [line.strip() for line in explain(result)]
    assert lines[1].startswith("n = ")
    size = int(lines[1].removeprefix("n = "))
    assert lines[2].startswith("A = [[") and lines[2].count("], [") == size - 1, lines
