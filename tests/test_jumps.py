"""Jumps and periods the numeric route must meet: a jump's argument at 0 or an integer off the
lattice (1/3, √2), and limits decided by residues or by a thin set of points.

variables → the claim → verify → check; each refusal or failure beside a true twin that passes.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from derivations.engine.chain import verify
from derivations.engine.core.claim import Assumption, Derivation, Step
from derivations.engine.core.domain import Domain
from derivations.engine.core.errors import DerivationError
from derivations.engine.numeric import mpnum, mpsnap, periods
from derivations.engine.numeric.explicit import exactly
from derivations.engine.numeric.jumps import JUMP_DIGITS

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
n = sp.Symbol("n", integer=True, positive=True)
third = sp.Rational(1, 3)
DIGITS = 50


def claim(cid, lhs, rhs, domain=None):
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), (),
                      (Step(rhs, "claimed"),), domain or Domain())


def limit(body):
    return sp.Limit(body, n, sp.oo)


# --- jumps off the lattice ----------------------------------------------------------------------

@pytest.mark.parametrize(("lhs", "rhs", "where"), [
    (sp.sign(x - third) ** 2, sp.Integer(1), "1/3"),
    (sp.frac(3 * x + sp.Rational(1, 7)) + sp.frac(-3 * x - sp.Rational(1, 7)), sp.Integer(1),
     "/21"),
    (sp.ceiling(x + third), sp.floor(x + third) + 1, "/3"),
    (sp.Heaviside(x ** 2 - 2) ** 2, sp.Heaviside(x ** 2 - 2), "a root of x**2 - 2 = 0"),
])
def test_a_jump_off_the_lattice_is_probed_at_its_root(lhs, rhs, where):
    result = verify(claim("off_lattice", lhs, rhs))
    assert result.status == "failed"
    counter = result.steps[0].counterexample
    assert "where a jump's argument is 0 or an integer" in counter["probe"]
    assert where in counter["point"]["x"]


@pytest.mark.parametrize(("lhs", "rhs", "dom", "where"), [
    (sp.sign(sp.exp(x) - 2) ** 2, sp.Integer(1), None, "a root of exp(x) - 2 = 0"),  # at log 2
    (sp.Heaviside(sp.sin(x) - sp.Rational(1, 2)) ** 2, sp.Heaviside(sp.sin(x) - sp.Rational(1, 2)),
     Domain(ranges={x: (sp.Rational(1, 10), 2)}), "a root of sin(x) - 1/2 = 0"),  # at π/6
    (sp.floor(sp.exp(x)), sp.floor(sp.exp(x) - sp.Rational(1, 10 ** 30)),
     Domain(ranges={x: (sp.Rational(1, 10), sp.Rational(3, 2))}), "a root of exp(x)"),
    (sp.Max(0, sp.Rational(1, 10 ** 8) - (x - sp.pi) ** 2), sp.Integer(0),
     Domain(ranges={x: (3, 4)}), "between two roots"),  # a bump 2·10⁻⁴ wide at π
])
def test_a_jump_at_a_transcendental_root_is_probed_there(lhs, rhs, dom, where):
    result = verify(claim("transcendental", lhs, rhs, dom))
    assert result.status == "failed"
    assert where in result.steps[0].counterexample["point"]["x"]


@pytest.mark.parametrize(("lhs", "rhs"), [
    (sp.sign(x - third) * (x - third), sp.Abs(x - third)),  # true at the jump as well
    (sp.Heaviside(x ** 2 - 2) * (x ** 2 - 2), sp.Max(x ** 2 - 2, 0)),
    (sp.ceiling(x + third) + sp.floor(-x - third), sp.Integer(0)),
])
def test_a_true_claim_holds_at_its_jumps_roots(lhs, rhs):
    assert verify(claim("at_roots", lhs, rhs)).status in ("proved", "numeric")


def test_only_a_cancelled_sum_is_read_as_zero():
    with mpmath.workdps(DIGITS):
        root = mpmath.sqrt(2)
        tiny = mpmath.exp(-mpmath.mpf(10) ** 4)  # far below the working precision, but no residue
        assert mpsnap.sign(-2, root ** 2) == 0
        assert mpsnap.heaviside(0.5, -2, root ** 2) == 0.5
        assert mpsnap.sign(tiny) == 1 and mpsnap.heaviside(0.5, tiny) == 1
        assert mpsnap.relation("<", 1, -1 - tiny) is False  # 1 − (1 + tiny): a residue of 0
        assert mpsnap.relation("<", 1, -2) is True


def test_a_sum_inside_a_jumps_argument_is_cancelled_too():
    # (x − π)² + (y − e)² at (π, e) to the working precision: the residues are in the factors
    sq = sp.sign((x - sp.pi) ** 2 + (y - sp.E) ** 2)
    with mpmath.workdps(DIGITS):
        at = mpnum.compile_mp([x, y], sq)
        assert at(mpmath.pi, mpmath.e) == 0
        assert at(mpmath.pi + mpmath.mpf(10) ** -20, mpmath.e) == 1  # a small value is no residue
        assert mpnum.compile_mp([x], sp.sign(sp.exp(-x ** 2)))(mpmath.mpf(100)) == 1


# --- roots no single symbol reaches alone -------------------------------------------------------

PI_E = {"x": "3.14159265358979", "y": "2.71828182845905"}


@pytest.mark.parametrize(("lhs", "rhs", "where"), [
    # touches 0 without changing sign, at 1/3 + 2πk: no crossing for the scan to bisect
    (sp.sign(1 - sp.cos(x - third)) ** 2, sp.Integer(1), {"x": "touches 0"}),
    # 0 only at (π, e): with y drawn, no x is a root
    (sp.sign((x - sp.pi) ** 2 + (y - sp.E) ** 2) ** 2, sp.Integer(1), PI_E),
    (sp.Heaviside(-(x - sp.pi) ** 2 - (y - sp.E) ** 2), sp.Integer(0), PI_E),
    # roots of x − π and y − e, each in its symbol alone, taken together
    (sp.sign(sp.Max(sp.Abs(x - sp.pi), sp.Abs(y - sp.E))) ** 2, sp.Integer(1), PI_E),
    (sp.Piecewise((1, (x < sp.pi) | (x > sp.pi) | (y < sp.E) | (y > sp.E)), (0, True)),
     sp.Integer(1), PI_E),
])
def test_a_root_of_two_symbols_together_or_a_touching_root_is_probed(lhs, rhs, where):
    result = verify(claim("joint", lhs, rhs))
    assert result.status == "failed"
    point = result.steps[0].counterexample["point"]
    assert all(text in point[atom] for atom, text in where.items()), point


@pytest.mark.parametrize(("lhs", "rhs"), [
    (sp.sign(1 - sp.cos(x - third) + sp.Rational(1, 10 ** 6)) ** 2, sp.Integer(1)),  # no touch
    (sp.sign((x - sp.pi) ** 2 + (y - sp.E) ** 2) * ((x - sp.pi) ** 2 + (y - sp.E) ** 2),
     (x - sp.pi) ** 2 + (y - sp.E) ** 2),  # true at (π, e) as well
    (sp.Max(sp.Abs(x - sp.pi), sp.Abs(y - sp.E)), sp.Max(sp.Abs(y - sp.E), sp.Abs(x - sp.pi))),
])
def test_a_true_claim_holds_where_two_symbols_meet_a_jump(lhs, rhs):
    assert verify(claim("joint_true", lhs, rhs)).status in ("proved", "numeric")


def test_a_premise_false_only_where_two_symbols_meet_is_named():
    s2 = sp.sign((x - sp.pi) ** 2 + (y - sp.E) ** 2) ** 2
    off = Assumption("off the point", "(x, y) is never (π, e)", rewrites=((s2, sp.Integer(1)),))
    d = Derivation("joint_premise", "joint premise", sp.Eq(s2 + 1, 2, evaluate=False), (off,),
                   (Step(sp.Integer(2), "off the point", by=("off the point",)),), Domain())
    result = verify(d)
    assert result.status == "failed" and result.failed_premise == "off the point"


def test_an_input_is_taken_with_every_digit():
    with mpmath.workdps(JUMP_DIGITS):
        third_ = mpmath.mpf(1) / 3
    assert abs(exactly(third_) - third) < sp.Rational(1, 10 ** (JUMP_DIGITS - 5))
    assert exactly(0.5) == sp.Rational(1, 2)


# --- limits decided by residues or by thin sets -------------------------------------------------

@pytest.mark.parametrize(("body", "why"), [
    (sp.Heaviside(sp.Mod(n, 2003) - 2001), "period 2003 is past"),
    (sp.Heaviside(sp.Mod(n, 61) - 59) * sp.Heaviside(sp.Mod(n, 59) - 57), "period 3599"),
    (sp.Heaviside(sp.Mod(n ** 2, 10 ** 6) - 999000), "period 1000000"),
    (sp.floor(n / 2003) - sp.floor((n - 2) / 2003), "period 2003"),
    (sp.Heaviside(sp.frac(n * sp.sqrt(2)) - sp.Rational(9, 10)), "switches on an oscillating"),
    ((1 - sp.frac(n * sp.sqrt(2))) ** n, "switches on an oscillating"),
    (1 / (1 + n ** 2 * sp.sin(n) ** 2), "depends on the phase"),  # ≈ 1 at n = 355
    (sp.exp(-n ** 2 * sp.sin(sp.pi * sp.sqrt(2) * n) ** 2), "depends on the phase"),
    # a window between the listed phases, met by the finer grid
    (sp.Max(0, 1 - 10 * sp.Abs(sp.sin(n) - sp.Rational(7, 10))), "depends on the phase"),
    # a peak 10⁻¹⁶ wide at sin² n = 0.49, where a critical factor vanishes
    (1 / (1 + n ** 2 * (sp.sin(n) ** 2 - sp.Rational(49, 100)) ** 2), "depends on the phase"),
    (1 / (1 + n * sp.Abs(sp.sin(n) ** 2 - sp.Rational(49, 100))), "depends on the phase"),
])
def test_a_limit_no_sample_can_show_is_refused(body, why):
    with pytest.raises(DerivationError, match=why):
        verify(claim("thin", limit(body), sp.Integer(0), Domain(dims=(n,))))


def test_a_limit_at_a_finite_point_with_a_phase_is_refused_or_found():
    t = sp.Symbol("t", positive=True)
    peak = claim("peak_at_0", sp.Limit(sp.exp(-sp.sin(1 / t) ** 2 / t ** 4), t, 0, "+"),
                 sp.Integer(0))  # 1 at every t = 1/(kπ)
    with pytest.raises(DerivationError, match="depends on the phase"):
        verify(peak)
    damped = claim("damped_at_0", sp.Limit(t * sp.sin(1 / t), t, 0, "+"), sp.Integer(0))
    assert verify(damped).status in ("proved", "numeric")


@pytest.mark.parametrize(("lhs", "dom"), [
    (sp.sign(x ** 2 - 2 * sp.pi * x + sp.pi ** 2) ** 2, None),  # a double root at π
    (sp.sign(x + sp.sin(x) - 20) ** 2, None),  # a root at 19.44, past −10..10
])
def test_double_and_far_roots_are_probed(lhs, dom):
    result = verify(claim("far_or_double", lhs, sp.Integer(1), dom))
    assert result.status == "failed"
    assert "a root of" in result.steps[0].counterexample["point"]["x"]


def test_a_jump_of_a_derivative_is_probed_without_a_crash():
    d = sp.Derivative(x * sp.sin(x), x)
    assert verify(claim("jump_of_derivative", sp.sign(d) ** 2, sp.Integer(1))).status == "failed"


def test_a_premise_is_probed_just_inside_a_hypothesis_edge():
    # x > −10⁻¹³ lets x = −10⁻¹⁴ in, where |x| ≠ x; no drawn magnitude is that small
    from derivations.engine.core.claim import Assumption
    premise = Assumption("abs", "|x| = x here", rewrites=((sp.Abs(x), x),))
    d = Derivation("edge", "edge", sp.Eq(sp.Abs(x) + 1, x + 1, evaluate=False), (premise,),
                   (Step(x + 1, "assumption", by=("abs",)),), Domain(),
                   hypotheses=(sp.Gt(x, -sp.Rational(1, 10 ** 13)),))
    assert verify(d).status == "failed"


def test_a_size_where_a_jump_in_the_index_crosses_is_probed():
    # ⌊k²/5000⌋ is 0 up to k = 70: the sum is 0 only for n ≤ 70
    k = sp.Symbol("k", integer=True, positive=True)
    late = claim("late_floor", sp.Sum(sp.floor(k ** 2 / 5000), (k, 1, n)), sp.Integer(0),
                 Domain(dims=(n,)))
    result = verify(late)
    assert result.status == "failed" and result.steps[0].counterexample["point"]["n"] == "71"


def test_a_size_about_an_integer_constant_is_probed():
    # Σ_{k=1}^{n} δ(k, 70) is 0 only below n = 70, past the sizes sampled
    k = sp.Symbol("k", integer=True)
    late = claim("late_delta", sp.Sum(sp.KroneckerDelta(k, 70), (k, 1, n)), sp.Integer(0),
                 Domain(dims=(n,)))
    result = verify(late)
    assert result.status == "failed" and result.steps[0].counterexample["point"]["n"] == "70"


def test_a_real_limit_switched_by_an_oscillating_part_is_refused():
    t = sp.Symbol("t", positive=True)
    thin = claim("thin_real", sp.Limit(sp.Heaviside(sp.frac(t) - sp.Rational(99, 100)), t, sp.oo),
                 sp.Integer(0))
    with pytest.raises(DerivationError, match="switches on an oscillating part"):
        verify(thin)
    smooth = claim("smooth_real", sp.Limit(sp.floor(t) / t, t, sp.oo), sp.Integer(1))
    assert verify(smooth).status == "proved"


@pytest.mark.parametrize(("body", "value"), [
    (sp.floor(n / 7) * 7 / n, sp.Integer(1)),  # period 7: every residue evaluated
    (sp.sin(n) / n, sp.Integer(0)),  # an oscillation without a period, damped, no jump
    (sp.Heaviside(sp.Mod(n, 1999) - 2000), sp.Integer(0)),  # period within reach: all residues
])
def test_a_limit_within_reach_is_evaluated(body, value):
    assert verify(claim("reach", limit(body), value, Domain(dims=(n,)))).status in (
        "proved", "numeric")


def test_periods_are_read_from_the_form():
    assert periods.limit_trap(sp.cos(sp.pi * n / 3) + sp.Mod(n, 4), n, True) == (12, None)
    assert periods.limit_trap((-2) ** n / 3 ** n, n, True) == (2, None)
    assert periods.limit_trap(n * sp.sin(1 / n), n, True) == (1, None)
    assert periods.limit_trap(sp.Mod(n, 2003), n, False) == (1, None)  # a finite point
