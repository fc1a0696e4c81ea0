"""Named abbreviations: shown only when substituting the definitions back gives the engine's
expression, and they do produce the textbook forms the titles name."""

from __future__ import annotations

import sympy as sp

import derivations
from reports import display


def test_softmax_jacobian_reads_s_i_delta_minus_s_j():
    out = display.claim_display("softmax", derivations.get("softmax_jacobian").statement,
                                [s.expr for s in derivations.get("softmax_jacobian").steps])
    rhs = r"\left(\delta_{i j} - {s}_{j}\right) {s}_{i}"
    assert out["statement"] == r"\frac{\partial}{\partial {z}_{j}} {s}_{i} = " + rhs
    assert out["steps"]["3"] == rhs


def test_cross_entropy_gradient_reads_p_minus_y():
    d = derivations.get("cross_entropy_gradient")
    out = display.claim_display("cross_entropy", d.statement, [s.expr for s in d.steps])
    assert "{p}_{j}" in out["statement"] and r"\delta_{j k}" in out["statement"]


def test_a_wrong_abbreviation_is_never_shown():
    from derivations import softmax as sm

    s = sp.IndexedBase("s")
    expr = sm.softmax(sm.i) * (1 - sm.softmax(sm.j))
    right = [(sm.softmax(sm.i), s[sm.i]), (sm.softmax(sm.j), s[sm.j])]
    assert display.abbreviate(expr, right) == s[sm.i] * (1 - s[sm.j])
    # a name that stands for something else: substituting back does not give expr again
    mismatched = [(sm.softmax(sm.i), s[sm.i]), (sp.exp(sm.z[sm.j]), s[sm.i])]
    assert display.abbreviate(expr, mismatched) is None


def test_numeric_check_fails_on_a_nonzero_difference():
    z, k, n = sp.IndexedBase("z"), sp.Symbol("k", integer=True), sp.Symbol("n", integer=True)
    assert display._numeric_zero(sp.Sum(z[k], (k, 1, n)) - sp.Sum(z[k], (k, 1, n)), 1)
    assert not display._numeric_zero(sp.Sum(z[k] ** 2, (k, 1, n)) + 1, 1)
