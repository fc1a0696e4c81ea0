"""The engine itself: what makes a step proved, numeric or failed, and what it refuses to build."""

import json

import pytest
import sympy as sp

import derivations
from derivations import (
    Assumption,
    Derivation,
    DerivationError,
    Domain,
    E,
    Step,
    Var,
    lemma,
    verify,
)
from derivations.engine.core.budget import OverBudget, budget, fresh_start
from derivations.engine.core.stochastic import expectation_value, raw_moment

n = sp.Symbol("n", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True)
z = sp.IndexedBase("z")
x, y = sp.symbols("x y", real=True)


def softmax_i(a):
    return sp.exp(z[a]) / sp.Sum(sp.exp(z[k]), (k, 1, n))


SOFTMAX_DOMAIN = Domain(dims=(n,), indices={i: (1, n), j: (1, n)})


def jacobian_claim(rhs, middle=None):
    steps = [Step(middle, "quotient rule")] if middle is not None else []
    return Derivation("test_jacobian", "softmax Jacobian",
                      sp.Eq(sp.Derivative(softmax_i(i), z[j]), rhs, evaluate=False), (),
                      (*steps, Step(rhs, "factor")), SOFTMAX_DOMAIN)


def test_correct_chain_is_proved():
    quotient = (sp.exp(z[i]) * sp.KroneckerDelta(i, j) / sp.Sum(sp.exp(z[k]), (k, 1, n))
                - sp.exp(z[i]) * sp.exp(z[j]) / sp.Sum(sp.exp(z[k]), (k, 1, n)) ** 2)
    result = verify(jacobian_claim(softmax_i(i) * (sp.KroneckerDelta(i, j) - softmax_i(j)),
                                   quotient))
    assert result.status == "proved"
    assert [s.symbolic for s in result.steps] == ["zero", "zero"]
    assert all(s.numeric == "agree" and s.points >= 20 for s in result.steps)


def test_wrong_step_fails_with_counterexample():
    result = verify(jacobian_claim(softmax_i(i) * (1 - softmax_i(j))))  # Kronecker delta dropped
    assert result.status == "failed"
    assert result.failed_step == 1
    counter = result.steps[0].counterexample
    assert set(counter) == {"point", "previous", "current"}
    assert {"n", "i", "j"} <= set(counter["point"])
    assert counter["previous"] != counter["current"]


def test_sympy_silent_zero_is_caught():
    # SymPy returns 0 for this matrix derivative; the entrywise numeric route gives 2F.
    F = sp.MatrixSymbol("F", 3, 3)
    claim = Derivation("silent_zero", "trusting SymPy",
                       sp.Eq(sp.Derivative(sp.Trace(F.T * F) - 3, F), sp.ZeroMatrix(3, 3),
                             evaluate=False), (), (Step(sp.ZeroMatrix(3, 3), "matrix calculus"),))
    sympy_says = (sp.Trace(F.T * F) - 3).diff(F)  # the bug this test guards against
    assert sympy_says == 0 or sympy_says == sp.ZeroMatrix(3, 3)
    result = verify(claim)
    assert result.status == "failed"
    assert result.steps[0].counterexample["previous"] != result.steps[0].counterexample["current"]


def test_a_symbolic_budget_that_runs_out_ends_timed_out_never_proved():
    poly = (x + y + 1) ** 6
    claim = Derivation("slow", "binomial", sp.Eq(poly, sp.expand(poly), evaluate=False), (),
                       (Step(sp.expand(poly), "binomial expansion"),))
    result = verify(claim, symbolic_ops=100)
    assert result.steps[0].symbolic == "timeout"
    assert result.status == "timed out"


class Churn(sp.Function):
    """x at numbers; a simplification that keeps building new SymPy expressions forever."""

    nargs = 1

    @classmethod
    def eval(cls, arg):
        return arg if arg.is_Number else None

    def _churn(self, *args, **kwargs):
        k = 0
        while True:
            k += 1
            sp.Add(self.args[0], sp.Integer(k)) * sp.Integer(k + 1)

    # simplify() calls these on every node (normal() via bottom_up, _eval_simplify on the top)
    normal = _eval_simplify = _churn


