"""What every module of the third round shares: the claim builder and the witnesses' tools.

Claims are built from the public API only. A witness decides a case's truth without the engine
and without SymPy's integrate/limit/summation/doit/simplify/solve: it evaluates both sides with
hand-written mpmath forms at seeded points over the whole declared range, its ends included, at
hundreds to thousands of digits — enough to resolve every difference a false case hides below
the engine's working precision — or enumerates exactly (integers, fractions), or uses NumPy for
matrices. Where a difference is too small for even that (erfc(1000) ~ 10^-434298), the witness
computes the gap itself with a function that has no cancellation (mpmath's erfc, expm1, log1p),
and the docstring of the case says why the gap is the difference.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

import mpmath as mp
import sympy as sp

from derivations import Derivation, Domain, Step
from derivations.redteam.cases import Case

__all__ = ["Case", "add_to", "claim", "pts", "grid", "holds", "sizes_hold", "cpoints",
           "pairs", "nonzero"]


def claim(cid: str, lhs, rhs, domain: Domain | None = None, assumptions=(), steps=None,
          hypotheses=(), rule: str = "claimed", definitions=()) -> Derivation:
    """lhs = rhs as one step (or the given steps); the id doubles as the title."""
    lhs, rhs = (sp.Integer(e) if isinstance(e, int) else e for e in (lhs, rhs))
    steps = steps or (Step(rhs, rule),)
    return Derivation(cid, cid.replace("_", " "), sp.Eq(lhs, rhs, evaluate=False),
                      tuple(assumptions), tuple(steps), domain or Domain(),
                      tuple(definitions), tuple(hypotheses))


def add_to(cases: list[Case], cls: str):
    """A registrar for one module's class: add(id, truth, build, witness)."""
    def add(cid: str, true: bool, build: Callable[[], Derivation],
            witness: Callable[[], bool]) -> None:
        cases.append(Case(cid, cls, true, build, witness))
    return add


# ---- points ------------------------------------------------------------------------------------

def pts(lo, hi, count: int = 10, seed: int = 0, log: bool = False) -> list:
    """The ends lo and hi and count seeded points between, uniform (or log-uniform) — exact
    decimal strings turned into mpf at the caller's precision, so the points do not depend on it.
    """
    with mp.workdps(50):
        return _pts(lo, hi, count, seed, log)


def _pts(lo, hi, count, seed, log):
    rng = random.Random(seed)
    out = [mp.mpf(lo), mp.mpf(hi)]
    for _ in range(count):
        u = rng.random()
        if log:
            a, b = mp.log(abs(mp.mpf(lo))), mp.log(abs(mp.mpf(hi)))
            sgn = 1 if mp.mpf(lo) > 0 else -1
            out.append(sgn * mp.exp(a + (b - a) * mp.mpf(u)))
        else:
            out.append(mp.mpf(lo) + (mp.mpf(hi) - mp.mpf(lo)) * mp.mpf(u))
    return out


def grid(*axes: Sequence) -> list[tuple]:
    """Every combination of the given point lists (tuples for several symbols)."""
    out: list[tuple] = [()]
    for axis in axes:
        out = [(*o, v) for o in out for v in axis]
    return out


def pairs(lo_a, hi_a, lo_b, hi_b, count: int = 12, seed: int = 0) -> list[tuple]:
    """Corners of the box and count seeded points inside it."""
    rng = random.Random(seed)
    with mp.workdps(50):
        out = [(mp.mpf(a), mp.mpf(b)) for a in (lo_a, hi_a) for b in (lo_b, hi_b)]
        for _ in range(count):
            out.append((mp.mpf(lo_a) + (mp.mpf(hi_a) - mp.mpf(lo_a)) * mp.mpf(rng.random()),
                        mp.mpf(lo_b) + (mp.mpf(hi_b) - mp.mpf(lo_b)) * mp.mpf(rng.random())))
    return out


def cpoints(count: int = 12, seed: int = 0, scale: float = 3.0) -> list:
    """Seeded complex points, none of them real (|Im| >= 0.1)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        im = rng.uniform(0.1, scale) * rng.choice((-1, 1))
        out.append(mp.mpc(rng.uniform(-scale, scale), im))
    return out


# ---- comparisons ------------------------------------------------------------------------------

def _finite(v) -> bool:
    return bool(mp.isfinite(v)) if not isinstance(v, mp.mpc) else bool(
        mp.isfinite(v.real) and mp.isfinite(v.imag))


def holds(lhs: Callable, rhs: Callable, points: Iterable, dps: int = 400,
          slack: int = 30) -> bool:
    """True iff lhs(v) == rhs(v) at every point, to 10^(slack - dps) of the larger side.

    A point is a value or a tuple of values (unpacked). Points are taken as given — make them
    inside ``mp.workdps`` if they must carry the digits. A side that is not finite at a point
    makes the claim false there (a witness's points lie where both sides are defined)."""
    with mp.workdps(dps):
        tol = mp.mpf(10) ** (slack - dps)
        for v in points:
            args = v if isinstance(v, tuple) else (v,)
            args = tuple(mp.mpmathify(a) if not isinstance(a, int) else a for a in args)
            a, b = lhs(*args), rhs(*args)
            if not (_finite(a) and _finite(b)):
                return False
            if abs(a - b) > tol * max(1, abs(a), abs(b)):
                return False
    return True


def nonzero(gap: Callable, points: Iterable, dps: int = 60) -> bool:
    """True iff gap(v) != 0 at some point: gap is a difference written without cancellation
    (erfc for 1 - erf, expm1, log1p), evaluated at dps digits with mpmath's unbounded exponent."""
    with mp.workdps(dps):
        for v in points:
            args = v if isinstance(v, tuple) else (v,)
            g = gap(*args)
            if g != 0 and _finite(g):
                return True
    return False


def sizes_hold(lhs: Callable[[int], object], rhs: Callable[[int], object],
               sizes: Iterable[int]) -> bool:
    """True iff lhs(n) == rhs(n) exactly (Fractions or ints) at every size given."""
    return all(lhs(m) == rhs(m) for m in sizes)
