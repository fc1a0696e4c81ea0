"""Where the numeric route looks: the points of a claim.

Symbolic sizes and indices become integers from a fixed schedule, the same for every claim (never
seeded by its name), with the last points at a large size; every atom gets a seeded value over
several orders of magnitude that honours its assumptions (positive, nonnegative, integer) or its
declared range; random variables are drawn from the laws of the claim's declared family.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

import mpmath
import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement

from derivations.engine.core.budget import ClaimMemo
from derivations.engine.core.claim import Derivation
from derivations.engine.core.errors import DerivationError
from derivations.engine.core.stochastic import FAMILIES

POINTS = 20
BIG_DIM = 6  # every claim is also evaluated with every size at 6 ...
BIG_POINTS = 2  # ... at this many of its POINTS (the costly ones)
LOG10_RANGE = (-3.0, 2.0)  # magnitudes of unconstrained values: 0.001 .. 100
# A step that only the numeric route agreed on is probed further before it may end `numeric`:
# sizes past BIG_DIM where the step has no matrix (cheap there), and values over a wider range.
PROBE_SIZES = (7, 8, 9, 10, 12, 16, 24, 32, 48, 64)
# a step the symbolic route proved is probed as a second witness to it, and a premise's
# instance: index ends, moduli, values, and these sizes
FEW_PROBE_SIZES = (7, 9, 12)
WIDE_LOG10_RANGE = (-12.0, 12.0)
WIDE_INTEGER_LOG10 = 12
WIDE_TEXT = "over 1e-12..1e12"
# the probe's values where jumps are (floor, frac, sign, Heaviside … jump at integers and 0; a
# random real never lands there): small integers, halves, and a declared range's ends
LATTICE = "lattice"
LATTICE_VALUES = (0, 1, -1, 2, -2, 3, -3, 10, -10, 0.5, -0.5, 1.5, -1.5)
LATTICE_TEXT = "at integers, halves and the ends of declared ranges"
LATTICE_POINTS = 12
JUMP_TEXT = "where a jump's argument is 0 or an integer, or between two such roots"


@dataclass(frozen=True)
class JumpAt:
    """The probe's values at one jump: ``fixed`` puts one atom at a root of the jump's argument
    (to more digits than the ladder reaches: 1/3 or √2 is no double), every other atom takes a
    lattice value seeded by ``seed``, the same values the root was solved with."""

    fixed: tuple  # ((atom, mpf), …)
    seed: int
    # the root as a reader can take it: 1/3, or "≈ 1.414… where x**2 − 2 = 0"; one text per
    # fixed atom where several are fixed together
    shown: str | tuple[str, ...] = ""

    def text(self, atom) -> str:
        if isinstance(self.shown, str):
            return self.shown
        return next(t for (a, _), t in zip(self.fixed, self.shown, strict=True) if a == atom)

    def draw(self, atom, bounds):
        for a, v in self.fixed:
            if a == atom:
                return v
        return _lattice(_atom_key(atom), bounds, seeded("jump", self.seed, sp.srepr(atom)))
ZERO_SHARE = 0.15  # of the values of an integer or nonnegative symbol that are 0
PROBE_POINTS = POINTS  # wide-value points: one in every stratum of the wide range per atom
# the seed's text is kept from when these points were drawn in derivations.pointwise
SCHEDULE_SEED = "derivations.pointwise.schedule.v2"


def seeded(*parts) -> random.Random:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def dims_of(d: Derivation) -> list:
    """The declared dims, else every free integer symbol that cannot be negative and is not an
    index (an integer symbol that may be negative is a value, drawn with both signs)."""
    return list(d.domain.dims) or sorted(
        (s for s in d.symbols if isinstance(s, sp.Symbol) and s.is_integer and s.is_nonnegative
         and s not in d.domain.indices), key=str)


def _bounds(lo, hi, known: dict) -> tuple[int, int]:
    return (int(sp.sympify(lo, strict=True).xreplace(known)),
            int(sp.sympify(hi, strict=True).xreplace(known)))


def draw_indices(d: Derivation, sub: dict, rng: random.Random) -> dict | None:
    """One index assignment at sizes ``sub``; a third of the draws take an end of the range,
    where an off-by-one lives."""
    out = {}
    for idx, (lo, hi) in d.domain.indices.items():
        lo_v, hi_v = _bounds(lo, hi, {**sub, **out})
        if lo_v > hi_v:
            return None
        u = rng.random()
        out[idx] = sp.Integer(lo_v if u < 1 / 6 else hi_v if u < 1 / 3 else
                              rng.randint(lo_v, hi_v))
    return out if structure_ok(d, {**sub, **out}) else None


def moduli_of(*exprs) -> list[int]:
    """The integer moduli a step divides by inside floor, ceiling, frac or Mod (5 for ⌊i/5⌋)."""
    found = set()
    for e in exprs:
        for node in e.atoms(sp.floor, sp.ceiling, sp.frac, sp.Mod):
            if isinstance(node, sp.Mod):
                cands = [node.args[1]]
            else:
                cands = [t.as_numer_denom()[1] for t in sp.Add.make_args(node.args[0])]
            found |= {int(c) for c in cands if c.is_Integer and 2 <= abs(int(c)) <= 1000}
    return sorted(found)


def boundary_indices(d: Derivation, sub: dict, rng: random.Random, moduli: list[int],
                     count: int) -> list[dict]:
    """Index assignments at sizes ``sub`` from each index's critical values: the ends of its
    range, one inside each, and the multiples of each modulus (±1) in it."""
    out = []
    for _ in range(count + len(moduli) * 2):
        got = {}
        for idx, (lo, hi) in d.domain.indices.items():
            lo_v, hi_v = _bounds(lo, hi, {**sub, **got})
            if lo_v > hi_v:
                got = None
                break
            critical = {lo_v, hi_v, min(lo_v + 1, hi_v), max(hi_v - 1, lo_v)}
            for m in moduli:
                k = rng.randint(lo_v // m, hi_v // m + 1) * m
                critical |= {v for v in (k - 1, k, k + 1) if lo_v <= v <= hi_v}
            got[idx] = sp.Integer(rng.choice(sorted(critical)))
        if got is not None and got not in out and structure_ok(d, {**sub, **got}):
            out.append(got)
    return out


def structures(d: Derivation) -> list[dict]:
    """One assignment of dims and indices per point.  Sizes at which an index range is empty are
    skipped (the claim says nothing there); if every size is, the claim is refused."""
    dims = dims_of(d)
    rng = seeded(SCHEDULE_SEED)
    out, tries = [], 0
    while len(out) < POINTS - BIG_POINTS and tries < 20 * POINTS:
        tries += 1
        sub = {s: sp.Integer(rng.randint(1, d.domain.max_dim)) for s in dims}
        idx = draw_indices(d, sub, rng)
        if idx is not None:
            out.append({**sub, **idx})
    big = {s: sp.Integer(max(BIG_DIM, d.domain.max_dim)) for s in dims}
    # one structure, BIG_POINTS draws of values: at the large size the concrete form is the
    # costly part, values are cheap
    idx = draw_indices(d, big, rng)
    if idx is not None:
        out.extend({**big, **idx} for _ in range(BIG_POINTS))
    if not out:
        ranges = {str(k): (str(lo), str(hi)) for k, (lo, hi) in d.domain.indices.items()}
        raise DerivationError(f"claim {d.id!r}: every index range {ranges} is empty at every "
                              f"size tried; give each index a range low <= high for some size")
    return out


# the matrix each entry symbol X[i,j] of an explicit matrix belongs to (explicit makes them), so
# that its value is drawn from the matrix's range
ENTRY_PARENT: dict[sp.Symbol, sp.MatrixSymbol] = {}


def _atom_key(atom):
    if isinstance(atom, sp.Indexed):
        return atom.base
    if isinstance(atom, MatrixElement):
        return atom.parent
    return ENTRY_PARENT.get(atom, atom)


def _assumed(key, name: str) -> bool:
    return bool(getattr(key, f"is_{name}", False)
                or getattr(getattr(key, "label", None), f"is_{name}", False))


MAX_TRIES = 200  # draws of a point's values until its hypotheses hold


class NoPoint(ArithmeticError):
    """No draw of values satisfies the claim's hypotheses at this point."""