def test_a_simplification_that_keeps_building_is_stopped_by_its_operation_count():
    # the count stops it, not the CPU backstop (set far away here)
    fresh_start()
    with pytest.raises(OverBudget) as caught:
        with budget(20_000, "symbolic route", backstop=600):
            sp.simplify(Churn(x) - x)
    assert caught.value.kind == "operations" and caught.value.used > 20_000


def test_inconclusive_symbolic_still_needs_numeric_agreement():
    # Shi x = (Ei x − Ei(−x))/2: true, neither SymPy nor an own method shows it, the numbers agree
    shi = (sp.Ei(x) - sp.Ei(-x)) / 2
    claim = Derivation("shi_as_ei", "Shi as Ei", sp.Eq(sp.Shi(x), shi), (),
                       (Step(shi, "exponential integrals"),), Domain(ranges={x: (0.5, 3)}))
    result = verify(claim)
    assert result.steps[0].symbolic == "inconclusive"
    assert result.status == "numeric" and result.steps[0].numeric == "agree"
    # sign(x)² = 1 holds away from 0 only: the probe's values where jumps are find x = 0
    sign = Derivation("sign_square", "sign squared", sp.Eq(sp.sign(x) ** 2 * 1, sp.Integer(1)),
                      (), (Step(sp.Integer(1), "sign is ±1"),))
    assert verify(sign).status == "failed"


@pytest.mark.parametrize("cite", [True, False])
def test_assumption_rewrite_is_used_only_when_cited(cite):
    q = sp.IndexedBase("q")
    m = sp.Symbol("m", integer=True)
    mu = sp.Symbol("mu", real=True)
    w = sp.Wild("w")
    stationary = Assumption("stationary", "E[q_m] = mu for every m", rewrites=((E(q[w]), mu),))
    claim = Derivation("mean_of_sum", "mean of a sum",
                       sp.Eq(E(sp.Sum(q[m], (m, 1, n))), n * mu), (stationary,),
                       (Step(sp.Sum(E(q[m]), (m, 1, n)), "linearity of expectation"),
                        Step(n * mu, "assumption" if cite else "sum of a constant",
                             ("stationary",) if cite else ())),
                       Domain(dims=(n,), random={q: (mu, sp.Integer(1))}))
    result = verify(claim)
    # without the citation the symbolic side cannot know E[q_m] = mu: numeric only
    assert result.status == ("proved" if cite else "numeric")


def test_undeclared_assumption_is_refused_naming_claim_and_step():
    with pytest.raises(DerivationError, match=r"claim 'c'.*step 1.*undeclared.*'independence'"):
        Derivation("c", "t", sp.Eq(x, x, evaluate=False), (),
                   (Step(x, "independence", ("independence",)),))


def test_assumption_rule_without_citation_is_refused():
    with pytest.raises(DerivationError, match=r"claim 'c', step 1 .*must cite"):
        Derivation("c", "t", sp.Eq(x, x, evaluate=False), (Assumption("a", "text"),),
                   (Step(x, "independence"),))


def test_shape_mismatch_is_refused_naming_claim_and_step():
    X = sp.MatrixSymbol("X", n, 3)
    G = sp.MatrixSymbol("G", n, 2)
    with pytest.raises(DerivationError, match=r"claim 'c', step 1 .*shape mismatch.*\(3, 2\).*"
                                              r"\(2, 3\)"):
        Derivation("c", "t", sp.Eq(X.T * G, G.T * X, evaluate=False), (),
                   (Step(G.T * X, "transpose"),))


def test_non_sympy_step_is_refused():
    with pytest.raises(DerivationError, match=r"step 1 .*expected a SymPy expression.*float"):
        Derivation("c", "t", sp.Eq(x, x, evaluate=False), (), (Step(1.5, "a number"),))


def test_chain_must_end_at_the_statement():
    with pytest.raises(DerivationError, match="right-hand side"):
        Derivation("c", "t", sp.Eq(x + x, 2 * x, evaluate=False), (),
                   (Step(2 * x, "r"), Step(3 * x, "r")))


def test_normal_moments_match_sympy_stats():
    from sympy.stats import E as stats_E
    from sympy.stats import Normal

    mu, s = sp.Symbol("mu", real=True), sp.Symbol("s", positive=True)
    X = Normal("X", mu, s)
    for power in range(1, 6):
        assert sp.simplify(raw_moment("normal", mu, s**2, power) - stats_E(X**power)) == 0


