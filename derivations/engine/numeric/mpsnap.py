"""The numeric runtime's reading of rounding, shared by everything that evaluates a definition
with numbers (:mod:`derivations.engine.numeric.mpseries`,
:mod:`derivations.engine.numeric.mplimits`, :mod:`derivations.engine.numeric.mpnum`): an argument
within rounding of an integer or of 0 is read as it.

``floor``, ``ceiling``, ``frac`` and ``Mod`` snap an argument within rounding of an integer to it,
so that ⌊i/5⌋ at i = 5 is 1; ``sign``, ``Heaviside`` and a comparison read a sum within rounding
of 0 against its largest term as 0 (:func:`cancelled`).  What cannot be decided raises
:class:`NotEvaluated`; the numeric route then treats the point as undefined (replaced, reported),
never as a difference.  A module of its own below the others: the quadrature, the series and the
limits read rounding through it, and the compiler imports them.
"""

from __future__ import annotations

import mpmath

__all__ = ["NotEvaluated", "cancelled", "ceiling", "floor", "frac", "heaviside", "mod",
           "relation", "sign"]


class NotEvaluated(ArithmeticError):
    """The definition could not be evaluated here (a divergent integral or series, a limit not
    found): the point is undefined for this side, not a difference."""


def _eps():
    return mpmath.mpf(2) ** (10 - mpmath.mp.prec)


def _snap(x):
    x = mpmath.mpmathify(x)
    if isinstance(x, mpmath.mpc):
        raise NotEvaluated(f"floor of the complex number {x}")
    r = mpmath.nint(x)
    return r if abs(x - r) <= _eps() * max(1, abs(x)) else x


def floor(x):
    return mpmath.floor(_snap(x))


def ceiling(x):
    return mpmath.ceil(_snap(x))


def frac(x):
    x = _snap(x)
    return x - mpmath.floor(x)


def mod(a, b):
    q = floor(mpmath.mpmathify(a) / b)
    return a - b * q


def cancelled(*terms):
    """The sum of ``terms``, 0 when it is within rounding of 0 against its largest term: at
    x = √2 to the working precision, x² − 2 is a rounding residue, and the sign, the Heaviside
    step or the comparison a jump makes there is the one at 0.  A sum that cancels nothing
    (e^−x² alone) is never snapped, however small."""
    terms = [mpmath.mpmathify(t) for t in terms]
    total = mpmath.fsum(terms)
    if isinstance(total, mpmath.mpc):
        return total
    scale = max((abs(t) for t in terms), default=0)
    return mpmath.mpf(0) if abs(total) <= _eps() * scale else total


def sign(*terms):
    return mpmath.sign(cancelled(*terms))


def heaviside(at_zero, *terms):
    v = cancelled(*terms)
    return mpmath.mpf(1) if v > 0 else mpmath.mpf(0) if v < 0 else mpmath.mpmathify(at_zero)


_RELATIONS = {"<": lambda v: v < 0, "<=": lambda v: v <= 0, ">": lambda v: v > 0,
              ">=": lambda v: v >= 0, "==": lambda v: v == 0, "!=": lambda v: v != 0}


def relation(op, *terms):
    return _RELATIONS[op](cancelled(*terms))
