"""The numeric route's own evaluation of what SymPy would otherwise close: by definition, with
numbers (mpmath), at the working precision of the ladder.

* an integral — tanh-sinh quadrature (``mpmath.quad``), split where the integrand has a kink or a
  jump (Abs, Max, floor, a Piecewise condition …), its degree raised while that brings its error
  estimate down towards the working precision, accepted only when that estimate is small;
* an infinite sum — the terms must tend to 0 (and, all of one sign, decay faster than 1/n^1.1);
  then Richardson extrapolation (one sign) or Shanks' (changing signs); a finite one term by term,
  empty when its upper bound is below its lower bound (the textbook convention);
* a product — through the sum of the logarithms of its factors, which must tend to 1;
* a limit — the function at points ever closer (``10^(D/3)`` at precision D; for an integer
  variable every residue of the period its arithmetic parts show, :mod:`periods`), accepted only
  when the values there and at ``10^(D/6)`` agree: an oscillating or logarithmically slow limit
  is not found, and says so, and so is one that a thin set of points decides;
* E of a non-polynomial — against the law's distribution: exact enumeration of the two-point
  laws, quadrature against the density of the continuous ones (one random variable).

What cannot be decided raises :class:`NotEvaluated`; the numeric route then treats the point as
undefined (replaced, reported), never as a difference.  ``floor``, ``ceiling``, ``frac`` and
``Mod`` snap an argument within rounding of an integer to it, so that ⌊i/5⌋ at i = 5 is 1.
"""

from __future__ import annotations

import itertools
import random

import mpmath
import sympy as sp
from mpmath.calculus.quadrature import TanhSinh
from sympy.printing.pycode import MpmathPrinter

from derivations.engine.periods import (
    BOUNDED,
    UNBOUNDED,
    Unreadable,
    critical_factors,
    limit_trap,
    period_of,
    phased,
)
from derivations.engine.stochastic import LAWS

__all__ = ["NotEvaluated", "compile_mp"]


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


def quad(f, lo, hi, indicators=()):
    lo, hi = mpmath.mpmathify(lo), mpmath.mpmathify(hi)
    if lo == hi:
        return mpmath.mpf(0)
    sign = 1
    if lo > hi:
        lo, hi, sign = hi, lo, -1
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
    return sign * value


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
    if period > 1:  # the terms tend to 0, so whole periods may be summed first: Σ(−1)^n is not 0
        return _series(lambda m: mpmath.fsum(f(a + m * period + r) for r in range(period)), 0)
    signs = {mpmath.sign(t) for t in far + farther if t != 0}
    if len(signs) <= 1:
        # one sign: Richardson is sound for terms decaying like n^-p, p > 1; 1/n and slower
        # are divergent, and n^-1.05 converges too slowly to tell
        a6, a7 = sum(abs(t) for t in far), sum(abs(t) for t in farther)
        if a7 != 0 and a6 != 0 and mpmath.log10(a6 / a7) < 1.1:
            raise NotEvaluated("the series does not converge fast enough to be summed (terms "
                               "decay like 1/n^p with p ≤ 1.1): divergent, or too slow")
        return mpmath.nsum(f, [a, mpmath.inf], method="richardson")
    return mpmath.nsum(f, [a, mpmath.inf], method="shanks")


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
    raise NotEvaluated(f"a sum of {hi - lo + 1} terms is too long to add term by term")


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


# --- limits -----------------------------------------------------------------------------------

OFFSETS = (0, mpmath.mpf(1) / mpmath.pi, mpmath.sqrt(2) - 1)


# offsets of an integer variable's values near ∞ beyond its first 12 and its known period's
# residues: scattered, so that a jump with a period the expression does not show (or over 2000)
# is met in most of its classes; fixed, so that every run draws the same
SCATTERED = tuple(sorted(random.Random(2026).sample(range(12, 10**6), 24)))


def limit_scale(body: sp.Basic) -> int:
    """The decimal digits of the largest or smallest constant in ``body`` (10^−500: 500): values
    near the point must reach past it before they show the limit ((1 − 10^−500)^n is 1 at every
    n below 10^400)."""
    digits = [len(str(abs(int(part)))) - 1 for r in body.atoms(sp.Rational)
              for part in (r.p, r.q) if part not in (0, 1, -1)]
    digits += [abs(int(mpmath.floor(mpmath.log10(abs(mpmath.mpf(f)))))) for f in
               body.atoms(sp.Float) if f != 0]
    return max(digits, default=0)


