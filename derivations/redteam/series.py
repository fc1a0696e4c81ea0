"""Infinite series: extrapolation traps and rational series closed by ψ and Γ.

Two classes.  "series extrapolation": series whose tails are not in integer powers of 1/n
(1/n^1.5, log n/n², 1/(n² + √n), a telescoping √), where Richardson's extrapolation — what a
numeric route reaches for first — returns a confident wrong value; a false claim states that
value, a true one the sum (which the numeric route cannot reach either: it is refused); and
divergent series and integrals whose divergent part is far below the terms near 10^7, stated
equal to the value their extrapolations agree on.
"rational series": sums and products of rational terms, with (−1)ⁱ
and Mod, that the symbolic route closes by ψ and Γ — true ones, and false twins a wrong formula
would "prove" (a start off by one, ψ at p instead of p + 1, a divergent series given a
regularised value).

Every witness is mpmath's, from references that do not extrapolate the claim's own partial sums
by Richardson: ζ, ζ′ and ψ where they are the definition, partial sums with Euler–Maclaurin
tails, and mpmath's nsum of blocks for the rational series.
"""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from derivations.engine.core.domain import Domain
from derivations.redteam.cases import Case, claim

EXTRAPOLATION = "series extrapolation"
RATIONAL = "rational series"
DPS = 40
TOL = mp.mpf(10) ** -25
P_VALUES = ("0.62", "1.37", "2.81")  # where a parameter's witness is evaluated

i = sp.Symbol("i", integer=True)
p = sp.Symbol("p", positive=True)
oo, R = sp.oo, sp.Rational
PARAMETER = Domain(ranges={p: (0.5, 3)})

CASES: list[Case] = []


def _value(expr, at=None):
    v = sp.N(expr.subs(p, sp.Rational(at)) if at is not None else expr, DPS)
    return mp.mpc(str(sp.re(v)), str(sp.im(v)))


def _add(cid, cls, true, lhs, rhs, reference, domain=None):
    """``reference(at)`` is the series' value by mpmath at the parameter value ``at`` (a string)
    or None; the witness says whether rhs equals it at every value."""
    def witness() -> bool:
        with mp.workdps(DPS):
            values = P_VALUES if domain is not None else (None,)
            return all(abs(_value(rhs, at) - reference(at)) <= TOL * (1 + abs(reference(at)))
                       for at in values)
    CASES.append(Case(cid, cls, true, lambda: claim(cid, lhs, rhs, domain), witness))


def _euler_maclaurin(term, start=1, head=200):
    """Σ_{n≥start} term(n): the first ``head`` terms added, the rest by Euler–Maclaurin."""
    def total(_at=None):
        first = mp.fsum(term(mp.mpf(k)) for k in range(start, start + head))
        return first + mp.sumem(term, [start + head, mp.inf])
    return total


def _blocks(term, start, period, product=False):
    """Σ (or Π) over i ≥ start of term(i, p), ``period`` terms at a time, by mpmath's nsum."""
    def total(at=None):
        v = None if at is None else mp.mpf(at)

        def block(j):
            first = start + period * int(j)
            parts = [term(mp.mpf(first + r), v) for r in range(period)]
            return mp.fprod(parts) if product else mp.fsum(parts)
        return (mp.nprod if product else mp.nsum)(block, [0, mp.inf])
    return total


# --- series extrapolation: Richardson's values (at 30 digits, from n = 1) stated as sums -----
_add("ext_telescoping_sqrt", EXTRAPOLATION, True, sp.Sum(1 / sp.sqrt(i) - 1 / sp.sqrt(i + 1),
                                                         (i, 1, oo)), sp.Integer(1),
     lambda _at: mp.mpf(1))
_add("ext_telescoping_sqrt_richardson", EXTRAPOLATION, False,
     sp.Sum(1 / sp.sqrt(i) - 1 / sp.sqrt(i + 1), (i, 1, oo)), R(18, 19),
     lambda _at: mp.mpf(1))
_add("ext_zeta_three_halves_richardson", EXTRAPOLATION, False, sp.Sum(i ** R(-3, 2), (i, 1, oo)),
     R(25070392433844239991, 10**19), lambda _at: mp.zeta(1.5))
