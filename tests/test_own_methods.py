"""The symbolic route's own methods (derivations/engine/symbolic/methods.py), each with a negative
test.

variables → the expression or the claim → the method or verify → check.  A method may only turn
a step the numbers agree with from `numeric` into `proved`; a wrong step still fails.
"""

from __future__ import annotations

import pytest
import sympy as sp

from derivations.engine.chain import verify
from derivations.engine.core.claim import Derivation, Step
from derivations.engine.core.domain import Domain
from derivations.engine.core.stochastic import E
from derivations.engine.symbolic.cases import (
    _split_sums,
    one_period,
    piecewise_branches,
    residue_classes,
)
from derivations.engine.symbolic.check import symbolic_check, symbolic_check_detail
from derivations.engine.symbolic.methods import (
    constant_terms,
    expectations_by_density,
    partial_closed_forms,
    positive_off_zero,
    sequence_limits,
    signed_by_ranges,
    textbook,
)
from derivations.engine.symbolic.ring import as_ring

x = sp.Symbol("x", real=True)
t = sp.Symbol("t", real=True)
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
i = sp.Symbol("i", integer=True)
l = sp.Symbol("l", integer=True)
X = sp.Symbol("X", real=True)
s2 = sp.Symbol("s2", positive=True)
pi = sp.pi


def claim(cid, lhs, rhs, domain=None):
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), (), (Step(rhs, "claimed"),),
                      domain or Domain())


def own_method(result) -> str:
    return result.steps[0].reason


# --- the summation convention -------------------------------------------------------------------

def test_textbook_empties_a_reversed_range_and_guards_an_unknown_one():
    assert textbook(sp.Sum(i, (i, 1, -3))) == 0  # Karr: 3
    assert textbook(sp.Product(i, (i, 5, 2))) == 1  # Karr: 1/12
    assert textbook(sp.Sum(i, (i, n, n - 3))) == 0
    guarded = textbook(sp.Sum(1, (i, 1, k)))
    assert isinstance(guarded, sp.Piecewise) and guarded.args[1].expr == 0
    kept = sp.Sum(i, (i, 1, n))  # n ≥ 1: the range is never empty
    assert textbook(kept) == kept
    # an index's declared range decides: k in 1..n makes 1..k non-empty
    assert textbook(sp.Sum(1, (i, 1, k)), {k: (1, n)}) == sp.Sum(1, (i, 1, k))


def test_the_symbolic_route_follows_the_textbook_convention():
    # Σ_{i=1}^{-3} i: 0 by the textbook, 3 by Karr's convention, which SymPy's doit follows
    assert sp.Sum(i, (i, 1, -3)).doit() == 3
    assert symbolic_check(sp.Sum(i, (i, 1, -3)), sp.Integer(0)) == "zero"
    assert symbolic_check(sp.Sum(i, (i, 1, -3)), sp.Integer(3)) != "zero"


def test_a_sum_true_under_the_textbook_convention_is_proved():
    right = claim("ones_to_k", sp.Sum(1, (i, 1, k)), sp.Max(k, 0),
                  Domain(indices={k: (-3, n)}, dims=(n,)))
    result = verify(right)
    assert result.status == "proved", result.steps[0].reason
    wrong = claim("ones_to_k_karr", sp.Sum(1, (i, 1, k)), k,
                  Domain(indices={k: (-3, n)}, dims=(n,)))
    assert verify(wrong).status == "failed"


def test_an_inner_range_is_read_within_the_outer_ones():
    # within k in 1..n, k+1..n has n − k ≥ 0 terms: no guard; k+2..n may have −1
    assert textbook(sp.Sum(k * sp.Sum(1, (l, k + 1, n)), (k, 1, n))) \
        == sp.Sum(k * sp.Sum(1, (l, k + 1, n)), (k, 1, n))
    assert textbook(sp.Sum(1, (l, k + 1, n), (k, 1, n))) == sp.Sum(1, (l, k + 1, n), (k, 1, n))
    guarded = textbook(sp.Sum(k * sp.Sum(1, (l, k + 2, n)), (k, 1, n)))
    assert guarded.has(sp.Piecewise)
    # outside the sum over k, k is a symbol of its own: its range says nothing there
    assert textbook(sp.Sum(1, (l, k + 1, n)) + sp.Sum(k, (k, 1, n))).has(sp.Piecewise)