def _structural(d) -> list:
    names = set(d.domain.dims) | set(d.domain.indices) | set(dims_of(d))
    return [h for h in getattr(d, "hypotheses", ()) if h.free_symbols <= names]


def structure_ok(d, structure: dict) -> bool:
    """Whether the hypotheses about sizes and indices alone hold for ``structure``."""
    return all(_truth(h.xreplace(structure), h) for h in _structural(d))


def _truth(value, h) -> bool:
    if isinstance(value, sp.logic.boolalg.BooleanAtom):
        return bool(value)
    raise DerivationError(f"the hypothesis {h} does not decide to true or false at a point "
                          f"(it became {value}); write it as a relation between real quantities")


def attempt_for(d, point: int, structure: dict, wide: bool) -> int:
    """The first draw of values (0, 1, …) at which every hypothesis holds: the same for both
    sides of a step, since it depends on the hypotheses' symbols alone."""
    hyps = [h for h in getattr(d, "hypotheses", ()) if h not in _structural(d)]
    if not hyps:
        return 0
    for attempt in range(MAX_TRIES):
        ok = True
        for h in hyps:
            hs = h.xreplace(structure)
            atoms = hs.atoms(sp.Symbol, sp.Indexed) - {i.base.label for i in hs.atoms(sp.Indexed)}
            filled = hs.xreplace({a: sp.Float(draw(d, point, a, wide, attempt), 30)
                                  for a in atoms})
            if not _truth(filled, h):
                ok = False
                break
        if ok:
            return attempt
    raise NoPoint(f"no values satisfying the hypotheses in {MAX_TRIES} draws")


