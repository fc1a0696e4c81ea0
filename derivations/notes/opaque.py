"""A term inside E or Var that cannot be written out (q_iᵀk_j of vectors of no declared size)
taken as one random scalar of unknown law, so that what a link says of it by the rules of E and
Var alone is checked: Var(q_iᵀk_j / d_k) = Var(q_iᵀk_j) / d_k fails (the factor comes out
squared) whatever q_iᵀk_j is.

Such a scalar is random with a mean and a variance that are symbols of their own (never a value
the note did not give).  A link that has it on one side only rests on what the note says of it
elsewhere (Var(q_iᵀk_j) = d_k) and is not checked: :func:`apart` says why.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import E, Var
from derivations.notes.reasons import say

# the prefix of an opaque scalar's name: a name no reading gives a symbol of the note
PREFIX = "⟨"


def _constant(factor) -> bool:
    """A factor E and Var take out as a constant: a number or a size (d_k), nothing random."""
    return isinstance(factor, sp.Basic) and all(
        s.is_integer and s.is_positive for s in factor.free_symbols) and not factor.atoms(
        sp.Indexed, sp.Function)


def moments(term, lower, text):
    """``term`` lowered (``lower`` raises when it cannot), with each E or Var whose argument
    cannot be lowered taking that argument's non-constant factors as one opaque scalar; None
    when nothing was made opaque or something else still cannot be lowered."""
    made = []

    def arg_of(arg):
        if isinstance(arg, sp.Add):  # each term on its own: 1 + q_iᵀk_j is 1 + ⟨q_iᵀk_j⟩
            return sp.Add(*[arg_of(t) for t in arg.args], evaluate=False)
        factors = sp.Mul.make_args(arg)
        const = [f for f in factors if _constant(f)]
        rest = sp.Mul(*[f for f in factors if not _constant(f)], evaluate=False)
        try:
            lower(rest)
            return arg  # it can be written out: nothing opaque here
        except Exception:  # noqa: BLE001 - the part that cannot be written out
            pass
        if rest.atoms(E, Var) or not rest.free_symbols:
            raise ValueError("an E or Var inside another, or nothing random")
        atom = sp.Symbol(f"{PREFIX}{text(rest)}⟩", real=True)
        made.append(atom)
        return sp.Mul(*const, atom, evaluate=False)

    def walk(e):
        if isinstance(e, E | Var):
            return type(e)(arg_of(e.args[0]))
        if not isinstance(e, sp.Basic) or not e.args:
            return e
        args = tuple(walk(a) for a in e.args)
        return e.func(*args, evaluate=False) if args != e.args and isinstance(
            e, sp.Add | sp.Mul | sp.Pow) else e.func(*args) if args != e.args else e

    out = walk(term)
    if not made:
        return None
    return lower(out)


def atoms_of(expr) -> set:
    """The opaque scalars in ``expr``."""
    if not isinstance(expr, sp.Basic):
        return set()
    return {s for s in expr.free_symbols if isinstance(s, sp.Symbol)
            and s.name.startswith(PREFIX)}


def law(atom) -> tuple:
    """The mean and variance of an opaque scalar: symbols of their own."""
    name = atom.name[len(PREFIX):-1]
    return (sp.Symbol(f"mean⟨{name}⟩", real=True),
            sp.Symbol(f"variance⟨{name}⟩", positive=True))


def apart(lhs, rhs) -> str:
    """Why a link with an opaque scalar on one side only is not checked, or ""."""
    a, b = atoms_of(lhs), atoms_of(rhs)
    if a == b:
        return ""
    names = ", ".join(sorted(s.name[len(PREFIX):-1] for s in a ^ b))
    return say("link.opaque_one_side", names=names)
