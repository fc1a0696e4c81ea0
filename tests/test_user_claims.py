"""Your own claims: `python -m derivations verify FILE.py`, derivations.testing, examples/.

The example files are verified through the command line as a user runs them, their results are
confirmed a second way (finite differences at 50 digits, independent of SymPy's calculus), and a
wrong step in each is caught.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from test_bad_input import assert_user_error, run

from derivations import claimfiles, with_step
from derivations.testing import assert_fails_at, assert_proved

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
EXPECTED = {
    "logsumexp_grad.py": ["logsumexp_gradient"],
    "gelu_derivative.py": ["gelu_derivative_exact", "gelu_derivative_tanh"],
    "layernorm_grad.py": ["layernorm_mean_gradient", "layernorm_centred_sum",
                          "layernorm_variance_gradient", "layernorm_sigma_gradient",
                          "layernorm_xhat_jacobian", "layernorm_rearrange",
                          "layernorm_input_gradient"],
}
# central differences at 50 digits with h = 1e-20: truncation error ~ h² = 1e-40
FD_DIGITS, FD_STEP, FD_RTOL = 50, mpmath.mpf("1e-20"), mpmath.mpf("1e-25")


def example(name: str):
    return claimfiles.load_file(ROOT / "examples" / name)


def test_every_example_is_listed():
    assert [p.name for p in EXAMPLES] == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_is_proved_from_the_command_line(name):
    proc = run("-m", "derivations", "verify", "--json", f"examples/{name}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    claims = json.loads(proc.stdout)["claims"]
    assert [c["id"] for c in claims] == EXPECTED[name]
    assert {c["status"] for c in claims} == {"proved"}
    assert all(c["explanation"] == [] and c["counterexample"] is None for c in claims)
    # one progress line per verified claim on stderr, stdout only the JSON
    assert sorted(line.split(":")[0] for line in proc.stderr.splitlines()) == \
        sorted(EXPECTED[name])


def test_module_name_and_several_files_in_one_run():
    proc = run("-m", "derivations", "verify", "examples.gelu_derivative",
               "examples/logsumexp_grad.py", "log_sum_exp")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [line.split()[:3] for line in proc.stdout.splitlines()[1:-1]]
    assert rows == [["gelu_derivative_exact", "3", "proved"],
                    ["gelu_derivative_tanh", "2", "proved"],
                    ["logsumexp_gradient", "3", "proved"], ["log_sum_exp", "4", "proved"]]


FAILED_AT_3 = "step 3 (the delta keeps the term k = j) failed: it differs from step 2 at"
WRONG = textwrap.dedent("""
    import sympy as sp
    from derivations import with_step
    from logsumexp_grad import LSE_GRADIENT, Z, j, z

    CLAIMS = [with_step(LSE_GRADIENT, 3, sp.exp(z[j]) / Z**2)]
