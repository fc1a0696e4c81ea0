"""Integrals, sums and products by definition, with numbers (mpmath), at the working precision of
the ladder: what the numeric route's compiled forms (:mod:`derivations.engine.numeric.mpnum`) call
in place of SymPy's closing algorithms.

* an integral — tanh-sinh quadrature (``mpmath.quad``), split where the integrand has a kink or a
  jump (Abs, Max, floor, a Piecewise condition …), its degree raised while that brings its error
  estimate down towards the working precision, accepted only when that estimate is small;
* an infinite sum — the terms must tend to 0 (and, all of one sign, decay faster than 1/n^1.1);
  then Richardson extrapolation (one sign) or Shanks' (changing signs), each accepted only when
  it gives the same value started 20 terms later (Richardson is confidently wrong on a tail in
  powers that are not integers, Σ 1/n^1.5, where Levin's transform is tried next, under the
  same test); a finite one term by term,
  empty when its upper bound is below its lower bound (the textbook convention);
* a product — through the sum of the logarithms of its factors, which must tend to 1.

What cannot be decided raises :class:`~derivations.engine.mpsnap.NotEvaluated`.
"""

from __future__ import annotations

import itertools

import mpmath
from mpmath.calculus.quadrature import GaussLegendre, TanhSinh

from derivations.engine.numeric.mpsnap import NotEvaluated, _eps, floor

__all__ = ["MAX_DIRECT", "nprod", "nsum", "quad"]


# --- integrals --------------------------------------------------------------------------------

GRID = 48


def _breaks(lo, hi, indicators) -> list:
    """Points in (lo, hi) where an indicator (the sign of a kink's argument, the floor of a
    jump's) changes, each found by bisection to working precision."""
    if not indicators or not (mpmath.isfinite(lo) and mpmath.isfinite(hi)):
        return []
    out = []
    xs = [lo + (hi - lo) * k / GRID for k in range(GRID + 1)]
    for ind in indicators:
        def state(t, ind=ind):
            try:
                v = ind(t)
                return (mpmath.sign(v[0]), floor(v[1])) if isinstance(v, tuple) else \
                    mpmath.sign(v)
            except (ValueError, ZeroDivisionError, ArithmeticError):
                return None
        states = [state(t) for t in xs]
        for (a, sa), (b, sb) in itertools.pairwise(zip(xs, states, strict=True)):
            if sa == sb:
                continue
            for _ in range(mpmath.mp.prec):
                m = (a + b) / 2
                if state(m) == sa:
                    a = m
                else:
                    b = m
            out.append((a + b) / 2)
    return sorted(set(out))


# The ladder of precisions tells rounding noise from a real difference by its shrinking from one
# rung to the next.  A quadrature's truncation error shrinks only if its degree rises with the
# precision: at 90 and at 130 digits mpmath's own degree for ∫₀^∞ e^(−pt) dt, p ≈ 2·10⁻¹², left
# the same error, 10⁻⁶⁸ of the value, at both, and a true claim "failed".  mpmath stops at an
# absolute error of 2^−prec, which a large integral never reaches: divided by its size, its own
# stopping rule becomes relative, and the degree is raised while the error estimate falls.  An
# estimate that stops falling is the noise of the integrand near a singular end (1/√t at 0 keeps
# about half the digits), which does shrink with the precision.
QUAD_DIGITS = 0.9  # the fraction of the working digits the error estimate should reach
QUAD_CLOSE = 0.25  # the fraction it must reach for the integral to be accepted at all
QUAD_MORE_DEGREES = 4  # degrees past mpmath's guess (each doubles the nodes)
QUAD_GAIN = mpmath.mpf(10) ** 3  # how much a degree must improve the estimate to try the next
_TANH_SINH = TanhSinh(mpmath.mp)  # mpmath.quad's default rule, asked for its degree only


def _quad_once(f, points, scale, degree):
    value, error = mpmath.quad(lambda t: f(t) / scale, points, error=True, maxdegree=degree)
    return value * scale, error * scale


def _size(f, points):
    """The integral's size to 15 digits (1 if smaller, or if it cannot be had), cheap beside
    the working precision's."""
    try:
        with mpmath.workdps(15):
            rough = abs(mpmath.quad(f, points))
    except (ValueError, ZeroDivisionError, ArithmeticError):
        return mpmath.mpf(1)
    return max(mpmath.mpf(1), rough) if mpmath.isfinite(rough) else mpmath.mpf(1)


