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

from derivations.engine.core import hypotheses as hyp
from derivations.engine.core.budget import ClaimMemo
from derivations.engine.core.claim import Derivation
from derivations.engine.core.errors import DerivationError
from derivations.engine.core.stochastic import FAMILIES
from derivations.engine.numeric.solving import solve_at

POINTS = 20
BIG_DIM = 6  # every claim is also evaluated with every size at 6 ...
BIG_POINTS = 2  # ... at this many of its POINTS (the costly ones)
LOG10_RANGE = (-3.0, 2.0)  # magnitudes of unconstrained values: 0.001 .. 100
# A step that only the numeric route agreed on is probed further before it may end `numeric`:
# sizes past BIG_DIM where the step has no matrix (cheap there), and values over a wider range.
# every size from 5 (the one the schedule skips) to 16, then a few far apart
PROBE_SIZES = (5, *range(7, 17), 24, 32, 48, 64)
# a step with matrices before it may end `numeric`: the sizes past the sampled ones up to 8 (a
# matrix step costs its size squared in entries; the probe stops at a size that costs too much)
MATRIX_PROBE_SIZES = (5, 7, 8)
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


ZERO_EVERY = 4


def may_be_zero(s) -> bool:
    """A size declared nonnegative, not positive: Σ_{i=0}^{m} and Π_{i=1}^{m} at m = 0 are the
    empty sum and product, where a closed form often fails (0^m = 0, (1 − 1)^m = 0)."""
    return bool(s.is_nonnegative) and not s.is_positive


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
    zero = [s for s in dims if may_be_zero(s)]
    rng = seeded(SCHEDULE_SEED)
    out, tries = [], 0
    while len(out) < POINTS - BIG_POINTS and tries < 20 * POINTS:
        tries += 1
        sub = {s: sp.Integer(rng.randint(1, d.domain.max_dim)) for s in dims}
        # a size that may be 0 is 0 at every ZERO_EVERY-th point, each such size at points of
        # its own (the same random stream as before for the rest: other claims draw as they did)
        for k, s in enumerate(zero):
            if (len(out) + k) % ZERO_EVERY == 1:
                sub[s] = sp.Integer(0)
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
STRATUM_TRIES = 4  # draws in one magnitude slice before the next is tried


class NoPoint(ArithmeticError):
    """No draw of values satisfies the claim's hypotheses at this point."""


class Unmet(DerivationError):
    """No draw of values at a sampled point meets the claim's hypotheses: the claim is refused,
    naming the hypothesis (a probe point where none does is only skipped)."""


class Attempt(int):
    """Which draw of a point's values meets its hypotheses (0, 1, …; it seeds the draws), with
    the values its equality hypotheses were solved for."""

    solved: dict

    def __new__(cls, number: int, solved: dict):
        out = super().__new__(cls, number)
        out.solved = solved
        return out


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


_PLANS = ClaimMemo()  # the hypotheses -> what the sampler reads from them


def _plan(d) -> tuple:
    """(bounds by symbol, equality -> its solved key, the other value hypotheses)."""
    hyps = tuple(getattr(d, "hypotheses", ()))
    key = (hyps, tuple(d.domain.dims), tuple(d.domain.indices), tuple(d.domain.random))
    plan = _PLANS.get(key)
    if plan is None:
        values = [h for h in hyps if h not in _structural(d)]
        solved = hyp.solved_keys(d) if hyp.equalities(values) else {}
        plan = _PLANS.keep(key, (hyp.bounds(values), solved,
                                 [h for h in values if h not in solved]))
    return plan


def _fixed(d) -> set:
    return (set(d.domain.dims) | set(d.domain.indices) | set(d.domain.random)
            | set(dims_of(d)))


