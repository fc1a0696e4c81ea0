"""The numeric route is an independent witness: it never calls the symbolic route's algorithms.

Every shipped claim is verified, and every red-team case whose expressions hold an integral, a
limit, a sum, a product or an expectation is evaluated at its first points, with SymPy's
``integrate``, ``limit``, ``Sum.doit``, ``Product.doit``, summation closed forms, ``simplify``
and ``solve`` patched to record their caller and raise, and with the symbolic route itself
replaced by a stub (it may call them; the numeric route — sampled points, the wider probe and
the premises' checks — may not).
"""

from __future__ import annotations

import importlib

import pytest
import sympy as sp

import derivations
from derivations.engine import chain
from derivations.engine.errors import DerivationError
from derivations.engine.pointwise import safe_eval, structures
from derivations.engine.stochastic import E, Var
from derivations.redteam import CASES

# by module path: sympy.series re-exports a function named limit over its module's name
products, summations, integrals, limits, simplify_module, solvers = (
    importlib.import_module(f"sympy.{m}") for m in (
        "concrete.products", "concrete.summations", "integrals.integrals", "series.limits",
        "simplify.simplify", "solvers.solvers"))

FORBIDDEN = [
    (integrals, "integrate"), (integrals.Integral, "doit"),
    (limits, "limit"), (limits.Limit, "doit"),
    (summations, "summation"), (summations, "eval_sum"), (summations.Sum, "doit"),
    (products, "product"), (products.Product, "doit"),
    (simplify_module, "simplify"), (solvers, "solve"),
]


class Forbidden(BaseException):  # not an Exception: nothing in the engine may swallow it
    pass


@pytest.fixture
def guarded(monkeypatch):
    calls: list[str] = []
    for owner, name in FORBIDDEN:
        label = f"{owner.__name__}.{name}"

        def refuse(*args, _name=label, **kwargs):
            calls.append(_name)
            raise Forbidden(_name)
        monkeypatch.setattr(owner, name, refuse)
    # the symbolic route may use them: it is replaced by a stub that proves every step
    monkeypatch.setattr(chain, "symbolic_check_detail",
                        lambda *a, **k: ("zero", "", None, None))
    monkeypatch.setattr(chain, "_forms", lambda d, n, rewrites: [
        d.lhs if n == 1 else d.steps[n - 2].expr, d.steps[n - 1].expr])
    return calls


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


def test_a_forbidden_call_is_seen(guarded):
    """The guard itself: the patched functions raise and are recorded."""
    x = sp.Symbol("x")
    with pytest.raises(Forbidden):
        sp.Integral(x, (x, 0, 1)).doit()
    assert guarded == ["Integral.doit"]


def test_shipped_claims_numeric_route_is_independent(guarded):
    for d in derivations.claims():
        result = chain.verify(d)
        assert result.status != "failed", (d.id, result.status)
    assert guarded == []


RED_TEAM_POINTS = 3  # the concrete forms and their evaluation; the ladder adds no SymPy call


def test_red_team_numeric_route_is_independent(guarded):
    claims = _red_team()
    assert len(claims) >= 100
    for d in claims:
        d = d.checked
        points = structures(d)[:RED_TEAM_POINTS]
        for expr in d.expressions:
            for p, s in enumerate(points):
                safe_eval(d, expr, p, s)  # an undefined point is an answer too
    assert guarded == []
