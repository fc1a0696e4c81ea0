"""The symbolic route's own methods for what a user meets at once: the cyclic trace (square and
rectangular), a trace as a sum over 0-based indices, Adam's bias-corrected form, LayerNorm's
identities for a symbolic width, and two SymPy failures that ended a step as an `error`
(StopIteration in its Sum simplification, TypeError in Gosper's hypersimp).  Each method with a
negative test: it does not show a false step zero."""

from __future__ import annotations

import pytest
import sympy as sp

from derivations import Derivation, Domain, Step, verify
from derivations.engine.core.budget import fresh_start
from derivations.engine.symbolic.check import _simplified, symbolic_check_detail
from derivations.engine.symbolic.given import unit_powers
from derivations.engine.symbolic.guards import remembered_doits
from derivations.engine.symbolic.sums import sums_as_symbols
from derivations.engine.symbolic.traces import bound_by_place, cyclic

n, m, q = sp.symbols("n m q", integer=True, positive=True)
d = sp.Symbol("d", integer=True, positive=True)
i0, j0 = sp.symbols("i j", integer=True, nonnegative=True)
i, j, k, l = sp.symbols("i j k l", integer=True, positive=True)
A, B, C, X = (sp.MatrixSymbol(s, n, n) for s in "ABCX")
x = sp.IndexedBase("x", real=True)
g = sp.IndexedBase("g", real=True)
eps = sp.Symbol("epsilon", positive=True)


def claim(cid, lhs, rhs, domain=None) -> Derivation:
    rhs = sp.sympify(rhs)
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), (), (Step(rhs, "claimed"),),
                      domain or Domain())


def own(prev, cur, domain):
    fresh_start()
    return symbolic_check_detail(prev, cur, own=domain)


# --- traces ------------------------------------------------------------------------------------


def test_cyclic_traces_are_proved_square_and_rectangular():
    Xr, Br, Cr = sp.MatrixSymbol("X", m, n), sp.MatrixSymbol("B", n, q), sp.MatrixSymbol("C", q, m)
    assert verify(claim("sq", sp.Trace(X * B * C), sp.Trace(C * X * B),
                        Domain(dims=(n,)))).status == "proved"
    assert verify(claim("rect", sp.Trace(Xr * Br * Cr), sp.Trace(Cr * Xr * Br),
                        Domain(dims=(m, n, q)))).status == "proved"


def test_a_transposition_is_not_a_rotation():
    assert cyclic(sp.Trace(A * B * C)) == cyclic(sp.Trace(B * C * A))
    assert cyclic(sp.Trace(A * B * C)) != cyclic(sp.Trace(B * A * C))
    outcome = own(sp.Trace(X * B * C), sp.Trace(B * X * C), Domain(dims=(n,)))
    assert outcome.result != "zero"
    assert verify(claim("swap", sp.Trace(X * B * C), sp.Trace(B * X * C),
                        Domain(dims=(n,)))).status == "failed"


def test_a_trace_over_zero_based_indices_is_proved():
    assert verify(claim("tr0", sp.Trace(A), sp.Sum(A[i0, i0], (i0, 0, n - 1)),
                        Domain(dims=(n,)))).status == "proved"
    assert verify(claim("trAB", sp.Trace(A * B),
                        sp.Sum(A[i0, j0] * B[j0, i0], (j0, 0, n - 1), (i0, 0, n - 1)),
                        Domain(dims=(n,)))).status == "proved"


def test_sums_named_by_place_keep_their_bounds_apart():
    one = sp.Sum(A[i0, i0], (i0, 0, n - 1))
    assert bound_by_place(one) == bound_by_place(sp.Sum(A[j0, j0], (j0, 0, n - 1)))
    assert bound_by_place(one) != bound_by_place(sp.Sum(A[j0, j0], (j0, 1, n - 1)))


# --- Adam's bias-corrected form ------------------------------------------------------------------
lr = sp.Symbol("alpha", positive=True)
b1, b2 = sp.symbols("beta1 beta2", positive=True)
mm, vv = sp.Symbol("m", real=True), sp.Symbol("v", positive=True)
t = sp.Symbol("t", integer=True, positive=True)
ADAM = Domain(dims=(t,), ranges={b1: (sp.Rational(1, 2), sp.Rational(99, 100)),
                                 b2: (sp.Rational(9, 10), sp.Rational(9999, 10000))})
