"""Definite integrals by the fundamental theorem of calculus, each of its conditions shown — the
symbolic route's own method for integrals SymPy's ``doit`` gets wrong (an antiderivative that
jumps inside the interval, a parameter's sign, the closed form 0 for ∫ dx/(x² + 2ax + 1)).

∫_u^v f dx = F(v⁻) − F(u⁺) when F is continuous on (u, v) and F' = f there; improper ends are
one-sided limits.  None of the three is taken from SymPy on trust:

* f is first put in a form the cuts can read: an inverse function applied to its function
  undone (atan(tan x) = x − π⌊x/π + 1/2⌋), the root of a square of sin and cos an absolute value
  (√(1 − cos x) = √2·|sin(x/2)|, by sin² + cos² = 1);
* the interval is cut where a sign part of f (sign, Abs, Heaviside, Max, Min, floor, ceiling)
  may change: at the roots of its argument, each shown to lie inside, outside or at an end; on a
  piece the part is fixed by its sign at the piece's midpoint;
* F is SymPy's antiderivative of the piece (``integrate``'s, else ``manualintegrate``'s), kept
  only if F' − f simplifies to zero;
* every place where F could jump or leave the reals — a denominator, the argument of a
  logarithm, of a root, of asin or acos — keeps one sign on the open piece, for every parameter in
  its declared range (:mod:`derivations.engine.symbolic.signs`, with a parameter a ∈ (lo, hi)
  written lo + (hi − lo)·t/(1 + t) and a point of the piece u + (v − u)·s/(1 + s), t, s > 0); a tan
  or a floor in F (SymPy's antiderivatives of trigonometric quotients) cuts the piece again where it
  jumps.  A logarithm of a negative argument is taken of its negation (the same derivative).

An integral over a period of a rational function of sin x and cos x is first tried by residues
(:mod:`derivations.engine.symbolic.residues`), which needs no antiderivative.

A parameter's range is closed: its ends are substituted as numbers and proved as cases of their
own.  Whatever is not shown leaves the integral to the other methods, and the numeric route
evaluates every integral by quadrature whatever this one concludes.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import sympy as sp
from sympy.integrals.manualintegrate import manualintegrate

from derivations.engine.symbolic.methods import inverses_undone
from derivations.engine.symbolic.residues import by_residues
from derivations.engine.symbolic.signs import NotShown, sign_for_positive

_SIGN_PARTS = (sp.sign, sp.Abs, sp.Heaviside, sp.Max, sp.Min, sp.floor, sp.ceiling)
# continuous wherever their arguments are real and continuous
_CONTINUOUS = (sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.tanh, sp.atan, sp.erf)
_MAX_PARAMETERS = 2  # the ends of each range are cases of their own: 3^k of them


RESIDUES = "residues on the unit circle"
ANTIDERIVATIVE = ("the fundamental theorem of calculus (an antiderivative checked by "
                  "differentiation and shown continuous on each piece)")


class Evaluated(NamedTuple):
    cases: list  # the expression once per case of its ranged parameters
    methods: tuple[str, ...]  # RESIDUES, ANTIDERIVATIVE: the ones used


def integrals_by_antiderivative(expr: sp.Basic, ranges: dict) -> Evaluated | None:
    """``expr`` with every definite integral replaced by its value, one expression per case of
    the ranged parameters it contains (inside the ranges, and at each end), or None."""
    if not expr.has(sp.Integral):
        return None
    params = sorted((s for s in expr.free_symbols if s in ranges), key=sp.default_sort_key)
    if len(params) > _MAX_PARAMETERS:
        return None
    cases, used = [], set()
    try:
        for ends in itertools.product(("inside", "low", "high"), repeat=len(params)):
            sub, positive = {}, []
            for s, end in zip(params, ends, strict=True):
                lo, hi = (_exact(b) for b in ranges[s])
                if not (lo.is_finite and hi.is_finite):
                    return None
                if end == "inside":
                    t = sp.Dummy(f"t_{s.name}", positive=True)
                    positive.append(t)
                    sub[s] = lo + (hi - lo) * t / (1 + t)
                else:
                    sub[s] = lo if end == "low" else hi
                    if sub[s] == 0 and (s.is_positive or s.is_negative or s.is_nonzero):
                        break  # an end the symbol's own sign excludes is no case
            else:
                case = expr.xreplace(sub)
                cases.append(case.xreplace({node: _definite(node, positive, used)
                                            for node in case.atoms(sp.Integral)}))
    except (NotShown, sp.PolynomialError, NotImplementedError, TypeError, ValueError):
        return None
    return Evaluated(cases, tuple(sorted(used)))


def _exact(bound) -> sp.Basic:
    """A range's end as written: the float 0.1 is the decimal 1/10."""
    bound = sp.sympify(bound, strict=True)
    return sp.Rational(str(bound)) if isinstance(bound, sp.Float) else bound


