"""The symbolic route's own methods for definite integrals: residues on the unit circle and the
fundamental theorem of calculus with every condition shown (derivations/engine/symbolic/residues.py,
antiderivatives.py, signs.py), each with a negative test.

variables → the integral or the claim → the method or verify → check.  A method may only turn a
step the numbers agree with from `numeric` into `proved`; a wrong value still fails, and an
integral whose conditions cannot be shown is left alone.
"""

from __future__ import annotations

import pytest
import sympy as sp

from derivations.engine.chain import verify
from derivations.engine.core.claim import Derivation, Step
from derivations.engine.core.domain import Domain
from derivations.engine.symbolic import antiderivatives, residues
from derivations.engine.symbolic.antiderivatives import (
    ANTIDERIVATIVE,
    RESIDUES,
    integrals_by_antiderivative,
    vanishes,
)
from derivations.engine.symbolic.signs import NotShown, sign_for_positive

x = sp.Symbol("x", real=True)
a = sp.Symbol("a", real=True)
c = sp.Symbol("c", positive=True)
p = sp.Symbol("p", positive=True)
t, g = sp.symbols("t g", positive=True)
pi = sp.pi


def claim(cid, lhs, rhs, ranges=None):
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), (), (Step(rhs, "claimed"),),
                      Domain(ranges=ranges or {}))


def value(integral, ranges=None):
    """The method's value of an integral without parameters (one case), or None."""
    evaluated = integrals_by_antiderivative(integral, ranges or {})
    return None if evaluated is None else sp.nsimplify(sp.simplify(evaluated.cases[0]))


# --- signs ----------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, sign", [
    (1 + t, 1), (-(2 + t) / (1 + g), -1), ((1 - g) ** 2 + t, 1), (sp.sqrt(1 + t) * (t + 3), 1),
    (t * g + 3 * t + 1, 1), (sp.exp(-t) + sp.atan(g), 1),
])
def test_a_sign_is_shown_for_every_positive_value(expr, sign):
    assert sign_for_positive(expr, [t, g]) == sign


@pytest.mark.parametrize("expr", [t - 1, (1 - g) ** 2, t * g - 1, sp.sqrt(t) - 1, a + 1, 0])
def test_a_sign_that_changes_or_is_unknown_is_not_shown(expr):
    # t − 1 changes sign at t = 1; (1 − g)² is 0 at g = 1; a is not a positive dummy
    assert sign_for_positive(expr, [t, g]) is None


# --- the fundamental theorem of calculus -----------------------------------------------------

@pytest.mark.parametrize("integral, expected", [
    (sp.Integral(x * sp.floor(x), (x, 0, 3)), sp.Rational(13, 2)),
    (sp.Integral(sp.sign(sp.sin(x)), (x, 0, 3 * pi)), pi),
    (sp.Integral(sp.Abs(x - 1), (x, 0, 3)), sp.Rational(5, 2)),
    (sp.Integral(sp.log(x), (x, 0, 1)), -1),  # improper at 0: a one-sided limit
    (sp.Integral(sp.Max(x, 1 - x), (x, 0, 1)), sp.Rational(3, 4)),
])
def test_an_integral_is_cut_where_its_sign_parts_change(integral, expected):
    assert value(integral) == expected


def test_a_pole_inside_the_interval_is_not_integrated_across():
    # F = −1/x is an antiderivative of 1/x² on each side of 0; across it, F(1) − F(−1) = −2 for
    # an integral that diverges to +∞
    assert value(sp.Integral(1 / x**2, (x, -1, 1))) is None
    assert value(sp.Integral(1 / (x - sp.Rational(1, 2)), (x, 0, 1))) is None


def test_an_antiderivative_is_kept_only_if_its_derivative_is_the_integrand(monkeypatch):
    assert value(sp.Integral(2 * x + 1, (x, 0, 1))) == 2
    monkeypatch.setattr(antiderivatives, "SOURCES", (lambda f, var: var**2,))  # loses the +x
    assert value(sp.Integral(2 * x + 1, (x, 0, 1))) is None


def test_a_parameter_is_taken_over_its_whole_range_and_at_its_ends():
    # ∫_0^1 dx/(x − a) = log((a − 1)/a) for a > 1: the logarithm of a negative argument
    evaluated = integrals_by_antiderivative(sp.Integral(1 / (x - a), (x, 0, 1))
                                            - sp.log(a - 1) + sp.log(a), {a: (2.0, 5.0)})
    assert len(evaluated.cases) == 3 and evaluated.methods == (ANTIDERIVATIVE,)
    assert all(vanishes(case, lambda e: sp.simplify(e) == 0) for case in evaluated.cases)
    # a range the pole enters: the logarithm's argument changes sign on it, nothing is shown
    assert integrals_by_antiderivative(sp.Integral(1 / (x - a), (x, 0, 1)),
                                       {a: (0.5, 5.0)}) is None


