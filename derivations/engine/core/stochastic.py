"""Expectation and variance as SymPy operators, with two independent meanings.

Symbolic side (:func:`linearize`): only what holds for every distribution — the definition
Var(X) = E[X²] − E[X]², and linearity of E over sums, finite Sum and constant factors.  Anything
more (independence, moments) must come from an assumption the step cites — or, for a claim about
one law (``Domain.distribution``), from the integral against its density, one of the symbolic
route's own methods (:mod:`derivations.engine.symbolic.methods`).

Numeric side (:func:`expectation_value`): at concrete sizes, every random atom is an independent
variable with the declared mean and variance, and E of a polynomial is computed exactly from raw
moments — of the normal distribution and, for a claim about any distribution with these moments,
also of four more (``LAWS``: two two-point laws, one of them skewed, the uniform and the shifted
exponential).  E of anything else is evaluated with numbers against the law
(:mod:`derivations.engine.numeric.mpnum`).  These are distributions satisfying the assumptions, so a
correct step must agree under each, and the computation shares nothing with the rewrites.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.core.inert import Bound, NExpect


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


def _standard_moment(law: str, j: int) -> sp.Rational:
    """E[Z^j] for the standardized (mean 0, variance 1) ``law``."""
    if law == "normal":
        return sp.factorial2(j - 1) if j % 2 == 0 else sp.Integer(0)
    if law == "rademacher":  # ±1 with probability 1/2 each: kurtosis 1
        return sp.Integer(1 if j % 2 == 0 else 0)
    if law == "skewed two-point":  # -1/2 with probability 4/5, 2 with 1/5: skewness 3/2
        return sp.Rational(4, 5) * sp.Rational(-1, 2) ** j + sp.Rational(1, 5) * 2 ** j
    if law == "uniform":  # on [-√3, √3]: kurtosis 9/5
        return sp.Integer(3) ** (j // 2) / (j + 1) if j % 2 == 0 else sp.Integer(0)
    if law == "exponential":  # Exp(1) - 1: skewness 2, kurtosis 9; E[Z^j] is the subfactorial
        return sp.subfactorial(j)
    raise KeyError(law)


def raw_moment(law: str, mean, variance, k: int):
    """E[X^k] for X = mean + sqrt(variance) Z, Z of the standardized ``law``."""
    return sp.Add(*[sp.binomial(k, j) * mean ** (k - j) * sp.sqrt(variance) ** j
                    * _standard_moment(law, j) for j in range(k + 1)])


LAWS = ("normal", "rademacher", "skewed two-point", "uniform", "exponential")
# which laws a claim is checked under, by the family it declares (Domain.distribution): "any" has
# symmetric and skewed, light- and heavy-tailed members, so that a fact of the normal law alone,
# or of the symmetric ones, fails under one of them
FAMILIES = {"any": LAWS, "normal": ("normal",)}


def expectation_value(expr, random: dict, distribution: str = "normal", key_of=None):
    """Evaluate every E and Var in a concrete expression (no symbolic sizes left, sums expanded)
    over independent variables ``random``: base -> (mean, variance), all of the ``distribution``
    law (one of LAWS).  ``key_of`` maps an atom to its declared base (entries of an
    explicit random matrix to their MatrixSymbol)."""
    if not random or not expr.has(E, Var):
        return expr
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
        try:
            poly = sp.Poly(sp.expand(arg), *poly_atoms)
        except sp.PolynomialError:
            poly = None
        if poly is None or not poly.domain.is_Numerical and any(
                c.has(*poly_atoms) for c in poly.coeffs()):
            return _numeric_E(arg, poly_atoms)
        total = sp.Integer(0)
        for powers, coeff in poly.terms():
            term = coeff
            for atom, k in zip(poly_atoms, powers, strict=True):
                if k:
                    mean, variance = random[base(atom)]
                    term *= raw_moment(distribution, mean, variance, k)
            total += term
        return total

    def _numeric_E(arg, atoms):
        """E of a non-polynomial: evaluated with numbers against the law (mpnum)."""
        bound = {a: Bound(str(a)) for a in atoms}
        spec = [sp.Integer(LAWS.index(distribution))]
        spec += [sp.Tuple(bound[a], *random[base(a)]) for a in atoms]
        return NExpect(arg.xreplace(bound), sp.Tuple(*spec))

    expr = expr.replace(lambda x: isinstance(x, Var),
                        lambda v: exact_E(v.args[0] ** 2) - exact_E(v.args[0]) ** 2)
    return expr.replace(lambda x: isinstance(x, E), lambda e: exact_E(e.args[0]))
