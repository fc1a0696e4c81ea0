"""Integrals, limits, infinite sums and products as the numeric route sees them: inert nodes,
evaluated later by their definitions with numbers (:mod:`derivations.engine.numeric.mpnum`).

SymPy's ``Integral.doit``, ``limit`` and ``Sum.doit`` are the symbolic route's algorithms; when
they are wrong (a branch cut, a divergent integral, a limit of ``floor(n/2)``), a numeric route
that called them too would agree with the mistake.  So before anything is evaluated, each such
node becomes an :class:`Inert` node that no SymPy ``doit`` closes: its bound variable is a fresh
:class:`Bound` symbol, never drawn a value.  Differentiating through one stays mechanical
(Leibniz's rule under the integral, term by term under a sum).
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.core.errors import DerivationError

__all__ = ["Bound", "Inert", "NDerivative", "NExpect", "NIntegral", "NLimit", "NProduct", "NSum",
           "make_inert", "rebind"]


class Bound(sp.Dummy):
    """The variable of an integral, a sum, a product or a limit: bound, never drawn."""


class Inert(sp.Function):
    """A node evaluated by its definition with numbers; args (body, var, low, high)."""

    @classmethod
    def eval(cls, *args):
        return None

    def _eval_derivative(self, s):
        raise DerivationError(f"a derivative of {self.func.__name__[1:]} {self} by {s} is not "
                              f"taken by the numeric route: differentiate the body first")


class NIntegral(Inert):
    nargs = 4

    def _eval_derivative(self, s):
        body, v, lo, hi = self.args
        out = NIntegral(sp.diff(body, s), v, lo, hi)
        if hi.has(s):
            out += body.xreplace({v: hi}) * sp.diff(hi, s)
        if lo.has(s):
            out -= body.xreplace({v: lo}) * sp.diff(lo, s)
        return out


class NSum(Inert):
    nargs = 4

    def _eval_derivative(self, s):
        body, v, lo, hi = self.args
        if lo.has(s) or hi.has(s):
            return super()._eval_derivative(s)
        return NSum(sp.diff(body, s), v, lo, hi)


class NProduct(Inert):
    nargs = 4


class NLimit(Inert):
    """args (body, var, point, direction): direction 1 from above, -1 from below, 0 both."""

    nargs = 4


class NDerivative(Inert):
    """A derivative of high order of a scalar expression by one scalar symbol: args (body, var,
    point, order), the body in the Bound ``var``; evaluated by differences at the working
    precision (``mpmath.diff``), where SymPy's own derivative would swell past any budget (the
    30th of tanh x has millions of terms unless expanded)."""

    nargs = 4


class NExpect(Inert):
    """E of a non-polynomial argument: args (argument, law), the random atoms being those of the
    argument; evaluated against the law's distribution (:mod:`derivations.engine.numeric.mpnum`)."""

    nargs = 2


def _direction(d) -> sp.Integer:
    return sp.Integer({"+": 1, "-": -1, "+-": 0}[str(d)])


def make_inert(expr: sp.Basic) -> sp.Basic:
    """``expr`` with every Integral, Limit, and Sum or Product left (after finite ones were written
    out) as inert nodes, innermost first; a multiple integral or sum becomes nested nodes."""
    kinds = (sp.Integral, sp.Limit, sp.Sum, sp.Product)
    if not expr.has(*kinds):
        return expr

    def convert(node):
        if isinstance(node, sp.Limit):
            f, x, x0, d = node.args
            v = Bound(str(x), **_assumptions(x))
            return NLimit(f.xreplace({x: v}), v, x0, _direction(d))
        cls = {sp.Integral: NIntegral, sp.Sum: NSum, sp.Product: NProduct}[type(node)]
        body = node.function
        for limit in node.limits:
            if len(limit) != 3:
                raise DerivationError(f"{node}: the numeric route evaluates definite "
                                      f"{type(node).__name__.lower()}s only; give both bounds")
            var, lo, hi = limit
            v = Bound(str(var), **_assumptions(var))
            body = cls(body.xreplace({var: v}), v, lo, hi)
        return body

    return expr.replace(lambda e: isinstance(e, kinds), convert)


def _assumptions(x: sp.Symbol) -> dict:
    return {k: v for k, v in x.assumptions0.items() if k in ("integer", "real", "positive")}


def rebind(expr: sp.Basic, taken) -> sp.Basic:
    """``expr`` with every variable bound by an integral, a sum, a product or a limit that is
    also in ``taken`` renamed: substituting a size for n must not reach the n of lim_{n→∞}
    (xreplace does not know binding)."""
    taken = set(taken)
    kinds = (sp.Integral, sp.Limit, sp.Sum, sp.Product)
    if not taken or not expr.has(*kinds):
        return expr

    def fresh(v):
        return sp.Dummy(str(v), **v.assumptions0)

    def fix(node):
        if isinstance(node, sp.Limit):
            f, x, x0, d = node.args
            if x not in taken:
                return node
            v = fresh(x)
            return sp.Limit(f.xreplace({x: v}), v, x0, str(d))
        if not any(lim[0] in taken for lim in node.limits):
            return node
        body, limits = node.function, []
        for lim in node.limits:  # a bound of a later limit may name an earlier variable
            var = lim[0]
            if var in taken:
                v = fresh(var)
                body = body.xreplace({var: v})
                limits = [tuple(b.xreplace({var: v}) for b in l) for l in limits]
                lim = (v, *lim[1:])
            limits.append(lim)
        return type(node)(body, *limits)

    return expr.replace(lambda e: isinstance(e, kinds), fix)
