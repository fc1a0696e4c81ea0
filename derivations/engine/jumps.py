"""The probe's points at jumps: where a jump's argument is exactly 0 (sign, Heaviside, a
Piecewise condition) or an integer (floor, ceiling, frac, Mod).

A random real never lands on a jump, and the lattice of integers and halves lands only on jumps
that sit there: sign(x − 1/3)² = 1 and Heaviside(x² − 2)² = Heaviside(x² − 2) fail only at
x = 1/3 and x = ±√2.  For each jump whose argument is a polynomial in one real symbol once the
other symbols take lattice values, the roots of argument = target are found from the
polynomial's coefficients, with numbers (exactly for a linear one, ``mpmath.polyroots``
otherwise), to more digits than any rung of the ladder; the runtime's cancellation test
(:func:`mpnum.cancelled`, ``_snap``) then reads the argument there as the exact 0 or integer.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from derivations.engine.claim import Derivation
from derivations.engine.mpnum import kinks
from derivations.engine.sampling import JumpAt, dims_of

__all__ = ["JUMP_DIGITS", "JUMP_POINTS", "jump_points"]

JUMP_DIGITS = 450  # past the probe's highest rung (PROBE_MAX_DIGITS)
JUMP_POINTS = 12
MAX_DEGREE = 6
INTEGER_TARGETS = (0, 1, -1)


def _bound(expr: sp.Basic) -> set:
    """The variables a sum, product, integral or limit of ``expr`` binds."""
    out = set()
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Sum | sp.Product | sp.Integral):
            out |= set(node.variables)
        elif isinstance(node, sp.Limit):
            out.add(node.args[1])
    return out


def _real_symbols(arg: sp.Basic, excluded: set, ranges: dict) -> list:
    return sorted((s for s in arg.free_symbols if isinstance(s, sp.Symbol) and s not in excluded
                   and (s.is_real or s in ranges) and not s.is_integer), key=sp.srepr)


def _roots(poly: sp.Poly, target: int) -> list:
    coeffs = [sp.Rational(c) for c in poly.all_coeffs()]
    coeffs[-1] -= target
    if len(coeffs) == 2:
        return [coeffs[1] * -1 / coeffs[0]]
    with mpmath.workdps(JUMP_DIGITS):
        try:
            found = mpmath.polyroots([mpmath.mpf(c.p) / c.q for c in coeffs], maxsteps=200,
                                     extraprec=2 * JUMP_DIGITS)
        except mpmath.libmp.NoConvergence:
            return []
        return [mpmath.re(r) for r in found
                if abs(mpmath.im(r)) <= mpmath.mpf(10) ** (-JUMP_DIGITS // 2)]


def _fits(value, key, ranges) -> bool:
    if key in ranges:
        lo, hi = ranges[key]
        return float(lo) <= float(value) <= float(hi)
    return not ((key.is_positive and value <= 0) or (key.is_nonnegative and value < 0))


def jump_points(d: Derivation, *exprs: sp.Basic) -> list[JumpAt]:
    """Up to JUMP_POINTS value assignments, each on one jump of ``exprs``."""
    excluded = set(dims_of(d)) | set(d.domain.indices)
    for e in exprs:
        excluded |= _bound(e)
    ranges = d.domain.ranges
    out: list[JumpAt] = []
    seed = 0
    for e in exprs:
        for kink in kinks(e):
            integer = isinstance(kink, tuple)
            arg = kink[1] if integer else kink
            if not isinstance(arg, sp.Basic) or arg.free_symbols & _bound(e):
                continue
            for x in _real_symbols(arg, excluded, ranges):
                seed += 1
                at = JumpAt((), seed)
                others = {s: sp.Rational(float(at.draw(s, ranges.get(s))))
                          for s in arg.free_symbols if s != x}
                try:
                    poly = sp.Poly(arg.xreplace(others), x)
                except sp.PolynomialError:
                    continue
                if not (0 < poly.degree() <= MAX_DEGREE) or not all(
                        c.is_Rational for c in poly.all_coeffs()):
                    continue
                for target in INTEGER_TARGETS if integer else (0,):
                    for root in _roots(poly, target):
                        with mpmath.workdps(JUMP_DIGITS):
                            value = mpmath.mpf(root.p) / root.q if isinstance(
                                root, sp.Rational) else root
                        if _fits(value, x, ranges):
                            shown = str(root) if isinstance(root, sp.Rational) else (
                                f"{mpmath.nstr(value, 15)}, a root of {arg} = {target}")
                            out.append(JumpAt(((x, value),), seed, shown))
                        if len(out) >= JUMP_POINTS:
                            return out
    return out
