"""The numeric route's own evaluation of what SymPy would otherwise close: by definition, with
numbers (mpmath), at the working precision of the ladder.  A concrete form is compiled to mpmath
(:func:`compile_mp`), each operator SymPy would close becoming a call of the runtime's own:

* an integral, an infinite sum, a product — :mod:`derivations.engine.numeric.mpseries`;
* a limit — :mod:`derivations.engine.numeric.mplimits`;
* E of a non-polynomial — against the law's distribution: exact enumeration of the two-point
  laws, quadrature against the density of the continuous ones (one random variable);
* floor, ceiling, frac, Mod, sign, Heaviside and comparisons — read through rounding
  (:mod:`derivations.engine.numeric.mpsnap`).

What cannot be decided raises :class:`~derivations.engine.mpsnap.NotEvaluated`; the numeric route
then treats the point as undefined (replaced, reported), never as a difference.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from derivations.engine.numeric import scales
from derivations.engine.numeric.mplimits import limit, limit_phases
from derivations.engine.numeric.mpprint import FUNCTIONS, Printer, sympy_fn
from derivations.engine.numeric.mpseries import nprod, nsum, quad
from derivations.engine.numeric.mpsnap import (
    NotEvaluated,
    cancelled,
    ceiling,
    floor,
    frac,
    heaviside,
    mod,
    relation,
    sign,
)

__all__ = ["compile_mp"]


# --- expectations of non-polynomials ----------------------------------------------------------

def _two_point(low, high, p_high):
    return ((mpmath.mpf(low), 1 - mpmath.mpf(p_high)), (mpmath.mpf(high), mpmath.mpf(p_high)))


# standardized laws (mean 0, variance 1): a support with probabilities, or a density on an interval
DISCRETE = {"rademacher": lambda: _two_point(-1, 1, mpmath.mpf(1) / 2),
            "skewed two-point": lambda: _two_point(-mpmath.mpf(1) / 2, 2, mpmath.mpf(1) / 5)}
def _normal():
    c = 1 / mpmath.sqrt(2 * mpmath.pi)
    return (lambda z: c * mpmath.exp(-z * z / 2)), -mpmath.inf, mpmath.inf


def _uniform():
    c = 1 / (2 * mpmath.sqrt(3))
    return (lambda z: c), -mpmath.sqrt(3), mpmath.sqrt(3)


def _exponential():
    return (lambda z: mpmath.exp(-(z + 1))), -1, mpmath.inf


# each a factory of (density, low, high) at the working precision: the density's constant is
# computed once per integral, not at each of its thousands of nodes (npdf recomputes √(2π))
CONTINUOUS = {"normal": _normal, "uniform": _uniform, "exponential": _exponential}


def expect(f, params, law, indicators=()):
    """E f(X_1, …, X_k) for independent X_i = mean_i + sqrt(var_i) Z_i, Z_i of the standardized
    ``law``."""
    params = [(mpmath.mpmathify(m), mpmath.sqrt(mpmath.mpmathify(v))) for m, v in params]
    if law in DISCRETE:
        support = DISCRETE[law]()
        total = mpmath.mpf(0)
        for combo in _product(support, len(params)):
            weight = mpmath.fprod(p for _, p in combo)
            total += weight * f(*[m + s * z for (m, s), (z, _) in zip(params, combo,
                                                                        strict=True)])
        return total
    if len(params) != 1:
        raise NotEvaluated(f"E of a non-polynomial in {len(params)} random variables under the "
                           f"{law} law: only one is integrated numerically")
    density, lo, hi = CONTINUOUS[law]()
    (m, s), = params
    inds = [(lambda z, g=g: g(m + s * z)) for g in indicators]
    return quad(lambda z: f(m + s * z) * density(z), lo, hi, inds)


def _product(support, k):
    if k == 0:
        yield ()
        return
    for rest in _product(support, k - 1):
        for item in support:
            yield (*rest, item)


HUGE_EXPONENT = 2**64


def power(base, exponent):
    """base ** exponent; a positive base to a huge exponent (a limit's point past a constant of
    500 digits: n = 10^530) as exp(exponent · log base), with the exponent's digits added to
    the logarithm's — mpmath's own square-and-multiply took a minute there."""
    if (isinstance(base, mpmath.mpf) and base > 0 and isinstance(exponent, mpmath.mpf)
            and abs(exponent) > HUGE_EXPONENT):
        with mpmath.extraprec(int(mpmath.log(abs(exponent), 2)) + 10):
            value = mpmath.exp(exponent * mpmath.log(base))
        return +value
    return base**exponent


def derivative(f, x, order, _at_point):
    """The ``order``-th derivative of ``f`` at ``x`` by differences (``mpmath.diff``, which works
    at more digits than the result keeps: its error shrinks with the precision as rounding does).
    ``_at_point`` is the body's value at ``x``, already evaluated with its scales recorded."""
    return mpmath.diff(f, x, order)


def refuse(why: str):
    raise NotEvaluated(why)


def _terms_traced(fn, lead: int = 0):
    """A jump's reading of a sum (``fn(*lead_args, *terms)``) with the spread of its terms
    recorded, as a sum's is (:func:`derivations.engine.numeric.scales.add`)."""
    def f(*args):
        scales.record_terms(args[lead:])
        return fn(*args)
    f.__wrapped__ = fn
    return f


class _Runtime:
    mpmath = mpmath
    fn = FUNCTIONS
    # the operators' insides are not traced, but their every evaluation is counted
    # (derivations.engine.numeric.scales)
    quad, nsum, nprod, limit, expect = (staticmethod(scales.opaque(f))
                                        for f in (quad, nsum, nprod, limit, expect))
    limit_phases = staticmethod(scales.opaque(limit_phases))
    derivative = staticmethod(scales.opaque(derivative))
    floor, ceiling, frac, mod = (staticmethod(floor), staticmethod(ceiling), staticmethod(frac),
                                 staticmethod(mod))
    sympy_fn, power = staticmethod(sympy_fn), staticmethod(scales.power(power))
    refuse = staticmethod(refuse)
    sign, cancelled = staticmethod(_terms_traced(sign)), staticmethod(_terms_traced(cancelled))
    heaviside = staticmethod(_terms_traced(heaviside, 1))
    relation = staticmethod(_terms_traced(relation, 1))
    add, t, tick = staticmethod(scales.add), scales.FUNCTIONS, staticmethod(scales.tick)


def compile_mp(args, expr):
    """A function of ``args`` (plain symbols) computing ``expr`` with mpmath at the current
    precision."""
    # docstring_limit=0: the docstring lambdify writes holds str(expr), which cost more than
    # the code itself on the concrete forms of matrices
    return sp.lambdify(args, expr, modules=[{"_rt": _Runtime}, "mpmath"], printer=Printer,
                       dummify=False, docstring_limit=0)