def attempt_for(d, point: int, structure: dict, wide) -> int:
    """The first draw of values (0, 1, …) at which every hypothesis holds, with the values its
    equalities are solved for (:class:`Attempt`): the same for both sides of a step, since it
    depends on the hypotheses alone."""
    _, solved_keys, rest = _plan(d)
    if not solved_keys and not rest:
        return 0
    fixed = _fixed(d)
    failed: dict = {}
    for attempt in range(MAX_TRIES):
        solved: dict = {}
        so_far = Attempt(attempt, solved)  # the draws of this attempt, the solved ones among them
        for h, key in solved_keys.items():
            got = solve_at(h, key, structure, fixed,
                           lambda a, at=so_far: draw(d, point, a, wide, at),
                           _assumed(key, "positive") or _assumed(key, "nonnegative"))
            if got is None or not all(_admissible(d, a, v) for a, v in got.items()):
                failed[h] = failed.get(h, 0) + 1
                solved = None
                break
            solved.update(got)
        if solved is None:
            continue
        at = Attempt(attempt, solved)
        miss = next((h for h in rest if not _holds(d, h, point, structure, wide, at)), None)
        if miss is None:
            return at
        failed[miss] = failed.get(miss, 0) + 1
    worst = max(failed, key=failed.get)
    if not wide:
        shown = ", ".join(f"{k} = {v}" for k, v in structure.items())
        raise Unmet(f"claim {d.id!r}: no point drawn meets the hypothesis {worst} ({MAX_TRIES} "
                    f"draws of the values{f' at {shown}' if shown else ''}); the numeric route "
                    f"draws inside a bound of one symbol by a constant (x > c) and solves an "
                    f"equality (sp.Eq) for one symbol it is linear in — write it so, or declare "
                    f"where it holds with Domain(ranges=...)")
    raise NoPoint(f"no values meeting the hypothesis {worst} in {MAX_TRIES} draws")


def _holds(d, h, point, structure, wide, attempt) -> bool:
    hs = hyp.written_out(h, structure)
    atoms = hs.atoms(sp.Symbol, sp.Indexed) - {i.base.label for i in hs.atoms(sp.Indexed)}
    filled = hs.xreplace({a: sp.Float(draw(d, point, a, wide, attempt), 30) for a in atoms})
    return _truth(filled, h)


def _admissible(d, atom, value) -> bool:
    """Whether a solved value is one its symbol could have been drawn as: its sign, its range."""
    key = _atom_key(atom)
    if (_assumed(key, "positive") and not value > 0) or (
            _assumed(key, "nonnegative") and not value >= 0):
        return False
    bounds = d.domain.ranges.get(key)
    return bounds is None or float(bounds[0]) <= value <= float(bounds[1])


_NAMES = ClaimMemo()  # atom -> its srepr, which names its draws


def _name(atom) -> str:
    """``sp.srepr(atom)``, printed once per claim: an atom is drawn at every point and size."""
    return _NAMES.get(atom) or _NAMES.keep(atom, sp.srepr(atom))


def draw(d: Derivation, point: int, atom, wide: bool = False,
         attempt: int = 0) -> mpmath.mpf:
    """A value for ``atom``: from its declared range and inside the bounds the hypotheses give
    it, else over several orders of magnitude with the sign and integrality its assumptions
    allow — complex for a symbol declared without real=True.  Every value is a double (or a
    pair of them), so it is exact at every precision; a value an equality hypothesis is solved
    for comes from ``attempt``."""
    solved = getattr(attempt, "solved", None)
    if solved and atom in solved:
        return solved[atom]
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
    bounded = _plan(d)[0].get(key) if getattr(d, "hypotheses", ()) else None
    if wide == LATTICE:
        return _lattice(key, ranges.get(key) or _ends(bounded), rng)
    if key in ranges:
        lo, hi = ranges[key]
        if bounded is not None:
            lo, hi = _inside(bounded, float(lo), float(hi))
        return mpmath.mpf(rng.uniform(float(lo), float(hi)))
    positive, nonneg = _assumed(key, "positive"), _assumed(key, "nonnegative")
    integer = _assumed(key, "integer")
    if bounded is not None and not integer:
        return _within(key, bounded, point, atom, rng, wide)
    if (nonneg or integer) and not positive and rng.random() < ZERO_SHARE:
        return mpmath.mpf(0)
    u = _stratum(point, atom, rng, attempt)
    if integer:
        value = int(round(10 ** ((WIDE_INTEGER_LOG10 if wide else 2) * u)))
    else:
        lo, hi = WIDE_LOG10_RANGE if wide else LOG10_RANGE
        value = 10 ** (lo + (hi - lo) * u)
    if _complex(d, key):
        return _on_circle(value, rng)
    if not (positive or nonneg) and rng.random() < 0.5:
        value = -value
    return mpmath.mpf(value)