FOLDED = lr * (mm / (1 - b1**t)) / (sp.sqrt(vv / (1 - b2**t)) + eps)


def test_adams_bias_corrected_form_is_proved_and_its_unscaled_epsilon_fails():
    right = lr * sp.sqrt(1 - b2**t) / (1 - b1**t) * mm / (sp.sqrt(vv) + eps * sp.sqrt(1 - b2**t))
    wrong = lr * sp.sqrt(1 - b2**t) / (1 - b1**t) * mm / (sp.sqrt(vv) + eps)
    assert verify(claim("adam", FOLDED, right, ADAM)).status == "proved"
    assert verify(claim("adam_wrong", FOLDED, wrong, ADAM)).status == "failed"


def test_powers_are_taken_inside_the_unit_interval_only_for_a_base_ranging_inside_it():
    e = b2**t
    assert unit_powers(e, ADAM.ranges) != e
    assert unit_powers(e, {b2: (sp.Rational(1, 2), 1)}) == e  # the range reaches 1
    assert unit_powers(e, {b2: (0, sp.Rational(1, 2))}) == e  # … or 0


# --- LayerNorm for a symbolic width --------------------------------------------------------------
MU = sp.Sum(x[l], (l, 1, d)) / d
SIG = sp.sqrt(sp.Sum((x[k] - MU) ** 2, (k, 1, d)) / d + eps)


def xhat(a):
    return (x[a] - MU) / SIG


def grad(a):
    gx = sp.Sum(g[i] * xhat(i), (i, 1, d)) / d
    return (g[a] - sp.Sum(g[i], (i, 1, d)) / d - xhat(a) * gx) / SIG


def test_layernorm_identities_are_proved_by_sums_held_as_symbols():
    D = Domain(dims=(d,))
    for lhs in (sp.Sum(xhat(i), (i, 1, d)), sp.Sum(grad(j), (j, 1, d))):
        outcome = own(lhs, sp.Integer(0), D)
        assert outcome.result == "zero" and "held as symbols" in outcome.detail
    assert verify(claim("ln_grad_sum", sp.Sum(grad(j), (j, 1, d)), 0, D)).status == "proved"


def test_sums_held_as_symbols_do_not_prove_the_gradient_orthogonal_to_xhat():
    # Σ_j x̂_j ∂L/∂x_j = d m ε/((v + ε)σ) ≠ 0 for ε > 0
    outcome = own(sp.Sum(xhat(j) * grad(j), (j, 1, d)), sp.Integer(0), Domain(dims=(d,)))
    assert outcome.result != "zero"
    held = sums_as_symbols(sp.Sum(xhat(j) * grad(j), (j, 1, d)))
    assert _simplified(held) != 0


def test_sympys_stopiteration_in_sum_simplification_is_not_an_error():
    # a Sum under a power inside another Sum: SymPy's sum_combine looks for a Sum among a
    # term's factors, finds none and raises StopIteration
    e = sp.Sum((x[i] - MU) / sp.sqrt(sp.Sum(x[k] ** 2, (k, 1, d))), (i, 1, d))
    with pytest.raises(StopIteration):
        sp.simplify(e)
    assert _simplified(e).has(sp.Sum)  # no StopIteration: the sums held as symbols
    assert _simplified(sums_as_symbols(e)) == 0
    fresh_start()
    assert symbolic_check_detail(sp.Sum(xhat(i), (i, 1, d)), sp.Integer(0),
                                 ops=200_000).result != "error"


def test_sympys_gosper_typeerror_leaves_the_sum_as_it_is(monkeypatch):
    """SymPy's hypersimp indexes an Indexed term as if it were a Piecewise (TypeError) on some
    LayerNorm sums: the sum is then left as it is — and only a sum, an integral's error still
    propagates."""
    def broken(self, **hints):
        raise TypeError("'Indexed' object is not subscriptable")
    monkeypatch.setattr(sp.Sum, "doit", broken)
    monkeypatch.setattr(sp.Integral, "doit", broken)
    s = sp.Sum(x[i] / (i + 1), (i, 1, d))
    with remembered_doits():
        assert s.doit() == s
        with pytest.raises(TypeError):
            sp.Integral(x[i], (i, 0, 1)).doit()