@pytest.mark.parametrize(("lhs", "rhs", "status"), [
    (sp.Sum(sp.Sum(1, (l, k + 1, n)), (k, 1, n)), n * (n - 1) / 2, "proved"),
    (sp.Sum(k * sp.Sum(1, (l, k + 1, n)), (k, 1, n)), (n**3 - n) / 6, "proved"),
    (sp.Sum(sp.Sum(1, (l, k, n)), (k, 1, n)), n * (n - 1) / 2, "failed"),  # n(n+1)/2
    (sp.Sum(k * sp.Sum(1, (l, k, n)), (k, 1, n)), (n**3 - n) / 6, "failed"),
])
def test_a_nested_sum_is_proved_within_its_ranges_and_its_twin_fails(lhs, rhs, status):
    result = verify(claim("pairs", lhs, rhs, Domain(dims=(n,))))
    assert result.status == status, result.steps[0]
    if status == "failed":
        assert symbolic_check(lhs, rhs) != "zero"


# --- limits of sequences ------------------------------------------------------------------------

def test_sequence_limit_where_sympys_limit_keeps_n_an_integer():
    f = n * sp.sin(pi / n)
    assert sp.Limit(f, n, sp.oo).doit() != pi  # SymPy substitutes n = 1/t, t still an integer
    assert sequence_limits(sp.Limit(f, n, sp.oo)) == pi


def test_sequence_limit_by_residue_classes():
    assert sequence_limits(sp.Limit(sp.Mod(n, 2) / n, n, sp.oo)) == 0
    assert sequence_limits(sp.Limit((-1) ** n / n, n, sp.oo)) == 0
    assert sequence_limits(sp.Limit(sp.Mod(n**2 + n + 1, 2), n, sp.oo)) == 1
    # no limit: the classes of (-1)^n go to 1 and -1; SymPy's limit is left as it was
    left = sp.Limit((-1) ** n, n, sp.oo)
    assert sequence_limits(left) == left
    # no period (⌊√n⌋) and a real variable: not this method's
    assert sequence_limits(sp.Limit(sp.floor(sp.sqrt(n)) / n, n, sp.oo)).has(sp.Limit)
    assert sequence_limits(sp.Limit(x * sp.sin(pi / x), x, sp.oo)).has(sp.Limit)


def test_a_sequence_limit_is_proved_and_its_twin_fails():
    right = verify(claim("n_sin", sp.Limit(n * sp.sin(pi / n), n, sp.oo), pi, Domain(dims=(n,))))
    assert right.status == "proved" and "residue classes" in own_method(right)
    wrong = verify(claim("n_sin0", sp.Limit(n * sp.sin(pi / n), n, sp.oo), sp.Integer(0),
                         Domain(dims=(n,))))
    assert wrong.status == "failed"


# --- further normal forms -----------------------------------------------------------------------

def test_each_form_proves_its_identity_and_not_its_twin():
    cases = [  # (lhs, right rhs, wrong rhs, domain, form named)
        (sp.tanh(t), 2 / (1 + sp.exp(-2 * t)) - 1, 2 / (1 + sp.exp(-2 * t)), None,
         "exponential form"),
        (5 * sp.floor(k / 5) + sp.Mod(k, 5), k, k + 1, Domain(constants=(k,)), "floor form"),
        (sp.log(sp.exp(7) + sp.exp(t)) - 7, sp.log(1 + sp.exp(t - 7)),
         sp.log(1 + sp.exp(t + 7)), None, "logarithms combined"),
        (sp.polygamma(0, x + 2), sp.polygamma(0, x) + 1 / x + 1 / (x + 1),
         sp.polygamma(0, x) + 1 / x, Domain(ranges={x: (0.5, 5)}), "special functions"),
        (sp.Ei(x), sp.Chi(x) + sp.Shi(x), sp.Chi(x) - sp.Shi(x), Domain(ranges={x: (0.5, 5)}),
         "exponential integrals"),
    ]
    for lhs, right, wrong, dom, form in cases:
        proved = verify(claim("right", lhs, right, dom))
        assert proved.status == "proved" and form in own_method(proved), (lhs, proved.steps[0])
        assert verify(claim("wrong", lhs, wrong, dom)).status == "failed", lhs