def _stratum(point: int, atom, rng: random.Random, attempt: int = 0) -> float:
    """Stratified: over the POINTS an atom takes every 1/POINTS slice of the log-magnitude range
    once, in an order of its own, so the extremes are always reached.  A point whose hypotheses
    its first draws miss moves to the next slice every STRATUM_TRIES draws: a hypothesis such as
    Σ z_k² > 1 is never met inside a slice of small magnitudes, however often it is redrawn."""
    stratum = (point + int(hashlib.sha256(_name(atom).encode()).hexdigest(), 16)
               + int(attempt) // STRATUM_TRIES) % POINTS
    return (stratum + rng.random()) / POINTS


def _complex(d, key) -> bool:
    """A value that may be complex: a symbol or indexed symbol declared without real=True (a sign
    or integrality implies it), not random (a random variable follows its real law)."""
    if not isinstance(key, sp.Symbol | sp.IndexedBase) or key in d.domain.random:
        return False
    return not _assumed(key, "real")


def _on_circle(modulus: float, rng: random.Random) -> mpmath.mpc:
    """A complex value of the given modulus at a seeded angle, from the rational parametrisation
    of the circle (t = tan(θ/2)): basic arithmetic only, so the same double on every machine."""
    t = rng.uniform(-1.0, 1.0)
    if rng.random() < 0.5:
        t = 1 / t if t else 1.0
    cos, sin = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
    return mpmath.mpc(modulus * cos, modulus * sin)


def _inside(b: hyp.Bounds, lo: float, hi: float) -> tuple[float, float]:
    """A declared range narrowed to a hypothesis' bounds (the claim refuses an empty one)."""
    return (max(lo, float(b.lo)) if b.lo is not None else lo,
            min(hi, float(b.hi)) if b.hi is not None else hi)


def _ends(b: hyp.Bounds | None):
    if b is None or b.lo is None and b.hi is None:
        return None
    return (b.lo, b.hi)


def _within(key, b: hyp.Bounds, point: int, atom, rng: random.Random, wide) -> mpmath.mpf:
    """A value inside a hypothesis' bounds (and the symbol's sign): between two ends, uniform; past
    one end c, c ± max(1, |c|)·10^u over the usual magnitudes (x > 1000: 1000.001 .. 101000)."""
    lo, hi = (None if e is None else float(e) for e in (b.lo, b.hi))
    if _assumed(key, "positive") or _assumed(key, "nonnegative"):
        lo = 0.0 if lo is None else max(lo, 0.0)
    if _assumed(key, "negative") or _assumed(key, "nonpositive"):
        hi = 0.0 if hi is None else min(hi, 0.0)
    if lo is not None and hi is not None:
        return mpmath.mpf(rng.uniform(lo, hi))
    low, high = WIDE_LOG10_RANGE if wide else LOG10_RANGE
    offset = 10 ** (low + (high - low) * _stratum(point, atom, rng))
    if lo is None and hi is None:
        return mpmath.mpf(offset if rng.random() < 0.5 else -offset)
    edge = lo if lo is not None else hi
    step = max(1.0, abs(edge)) * offset
    return mpmath.mpf(edge + step if lo is not None else edge - step)


def _lattice(key, bounds, rng: random.Random) -> mpmath.mpf:
    """A value where jumps are: a declared range's end or an integer in it (the end of a
    hypothesis' bound and a few past it), else a small integer or half with the sign and
    integrality the assumptions allow."""
    if bounds is not None and None in bounds:
        edge = float(bounds[0] if bounds[0] is not None else bounds[1])
        way = 1 if bounds[0] is not None else -1
        return mpmath.mpf(rng.choice([edge + way * v for v in (0, 0.5, 1, 2, 10)]))
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