def _near(x0, direction, integer, depth, period=1):
    if mpmath.isinf(x0):
        big = mpmath.mpf(10) ** depth
        if integer:
            # every residue of the period: ⌊n/100⌋ − ⌊(n−20)/100⌋ is 1 only for n mod 100 < 20
            pts = [big + r for r in sorted({*range(12), *range(period), *SCATTERED})]
        else:
            pts = [big * (1 + u) for u in OFFSETS]
        return [p if x0 > 0 else -p for p in pts]
    if integer:
        raise NotEvaluated("a limit of an integer variable at a finite point")
    h = mpmath.mpf(10) ** -depth
    sides = (1, -1) if direction == 0 else (direction,)
    return [x0 + s * h * (1 + u) for s in sides for u in OFFSETS]


def limit(f, x0, direction, integer, period=1, scale=0):
    x0 = mpmath.mpmathify(x0)
    d = mpmath.mp.dps
    if scale >= d // 6:
        raise NotEvaluated(f"the limit was not found: a constant of {scale} digits is beyond the "
                           f"values near the point at {d} digits")
    values = []
    for depth in (d // 3, d // 6):
        pts = _near(x0, direction, integer, depth, period)
        values.append([f(p) for p in pts])
    top, mid = values
    center = top[0]
    if not all(mpmath.isfinite(abs(v)) for v in top + mid):
        raise NotEvaluated("the limit is not finite here")
    spread = max(abs(v - center) for v in top + mid)
    nearer, farther = max(abs(v) for v in top), max(abs(v) for v in mid)
    if abs(center) < 1 and nearer > 2 * farther:
        # values near 0 but growing towards the point (e^(−10^500/n) at n = 10^16 and 10^8): the
        # point is not near enough for the limit, whatever it is
        raise NotEvaluated("the limit was not found: the values still grow towards the point")
    if spread > mpmath.mpf(10) ** (-d / 25) * max(1, abs(center)):
        raise NotEvaluated(f"the limit was not found: values near the point still move by "
                           f"{mpmath.nstr(spread, 3)} (oscillating, or converging too slowly)")
    return center


PHASES = {BOUNDED: (-1, -mpmath.mpf(1) / 2, 0, mpmath.mpf(1) / 3, 1),
          "unit": (0, mpmath.mpf(1) / 3, mpmath.mpf(1) / 2, 1)}
MAX_PHASES = 2
PHASE_GRID = 64  # steps of the finer grid over a phase's range
CRITICAL_GRID = 128  # steps of the scan for a critical factor's roots
MAX_CRITICAL = 16


def _critical_phases(critical, moving, kinds, count) -> list[list]:
    """Phase assignments where a critical factor (:func:`periods.critical_factors`) is 0: each
    moving part's range scanned, the others at their listed phases, each sign change bisected."""
    out = []
    for h in critical:
        for k in moving:
            others = [m for m in moving if m != k]
            low, high = PHASES[kinds[k]][0], PHASES[kinds[k]][-1]
            for combo in itertools.product(*[PHASES[kinds[m]] for m in others]):
                base = [None] * count
                for m, u in zip(others, combo, strict=True):
                    base[m] = mpmath.mpf(u)

                def at(u, base=base, k=k, h=h):
                    us = list(base)
                    us[k] = u
                    return mpmath.re(h(*us))
                grid = [low + (high - low) * mpmath.mpf(j) / CRITICAL_GRID
                        for j in range(CRITICAL_GRID + 1)]
                signs = [mpmath.sign(at(u)) for u in grid]
                for j in range(CRITICAL_GRID):
                    if signs[j] == signs[j + 1] or 0 in (signs[j], signs[j + 1]):
                        if signs[j] == 0:
                            out.append([*base[:k], grid[j], *base[k + 1:]])
                        continue
                    a, b = grid[j], grid[j + 1]
                    for _ in range(mpmath.mp.prec):
                        mid = (a + b) / 2
                        if mpmath.sign(at(mid)) == signs[j]:
                            a = mid
                        else:
                            b = mid
                    out.append([*base[:k], (a + b) / 2, *base[k + 1:]])
    return out[:MAX_CRITICAL]


def limit_phases(f, cycles, kinds, x0, direction, integer, period=1, scale=0, critical=()):
    """The limit of f(x, u_1, …) where each oscillating part that runs through more than one
    cycle near the point is set to each phase u of its range in turn (:mod:`periods`): found
    only when it is the same at every phase — ends and 0 included, and where a critical factor
    vanishes (n²(sin² n − 0.49)² at sin n = 0.7)."""
    x0 = mpmath.mpmathify(x0)
    d = mpmath.mp.dps
    pts = [*_near(x0, direction, integer, d // 3, period),
           *_near(x0, direction, integer, d // 6, period)]
    moving = []
    for k, c in enumerate(cycles):
        turns = [mpmath.re(c(p)) for p in pts]
        if max(turns) - min(turns) > 1:
            moving.append(k)
    if any(kinds[k] == UNBOUNDED for k in moving):
        raise NotEvaluated("the limit was not found: an unbounded oscillating part (tan, sec …)")
    if len(moving) > MAX_PHASES:
        raise NotEvaluated(f"the limit was not found: {len(moving)} oscillating parts, more "
                           f"than the {MAX_PHASES} whose phases are evaluated")
    results = []
    for combo in itertools.product(*[PHASES[kinds[k]] for k in moving]):
        us = [None] * len(cycles)
        for k, u in zip(moving, combo, strict=True):
            us[k] = mpmath.mpf(u)
        results.append(limit(lambda t, us=us: f(t, *us), x0, direction, integer, period, scale))
    for us in _critical_phases(critical, moving, kinds, len(cycles)):
        results.append(limit(lambda t, us=us: f(t, *us), x0, direction, integer, period, scale))
    center = results[0]
    # and a finer grid of phases at the nearest point, for a window the listed ones miss
    # (Max(0, 1 − 10|sin n − 0.7|) is 0 at each of them)
    for k in moving:
        low, high = PHASES[kinds[k]][0], PHASES[kinds[k]][-1]
        for step in range(PHASE_GRID + 1):
            us = [None] * len(cycles)
            for other in moving:
                us[other] = mpmath.mpf(0)
            us[k] = low + (high - low) * mpmath.mpf(step) / PHASE_GRID
            results.append(f(pts[0], *us))
    if any(abs(r - center) > mpmath.mpf(10) ** (-d / 25) * max(1, abs(center)) for r in results):
        raise NotEvaluated("the limit was not found: it depends on the phase of an oscillating "
                           "part, which comes back to every value of its range")
    return center


# --- expectations of non-polynomials ----------------------------------------------------------

def _two_point(low, high, p_high):
    return ((mpmath.mpf(low), 1 - mpmath.mpf(p_high)), (mpmath.mpf(high), mpmath.mpf(p_high)))


# standardized laws (mean 0, variance 1): a support with probabilities, or a density on an interval
DISCRETE = {"rademacher": lambda: _two_point(-1, 1, mpmath.mpf(1) / 2),
            "skewed two-point": lambda: _two_point(-mpmath.mpf(1) / 2, 2, mpmath.mpf(1) / 5)}
CONTINUOUS = {
    "normal": (lambda z: mpmath.npdf(z), -mpmath.inf, mpmath.inf),
    "uniform": (lambda z: 1 / (2 * mpmath.sqrt(3)), -mpmath.sqrt(3), mpmath.sqrt(3)),
    "exponential": (lambda z: mpmath.exp(-(z + 1)), -1, mpmath.inf),
}


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
    density, lo, hi = CONTINUOUS[law]
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


# --- compiling --------------------------------------------------------------------------------

_FUNCTIONS = {"polygamma": lambda m, x: mpmath.polygamma(m, x), "zeta": mpmath.zeta,
              "LambertW": lambda x, k=0: mpmath.lambertw(x, int(k)), "Si": mpmath.si,
              "Ci": mpmath.ci, "harmonic": mpmath.harmonic, "lerchphi": mpmath.lerchphi,
              "expint": mpmath.expint, "Ei": mpmath.ei, "fibonacci": mpmath.fibonacci,
              "li": mpmath.li, "digamma": mpmath.digamma, "dirichlet_eta": mpmath.altzeta,
              "polylog": mpmath.polylog, "KroneckerDelta": lambda a, b: int(_snap(a) == _snap(b))}


def kinks(body) -> list:
    """The arguments whose sign or integer part decides a piece of ``body``."""
    out = []
    for node in sp.preorder_traversal(body):
        if isinstance(node, sp.Abs | sp.sign | sp.Heaviside):
            out.append(node.args[0])
        elif isinstance(node, sp.Min | sp.Max) and len(node.args) == 2:
            out.append(node.args[0] - node.args[1])
        elif isinstance(node, sp.Piecewise):
            # a condition x < π | y > e jumps where either side of either relation meets
            out += [r.lhs - r.rhs for _, c in node.args if isinstance(c, sp.Basic)
                    for r in ((c,) if isinstance(c, sp.core.relational.Relational)
                              else c.atoms(sp.core.relational.Relational))]
        elif isinstance(node, sp.floor | sp.ceiling | sp.frac):
            out.append(("floor", node.args[0]))
        elif isinstance(node, sp.Mod):
            out.append(("floor", node.args[0] / node.args[1]))
    return out


class _Printer(MpmathPrinter):
    def __init__(self, *args, **kwargs):
        # terms in the order they are stored: sorting them costs most of printing a large form
        super().__init__({"fully_qualified_modules": False, "inline": True, "order": "none",
                          "allow_unknown_functions": True, "strict": False})

    def _lambda(self, var, body):
        return f"(lambda {self._print(var)}: {self._print(body)})"

    def _indicators(self, var, body):
        parts = []
        for k in kinks(body):
            if isinstance(k, tuple):
                parts.append(f"(lambda {self._print(var)}: (1, {self._print(k[1])}))")
            else:
                parts.append(self._lambda(var, k))
        return "(" + "".join(p + ", " for p in parts) + ")"

    def _print_NIntegral(self, e):
        body, v, lo, hi = e.args
        return (f"_rt.quad({self._lambda(v, body)}, {self._print(lo)}, {self._print(hi)}, "
                f"{self._indicators(v, body)})")

    def _print_NSum(self, e):
        body, v, lo, hi = e.args
        return (f"_rt.nsum({self._lambda(v, body)}, {self._print(lo)}, {self._print(hi)}, "
                f"{period_of(body, v)})")

    def _print_NProduct(self, e):
        body, v, lo, hi = e.args
        return (f"_rt.nprod({self._lambda(v, body)}, {self._print(lo)}, {self._print(hi)}, "
                f"{period_of(body, v)})")

    def _print_NLimit(self, e):
        body, v, x0, d = e.args
        period, trap = limit_trap(body, v, bool(x0.is_infinite))
        try:
            body_u, phases = phased(body, v)
        except Unreadable as exc:
            trap = str(exc)
        if trap:
            return f"_rt.refuse({f'the limit was not found: {trap}'!r})"
        tail = (f"{self._print(x0)}, {int(d)}, {bool(v.is_integer)}, {period}, "
                f"{limit_scale(body)}")
        if not phases:
            return f"_rt.limit({self._lambda(v, body)}, {tail})"
        us = ", ".join(self._print(u) for u, _, _ in phases)
        cycles = "[" + ", ".join(self._lambda(v, c) for _, c, _ in phases) + "]"
        kinds = [kind for _, _, kind in phases]
        factors = critical_factors(body_u, v, [u for u, _, _ in phases])
        critical = "[" + ", ".join(f"(lambda {us}: {self._print(h)})" for h in factors) + "]"
        return (f"_rt.limit_phases((lambda {self._print(v)}, {us}: {self._print(body_u)}), "
                f"{cycles}, {kinds!r}, {tail}, critical={critical})")

    def _print_Phase(self, e):
        u, part = e.args
        return f"({self._print(u)} if {self._print(u)} is not None else {self._print(part)})"

    def _print_NExpect(self, e):
        arg, spec = e.args
        law, atoms = LAWS[int(spec.args[0])], spec.args[1:]
        names = ", ".join(self._print(t.args[0]) for t in atoms)
        params = "(" + "".join(f"({self._print(t.args[1])}, {self._print(t.args[2])}), "
                               for t in atoms) + ")"
        inds = "()"
        if len(atoms) == 1:
            inds = self._indicators(atoms[0].args[0], arg)
        return f"_rt.expect((lambda {names}: {self._print(arg)}), {params}, {law!r}, {inds})"

    def _print_Infinity(self, e):
        return "_rt.mpmath.inf"

    def _print_NegativeInfinity(self, e):
        return "(-_rt.mpmath.inf)"

    _in_jump = 0  # depth of jump arguments being printed

    def _terms(self, lhs, rhs=sp.S.Zero):
        """lhs − rhs as the printed terms of a sum, for :func:`cancelled`; every sum inside them
        is cancelled too: at (x, y) = (π, e) to the working precision, (x − π)² + (y − e)²
        cancels in its factors, not in its terms."""
        terms = [*sp.Add.make_args(lhs), *(-t for t in sp.Add.make_args(rhs) if t != 0)]
        self._in_jump += 1
        try:
            return ", ".join(self._print(t) for t in terms)
        finally:
            self._in_jump -= 1

    def _print_Add(self, e, order=None):
        if not self._in_jump:
            return super()._print_Add(e, order=order)
        return f"_rt.cancelled({', '.join(self._print(t) for t in e.args)})"

    def _print_sign(self, e):
        return f"_rt.sign({self._terms(e.args[0])})"

    def _print_Heaviside(self, e):
        at_zero = e.args[1] if len(e.args) > 1 else sp.S.Half
        return f"_rt.heaviside({self._print(at_zero)}, {self._terms(e.args[0])})"

    def _print_Relational(self, e):
        if e.rel_op not in _RELATIONS:
            return super()._print_Relational(e)
        return f"_rt.relation({e.rel_op!r}, {self._terms(e.lhs, e.rhs)})"

    def _print_floor(self, e):
        return f"_rt.floor({self._print(e.args[0])})"

    def _print_ceiling(self, e):
        return f"_rt.ceiling({self._print(e.args[0])})"

    def _print_frac(self, e):
        return f"_rt.frac({self._print(e.args[0])})"

    def _print_Mod(self, e):
        return f"_rt.mod({self._print(e.args[0])}, {self._print(e.args[1])})"

    def _print_Function(self, e):
        name = type(e).__name__
        args = ", ".join(self._print(a) for a in e.args)
        if name in _FUNCTIONS:
            return f"_rt.fn[{name!r}]({args})"
        if not hasattr(mpmath, name) or name not in self.known_functions:
            # a function of the claim's own (a sp.Function subclass that evaluates at numbers):
            # SymPy's class itself, at numbers of the working precision
            key = f"{name}_{id(type(e))}"
            _CLASSES[key] = type(e)
            return f"_rt.sympy_fn({key!r}, {args})"
        return super()._print_Function(e)

    def _print_KroneckerDelta(self, e):
        return self._print_Function(e)


_CLASSES: dict[str, type] = {}


def sympy_fn(key: str, *args):
    value = _CLASSES[key](*[sp.Float(a, mpmath.mp.dps) if isinstance(a, mpmath.mpf) else
                            sp.sympify(a, strict=True) for a in args]).evalf(mpmath.mp.dps)
    if isinstance(value, sp.Float):
        return mpmath.mpf(value._to_mpmath(mpmath.mp.prec))
    return mpmath.mpmathify(complex(value))


def refuse(why: str):
    raise NotEvaluated(why)


class _Runtime:
    mpmath = mpmath
    fn = _FUNCTIONS
    quad, nsum, nprod, limit, expect = (staticmethod(quad), staticmethod(nsum),
                                        staticmethod(nprod), staticmethod(limit),
                                        staticmethod(expect))
    floor, ceiling, frac, mod = (staticmethod(floor), staticmethod(ceiling), staticmethod(frac),
                                 staticmethod(mod))
    sympy_fn = staticmethod(sympy_fn)
    refuse, limit_phases = staticmethod(refuse), staticmethod(limit_phases)
    sign, heaviside, relation = staticmethod(sign), staticmethod(heaviside), staticmethod(relation)
    cancelled = staticmethod(cancelled)


for _name in ("polygamma", "zeta", "LambertW", "Si", "Ci", "harmonic", "lerchphi", "expint", "Ei",
              "fibonacci", "li", "digamma", "dirichlet_eta", "polylog"):
    setattr(_Printer, f"_print_{_name}", _Printer._print_Function)


def compile_mp(args, expr):
    """A function of ``args`` (plain symbols) computing ``expr`` with mpmath at the current
    precision."""
    return sp.lambdify(args, expr, modules=[{"_rt": _Runtime}, "mpmath"], printer=_Printer,
                       dummify=False)
