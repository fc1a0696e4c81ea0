"""The probe's points at jumps: where a jump's argument is exactly 0 (sign, Heaviside, a
Piecewise condition) or an integer (floor, ceiling, frac, Mod).

A random real never lands on a jump, and the lattice of integers and halves lands only on jumps
that sit there: sign(x − 1/3)² = 1 and Heaviside(x² − 2)² = Heaviside(x² − 2) fail only at
x = 1/3 and x = ±√2, sign(eˣ − 2)² = 1 only at log 2.  For each jump's argument in one real
symbol, once the other symbols take lattice values, the roots of argument = target are found
with numbers, to more digits than any rung of the ladder: a polynomial's from its coefficients
(exactly for a linear one with rational coefficients, ``mpmath.polyroots`` otherwise), any other
argument's by scanning the symbol's declared range (else −10..10) for a change of sign (or of
integer part) and bisecting.  The runtime's cancellation test (:func:`mpsnap.cancelled`,
``_snap``) then reads the argument there as the exact 0 or integer.  A root between two scan
points of the same sign (a bump narrower than the grid) is not found.

Two kinds of root no symbol reaches alone are sought as well: the roots of arguments in one
symbol each, taken together (Max(|x − π|, |y − e|) is 0 only at (π, e)), and the points where an
argument in up to three symbols touches 0 without changing sign ((x − π)² + (y − e)², and
1 − cos(x − 1/3), which no scan sees cross), found as minima by Newton's method on the gradient.
"""

from __future__ import annotations

import itertools

import mpmath
import sympy as sp

from derivations.engine.core.binders import bound_symbols
from derivations.engine.core.claim import Derivation
from derivations.engine.numeric.mpnum import compile_mp
from derivations.engine.numeric.mpprint import kinks
from derivations.engine.numeric.periods import coefficients
from derivations.engine.numeric.sampling import JumpAt, dims_of

__all__ = ["JUMP_DIGITS", "JUMP_POINTS", "jump_points", "root_sizes"]

JUMP_DIGITS = 450  # past the probe's highest rung (PROBE_MAX_DIGITS)
JUMP_POINTS = 12
EDGE_POINTS = 6
MAX_DEGREE = 6
SCAN = (mpmath.mpf(-10), mpmath.mpf(10))  # where a symbol without a range is scanned for roots
SCAN_POINTS = 400
TAIL_POINTS = 44  # log-spaced scan points from 10 to 10¹² on either side
INTEGER_TARGETS = (0, 1, -1)
JOINT_PER_SYMBOL = 3
JOINT_POINTS = 6
TOUCH_POINTS = 4
TOUCH_STARTS = 6
MAX_TOUCH_SYMBOLS = 3
TOUCH_GRID = {1: SCAN_POINTS, 2: 24, 3: 8}  # grid steps per symbol, ≤ 729 points in all


def _real_symbols(arg: sp.Basic, excluded: set, ranges: dict) -> list:
    return sorted((s for s in arg.free_symbols if isinstance(s, sp.Symbol) and s not in excluded
                   and (s.is_real or s in ranges) and not s.is_integer), key=sp.srepr)


def _polynomial_roots(terms: dict, target: int) -> list:
    """Real roots of Σ terms[k]·x^k = target: exact for a linear one with rational coefficients,
    else from its coefficients, evaluated with numbers, by ``mpmath.polyroots``."""
    coeffs = [terms.get(k, sp.S.Zero) for k in range(max(terms), -1, -1)]
    coeffs[-1] -= target
    if len(coeffs) == 2 and all(c.is_Rational for c in coeffs):
        return [-coeffs[1] / coeffs[0]]
    with mpmath.workdps(JUMP_DIGITS):
        values = [mpmath.mpmathify(compile_mp([], c)()) for c in coeffs]
        if not all(isinstance(v, mpmath.mpf) and mpmath.isfinite(v) for v in values):
            return []
        return _real_roots(values)


