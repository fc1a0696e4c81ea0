"""The symbolic route's proofs by cases: a difference is zero if it is zero in each of finitely
many cases that together cover every value its symbols may take.

* :func:`residue_classes` — an integer symbol n whose integer-only parts (Mod, floor, ceiling,
  frac, (−1)ⁿ, sin πn/2 …) have period P: n = P·m + r for r = 0..P−1 covers every integer (every
  nonnegative one with m ≥ 0), and in each class the parts settle to expressions in m free of
  them (⌊(3m + 1)/3⌋ = m, (−1)^(2m+1) = −1).  Several such symbols split jointly, when the
  classes are few (:data:`MAX_CLASSES`).  The classes cover n whatever the period read, so a
  misread period costs a proof, never makes one.
  A sum whose bounds hold n is split in turn by the residues of its own variable, when its term
  is periodic there (:func:`_split_sums`).
* :func:`one_period` — floors of a·x + b in one real symbol x (a, b rational) and terms that
  repeat with them: zero over one period, at each point where a floor steps and on each piece
  between, is zero everywhere.
* :func:`piecewise_branches` — a Piecewise whose conditions hold one real symbol x, branch by
  branch: a branch counts only where no earlier condition holds (its reach, a set SymPy
  computes); a branch reached nowhere is skipped, one reached at finitely many points is zero
  there, any other is zero everywhere.  Heaviside(x² − 2)·(x² − 2) − Max(x² − 2, 0) folds into
  branches ``simplify`` cannot dismiss, seeing the Piecewise whole: x²/2 − 1 where x² = 2, and
  branches no x reaches.

Each gives the cases as expressions that must all simplify to zero (``methods.own_forms``); one
it cannot build is no case, and the method does not apply.  Whatever they conclude, the numeric
route must agree.
"""

from __future__ import annotations

import itertools
import math

import sympy as sp

from derivations.engine.core.binders import bound_symbols

# the largest period split into residue classes: each class costs a limit
MAX_PERIOD = 12
# the most residue classes split at once, over every integer symbol: each costs a simplify
MAX_CLASSES = 16
_INTEGER_PARTS = (sp.Mod, sp.floor, sp.ceiling, sp.frac)


def _denominator(coeff: sp.Basic) -> int | None:
    return int(coeff.q) if isinstance(coeff, sp.Rational) else None


def _linear_period(arg: sp.Basic, n: sp.Symbol, scale: int) -> int | None:
    """The period in ``n`` of an integer-valued part of ``arg``, a polynomial in n with rational
    coefficients: ``scale`` times the denominators' lcm; None if ``arg`` is not one."""
    try:
        poly = sp.Poly(arg, n)
    except sp.PolynomialError:
        return None
    dens = [_denominator(c) for c in poly.all_coeffs()[:-1]]  # the constant term has no period
    if any(d is None for d in dens) or any(c.has(n) for c in poly.all_coeffs()):
        return None
    return scale * math.lcm(1, *dens)


def _period(f: sp.Basic, n: sp.Symbol) -> int | None:
    """The lcm of the periods of ``f``'s integer-only parts in n; None if one has none."""
    periods = [1]
    for node in sp.preorder_traversal(f):
        if not getattr(node, "has", None) or not node.has(n):
            continue
        if isinstance(node, sp.Mod):
            k = node.args[1]
            if not (k.is_Integer and k > 0):
                return None
            periods.append(_linear_period(node.args[0], n, int(k)))
        elif isinstance(node, sp.floor | sp.ceiling | sp.frac):
            periods.append(_linear_period(node.args[0], n, 1))
        elif isinstance(node, sp.Pow) and node.exp.has(n) and not node.base.has(n):
            if node.base.is_positive:
                continue
            if node.base != -1:
                return None
            periods.append(_linear_period(node.exp, n, 2))
        elif isinstance(node, sp.sin | sp.cos | sp.tan) and node.args[0].has(n):
            # periodic along the integers only when its argument is π times a polynomial with
            # rational coefficients; otherwise it is a function of a real n like any other
            ratio = sp.expand(node.args[0] / sp.pi)
            period = None if ratio.has(sp.pi) else _linear_period(ratio, n, 2)
            periods.append(period or 1)
        elif isinstance(node, sp.Sum) and not node.function.has(n) and len(node.limits) == 1:
            continue  # n in its bounds only: the classes split the sum (_split_sums)
        elif isinstance(node, sp.Sum | sp.Product | sp.Limit | sp.Integral):
            return None
    if any(p is None for p in periods):
        return None
    period = math.lcm(*periods)
    return period if period <= MAX_PERIOD else None


