"""Expectation and variance as SymPy operators, with two independent meanings.

Symbolic side (:func:`linearize`): only what holds for every distribution — the definition
Var(X) = E[X²] − E[X]², and linearity of E over sums, finite Sum and constant factors.  Anything
more (independence, moments) must come from an assumption the step cites.

Numeric side (:func:`expectation_value`): at concrete sizes, every random atom is an independent
variable with the declared mean and variance, and E of a polynomial is computed exactly from raw
moments — of the normal distribution and, for a claim about any distribution with these moments,
also of a two-point (shifted Rademacher) one.  These are distributions satisfying the
assumptions, so a correct step must agree under each, and the computation shares nothing with the
rewrites.
"""

from __future__ import annotations

import sympy as sp


class E(sp.Function):
    """Expectation operator (unevaluated)."""

    nargs = 1

    def _latex(self, printer, exp=None):
        tex = rf"\mathbb{{E}}\left[{printer._print(self.args[0])}\right]"
        return tex if exp is None else rf"\left({tex}\right)^{{{exp}}}"


class Var(sp.Function):
    """Variance operator (unevaluated)."""

    nargs = 1

    def _latex(self, printer, exp=None):
        tex = rf"\operatorname{{Var}}\left({printer._print(self.args[0])}\right)"
        return tex if exp is None else rf"\left({tex}\right)^{{{exp}}}"


def _is_random(expr, bases) -> bool:
    if not isinstance(expr, sp.Basic):
        return False
    if any(isinstance(b, sp.IndexedBase) for b in bases) and expr.atoms(sp.Indexed):
        if any(i.base in set(bases) for i in expr.atoms(sp.Indexed)):
            return True
    return any(s in set(bases) for s in expr.free_symbols)


def _lin_E(arg, bases):
    if not _is_random(arg, bases):
        return arg
    if isinstance(arg, sp.Add):
        return sp.Add(*[_lin_E(t, bases) for t in arg.args])
    if isinstance(arg, sp.Mul):
        const = [f for f in arg.args if not _is_random(f, bases)]
        rand = [f for f in arg.args if _is_random(f, bases)]
        if const:
            return sp.Mul(*const) * _lin_E(sp.Mul(*rand), bases)
        return E(arg)
    if isinstance(arg, sp.Sum):
        return sp.Sum(_lin_E(arg.function, bases), *arg.limits)
    return E(arg)


def linearize(expr: sp.Basic, bases) -> sp.Basic:
    """Replace Var by its definition and push E through sums and constant factors."""
    expr = expr.replace(lambda x: isinstance(x, Var),
                        lambda v: E(v.args[0] ** 2) - E(v.args[0]) ** 2)

    def push(e):
        # expanding a power of a Sum would not terminate usefully; only plain products expand
        arg = e.args[0] if e.args[0].has(sp.Sum) else sp.expand(e.args[0])
        return _lin_E(arg, bases)

    return expr.replace(lambda x: isinstance(x, E), push)


def normal_raw_moment(mean, variance, k: int):
    """E[X^k] for X ~ N(mean, variance): sum over even j of C(k, j) mean^(k-j) var^(j/2) (j-1)!!."""
    return sp.Add(*[sp.binomial(k, j) * mean ** (k - j) * variance ** (j // 2)
                    * sp.factorial2(j - 1) for j in range(0, k + 1, 2)])


def two_point_raw_moment(mean, variance, k: int):
    """E[X^k] for X = mean ± sqrt(variance) with probability 1/2 each (a shifted Rademacher):
    the odd central moments vanish and every even one is variance^(j/2) — far from normal
    (kurtosis 1 instead of 3), so a Gaussian-only fact fails under it."""
    return sp.Add(*[sp.binomial(k, j) * mean ** (k - j) * variance ** (j // 2)
                    for j in range(0, k + 1, 2)])


RAW_MOMENTS = {"normal": normal_raw_moment, "rademacher": two_point_raw_moment}
# which distributions a claim is checked under, by the family it declares (Domain.distribution)
FAMILIES = {"any": ("normal", "rademacher"), "normal": ("normal",)}


def expectation_value(expr, random: dict, distribution: str = "normal", key_of=None):
    """Evaluate every E and Var in a concrete expression (no symbolic sizes left, sums expanded)
    over independent variables ``random``: base -> (mean, variance), all of the ``distribution``
    family (a key of RAW_MOMENTS).  ``key_of`` maps an atom to its declared base (entries of an
    explicit random matrix to their MatrixSymbol)."""
    if not random or not expr.has(E, Var):
        return expr
    raw_moment = RAW_MOMENTS[distribution]

    def base(atom):
        if isinstance(atom, sp.Indexed):
            return atom.base
        return key_of(atom) if key_of else atom

    def random_atoms(arg):
        return {a for a in arg.atoms(sp.Symbol, sp.Indexed) if base(a) in random}

    def exact_E(arg):
        arg = expectation_value(arg, random, distribution, key_of)
        poly_atoms = sorted(random_atoms(arg), key=sp.default_sort_key)
        if not poly_atoms:
            return arg
        poly = sp.Poly(sp.expand(arg), *poly_atoms)
        total = sp.Integer(0)
        for powers, coeff in poly.terms():
            term = coeff
            for atom, k in zip(poly_atoms, powers, strict=True):
                if k:
                    mean, variance = random[base(atom)]
                    term *= raw_moment(mean, variance, k)
            total += term
        return total

    expr = expr.replace(lambda x: isinstance(x, Var),
                        lambda v: exact_E(v.args[0] ** 2) - exact_E(v.args[0]) ** 2)
    return expr.replace(lambda x: isinstance(x, E), lambda e: exact_E(e.args[0]))