_NAMES = ClaimMemo()  # atom -> its srepr, which names its draws


def _name(atom) -> str:
    """``sp.srepr(atom)``, printed once per claim: an atom is drawn at every point and size."""
    return _NAMES.get(atom) or _NAMES.keep(atom, sp.srepr(atom))


def draw(d: Derivation, point: int, atom, wide: bool = False,
         attempt: int = 0) -> mpmath.mpf:
    """A value for ``atom``: from its declared range, else over several orders of magnitude with
    the sign and integrality its assumptions allow.  Every value is a double, so it is exact at
    both precisions."""
    if isinstance(wide, JumpAt):
        return wide.draw(atom, d.domain.ranges.get(_atom_key(atom)))
    key = _atom_key(atom)
    rng = seeded("value", point, _name(atom), *(("wide" if wide is True else wide,) if wide
                                                    else ()),
                 *((f"try {attempt}",) if attempt else ()))
    ranges = d.domain.ranges
    if isinstance(key, sp.MatrixSymbol):  # the range is declared at symbolic size
        key = next((k for k in ranges if isinstance(k, sp.MatrixSymbol) and k.name == key.name),
                   key)
    if wide == LATTICE:
        return _lattice(key, ranges.get(key), rng)
    if key in ranges:
        lo, hi = ranges[key]
        return mpmath.mpf(rng.uniform(float(lo), float(hi)))
    positive, nonneg = _assumed(key, "positive"), _assumed(key, "nonnegative")
    integer = _assumed(key, "integer")
    if (nonneg or integer) and not positive and rng.random() < ZERO_SHARE:
        return mpmath.mpf(0)
    # stratified: over the POINTS an atom takes every 1/POINTS slice of the log-magnitude range
    # once, in an order of its own, so the extremes are always reached
    stratum = (point + int(hashlib.sha256(_name(atom).encode()).hexdigest(), 16)) % POINTS
    u = (stratum + rng.random()) / POINTS
    if integer:
        value = int(round(10 ** ((WIDE_INTEGER_LOG10 if wide else 2) * u)))
    else:
        lo, hi = WIDE_LOG10_RANGE if wide else LOG10_RANGE
        value = 10 ** (lo + (hi - lo) * u)
    if not (positive or nonneg) and rng.random() < 0.5:
        value = -value
    return mpmath.mpf(value)


def _lattice(key, bounds, rng: random.Random) -> mpmath.mpf:
    """A value where jumps are: a declared range's end or an integer in it, else a small integer
    or half with the sign and integrality the assumptions allow."""
    if bounds is not None:
        lo, hi = (float(b) for b in bounds)
        inside = list(range(int(mpmath.ceil(lo)), int(mpmath.floor(hi)) + 1))[:8]
        return mpmath.mpf(rng.choice([lo, hi, *inside]))
    allowed = [v for v in LATTICE_VALUES
               if (v > 0 or not _assumed(key, "positive"))
               and (v >= 0 or not _assumed(key, "nonnegative"))
               and (float(v).is_integer() or not _assumed(key, "integer"))]
    return mpmath.mpf(rng.choice(allowed))


def distribution_at(d: Derivation, point: int) -> str:
    family = FAMILIES[d.domain.distribution]
    return family[point % len(family)] if d.domain.random else "normal"
