"""The wider probe: a step's two sides at points past the sampled ones — larger sizes, indices at
the ends of their ranges and at the multiples of their moduli, values over 10⁻¹²..10¹², the lattice
of integers and halves and the roots of a jump's argument (:mod:`derivations.engine.numeric.jumps`)
— and which steps are probed at all (:func:`fragile`, :func:`fragile_operator`) or sampled at fewer
points (:func:`approximate`).

Each point is evaluated and compared as the sampled ones are
(:mod:`derivations.engine.numeric.pointwise`), with a budget kind of its own: a probe point can only
find a difference, never excuse one, so a point that fails to evaluate or runs out of its budget is
skipped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from derivations.engine.core.budget import operations
from derivations.engine.core.errors import DerivationError
from derivations.engine.numeric.jumps import jump_points, root_sizes
from derivations.engine.numeric.pointwise import _KIND, counterexample, disagree, safe_eval
from derivations.engine.numeric.sampling import (
    JUMP_TEXT,
    LATTICE,
    LATTICE_POINTS,
    LATTICE_TEXT,
    MATRIX_PROBE_SIZES,
    POINTS,
    PROBE_POINTS,
    PROBE_SIZES,
    SCHEDULE_SEED,
    WIDE_TEXT,
    JumpAt,
    boundary_indices,
    dims_of,
    distribution_at,
    moduli_of,
    seeded,
)

if TYPE_CHECKING:
    from derivations.engine.core.claim import Derivation

__all__ = ["APPROX_POINTS", "FRAGILE", "JUMPS", "MAX_PROBE_SIZE", "approximate", "fragile",
           "fragile_operator", "probe"]

# a probe point whose two sides cost more SymPy operations than this stops the larger sizes
SIZE_STOP = 200_000

FRAGILE = (sp.Integral, sp.Limit, sp.Min, sp.Max, sp.floor, sp.ceiling, sp.frac, sp.Mod,
           sp.sign, sp.Abs, sp.Piecewise, sp.Heaviside)


# the fragile operators that jump or kink at integers or at 0 of their argument: probed there
JUMPS = tuple(k for k in FRAGILE if k not in (sp.Integral, sp.Limit))

APPROX_POINTS = 8  # points of a claim whose values are quadratures, series or limits


def approximate(exprs) -> bool:
    """Whether a value of these expressions may need a quadrature, a series or a limit."""
    for e in exprs:
        if e.has(sp.Integral, sp.Limit):
            return True
        if any(b.is_infinite for node in e.atoms(sp.Sum, sp.Product)
               for lim in node.limits for b in lim[1:]):
            return True
    return False


def fragile(*exprs) -> bool:
    """Whether an expression holds an operator whose value can change abruptly with its
    arguments (a kink, a jump, a branch, a limit) or a sum with symbolic bounds: its step is
    probed whatever the symbolic route said."""
    return fragile_operator(*exprs) or _symbolic_bounds(*exprs)


def fragile_operator(*exprs) -> bool:
    """Whether an expression holds a fragile operator itself, not only a sum's symbolic bounds:
    a step the symbolic route proved is probed at larger sizes only then.  Sums over symbolic
    bounds go wrong at the ends of their ranges (an empty range, Karr's convention), which the
    probe's index ends at the sampled sizes reach."""
    return any(e.has(*FRAGILE) for e in exprs)


def _symbolic_bounds(*exprs) -> bool:
    return any(not all(b.is_Integer for b in lim[1:]) for e in exprs
               for node in e.atoms(sp.Sum, sp.Product) for lim in node.limits)


def probe(d: Derivation, prev: sp.Basic, cur: sp.Basic, sampled: list[dict],
          sizes: tuple = PROBE_SIZES) -> dict | None:
    """A counterexample to prev = cur at points past the sampled ones, or None.

    Run for a step the symbolic route could not prove and the sampled points could not refute
    (a claim true for sizes up to BIG_DIM, or for values up to 100, would otherwise end
    `numeric`), and for every step with a fragile operator (:func:`fragile`).  Sizes up to 64
    are tried for steps without matrices (their concrete forms are cheap), 5, 7 and 8 for steps
    with matrices that may not end `numeric` without them, indices at the ends
    of their ranges and at the multiples of every modulus the step divides by (⌊i/5⌋ at
    i = 5), and values over 10⁻¹²..10¹² at every sampled structure.  Points whose evaluation fails
    or runs out of budget are skipped: the probe can only find a difference, never excuse one.
    """
    dims = dims_of(d)
    rng = seeded(SCHEDULE_SEED, "probe")
    moduli = moduli_of(prev, cur)
    extra = []
    if sizes and not _has_matrix(prev, cur):
        # a sum over 1..n of a term with period 200 first differs at n = 101
        sizes = tuple(sorted({*sizes, *(v for m in moduli if m > 2
                                        for v in (m // 2, m // 2 + 1, m - 1, m, m + 1)),
                              *_emptying_sizes(dims, prev, cur), *_constant_sizes(prev, cur),
                              *root_sizes(prev, cur, largest=MAX_PROBE_SIZE)}))
    if dims and _has_matrix(prev, cur):
        # min(n, 6)·X = n·X is false only past the sampled sizes; a matrix has its size
        # squared in entries, so only the next few
        sizes = MATRIX_PROBE_SIZES if PROBE_SIZES[-1] in sizes else ()
    if dims:
        for size in sizes:
            sub = {s: sp.Integer(size) for s in dims}
            extra += [({**sub, **idx}, False) for idx in boundary_indices(d, sub, rng, moduli, 2)]
    if d.domain.indices:
        sizes = list(dict.fromkeys(tuple((k, v) for k, v in s.items() if k not in
                                         d.domain.indices) for s in sampled))
        for sub in sizes:
            extra += [({**dict(sub), **idx}, False)
                      for idx in boundary_indices(d, dict(sub), rng, moduli, 3)]
    extra += [(sampled[k % len(sampled)], True) for k in range(PROBE_POINTS)]
    if any(e.has(*JUMPS) for e in (prev, cur)):
        extra += [(sampled[k % len(sampled)], LATTICE) for k in range(LATTICE_POINTS)]
        extra += [(sampled[k % len(sampled)], at)
                  for k, at in enumerate(jump_points(d, prev, cur))]
    _KIND[0] = "probe"
    try:
        return _probe_points(d, prev, cur, dims, extra)
    finally:
        _KIND[0] = "numeric"


MAX_PROBE_SIZE = 4096


def _constant_sizes(*exprs) -> set[int]:
    """The sizes about each integer constant past the sampled ones: Σ_{k=1}^{n} δ(k, 70) and
    1/Γ(n − 70) change at n = 70 and 71."""
    out: set[int] = set()
    for e in exprs:
        for c in e.atoms(sp.Integer):
            v = abs(int(c))
            if PROBE_SIZES[-1] < v + 2 and v <= MAX_PROBE_SIZE:
                out |= {u for u in (v - 1, v, v + 1, v + 2) if 0 < u <= MAX_PROBE_SIZE}
    return out


def _emptying_sizes(dims, *exprs) -> set[int]:
    """The sizes about where a sum's or product's range becomes empty, for a range whose length
    is linear in one size (Σ_{k=1}^{70−n} is empty from n = 70 on)."""
    out: set[int] = set()
    for e in exprs:
        for node in e.atoms(sp.Sum, sp.Product):
            for lim in node.limits:
                if len(lim) != 3:
                    continue
                length = sp.expand(lim[2] - lim[1] + 1)
                held = [s for s in dims if length.has(s)]
                if len(held) != 1 or not length.is_polynomial(held[0]):
                    continue
                a, b = length.coeff(held[0], 1), length.coeff(held[0], 0)
                if not (a.is_Integer and b.is_Integer and a != 0) or sp.degree(length, held[0]) > 1:
                    continue
                root = -int(b) // int(a)
                out |= {v for v in range(root - 1, root + 3) if 0 < v <= MAX_PROBE_SIZE}
    return out


def _probe_points(d, prev, cur, dims, extra) -> dict | None:
    ceiling = None
    for k, (structure, wide) in enumerate(extra):
        size = max((int(v) for s, v in structure.items() if s in dims), default=0)
        if ceiling is not None and size > ceiling and not wide:
            continue
        point, before = POINTS + k, operations()
        a, b = safe_eval(d, prev, point, structure, wide), safe_eval(d, cur, point, structure, wide)
        if operations() - before > SIZE_STOP:
            ceiling = size  # larger sizes would cost more still: the budget goes to the rest
        if a[2] or b[2]:
            continue
        try:
            differs = disagree(a[0], b[0])
        except DerivationError:
            raise
        except Exception:  # noqa: BLE001 - the probe only finds differences
            continue
        if differs:
            counter = counterexample(d, [structure], [a], [b])
            if d.domain.random:
                counter["point"]["distribution"] = distribution_at(d, point)
            if isinstance(wide, JumpAt):
                for atom, _ in wide.fixed:
                    counter["point"][str(atom)] = wide.text(atom)
            counter["probe"] = (f"values {LATTICE_TEXT}" if wide == LATTICE else
                                f"values {JUMP_TEXT}" if isinstance(wide, JumpAt) else
                                f"values {WIDE_TEXT}" if wide else
                                f"size {max(structure.values(), default=0)}, indices at the ends "
                                f"of their ranges and at multiples of their moduli")
            return counter
    return None


def _has_matrix(*exprs) -> bool:
    return any(e.atoms(sp.MatrixSymbol) or isinstance(e, sp.MatrixExpr | sp.MatrixBase)
               for e in exprs)