# --- proofs by cases (derivations/engine/symbolic/cases.py)
# ----------------------------------------------

m = sp.Symbol("m", integer=True, positive=True)
H = sp.Heaviside
THIRDS = sp.floor(n / 3) + sp.floor((n + 1) / 3) + sp.floor((n + 2) / 3)
SIZES = Domain(dims=(n, m))


def test_residue_classes_split_only_periodic_integer_symbols():
    assert len(residue_classes(sp.Mod(n, 2) + x)) == 2
    assert len(residue_classes(sp.Mod(n, 2) * sp.Mod(m, 3))) == 6  # jointly
    assert residue_classes(sp.Mod(n, 4) * sp.Mod(m, 6)) is None  # 24 classes: too many
    assert residue_classes(n**2 + x) is None  # no period
    assert residue_classes(sp.Mod(x, 2)) is None  # a real x is not split


def test_piecewise_branches_reach_only_where_no_earlier_condition_holds():
    # Heaviside(0) = 1/2 against 1: they differ only at x = ±√2, a branch of two points
    cases = piecewise_branches(H(x**2 - 2) - H(x**2 - 2, 1))
    assert sp.Rational(-1, 2) in cases
    assert piecewise_branches(sp.Max(x, t) - x) is None  # conditions in two symbols


@pytest.mark.parametrize(("lhs", "rhs", "domain", "method"), [
    # method: the one that proves it; "" for a twin, which must fail
    (sp.sin(pi * n / 2) ** 2, sp.Mod(n, 2), SIZES, "residue classes"),
    (sp.sin(pi * n / 2) ** 2, sp.Mod(n, 4), SIZES, ""),
    (THIRDS, n, SIZES, "residue classes"),
    (THIRDS, n + sp.Mod(n, 3), SIZES, ""),  # wrong in two classes of three
    (THIRDS, n + sp.Mod(n, 3) * (sp.Mod(n, 3) - 1) / 2, SIZES, ""),  # in one, n ≡ 2 (mod 3)
    (sp.Sum((-1) ** k, (k, 0, n - 1)), sp.Mod(n, 2), SIZES, "residue classes"),
    (sp.Sum((-1) ** k, (k, 0, n - 1)), sp.Mod(n + 1, 2), SIZES, ""),
    (sp.Mod(n, 2) * sp.Mod(m, 2), (1 - (-1) ** n) * (1 - (-1) ** m) / 4, SIZES, "residue classes"),
    (sp.Mod(n, 2) * sp.Mod(m, 2), (1 - (-1) ** n) * (1 + (-1) ** m) / 4, SIZES, ""),
    (H(x**2 - 2) * (x**2 - 2), sp.Max(x**2 - 2, 0), None, "branch by branch"),
    (H(x**2 - 2) * (x**2 - 1), sp.Max(x**2 - 2, 0), None, ""),
    (H(x**2 - 2) * (x**2 - 2), H(x**2 - 2, 1) * (x**2 - 2), None, "branch by branch"),
    (H(x**2 - 2), H(x**2 - 2, 1), None, ""),  # only at x = ±√2
])
def test_a_proof_by_cases_proves_its_identity_and_not_its_twin(lhs, rhs, domain, method):
    result = verify(claim("cases", lhs, rhs, domain))
    if method:
        assert result.status == "proved" and method in own_method(result), result.steps[0]
    else:
        assert result.status == "failed"
        assert symbolic_check_detail(lhs, rhs, own=domain or Domain()).result != "zero"


def test_a_sign_comes_only_from_a_declared_range():
    # Ei = Chi + Shi holds for x > 0 only: below 0 it is false, and fails
    below = verify(claim("ei_neg", sp.Ei(x), sp.Chi(x) + sp.Shi(x),
                         Domain(ranges={x: (-5, -0.5)})))
    assert below.status == "failed"


