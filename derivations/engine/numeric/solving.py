"""Points on an equality hypothesis: the drawn values of every other symbol put in, the
equality solved for its solved key (:func:`derivations.engine.core.hypotheses.solved_keys`).

At a point's sizes an equality is written out (Σ_{k=1}^{3} p_k = 1 is p_1 + p_2 + p_3 = 1) and
solved for the last entry of its key it is linear in.  The solution must satisfy the equality
*exactly*: a rational side is compared with no tolerance at all, and the ladder of precisions
would read a residue of 10⁻⁶⁰ as a real difference.  So the solution is exact wherever it can
be — a sum of drawn doubles divided by a power of two is a binary number, held with every bit —
and otherwise (b = 1/a, a log in the equality) computed to ``SOLVED_DIGITS``, past every
precision the route evaluates at, and marked :class:`Inexact`, which keeps it off the exact
comparison.  A key whose entries are positive (a probability vector) is drawn on the simplex:
every entry drawn, scaled so that the equality holds, the last one solved — positive however the
others fall.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from derivations.engine.core.hypotheses import linear_part, solvable, written_out

__all__ = ["SOLVED_DIGITS", "Inexact", "solve_at"]

# past the most digits a point may be evaluated at (pointwise.MAX_DIGITS, 1200)
SOLVED_DIGITS = 1400


class Inexact(mpmath.mpf):
    """A solved value that satisfies its equality only to ``SOLVED_DIGITS``."""


def _rational(v) -> sp.Rational:
    return sp.Rational(*mpmath.libmp.to_rational(v._mpf_))


def _as_mpf(q: sp.Rational) -> mpmath.mpf:
    """``q`` with every bit when its denominator is a power of two, else to SOLVED_DIGITS."""
    p, den = int(q.p), int(q.q)
    if den & (den - 1) == 0:
        with mpmath.workprec(max(p.bit_length(), 1) + 2):
            return mpmath.ldexp(mpmath.mpf(p), -(den.bit_length() - 1))
    with mpmath.workdps(SOLVED_DIGITS):
        return Inexact(mpmath.mpf(p) / den)


def _number(e: sp.Basic):
    """A solved value that is not rational (a log in the equality): to SOLVED_DIGITS."""
    with mpmath.workdps(SOLVED_DIGITS):
        value = mpmath.mpmathify(sp.N(e, SOLVED_DIGITS))
        return Inexact(value) if isinstance(value, mpmath.mpf) else None


def solve_at(h, key, structure: dict, fixed: set, value_of, positive: bool) -> dict | None:
    """{atom: value} meeting equality ``h`` at ``structure``, the other atoms at ``value_of``'s
    values; None when it cannot be met there (an empty sum = 1, a coefficient 0 at the point)."""
    f = written_out(h.lhs - h.rhs, structure)
    atom = solvable(f, key, fixed)
    if atom is None:
        return None
    out = {}
    entries = [a for a in f.atoms(sp.Indexed) if a.base == key and a != atom] if isinstance(
        atom, sp.Indexed) else []
    if positive and entries:
        out = _on_simplex(f, atom, entries, value_of)
        if out is None:
            return None
    c, r = linear_part(f, atom)
    others = (c.free_symbols | r.free_symbols | c.atoms(sp.Indexed) | r.atoms(sp.Indexed))
    values = {a: _rational(out[a] if a in out else value_of(a)) for a in others
              if not (isinstance(a, sp.Symbol) and any(a == i.base.label
                                                       for i in f.atoms(sp.Indexed)))}
    c, r = c.xreplace(values), r.xreplace(values)
    if c == 0 or not (c.is_number and r.is_number):
        return None
    solution = -r / c
    if isinstance(solution, sp.Rational):
        out[atom] = _as_mpf(solution)
    else:
        value = _number(solution)
        if value is None:
            return None
        out[atom] = value
    return out


def _on_simplex(f, atom, entries, value_of) -> dict | None:
    """The entries other than ``atom`` scaled so that Σ c_a a = R holds with every entry
    positive, each rounded to a double (the solved one then takes up the rounding)."""
    c_all, r = linear_part(f, atom)
    weights = {}
    for a in entries:
        part = linear_part(f, a)
        if part is None or not part[0].is_number or not part[0] > 0:
            return {}
        weights[a] = part[0]
    total = f.xreplace({a: 0 for a in (*entries, atom)})
    if not (c_all.is_number and c_all > 0 and total.is_number and -total > 0):
        return {}
    raw = {a: value_of(a) for a in (*entries, atom)}
    with mpmath.workdps(30):
        scale = -mpmath.mpf(float(total)) / mpmath.fsum(
            [mpmath.mpf(float(weights.get(a, c_all))) * raw[a] for a in raw])
        return {a: mpmath.mpf(float(raw[a] * scale)) for a in entries}
