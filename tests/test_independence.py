"""The numeric route is an independent witness: it never calls the symbolic route's algorithms.

The engine runs its numeric route inside ``independence.numbers_only()``, where SymPy's
``integrate``, ``limit``, ``Sum.doit``, ``Product.doit``, summation closed forms, ``simplify``
and ``solve`` refuse to run and are recorded; every shipped claim's verification is required to
have no such call (tests/test_budget.py, which verifies them all), and here every red-team case
whose expressions hold an integral, a limit, a sum, a product or an expectation is evaluated at
its first points under the same guard.
"""

from __future__ import annotations

import pytest
import sympy as sp

import derivations
from derivations.engine import chain, independence
from derivations.engine.core.errors import DerivationError
from derivations.engine.core.stochastic import E, Var
from derivations.engine.independence import REFUSED, Dependent, numbers_only
from derivations.engine.numeric import pointwise
from derivations.engine.numeric.pointwise import safe_eval
from derivations.engine.numeric.sampling import structures
from derivations.redteam import CASES


def _fragile(d) -> bool:
    return any(e.has(sp.Integral, sp.Limit, sp.Sum, sp.Product, E, Var)
               for e in d.checked.expressions)


def _red_team():
    out = []
    for case in CASES:
        try:
            d = case.build()
        except DerivationError:
            continue
        if _fragile(d):
            out.append(d)
    return out


def test_a_forbidden_call_is_refused_inside_the_guard_and_restored_after():
    x = sp.Symbol("x")
    before = len(REFUSED)
    with numbers_only():
        for call in (lambda: sp.Integral(x, (x, 0, 1)).doit(),
                     lambda: sp.Sum(x, (x, 1, 3)).doit(),
                     lambda: sp.Limit(1 / x, x, sp.oo).doit(),
                     lambda: (sp.sin(x) ** 2 + sp.cos(x) ** 2).simplify(),
                     lambda: sp.integrate(x, (x, 0, 1))):
            with pytest.raises(Dependent, match="numeric route may not use SymPy"):
                call()
        with numbers_only():  # re-entrant: the inner exit keeps the guard
            pass
        with pytest.raises(Dependent):
            sp.Product(x, (x, 1, 3)).doit()
    # sp.integrate is SymPy's name bound at import: it is caught where it evaluates, doit
    assert REFUSED[before:] == ["Integral.doit", "Sum.doit", "Limit.doit", "simplify",
                                "Integral.doit", "Product.doit"]
    # outside, SymPy is itself again
    assert sp.Integral(x, (x, 0, 1)).doit() == sp.Rational(1, 2)
    assert sp.Sum(x, (x, 1, 3)).doit() == 6
    assert len(independence.FORBIDDEN) == 11


def test_a_numeric_route_that_calls_sympy_is_caught_in_verify(monkeypatch):
    # a numeric route that (wrongly) evaluated the claim with SymPy's own algorithm: its points
    # are refused, so they decide nothing and the claim is not proved; the calls are named
    real = pointwise.evaluate

    def dependent(d, expr, *args, **kwargs):
        expr.doit()  # what the numeric route must never do
        return real(d, expr, *args, **kwargs)
    monkeypatch.setattr(pointwise, "evaluate", dependent)
    x, a = sp.symbols("x a", positive=True)
    claim = derivations.Derivation(
        "integral_of_ax", "∫₀¹ a x dx = a/2", sp.Eq(sp.Integral(a * x, (x, 0, 1)), a / 2), (),
        (derivations.Step(a / 2, "integrate"),), derivations.Domain())
    before = len(REFUSED)
    try:
        result = chain.verify(claim)
    except DerivationError as exc:  # no point could be evaluated: refused, naming why
        assert "Dependent" in str(exc)
    else:
        assert result.status != "proved" and result.refused
    assert "Integral.doit" in REFUSED[before:]
    monkeypatch.undo()
    control = chain.verify(claim)  # the engine's own numeric route: proved, nothing refused
    assert control.status == "proved" and control.refused == ()


RED_TEAM_POINTS = 3  # the concrete forms and their evaluation; the ladder adds no SymPy call


def test_red_team_numeric_route_is_independent():
    claims = _red_team()
    assert len(claims) >= 100
    before = len(REFUSED)
    with numbers_only():
        for d in claims:
            d = d.checked
            points = structures(d)[:RED_TEAM_POINTS]
            for expr in d.expressions:
                for p, s in enumerate(points):
                    safe_eval(d, expr, p, s)  # an undefined point is an answer too
    assert REFUSED[before:] == []