def quad(f, lo, hi, indicators=(), omega=0):
    """∫_lo^hi f; ``omega``, when not 0, is the one angular frequency of the integrand's sines
    and cosines: an integral to ∞ the quadrature cannot converge on (∫₀^∞ sin x/x) is then
    summed half-period by half-period (:func:`_oscillating`)."""
    lo, hi = mpmath.mpmathify(lo), mpmath.mpmathify(hi)
    if lo == hi:
        return mpmath.mpf(0)
    sign = 1
    if lo > hi:
        lo, hi, sign = hi, lo, -1
    try:
        return sign * _quad(f, lo, hi, indicators)
    except NotEvaluated:
        if not omega or indicators or not (mpmath.isinf(lo) or mpmath.isinf(hi)):
            raise
    if mpmath.isinf(lo) and mpmath.isinf(hi):
        return sign * (_oscillating(f, 0, omega) + _oscillating(lambda t: f(-t), 0, omega))
    if mpmath.isinf(lo):
        return sign * _oscillating(lambda t: f(-t), -hi, omega)
    return sign * _oscillating(f, lo, omega)


def _oscillating(f, lo, omega):
    """∫_lo^∞ f for an integrand oscillating with angular frequency omega: the integrals over
    the half periods [kπ/ω, (k+1)π/ω] are the terms of a series.  They must tend to 0 (∫₀^∞ sin x
    diverges and is refused) and alternate in sign; they are summed by Cohen, Rodriguez
    Villegas and Zagier's acceleration from two starts RESTART terms apart, which must agree to
    half the working digits (mpmath's own ``quadosc`` returns its best guess either way)."""
    half = mpmath.pi / abs(mpmath.mpmathify(omega))
    first = mpmath.ceil(lo / half)
    head = _quad(f, lo, first * half, ()) if first * half > lo else mpmath.mpf(0)
    known: dict = {}
    rule = _Legendre(half)

    def piece(k):
        k = int(k)
        if k not in known:  # the first by tanh-sinh, for a singular end (sin x/x^1.5 at 0)
            a = (first + k) * half
            known[k] = _quad(f, a, a + half, ()) if k == 0 else rule(f, a)
        return known[k]
    terms = int(ALTERNATING_TERMS * mpmath.mp.dps) + 10
    near = [piece(k) for k in range(terms + RESTART)]
    far = [piece(10**6 + k) for k in range(2)]
    if any(isinstance(t, mpmath.mpc) for t in near + far):
        raise NotEvaluated("an oscillating integral with complex values")
    if max(abs(t) for t in far) > mpmath.mpf("1e-4") * max(1, *(abs(t) for t in near)):
        raise NotEvaluated("the integral was not evaluated: its integrals over half periods "
                           "do not tend to 0 (divergent, or decaying too slowly to tell)")
    # ∫ sin x (1/(x + 1) + 10^−9) diverges though its half periods are small at 10^6
    try:
        _keeps_falling(lambda n: max(abs(mpmath.quad(f, [(first + k) * half,
                                                          (first + k + 1) * half]))
                                     for k in (n, n + 1)),
                       max(1, *(abs(t) for t in near)), False)
    except NotEvaluated:
        raise NotEvaluated("the integral was not evaluated: its integrals over half periods "
                           "do not keep falling far out (divergent, or decaying too slowly "
                           "to tell)") from None
    if not all(a * b < 0 for a, b in itertools.pairwise(near)):
        # summing those by Richardson's or Levin's extrapolation took a minute at 50 digits
        raise NotEvaluated("an oscillating integral whose integrals over half periods do not "
                           "alternate in sign is not evaluated")
    value = _accelerated(piece, 0, lambda g, a: _alternating([g(a + k) for k in range(terms)]))
    if value is None:
        raise NotEvaluated("the oscillating integral was not summed: its half periods' sums "
                           "from two starts disagree")
    return head + value