_add("ext_log_over_square_richardson", EXTRAPOLATION, False,
     sp.Sum(sp.log(i) / i**2, (i, 1, oo)), R(91844287705604760495, 10**20),
     lambda _at: -mp.zeta(2, derivative=1))
_add("ext_square_plus_root_richardson", EXTRAPOLATION, False,
     sp.Sum(1 / (i**2 + sp.sqrt(i)), (i, 1, oo)), R(1043378767351558318, 10**18),
     _euler_maclaurin(lambda t: 1 / (t**2 + mp.sqrt(t))))
_add("ext_five_halves_richardson", EXTRAPOLATION, False, sp.Sum(i ** R(-5, 2), (i, 1, oo)),
     sp.zeta(R(5, 2)) + R(1, 10**4), lambda _at: mp.zeta(2.5))

# divergent, with a remainder far below the terms up to n = 10^7: the extrapolations agree from
# both starts on the Abel value, stated here.  The witness is the terms' size: |(−1)^i (1/i + c)|
# > c for every i, and ∫_{2πk}^{2πk+π} sin x (1/(x + 1) + c) > 2c, so neither tends to 0
_C = R(1, 10**9)
_add("ext_alternating_divergent_remainder", EXTRAPOLATION, False,
     sp.Sum((-1) ** i * (1 / i + _C), (i, 1, oo)), -sp.log(2) - _C / 2, lambda _at: mp.nan)
# summed in pairs, the remainder cancels: the value of the convergent part
_add("ext_alternating_divergent_in_pairs", EXTRAPOLATION, False,
     sp.Sum((-1) ** i * (1 / i + _C), (i, 1, oo)), -sp.log(2), lambda _at: mp.nan)
_x = sp.Symbol("x", real=True)
_add("ext_oscillating_divergent_remainder", EXTRAPOLATION, False,
     sp.Integral(sp.sin(_x) * (1 / (_x + 1) + _C), (_x, 0, oo)),
     sp.Ci(1) * sp.sin(1) + (sp.pi / 2 - sp.Si(1)) * sp.cos(1) + _C, lambda _at: mp.nan)

# --- rational series: true, and the twins a wrong closed form would reach ----------------------
_alt = _blocks(lambda t, v: (-1) ** int(t) / (t + v), 0, 2)
_add("rat_alternating_digamma", RATIONAL, True, sp.Sum((-1) ** i / (i + p), (i, 0, oo)),
     (sp.polygamma(0, (p + 1) / 2) - sp.polygamma(0, p / 2)) / 2, _alt, PARAMETER)
_add("rat_alternating_digamma_swapped", RATIONAL, False, sp.Sum((-1) ** i / (i + p), (i, 0, oo)),
     (sp.polygamma(0, p / 2) - sp.polygamma(0, (p + 1) / 2)) / 2, _alt, PARAMETER)
_shift = _blocks(lambda t, v: 1 / (t + v) ** 2, 1, 1)
_add("rat_trigamma_from_one", RATIONAL, True, sp.Sum(1 / (i + p) ** 2, (i, 1, oo)),
     sp.polygamma(1, p) - 1 / p**2, _shift, PARAMETER)
_add("rat_trigamma_from_one_unshifted", RATIONAL, False, sp.Sum(1 / (i + p) ** 2, (i, 1, oo)),
     sp.polygamma(1, p), _shift, PARAMETER)
_pair = _blocks(lambda t, v: 1 / ((t + 1) * (t + v)), 0, 1)
_add("rat_digamma_pair", RATIONAL, True, sp.Sum(1 / ((i + 1) * (i + p)), (i, 0, oo)),
     (sp.polygamma(0, p) + sp.EulerGamma) / (p - 1), _pair, Domain(ranges={p: (1.2, 3)}))
_add("rat_digamma_pair_sign", RATIONAL, False, sp.Sum(1 / ((i + 1) * (i + p)), (i, 0, oo)),
     (sp.polygamma(0, p) - sp.EulerGamma) / (p - 1), _pair, Domain(ranges={p: (1.2, 3)}))
