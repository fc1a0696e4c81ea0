"""``python -m derivations notes``: the terminal summary, ``--json``, ``--out`` and bad usage;
and a checked note in Jupyter."""

from __future__ import annotations

import json

import pytest

from derivations.notes import cli, run
from tests.notes_fake_reader import FakeReader

NOTE = ("# Algebra\n\nLet $s = x^2 + 1$. Then $s - 1 = x^2$.\n\n"
        "$$(x+y)^2 = x^2 + 2xy + y^2 = x^2 + y^2$$\n\nAnd $\\foo$.\n")


@pytest.fixture
def note(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "default_reader", FakeReader)
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "algebra.md"
    path.write_text(NOTE, encoding="utf-8")
    return path


def test_summary_counts_and_names_the_failed_link(note, capsys):
    assert cli.main([str(note), "--no-cache"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("4 formulas in 1 note: 1 ✔ proved, 1 ✘ failed, 1 · definition, "
                      "1 ? not understood")
    assert out[1] == f"{note}:5: ✘ (x+y)^2 = x^2 + 2xy + y^2 = x^2 + y^2"
    assert out[3].strip().startswith("at x = ")


def test_json_gives_offsets_readings_and_the_failed_link(note, capsys):
    assert cli.main([str(note), "--json", "--no-cache"]) == 1
    data = json.loads(capsys.readouterr().out)
    (n,) = data["notes"]
    text = note.read_text(encoding="utf-8")
    for f in n["formulas"]:
        assert text[f["start"]:f["end"]] == f["latex"]
        assert {"reading", "verdict", "reason"} <= set(f)
    failed = [f for f in n["formulas"] if f["verdict"] == "failed"]
    assert failed[0]["failed_link"]["index"] == 2 and failed[0]["counterexample"]["point"]


def test_a_note_without_failures_exits_0(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(run, "default_reader", FakeReader)
    (tmp_path / "ok.md").write_text("$s = x^2 + 1$ so $s - 1 = x^2$.", encoding="utf-8")
    assert cli.main([str(tmp_path), "--no-cache"]) == 0


@pytest.mark.parametrize("args, said", [
    (["missing.md"], "no such file or folder"),
    (["notes.pdf"], "expected a note"),
])
def test_bad_paths_are_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.pdf").write_bytes(b"%PDF")
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1


def test_a_note_that_is_not_utf8_is_refused(tmp_path, capsys):
    (tmp_path / "n.md").write_bytes("中文".encode("gbk"))
    assert cli.main([str(tmp_path / "n.md")]) == 2
    assert "UTF-8" in capsys.readouterr().err


def test_jupyter_shows_a_checked_note(note):
    result = run.check_notes([note], cache=None)
    html = result._repr_html_()
    assert "✘" in html and "(x+y)^2" in html and "at x = " in html
    assert result.notes[0]._repr_html_().count("<tr>") == 5


# the one link of the corpus whose counterexample followed string hashing: ∂log s_i/∂z_j
HASHED = ("# softmax\n\n$$s_i = \\frac{e^{z_i}}{\\sum_{j=1}^{K} e^{z_j}}$$\n\n"
          "$$\\frac{\\partial \\log s_i}{\\partial z_j} = \\delta_{ij} - s_i$$\n")


def test_the_same_note_gives_the_same_json_under_any_string_hashing(tmp_path):
    """Sets of SymPy symbols iterate in an order that follows PYTHONHASHSEED; the domain's
    indices must not, or the counterexample shown (i = 2, j = 1 or i = 1, j = 2) changes from
    run to run."""
    import os
    import subprocess
    import sys

    path = tmp_path / "softmax.md"
    path.write_text(HASHED, encoding="utf-8")
    outs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-m", "derivations", "notes", str(path),
                               "--no-cache", "--json"], capture_output=True, text=True,
                              env=env, cwd=tmp_path, check=False)
        assert done.returncode == 1, done.stderr[-2000:]
        outs.append(json.loads(done.stdout))
    links = [ln for f in outs[0]["notes"][0]["formulas"] for ln in f.get("links", [])]
    assert any(ln["status"] == "failed" for ln in links)
    assert outs[0] == outs[1]


ROUNDED = ("一阶矩按 $m_t = \\beta_1 m_{t-1} + (1 - \\beta_1) g_t$ 更新，初值 $m_0 = 0$。\n\n"
           "取 $\\beta_1 = 0.9$，梯度恒为 $g_t = 1$，于是 $m_1 = 0.1$，$m_3 = {m3}$。\n")


@pytest.mark.parametrize("m3, said", [("0.27", " (1 ≈ to the digits shown)"), ("0.271", "")])
def test_summary_says_how_many_proved_hold_only_to_the_digits_shown(tmp_path, capsys, m3,
                                                                     said):
    # m_3 = 0.271 exactly; "0.27" holds only after rounding, which the count must not hide
    path = tmp_path / "adam.md"
    path.write_text(ROUNDED.replace("{m3}", m3), encoding="utf-8")
    assert cli.main([str(path), "--no-cache"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert f"2 ✔ proved{said}," in first


def test_the_page_says_how_many_proved_hold_only_to_the_digits_shown(tmp_path, capsys):
    path = tmp_path / "adam.md"
    path.write_text(ROUNDED.replace("{m3}", "0.27"), encoding="utf-8")
    assert cli.main([str(path), "--no-cache", "--out", str(tmp_path / "out")]) == 0
    zh = (tmp_path / "out" / "adam.zh.html").read_text(encoding="utf-8")
    en = (tmp_path / "out" / "adam.html").read_text(encoding="utf-8")
    assert "2 ✔ 已证明（其中 1 个 ≈，只在所示位数内成立）" in zh
    assert "2 ✔ proved (1 of them ≈, to the digits shown)" in en


def test_what_the_note_gives_is_told_apart_from_what_cannot_be_checked(tmp_path, capsys):
    # the recursion, m_0 = 0, β₁ = 0.9 and g_t = 1 are given; T < 1 is a statement left unchecked
    path = tmp_path / "adam.md"
    path.write_text(ROUNDED.replace("{m3}", "0.271") + "\n另有 $T < 1$。\n", encoding="utf-8")
    assert cli.main([str(path), "--no-cache", "--out", str(tmp_path / "out")]) == 0
    assert "5 · not checkable (4 given by the note)" in capsys.readouterr().out
    zh = (tmp_path / "out" / "adam.zh.html").read_text(encoding="utf-8")
    assert "5 · 无法核验（其中 4 个是讲义给定的取值或递推式）" in zh
    assert zh.count("· 讲义给定</summary>") == 4 and zh.count("· 无法核验</summary>") == 1