def _settle(g: sp.Basic) -> sp.Basic:
    """floor, ceiling and frac of an integer plus a constant settle on the integer part."""
    return g.replace(lambda e: isinstance(e, sp.frac), lambda e: e.rewrite(sp.floor))


def residue_classes(diff: sp.Basic) -> list[sp.Basic] | None:
    """``diff`` in every joint residue class of its periodic integer symbols, settled; None when
    no free integer symbol has a period above 1 or the classes would be more than
    :data:`MAX_CLASSES`."""
    bound = bound_symbols(diff, derivatives=True)
    periods = {}
    for s in sorted(diff.free_symbols, key=sp.default_sort_key):
        if isinstance(s, sp.Symbol) and s.is_integer and s not in bound:
            period = _period(diff, s)
            if period is not None and period > 1:
                periods[s] = period
    if not periods or math.prod(periods.values()) > MAX_CLASSES:
        return None
    # m ≥ 0 covers a nonnegative n, any integer m every n: a superset of n's values is no harm
    quotients = {s: sp.Dummy("m", integer=True, **({"nonnegative": True} if s.is_nonnegative
                                                   else {})) for s in periods}
    classes = []
    for residues in itertools.product(*(range(p) for p in periods.values())):
        at = {s: p * quotients[s] + r for (s, p), r in zip(periods.items(), residues, strict=True)}
        classes.append(_settle(_split_sums(diff.xreplace(at))))
    return classes


def _split_sums(expr: sp.Basic) -> sp.Basic:
    """Σ_{k=lo}^{hi} f(k) with f of period P in k and hi − lo + 1 = P·q + c (q a nonnegative
    integer, 0 ≤ c < P) as Σ_{s<P} Σ_{j<q} f(lo + s + Pj) + Σ_{i<c} f(lo + Pq + i): each inner
    term then settles (⌊(2j + 1)/2⌋ = j).  A length that may be negative is left alone — the
    sum is empty there, and split sums would follow Karr's convention instead."""
    def split(node: sp.Sum) -> sp.Basic:
        if len(node.limits) != 1 or len(node.limits[0]) != 3:
            return node
        f, (k, lo, hi) = node.function, node.limits[0]
        period = _period(f, k)
        if period is None or period < 2:
            return node
        length = sp.expand(hi - lo + 1)
        c = length.as_coeff_Add()[0]
        if not c.is_Integer:
            return node
        c = int(c) % period
        q = sp.expand((length - c) / period)
        try:
            integral = all(x.is_Integer for x in sp.Poly(q, *q.free_symbols).coeffs()) \
                if q.free_symbols else q.is_Integer
        except sp.PolynomialError:
            return node
        if not (integral and q.is_nonnegative):
            return node
        j = sp.Dummy("j", integer=True, nonnegative=True)
        whole = sp.Add(*(sp.Sum(f.xreplace({k: lo + r + period * j}), (j, 0, q - 1))
                         for r in range(period)))
        return whole + sp.Add(*(f.xreplace({k: lo + period * q + i}) for i in range(c)))
    return expr.replace(lambda e: isinstance(e, sp.Sum), split)


def _reach_cases(value: sp.Basic, reach: sp.Set, x: sp.Symbol) -> list[sp.Basic]:
    """What must be zero for a branch worth ``value`` on ``reach``: nothing where it is empty,
    its value at each point of a finite reach, else the value itself (a reach SymPy leaves
    undecided among them)."""
    if reach.is_empty:
        return []
    if isinstance(reach, sp.FiniteSet):
        return [value.subs(x, p) for p in reach]
    return [value]