def _definite(node: sp.Integral, positive: list, used: set) -> sp.Basic:
    if len(node.limits) != 1 or len(node.limits[0]) != 3:
        raise NotShown("one variable, two bounds")
    f, (x, u, v) = node.function, node.limits[0]
    if f.has(sp.Integral) or not x.is_real:
        raise NotShown("a real variable and no integral inside")
    order = sign_for_positive(v - u, positive)
    if order is None:
        raise NotShown("bounds in a known order")
    if order < 0:
        return -_definite(sp.Integral(f, (x, v, u)), positive, used)
    f = _squares_rooted(inverses_undone(f), x)
    node = sp.Integral(f, (x, u, v))
    try:
        value = by_residues(node, positive)
        used.add(RESIDUES)
        return value
    except NotShown:
        pass
    used.add(ANTIDERIVATIVE)
    ends = [u, *_cuts(f, x, u, v, positive), v]
    return sp.Add(*(_piece(f, x, a, b, positive) for a, b in zip(ends, ends[1:], strict=False)))


def _squares_rooted(f, x) -> sp.Basic:
    """√B as √c·|Q| where B = c·Q² once sin² + cos² = 1 makes it homogeneous in sin and cos of
    x or of x/2: √(1 − cos x) = √2·|sin(x/2)|, √(1 − sin 2x) = |sin x − cos x|."""
    def rooted(node):
        base = node.base
        S, C, y = sp.Dummy("S"), sp.Dummy("C"), sp.Dummy("y", real=True)
        for scale in (1, 2):
            p = sp.expand(sp.expand_trig(base.xreplace({x: scale * y}))
                          .xreplace({sp.sin(y): S, sp.cos(y): C}))
            if p.has(x) or not p.is_polynomial(S, C):
                continue
            poly = sp.Poly(p, S, C)
            degrees = {sum(m) for m in poly.monoms()}
            top = max(degrees)
            if any((top - d) % 2 for d in degrees):
                continue
            homogeneous = sp.Add(*(c * S**i * C**j * (S**2 + C**2) ** ((top - i - j) // 2)
                                   for (i, j), c in poly.terms()))
            coeff, factors = sp.factor_list(homogeneous)
            if coeff.is_positive and factors and all(m % 2 == 0 for _, m in factors):
                q = sp.Mul(*(b ** (m // 2) for b, m in factors))
                return sp.sqrt(coeff) * sp.Abs(q.xreplace({S: sp.sin(x / scale),
                                                            C: sp.cos(x / scale)}))
        return node
    return f.replace(lambda e: isinstance(e, sp.Pow) and e.exp == sp.Rational(1, 2)
                     and e.base.has(sp.sin, sp.cos) and e.base.has(x), rooted)


def _arguments(part: sp.Basic) -> list[sp.Basic]:
    if isinstance(part, sp.Max | sp.Min):
        return [p - q for p, q in itertools.combinations(part.args, 2)]
    return [part.args[0]]


def _cuts(f, x, u, v, positive) -> list[sp.Basic]:
    """The points strictly inside (u, v) where a sign part of f may change, in order."""
    pairs = []
    for part in f.atoms(*_SIGN_PARTS):
        if not part.has(x):
            continue
        if any(inner != part and inner.has(x) for inner in
               (n for arg in part.args for n in sp.preorder_traversal(arg))
               if isinstance(inner, _SIGN_PARTS)):
            raise NotShown("sign parts not nested")
        pairs += [(part, h) for h in _arguments(part)]
    return _steps(pairs, x, u, v, positive)


def _steps(pairs, x, u, v, positive) -> list[sp.Basic]:
    """The points strictly inside (u, v), in order, where h is 0 (or an integer, for a floor or
    ceiling part) for a pair (part, h)."""
    found = []
    for part, h in pairs:
        for level in _levels(part, h, x, u, v):
            found += _roots_inside(h - level, x, u, v, positive)
    return _ordered(sorted(dict.fromkeys(found), key=sp.default_sort_key), positive)


def _levels(part, h, x, u, v) -> list[sp.Basic]:
    """0 for a sign; every integer h passes on [u, v] for floor and ceiling — h linear in x with
    numeric coefficients and numeric bounds, so that the integers between its ends are all."""
    if not isinstance(part, sp.floor | sp.ceiling):
        return [sp.Integer(0)]
    slope = sp.diff(h, x)
    if not (slope.is_number and u.is_number and v.is_number and h.free_symbols == {x}
            and sp.diff(slope, x) == 0):
        raise NotShown("floor of a linear function on numeric bounds")
    lo, hi = sorted((h.subs(x, u), h.subs(x, v)), key=float)
    return [sp.Integer(k) for k in range(math.ceil(lo), math.floor(hi) + 1)]


def _roots_inside(h, x, u, v, positive) -> list[sp.Basic]:
    where = sp.Interval(u, v) if u.is_number and v.is_number else sp.S.Reals
    roots = sp.solveset(h, x, where)
    if not isinstance(roots, sp.FiniteSet):
        raise NotShown("finitely many roots, all found")
    inside = []
    for r in roots:
        after = sign_for_positive(r - u, positive, zero=True)
        before = sign_for_positive(v - r, positive, zero=True)
        if after is None or before is None:
            raise NotShown("each root inside, outside or at an end")
        if after > 0 and before > 0:
            inside.append(r)
    return inside


def _ordered(points: list, positive: list) -> list:
    for i in range(1, len(points)):  # insertion sort by proved comparisons
        j = i
        while j > 0:
            s = sign_for_positive(points[j] - points[j - 1], positive)
            if s is None:
                raise NotShown("cut points in a known order")
            if s > 0:
                break
            points[j - 1], points[j] = points[j], points[j - 1]
            j -= 1
    return points


def _point(u, v, s: sp.Dummy) -> sp.Basic:
    """A point of (u, v) for every s > 0, and only those."""
    if u == -sp.oo and v == sp.oo:
        return s - 1 / s
    if v == sp.oo:
        return u + s
    if u == -sp.oo:
        return v - s
    return u + (v - u) * s / (1 + s)


# where antiderivatives come from, in order: each is kept only if it passes every check, so a
# second source costs time, never soundness (manualintegrate's asin(x/|a|) for a < 0 where
# integrate gives a Piecewise)
SOURCES = (sp.integrate, manualintegrate)


def _piece(f, x, u, v, positive) -> sp.Basic:
    mid = _point(u, v, sp.Integer(1))
    fixed = {part: _fixed(part, x, mid, positive) for part in f.atoms(*_SIGN_PARTS)
             if part.has(x)}
    g = f.xreplace(fixed)
    failed = NotShown("an antiderivative")
    for source in SOURCES:
        try:
            return _fundamental(source(g, x), g, x, u, v, positive)
        except NotShown as exc:
            failed = exc
    raise failed


def _fundamental(F, g, x, u, v, positive) -> sp.Basic:
    """F(v⁻) − F(u⁺), once F is shown an antiderivative of g, continuous on (u, v)."""
    if F.has(sp.Integral, sp.Piecewise):
        raise NotShown("an antiderivative")
    # SymPy's antiderivatives of trigonometric quotients are tan(x/2) with floor added to undo
    # its jumps: the piece is cut again where either jumps, and each is fixed on its part
    steps = {part: sp.Dummy() for part in F.atoms(sp.floor, sp.ceiling) if part.has(x)}
    if not _vanishes(sp.diff(F.xreplace(steps), x) - g, x):
        raise NotShown("an antiderivative whose derivative is the integrand")
    ends = [u, *_jumps([*steps, *(node for node in F.atoms(sp.tan) if node.has(x))], x, u, v,
                       positive), v]
    return sp.Add(*(_part(F, x, a, b, positive) for a, b in zip(ends, ends[1:], strict=False)))


def _vanishes(e, x) -> bool:
    if sp.simplify(e) == 0:
        return True
    if not e.has(sp.sin, sp.cos, sp.tan):
        return False
    # sin, cos and tan of x as rational functions of w = tan(x/2)
    w = sp.Dummy("w")
    e = e.rewrite(sp.tan).xreplace({sp.tan(x / 2): w})
    return not e.has(x) and sp.cancel(sp.together(e)) == 0


def _jumps(nodes, x, u, v, positive) -> list[sp.Basic]:
    """The points inside (u, v), in order, where a floor or ceiling of F steps or a tan has a
    pole — where h/π − 1/2 is an integer, for tan(h)."""
    pairs = []
    for node in nodes:
        h = node.args[0]
        if isinstance(node, sp.tan):
            h = h / sp.pi - sp.Rational(1, 2)
            node = sp.floor(h)
        pairs.append((node, h))
    return _steps(pairs, x, u, v, positive)


def _part(F, x, u, v, positive) -> sp.Basic:
    s = sp.Dummy("s", positive=True)
    mid = _point(u, v, sp.Integer(1))
    F = F.xreplace({part: _fixed(part, x, mid, positive)
                    for part in F.atoms(sp.floor, sp.ceiling) if part.has(x)})
    F = _continuous(F, x, _point(u, v, s), [*positive, s])
    return _end(F, x, v, "-", positive) - _end(F, x, u, "+", positive)


def _fixed(part, x, mid, positive) -> sp.Basic:
    """The constant or branch a sign part takes on a piece, read at its midpoint."""
    if isinstance(part, sp.floor | sp.ceiling):
        return type(part)(part.args[0].subs(x, mid))
    if isinstance(part, sp.Max | sp.Min):
        for a in part.args:
            if all(sign_for_positive((a - b if isinstance(part, sp.Max) else b - a).subs(x, mid),
                         positive) == 1 for b in part.args if b != a):
                return a
        raise NotShown("one argument of Max or Min largest on each piece")
    h = part.args[0]
    sign = sign_for_positive(h.subs(x, mid), positive)
    if sign is None:
        raise NotShown("the sign of a sign part on each piece")
    if isinstance(part, sp.Abs):
        return sign * h
    if isinstance(part, sp.Heaviside):
        return sp.Integer(1 if sign > 0 else 0)
    return sp.Integer(sign)


def _continuous(F, x, point, inside) -> sp.Basic:
    """F with logarithms of negative arguments negated, once every node of F is shown real and
    continuous on the open piece (x = point, over every positive value of ``inside``)."""
    if F.has(sp.I, sp.zoo, sp.nan, sp.oo):
        raise NotShown("a real antiderivative")
    negated = {}
    for node in sp.preorder_traversal(F):
        if node.is_Atom or isinstance(node, (sp.Add, sp.Mul, *_CONTINUOUS)):
            continue
        if isinstance(node, sp.Pow):
            base, k = node.args
            sign = sign_for_positive(base.subs(x, point), inside)
            if not (sign == 1 or (sign == -1 and k.is_integer)):
                raise NotShown("powers of bases of one sign, roots of positive ones")
        elif isinstance(node, sp.log):
            sign = sign_for_positive(node.args[0].subs(x, point), inside)
            if sign is None:
                raise NotShown("logarithms of arguments of one sign")
            if sign < 0:
                negated[node] = sp.log(-node.args[0])
        elif isinstance(node, sp.tan):
            continue  # its poles were cut (_jumps)
        elif isinstance(node, sp.asin | sp.acos):
            if sign_for_positive((1 - node.args[0] ** 2).subs(x, point), inside) != 1:
                raise NotShown("asin and acos of arguments inside (-1, 1)")
        else:
            raise NotShown(f"{type(node).__name__} is not among the continuous functions")
    return F.xreplace(negated)


def _end(F, x, at, side: str, positive) -> sp.Basic:
    value = sp.limit(F, x, at, side)
    if value.has(sp.Limit, sp.oo, -sp.oo, sp.zoo, sp.nan, sp.AccumBounds):
        raise NotShown("a finite limit at each end")
    return value


# ---- the values' normal form -----------------------------------------------------------------


def vanishes(case: sp.Basic, is_zero) -> bool:
    """Whether a case of :func:`integrals_by_antiderivative` is zero by ``is_zero``, its roots
    split before and once more after SymPy's simplify (which may join them again)."""
    case = settled_values(case)
    return is_zero(case) or is_zero(settled_values(sp.simplify(case)))


def settled_values(expr: sp.Basic) -> sp.Basic:
    """Roots of factored radicands split into roots of their factors, which SymPy does when the
    factors are known positive (the dummies t, s are), and atan(1/w) for w > 0 written
    π/2 − atan(w): an antiderivative's value and a claimed closed form meet only so."""
    def factored(node):
        base, k = node.args
        return sp.Pow(sp.factor(sp.together(base)), k)
    expr = expr.replace(lambda e: isinstance(e, sp.Pow) and e.exp.is_Rational
                        and not e.exp.is_integer and not e.base.is_number, factored)
    expr = sp.expand_power_base(expr)
    expr = expr.replace(lambda e: isinstance(e, sp.atan), lambda e: sp.atan(sp.cancel(e.args[0])))
    positive = sorted((s for s in expr.free_symbols if s.is_positive), key=sp.default_sort_key)
    args = {e.args[0] for e in expr.atoms(sp.atan)}
    flipped = {}
    for w in args:
        inverse = sp.cancel(1 / w)
        if inverse in args and sp.default_sort_key(w) < sp.default_sort_key(inverse) \
                and sign_for_positive(w, positive) == 1:
            flipped[sp.atan(inverse)] = sp.pi / 2 - sp.atan(w)
    return expr.xreplace(flipped)
