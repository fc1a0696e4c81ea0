"""The normal and the uniform law, known by their mean and variance only.

``W \\sim \\mathcal{N}(\\mu, \\sigma^2)`` gives W the mean μ and the variance σ² (the second
parameter is the variance, as notes write it); ``X \\sim U(a, b)`` the mean (a + b)/2 and the
variance (b − a)²/12.  The engine's random variables carry exactly these two numbers, and its
numeric route checks a claim under five laws with them: so a link is checked only where the two
settle it — E of a polynomial of degree at most 2 in one such variable (E[X²] = μ² + σ² under
every law), Var of a linear one.  The rest is refused with its reason, never checked with a law
that is not the note's: a higher moment (E[W⁴] is 3σ⁴ for the normal law and not for the
others), E of a product of two variables (their independence is not something the note says in
a way the checks read), a statement about the variable's values rather than its moments, E of a
function that is no polynomial.  The parameters' conditions (σ² > 0, a < b) are hypotheses of
every link that uses the variable.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import E, Var
from derivations.notes.reasons import of_error, say

LAWS = ("Normal", "Uniform")


def _name(o) -> str:
    return str(getattr(o, "name", o))


def declare(base, law, symbols) -> str:
    """Record ``base ~ law`` (a normal or uniform law) in ``symbols``; the declaration's reason."""
    name = type(law).__name__
    if len(law.args) != 2 or not isinstance(base, sp.Symbol | sp.IndexedBase):
        return say("law.unknown_two", law=law, base=base)
    first, second = (sp.sympify(a, strict=True) for a in law.args)
    if any(a.has(E, Var) or not a.free_symbols <= {s for s in a.free_symbols
                                                    if isinstance(s, sp.Symbol)}
           for a in (first, second)) or any(_name(s) == _name(base)
                                             for a in (first, second) for s in a.free_symbols):
        return say("law.parameters", law=law, base=base)
    if name == "Normal":
        mean, variance, condition = first, second, sp.Gt(second, 0)
        said = say("law.normal_said", mean=mean, variance=variance)
    else:
        mean, variance = (first + second) / 2, (second - first) ** 2 / 12
        condition = sp.Lt(first, second)
        said = say("law.uniform_said", mean=mean, variance=variance, first=first, second=second)
    if condition is sp.false:
        return say("law.condition_normal" if name == "Normal" else "law.condition_uniform",
                   law=law)
    for s in (first.free_symbols | second.free_symbols):
        symbols.known.add(s)  # introduced by the law: its parameters
    symbols.known.add(base)
    symbols.random[base] = (mean, variance)
    symbols.laws[_name(base)] = f"{name}({first}, {second})"
    symbols.conditions[_name(base)] = () if condition is sp.true else (condition,)
    return say("law.declared", base=base, law=f"{name}({first}, {second})", said=said)


def _mine(symbols) -> dict:
    """name -> (mean, variance) of the variables with a normal or uniform law."""
    return {_name(b): mv for b, mv in symbols.random.items()
            if symbols.laws.get(_name(b), "").split("(")[0] in LAWS}


def _atoms(expr, names) -> set:
    return {a for a in expr.atoms(sp.Indexed, sp.Symbol)
            if _name(a.base if isinstance(a, sp.Indexed) else a) in names
            and not (isinstance(a, sp.Symbol) and any(
                isinstance(i, sp.Indexed) and i.base.label == a for i in expr.atoms(sp.Indexed)))}


def _random_atoms(expr, symbols) -> set:
    names = {_name(b) for b in symbols.random}
    return _atoms(expr, names)


def used(exprs, symbols) -> list[str]:
    """The variables with a normal or uniform law that ``exprs`` use."""
    mine = _mine(symbols)
    return sorted({_name(a.base if isinstance(a, sp.Indexed) else a) for x in exprs
                   if isinstance(x, sp.Basic) for a in _atoms(x, set(mine))})


def conditions(exprs, symbols) -> tuple:
    """The parameters' conditions of the laws ``exprs`` use (hypotheses of the link), those in
    symbols the link writes: a parameter it does not write (σ in E[W] = 0) is not drawn."""
    written = {s for x in exprs if isinstance(x, sp.Basic) for s in x.free_symbols}
    return tuple(c for n in used(exprs, symbols) for c in symbols.conditions.get(n, ())
                 if c.free_symbols <= written)


