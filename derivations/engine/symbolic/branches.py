"""Forms for logarithms and inverse functions whose identities hold on one side of 0 only.

* :func:`branches` — the principal branches, where SymPy leaves a symbol's sign unused:
  log u = log(−u) + iπ for u < 0; atan(1/v) = ±π/2 − atan v for v ≷ 0 (atan v + atan(1/v) =
  sign(v)·π/2 for real v ≠ 0); e^(log Γ(u)) = Γ(u) (log Γ is a logarithm of Γ on every branch).
* :func:`logarithms_exponentiated` — a real difference Σ cᵢ log Aᵢ + R, every Aᵢ positive, every
  cᵢ rational and R real, is zero exactly when Π Aᵢ^(q·cᵢ) · e^(q·R) = 1 (q the cᵢ's common
  denominator), since e^x is one-to-one on the reals: one case, Π_{cᵢ>0} Aᵢ^(q·cᵢ) · e^(q·R) −
  Π_{cᵢ<0} Aᵢ^(−q·cᵢ), free of logarithms (log cosh x − x + log 2 = log(1 + e^(−2x)) is
  2 cosh x · e^(−x) = 1 + e^(−2x)).  An inverse hyperbolic tangent is first written as its
  logarithms, atanh u = (log(1 + u) − log(1 − u))/2, which holds wherever both are real.

Each applies only where SymPy's assumptions show the sign it needs (a range or a hypothesis
gives a symbol its sign, :func:`~.methods.signed_by_ranges`); a sign not shown leaves the form
alone.  Whatever they conclude, the numeric route must agree.
"""

from __future__ import annotations

import sympy as sp
from sympy.functions.elementary.hyperbolic import HyperbolicFunction

__all__ = ["branches", "logarithms_exponentiated"]


def _atan_of_reciprocal(node: sp.atan) -> sp.Basic:
    u = node.args[0]
    if not (isinstance(u, sp.Pow) and u.exp.is_negative and u.exp.is_Integer):
        return node
    v = 1 / u
    if v.is_positive:
        return sp.pi / 2 - sp.atan(v)
    if v.is_negative:
        return -sp.pi / 2 - sp.atan(v)
    return node


def branches(e: sp.Basic) -> sp.Basic:
    """``e`` with the principal branches of the module's first item applied where the signs
    are known."""
    e = e.replace(lambda n: isinstance(n, sp.log) and n.args[0].is_negative,
                  lambda n: sp.log(-n.args[0]) + sp.I * sp.pi)
    e = e.replace(lambda n: isinstance(n, sp.atan), _atan_of_reciprocal)
    return e.replace(lambda n: isinstance(n, sp.exp) and isinstance(n.args[0], sp.loggamma),
                     lambda n: sp.gamma(n.args[0].args[0]))


def _positive(a: sp.Basic) -> bool:
    """Whether SymPy shows ``a`` positive, as written or over one denominator (1 − x/(x + 2)
    is 2/(x + 2))."""
    if a.is_positive:
        return True
    return bool(sp.cancel(a).is_positive or sp.factor(a).is_positive)


def logarithms_exponentiated(e: sp.Basic) -> list[sp.Basic] | None:
    """The one case of the module's second item, or None where it does not apply."""
    e = e.replace(lambda n: isinstance(n, sp.atanh), lambda n: n.rewrite(sp.log))
    logs, rest = [], []
    for term in sp.Add.make_args(sp.expand_mul(e)):
        c, f = term.as_coeff_Mul()
        if isinstance(f, sp.log) and c.is_Rational:
            logs.append((c, f.args[0]))
        else:
            rest.append(term)
    r = sp.Add(*rest)
    if not logs or r.is_real is not True or not all(_positive(a) for _, a in logs):
        return None
    q = sp.ilcm(1, *[c.q for c, _ in logs])
    num = sp.Mul(*[a ** (q * c) for c, a in logs if c > 0]) * sp.exp(q * r)
    den = sp.Mul(*[a ** (-q * c) for c, a in logs if c < 0])
    case = num - den
    case = case.replace(lambda n: isinstance(n, HyperbolicFunction),
                        lambda n: n.rewrite(sp.exp))
    return [case]
