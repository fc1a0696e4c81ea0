"""Where the numeric route looks: every admissible class of point is drawn — a size that may be 0,
the sizes past the sampled ones (5, 7, 8, 11 …), complex values for a complex symbol — and a
complex symbol where its values have no meaning is refused.  Each class: the claim false only at
that class of point, which the engine passed before, now fails; its true twin is proved."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from derivations import Assumption, Derivation, DerivationError, Domain, Step, verify
from derivations.engine.numeric.sampling import (
    MATRIX_PROBE_SIZES,
    PROBE_SIZES,
    draw,
    may_be_zero,
    structures,
)

m = sp.Symbol("m", integer=True, nonnegative=True)
n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True)
w = sp.Symbol("w", complex=True)
t = sp.Symbol("t")  # no assumption: complex
x = sp.Symbol("x", real=True)
X = sp.MatrixSymbol("X", n, n)


def claim(cid, lhs, rhs, domain=None, assumptions=(), steps=None) -> Derivation:
    rhs = sp.sympify(rhs)
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), assumptions,
                      steps or (Step(rhs, "claimed"),), domain or Domain())


# --- a size that may be 0 ------------------------------------------------------------------


def test_a_size_that_may_be_zero_is_drawn_at_zero_and_a_positive_one_never():
    zero = claim("z", sp.Sum(i, (i, 1, m)), m * (m + 1) / 2)
    assert may_be_zero(m) and not may_be_zero(n)
    assert 0 in [int(s[m]) for s in structures(zero)]
    positive = claim("p", sp.Sum(i, (i, 1, n)), n * (n + 1) / 2, Domain(dims=(n,)))
    assert 0 not in [int(s[n]) for s in structures(positive)]


def test_a_claim_false_only_at_zero_fails_there():
    # (1 − 1)^m = 0 only for m >= 1: the engine proved it, having never drawn m = 0
    false = verify(claim("alt", sp.Sum((-1) ** i * sp.binomial(m, i), (i, 0, m)), 0))
    assert false.status == "failed"
    assert false.steps[0].counterexample["point"]["m"] == "0"
    assert verify(claim("peel", sp.Product(2, (i, 1, m)),
                        2 * sp.Product(2, (i, 1, m - 1)))).status == "failed"


def test_its_twin_true_at_zero_is_proved():
    assert verify(claim("geo", sp.Sum(2**i, (i, 0, m - 1)), 2**m - 1)).status == "proved"


# --- sizes past the sampled ones -------------------------------------------------------------


def test_the_probe_reaches_every_size_up_to_sixteen_and_matrices_up_to_eight():
    assert set(range(5, 17)) - {6} <= set(PROBE_SIZES)
    assert set(MATRIX_PROBE_SIZES) == {5, 7, 8}


@pytest.mark.parametrize("special", [5, 11, 13])
def test_a_closed_form_wrong_at_one_unsampled_size_fails(special):
    wrong = claim(f"delta{special}", sp.Sum(i, (i, 1, n)),
                  n * (n + 1) / 2 + sp.KroneckerDelta(n, special), Domain(dims=(n,)))
    result = verify(wrong)
    assert result.status == "failed"
    assert result.steps[0].counterexample["point"]["n"] == str(special)


def test_a_matrix_claim_false_only_past_six_fails():
    result = verify(claim("min6", sp.Min(n, 6) * X, n * X, Domain(dims=(n,))))
    assert result.status == "failed"
    assert "size 7" in result.steps[0].reason


def test_a_true_matrix_claim_is_not_failed_by_the_larger_sizes():
    assert verify(claim("twice", 2 * X, X + X, Domain(dims=(n,)))).status == "proved"


# --- complex symbols ---------------------------------------------------------------------------


def test_a_complex_symbol_is_drawn_off_the_real_line_and_a_real_one_on_it():
    d = claim("c", w + x, x + w)
    values = [draw(d, p, w) for p in range(20)]
    assert all(isinstance(v, mpmath.mpc) for v in values)
    assert sum(abs(v.imag) > 1e-3 for v in values) >= 15
    assert all(isinstance(draw(d, p, x), mpmath.mpf) for p in range(20))


@pytest.mark.parametrize("lhs, rhs", [
    (sp.conjugate(w), w), (sp.Abs(w) ** 2, w**2), (sp.re(t), t),
    (sp.Abs(sp.exp(sp.I * t)), sp.Integer(1)), (sp.log(sp.exp(w)), w),
], ids=["conjugate", "modulus", "real part", "rotation", "log of exp"])
def test_a_claim_true_only_on_the_real_line_fails(lhs, rhs):
    assert verify(claim("cx", lhs, rhs)).status == "failed"


@pytest.mark.parametrize("lhs, rhs", [
    (sp.Abs(w) ** 2, w * sp.conjugate(w)), (sp.cos(w) ** 2 + sp.sin(w) ** 2, sp.Integer(1)),
    (sp.sqrt(w) ** 2, w),
], ids=["modulus", "pythagoras", "root squared"])
def test_a_claim_true_on_the_whole_plane_is_proved(lhs, rhs):
    assert verify(claim("cx", lhs, rhs)).status == "proved"


def test_a_premise_conj_w_equals_w_fails():
    real = Assumption("w is real", "conj(w) = w", rewrites=((sp.conjugate(w), w),))
    result = verify(claim("prem", w * sp.conjugate(w), w**2, None, (real,),
                          (Step(w**2, "w is real", ("w is real",)),)))
    assert result.status == "failed" and result.failed_premise == "w is real"


@pytest.mark.parametrize("build, words", [
    (lambda: claim("mx", sp.Max(w, 0), w), "declared without real=True"),
    (lambda: claim("rg", w, w + 0 * x, Domain(ranges={w: (0, 1)})), "real range"),
    (lambda: claim("adj", sp.Adjoint(X), X.T, Domain(dims=(n,))), "engine's matrices are real"),
])
def test_a_complex_value_where_it_has_no_meaning_is_refused_naming_it(build, words):
    with pytest.raises(DerivationError, match=words):
        build()


def test_a_real_symbol_in_the_same_places_is_accepted():
    claim("mx", sp.Max(x, 0), sp.Max(0, x))
    claim("adj", X.T, X.T, Domain(dims=(n,)))