def _expectation(arg, symbols, mine) -> sp.Basic:
    """E[arg] from the means and variances, or ValueError naming why it is not settled."""
    arg = sp.expand(arg)
    atoms = sorted(_random_atoms(arg, symbols), key=sp.default_sort_key)
    if not atoms:
        return arg
    if arg.has(E, Var):
        raise ValueError(say("law.nested"))
    try:
        poly = sp.Poly(arg, *atoms)
    except sp.PolynomialError:
        poly = None
    if poly is None or any(c.has(*atoms) for c in poly.coeffs()):
        raise ValueError(say("law.no_polynomial", arg=arg, atoms=", ".join(map(str, atoms))))
    total = sp.Integer(0)
    for powers, coeff in poly.terms():
        present = [(a, k) for a, k in zip(atoms, powers, strict=True) if k]
        ours = [(a, k) for a, k in present
                if _name(a.base if isinstance(a, sp.Indexed) else a) in mine]
        if ours and len(present) > 1 and any(
                _name(a.base if isinstance(a, sp.Indexed) else a) not in mine
                for a, _ in present):
            # a variable with a law times another random one of no such law: not settled
            raise ValueError(say("law.independence", product=" ".join(str(a) for a, _ in present)))
        # distinct variables with a law (q_i k_i) are independent, as the engine's are: E of
        # their product is the product of their moments, settled by the means and variances
        term = coeff
        for a, k in present:
            mean, variance = symbols.random[next(b for b in symbols.random if _name(b) == _name(
                a.base if isinstance(a, sp.Indexed) else a))]
            if ours and k > 2:
                raise ValueError(say("law.moment", moment=f"E[{a}^{k}]", base=ours[0][0]))
            term *= mean if k == 1 or not ours else mean ** 2 + variance
        total += term
    return total


def value(expr, symbols):
    """``expr`` with E and Var of the variables with a normal or uniform law computed from their
    moments (for telling which parameters a side is in, never for the verdict), or ValueError."""
    mine = _mine(symbols)
    expr = expr.replace(lambda x: isinstance(x, Var),
                        lambda v: E(sp.expand(v.args[0] ** 2)) - E(v.args[0]) ** 2)
    outside = expr.replace(lambda x: isinstance(x, E), lambda e: sp.Integer(0))
    bare = _atoms(outside, set(mine))
    if bare:
        raise ValueError(say("law.outside", names=", ".join(sorted(map(str, bare)))))
    return expr.replace(lambda x: isinstance(x, E),
                        lambda e: _expectation(e.args[0], symbols, mine))


def refusal(lhs, rhs, symbols) -> str:
    """Why a link about variables with a normal or uniform law is not checked, or ""."""
    names = used((lhs, rhs), symbols)
    if not names:
        return ""
    try:
        # a sum over entries stands in as two of its terms (its entries are independent): what
        # the moments settle of those they settle of the sum, whatever its length
        sides = [value(_two_terms(x), symbols) for x in (lhs, rhs)]
    except ValueError as exc:
        laws = ", ".join(f"{n} ~ {symbols.laws[n]}" for n in names)
        return say("law.refused", why=of_error(exc), laws=laws)
    params = {s for n in names for x in _mine(symbols)[n] for s in sp.sympify(
        x, strict=True).free_symbols}
    mine = [sorted(map(str, sp.cancel(sp.expand(s)).free_symbols & params)) for s in sides]
    if mine[0] != mine[1]:
        laws = ", ".join(f"{n} ~ {symbols.laws[n]}" for n in names)
        return say("law.different_parameters", left=", ".join(mine[0]) or "-",
                   right=", ".join(mine[1]) or "-", laws=laws)
    return ""


def _two_terms(expr):
    """``expr`` with each sum Σ_{i=a}^{b} f(i) written as f(i) + f(i₂), two distinct entries."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr

    def two(total):
        body, (var, *_) = total.function, total.limits[0]
        other = sp.Symbol(f"{var.name}_2", **var.assumptions0)
        rest = sp.Sum(body, *total.limits[1:]) if len(total.limits) > 1 else body
        return _two_terms(rest) + _two_terms(rest).xreplace({var: other})

    return expr.replace(lambda e: isinstance(e, sp.Sum), two)