def piecewise_branches(diff: sp.Basic) -> list[sp.Basic] | None:
    """The branches of ``diff`` folded into one Piecewise, each on its reach
    (:func:`_reach_cases`), when its conditions hold one real symbol and cover the real line;
    None otherwise, or when SymPy cannot compute a condition's set."""
    try:
        folded = sp.piecewise_fold(diff.rewrite(sp.Piecewise))
        if not isinstance(folded, sp.Piecewise):
            return None
        held = set().union(*(cond.free_symbols for _, cond in folded.args))
        if len(held) != 1:
            return None
        (x,) = held
        if not (isinstance(x, sp.Symbol) and x.is_real):
            return None
        covered, cases = sp.S.EmptySet, []
        for value, cond in folded.args:
            where = cond.as_set().intersect(sp.S.Reals)  # True is the universal set
            reach = sp.Complement(where, covered)
            cases += _reach_cases(value, reach, x)
            covered = sp.Union(covered, where)
        if not sp.Complement(sp.S.Reals, covered).is_empty:
            return None  # a point no branch reaches: the Piecewise is undefined there
        return cases
    except Exception:  # noqa: BLE001 - a set SymPy cannot compute is no case
        return None


MAX_PERIOD_POINTS = 48  # the most points where a floor steps within one period


def one_period(diff: sp.Basic) -> list[sp.Basic] | None:
    """A difference in one real symbol x made of floor, ceiling and frac of a·x + b (a, b
    rational) and terms that repeat with them: if it repeats with the period P at which every a·P
    is an integer, it is zero when it is zero at each point of [0, P) where a part steps and on
    each open piece between them, with every part fixed there (⌊2x⌋ = ⌊x⌋ + ⌊x + 1/2⌋)."""
    xs = [s for s in diff.free_symbols if s.is_real and not s.is_integer]
    if len(xs) != 1 or bound_symbols(diff):
        return None
    x = xs[0]
    diff = diff.rewrite(sp.floor)  # frac(y) = y − ⌊y⌋, ceiling(y) = −⌊−y⌋
    parts = [p for p in diff.atoms(sp.floor) if p.has(x)]
    slopes = []
    for part in parts:
        arg = sp.expand(part.args[0])
        a, b = arg.coeff(x), arg.subs(x, 0)
        if not (isinstance(a, sp.Rational) and isinstance(b, sp.Rational) and a != 0
                and sp.expand(arg - a * x - b) == 0):
            return None
        slopes.append((a, b))
    if not slopes:
        return None
    period = sp.Rational(math.lcm(*(int(a.q) for a, _ in slopes)),
                         math.gcd(*(int(a.p) for a, _ in slopes)))
    # ⌊a(x + P) + b⌋ = ⌊ax + b⌋ + aP: SymPy does not take the integer out of a floor
    held = {part: sp.Dummy() for part in parts}
    core = diff.xreplace(held)
    shifted = core.xreplace({x: x + period}).xreplace(
        {held[part]: held[part] + a * period for part, (a, _) in zip(parts, slopes, strict=True)})
    if sp.simplify(shifted - core) != 0:
        return None
    points = set()
    for a, b in slopes:  # a·x + b = k for x in [0, P)
        ends = sorted((b, a * period + b))
        points |= {(k - b) / a for k in range(math.ceil(ends[0]), math.floor(ends[1]) + 1)}
    points = sorted(p for p in points if 0 <= p < period)
    if len(points) > MAX_PERIOD_POINTS:
        return None
    if not points or points[0] != 0:
        points.insert(0, sp.Integer(0))
    cases = [diff.xreplace({x: p}) for p in points]
    for lo, hi in itertools.pairwise([*points, period]):
        mid = (lo + hi) / 2
        cases.append(diff.xreplace({part: part.xreplace({x: mid}) for part in parts}))
    return cases