""")


def test_a_wrong_step_gives_a_readable_counterexample(tmp_path):
    (tmp_path / "logsumexp_grad.py").write_bytes((ROOT / "examples/logsumexp_grad.py").read_bytes())
    (tmp_path / "wrong.py").write_text(WRONG, encoding="utf-8")
    proc = run("-m", "derivations", "verify", str(tmp_path / "wrong.py"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout.splitlines()
    assert out[1].split()[:3] == ["logsumexp_gradient", "3", "failed"]
    assert out[2].strip() == FAILED_AT_3
    assert out[3].strip().startswith("n = ") and ", j = " in out[3]  # sizes and indices
    assert out[4].strip().startswith("z[1] = ")  # then the values drawn
    assert out[5].strip().startswith("step 2: Sum(exp(z[k])*KroneckerDelta(j, k)")
    assert out[7].strip() == "step 3: exp(z[j])/Z**2"  # as written, Z defined
    before, after = out[6].split("= ")[1], out[8].split("= ")[1]
    assert before != after and float(before) > 0 and float(after) > 0


def test_json_carries_the_counterexample(tmp_path):
    (tmp_path / "logsumexp_grad.py").write_bytes((ROOT / "examples/logsumexp_grad.py").read_bytes())
    (tmp_path / "wrong.py").write_text(WRONG, encoding="utf-8")
    proc = run("-m", "derivations", "verify", "--json", str(tmp_path / "wrong.py"))
    assert proc.returncode == 1
    (claim,) = json.loads(proc.stdout)["claims"]
    assert claim["failed_step"] == 3 and {"n", "j", "z[1]"} <= set(claim["counterexample"]["point"])
    assert claim["explanation"][0].startswith("step 3 (the delta keeps the term k = j) failed")
    assert claim["step_status"] == ["proved", "proved", "failed"]  # every step's status


BROKEN = {
    "missing.py": (None, "missing.py: no such file"),
    "syntax.py": ("x = (\n", "does not import: SyntaxError", "(line 1)"),
    "raises.py": ("import sympy\n\ny = undefined_name\n", "NameError", "(line 3)"),
    "empty.py": ("a = 1\n", "no Derivation found", "CLAIMS"),
    "claims.py": ("CLAIMS = [1]\n", "CLAIMS[0] must be a Derivation, got int"),
    "malformed.py": ("import sympy as sp\nfrom derivations import Derivation, Step\n"
                     "x = sp.Symbol('x')\n"
                     "D = Derivation('d', 't', sp.Eq(2*x, x+x, evaluate=False), (),"
                     " (Step(x, 'oops'),))\n", "claim 'd'", "last step"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_file_that_cannot_be_verified_is_one_line_exit_2(tmp_path, name):
    body, *needles = BROKEN[name]
    if body is not None:
        (tmp_path / name).write_text(body, encoding="utf-8")
    assert_user_error(run("-m", "derivations", "verify", str(tmp_path / name)), *needles)


def test_two_claims_with_one_id_are_refused(tmp_path):
    (tmp_path / "logsumexp_grad.py").write_bytes((ROOT / "examples/logsumexp_grad.py").read_bytes())
    (tmp_path / "wrong.py").write_text(WRONG, encoding="utf-8")
    assert_user_error(run("-m", "derivations", "verify", str(tmp_path / "logsumexp_grad.py"),
                          str(tmp_path / "wrong.py")), "two different claims", "logsumexp_gradient")


def test_a_file_is_loaded_without_building_the_shipped_claims(monkeypatch):
    import derivations

    def refuse():
        raise AssertionError("the shipped claims were built for a file's path")
    assert not [d.id for d in derivations.claims() if claimfiles.path_like(d.id)]
    monkeypatch.setattr(derivations, "claims", refuse)
    ids = [d.id for d in claimfiles.load_all([str(ROOT / "examples" / "logsumexp_grad.py")])]
    assert ids == EXPECTED["logsumexp_grad.py"]
    # control: a claim's id is looked up among them
    with pytest.raises(AssertionError, match="shipped claims were built"):
        claimfiles.load("softmax_jacobian")


def test_unknown_module_name_is_a_usage_error():
    assert_user_error(run("-m", "derivations", "verify", "no_such_module_xyz"),
                      "no_such_module_xyz", "known claims")


def test_files_with_one_name_in_two_folders_do_not_collide(tmp_path):
    for folder, rhs in (("a", "x + x"), ("b", "2 * x")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "claims.py").write_text(textwrap.dedent(f"""
            import sympy as sp
            from derivations import Derivation, Step
            x = sp.Symbol("x", real=True)
            C = Derivation("c_{folder}", "t", sp.Eq(2 * x, {rhs}, evaluate=False), (),
                           (Step({rhs}, "r"),))
        """), encoding="utf-8")
    got = claimfiles.load_all([str(tmp_path / "a/claims.py"), str(tmp_path / "b/claims.py")])
    assert [d.id for d in got] == ["c_a", "c_b"]


# --- derivations.testing ---------------------------------------------------------------------

def test_assert_proved_passes_and_returns_the_result():
    assert assert_proved(example("gelu_derivative.py").GELU_EXACT).status == "proved"


def test_assert_proved_fails_with_the_readable_message():
    m = example("logsumexp_grad.py")
    wrong = with_step(m.LSE_GRADIENT, 3, sp.exp(m.z[m.j]) / m.Z**2)
    with pytest.raises(AssertionError) as info:
        assert_proved(wrong)
    lines = str(info.value).splitlines()
    assert lines[0] == "claim 'logsumexp_gradient' is failed"
    assert lines[1].strip() == FAILED_AT_3
    assert lines[2].strip().startswith("n = ")
    assert any(line.strip().startswith("step 3: exp(z[j])") for line in lines)


def test_assert_proved_names_numeric_steps_and_what_the_symbolic_route_said():
    with pytest.raises(AssertionError, match=r"is numeric\n  step 1 \(complementary angles\) is "
                                             r"numeric only: symbolic route: inconclusive"):
        assert_proved(_numeric_only())


def _numeric_only():
    """A true step neither SymPy nor the symbolic route's own methods reduce: atan x + acot x =
    π/2 for x > 0."""
    from derivations import Derivation, Step
    x = sp.Symbol("x", positive=True)
    return Derivation("arctan_sum", "atan x + acot x = π/2",
                      sp.Eq(sp.atan(x) + sp.acot(x), sp.pi / 2, evaluate=False), (),
                      (Step(sp.pi / 2, "complementary angles"),))


def test_assert_fails_at():
    m = example("logsumexp_grad.py")
    wrong = with_step(m.LSE_GRADIENT, 3, sp.exp(m.z[m.j]) / m.Z**2)
    ce = assert_fails_at(wrong, 3)
    assert ce["previous"] != ce["current"]
    with pytest.raises(AssertionError, match="expected claim 'logsumexp_gradient' to fail at "
                                             "step 2; it is failed, first at step 3"):
        assert_fails_at(wrong, 2)
    with pytest.raises(AssertionError, match="to fail at step 1; it is proved"):
        assert_fails_at(m.LSE_GRADIENT, 1)
    with pytest.raises(TypeError, match="expected a Derivation, got str"):
        assert_proved("logsumexp_gradient")


# --- the examples: a wrong step is caught, and the results hold a second way ----------------

def test_a_variant_is_never_shown_under_the_original_title():
    lse = example("logsumexp_grad.py")
    squared = with_step(lse.LSE_GRADIENT, 3, sp.exp(lse.z[lse.j]) / lse.Z**2, id="squared")
    assert squared.title == "The gradient of log-sum-exp is softmax — step 3 replaced"
    named = with_step(lse.LSE_GRADIENT, 3, sp.exp(lse.z[lse.j]) / lse.Z**2, id="squared",
                      title="A squared normaliser")
    assert named.title == "A squared normaliser"


def test_with_step_keeps_or_replaces_rule_citations_and_id():
    lse = example("logsumexp_grad.py")
    # variables: the third step with Z written out, which unfolds Z's definition
    z, j, k, n = lse.z, lse.j, lse.k, lse.n
    written_out = sp.exp(z[j]) / sp.Sum(sp.exp(z[k]), (k, 1, n))
    kept = with_step(lse.LSE_GRADIENT, 3, lse.LSE_GRADIENT.steps[2].expr)
    renamed = with_step(lse.LSE_GRADIENT, 3, written_out, rule="written out", by=("Z",),
                        id="lse_written_out")
    # check: defaults keep everything; keywords replace only what they name
    assert kept.steps[2] == lse.LSE_GRADIENT.steps[2] and kept.id == lse.LSE_GRADIENT.id
    assert kept.title == lse.LSE_GRADIENT.title
    assert renamed.id == "lse_written_out" and renamed.steps[2].rule == "written out"
    assert renamed.steps[2].by == ("Z",) and renamed.steps[1] == lse.LSE_GRADIENT.steps[1]
    assert_proved(renamed)


def test_examples_catch_realistic_mistakes():
    gelu, ln, lse = (example(n) for n in ("gelu_derivative.py", "layernorm_grad.py",
                                           "logsumexp_grad.py"))
    x = gelu.x
    assert_fails_at(with_step(gelu.GELU_EXACT, 3, gelu.Phi(x) + gelu.phi(x)), 3)  # x φ(x) → φ(x)
    tanh_u = sp.tanh(gelu.u)  # the chain rule's factor √(2/π)(1 + 3c x²) with 3c x² → c x²
    tanh_wrong = ((1 + tanh_u) / 2
                  + x / 2 * (1 - tanh_u**2) * sp.sqrt(2 / sp.pi) * (1 + gelu.c * x**2))
    assert tanh_wrong != gelu.GELU_TANH.steps[1].expr
    assert_fails_at(with_step(gelu.GELU_TANH, 2, tanh_wrong), 2)
    assert_fails_at(with_step(lse.LSE_GRADIENT, 3, sp.exp(lse.z[lse.j])), 3)  # no normalizer
    sign = ln._gradient(ln.xhat(ln.i), -ln.xhat(ln.j), ln.sigma)  # + x̂_j mean(g x̂)
    assert_fails_at(with_step(ln.LAYERNORM_INPUT_GRADIENT, 2, sign), 2)
    assert x.is_real


def _fd(f, at, h=FD_STEP):
    return (f(at + h) - f(at - h)) / (2 * h)


def test_gelu_results_match_finite_differences():
    m = example("gelu_derivative.py")
    published = {m.c: sp.Rational(44715, 10**6)}  # the tanh form's constant
    with mpmath.workdps(FD_DIGITS):
        for x0 in (mpmath.mpf("-1.3"), mpmath.mpf("0.2"), mpmath.mpf("2.7")):
            for claim in (m.GELU_EXACT, m.GELU_TANH):
                # the claim as checked: Φ, φ and u stand for their definitions' bodies
                f = sp.lambdify(m.x, claim.checked.lhs.expr.xreplace(published), "mpmath")
                rhs = sp.lambdify(m.x, claim.checked.rhs.xreplace(published), "mpmath")(x0)
                assert abs(_fd(f, x0) - rhs) < FD_RTOL * max(1, abs(rhs))
            # control: the comparison fails on a wrong derivative (φ(x) for x φ(x))
            cdf = (1 + sp.erf(m.x / sp.sqrt(2))) / 2
            pdf = sp.exp(-m.x**2 / 2) / sp.sqrt(2 * sp.pi)
            wrong = sp.lambdify(m.x, cdf + pdf, "mpmath")(x0)
            exact = sp.lambdify(m.x, m.x * cdf, "mpmath")
            assert abs(_fd(exact, x0) - wrong) > mpmath.mpf("1e-3")


def _layernorm(xs, eps):
    mu = mpmath.fsum(xs) / len(xs)
    sigma = mpmath.sqrt(mpmath.fsum((v - mu) ** 2 for v in xs) / len(xs) + eps)
    return [(v - mu) / sigma for v in xs], sigma


def test_layernorm_and_logsumexp_gradients_match_finite_differences():
    ln, lse = example("layernorm_grad.py"), example("logsumexp_grad.py")
    xs = [mpmath.mpf(v) for v in ("0.3", "-1.1", "2.0", "0.7")]
    gs = [mpmath.mpf(v) for v in ("1.5", "-0.4", "0.9", "0.25")]
    eps = mpmath.mpf("0.01")
    size = len(xs)
    with mpmath.workdps(FD_DIGITS):
        for jj in range(size):
            def loss(t, jj=jj):
                moved = [t if q == jj else v for q, v in enumerate(xs)]
                return mpmath.fsum(g * v for g, v in zip(gs, _layernorm(moved, eps)[0],
                                                         strict=True))
            sub = {ln.d: size, ln.j: jj + 1, ln.eps: eps,
                   **{ln.x[q + 1]: xs[q] for q in range(size)},
                   **{ln.g[q + 1]: gs[q] for q in range(size)}}
            claimed = ln.LAYERNORM_INPUT_GRADIENT.checked.rhs.xreplace({ln.d: size, ln.j: jj + 1}) \
                .doit().xreplace(sub).evalf(FD_DIGITS)
            assert abs(_fd(loss, xs[jj]) - mpmath.mpf(str(claimed))) < FD_RTOL
            def lse_f(t, jj=jj):
                return mpmath.log(mpmath.fsum(mpmath.exp(t if q == jj else v)
                                              for q, v in enumerate(xs)))
            softmax = mpmath.exp(xs[jj]) / mpmath.fsum(mpmath.exp(v) for v in xs)
            assert abs(_fd(lse_f, xs[jj]) - softmax) < FD_RTOL
    assert lse.LSE_GRADIENT.id == "logsumexp_gradient"


# --- what a message says to do ---------------------------------------------------------------

SAME_STEP = """
import sympy as sp
from derivations import Derivation, Step