class _Legendre:
    """∫ over [a, a + width] by Gauss–Legendre's rule with nodes computed once for all the
    pieces: an integrand without kinks is analytic on a half period, where the rule gains
    digits fastest (96 nodes for 210 digits of ∫ sin x/x over [π, 2π], 30 times faster than
    mpmath's tanh-sinh).  A value is accepted when the rule at the next lower degree agrees with
    it to QUAD_DIGITS of the working digits; the degree found is where the next piece starts."""

    DEGREES = range(2, 10)  # 3·2^(m−1) nodes at degree m

    def __init__(self, width):
        self.width, self.degree, self.nodes = width, 4, {}

    def _at(self, f, a, degree):
        key = (degree, mpmath.mp.prec)
        if key not in self.nodes:
            self.nodes[key] = _GAUSS.get_nodes(0, self.width, degree, mpmath.mp.prec)
        return mpmath.fdot((w, f(a + t)) for t, w in self.nodes[key])

    def __call__(self, f, a):
        tol = mpmath.mpf(10) ** (-QUAD_DIGITS * mpmath.mp.dps)
        below = self._at(f, a, self.degree - 1)
        for degree in range(self.degree, self.DEGREES.stop):
            value = self._at(f, a, degree)
            if abs(value - below) <= tol * max(1, abs(value)):
                self.degree = degree
                return value
            below = value
        raise NotEvaluated("the integral over a half period did not converge (Gauss–Legendre "
                           f"rule of degree {self.DEGREES.stop - 1})")


_GAUSS = GaussLegendre(mpmath.mp)
ALTERNATING_TERMS = 1.31  # per working digit: (3 + √8)^n gains log10(5.83) = 0.77 digit a term


def _alternating(terms):
    """Σ terms, whose signs alternate, by Cohen, Rodriguez Villegas and Zagier's algorithm 1
    (Experimental Math. 9, 2000): for the moments of a positive measure its error after n terms
    is about 5.83^−n of the sum; for other terms the two starts above are the check."""
    n = len(terms)
    with mpmath.extradps(10):
        d = (3 + mpmath.sqrt(8)) ** n
        d = (d + 1 / d) / 2
        b, c, total = mpmath.mpf(-1), -d, mpmath.mpf(0)
        for k, t in enumerate(terms):
            c = b - c
            total += c * abs(t)
            b = (k + n) * (k - n) * b / ((k + mpmath.mpf(1) / 2) * (k + 1))
        value = mpmath.sign(terms[0]) * total / d
    return +value


def _quad(f, lo, hi, indicators):
    points = [lo, *_breaks(lo, hi, indicators), hi]
    guess = _TANH_SINH.guess_degree(mpmath.mp.prec)  # the degree mpmath.quad stops at
    value, error = _quad_once(f, points, _size(f, points), guess)

    def within(fraction):
        return error <= mpmath.mpf(10) ** (-fraction * mpmath.mp.dps) * max(1, abs(value))

    degree, scale = guess, max(1, abs(value))
    while (mpmath.isfinite(abs(value)) and within(QUAD_CLOSE) and not within(QUAD_DIGITS)
           and degree < guess + QUAD_MORE_DEGREES):
        degree += 1
        before = error
        value, error = _quad_once(f, points, scale, degree)
        if not error * QUAD_GAIN < before:
            break
    if not mpmath.isfinite(abs(value)) or not within(QUAD_CLOSE):
        raise NotEvaluated(f"the integral over [{mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}] "
                           f"did not converge (quadrature error estimate {mpmath.nstr(error, 3)}"
                           f"): divergent, or too irregular to integrate")
    return value


# --- sums and products ------------------------------------------------------------------------

MAX_DIRECT = 100_000  # a finite sum with more terms than this is extrapolated as a series


def _check_bound(b, what):
    if mpmath.isinf(b):
        return b
    r = mpmath.nint(b)
    if abs(b - r) > _eps() * max(1, abs(b)):
        raise NotEvaluated(f"the {what} bound {mpmath.nstr(b, 10)} of a sum is not an integer")
    return int(r)


def _tail_terms(f, a):
    far = [f(mpmath.mpf(10) ** 6 + r) for r in range(12)]
    farther = [f(mpmath.mpf(10) ** 7 + r) for r in range(12)]
    return far, farther


