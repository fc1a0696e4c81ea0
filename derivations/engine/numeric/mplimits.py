"""Limits by definition, with numbers (mpmath), at the working precision of the ladder: what the
numeric route's compiled forms (:mod:`derivations.engine.numeric.mpnum`) call in place of SymPy's
``limit``.

A limit is the function at points ever closer (``10^(D/3)`` at precision D; for an integer
variable every residue of the period its arithmetic parts show, :mod:`periods`), accepted only
when the values there and at ``10^(D/6)`` agree: an oscillating or logarithmically slow limit is
not found, and says so, and so is one that a thin set of points decides.  An oscillating part
without a period (sin n) is set to each phase of its range in turn, and the limit is found only
when it is the same at every phase (:func:`limit_phases`).

What cannot be decided raises :class:`~derivations.engine.mpsnap.NotEvaluated`.
"""

from __future__ import annotations

import itertools
import random

import mpmath
import sympy as sp

from derivations.engine.numeric.mpsnap import NotEvaluated
from derivations.engine.numeric.periods import BOUNDED, UNBOUNDED

__all__ = ["limit", "limit_phases", "limit_scale"]

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


MAX_SCALE = 2000  # digits of a constant beyond which values near the point are not taken


def limit(f, x0, direction, integer, period=1, scale=0):
    x0 = mpmath.mpmathify(x0)
    d = mpmath.mp.dps
    # past a constant of `scale` digits: (1 − 10^−500)^n is 1 to 434 digits at n = 10^500 and
    # 0 to as many at 10^520, so the values near the point are taken that many digits nearer
    # (and at that many more digits, for the point's offsets to stay exact)
    shift = scale if scale >= d // 6 else 0
    if shift > MAX_SCALE:
        raise NotEvaluated(f"the limit was not found: a constant of {scale} digits is beyond the "
                           f"values near the point")
    values = []
    with mpmath.workdps(d + shift):
        for depth in (shift + d // 3, shift + d // 6):
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
    return +center


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
    return +center
