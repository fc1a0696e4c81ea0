"""Integrals over a period of a rational function of sin x and cos x, by residues — the symbolic
route's own method for the trigonometric integrals SymPy closes wrongly (∫_0^{2π} dx/(c + cos x)
as 0) or not within its budget.

With z = e^{ix}, cos x = (z + 1/z)/2, sin x = (z − 1/z)/(2i) and dx = dz/(iz), so that
∫_0^{2π} R(cos x, sin x) dx = 2πi · Σ Res g over the poles of g inside |z| < 1.  Each condition
is shown, not assumed:

* the integrand is a quotient of polynomials in sin x and cos x (no other x), over a whole period
  — or over half of one, when the integrand is even (∫_0^π = ½∫_{−π}^{π}) or of period π;
* no pole lies on |z| = 1: the integrand's denominator, a polynomial in cos x and sin x, keeps one
  sign on the whole square |cos x|, |sin x| ≤ 1, for every parameter in its range (the signs of
  :mod:`derivations.engine.symbolic.signs`);
* every pole is found in closed form with its multiplicity, and each closed form is continuous
  in the parameters: its square roots are of radicands of one sign.  A pole then stays on its
  side of the circle over the whole range (it moves continuously and never meets the circle), so
  its side is read at one parameter value, exactly.

Parameters are handled as by the antiderivatives: inside their range by the substitution
lo + (hi − lo)·t/(1 + t), at its ends as numbers.
"""

from __future__ import annotations

import itertools
import math

import sympy as sp

from derivations.engine.symbolic.signs import NotShown, sign_for_positive


def by_residues(node: sp.Integral, positive: list) -> sp.Basic:
    """The value of ``node`` for every positive value of the dummies ``positive``, or NotShown."""
    if len(node.limits) != 1 or len(node.limits[0]) != 3:
        raise NotShown("one variable, two bounds")
    f, (x, u, v) = node.function, node.limits[0]
    length = sp.simplify(v - u)
    if length == 2 * sp.pi:
        half = False
    elif length == sp.pi and (sp.simplify(f.subs(x, x + sp.pi) - f) == 0
                              or (u == 0 and sp.simplify(f.subs(x, -x) - f) == 0)):
        half = True  # of period π, or even: the integral over the half is half the whole
    else:
        raise NotShown("a whole period, or half of one for an even integrand")
    C, S = sp.Dummy("C"), sp.Dummy("S")
    R = sp.expand_trig(f).xreplace({sp.cos(x): C, sp.sin(x): S})
    if R.has(x) or not R.is_rational_function(C, S):
        raise NotShown("a rational function of sin x and cos x")
    R = sp.cancel(sp.together(R))
    _no_real_poles(sp.fraction(R)[1], C, S, positive)
    z = sp.Dummy("z")
    g = sp.cancel(sp.together(R.xreplace({C: (z + 1 / z) / 2, S: (z - 1 / z) / (2 * sp.I)})
                              / (sp.I * z)))
    # an integrand of cos²x, sin²x …: g = G(z)/z with G even, and with w = z² the circle is
    # wound twice while dz/z = dw/(2w), so the integral is that of G(√w)/w over |w| = 1 once
    G = sp.cancel(g * z)
    while G.has(z) and sp.cancel(G.xreplace({z: -z}) - G) == 0:
        G = sp.cancel(G.xreplace({z: sp.sqrt(z)}))
    num, den = sp.fraction(sp.cancel(G / z))
    poles = sp.roots(sp.Poly(den, z))
    if sum(poles.values()) != sp.degree(den, z):
        raise NotShown("every pole in closed form")
    lead = sp.Poly(den, z).LC()
    total = 0
    for r, m in poles.items():
        if _inside(r, positive):
            others = lead * sp.Mul(*((z - q) ** k for q, k in poles.items() if q != r))
            core = num / others
            total += sp.diff(core, z, m - 1).subs(z, r) / math.factorial(m - 1)
    value = 2 * sp.pi * sp.I * total
    return value / 2 if half else value


def _no_real_poles(den, C, S, positive) -> None:
    """den(cos x, sin x) keeps one sign over the square |cos x|, |sin x| ≤ 1, which holds the
    circle, so g has no pole on |z| = 1: each coordinate is −1, 1 or (1 − γ)/(1 + γ), γ > 0."""
    gammas = [sp.Dummy("g", positive=True) for _ in range(2)]
    signs = set()
    for c, s in itertools.product([-1, 1, (1 - gammas[0]) / (1 + gammas[0])],
                                  [-1, 1, (1 - gammas[1]) / (1 + gammas[1])]):
        sign = sign_for_positive(sp.together(den.xreplace({C: c, S: s})), [*positive, *gammas])
        if sign is None:
            raise NotShown("an integrand without real poles")
        signs.add(sign)
    if len(signs) != 1:
        raise NotShown("an integrand without real poles")


def _inside(r, positive) -> bool:
    """Whether the pole r lies inside the unit circle, for every parameter in the range: read at
    one parameter value, once r is shown continuous in them."""
    for node in sp.preorder_traversal(r):
        if isinstance(node, sp.Function):
            # acos, cos … in a cubic's roots: continuity would need their arguments' ranges
            raise NotShown("poles in radicals")
        if isinstance(node, sp.Pow) and not node.exp.is_integer:
            if node.base.free_symbols and sign_for_positive(node.base, positive) is None:
                raise NotShown("poles continuous in the parameters")
        elif isinstance(node, sp.Pow) and node.exp.is_negative and node.base.free_symbols \
                and sign_for_positive(node.base, positive) is None:
            raise NotShown("poles continuous in the parameters")
    at = r.xreplace({t: 1 for t in positive})
    gap = sp.expand(at * sp.conjugate(at)) - 1
    if gap.is_negative:
        return True
    if gap.is_positive:
        return False
    raise NotShown("each pole off the circle at the parameter it is read at")