def test_expectation_value_uses_independence_of_distinct_atoms():
    q = sp.IndexedBase("q")
    value = expectation_value(Var(q[1] + q[2]), {q: (sp.Integer(0), sp.Integer(3))})
    assert value == 6


def test_to_dict_is_json_ready():
    result = verify(jacobian_claim(softmax_i(i) * (1 - softmax_i(j))))
    data = json.loads(json.dumps(result.to_dict()))
    assert data["status"] == "failed" and data["failed_step"] == 1
    assert data["steps"][0]["counterexample"]["point"]


def test_unknown_claim_names_the_known_ones():
    with pytest.raises(KeyError, match="known claims"):
        derivations.get("no_such_claim")


def _doubling(rhs):
    return Derivation("doubling", "x + x", sp.Eq(x + x, rhs, evaluate=False), (),
                      (Step(rhs, "collect"),))


@pytest.mark.parametrize(("premise_rhs", "expected"), [(2 * x, "proved"), (3 * x, "failed")])
def test_a_chain_is_only_as_proved_as_the_lemmas_it_cites(premise_rhs, expected):
    premise = _doubling(premise_rhs)
    cited = lemma(premise)
    claim = Derivation("uses_doubling", "y + x + x", sp.Eq(y + x + x, y + 2 * x, evaluate=False),
                       (cited,), (Step(y + 2 * x, "lemma", (cited.name,)),))
    result = verify(claim)
    # the chain's own step is true either way; a failed lemma must still block 'proved', and
    # its rewrite (2x -> 3x), checked where the chain uses it, is false there: a failed premise
    assert result.steps[0].numeric == "agree"
    assert result.premises == {"doubling": "proved" if expected == "proved" else "failed"}
    assert result.status == expected
    assert result.failed_premise == (None if expected == "proved" else "doubling")
    assert result.to_dict()["assumptions"][0]["kind"] == "lemma"


def test_unknown_assumption_kind_is_refused():
    with pytest.raises(DerivationError, match=r"kind 'axiom', expected one of"):
        Derivation("c", "t", sp.Eq(x, x, evaluate=False), (Assumption("a", "t", kind="axiom"),),
                   (Step(x, "r"),))


def test_remembered_doits_are_sympys_own_and_the_method_is_restored():
    from derivations.engine.symbolic import check as symbolic

    original = sp.Sum.doit
    s = sp.Sum(sp.KroneckerDelta(i, k) * z[k], (k, 1, n))
    with symbolic.remembered_doits():
        assert sp.Sum.doit is not original
        first, again = s.doit(), s.doit()
    assert sp.Sum.doit is original
    assert first == again == original(s)
    with pytest.raises(ZeroDivisionError), symbolic.remembered_doits():
        raise ZeroDivisionError  # restored on the way out of a failure (a time-out too)
    assert sp.Sum.doit is original


STOPPED_OPS = 20_000  # far below what SymPy spends failing on the integral below


def test_an_integral_stopped_by_its_budget_is_not_tried_again_within_no_larger_one():
    from derivations.engine.core.budget import OverBudget, budget, fresh_start, operations
    from derivations.engine.symbolic import check as symbolic

    t = sp.Symbol("t", real=True)
    hard = sp.Integral(sp.atan(t) / (t * sp.sqrt(1 - t**2)), (t, 0, 1))
    original = sp.Integral.doit
    fresh_start()
    with symbolic.remembered_doits():
        with pytest.raises(OverBudget), budget(STOPPED_OPS, "first"):
            hard.doit()
        start = operations()
        with pytest.raises(OverBudget) as again, budget(STOPPED_OPS, "again"):
            hard.doit()
        assert operations() - start < STOPPED_OPS // 100  # stopped at once, named by its budget
        assert again.value.what == "again" and again.value.used > STOPPED_OPS
        start = operations()
        with pytest.raises(OverBudget), budget(2 * STOPPED_OPS, "larger"):
            hard.doit()
        assert operations() - start > STOPPED_OPS  # a larger budget tries again
    assert sp.Integral.doit is original