# Where the terms are seen to keep falling, from N to 10N.  A divergent remainder smaller than
# the converging part up to 10^6 — Σ (−1)^n (1/n + 10^−9), whose extrapolations agree on the
# Abel sum — shows only farther out; one smaller than the terms at 10^97, or than the digits
# the sizes are compared to (_keeps_falling), is not seen.
FAR = (6, 12, 24, 48, 96)  # N = 10^e
FALL = mpmath.mpf(1) / 2  # terms at 10N at most this part of those at N: faster than n^-0.3
ONE_SIGN_DECADE = 1.1  # digits a decade of one-sign terms must lose: 1/n^p, p > 1.1


def _keeps_falling(size, scale, one_sign: bool, depth: int = 1) -> None:
    """``size(N)`` is the terms' (or half periods') largest magnitude near N.  It must fall
    from N to 10N at every N of FAR — for one-sign terms by ONE_SIGN_DECADE digits (Σ 1/n^1.05
    and 1/n diverge or converge too slowly to tell), otherwise to at most FALL — or the series
    is not evaluated.  The sizes are taken at ``depth`` times the working digits, with twice
    the digits of N added, so N + r is exact; sizes below ``depth`` times the working digits
    of ``scale`` (the first terms') are rounding — Σ log(1 + 1/2m) + log(1 − 1/(2m + 1)), each
    0 — and not compared."""
    floor = _eps() ** depth * scale
    for e in FAR:
        n = 10**e
        with mpmath.workdps(depth * mpmath.mp.dps + 2 * e + 12):
            here, there = size(n), size(10 * n)
        if here <= floor and there <= floor:
            continue
        if one_sign:
            falls = there == 0 or (here != 0 and mpmath.log10(here / there) >= ONE_SIGN_DECADE)
        else:
            falls = there <= FALL * here
        if not falls:
            raise NotEvaluated(
                f"the series does not converge fast enough to be summed: its terms near 10^"
                f"{e} do not fall {'like 1/n^1.1' if one_sign else 'by half'} "
                f"over a decade (divergent, or too slow to tell)")


def _series(f, a, period: int = 1):
    """Σ_{n≥a} f(n), or NotEvaluated when the terms do not show convergence.  Terms with a
    period (Mod(n, 2)/n²) are summed a whole period at a time, then extrapolated."""
    near = [abs(f(a + r)) for r in range(12)]
    far, farther = _tail_terms(f, a)
    if any(isinstance(t, mpmath.mpc) for t in far + farther):
        raise NotEvaluated("a series with complex terms")
    scale = max([*near, mpmath.mpf(1)])
    if max(abs(t) for t in farther) > mpmath.mpf("1e-4") * scale:
        raise NotEvaluated("the series diverges: its terms do not tend to 0")
    signs = {mpmath.sign(t) for t in far + farther if t != 0}
    # terms are cheap: a divergent remainder is looked for down to twice the working digits
    _keeps_falling(lambda n: max(abs(f(mpmath.mpf(n) + r)) for r in range(12)), scale,
                   len(signs) <= 1, depth=2)
    if period > 1:  # the terms tend to 0, so whole periods may be summed first: Σ(−1)^n is not 0
        # (nor is Σ (−1)^n (1/n + 10^−9), whose pairs cancel the remainder: seen above)
        return _series(lambda m: mpmath.fsum(f(a + m * period + r) for r in range(period)), 0)
    if len(signs) <= 1:
        # partial sums with a tail in powers that are not integers (1/n^1.5, log n/n²,
        # 1/(n² + √n)) fool Richardson: the two starts disagree, and Levin's transform, made
        # for such tails, is tried.  Euler–Maclaurin sums them too, but a difference confirmed
        # up the whole ladder (to 210 digits) took over 20 minutes with it: not used
        value = _accelerated(f, a, _nsum("richardson"))
        if value is None:
            value = _accelerated(f, a, _levin)
    else:
        value = _accelerated(f, a, _nsum("shanks"))
    if value is None:
        raise NotEvaluated("the series was not summed: its extrapolations from two starting "
                           "points disagree (its partial sums follow no expansion they know)")
    return value


RESTART = 20  # terms added directly before the second extrapolation


def _nsum(method: str):
    return lambda f, a: mpmath.nsum(f, [a, mpmath.inf], method=method)


LEVIN_BATCH = 10  # terms between two estimates of Levin's transform
LEVIN_TERMS = 3  # times the working digits: the most terms it is given to settle


