"""What a claim's hypotheses tell the sampler, read once from the hypotheses themselves.

A hypothesis is part of the claim's statement, and the numeric route draws only points where
every hypothesis holds.  Drawing at random and keeping the draws that happen to satisfy it works
for |j − i| ≤ 5, not for x > 1000 when values are drawn up to 100, and never for an equality.
So three kinds are told apart here:

* a **bound**: one symbol against a constant (x > 1000, 0 ≤ x ≤ 1, 2x < 3) — the symbol is
  drawn inside the bounds (:func:`bounds`);
* an **equality** (``sp.Eq(a + b, 1)``, ``sp.Eq(sp.Sum(p[k], (k, 1, n)), 1)``): met by solving
  it for one symbol or one entry of an indexed symbol it is linear in, the *solved key*
  (:func:`solved_keys`) — b = 1 − a, the last p_k = 1 − Σ the others, a probability vector
  drawn on the simplex;
* anything else: drawn until it holds.

An equality linear in none of its symbols, two equalities that could only be solved for the same
symbol, and bounds that leave no value are refused when the claim is built
(:func:`check_sampleable`), naming the hypothesis and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derivations.engine.core.errors import DerivationError

__all__ = ["Bounds", "bounds", "check_sampleable", "equalities", "linear_part", "solved_keys",
           "written_out"]

_LOWER = {">": True, ">=": True, "<": False, "<=": False}


@dataclass(frozen=True)
class Bounds:
    """lo < x < hi (or ≤ where the end is closed); None for no bound on that side."""

    lo: sp.Rational | None = None
    lo_closed: bool = False
    hi: sp.Rational | None = None
    hi_closed: bool = False

    def meet(self, lo, lo_closed: bool, hi, hi_closed: bool) -> Bounds:
        if lo is not None and (self.lo is None or lo > self.lo
                               or (lo == self.lo and not lo_closed)):
            self = Bounds(lo, lo_closed, self.hi, self.hi_closed)
        if hi is not None and (self.hi is None or hi < self.hi
                               or (hi == self.hi and not hi_closed)):
            self = Bounds(self.lo, self.lo_closed, hi, hi_closed)
        return self

    def empty(self) -> bool:
        if self.lo is None or self.hi is None:
            return False
        return self.lo > self.hi or (self.lo == self.hi and not (self.lo_closed
                                                                 and self.hi_closed))


def _bound_of(h) -> tuple | None:
    """(symbol, lo, lo_closed, hi, hi_closed) for a relation a·x + b ⋚ 0 between one symbol and
    numbers, else None."""
    if not isinstance(h, sp.core.relational.Relational) or h.rel_op not in _LOWER:
        return None
    f = h.lhs - h.rhs
    free = f.free_symbols
    if len(free) != 1 or f.atoms(sp.Indexed):
        return None
    (x,) = free
    a = sp.diff(f, x)
    if not a.is_number or a == 0 or not a.is_real:
        return None
    b = f.xreplace({x: sp.Integer(0)})
    if not b.is_number or not b.is_real or sp.expand(f - a * x - b) != 0:
        return None
    edge = sp.nsimplify(-b / a) if not (-b / a).is_Rational else -b / a
    lower = _LOWER[h.rel_op] == bool(a > 0)  # dividing by a < 0 turns the relation round
    closed = h.rel_op in (">=", "<=")
    return (x, edge, closed, None, False) if lower else (x, None, False, edge, closed)


def bounds(hypotheses) -> dict:
    """symbol -> :class:`Bounds` from the hypotheses that bound one symbol by constants."""
    out: dict = {}
    for h in hypotheses:
        got = _bound_of(h)
        if got is not None:
            x, *ends = got
            out[x] = out.get(x, Bounds()).meet(*ends)
    return out


def equalities(hypotheses) -> list:
    return [h for h in hypotheses if isinstance(h, sp.Equality)]


def written_out(expr: sp.Basic, structure: dict) -> sp.Basic:
    """``expr`` at concrete sizes and indices, every Sum and Product over integer bounds written
    out term by term (none when the upper bound is below the lower, the textbook convention)."""
    expr = expr.xreplace(structure)

    def out(node):
        if not isinstance(node, sp.Sum | sp.Product):
            return node
        body = node.function
        for var, lo, hi in reversed(node.limits):
            if not (lo.is_Integer and hi.is_Integer):
                return node
            terms = [body.xreplace({var: sp.Integer(k)}) for k in range(int(lo), int(hi) + 1)]
            body = sp.Add(*terms) if isinstance(node, sp.Sum) else sp.Mul(*terms)
        return body
    while expr.has(sp.Sum, sp.Product):
        new = expr.replace(lambda e: isinstance(e, sp.Sum | sp.Product), out)
        if new == expr:
            break
        expr = new
    return expr


def _key(atom):
    return atom.base if isinstance(atom, sp.Indexed) else atom


def linear_part(f: sp.Basic, atom) -> tuple | None:
    """(c, r) with f = c·atom + r, c and r free of ``atom``; None if f is not linear in it."""
    c = sp.diff(f, atom)
    if c.has(atom) or c == 0:
        return None
    return c, f.xreplace({atom: sp.Integer(0)})


def _candidates(f: sp.Basic, fixed: set) -> list:
    """The atoms of a written-out equality f = 0 it could be solved for, last first: entries of
    an indexed symbol by their indices, symbols by name; sizes, indices and random variables
    (``fixed``) are not values to solve for."""
    atoms = [a for a in f.atoms(sp.Indexed) if all(i.is_Integer for i in a.indices)
             and a.base not in fixed]
    labels = {a.base.label for a in f.atoms(sp.Indexed)}
    atoms += [s for s in f.free_symbols if isinstance(s, sp.Symbol) and s not in fixed
              and s not in labels and not s.is_integer]
    return sorted(atoms, key=lambda a: (str(_key(a)), [int(i) for i in getattr(a, "indices",
                                                                                ())]),
                  reverse=True)


def solvable(f: sp.Basic, key, fixed: set):
    """The atom of ``key`` (the last entry of an indexed symbol) that f = 0 is solved for."""
    for atom in _candidates(f, fixed):
        if _key(atom) == key and linear_part(f, atom) is not None:
            return atom
    return None


def _trial(d) -> dict:
    """Sizes and indices at which an equality is read when the claim is built: sizes at 3 (an
    entry left over once one is solved), each index at its lower end."""
    dims = set(d.domain.dims) | {s for s in d.symbols if isinstance(s, sp.Symbol)
                                 and s.is_integer and s.is_nonnegative
                                 and s not in d.domain.indices}
    out = {s: sp.Integer(3) for s in dims}
    for idx, (lo, _) in d.domain.indices.items():
        out[idx] = sp.sympify(lo, strict=True).xreplace(out)
    return out


def _fixed(d) -> set:
    return (set(d.domain.dims) | set(d.domain.indices) | set(d.domain.random)
            | {s for s in d.symbols if isinstance(s, sp.Symbol) and s.is_integer})


def solved_keys(d) -> dict:
    """Equality hypothesis -> the key (a Symbol or an IndexedBase) it is solved for: the first
    key, last by name, in which it is linear and that no earlier equality took."""
    trial, fixed, taken, out = _trial(d), _fixed(d), set(), {}
    for h in equalities(d.hypotheses):
        f = written_out(h.lhs - h.rhs, trial)
        keys = [_key(a) for a in _candidates(f, fixed) if linear_part(f, a) is not None]
        free = [k for k in dict.fromkeys(keys) if k not in taken]
        if free:
            out[h] = free[0]
            taken.add(free[0])
        else:
            out[h] = None if not keys else keys[0]
    return out


def check_sampleable(d, where: str) -> None:
    """Refuse, when the claim is built, a hypothesis no draw can meet (see the module)."""
    ranges = d.domain.ranges
    for x, b in bounds(d.hypotheses).items():
        lo_hi = ranges.get(x)
        if lo_hi is not None:
            lo, hi = (sp.nsimplify(sp.sympify(v, strict=True)) for v in lo_hi)
            b = b.meet(lo, True, hi, True)
        for sign, edge, closed in (("positive", 0, False), ("nonnegative", 0, True)):
            if getattr(x, f"is_{sign}", False):
                b = b.meet(sp.Integer(edge), closed, None, False)
        for sign, edge, closed in (("negative", 0, False), ("nonpositive", 0, True)):
            if getattr(x, f"is_{sign}", False):
                b = b.meet(None, False, sp.Integer(edge), closed)
        if b.empty():
            said = [str(h) for h in d.hypotheses if _bound_of(h) and _bound_of(h)[0] == x]
            why = f"its declared range {tuple(lo_hi)}" if lo_hi is not None else \
                "its sign assumption"
            raise DerivationError(
                f"{where}: the hypotheses {', '.join(said)} leave no value of {x} together with "
                f"{why}; no point can be drawn — widen the range (Domain(ranges={{{x}: "
                f"(low, high)}}) inside the hypotheses) or correct the hypothesis")
    keys = solved_keys(d)
    seen: dict = {}
    for h, key in keys.items():
        shown = f"{h.lhs} = {h.rhs}"
        if key is None:
            names = sorted({str(_key(a)) for a in h.atoms(sp.Symbol, sp.Indexed)
                            if not (isinstance(a, sp.Symbol) and a in _fixed(d))})
            raise DerivationError(
                f"{where}: hypothesis {shown}: an equality is met by solving it for one symbol "
                f"it is linear in (a + b = 1 for b, Σ_k p_k = 1 for the last p_k), but it is "
                f"linear in none of {', '.join(names) or 'its symbols'}; parametrise it instead "
                f"(a = cos t, b = sin t for a² + b² = 1) and state the claim in the parameter")
        if key in seen:
            raise DerivationError(
                f"{where}: hypotheses {seen[key]} and {shown} can both be solved only for "
                f"{key}, which one draw cannot do; solve one of them by hand and substitute it")
        seen[key] = shown
