"""Infinite sums and products of rational terms closed by ψ and Γ
(derivations/engine/symbolic/series.py).

variables → the series → its closed form → check against mpmath's own summation of the terms
(never SymPy's), at 50 digits; then the series the method must leave alone, and claims through
verify with their wrong twins.
"""

from __future__ import annotations

import mpmath as mp
import pytest
import sympy as sp

from derivations.engine.chain import verify
from derivations.engine.core.claim import Derivation, Step
from derivations.engine.core.domain import Domain
from derivations.engine.symbolic.series import rational_series

i = sp.Symbol("i", integer=True)
p = sp.Symbol("p", positive=True)
oo = sp.oo
R = sp.Rational
DIGITS = 50
AGREE = mp.mpf(10) ** -40  # mpmath's nsum of a rational series reaches about 45 digits here
P_VALUES = ("0.37", "1.5", "2.75")  # where a parameter is evaluated: not an integer, not 1


# (series, terms mpmath adds in blocks of this many: the period of its (−1)^i or Mod)
SERIES = [
    (sp.Sum(1 / (i + p) ** 2, (i, 0, oo)), 1),
    (sp.Sum(1 / (i + p) ** 2, (i, 1, oo)), 1),
    (sp.Sum(1 / ((i + 1) * (i + p)), (i, 0, oo)), 1),
    (sp.Sum((-1) ** i / (i + p), (i, 0, oo)), 2),
    (sp.Sum((-1) ** (i + 1) / i, (i, 1, oo)), 2),
    (sp.Sum((-1) ** i / (i + 1) ** 3, (i, 0, oo)), 2),
    (sp.Sum(sp.Mod(i, 3) / i**2, (i, 1, oo)), 3),
    (sp.Sum(1 / (i**2 + p**2), (i, 0, oo)), 1),
    (sp.Sum(sp.log(1 + 1 / i**2), (i, 1, oo)), 1),
    (sp.Sum((-1) ** i * sp.log(1 + 1 / i), (i, 1, oo)), 2),
    (sp.Product(1 + 1 / i**2, (i, 1, oo)), 1),
    (sp.Product((i**3 - 1) / (i**3 + 1), (i, 2, oo)), 1),
    (sp.Product(1 + p**2 / i**2, (i, 1, oo)), 1),
    (sp.Product(1 + (-1) ** i / i, (i, 2, oo)), 2),
]


def _mp_value(node, period, at):
    var, lo, _ = node.limits[0]
    term = sp.lambdify((var, p), node.function, modules="mpmath")

    def block(j):
        first = int(lo) + period * int(j)
        values = [term(mp.mpf(first + r), at) for r in range(period)]
        return mp.fsum(values) if isinstance(node, sp.Sum) else mp.fprod(values)
    return (mp.nsum if isinstance(node, sp.Sum) else mp.nprod)(block, [0, mp.inf])


@pytest.mark.parametrize("node, period", SERIES, ids=[str(s) for s, _ in SERIES])
def test_a_closed_form_agrees_with_mpmath_summing_the_terms(node, period):
    # variables: the series and its closed form
    closed = rational_series(node)
    assert not closed.has(sp.Sum, sp.Product), closed
    # check: at 50 digits, at three values of the parameter, against mpmath's own summation
    with mp.workdps(DIGITS):
        for value in P_VALUES:
            at = mp.mpf(value)
            expected = _mp_value(node, period, at)
            got = sp.N(closed.subs(p, sp.Rational(value)), DIGITS)
            got = mp.mpc(str(sp.re(got)), str(sp.im(got)))
            assert abs(got - expected) <= AGREE * max(1, abs(expected)), (value, got, expected)


@pytest.mark.parametrize("node", [
    sp.Sum(1 / (i + 1), (i, 0, oo)),  # diverges: decays like 1/i only
    sp.Sum((-1) ** i, (i, 0, oo)),  # its pairs cancel, but its terms do not tend to 0
    sp.Sum((-1) ** i * i / (i + 1), (i, 0, oo)),  # same
    sp.Product(1 + 1 / i, (i, 1, oo)),  # diverges: 1 + 1/i
    sp.Product(2 + 1 / i**2, (i, 1, oo)),  # terms tend to 2
    sp.Product(1 - 1 / i**2, (i, 1, oo)),  # a factor 0 at i = 1
    sp.Sum(1 / (i - p) ** 2, (i, 0, oo)),  # a pole at i = p when p is an integer
    sp.Product(1 - p**2 / (i + 1) ** 2, (i, 3, oo)),  # a factor 0 when p is an integer above 3
    sp.Sum(sp.log(1 - 2 / i**2), (i, 1, oo)),  # a log of a negative number at i = 1
    sp.Sum(sp.sin(i) / i**2, (i, 1, oo)),  # not rational in i
    sp.Sum(1 / (i**2 + 1), (i, 0, sp.Symbol("n", integer=True))),  # not infinite
])
def test_a_series_it_cannot_close_soundly_is_left_alone(node):
    assert rational_series(node) == node


def claim(cid, lhs, rhs, domain=None):
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), (), (Step(rhs, "claimed"),),
                      domain or Domain())


PARAMETER = Domain(ranges={p: (0.5, 3)})


@pytest.mark.parametrize("lhs, right, wrong, domain", [
    # Σ_{i≥1} 1/(i+p)² = ψ'(p) − 1/p²; the twin starts the sum one term early
    (sp.Sum(1 / (i + p) ** 2, (i, 1, oo)), sp.polygamma(1, p) - 1 / p**2, sp.polygamma(1, p),
     PARAMETER),
    # Π_{i≥1} (1 − 1/(16 i²)) = sin(π/4)/(π/4); the twin is Wallis's 2/π
    (sp.Product(1 - 1 / (16 * i**2), (i, 1, oo)), 2 * sp.sqrt(2) / sp.pi, 2 / sp.pi, None),
    # Σ (−1)^i/(i+1)³ = ¾ ζ(3); the twin is the sum without the signs' cancellation, ⅞ ζ(3)
    (sp.Sum((-1) ** i / (i + 1) ** 3, (i, 0, oo)), R(3, 4) * sp.zeta(3), R(7, 8) * sp.zeta(3),
     None),
])
def test_a_series_is_proved_by_psi_and_gamma_and_its_twin_fails(lhs, right, wrong, domain):
    proved = verify(claim("series", lhs, right, domain))
    assert proved.status == "proved"
    assert "summed by ψ and multiplied by Γ" in proved.steps[0].reason
    failed = verify(claim("series_twin", lhs, wrong, domain))
    assert failed.status == "failed" and failed.steps[0].counterexample
