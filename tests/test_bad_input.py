"""Bad input to every command line and to the numeric functions: a one-line error, exit 2.

Each CLI runs in a subprocess as a user would run it.  A user error must give exit code 2, exactly
one line on stderr that says what was expected, no traceback, and nothing written.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from numeric import model, ops
from numeric.config import GPTConfig
from reports.audit import notes

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "report_data.json"
# Importing SymPy and every derivation module takes seconds on a loaded machine; a hang is not.
CLI_TIMEOUT = 300


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=CLI_TIMEOUT, check=False)


def assert_user_error(proc: subprocess.CompletedProcess, *needles: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "error" in lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


# --- derivations ------------------------------------------------------------------------------

def test_unknown_claim_names_the_known_ones():
    line = assert_user_error(run("-m", "derivations", "verify", "nosuch"), "nosuch",
                             "known claims")
    assert "softmax_jacobian" in line


def test_unknown_command():
    assert_user_error(run("-m", "derivations", "bogus"), "bogus", "'verify'")


def test_unknown_claim_for_the_mutants():
    assert_user_error(run("-m", "derivations.mutants", "nosuch"), "nosuch", "known claims")


# A derivation module the CLI loads next to the real ones (the launcher extends the package
# path), with one malformed claim.
LAUNCHER = textwrap.dedent("""
    import sys
    import derivations
    derivations.MODULES = (*derivations.MODULES, "broken_claims")
    import derivations.library  # reads MODULES when first imported
    derivations.library.__path__.append(sys.argv[1])
    from derivations.__main__ import main
    sys.exit(main(["verify"]))
""")
HEADER = textwrap.dedent("""
    import sympy as sp
    from derivations import Assumption, Derivation, Step
    x = sp.Symbol("x", real=True)
    n = sp.Symbol("n", integer=True, positive=True)