# --- residues -------------------------------------------------------------------------------

@pytest.mark.parametrize("f, hi, rhs, var, rng", [
    (1 / (c + sp.cos(x)), 2 * pi, 2 * pi / sp.sqrt(c**2 - 1), c, (2.0, 10.0)),
    (1 / (c - sp.sin(x)), 2 * pi, 2 * pi / sp.sqrt(c**2 - 1), c, (2.0, 10.0)),
    (1 / (c + sp.cos(x)) ** 2, 2 * pi, 2 * pi * c / (c**2 - 1) ** sp.Rational(3, 2), c,
     (2.0, 10.0)),
    (1 / (1 + p * sp.cos(x) ** 2), pi, pi / sp.sqrt(1 + p), p, (0.5, 5.0)),  # half a period
])
def test_a_trigonometric_integral_over_a_period_is_proved_by_residues(f, hi, rhs, var, rng):
    good = verify(claim("by_residues", sp.Integral(f, (x, 0, hi)), rhs, {var: rng}))
    assert good.status == "proved", good.steps[0].reason
    assert RESIDUES in good.steps[0].reason
    bad = verify(claim("by_residues_half", sp.Integral(f, (x, 0, hi)), rhs / 2, {var: rng}))
    assert bad.status == "failed"


def test_a_pole_on_the_circle_for_part_of_the_range_is_not_shown():
    # c + cos x vanishes for some x once c ≤ 1: the poles cross |z| = 1 inside the range
    assert integrals_by_antiderivative(sp.Integral(1 / (c + sp.cos(x)), (x, 0, 2 * pi)),
                                       {c: (0.5, 3.0)}) is None


@pytest.mark.parametrize("den, shown", [
    (lambda C, S: 3 + C, True), (lambda C, S: 2 - C - S / 2, True),
    (lambda C, S: 1 + 2 * C, False),  # 0 at cos x = −1/2
    (lambda C, S: 1 + C, False),  # 0 at x = π only: a corner of the square
])
def test_a_pole_on_the_circle_is_found_from_the_real_denominator(den, shown):
    C, S = sp.symbols("C S")
    try:
        residues._no_real_poles(den(C, S), C, S, [])
    except NotShown:
        assert not shown
    else:
        assert shown


def test_the_claim_sympy_gets_wrong_fails_and_the_true_one_is_proved():
    # SymPy's integrate gives 0 for ∫ dx/(x² + 2ax + 1); the antiderivative's derivative refuses it
    lhs = sp.Integral(1 / (x**2 + 2 * a * x + 1), (x, 0, 1))
    root = sp.sqrt(1 - a**2)
    true = (sp.atan((1 + a) / root) - sp.atan(a / root)) / root
    proved = verify(claim("quadratic", lhs, true, {a: (-0.5, 0.5)}))
    assert proved.status == "proved" and ANTIDERIVATIVE in proved.steps[0].reason
    assert verify(claim("quadratic_zero", lhs, sp.Integer(0), {a: (-0.5, 0.5)})).status == "failed"


# --- integrands put in a form the cuts can read ------------------------------------------------

@pytest.mark.parametrize("f, hi, expected", [
    (sp.sqrt(1 - sp.cos(x)), 2 * pi, 4 * sp.sqrt(2)),  # √2·|sin(x/2)|
    (sp.sqrt(1 - sp.sin(2 * x)), 2 * pi, 4 * sp.sqrt(2)),  # |sin x − cos x|
    (sp.atan(sp.tan(x)), pi, 0),  # x − π⌊x/π + 1/2⌋, cut at π/2
])
def test_a_root_of_a_square_and_an_inverse_function_are_cut_where_they_turn(f, hi, expected):
    assert value(sp.Integral(f, (x, 0, hi))) == expected


def test_a_root_that_is_no_square_and_a_rational_function_with_abs_are_not_taken_as_such():
    # √(2 + cos x) is not a square; |sin x − cos x| is no rational function of sin and cos
    assert value(sp.Integral(sp.sqrt(2 + sp.cos(x)), (x, 0, 2 * pi))) is None
    assert residues_refuse(sp.Integral(sp.Abs(sp.sin(x) - sp.cos(x)), (x, 0, 2 * pi)))


def residues_refuse(integral) -> bool:
    try:
        residues.by_residues(integral, [])
    except NotShown:
        return True
    return False


def test_a_jump_of_atan_tan_splits_the_quadrature_so_that_both_claims_are_decided():
    # the numeric route cuts its quadrature at the pole of tan: the wrong value SymPy gives fails
    # and the true one is proved (both were refused, the quadrature not converging across it)
    lhs = sp.Integral(sp.atan(sp.tan(x)), (x, 0, pi))
    assert verify(claim("atan_tan", lhs, sp.Integer(0))).status == "proved"
    assert verify(claim("atan_tan_sympy", lhs, -pi**2 / 2)).status == "failed"
