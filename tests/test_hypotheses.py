"""Hypotheses the sampler meets: a bound drawn inside (x > 1000 where values are drawn up to 100),
an equality solved for one key (a + b = 1; a probability vector on the simplex; a centred
vector), a sum inside a hypothesis; and the hypotheses no draw can meet, refused when the claim
is built, naming the hypothesis and a fix.  Each was refused with advice that did not fit."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from derivations import Derivation, DerivationError, Domain, Step, verify
from derivations.engine.core.budget import fresh_start
from derivations.engine.core.hypotheses import bounds, solved_keys
from derivations.engine.numeric.sampling import attempt_for, draw, structures
from derivations.engine.numeric.solving import Inexact
from derivations.engine.symbolic.check import symbolic_check_detail

x = sp.Symbol("x", real=True)
a, b = sp.symbols("a b", real=True)
n = sp.Symbol("n", integer=True, positive=True)
j, k, l = sp.symbols("j k l", integer=True, positive=True)
P = sp.IndexedBase("p", positive=True)
S = sp.IndexedBase("s", positive=True)
Z = sp.IndexedBase("z", real=True)
ONE_P = sp.Eq(sp.Sum(P[k], (k, 1, n)), 1)
DN = Domain(dims=(n,))


def claim(cid, lhs, rhs, domain=None, hypotheses=()) -> Derivation:
    rhs = sp.sympify(rhs)
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), (), (Step(rhs, "claimed"),),
                      domain or Domain(), hypotheses=tuple(hypotheses))


# --- bounds ------------------------------------------------------------------------------------


def test_a_bound_past_the_drawn_magnitudes_is_drawn_inside():
    d = claim("big", sp.Max(x, 1000), x, hypotheses=(sp.Gt(x, 1000),))
    assert bounds(d.hypotheses)[x].lo == 1000
    assert all(draw(d, p, x) > 1000 for p in range(20))
    assert verify(d).status == "proved"


def test_a_claim_false_inside_a_bound_fails():
    d = claim("clip", sp.Min(x, 10**6), x, hypotheses=(sp.Gt(x, 1000),))
    assert verify(d).status == "failed"


# --- equalities --------------------------------------------------------------------------------


def test_an_equality_is_solved_exactly_for_its_last_symbol():
    d = claim("line", a * b, a - a**2, hypotheses=(sp.Eq(a + b, 1),))
    assert solved_keys(d) == {sp.Eq(a + b, 1): b}
    fresh_start()
    for p in range(5):
        at = attempt_for(d, p, {}, False)
        va, vb = draw(d, p, a, False, at), draw(d, p, b, False, at)
        assert not isinstance(vb, Inexact)
        with mpmath.workprec(4000):
            assert va + vb == 1  # every bit of it


def test_a_non_binary_solution_is_marked_inexact():
    d = claim("hyperbola", a * b, 1, hypotheses=(sp.Eq(a * b, 1),))
    fresh_start()
    at = attempt_for(d, 0, {}, False)
    assert isinstance(draw(d, 0, b, False, at), Inexact)
    assert verify(d).status == "proved"


def test_a_probability_vector_is_drawn_on_the_simplex():
    d = claim("rows", sp.Sum(P[k] ** 2, (k, 1, n)), sp.Sum(P[k] ** 2, (k, 1, n)), DN,
              hypotheses=(ONE_P,))
    fresh_start()
    for p, structure in enumerate(structures(d)[:6]):
        size = int(structure[n])
        at = attempt_for(d, p, structure, False)
        values = [draw(d, p, P[q], False, at) for q in range(1, size + 1)]
        assert all(v > 0 for v in values)
        with mpmath.workprec(4000):
            assert mpmath.fsum(values) == 1


@pytest.mark.parametrize("lhs, rhs, hyps, truth", [
    (a * b, a - a**2, (sp.Eq(a + b, 1),), True),
    (a * b, sp.Rational(1, 4), (sp.Eq(a + b, 1),), False),
    (sp.Sum(S[k] * (sp.KroneckerDelta(j, k) - S[j]), (k, 1, n)), 0,
     (sp.Eq(sp.Sum(S[k], (k, 1, n)), 1),), True),
    (sp.Sum(P[k] ** 2, (k, 1, n)), 1, (ONE_P,), False),
    (sp.Sum((Z[k] - sp.Sum(Z[l], (l, 1, n)) / n) ** 2, (k, 1, n)), sp.Sum(Z[k] ** 2, (k, 1, n)),
     (sp.Eq(sp.Sum(Z[k], (k, 1, n)), 0),), True),
    (sp.Sum(Z[k] ** 2, (k, 1, n)), sp.Sum(Z[k], (k, 1, n)) ** 2,
     (sp.Eq(sp.Sum(Z[k], (k, 1, n)), 0),), False),
], ids=["line", "line wrong", "softmax rows", "simplex squares", "centred", "centred wrong"])
def test_claims_under_an_equality(lhs, rhs, hyps, truth):
    d = claim("eq", lhs, rhs, Domain(dims=(n,), indices={j: (1, n)}) if lhs.has(j) else None,
              hyps)
    assert verify(d).status == ("proved" if truth else "failed")


def test_the_symbolic_route_uses_an_equality_only_where_it_holds():
    """Its negative: a false claim under a + b = 1 is not shown zero by the substitution."""
    hyp = (sp.Eq(a + b, 1),)
    right = symbolic_check_detail(a * b, a - a**2, own=Domain(), hypotheses=hyp)
    wrong = symbolic_check_detail(a * b, a - a**2 + 1, own=Domain(), hypotheses=hyp)
    assert right.result == "zero" and "equality" in right.detail
    assert wrong.result != "zero"


def test_a_sum_inside_an_inequality_hypothesis_is_written_out():
    d = claim("pos", sp.Sum(Z[k], (k, 1, n)), sp.Sum(Z[k], (k, 1, n)), DN,
              (sp.Gt(sp.Sum(Z[k] ** 2, (k, 1, n)), 1),))
    assert verify(d).status == "proved"  # was: ValueError: Invalid limits given


# --- refused when the claim is built -------------------------------------------------------------


@pytest.mark.parametrize("build, words", [
    (lambda: claim("circle", a**2 + b**2, 1, hypotheses=(sp.Eq(a**2 + b**2, 1),)),
     r"linear in none of a, b; parametrise it"),
    (lambda: claim("empty", x, x + 0 * a, Domain(ranges={x: (0, 1)}), (sp.Gt(x, 5),)),
     r"leave no value of x together with its declared range"),
    (lambda: claim("twice", a * b, a * b,
                   hypotheses=(sp.Eq(a + b**2, 1), sp.Eq(a + b**3, 2))),
     r"can both be solved only for a"),
])
def test_a_hypothesis_no_draw_can_meet_is_refused_naming_it(build, words):
    with pytest.raises(DerivationError, match=words):
        build()


def test_a_hypothesis_drawing_cannot_meet_is_refused_naming_it():
    d = claim("never", sp.sin(x), sp.sin(x), hypotheses=(sp.Gt(sp.sin(x) + sp.cos(x), 3),))
    with pytest.raises(DerivationError, match=r"sin\(x\) \+ cos\(x\) > 3"):
        verify(d)


def _through_definition(hypothesis):
    """∂L/∂z_i = p_i − y_i with L = −Σ y_k log p_k written out, y used only through L."""
    from derivations.engine import Definition

    n = sp.Symbol("n", integer=True, positive=True)
    i, k, j = (sp.Symbol(s, integer=True) for s in "ikj")
    y, z = sp.IndexedBase("y", real=True), sp.IndexedBase("z", real=True)
    L = sp.Symbol("L", real=True)
    p = sp.exp(z[i]) / sp.Sum(sp.exp(z[j]), (j, 1, n))
    body = -sp.Sum(y[k] * (z[k] - sp.log(sp.Sum(sp.exp(z[j]), (j, 1, n)))), (k, 1, n))
    return Derivation("ce_through_l", "ce", sp.Eq(sp.Derivative(L, z[i]), p - y[i],
                                                 evaluate=False), (),
                      (Step(p - y[i], "as written"),),
                      Domain(dims=(n,), indices={i: (1, n)}),
                      definitions=(Definition("L", L, body),), hypotheses=(hypothesis(y, n),))


def test_a_hypothesis_may_be_about_what_only_a_definition_uses():
    m = sp.Symbol("m", integer=True)
    got = verify(_through_definition(lambda y, n: sp.Eq(sp.Sum(y[m], (m, 1, n)), 1)))
    assert got.status in ("proved", "numeric")


def test_a_hypothesis_about_what_neither_uses_is_still_refused():
    m = sp.Symbol("m", integer=True)
    w = sp.IndexedBase("w", real=True)
    with pytest.raises(DerivationError, match="which the claim does not use"):
        _through_definition(lambda y, n: sp.Eq(sp.Sum(w[m], (m, 1, n)), 1))