def _real_roots(values: list) -> list:
    """The real roots of the polynomial with coefficients ``values`` (highest first).  A
    multiple root, on which ``mpmath.polyroots`` does not converge ((x − π)² at x = π, the
    tangency of sign(x⁴ − 4x² + 4)), is a root of the derivative at which the polynomial is 0."""
    try:
        found = mpmath.polyroots(values, maxsteps=200, extraprec=2 * JUMP_DIGITS)
    except mpmath.libmp.NoConvergence:
        degree = len(values) - 1
        if degree < 2:
            return []
        size = max(abs(v) for v in values)
        return [r for r in _real_roots([c * (degree - k) for k, c in enumerate(values[:-1])])
                if abs(mpmath.polyval(values, r)) <= mpmath.mpf(10) ** (-JUMP_DIGITS // 3)
                * size * max(1, abs(r)) ** degree]
    return [mpmath.re(r) for r in found
            if abs(mpmath.im(r)) <= mpmath.mpf(10) ** (-JUMP_DIGITS // 4)]


def _crossings(fn, lo, hi, integer: bool, tails: bool = False) -> list:
    """(root, target) where fn crosses 0 (or, for a floor, an integer) on a grid over [lo, hi],
    each refined by bisection to JUMP_DIGITS: e^x = 2 at log 2, sin x = 1/2 at π/6."""
    def level(t):
        try:
            v = fn(t)
        except (ValueError, ZeroDivisionError, ArithmeticError, TypeError):
            return None
        if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
            return None
        return mpmath.floor(v) if integer else mpmath.sign(v)

    with mpmath.workdps(30):
        grid = [lo + (hi - lo) * mpmath.mpf(k) / SCAN_POINTS for k in range(SCAN_POINTS + 1)]
        if tails:  # without a range, out to ±10¹² too: x + sin x = 20 at x ≈ 19.44
            far = [mpmath.mpf(10) ** (1 + mpmath.mpf(j) / 4) for j in range(1, TAIL_POINTS + 1)]
            grid = [*(-t for t in reversed(far)), *grid, *far]
        levels = [level(t) for t in grid]
    out = []
    for k in range(len(grid) - 1):
        if len(out) >= JUMP_POINTS:  # ⌊eˣ⌋ crosses an integer between every two scan points
            break
        (a, la), (b, lb) = (grid[k], levels[k]), (grid[k + 1], levels[k + 1])
        if la is None or lb is None or la == lb:
            continue
        target = max(la, lb) if integer else 0
        with mpmath.workdps(JUMP_DIGITS):
            a, b = mpmath.mpf(a), mpmath.mpf(b)
            sa = mpmath.sign(fn(a) - target)
            for _ in range(int(JUMP_DIGITS * 3.33) + 8):
                m = (a + b) / 2
                if mpmath.sign(fn(m) - target) == sa:
                    a = m
                else:
                    b = m
            out.append(((a + b) / 2, int(target)))
    return out


def _roots_of(g: sp.Basic, x: sp.Symbol, integer: bool, bounds) -> list:
    """(value to JUMP_DIGITS, target, exact text or "") for the roots of g = target in x; none
    where they cannot be had: the probe only looks for differences, it never fails a claim."""
    if g.has(sp.Integral, sp.Sum, sp.Product, sp.Limit):
        return []  # each of its values a quadrature or a series: too costly to bisect
    try:
        return _find_roots(g.doit(deep=False) if g.has(sp.Derivative) else g, x, integer, bounds)
    except Exception:  # noqa: BLE001 - an argument that cannot be scanned has no points here
        return []


def _find_roots(g: sp.Basic, x: sp.Symbol, integer: bool, bounds) -> list:
    terms = coefficients(g, x)
    if terms is not None:
        terms = {k: c for k, c in terms.items() if c != 0}
    if terms and 0 < max(terms) <= MAX_DEGREE and not any(c.free_symbols for c in terms.values()):
        out = []
        for target in INTEGER_TARGETS if integer else (0,):
            for root in _polynomial_roots(terms, target):
                if isinstance(root, sp.Rational):
                    with mpmath.workdps(JUMP_DIGITS):
                        out.append((mpmath.mpf(root.p) / root.q, target, str(root)))
                else:
                    out.append((root, target, ""))
        return out
    if g.free_symbols != {x}:
        return []
    lo, hi = (mpmath.mpf(float(b)) for b in bounds) if bounds else SCAN
    return [(v, t, "") for v, t in _crossings(compile_mp([x], g), lo, hi, integer, not bounds)]


def _between(roots: list, arg: sp.Basic) -> list:
    """The midpoints of consecutive roots: a bump of Max(0, 10⁻⁸ − (x − π)²) is 0 at both its
    roots and positive only between them."""
    values = sorted(v for v, _, _ in roots)
    with mpmath.workdps(JUMP_DIGITS):
        return [((a + b) / 2, None, f"{mpmath.nstr((a + b) / 2, 15)}, between two roots of {arg}")
                for a, b in zip(values, values[1:], strict=False) if a != b]


def _fits(value, key, ranges) -> bool:
    if key in ranges:
        lo, hi = ranges[key]
        return float(lo) <= float(value) <= float(hi)
    return not ((key.is_positive and value <= 0) or (key.is_nonnegative and value < 0))


def jump_points(d: Derivation, *exprs: sp.Basic) -> list[JumpAt]:
    """Up to JUMP_POINTS value assignments on the jumps of ``exprs``, and up to EDGE_POINTS just
    inside the edges of the claim's hypotheses (x > −10⁻¹³ lets x = −10⁻¹⁴ in, where |x| ≠ x,
    and no drawn magnitude reaches it)."""
    excluded = set(dims_of(d)) | set(d.domain.indices)
    for e in exprs:
        excluded |= bound_symbols(e)
    ranges = d.domain.ranges
    seed = [0]
    alone: list[JumpAt] = []  # roots of arguments in their symbol alone

    def on(args, limit, edge=False):
        out: list[JumpAt] = []
        for integer, arg in args:
            for x in _real_symbols(arg, excluded, ranges):
                seed[0] += 1
                at = JumpAt((), seed[0])
                others = {s: sp.Rational(float(at.draw(s, ranges.get(s))))
                          for s in arg.free_symbols if s != x}
                roots = _roots_of(arg.xreplace(others), x, integer, ranges.get(x))
                found = [*roots, *_between(roots, arg)] if not edge else _beside(roots, arg)
                for value, target, shown in found:
                    if _fits(value, x, ranges):
                        out.append(JumpAt(((x, value),), seed[0], shown or (
                            f"{mpmath.nstr(value, 15)}, a root of {arg} = {target}")))
                        if arg.free_symbols == {x}:
                            alone.append(out[-1])
                    if len(out) >= limit:
                        return out
        return out

    # a step's argument is usually in the step before as well: its roots are sought once
    jumps = list(dict.fromkeys((integer, arg) for e in exprs
                               for integer, arg in _arguments(e, bound_symbols(e))))
    edges = [(False, h.lhs - h.rhs) for h in getattr(d, "hypotheses", ())
             if isinstance(h, sp.core.relational.Relational)]
    single = on(jumps, JUMP_POINTS)
    return [*single, *_joint(alone, seed[0]),
            *_touching_points(jumps, excluded, ranges, seed[0]),
            *on(edges, EDGE_POINTS, edge=True)]


def _joint(alone: list[JumpAt], seed: int) -> list[JumpAt]:
    """The roots of arguments in one symbol each, taken together: Max(|x − π|, |y − e|) and a
    Piecewise whose conditions x ≠ π or y ≠ e cover all but (π, e) are 0 or uncovered only
    where x = π and y = e at once, and a root in x alone leaves y at a random value."""
    by_symbol: dict = {}
    for at in alone:
        (x, _), = at.fixed
        if len(by_symbol.setdefault(x, [])) < JOINT_PER_SYMBOL:
            by_symbol[x].append(at)
    if len(by_symbol) < 2:
        return []
    symbols = sorted(by_symbol, key=sp.srepr)
    out = []
    for combo in itertools.islice(itertools.product(*(by_symbol[s] for s in symbols)),
                                  JOINT_POINTS):
        out.append(JumpAt(tuple(at.fixed[0] for at in combo), seed,
                          tuple(at.shown for at in combo)))
    return out


def _box(x, ranges):
    if x in ranges:
        return tuple(mpmath.mpf(float(b)) for b in ranges[x])
    return (mpmath.mpf(0), SCAN[1]) if x.is_nonnegative else SCAN


def _touching_points(jumps: list, excluded: set, ranges: dict, seed: int) -> list[JumpAt]:
    """Points where a jump's argument touches 0 without changing sign: 1 − cos(x − 1/3) at
    x = 1/3, and (x − π)² + (y − e)² at (π, e), which no root in one symbol with the others
    drawn at random reaches.  Such a point is a minimum of the argument where it is 0: Newton's
    method on its gradient (a mechanical derivative), started from the lowest points of a grid
    over the symbols' ranges, to JUMP_DIGITS, kept where the argument is 0 to a third of them.
    A minimum flatter than a quadratic (x⁴) is reached too slowly and not found."""
    out: list[JumpAt] = []
    for _, arg in jumps:
        xs = _real_symbols(arg, excluded, ranges)
        if not 0 < len(xs) <= MAX_TOUCH_SYMBOLS or arg.free_symbols - set(xs):
            continue
        if arg.has(sp.Integral, sp.Sum, sp.Product, sp.Limit, sp.Derivative):
            continue
        terms = coefficients(arg, xs[0]) if len(xs) == 1 else None
        if terms is not None and max(terms, default=0) <= 1:
            continue  # a linear argument changes sign at its root: found by the scan
        try:
            found = _touches(arg, xs, [_box(x, ranges) for x in xs])
        except Exception:  # noqa: BLE001 - an argument that cannot be scanned has no points here
            continue
        for v in found:
            if all(_fits(value, x, ranges) for x, value in zip(xs, v, strict=True)):
                shown = tuple(f"{mpmath.nstr(value, 15)}, where {arg} touches 0" for value in v)
                out.append(JumpAt(tuple(zip(xs, v, strict=True)), seed, shown))
            if len(out) >= TOUCH_POINTS:
                return out
    return out


def _touches(arg: sp.Basic, xs: list, boxes: list) -> list:
    g = compile_mp(xs, arg)
    gradient = [sp.diff(arg, x) for x in xs]
    grad = compile_mp(xs, gradient)
    hess = compile_mp(xs, [[sp.diff(gi, x) for x in xs] for gi in gradient])
    steps = TOUCH_GRID[len(xs)]
    axes = [[lo + (hi - lo) * mpmath.mpf(k) / steps for k in range(steps + 1)] for lo, hi in boxes]
    with mpmath.workdps(20):
        values = {}
        for idx in itertools.product(range(steps + 1), repeat=len(xs)):
            try:
                v = g(*(axes[i][k] for i, k in enumerate(idx)))
            except (ValueError, ZeroDivisionError, ArithmeticError, TypeError):
                continue
            if isinstance(v, mpmath.mpf) and mpmath.isfinite(v):
                values[idx] = v
    starts = []
    for idx, v in values.items():
        near = [values.get(tuple(k + (j == i) * s for j, k in enumerate(idx)))
                for i in range(len(idx)) for s in (-1, 1)]
        near = [w for w in near if w is not None]
        if near and all(abs(v) <= abs(w) and mpmath.sign(w) * mpmath.sign(v) >= 0
                        for w in near):
            starts.append((abs(v), idx))
    out: list = []
    for _, idx in sorted(starts)[:TOUCH_STARTS]:
        v = _newton(grad, hess, [axes[i][k] for i, k in enumerate(idx)], 30, 40)
        v = v and _newton(grad, hess, v, JUMP_DIGITS, 14)
        if not v:
            continue
        with mpmath.workdps(JUMP_DIGITS):
            at_zero = abs(g(*v)) <= mpmath.mpf(10) ** (-(JUMP_DIGITS // 3))
            if at_zero and all(max(abs(a - b) for a, b in zip(v, w, strict=True))
                               > mpmath.mpf(10) ** -20 for w in out):
                out.append(v)
    return out


def _newton(grad, hess, v, digits: int, steps: int) -> list | None:
    """A zero of the gradient from ``v`` at ``digits``, or None if the steps do not settle."""
    with mpmath.workdps(digits):
        v = mpmath.matrix([mpmath.mpf(a) for a in v])
        tol = mpmath.mpf(10) ** (-(digits - 10))
        for _ in range(steps):
            try:
                delta = mpmath.lu_solve(mpmath.matrix(hess(*v)), -mpmath.matrix(grad(*v)))
            except (ValueError, ZeroDivisionError, ArithmeticError, TypeError):
                return None
            v = v + delta
            if not all(isinstance(a, mpmath.mpf) and mpmath.isfinite(a) for a in v):
                return None
            if mpmath.norm(delta) <= tol * max(1, mpmath.norm(v)):
                return list(v)
    return None


def _beside(roots: list, arg: sp.Basic) -> list:
    """Points a relative 10⁻⁴⁰ to either side of each root: one of them inside a hypothesis's
    edge (the edge itself may be excluded)."""
    out = []
    with mpmath.workdps(JUMP_DIGITS):
        for value, _, _ in roots:
            delta = mpmath.mpf(10) ** -40 * max(1, abs(value))
            for side in (value - delta, value + delta):
                out.append((side, None, f"{mpmath.nstr(side, 15)}, beside the edge {arg} = 0"))
    return out


def _arguments(e: sp.Basic, bound: frozenset | set = frozenset()) -> list[tuple[bool, sp.Basic]]:
    """(whether it jumps at integers, argument) for each jump of ``e`` (:func:`mpprint.kinks`)
    whose argument holds none of the ``bound`` variables."""
    out = []
    for k in kinks(e):
        integer, arg = (True, k[1]) if isinstance(k, tuple) else (False, k)
        if isinstance(arg, sp.Basic) and not arg.free_symbols & bound:
            out.append((integer, arg))
    return out


def root_sizes(*exprs: sp.Basic, largest: int) -> set[int]:
    """The sizes about where a jump's argument in one integer symbol (a size or a sum's index)
    crosses 0 or an integer: Σ_{k=1}^{n} ⌊k²/5000⌋ = 0 is false from n = 71, δ(k², 4900) at
    n = 70 — past the sampled sizes, and no constant of the claim is the size."""
    out: set[int] = set()
    for e in exprs:
        args = [*_arguments(e), *((False, node.args[0] - node.args[1])
                                  for node in e.atoms(sp.KroneckerDelta))]
        for integer, arg in args:
            if len(arg.free_symbols) != 1:
                continue
            (s,) = arg.free_symbols
            if not s.is_integer:
                continue
            for value, _, _ in _roots_of(arg, s, integer, (1, largest)):
                if 0 < value <= largest:
                    low = int(mpmath.floor(value))
                    out |= {v for v in (low - 1, low, low + 1, low + 2) if 0 < v <= largest}
    return out