_mod3 = _blocks(lambda t, v: (int(t) % 3) / t**2, 1, 3)
_add("rat_mod3_squares", RATIONAL, True, sp.Sum(sp.Mod(i, 3) / i**2, (i, 1, oo)),
     (sp.polygamma(1, R(1, 3)) + 2 * sp.polygamma(1, R(2, 3))) / 9, _mod3)
_add("rat_mod3_squares_guess", RATIONAL, False, sp.Sum(sp.Mod(i, 3) / i**2, (i, 1, oo)),
     5 * sp.pi**2 / 27, _mod3)
_cubes = _blocks(lambda t, v: (t**3 - 1) / (t**3 + 1), 2, 1, product=True)
_add("rat_cubes_product", RATIONAL, True, sp.Product((i**3 - 1) / (i**3 + 1), (i, 2, oo)),
     R(2, 3), _cubes)
_add("rat_cubes_product_from_three", RATIONAL, False,
     sp.Product((i**3 - 1) / (i**3 + 1), (i, 3, oo)), R(2, 3), _blocks(
         lambda t, v: (t**3 - 1) / (t**3 + 1), 3, 1, product=True))
_sinh = _blocks(lambda t, v: 1 + v**2 / t**2, 1, 1, product=True)
_add("rat_sinh_product", RATIONAL, True, sp.Product(1 + p**2 / i**2, (i, 1, oo)),
     sp.sinh(sp.pi * p) / (sp.pi * p), _sinh, PARAMETER)
_add("rat_sin_product_for_sinh", RATIONAL, False, sp.Product(1 + p**2 / i**2, (i, 1, oo)),
     sp.sin(sp.pi * p) / (sp.pi * p), _sinh, PARAMETER)
_wallis = _blocks(lambda t, v: 1 - 1 / (16 * t**2), 1, 1, product=True)
_add("rat_quarter_wallis", RATIONAL, True, sp.Product(1 - 1 / (16 * i**2), (i, 1, oo)),
     2 * sp.sqrt(2) / sp.pi, _wallis)
_add("rat_quarter_wallis_half", RATIONAL, False, sp.Product(1 - 1 / (16 * i**2), (i, 1, oo)),
     2 / sp.pi, _wallis)
_logs = _blocks(lambda t, v: (-1) ** int(t) * mp.log(1 + 2 / t), 1, 2)
_add("rat_alternating_log_two", RATIONAL, True,
     sp.Sum((-1) ** i * sp.log(1 + 2 / i), (i, 1, oo)), -sp.log(2), _logs)
_add("rat_alternating_log_two_sign", RATIONAL, False,
     sp.Sum((-1) ** i * sp.log(1 + 2 / i), (i, 1, oo)), sp.log(2), _logs)
# Σ (−1)^i (i+1)/(i+2): its pairs decay like 1/i², but its terms tend to ±1, so it diverges;
# the sum of its pairs, 1 − log 2, is no value of it (nan: equal to nothing)
_add("rat_divergent_pairs", RATIONAL, False,
     sp.Sum((-1) ** i * (i + 1) / (i + 2), (i, 0, oo)), 1 - sp.log(2), lambda _at: mp.nan)

# an outside reviewer's, written without the engine's code
_harmonic_p = _blocks(lambda t, v: 1 / (t * (t + v)), 1, 1)
_add("rat_reviewer_digamma_from_one", RATIONAL, True, sp.Sum(1 / (i * (i + p)), (i, 1, oo)),
     (sp.polygamma(0, p + 1) + sp.EulerGamma) / p, _harmonic_p, PARAMETER)
_add("rat_reviewer_digamma_at_p", RATIONAL, False, sp.Sum(1 / (i * (i + p)), (i, 1, oo)),
     (sp.polygamma(0, p) + sp.EulerGamma) / p, _harmonic_p, PARAMETER)
# log(1 − 1/i²) is log 0 at i = 1: the sum from 1 has no value (from 2 it is −log 2)
_add("rat_reviewer_log_of_zero", RATIONAL, False, sp.Sum(sp.log(1 - 1 / i**2), (i, 1, oo)),
     -sp.log(2), lambda _at: mp.nan)