x = sp.Symbol("x", real=True)
sig = 1 / (1 + sp.exp(-x))
LOGSIG = Derivation(
    id="logsig_derivative", title="d/dx log sigma(x) = 1 - sigma(x)",
    statement=sp.Eq(sp.Derivative(sp.log(sig), x), 1 - sig, evaluate=False), assumptions=(),
    steps=(Step(sp.Derivative(-sp.log(1 + sp.exp(-x)), x), "log(1/u) = -log u"),
           Step(sp.exp(-x) / (1 + sp.exp(-x)), "chain rule"),
           Step((1 + sp.exp(-x) - 1) / (1 + sp.exp(-x)), "add and subtract 1"),
           Step(1 - sig, "split the fraction")))
"""


def test_a_step_sympy_evaluated_into_the_one_before_is_named(tmp_path):
    (tmp_path / "logsig.py").write_text(SAME_STEP, encoding="utf-8")
    proc = run("-m", "derivations", "verify", str(tmp_path / "logsig.py"))
    assert proc.returncode == 0, proc.stderr
    assert "note: step 3 (add and subtract 1) is the same expression as step 2: SymPy " \
           "evaluated it as it was built; to keep it as you wrote it, build it unevaluated, " \
           "with sp.Add(..., evaluate=False) or inside a block `with sp.evaluate(False):`" \
        in proc.stdout
    # written unevaluated, it is kept, checked and proved as written: no note
    (tmp_path / "logsig.py").write_text(SAME_STEP.replace(
        "Step((1 + sp.exp(-x) - 1) / (1 + sp.exp(-x)), ",
        "Step(sp.Add(1 + sp.exp(-x), -1, evaluate=False) / (1 + sp.exp(-x)), "),
        encoding="utf-8")
    proc = run("-m", "derivations", "verify", str(tmp_path / "logsig.py"))
    assert proc.returncode == 0 and "note:" not in proc.stdout, proc.stdout


def test_a_matrix_plus_a_derivative_says_how_to_write_it(tmp_path):
    (tmp_path / "tied.py").write_text(
        "import sympy as sp\n"
        "n = sp.Symbol('n', integer=True, positive=True)\n"
        "E, X = sp.MatrixSymbol('E', n, n), sp.MatrixSymbol('X', n, n)\n"
        "STEP = X + sp.Derivative(sp.Trace(X.T * E), E)\n", encoding="utf-8")
    assert_user_error(run("-m", "derivations", "verify", str(tmp_path / "tied.py")),
                      "TypeError: Mix of Matrix and Scalar symbols (line 4)",
                      "build the sum with sp.Add(a, b, evaluate=False)")


def test_a_size_declared_without_integer_gets_a_hint(tmp_path):
    (tmp_path / "sizes.py").write_text(
        "import sympy as sp\nfrom derivations import Derivation, Domain, Step\n"
        "n = sp.Symbol('n', positive=True)\n"
        "ALT = Derivation(id='alt_size', title='(-1)^(2n) = 1', statement=sp.Eq((-1)**(2*n), "
        "1, evaluate=False), assumptions=(), steps=(Step(sp.Integer(1), 'even power'),), "
        "domain=Domain(dims=(n,)))\n", encoding="utf-8")
    proc = run("-m", "derivations", "verify", str(tmp_path / "sizes.py"))
    assert proc.returncode == 1
    assert "hint: n is a size (Domain dims), drawn as a whole number, but declared without " \
           "integer=True, so the symbolic route cannot use that it is whole; declare it " \
           "sp.Symbol('n', integer=True, positive=True)" in proc.stdout
    # declared a whole number, it is proved and needs no hint
    (tmp_path / "sizes.py").write_text((tmp_path / "sizes.py").read_text().replace(
        "positive=True)", "integer=True, positive=True)", 1), encoding="utf-8")
    proc = run("-m", "derivations", "verify", str(tmp_path / "sizes.py"))
    assert proc.returncode == 0 and "hint" not in proc.stdout, proc.stdout