def _levin(f, a):
    """Σ_{n≥a} f(n) by Levin's u-transform, at four times the working precision (it cancels
    heavily), once two estimates LEVIN_BATCH terms apart agree to the working precision; None
    if they never do, or a term is 0 (its weights divide by the terms).  It is exact for tails
    in any powers of 1/n (1/n^1.5, and 1/√n − 1/√(n+1)); on log n/n² it does not settle."""
    tol, most = _eps() / 2**10, LEVIN_TERMS * mpmath.mp.dps
    value = None
    with mpmath.workprec(4 * (mpmath.mp.prec + 10)):
        transform = mpmath.levin(method="levin", variant="u")
        partial, total = [], mpmath.mpf(0)
        for k in range(most):
            total += f(mpmath.mpf(a + k))
            partial.append(total)
            if (k + 1) % LEVIN_BATCH or k < LEVIN_BATCH:
                continue
            try:
                estimate, change = transform.update_psum(partial)
            except ValueError:  # "zero weight"
                return None
            if change <= tol:
                value = estimate
                break
    return None if value is None else +value


def _accelerated(f, a, summed):
    """Σ_{n≥a} f(n) by ``summed``, or None unless it gives the same value started RESTART terms
    later (those terms added directly) to half the working digits.  An extrapolation that
    assumes the wrong form of the tail is wrong by an amount that depends on where it starts
    (Richardson on Σ 1/√n − 1/√(n+1) gives 0.947 from n = 1, not 1), so two starts that agree
    are the evidence the value is the sum's."""
    terms = [f(mpmath.mpf(a + r)) for r in range(RESTART)]
    if not all(mpmath.isfinite(t) for t in terms):
        return mpmath.fsum(terms)  # a term that is not finite: the value says so, as it is
    value = summed(f, a)
    if value is None or not mpmath.isfinite(value):
        return value
    later = summed(f, a + RESTART)
    if later is None:
        return None
    again = mpmath.fsum(terms) + later
    if abs(value - again) <= mpmath.mpf(10) ** (-(mpmath.mp.dps // 2)) * max(1, abs(value)):
        return value
    return None


def nsum(f, lo, hi, period: int = 1):
    lo, hi = _check_bound(lo, "lower"), _check_bound(hi, "upper")
    if mpmath.isinf(lo) and mpmath.isinf(hi):
        return _series(f, 0, period) + _series(lambda n: f(-n), 1, period)
    if mpmath.isinf(lo):
        return _series(lambda n: f(-n), -hi, period) if lo < 0 else mpmath.mpf(0)
    if mpmath.isinf(hi):
        return _series(f, lo, period) if hi > 0 else mpmath.mpf(0)
    if hi < lo:  # the textbook convention: an empty sum
        return mpmath.mpf(0)
    if hi - lo < MAX_DIRECT:
        return mpmath.fsum(f(mpmath.mpf(k)) for k in range(lo, hi + 1))
    # too long to add term by term: terms that tend to 0 are the difference of two tails, each
    # a series held to the tests above (Σ_{k=1}^{10^6} 1/(k(k+1)) = 1 − 1/(10^6 + 1))
    try:
        return _series(f, lo, period) - _series(f, hi + 1, period)
    except NotEvaluated as exc:
        raise NotEvaluated(f"a sum of {hi - lo + 1} terms is too long to add term by term, and "
                           f"not the difference of two series ({exc})") from exc


def nprod(f, lo, hi, period: int = 1):
    lo, hi = _check_bound(lo, "lower"), _check_bound(hi, "upper")
    if not mpmath.isinf(hi) and not mpmath.isinf(lo):
        if hi < lo:
            return mpmath.mpf(1)
        if hi - lo >= MAX_DIRECT:
            raise NotEvaluated(f"a product of {hi - lo + 1} factors is too long")
        return mpmath.fprod(f(mpmath.mpf(k)) for k in range(lo, hi + 1))
    if mpmath.isinf(lo) or hi < 0:
        raise NotEvaluated("a product infinite towards -∞ is not evaluated")
    start = lo + 12
    head = mpmath.fprod(f(mpmath.mpf(k)) for k in range(lo, start))
    far = [f(mpmath.mpf(10) ** 6 + r) for r in range(12)]
    if any(isinstance(t, mpmath.mpc) or t <= 0 for t in far):
        raise NotEvaluated("an infinite product whose factors do not tend to 1")
    return head * mpmath.exp(_series(lambda n: mpmath.log(f(n)), start, period))
