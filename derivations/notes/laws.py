"""Random variables a note gives a law (``m_i \\sim \\operatorname{Bernoulli}(1 - p)``): what E
and Var of them are, for the engine.

Only the Bernoulli law is known here.  A Bernoulli variable takes the values 0 and 1, so any
power of it is itself (m² = m): written so, E and Var of a polynomial in such variables need
their mean q and variance q(1 − q) only, which is what the engine's random variables carry
(checked by it under every law with those two moments).  Entries of one base are independent,
as the engine takes them.  Anything else inside E or Var is taken as not random, and a link
checked so says so in its reason.

The normal law ``\\mathcal{N}(\\mu, \\sigma^2)`` (the second parameter a variance, as notes
write it) and the uniform law ``U(a, b)`` are known by their mean and variance only (μ and σ²;
(a + b)/2 and (b − a)²/12), so only what those two settle is checked (:mod:`.moments`): E of a
polynomial of degree at most 2 in one such variable, Var of a linear one.  Their parameters'
conditions (σ² > 0, a < b) are hypotheses of every link that uses them.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import E, Var
from derivations.notes import moments
from derivations.notes.reasons import say

# the parameter of a law drawn strictly inside (0, 1)
_INSIDE = (sp.Rational(1, 100), sp.Rational(99, 100))


def declare(lhs, law, symbols) -> str:
    """Record ``lhs ~ law`` in ``symbols`` (random, laws, ranges); the reason of the
    declaration, saying what is recorded or why nothing is."""
    base = lhs.base if isinstance(lhs, sp.Indexed) else lhs
    name = type(law).__name__ if isinstance(law, sp.Basic) else ""
    if name in moments.LAWS:
        return moments.declare(base, law, symbols)
    if name != "Bernoulli" or len(law.args) != 1 or not isinstance(base, sp.Symbol
                                                                  | sp.IndexedBase):
        return say("law.unknown", law=name or law, base=base)
    q = sp.sympify(law.args[0], strict=True)
    free = sorted(q.free_symbols, key=str)
    if len(free) > 1 or (free and sp.Poly(q, *free).degree() != 1) or not free and not (
            0 < q < 1):
        return say("law.bernoulli_range", q=q)
    if free:
        s = free[0]
        ends = [q.subs(s, 0), q.subs(s, 1)]
        if not all(0 <= v <= 1 for v in ends):
            return say("law.bernoulli_range", q=q)
        symbols.ranges[s] = _INSIDE
        symbols.known.add(s)  # introduced by the law: a probability
    symbols.known.add(base)  # introduced by its law, as a normal or uniform variable is
    symbols.random[base] = (q, sp.expand(q * (1 - q)))
    symbols.laws[str(getattr(base, "name", base))] = f"Bernoulli({q})"
    return say("law.bernoulli", base=base, q=q)


def _bernoulli(atom, symbols) -> bool:
    base = atom.base if isinstance(atom, sp.Indexed) else atom
    return symbols.laws.get(str(getattr(base, "name", base)), "").startswith("Bernoulli")


def powers_to_one(expr, symbols):
    """A power of a Bernoulli variable is the variable itself (m_i² = m_i), inside E and Var
    and outside; None when such a variable stands outside E and Var other than in a polynomial
    (there an identity over the reals is not one over the values 0 and 1)."""
    if not isinstance(expr, sp.Basic) or not any(_bernoulli(sp.Symbol(n), symbols)
                                                 for n in symbols.laws):
        return expr
    atoms = [a for a in expr.atoms(sp.Indexed, sp.Symbol) if _bernoulli(a, symbols)]
    if not atoms:
        return expr
    one = expr.replace(lambda e: isinstance(e, sp.Pow) and _bernoulli(e.base, symbols)
                       and e.exp.is_Integer and e.exp > 0, lambda e: e.base)
    one = one.replace(lambda e: isinstance(e, E | Var), lambda e: type(e)(
        powers_to_one(sp.expand(e.args[0]), symbols)))
    outside = one.replace(lambda e: isinstance(e, E | Var), lambda e: sp.Integer(0))
    used = [a for a in atoms if outside.has(a)]
    if used and not sp.expand(outside).is_polynomial(*used):
        return None
    return one


def not_random(exprs, symbols, declared) -> tuple:
    """What E and Var in ``exprs`` take besides the variables with a law and ``declared``
    (sizes, indices, defined names): taken as not random, when the link uses a law at all."""
    if not symbols.laws:
        return ()
    args = [n.args[0] for e in exprs if isinstance(e, sp.Basic) for n in e.atoms(E, Var)]
    if not any(str(getattr(a.base, "name", a.base)) in symbols.laws
               for x in args for a in x.atoms(sp.Indexed)) and not any(
            str(s) in symbols.laws for x in args for s in x.free_symbols):
        return ()
    names = set(symbols.laws) | {str(getattr(d, "name", d)) for d in declared}
    out = {a.base for x in args for a in x.atoms(sp.Indexed)}
    out |= {s for x in args for s in x.free_symbols
            if isinstance(s, sp.Symbol) and not s.is_integer}
    law_params = {s for m, v in symbols.random.values() for x in (m, v)
                  for s in sp.sympify(x, strict=True).free_symbols}
    return tuple(sorted((o for o in out if str(getattr(o, "name", o)) not in names
                         and o not in law_params), key=str))


def parameters(symbols) -> dict:
    """name -> the names of its law's parameters, for the variables with a law."""
    out = {}
    for base, (mean, variance) in symbols.random.items():
        name = str(getattr(base, "name", base))
        if name in symbols.laws:
            out[name] = {str(s) for m in (mean, variance)
                         for s in sp.sympify(m, strict=True).free_symbols}
    return out