# --- logarithms and inverse functions on a known sign (derivations.engine.symbolic.branches) ---

r = sp.Symbol("r", real=True)
T = sp.Integer(10) ** 60
POSITIVE, NEGATIVE, AROUND = (Domain(ranges={r: rng}) for rng in ((1, 1000), (-1000, -1),
                                                                   (-5, 5)))


@pytest.mark.parametrize("lhs, rhs, domain, method", [
    (sp.log(sp.cosh(r)) - r + sp.log(2), sp.log(1 + sp.exp(-2 * r)), POSITIVE,
     "logarithms exponentiated"),
    (sp.log(1 + r / T), 2 * sp.atanh(r / (2 * T + r)), POSITIVE, "logarithms exponentiated"),
    (sp.log(r), 2 * sp.atanh((r - 1) / (r + 1)), POSITIVE, "logarithms exponentiated"),
    (sp.log(r), sp.log(-r) + sp.I * sp.pi, NEGATIVE, "principal branches"),
    (sp.atan(r), sp.pi / 2 - sp.atan(1 / r), POSITIVE, "principal branches"),
    (sp.atan(r), -sp.pi / 2 - sp.atan(1 / r), NEGATIVE, "principal branches"),
    (sp.exp(sp.loggamma(r)), sp.gamma(r), NEGATIVE, "principal branches"),
    (sp.sqrt(r), sp.I * sp.sqrt(-r), NEGATIVE, "signs its ranges"),
    (sp.sign(sp.tanh(r)), sp.sign(r), NEGATIVE, "signs its ranges"),
], ids=["log_cosh", "log1p_tiny", "log_as_atanh", "log_negative", "atan_positive",
        "atan_negative", "exp_loggamma", "sqrt_negative", "sign_tanh_negative"])
def test_logarithms_and_inverses_on_a_declared_sign_are_proved(lhs, rhs, domain, method):
    out = own(lhs, rhs, domain)
    assert out.result == "zero" and method in out.detail, out


@pytest.mark.parametrize("lhs, rhs, domain", [
    # each a true identity's twin, false somewhere on its range
    (sp.log(sp.cosh(r)) - r, sp.log(1 + sp.exp(-2 * r)), POSITIVE),  # without log 2
    (sp.log(r), 2 * sp.atanh((r - 1) / (r + 2)), POSITIVE),
    (sp.log(r), sp.log(-r) - sp.I * sp.pi, NEGATIVE),  # the other branch
    (sp.log(r), sp.log(-r) + sp.I * sp.pi, AROUND),  # no sign: the branch is not taken
    (sp.atan(r), sp.pi / 2 - sp.atan(1 / r), NEGATIVE),  # true only for r > 0
    (sp.atan(r), -sp.pi / 2 - sp.atan(1 / r), AROUND),
    (sp.sqrt(r), sp.I * sp.sqrt(-r), POSITIVE),
    (sp.sqrt(r), sp.I * sp.sqrt(-r), AROUND),
    (sp.log(r**2), 2 * sp.log(r), AROUND),  # r² > 0 but r is not: log r is complex for r < 0
], ids=["log_cosh_no_log2", "log_atanh_wrong", "log_other_branch", "log_no_sign",
        "atan_wrong_side", "atan_no_sign", "sqrt_positive", "sqrt_no_sign", "log_square"])
def test_the_branches_show_no_false_twin_zero(lhs, rhs, domain):
    assert own(lhs, rhs, domain).result != "zero"


def test_a_negative_range_gives_its_symbol_a_sign():
    from derivations.engine.symbolic.methods import signed_by_ranges
    u, w = sp.symbols("u w", real=True)
    signs = signed_by_ranges({r: (-1000, -1), u: (-3, 0), w: (-1, 1)})
    assert signs[r].is_negative and signs[u].is_nonpositive and not signs[u].is_negative
    assert w not in signs  # negative: a range across 0 gives no sign