@pytest.mark.parametrize(("lhs", "rhs", "hypothesis", "status"), [
    (sp.Abs(x), x, sp.Gt(x, 0), "proved"),
    (sp.Abs(x), x, sp.Ge(x, 2), "proved"),
    (sp.sign(x) ** 2, sp.Integer(1), sp.Ne(x, 0), "proved"),
    (sp.Abs(x), -x, sp.Lt(x, -1), "proved"),
    (sp.Abs(x), x, sp.Gt(x, -1), "failed"),  # x = −1/2 is allowed, and |x| ≠ x there
    (sp.sign(x) ** 2, sp.Integer(1), sp.Ne(x, 1), "failed"),  # x = 0 is allowed
])
def test_a_sign_comes_from_a_hypothesis_that_bounds_a_symbol(lhs, rhs, hypothesis, status):
    d = Derivation("hyp_sign", "hyp_sign", sp.Eq(lhs, rhs, evaluate=False), (),
                   (Step(rhs, "claimed"),), Domain(), hypotheses=(hypothesis,))
    result = verify(d)
    assert result.status == status
    if status == "proved":
        assert "hypotheses give its symbols" in own_method(result)


# --- expectations against a declared law --------------------------------------------------------

def test_expectation_by_the_normal_density():
    law = {X: (0, s2)}
    assert sp.simplify(expectations_by_density(E(sp.Abs(X)), law, "normal")
                       - sp.sqrt(2 * s2 / pi)) == 0
    assert expectations_by_density(E(X), {X: (0, x)}, "normal") is None  # variance of any sign


def test_a_normal_law_fact_is_proved_and_not_for_any_law():
    # a variance of 4, not a symbol: each point's E is then one quadrature, not one per value
    normal = Domain(random={X: (0, 4)}, distribution="normal")
    right = verify(claim("relu_mean", E(sp.Max(X, 0)), sp.sqrt(4 / (2 * pi)), normal))
    assert right.status == "proved" and "normal law's density" in own_method(right)
    wrong = verify(claim("relu_mean2", E(sp.Max(X, 0)), sp.sqrt(4 / pi), normal))
    assert wrong.status == "failed"
    anylaw = verify(claim("relu_any", E(sp.Max(X, 0)), sp.sqrt(4 / (2 * pi)),
                          Domain(random={X: (0, 4)})))
    assert anylaw.status == "failed"  # the skewed laws differ


# --- square matrices as a ring --------------------------------------------------------------------

def test_as_ring_reads_only_products_of_square_matrices_of_one_size():
    m = sp.Symbol("m", integer=True, positive=True)
    a, b = sp.MatrixSymbol("A", m, m), sp.MatrixSymbol("B", m, m)
    nc_a, nc_b = sp.symbols("A B", commutative=False)
    assert as_ring((a + b) ** 2 - a * b + 3 * sp.Identity(m)) \
        == (nc_a + nc_b) ** 2 - nc_a * nc_b + 3
    assert as_ring(a.T * b) is None  # a transpose is not a ring operation
    assert as_ring(a * sp.MatrixSymbol("C", m, 1)) is None  # not square
    assert as_ring(a + sp.MatrixSymbol("D", m + 1, m + 1)) is None  # two sizes


def test_a_square_matrix_identity_is_proved_and_its_commuting_twin_fails():
    m = sp.Symbol("m", integer=True, positive=True)
    a, b = sp.MatrixSymbol("A", m, m), sp.MatrixSymbol("B", m, m)
    dom = Domain(dims=(m,))
    right = verify(claim("mat_square", (a + b) ** 2, a**2 + a * b + b * a + b**2, dom))
    assert right.status == "proved" and "square matrices" in own_method(right)
    assert verify(claim("mat_square2", (a + b) ** 2, a**2 + 2 * a * b + b**2, dom)).status \
        == "failed"


# --- sums and products --------------------------------------------------------------------------

def test_an_infinite_product_by_its_partial_products():
    wallis = sp.Product(1 - 1 / (4 * i**2), (i, 1, sp.oo))
    assert partial_closed_forms(wallis) == 2 / pi
    # partial products SymPy cannot close: left as they were
    viete = sp.Product(sp.cos(x / 2**i), (i, 1, sp.oo))
    assert partial_closed_forms(viete) == viete
    # through verify, the rational terms are closed by Γ first (tests/test_series_method.py)
    right = verify(claim("wallis", wallis, 2 / pi))
    assert right.status == "proved" and "multiplied by Γ" in own_method(right)
    assert verify(claim("wallis_wrong", wallis, 1 / pi)).status == "failed"


