"""The numeric route as an independent witness: each of its definitions, with a negative test.

variables → the claim or the definition → verify or evaluate → check, with tiny examples whose
truth is known in closed form.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from derivations.engine.chain import verify
from derivations.engine.core.citing import lemma
from derivations.engine.core.claim import Assumption, Derivation, Step
from derivations.engine.core.domain import Domain
from derivations.engine.core.errors import DerivationError
from derivations.engine.core.stochastic import LAWS, E, raw_moment
from derivations.engine.numeric import mplimits, mpseries, mpsnap, periods

x = sp.Symbol("x", real=True)
p = sp.Symbol("p", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
i, j = sp.symbols("i j", integer=True)
X = sp.Symbol("X", real=True)
z = sp.IndexedBase("z", real=True)
DIGITS = 50


def claim(cid, lhs, rhs, domain=None, hypotheses=(), assumptions=(), steps=None):
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), tuple(assumptions),
                      tuple(steps or (Step(rhs, "claimed"),)), domain or Domain(),
                      hypotheses=tuple(hypotheses))


# --- the definitions, with numbers ------------------------------------------------------------

def test_quadrature_converges_and_refuses_a_divergent_integral():
    with mpmath.workdps(DIGITS):
        assert abs(mpseries.quad(lambda t: mpmath.exp(-t * t), -mpmath.inf, mpmath.inf)
                   - mpmath.sqrt(mpmath.pi)) < mpmath.mpf(10) ** -40
        # a kink inside the interval is split at, found by bisection
        kink = mpseries.quad(lambda t: abs(t - mpmath.mpf(1) / 3), 0, 1,
                          (lambda t: t - mpmath.mpf(1) / 3,))
        assert abs(kink - mpmath.mpf(5) / 18) < mpmath.mpf(10) ** -40
        with pytest.raises(mpsnap.NotEvaluated, match="did not converge"):
            mpseries.quad(lambda t: 1 / t, 0, 1)


TRUNCATION_DIGITS = 0.8  # of the working digits, the least a quadrature's value must reach


@pytest.mark.parametrize("digits", [90, 130])
def test_quadrature_error_shrinks_with_the_precision(digits):
    # e^(−pt) with p ≈ 2·10⁻¹² spreads over 10¹²: at mpmath's own degree the error was 10⁻⁶⁸ of
    # the value at 90 and at 130 digits alike, which the ladder read as a difference
    rate = mpmath.mpf("2.27378992415721e-12")
    with mpmath.workdps(digits):
        value = mpseries.quad(lambda t: mpmath.exp(-rate * t), 0, mpmath.inf)
        assert abs(value * rate - 1) < mpmath.mpf(10) ** (-TRUNCATION_DIGITS * digits)


def test_a_slowly_decaying_integral_is_proved_and_its_near_miss_fails():
    t = sp.Symbol("t", real=True)
    integral = sp.Integral(sp.exp(-p * t), (t, 0, sp.oo))
    assert verify(claim("laplace", integral, 1 / p)).status == "proved"
    near = verify(claim("laplace_near", integral, (1 + sp.Rational(1, 10**60)) / p))
    assert near.status == "failed"


def test_series_are_summed_only_when_they_converge():
    with mpmath.workdps(DIGITS):
        assert abs(mpseries.nsum(lambda m: 1 / m**2, 1, mpmath.inf) - mpmath.pi**2 / 6) < 1e-30
        assert abs(mpseries.nsum(lambda m: (-1) ** (m + 1) / m, 1, mpmath.inf)
                   - mpmath.log(2)) < 1e-30
        with pytest.raises(mpsnap.NotEvaluated, match="do not tend to 0"):
            mpseries.nsum(lambda m: (-1) ** m, 0, mpmath.inf)  # Shanks would say 1/2
        with pytest.raises(mpsnap.NotEvaluated, match="fast enough"):
            mpseries.nsum(lambda m: 1 / m, 1, mpmath.inf)  # Richardson would give 6.88


TINY = mpmath.mpf(10) ** -9  # a divergent remainder far below the terms up to n = 10^7


@pytest.mark.parametrize(("term", "one_sign"), [
    (lambda m: (-1) ** m * (1 / m + TINY), False),  # Shanks, from both starts: −log 2 − TINY/2
    (lambda m: 1 / m**2 + TINY**5 / m, True),  # 10^−45/m: Richardson's starts agree
])
def test_a_divergent_remainder_far_out_is_seen(term, one_sign):
    # the terms are below 10^-4 of the first ones at 10^6 and 10^7, and the extrapolations
    # agree from both starts on a finite value; from N to 10N they stop falling at 10^12
    # (10^48 for the one-sign series), and the series is not evaluated
    with mpmath.workdps(DIGITS), pytest.raises(mpsnap.NotEvaluated,
                                               match="do not fall .* over a decade"):
        mpseries.nsum(term, 1, mpmath.inf)
    # control: without the remainder both are summed; a product whose logarithms cancel in
    # pairs (their sizes are rounding, not compared) is too
    with mpmath.workdps(DIGITS):
        assert abs(mpseries.nsum(lambda m: (-1) ** m / m, 1, mpmath.inf) + mpmath.log(2)) < 1e-40
        assert abs(mpseries.nsum(lambda m: 1 / m**2, 1, mpmath.inf)
                   - mpmath.pi**2 / 6) < 1e-40
        assert abs(mpseries.nprod(lambda m: 1 + (-1) ** m / m, 2, mpmath.inf, 2) - 1) < 1e-40


def test_a_divergent_oscillating_integral_is_not_summed():
    # ∫₀^∞ sin t (1/(1 + t) + 10^−9): the half periods alternate and are below 10^−4 of the
    # first at k = 10^6, but stop falling far out; without the 10^−9 the integral is summed
    with mpmath.workdps(DIGITS):
        with pytest.raises(mpsnap.NotEvaluated, match="do not keep falling far out"):
            mpseries.quad(lambda t: mpmath.sin(t) * (1 / (1 + t) + TINY), 0, mpmath.inf, (), 1)
        value = mpseries.quad(lambda t: mpmath.sin(t) / (1 + t), 0, mpmath.inf, (), 1)
        ci, si = mpmath.ci(1), mpmath.si(1)
        assert abs(value - (ci * mpmath.sin(1) + (mpmath.pi / 2 - si) * mpmath.cos(1))) < 1e-40


@pytest.mark.parametrize(("term", "value"), [
    (lambda m: 1 / mpmath.sqrt(m) - 1 / mpmath.sqrt(m + 1), lambda: 1),  # Richardson: 18/19
    (lambda m: m ** mpmath.mpf(-1.5), lambda: mpmath.zeta(1.5)),  # Richardson: 2.5070
])
def test_a_tail_in_powers_that_are_not_integers_is_summed_by_levin(term, value):
    # Richardson's extrapolation assumes a tail in integer powers of 1/n and returns these sums
    # confidently wrong in the second digit; started 20 terms later it gives another value, and
    # Levin's transform, which is exact for any powers, is tried next
    with mpmath.workdps(30):
        assert mpseries._accelerated(term, 1, mpseries._nsum("richardson")) is None
        assert abs(mpseries.nsum(term, 1, mpmath.inf) - value()) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("term", [
    lambda m: mpmath.log(m + 1) / (m + 1) ** 2,  # −ζ′(2) − 0 = 0.9375; Richardson: 0.9184
    lambda m: 1 / (m**2 + mpmath.sqrt(m)),  # Richardson: 1.0434
])
def test_a_tail_in_logarithms_or_mixed_powers_is_not_summed(term):
    # Levin's transform does not settle on these either: the series is not evaluated
    with mpmath.workdps(30), pytest.raises(mpsnap.NotEvaluated, match="two starting points"):
        mpseries.nsum(term, 1, mpmath.inf)
    # control: a tail in integer powers is summed, and the same from both starts
    with mpmath.workdps(30):
        assert abs(mpseries.nsum(lambda m: 1 / (m**2 + 1), 1, mpmath.inf)
                   - (mpmath.pi / mpmath.tanh(mpmath.pi) - 1) / 2) < mpmath.mpf(10) ** -25


def test_an_oscillating_integral_to_infinity_is_summed_by_half_periods():
    # tanh-sinh quadrature does not converge on ∫₀^∞ sin x/x; its half periods alternate and are
    # summed by Cohen–Rodriguez Villegas–Zagier from two starts
    with mpmath.workdps(DIGITS):
        with pytest.raises(mpsnap.NotEvaluated, match="did not converge"):
            mpseries.quad(lambda t: mpmath.sin(t) / t, 0, mpmath.inf)  # no frequency given
        value = mpseries.quad(lambda t: mpmath.sin(t) / t, 0, mpmath.inf, (), 1)
        assert abs(value - mpmath.pi / 2) < mpmath.mpf(10) ** -40
        both = mpseries.quad(lambda t: mpmath.cos(3 * t) / (1 + t * t), -mpmath.inf,
                             mpmath.inf, (), 3)
        assert abs(both - mpmath.pi * mpmath.exp(-3)) < mpmath.mpf(10) ** -40
        with pytest.raises(mpsnap.NotEvaluated, match="do not tend to 0"):
            mpseries.quad(lambda t: mpmath.sin(t), 0, mpmath.inf, (), 1)  # Abel's value: 1
        with pytest.raises(mpsnap.NotEvaluated, match="do not alternate"):
            mpseries.quad(lambda t: 1 / (1 + t) ** 2 + mpmath.sin(t) / (1 + t) ** 4, 0,
                          mpmath.inf, (), 1)  # quadosc's own guess is wrong in the 4th digit


def test_the_frequency_of_an_integrand_is_one_or_none():
    from derivations.engine.numeric.mpprint.operators import frequency
    assert frequency(sp.sin(3 * x + 1) / x + sp.cos(3 * x), x) == 3
    assert frequency(sp.sin(x) * sp.cos(2 * x), x) == 0  # two frequencies
    assert frequency(sp.sin(x**2), x) == 0  # a chirp has none
    assert frequency(sp.exp(-x), x) == 0
    dirichlet = claim("dirichlet", sp.Integral(sp.sin(x) / x, (x, 0, sp.oo)), sp.pi / 2)
    assert verify(dirichlet).status == "proved"
    assert verify(claim("dirichlet_near", sp.Integral(sp.sin(x) / x, (x, 0, sp.oo)),
                        sp.pi / 2 + sp.Rational(1, 10**30))).status == "failed"


def test_a_polar_number_is_a_number_only_on_the_principal_sheet():
    from derivations.engine.numeric.mpnum import compile_mp
    with mpmath.workdps(DIGITS):
        # x·e^(iπ) is on the upper side of the cut, where E₁ is continuous: −Ei(x) − iπ
        above = compile_mp([p], sp.expint(1, p * sp.exp_polar(sp.I * sp.pi)))(mpmath.mpf(2))
        assert abs(above - (-mpmath.ei(2) - 1j * mpmath.pi)) < mpmath.mpf(10) ** -40
        for other in (sp.exp_polar(3 * sp.I * sp.pi), sp.exp_polar(-sp.I * sp.pi),
                      sp.exp_polar(sp.I * p)):  # (SymPy's expint moves the first two's sheet)
            with pytest.raises(mpsnap.NotEvaluated, match="principal sheet"):
                compile_mp([p], p * other)(mpmath.mpf(2))


def test_textbook_convention_empty_sum_and_product():
    with mpmath.workdps(DIGITS):
        assert mpseries.nsum(lambda m: m, 1, -3) == 0  # Karr: 3
        assert mpseries.nprod(lambda m: m, 5, 2) == 1  # Karr: 1/12


def test_limits_are_found_or_refused():
    with mpmath.workdps(DIGITS):
        e = mplimits.limit(lambda t: (1 + 1 / t) ** t, mpmath.inf, 0, False)
        assert abs(e - mpmath.e) < 1e-10
        # n sin(π/n) over the integers: π (SymPy's limit says 0)
        assert abs(mplimits.limit(lambda m: m * mpmath.sin(mpmath.pi / m), mpmath.inf, 0, True)
                   - mpmath.pi) < 1e-10
        with pytest.raises(mpsnap.NotEvaluated, match="not found"):
            mplimits.limit(lambda m: mpsnap.mod(m, 2), mpmath.inf, 0, True)
        with pytest.raises(mpsnap.NotEvaluated, match="not found"):
            mplimits.limit(lambda t: 1 / mpmath.log(t), mpmath.inf, 0, False)  # too slow to tell


def test_a_limit_past_a_large_constant_is_taken_past_it():
    # (1 − 10^−500)^n is 1 to 400 digits at every n below 10^100 and 0 far past 10^500: the
    # values are taken past the constant's 500 digits, and a huge power is a logarithm's
    step = 1 - sp.Rational(1, 10**500)
    with mpmath.workdps(DIGITS):
        from derivations.engine.numeric.mpnum import compile_mp
        f = compile_mp([n], step**n)
        assert mplimits.limit(f, mpmath.inf, 0, True, scale=500) < mpmath.mpf(10) ** -1000
        assert abs(mplimits.limit(lambda m: m / (m + mpmath.mpf(10) ** 30), mpmath.inf, 0,
                                  True, scale=30) - 1) < mpmath.mpf(10) ** -10
        with pytest.raises(mpsnap.NotEvaluated, match="beyond"):
            mplimits.limit(f, mpmath.inf, 0, True, scale=mplimits.MAX_SCALE + 1)
    assert verify(claim("plateau", sp.Limit(step**n, n, sp.oo), sp.Integer(0))).status \
        == "proved"
    assert verify(claim("plateau_one", sp.Limit(step**n, n, sp.oo), sp.Integer(1))).status \
        == "failed"


def test_a_huge_power_is_the_power():
    from derivations.engine.numeric.mpnum import power
    with mpmath.workdps(DIGITS):
        base, exponent = 1 - mpmath.mpf(10) ** -25, mpmath.mpf(10) ** 26 + 3
        direct = base**exponent  # square-and-multiply: fast for 26 digits, not for 500
        assert abs(power(base, exponent) - direct) < mpmath.mpf(10) ** -45 * direct
        assert power(mpmath.mpf(-2), mpmath.mpf(3)) == -8


def test_floor_snaps_at_a_residue_boundary():
    with mpmath.workdps(DIGITS):
        assert mpsnap.floor(mpmath.mpf(1) / 5 * 5) == 1
        assert mpsnap.mod(mpmath.mpf(10), 5) == 0


@pytest.mark.parametrize("law", LAWS)
def test_laws_have_mean_0_and_variance_1(law):
    assert raw_moment(law, 0, 1, 1) == 0 and raw_moment(law, 0, 1, 2) == 1


def test_laws_differ_in_third_and_fourth_moments():
    thirds = {raw_moment(law, 0, 1, 3) for law in LAWS}
    fourths = {raw_moment(law, 0, 1, 4) for law in LAWS}
    assert len(thirds) >= 3 and len(fourths) >= 4


# --- claims ------------------------------------------------------------------------------------

def test_an_integral_sympy_closes_wrongly_fails():
    # SymPy: ∫_0^3π sign(sin x) dx = 0; by definition it is π
    wrong = claim("sign_sin", sp.Integral(sp.sign(sp.sin(x)), (x, 0, 3 * sp.pi)), sp.Integer(0))
    right = claim("sign_sin_pi", sp.Integral(sp.sign(sp.sin(x)), (x, 0, 3 * sp.pi)), sp.pi)
    assert verify(wrong).status == "failed"
    assert verify(right).status in ("proved", "numeric")


def test_a_sum_true_only_under_karrs_convention_fails():
    wrong = claim("karr", sp.Sum(i, (i, 1, n - 4)), (n - 4) * (n - 3) / 2, Domain(dims=(n,)))
    result = verify(wrong)
    assert result.status == "failed"
    assert result.steps[0].counterexample["point"]["n"] in ("1", "2")


def test_symmetric_only_moment_fails_under_any():
    d = claim("third", E(X**3), sp.Integer(0), Domain(random={X: (0, 1)}))
    result = verify(d)
    assert result.status == "failed"
    assert result.steps[0].counterexample["point"]["distribution"] in (
        "skewed two-point", "exponential")
    normal = claim("third_n", E(X**3), sp.Integer(0),
                   Domain(random={X: (0, 1)}, distribution="normal"))
    # true for the normal: by the integral against its density (the symbolic route's own method)
    assert verify(normal).status == "proved"


def test_expectation_of_a_non_polynomial_is_evaluated():
    d = claim("abs_mean", E(sp.Abs(X)), sp.sqrt(2 / sp.pi),
              Domain(random={X: (0, 1)}, distribution="normal"))
    assert verify(d).status == "proved"
    wrong = claim("abs_mean_any", E(sp.Abs(X)), sp.sqrt(2 / sp.pi), Domain(random={X: (0, 1)}))
    assert verify(wrong).status == "failed"


def test_a_premise_false_past_the_sampled_sizes_fails():
    # true where sampled (n ≤ 6), false at n ≥ 7: Min(n, 6) is not n
    six = Assumption("six", "n is at most 6", rewrites=((n, sp.Min(n, 6)),))
    d = claim("premise_n", n * x, sp.Min(n, 6) * x, Domain(dims=(n,)), assumptions=(six,),
              steps=(Step(sp.Min(n, 6) * x, "assumption", by=("six",)),))
    result = verify(d)
    assert result.failed_premise == "six" and result.status == "failed"


def test_a_hypothesis_restricts_the_points():
    clamp = claim("clamp", sp.Min(x, 10**6), x, hypotheses=(sp.Lt(x, 10**6),))
    assert verify(clamp).status in ("proved", "numeric")
    assert "x < 1000000" in verify(clamp).to_dict()["hypotheses"][0]
    unclamped = claim("clamp_all", sp.Min(x, 10**6), x)
    assert verify(unclamped).status == "failed"  # the wider probe reaches 10¹²


def test_a_premise_is_checked_where_the_hypotheses_hold():
    # |x| → x holds for x > 0, the claim's hypothesis: not a counterexample at x = −59.9
    positive = Assumption("pos", "x > 0 so |x| = x", rewrites=((sp.Abs(x), x),))
    steps = (Step(x + x ** 2, "assumption", by=("pos",)),)
    held = claim("abs_under_hypothesis", sp.Abs(x) + x ** 2, x + x ** 2,
                 assumptions=(positive,), steps=steps, hypotheses=(sp.Gt(x, 0),))
    assert verify(held).status == "proved"
    loose = claim("abs_everywhere", sp.Abs(x) + x ** 2, x + x ** 2, assumptions=(positive,),
                  steps=steps)
    assert verify(loose).failed_premise == "pos"


def test_floats_are_read_as_written():
    d = claim("tenth", 0.1 * x, x / 10)
    assert d.lhs == x / 10 and verify(d).status == "proved"


def test_noncommutative_symbols_are_square_matrices():
    a, b = sp.symbols("A B", commutative=False)
    wrong = verify(claim("nc", (a + b) ** 2, a**2 + 2 * a * b + b**2))
    assert wrong.status == "failed"
    assert int(wrong.steps[0].counterexample["point"]["ring_size"]) >= 2  # numbers commute
    right = verify(claim("nc_right", (a + b) ** 2, a**2 + a * b + b * a + b**2))
    assert right.status == "proved" and "square matrices" in right.steps[0].reason
    # a scalar term is the scalar times the identity
    assert verify(claim("nc_scalar", a * (b + x), a * b + x * a)).status == "proved"


def test_noncommutative_symbols_outside_polynomials_are_refused():
    a, b = sp.symbols("A B", commutative=False)
    with pytest.raises(DerivationError, match="MatrixSymbol"):
        claim("nc_exp", sp.exp(a) * b, b * sp.exp(a))
    with pytest.raises(DerivationError, match="positive integer"):
        claim("nc_inverse", a**-1 * b, b * a**-1)


@pytest.mark.parametrize("bounds, match", [((1, sp.oo), "finite"), ((1, x), "not an integer")])
def test_index_bounds_must_be_finite_integers(bounds, match):
    with pytest.raises(DerivationError, match=match):
        claim("bad_index", z[j], z[j], Domain(dims=(n,), indices={j: bounds}))


def test_an_undeclared_index_is_refused_under_a_default_domain():
    with pytest.raises(DerivationError, match="index j is not declared"):
        claim("loose", z[j] * 2, 2 * z[j])


def test_a_random_mean_is_refused():
    y = sp.Symbol("Y", real=True)
    with pytest.raises(DerivationError, match="depends on the random"):
        claim("random_mean", E(X), y, Domain(random={y: (0, 1), X: (y, 1)}))


def test_a_lemma_cycle_is_named():
    a = claim("cycle_a", x, x)
    b = claim("cycle_b", x, x, assumptions=(lemma(a),))
    # a cycle needs a claim that cites one citing it back, which only rebinding can build
    object.__setattr__(a, "assumptions", (lemma(b),))
    with pytest.raises(DerivationError, match="cycle of lemmas cycle_a → cycle_b → cycle_a"):
        verify(a)


def test_logistic_loss_at_large_logits_is_proved():
    zz = sp.Symbol("zz", real=True)
    sig = 1 / (1 + sp.exp(-zz))
    d = claim("logistic", sp.Derivative(-sp.log(1 - sig), zz), sig,
              Domain(ranges={zz: (200, 300)}))
    assert verify(d).status == "proved"


def test_a_difference_of_e_to_the_minus_600_is_seen():
    d = claim("mask", sp.exp(x) / (sp.exp(x) + sp.exp(-600)), sp.Integer(1),
              Domain(ranges={x: (-5, 5)}))
    assert verify(d).status == "failed"


def test_a_claim_undefined_almost_everywhere_is_refused():
    d = claim("undefined", sp.log(-1 - x**2) - sp.log(-1 - x**2) + 1 / (x - x + 0 * x),
              sp.Integer(0))
    with pytest.raises(DerivationError):
        verify(d)


def test_a_constant_that_cannot_be_evaluated_is_tried_once_not_at_every_point(monkeypatch):
    # Σ log(i + 1)/(i + 1)² has a tail in a logarithm: not summed (refused).  It is the same
    # form at the same (no) inputs at every point: tried once along the ladder, not at each of
    # the points again
    from derivations.engine.numeric import mpnum

    summed = []
    nsum = mpseries.nsum
    monkeypatch.setattr(mpnum._Runtime, "nsum",
                        staticmethod(lambda *a, **kw: summed.append(1) or nsum(*a, **kw)))
    i1 = sp.Symbol("i", integer=True, positive=True)
    d = claim("log_tail", sp.Sum(sp.log(i1 + 1) / (i1 + 1) ** 2, (i1, 1, sp.oo)),
              sp.Rational(9375, 10000))
    with pytest.raises(DerivationError, match="not summed|could not|undefined"):
        verify(d)
    assert 0 < len(summed) <= 4


def test_a_limit_over_a_dimension_is_taken_not_evaluated_at_a_size():
    # n is a size of the claim and the variable of the limit: the size must not reach the limit
    right = claim("lim_dim", sp.Limit(n * sp.sin(sp.pi / n), n, sp.oo), sp.pi, Domain(dims=(n,)))
    wrong = claim("lim_dim_0", sp.Limit(n * sp.sin(sp.pi / n), n, sp.oo), sp.Integer(0),
                  Domain(dims=(n,)))
    assert verify(right).status in ("proved", "numeric")
    assert verify(wrong).status == "failed"


def test_the_symbolic_route_evaluates_no_sum_with_numbers():
    from derivations.engine.symbolic.check import no_numbers
    series = sp.Sum(1 / i**2, (i, 1, sp.oo))
    with no_numbers():
        assert not series.evalf(5).is_Float  # left as it is: no quadrature inside the route
    assert abs(series.evalf(20) - sp.pi**2 / 6) < 1e-15  # and outside it, as before


def test_a_counterexample_shows_the_digits_where_the_sides_differ():
    # σ(x) and σ(x) + e^{-x²}·10^{-30} differ beyond the 15th digit: both sides are printed with as
    # many digits as it takes to read them apart
    d = claim("tiny", 1 / (1 + sp.exp(-x)), 1 / (1 + sp.exp(-x)) + sp.exp(-x**2) / 10**30,
              Domain(ranges={x: (-1, 1)}))
    result = verify(d)
    assert result.status == "failed"
    counter = result.steps[0].counterexample
    assert counter["previous"] != counter["current"], counter


def test_a_side_undefined_where_the_other_is_a_number_is_a_difference():
    # Π_{i=1}^{n-3} i = 1 at n = 1 (empty), while (n − 3)! is a pole there
    wrong = claim("fact", sp.Product(i, (i, 1, n - 3)), sp.factorial(n - 3), Domain(dims=(n,)))
    right = claim("fact_max", sp.Product(i, (i, 1, n - 3)), sp.factorial(sp.Max(n - 3, 0)),
                  Domain(dims=(n,)))
    result = verify(wrong)
    assert result.status == "failed"
    assert "undefined" in result.steps[0].counterexample["current"]
    assert verify(right).status in ("proved", "numeric")


def test_a_series_with_periodic_terms_is_summed_a_period_at_a_time():
    # Σ Mod(i, 2)/i² = π²/8: extrapolating its terms as if smooth gives 1.1839
    odd = sp.Sum(sp.Mod(i, 2) / i**2, (i, 1, sp.oo))
    assert verify(claim("odd", odd, sp.pi**2 / 8)).status in ("proved", "numeric")
    assert verify(claim("odd_wrong", odd, sp.Rational(11839, 10000))).status == "failed"
    # grouping comes after the term test: Σ (−1)^i does not converge, its pairs do
    with mpmath.workdps(DIGITS), pytest.raises(mpsnap.NotEvaluated):
        mpseries.nsum(lambda t: (-1) ** int(t), 1, mpmath.inf, 2)


# --- a concrete form too large with symbols is built at each point's numbers -----------------

A3, B3 = sp.MatrixSymbol("A", 3, 3), sp.MatrixSymbol("B", 3, 3)
w = sp.Symbol("w", real=True)
Y = A3 + w * B3


Yi = sp.Inverse(Y)


@pytest.mark.parametrize(("lhs", "rhs", "status"), [
    (sp.Derivative(Yi, w), -Yi * B3 * Yi, "agree"),  # d(Y⁻¹)/dw = −Y⁻¹ (dY/dw) Y⁻¹
    (sp.Derivative(Yi, w), -B3 * Yi * Yi, "disagree"),  # the factors in the wrong order
])
def test_an_over_budget_form_is_decided_at_the_points_numbers(lhs, rhs, status,
                                                              monkeypatch):
    from derivations.engine.numeric import pointwise

    built = []
    at_numbers = pointwise._at_numbers
    monkeypatch.setattr(pointwise, "_at_numbers",
                        lambda *args: built.append(args[2]) or at_numbers(*args))
    r = verify(claim("inverse_by_scalar", lhs, rhs))
    # a side with a product Y⁻¹·Y⁻¹ is too large with symbolic entries: built at the numbers
    assert bool(built) == (rhs.has(Yi * Yi) or lhs.has(Yi * Yi)), r.summary()
    assert r.steps[-1].numeric == status, r.summary()
    assert r.status == ("failed" if status == "disagree" else r.status)


# --- jumps the sampled points do not reach ------------------------------------------------------

def test_a_limit_with_a_long_period_is_not_found():
    # Heaviside(Mod(n, 100) − 50) is 0 for half the residues and 1 for the other half: no limit.
    # n = 10^16 + r for r < 12 met only the zeros, and SymPy's limit says 0
    no_limit = claim("long_period", sp.Limit(sp.Heaviside(sp.Mod(n, 100) - 50), n, sp.oo),
                     sp.Integer(0), Domain(dims=(n,)))
    with pytest.raises(DerivationError, match="limit was not found"):
        verify(no_limit)
    assert len(set(mplimits.SCATTERED)) == len(mplimits.SCATTERED)  # distinct offsets
    assert periods.period_of(sp.floor(n / 50) + sp.Mod(n, 3), n, periods.LIMIT_MAX_PERIOD) == 150


def test_a_limit_still_moving_is_not_a_difference():
    # e^(−10^3000/n) → 1, but its values show it only past n = 10^3000, more digits than the
    # limit is taken at (MAX_SCALE): undefined, not failed
    slow = claim("slow", sp.Limit(sp.exp(-sp.Integer(10) ** 3000 / n), n, sp.oo),
                 sp.Integer(1), Domain(dims=(n,)))
    with pytest.raises(DerivationError, match="constant of 3000 digits"):
        verify(slow)
    # told nothing of the constant, the values near ∞ still grow towards it
    with mpmath.workdps(DIGITS), pytest.raises(mpsnap.NotEvaluated, match="still grow"):
        mplimits.limit(lambda m: mpmath.exp(-mpmath.mpf(10) ** 30 / m), mpmath.inf, 0, True)


@pytest.mark.parametrize(("lhs", "rhs", "dom"), [
    (sp.sign(x) ** 2, sp.Integer(1), None),  # false at 0
    (sp.frac(x) + sp.frac(-x), sp.Integer(1), None),  # false at the integers
    (sp.ceiling(x), sp.floor(x) + 1, None),
    (sp.sign(x), sp.Integer(1), Domain(ranges={x: (0, 1)})),  # false at the range's end 0
])
def test_a_jump_at_an_integer_is_probed_there(lhs, rhs, dom):
    result = verify(claim("jump", lhs, rhs, dom))
    assert result.status == "failed"
    assert "integers, halves and the ends" in result.steps[0].counterexample["probe"]


def test_a_range_that_empties_past_the_sampled_sizes_is_probed_there():
    # Σ_{i=1}^{70−n} 1 is 70 − n only while the range is not empty: false from n = 71
    karr = claim("late_karr", sp.Sum(1, (i, 1, 70 - n)), 70 - n, Domain(dims=(n,)))
    result = verify(karr)
    assert result.status == "failed" and result.steps[0].counterexample["point"]["n"] == "71"
    period = claim("late_period", sp.Sum(sp.Heaviside(sp.Mod(i, 200) - 100), (i, 1, n)),
                   sp.Integer(0), Domain(dims=(n,)))
    assert verify(period).status == "failed"
