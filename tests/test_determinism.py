"""Two runs give byte-identical outputs, whatever Python's hash seed.

The report is built twice by the CLI, from the fixture data, in processes with different
PYTHONHASHSEED (set and dict iteration order, SymPy's argument order can depend on it); the HTML
and TeX trees must match byte for byte.  The derivation results that feed the report — statuses,
LaTeX of every step, counterexamples of a failing chain — must match the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import derivations

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "report_data.json"
HASH_SEEDS = ("0", "4242")
# Building from fixture data or verifying a few claims takes seconds; a hang is not.
RUN_TIMEOUT = 600


def run(args: list[str], seed: str, **more: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": seed, **more}
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=RUN_TIMEOUT, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def build(data: Path, out: Path, seed: str) -> None:
    """A report from ``data`` built from nothing: a cache of its own beside ``out`` (the
    repository's cache would hand the second of two builds of one data the first's files)."""
    run(["-m", "reports", "build", "--data", str(data), "--out", str(out), "--no-pdf",
         "--cache-dir", str(out.parent / "cache")], seed)


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> list[Path]:
    outs = []
    for seed in HASH_SEEDS:
        out = tmp_path_factory.mktemp(f"seed{seed}") / "build"
        build(FIXTURE, out, seed)
        outs.append(out)
    return outs


def test_tex_is_byte_identical(builds):
    a, b = (tree(out / "latex") for out in builds)
    for lang in ("en", "zh"):
        assert f"{lang}/report.tex" in a and any(k.startswith(f"{lang}/figures/") for k in a)
    assert a == b


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js typesets the HTML report")
def test_html_is_byte_identical(builds):
    a, b = (tree(out / "html") for out in builds)
    assert "index.html" in a and any(k.startswith("figures/") for k in a)
    assert a == b


def test_tree_comparison_sees_a_one_byte_change(builds, tmp_path):
    # control: the comparison above can fail
    copy = tmp_path / "copy"
    shutil.copytree(builds[0] / "latex", copy)
    tex = copy / "zh" / "report.tex"
    tex.write_bytes(tex.read_bytes() + b" ")
    assert tree(copy) != tree(builds[0] / "latex")


VERIFY = textwrap.dedent("""
    import json
    import derivations
    from derivations import mutants

    def plain(result):
        d = result.to_dict()
        d.pop("seconds")
        return d

    out = [plain(r) for r in derivations.verify_all(
        ["softmax_jacobian", "linear_grad_weight", "dot_product_variance"])]
    original = derivations.get("softmax_jacobian")
    wrong = next(m for m in mutants.registry()["softmax_jacobian"]
                 if m.name == "missing Kronecker delta")
    out.append(plain(derivations.verify(wrong.build(original))))
    print(json.dumps(out, sort_keys=True))
""")


def test_derivation_results_are_identical_across_hash_seeds():
    first, second = (run(["-c", VERIFY], seed).stdout for seed in HASH_SEEDS)
    assert '"status": "failed"' in first and '"counterexample": {' in first
    assert first == second


NUMBERS = textwrap.dedent("""
    import json
    import mpmath.libmp
    import derivations
    from derivations.redteam import CASES

    # an oscillating integral, a series by Levin's transform, a quadrature that fails and one
    # that is refused; a shipped claim with matrices
    ids = ["int_true_dirichlet", "ext_telescoping_sqrt", "int_quadratic_2a_is_zero",
           "int_pole_inside_is_finite"]
    out = []
    for r in [c for c in CASES if c.id in ids] + derivations.verify_all(["softmax_jacobian"]):
        try:
            d = (r if hasattr(r, "to_dict") else derivations.verify(r.build())).to_dict()
        except derivations.DerivationError as exc:  # a refusal, with its reason
            out.append(str(exc))
            continue
        d.pop("seconds")
        out.append(d)
    print(mpmath.libmp.BACKEND)
    print(json.dumps(out, sort_keys=True))
""")


def test_results_do_not_depend_on_the_integers_of_mpmath_and_sympy():
    # gmpy2 (a dependency) only makes the integers mpmath and SymPy compute with faster: with
    # Python's own, the results are the same, counterexamples and reasons included
    fast = run(["-c", NUMBERS], "0").stdout.splitlines()
    slow = run(["-c", NUMBERS], "0", MPMATH_NOGMPY="1", SYMPY_GROUND_TYPES="python")
    slow = slow.stdout.splitlines()
    # control: the two runs did use different integers
    assert (fast[-2], slow[-2]) == ("gmpy", "python")
    assert '"status": "failed"' in fast[-1] and '"status": "proved"' in fast[-1]
    assert fast[-1] == slow[-1]


def test_results_do_not_depend_on_the_number_of_workers(shipped):
    # variables: claims from three modules, one citing a lemma from another module
    names = ["attention_softmax_backward", "linear_grad_weight", "causal_mask_zero_gradient",
             "softmax_jacobian"]

    def plain(results):
        return [{k: v for k, v in r.to_dict().items() if k != "seconds"} for r in results]
    # forward: in this process; every shipped claim in module batches over two processes
    alone = derivations.verify_all(names, workers=1)
    pooled = [shipped[n] for n in names]
    # check: the same results
    assert plain(pooled) == plain(alone)


def test_checking_times_are_not_part_of_the_report(tmp_path, builds):
    # variables: the fixture data, and the same data with every claim's checking time changed
    # (a cold build measures new times; the report must not change with them)
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    slower = json.loads(FIXTURE.read_text(encoding="utf-8"))
    for claim in slower["claims"]:
        claim["seconds"] = claim["seconds"] + 1.25
    assert slower != data
    # forward: the fixture's is builds[0] (hash seed 0), the slower one built the same way
    path = tmp_path / "slower.json"
    path.write_text(json.dumps(slower), encoding="utf-8")
    build(path, tmp_path / "slower" / "build", HASH_SEEDS[0])
    outs = [builds[0], tmp_path / "slower" / "build"]
    # check: byte-identical LaTeX (and HTML where Node typesets it)
    assert tree(outs[0] / "latex") == tree(outs[1] / "latex")
    if shutil.which("node"):
        assert tree(outs[0] / "html") == tree(outs[1] / "html")