def test_a_wrong_sum_step_fails_after_a_right_one_was_remembered():
    right = sp.Sum(sp.KroneckerDelta(i, k) * z[k], (k, 1, n))
    domain = Domain(dims=(n,), indices={i: (1, n)})
    good = Derivation("test_delta_sum", "a delta picks one term",
                      sp.Eq(right, z[i], evaluate=False), (), (Step(z[i], "sifting"),), domain)
    bad = Derivation("test_delta_sum_wrong", "a delta picks the wrong term",
                     sp.Eq(right, z[1], evaluate=False), (), (Step(z[1], "sifting"),), domain)
    assert verify(good).status == "proved"
    assert verify(bad).status == "failed"


def test_conditions_name_what_the_proof_takes_as_given():
    from derivations.engine.core.conditions import conditions

    # variables: a claim that holds only because its symbol is declared positive
    p = sp.Symbol("p", positive=True)
    claim = Derivation("test_sqrt_square", "square root of a square",
                       sp.Eq(sp.sqrt(p**2), p, evaluate=False), (), (Step(p, "p > 0"),))
    # forward: verified, and its conditions listed
    result = verify(claim)
    listed = conditions(claim)
    # check: proved, and the report data says under which condition
    assert result.status == "proved"
    assert listed == [{"kind": "symbol", "latex": "p > 0"}]
    assert result.to_dict()["conditions"] == listed


def test_conditions_of_a_claim_list_sizes_indices_ranges_and_random_variables():
    from derivations.engine.core.conditions import conditions

    ln = {c["latex"] for c in conditions(derivations.get("layernorm_sigma_derivative"))}
    # the claim as checked: ε is given, though only σ_ε's definition names it
    assert {r"\varepsilon > 0", r"d \in \{1, 2, \dots\}", r"1 \leq j \leq d"} <= ln
    linear = {c["latex"] for c in conditions(derivations.get("linear_grad_weight"))}
    assert {r"G \in \mathbb{R}^{n \times m}", r"X \in \mathbb{R}^{n \times d}"} <= linear
    adam = conditions(derivations.get("adam_second_moment_bias"))
    kinds = {c["kind"] for c in adam}
    assert kinds == {"symbol", "sampled", "random"}
    # the family's domain also draws beta_1, which this claim does not use
    assert not any("beta_{1}" in c["latex"] for c in adam)
    assert all(c["distribution"] == "any" for c in adam if c["kind"] == "random")


def test_a_claim_of_plain_real_symbols_has_no_conditions():
    from derivations.engine.core.conditions import conditions

    claim = Derivation("test_square", "a square", sp.Eq((x + y) ** 2,
                       x**2 + 2 * x * y + y**2, evaluate=False), (),
                       (Step(x**2 + 2 * x * y + y**2, "expand"),))
    assert conditions(claim) == []


@pytest.mark.parametrize(("key", "bounds", "expected"), [
    (sp.Symbol("p", positive=True), (-1, 0), r"p is declared positive, so its range needs low > 0"),
    (sp.Symbol("q", nonnegative=True), (-0.5, 1), r"declared nonnegative, .* needs low >= 0"),
    (sp.Symbol("m", negative=True), (-1, 2), r"declared negative, so its range needs high < 0"),
    (x, (2, 1), r"expected low < high, got low=2.0, high=1.0"),
    (x, (0, n), r"expected \(low, high\), two numbers, got \(0, n\)"),
    (k, (1, 5), r"k is an integer symbol, .* declare it in Domain\(indices=...\)"),
])
def test_a_value_range_its_symbol_cannot_take_is_refused(key, bounds, expected):
    with pytest.raises(DerivationError, match=expected):
        Derivation("c", "t", sp.Eq(key * x, key * x, evaluate=False), (), (Step(key * x, "r"),),
                   Domain(ranges={key: bounds}))


def test_a_value_range_within_the_assumptions_is_accepted():
    p = sp.Symbol("p", positive=True)
    claim = Derivation("c", "t", sp.Eq(sp.sqrt(p**2), p, evaluate=False), (),
                       (Step(p, "p > 0"),), Domain(ranges={p: (0.5, 2)}))
    assert verify(claim).status == "proved"