""")
MALFORMED = {
    "undeclared assumption": (
        'CLAIMS = (Derivation("bad_cite", "t", sp.Eq(2 * x, x + x, evaluate=False), (),'
        ' (Step(x + x, "independence", ("independence",)),)),)',
        "claim 'bad_cite', step 1", "undeclared"),
    "shape mismatch": (
        'X, G = sp.MatrixSymbol("X", n, 3), sp.MatrixSymbol("G", n, 2)\n'
        'CLAIMS = (Derivation("bad_shape", "t", sp.Eq(X.T * G, X.T * G, evaluate=False), (),'
        ' (Step(G.T * X, "transpose"),)),)',
        "claim 'bad_shape', step 1", "shape mismatch"),
    "non-SymPy object": (
        'CLAIMS = (Derivation("bad_type", "t", sp.Eq(x, x, evaluate=False), (),'
        ' (Step("x", "a string"),)),)',
        "claim 'bad_type', step 1", "expected a SymPy expression"),
    "statement not an equation": (
        'CLAIMS = (Derivation("bad_eq", "t", x, (), (Step(x, "r"),)),)',
        "claim 'bad_eq'", "sympy Eq"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_derivation_is_one_line_from_the_cli(tmp_path, case):
    body, *needles = MALFORMED[case]
    (tmp_path / "broken_claims.py").write_text(HEADER + body + "\n", encoding="utf-8")
    assert_user_error(run("-c", LAUNCHER, str(tmp_path)), *needles)


def test_the_launcher_runs_a_well_formed_module(tmp_path):
    # control: the same route with a correct claim verifies it and exits 0
    body = ('CLAIMS = (Derivation("good_claim", "t", sp.Eq(2 * x, x + x, evaluate=False), (),'
            ' (Step(x + x, "2x = x + x"),)),)')
    (tmp_path / "broken_claims.py").write_text(HEADER + body + "\n", encoding="utf-8")
    launcher = LAUNCHER.replace('main(["verify"])', 'main(["verify", "good_claim"])')
    proc = run("-c", launcher, str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "good_claim" in proc.stdout and "proved" in proc.stdout


# --- numeric ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["--bogus"], ["--max-entries", "0"], ["--max-entries", "x"]],
                         ids=["unknown-flag", "zero-entries", "not-a-number"])
def test_gradcheck_usage_errors(args):
    assert_user_error(run("-m", "numeric.gradcheck", *args))


def test_crosscheck_usage_error():
    assert_user_error(run("-m", "numeric.crosscheck", "--bogus"), "--bogus")


F64 = np.zeros((2, 3))
BAD_CALLS = {
    "softmax of ints": (lambda: ops.softmax_forward(np.zeros((2, 3), int)), "dtype"),
    "softmax mask not bool": (lambda: ops.softmax_forward(F64, np.ones((2, 3))), "bool"),
    "softmax mask wrong shape": (lambda: ops.softmax_forward(F64, np.ones((4,), bool)),
                                 "broadcastable"),
    "softmax row fully masked": (lambda: ops.softmax_forward(F64, np.zeros((2, 3), bool)),
                                 "kept position"),
    "linear width": (lambda: ops.linear_forward(F64, np.zeros((4, 2))), "last dim"),
    "linear dtypes": (lambda: ops.linear_forward(F64.astype(np.float32), np.zeros((3, 2))),
                      "dtype"),
    "layernorm gain shape": (lambda: ops.layernorm_forward(F64, np.ones(2), np.zeros(3)),
                             "shape"),
    "softmax backward dtype": (lambda: ops.softmax_backward(
        F64.astype(np.float32), ops.softmax_forward(F64)[1]), "dtype"),
    "cross-entropy target shape": (lambda: ops.cross_entropy_forward(F64, np.zeros(3, int)),
                                   "targets shape"),
    "cross-entropy target range": (lambda: ops.cross_entropy_forward(F64, np.array([0, 3])),
                                   "values"),
    "attention q/k shapes": (lambda: ops.attention_scores_forward(
        np.zeros((1, 1, 2, 4)), np.zeros((1, 1, 3, 4))), "shape"),
    "model token out of vocabulary": (lambda: model.forward(
        model.init_params(GPTConfig()), GPTConfig(), np.full((1, 3), 99)), "values"),
    "model float32 input to float64 block": (lambda: model.block_forward(
        model.init_params(GPTConfig()), GPTConfig(), 0, np.zeros((1, 3, 16), np.float32)),
        "float64"),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_numeric_bad_input_names_expected_and_got(case):
    call, needle = BAD_CALLS[case]
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert "expected" in message and "got" in message and needle in message, message
    assert "\n" not in message


# --- notes ------------------------------------------------------------------------------------

REGISTRY = textwrap.dedent('''
    [notes]
    "a.txt" = { title = "前文 缩放因子取 1/√d_k 后文" }

    [[record]]
    id = "t-quote"
    note = "a.txt"
    quote = "缩放因子取 1/√d_k"
    claim_latex = "x"
    scope = "other"
    verdict = "correct"
    reason = "a test record"
    reason_zh = "测试记录"
    evidence = "boltzmann_softmax"
''')


def notes_dir(tmp_path: Path, encoding: str) -> tuple[Path, Path]:
    directory = tmp_path / "notes"
    directory.mkdir()
    (directory / "a.txt").write_bytes("前文 缩放因子取 1/√d_k 后文".encode(encoding, "replace"))
    registry = tmp_path / "registry.toml"
    registry.write_text(REGISTRY, encoding="utf-8")
    return directory, registry


def test_notes_missing_directory():
    assert_user_error(run("-m", "reports.audit.notes", "check", "/no/such/dir"),
                      "expected a directory", "/no/such/dir")


def test_notes_gbk_note(tmp_path):
    directory, registry = notes_dir(tmp_path, "gbk")
    before = tree(tmp_path)
    line = assert_user_error(run("-m", "reports.audit.notes", "check", str(directory),
                                 "--registry", str(registry)), "a.txt", "expected UTF-8")
    assert "got byte 0x" in line
    assert tree(tmp_path) == before


def test_notes_utf8_control_passes(tmp_path):
    directory, registry = notes_dir(tmp_path, "utf-8")
    proc = run("-m", "reports.audit.notes", "check", str(directory), "--registry", str(registry))
    assert proc.returncode == 0 and "ok: 1 quotes" in proc.stdout, proc.stderr


def test_notes_unreadable_directory(tmp_path, monkeypatch):
    # root reads any directory, so the permission bit cannot be tested by chmod here
    directory, registry = notes_dir(tmp_path, "utf-8")
    monkeypatch.setattr(notes.os, "access", lambda path, mode: False)
    code, lines = notes.check(directory, registry)
    assert code == 2 and len(lines) == 1 and "cannot read (permission denied)" in lines[0]


def test_notes_usage_error():
    assert_user_error(run("-m", "reports.audit.notes", "check"), "NOTES_DIR")


# --- reports ----------------------------------------------------------------------------------

@pytest.fixture
def previous_build(tmp_path) -> Path:
    out = tmp_path / "build"
    (out / "latex").mkdir(parents=True)
    (out / "latex" / "report.tex").write_text("an earlier build\n", encoding="utf-8")
    return out


DATA_FILES = {
    "malformed JSON": (b"{not json", "expected JSON report data"),
    "not UTF-8": ("{\"claims\": \"缩放\"}".encode("gbk"), "expected JSON report data"),
}


@pytest.mark.parametrize("case", list(DATA_FILES))
def test_reports_bad_data_leaves_the_previous_build(tmp_path, previous_build, case):
    content, needle = DATA_FILES[case]
    data = tmp_path / "bad.json"
    data.write_bytes(content)
    before = tree(previous_build)
    assert_user_error(run("-m", "reports", "build", "--data", str(data), "--out",
                          str(previous_build), "--no-pdf"), needle, "bad.json")
    assert tree(previous_build) == before
    assert sorted(p.name for p in previous_build.parent.iterdir()) == ["bad.json", "build"]


def test_reports_missing_data_file(tmp_path, previous_build):
    assert_user_error(run("-m", "reports", "build", "--data", str(tmp_path / "none.json"),
                          "--out", str(previous_build)), "none.json", "cannot read")


def test_reports_unknown_command():
    assert_user_error(run("-m", "reports", "bogus"), "bogus")


# --- every entry point: an unknown flag --------------------------------------------------------

@pytest.mark.parametrize("command", [
    "derivations", "derivations verify", "derivations.mutants", "numeric.crosscheck",
    "numeric.gradcheck", "numeric.train", "numeric.bench", "reports build",
    "reports.audit.notes check ../shared/notes"])
def test_unknown_flag_is_one_line(command):
    assert_user_error(run("-m", *command.split(), "--no-such-flag"), "--no-such-flag")
