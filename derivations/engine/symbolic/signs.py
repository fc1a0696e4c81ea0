"""Signs shown for every positive value of some dummies — how the symbolic route's own methods for
integrals decide that a denominator, a logarithm's argument or a radicand keeps one sign over a
parameter's whole range, once the range is mapped onto (0, ∞).

An expression has a sign when it is a number of that sign, a product of signed factors, a power of
a signed base (a root of a positive one), exp or atan of a real one, a sum of terms of one sign,
or a quotient of polynomials in the dummies whose coefficients all share one sign.  Anything else
is undecided: the methods that ask then show nothing.
"""

from __future__ import annotations

import math

import sympy as sp


class NotShown(Exception):
    """A condition of a method's theorem that could not be shown: the method shows nothing."""


def sign_for_positive(e, positive, zero: bool = False) -> int | None:
    """+1 or −1 when ``e`` has that sign for every positive value of the dummies ``positive``
    (0 too, when ``zero`` and e is identically 0), else None."""
    e = sp.sympify(e, strict=True)
    if e.free_symbols - set(positive):
        return None
    if e.is_number:
        if e.is_zero:
            return 0 if zero else None
        return 1 if e.is_positive else -1 if e.is_negative else None
    if isinstance(e, sp.Mul):
        signs = [sign_for_positive(f, positive) for f in e.args]
        return None if None in signs else math.prod(signs)
    if isinstance(e, sp.Pow):
        base, k = e.args
        b = sign_for_positive(base, positive)
        if b is not None and k.is_integer:
            return b if k.is_odd else 1
        return 1 if b == 1 else None
    if isinstance(e, sp.exp) and e.args[0].is_real:
        return 1
    if isinstance(e, sp.atan):
        return sign_for_positive(e.args[0], positive)
    if isinstance(e, sp.Add):
        # terms of one sign, or positive terms and squares (≥ 0)
        signs, squares = set(), False
        for term in e.args:
            sign = sign_for_positive(term, positive)
            if sign is None and _square(term):
                squares = True
            else:
                signs.add(sign)
        if signs == {1} or (signs == {-1} and not squares):
            return signs.pop()
    return _rational_sign(e, positive)


def _square(e) -> bool:
    """A product of even powers of real expressions and positive factors (≥ 0)."""
    factors = e.args if isinstance(e, sp.Mul) else (e,)
    return all(f.is_positive or (isinstance(f, sp.Pow) and f.exp.is_integer and f.exp.is_even
                                 and f.base.is_real) for f in factors)


def _rational_sign(e, positive) -> int | None:
    num, den = sp.fraction(sp.together(e))
    signs = [_polynomial_sign(p, positive) for p in (num, den)]
    return None if None in signs else signs[0] * signs[1]


def _polynomial_sign(p, positive) -> int | None:
    p = sp.expand(p)
    if p == 0:
        return None
    try:
        poly = sp.Poly(p, *positive)
    except sp.PolynomialError:
        return None
    signs = set()
    for c in poly.coeffs():
        if not c.is_number:
            return None
        signs.add(1 if c.is_positive else -1 if c.is_negative else None)
    return signs.pop() if len(signs) == 1 and None not in signs else None