def test_a_sum_of_a_constant_counts_its_terms():
    z = sp.IndexedBase("z", real=True)
    inner = sp.Sum(z[i], (i, 1, n))
    assert constant_terms(sp.Sum(inner, (i, 1, n))) == n * inner  # the outer i binds nothing
    assert constant_terms(sp.Sum(z[i], (i, 1, n))) == sp.Sum(z[i], (i, 1, n))
    assert constant_terms(sp.Sum(x, (i, 1, k))) == sp.Sum(x, (i, 1, k))  # k may be below 1


def test_an_inverse_function_applied_to_its_function_is_undone_for_real_arguments():
    proved = verify(claim("asinh_sinh", sp.asinh(sp.sinh(x)), x, Domain(ranges={x: (-3, 3)})))
    assert proved.status == "proved" and "inverse functions undone" in own_method(proved)
    assert verify(claim("asinh_sinh_abs", sp.asinh(sp.sinh(x)), sp.Abs(x),
                        Domain(ranges={x: (-3, 3)}))).status == "failed"
    # asin(sin h) folds h back into [−π/2, π/2]: at h = 2 it is π − 2, not 2
    assert verify(claim("asin_sin", sp.asin(sp.sin(x)), x,
                        Domain(ranges={x: (-3, 3)}))).status == "failed"


def test_floors_of_a_real_symbol_are_proved_over_one_period_piece_by_piece():
    half = sp.Rational(1, 2)
    hermite = verify(claim("hermite", sp.floor(2 * x), sp.floor(x) + sp.floor(x + half)))
    assert hermite.status == "proved" and "one period" in own_method(hermite)
    # wrong only on [1/2, 1) of each period: a piece's case is not zero
    assert verify(claim("hermite_wrong", sp.floor(2 * x), 2 * sp.floor(x))).status == "failed"
    assert one_period(sp.floor(2 * x) - 2 * sp.floor(x)) is not None
    # x² does not repeat with the floors: no period, no cases
    assert one_period(sp.floor(x) + x**2) is None


def test_a_range_from_zero_counts_as_positive_only_where_every_side_is_undefined_at_zero():
    y = sp.Symbol("y", real=True)
    ranges = {x: (0, 2), y: (0, 2)}
    proved = verify(claim("log_product", sp.log(x) + sp.log(y), sp.log(x * y),
                          Domain(ranges=ranges)))
    assert proved.status == "proved"
    # √x·√y is 0 at x = 0, not undefined: x stays nonnegative (and the claim holds there too)
    signed = signed_by_ranges(ranges)
    assert not positive_off_zero(signed, sp.sqrt(x) * sp.sqrt(y), sp.sqrt(x * y))[x].is_positive
    assert positive_off_zero(signed, sp.log(x) + sp.log(y), sp.log(x * y))[x].is_positive
    # over negative values the logarithms' branches differ: the claim fails
    wider = Domain(ranges={x: (-2, 2), y: (-2, 2)})
    assert verify(claim("log_product_wide", sp.log(x) + sp.log(y), sp.log(x * y), wider)).status \
        == "failed"


def test_a_sum_of_a_periodic_term_is_split_by_the_residues_of_its_variable():
    j = sp.Symbol("j", integer=True)
    floors = sp.Sum(sp.floor(j / 2), (j, 1, n))
    proved = verify(claim("floor_half_sum", floors, sp.floor(n**2 / 4), Domain(dims=(n,))))
    assert proved.status == "proved" and "residue classes" in own_method(proved)
    wrong = verify(claim("floor_half_sum_wrong", floors, sp.floor(n**2 / 4) + sp.Mod(n, 2),
                         Domain(dims=(n,))))
    assert wrong.status == "failed"
    # a length that may be negative (m − 1 for m = 0) is not split: Karr's convention would apply
    m = sp.Symbol("m", integer=True, nonnegative=True)
    kept = sp.Sum(sp.floor(j / 2), (j, 1, 2 * m - 1))
    assert _split_sums(kept) == kept
    assert _split_sums(sp.Sum(sp.floor(j / 2), (j, 1, 2 * m))) != sp.Sum(sp.floor(j / 2),
                                                                         (j, 1, 2 * m))
