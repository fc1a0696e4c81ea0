"""The symbolic route's own methods, for what SymPy's ``simplify`` leaves undecided.

* :func:`textbook` — the summation convention, in the symbolic route as in the numeric one: a
  sum whose upper bound is below its lower bound is empty (0), a product 1.  SymPy's ``doit``
  follows Karr's convention (Σ_{i=a}^{b} = −Σ_{i=b+1}^{a−1} when b < a − 1); a sum over a range
  that may be empty becomes ``Piecewise((sum, b ≥ a − 1), (0, True))``, which agrees with Karr's
  value wherever the condition holds; a sum inside another is read within the outer ranges.
* :func:`sequence_limits` — the limit of a sequence (an integer variable going to ∞) by its
  residue classes: with P the period of every integer-only part (Mod, floor, ceiling, frac,
  (−1)ⁿ, cos πn/2 …), n = P·m + r for r = 0..P−1 leaves expressions in m free of them; each is then
  a function of a real m whose limit SymPy computes, and a sequence whose P subsequences share
  one limit has that limit (a real limit implies the limit along the integers).  SymPy's own
  ``limit`` keeps n an integer in its substitution n = 1/t and gets n·sin(π/n) → 0.
* :func:`partial_closed_forms` — an infinite sum or product as the limit of its partial ones,
  when SymPy closes them and the closed form passes induction (first term, next term).
* :func:`derivations.engine.series.rational_series` — an infinite sum or product of rational
  terms (once (−1)ⁱ and Mod are fixed) closed by ψ and Γ from the roots of its terms.
* :func:`expectations_by_density` — for a claim about one law (``Domain.distribution``, the
  normal), E of anything as the integral against the law's density, independent variables one
  after another: E|X| and E max(X, 0), which the rewrites of any law cannot reach.
* :data:`FORMS` — further normal forms tried on the difference after ``simplify``: Piecewise
  (Max, Min, Abs), exponentials (trigonometric and hyperbolic functions), floor (Mod, frac), special
  functions expanded, logarithms combined where SymPy may (positive arguments), an inverse function
  applied to its function undone (:func:`inverses_undone`).  Each is an identity of SymPy's;
  whatever they conclude, the numeric route must agree.  Among them three proofs by cases
  (:mod:`derivations.engine.symbolic.cases`): an integer symbol's residue classes, floors of one
  real variable over one period, and a Piecewise in one real variable branch by branch, each branch
  where no earlier one holds.

None of these runs in the numeric route, which evaluates definitions with numbers.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp
from sympy.functions.elementary.hyperbolic import HyperbolicFunction
from sympy.functions.elementary.trigonometric import TrigonometricFunction

from derivations.engine.core.stochastic import E
from derivations.engine.symbolic.branches import branches, logarithms_exponentiated
from derivations.engine.symbolic.cases import (
    _INTEGER_PARTS,
    _period,
    _settle,
    one_period,
    piecewise_branches,
    residue_classes,
)
from derivations.engine.symbolic.given import complex_parts, has_complex
from derivations.engine.symbolic.traces import cyclic, traces_as_sums


def _nonnegative(length: sp.Basic, indices: dict) -> bool | None:
    """Whether a range's length is ≥ 0 by the symbols' assumptions, or else by the declared
    ranges of the indices it holds (its least value over their box, when it is linear in them)."""
    if length.is_nonnegative is not None:
        return length.is_nonnegative
    ranged = [i for i in indices if length.has(i)]
    if not ranged:
        return None
    least = length
    for idx in ranged:
        coeff = sp.expand(least).coeff(idx)
        if coeff.has(*ranged) or not coeff.is_number:
            return None
        lo, hi = (sp.sympify(b, strict=True) for b in indices[idx])
        least = least.xreplace({idx: lo if coeff >= 0 else hi})
    return True if sp.expand(least).is_nonnegative else None


def _within(indices: dict, limits) -> dict:
    """The index ranges inside a sum's or product's ``limits`` (innermost first), entered from
    the outside in: each variable's range is added, and a range whose ends hold that variable is
    dropped — its ends name another symbol of the same name, now out of sight."""
    out = {s: tuple(sp.sympify(e, strict=True) for e in ends) for s, ends in indices.items()}
    for var, lo, hi in reversed(limits):
        out = {s: ends for s, ends in out.items() if s != var and not any(e.has(var) for e in ends)}
        if not (lo.has(var) or hi.has(var)):
            out[var] = (lo, hi)
    return out


def textbook(expr: sp.Basic, indices: dict | None = None) -> sp.Basic:
    """Sums and products over a range that may be empty, written with the textbook convention;
    ``indices`` (index -> (lo, hi)) decides ranges whose ends are indices.  What a sum or product
    encloses is evaluated only inside its ranges (an empty one is 0 or 1, whatever the body), so
    there its variables count as indices: within Σ_{k=1}^{n}, Σ_{l=k+1}^{n} has n − k ≥ 0 terms."""
    indices = indices or {}

    def one(node):
        limits = node.limits
        empty = sp.Integer(0) if isinstance(node, sp.Sum) else sp.Integer(1)
        out = textbook(node.function, _within(indices, limits))
        for at, (var, lo, hi) in enumerate(limits):
            enclosing = _within(indices, limits[at + 1:])
            lo, hi = textbook(lo, enclosing), textbook(hi, enclosing)
            length = hi - lo + 1
            inner = type(node)(out, (var, lo, hi))
            if length.is_negative:
                out = empty
            elif _nonnegative(length, enclosing):
                out = inner
            else:
                out = sp.Piecewise((inner, sp.Ge(length, 0)), (empty, True))
        return out

    # the outermost sums and products, each written from the outside in
    outermost, walk = {}, sp.preorder_traversal(expr)
    for node in walk:
        if isinstance(node, sp.Sum | sp.Product) and all(len(lim) == 3 for lim in node.limits):
            outermost[node] = one(node)
            walk.skip()
    return expr.xreplace(outermost) if outermost else expr


def _real_extension_safe(g: sp.Basic, x: sp.Symbol) -> bool:
    """Whether ``g`` as a function of a real x is the same formula with no integer-only part
    and no power of a base that is not positive to a power holding x."""
    for node in sp.preorder_traversal(g):
        if isinstance(node, _INTEGER_PARTS) and node.has(x):
            return False
        if isinstance(node, sp.Pow) and node.exp.has(x) and not node.base.is_positive:
            return False
        if isinstance(node, sp.Sum | sp.Product | sp.Integral | sp.Limit):
            return False
    return True


def _sequence_limit(f: sp.Basic, n: sp.Symbol) -> sp.Basic | None:
    period = _period(f, n)
    if period is None:
        return None
    m = sp.Dummy("m", integer=True, nonnegative=True)
    x = sp.Dummy("x", positive=True)
    values = []
    for r in range(period):
        g = _settle(sp.expand(f.xreplace({n: period * m + r}), mul=False, power_exp=False,
                              log=False, multinomial=False, basic=False))
        # factorials as Γ: the real function that agrees with them at the integers
        g = g.rewrite(sp.gamma).xreplace({m: x})
        if not _real_extension_safe(g, x):
            return None
        value = sp.limit(g, x, sp.oo)
        if value.has(x, sp.Limit, sp.AccumBounds, sp.nan, sp.zoo) or not (
                value.is_finite or value in (sp.oo, -sp.oo)):
            return None
        values.append(value)
    first = values[0]
    if all(v == first or sp.simplify(v - first) == 0 for v in values[1:]):
        return first
    return None


def sequence_limits(expr: sp.Basic) -> sp.Basic:
    """Every limit of a sequence in ``expr`` whose residue classes settle, replaced by its value."""
    def one(node: sp.Limit):
        f, var, to = node.args[:3]
        if to != sp.oo or not var.is_integer:
            return node
        value = _sequence_limit(f, var)
        return node if value is None else value
    return expr.replace(lambda e: isinstance(e, sp.Limit), one)


def _normal_density(x: sp.Symbol, mean: sp.Basic, variance: sp.Basic) -> sp.Basic:
    return sp.exp(-(x - mean) ** 2 / (2 * variance)) / sp.sqrt(2 * sp.pi * variance)


# law -> its density at x with the given mean and variance
LAW_DENSITIES = {"normal": _normal_density}


def expectations_by_density(expr: sp.Basic, random: dict, law: str) -> sp.Basic | None:
    """``expr`` with every E written as the integral against ``law``'s density, the variables
    independent; None when a random variable is not a plain symbol or its variance is not known
    positive (the integral would need cases)."""
    density = LAW_DENSITIES[law]
    if any(not isinstance(b, sp.Symbol) for b in random) or any(
            not sp.sympify(v, strict=True).is_positive for _, v in random.values()):
        return None

    def integral(e: E) -> sp.Basic:
        arg = e.args[0]
        if arg.has(sp.Max, sp.Min, sp.Abs, sp.sign, sp.Heaviside):
            arg = sp.piecewise_fold(arg.rewrite(sp.Piecewise))
        for var in sorted(arg.free_symbols & set(random), key=sp.default_sort_key):
            mean, variance = random[var]
            x = sp.Dummy(var.name, real=True)
            arg = sp.integrate(arg.xreplace({var: x}) * density(x, mean, variance),
                               (x, -sp.oo, sp.oo))
        return arg.rewrite(sp.erf) if arg.has(sp.erfc) else arg  # erf + erfc = 1 meets
    return expr.replace(lambda e: isinstance(e, E), integral)


def _partial_closed_form(node: sp.Sum | sp.Product) -> sp.Basic:
    """An infinite sum or product as the limit of its partial ones, when SymPy closes them and
    the closed form passes induction here (the first term; each next one adds the next term, or
    multiplies by it): then the closed form is right at every N, whatever SymPy did to find it,
    and its limit is a sequence's (:func:`_sequence_limit`).  ``node`` itself otherwise."""
    if len(node.limits) != 1 or node.limits[0][2] != sp.oo:
        return node
    var, lo, _ = node.limits[0]
    if not lo.is_Integer:
        return node
    count = sp.Dummy("N", integer=True, nonnegative=True)
    partial = type(node)(node.function, (var, lo, lo + count)).doit()
    if partial.has(sp.Sum, sp.Product):
        return node
    term = node.function.xreplace({var: lo + count})
    before = partial.xreplace({count: count - 1})
    if isinstance(node, sp.Sum):
        step = partial - before - term
    else:
        step = sp.gammasimp(partial / before) - term
    first = partial.xreplace({count: 0}) - node.function.xreplace({var: lo})
    if sp.simplify(sp.expand_func(sp.gammasimp(step))) != 0 or sp.simplify(first) != 0:
        return node
    value = _sequence_limit(partial, count)
    return node if value is None else value


def partial_closed_forms(expr: sp.Basic) -> sp.Basic:
    """Every infinite sum or product whose partial ones close (:func:`_partial_closed_form`)
    replaced by its value."""
    return expr.replace(lambda e: isinstance(e, sp.Sum | sp.Product),
                        node_or_itself(_partial_closed_form))


def node_or_itself(method: Callable[[sp.Basic], sp.Basic]) -> Callable[[sp.Basic], sp.Basic]:
    """``method`` on one node, or the node itself where SymPy raises (Γ of a complex partial
    product compared with 0): one node's failure leaves the others to be closed."""
    def one(node: sp.Basic) -> sp.Basic:
        try:
            return method(node)
        except Exception:  # noqa: BLE001 - a method that fails has shown nothing
            return node
    return one


def constant_terms(expr: sp.Basic) -> sp.Basic:
    """A sum or product over a variable its body does not hold: the body times (or to the power
    of) the number of terms, for a range known not empty — SymPy's doit leaves
    Σ_i (Σ_i z_i) alone once it merges the two into one Sum."""
    def one(node):
        out = node.function
        for var, lo, hi in node.limits:
            count = hi - lo + 1
            if var in out.free_symbols or not count.is_nonnegative:
                out = type(node)(out, (var, lo, hi))
            else:
                out = out * count if isinstance(node, sp.Sum) else out**count
        return out
    return expr.replace(lambda e: isinstance(e, sp.Sum | sp.Product)
                        and all(len(lim) == 3 for lim in e.limits), one)


def signed_by_ranges(ranges: dict) -> dict:
    """A symbol whose declared range lies in [0, ∞) or (0, ∞) — or in (−∞, 0] or (−∞, 0) — as
    one assumed so: the range is part of the claim's statement, and SymPy's identities of special
    functions and logarithms need the sign (Ei = Chi + Shi holds for x > 0 only; √x = i√(−x) for
    x < 0)."""
    out = {}
    for s, (lo, hi) in ranges.items():
        lo, hi = sp.sympify(lo, strict=True), sp.sympify(hi, strict=True)
        if not isinstance(s, sp.Symbol):
            continue
        if lo.is_number and lo >= 0 and not s.is_nonnegative:
            out[s] = _signed(s, **({"positive": True} if lo > 0 else {"nonnegative": True}))
        elif hi.is_number and hi <= 0 and not s.is_nonpositive:
            out[s] = _signed(s, **({"negative": True} if hi < 0 else {"nonpositive": True}))
    return out


def signed_by_hypotheses(hypotheses, signed: dict) -> dict:
    """A symbol that a hypothesis bounds by a constant — x > 0, x ≥ 2, 0 < x, x < −1, x ≠ 0 —
    as one assumed positive, nonnegative, negative or nonzero: the hypothesis is part of the
    claim's statement, and the numeric route draws only points where it holds."""
    out = dict(signed)
    for h in hypotheses:
        if isinstance(h, sp.Unequality):
            # SymPy's nonzero is real and nonzero: only a real symbol may become one
            if h.rhs == 0 and isinstance(h.lhs, sp.Symbol) and h.lhs.is_real and h.lhs not in out:
                out[h.lhs] = _signed(h.lhs, nonzero=True)
            continue
        if not isinstance(h, sp.core.relational.Relational) or isinstance(h, sp.Equality):
            continue
        # as s > c or s ≥ c (lower) or s < c, s ≤ c (upper)
        lhs, rhs, lower = (h.lhs, h.rhs, h.rel_op in (">", ">=")) if isinstance(
            h.lhs, sp.Symbol) else (h.rhs, h.lhs, h.rel_op in ("<", "<="))
        if not isinstance(lhs, sp.Symbol) or not rhs.is_number or lhs in out:
            continue
        strict = h.rel_op in (">", "<")
        if lower and rhs >= 0:
            out[lhs] = _signed(lhs, **({"positive": True} if rhs > 0 or strict else
                                      {"nonnegative": True}))
        elif not lower and rhs <= 0:
            out[lhs] = _signed(lhs, **({"negative": True} if rhs < 0 or strict else
                                      {"nonpositive": True}))
    return out


def positive_off_zero(signed: dict, *sides: sp.Basic) -> dict:
    """A symbol whose range starts at 0 as one assumed positive where every side of the claim is
    undefined at 0 (log x + log y = log xy on 0 ≤ x, y ≤ 2): the claim says nothing there, and
    the numeric route replaces such a point."""
    out = dict(signed)
    for s, d in signed.items():
        if not d.is_positive and d.is_nonnegative and all(
                side.xreplace({s: 0}).has(sp.zoo, sp.nan) for side in sides):
            out[s] = _signed(s, positive=True)
    return out


def _signed(s: sp.Symbol, **sign) -> sp.Dummy:
    kept = {k: v for k, v in s.assumptions0.items() if v and k in ("integer", "real")}
    return sp.Dummy(s.name, **kept, **sign)


def _loggamma_positive(e: sp.Basic) -> sp.Basic:
    # log Γ(z) = log(Γ(z)) only for z > 0: below, loggamma is the analytic continuation
    return e.replace(lambda x: isinstance(x, sp.loggamma) and x.args[0].is_positive,
                     lambda x: sp.log(sp.gamma(x.args[0])))


def _has(*kinds) -> Callable[[sp.Basic], bool]:
    return lambda e: any(isinstance(node, kinds) for node in sp.preorder_traversal(e))


def inverses_undone(expr: sp.Basic) -> sp.Basic:
    """A function's inverse applied to it, for a real argument h: asinh(sinh h) = h,
    atan(tan h) = h − π·⌊h/π + 1/2⌋ (h off the poles of tan), asin(sin h) = (−1)ᵏ(h − kπ) with
    k = ⌊h/π + 1/2⌋, acosh(cosh h) = |h|."""
    def undone(e):
        inner = e.args[0]
        if not (isinstance(inner, sp.Function) and len(inner.args) == 1
                and inner.args[0].is_real):
            return e
        h = inner.args[0]
        k = sp.floor(h / sp.pi + sp.Rational(1, 2))
        if isinstance(e, sp.asinh) and isinstance(inner, sp.sinh):
            return h
        if isinstance(e, sp.atan) and isinstance(inner, sp.tan):
            return h - sp.pi * k
        if isinstance(e, sp.asin) and isinstance(inner, sp.sin):
            return (-1) ** k * (h - k * sp.pi)
        if isinstance(e, sp.acosh) and isinstance(inner, sp.cosh):
            return sp.Abs(h)
        return e
    return expr.replace(lambda e: isinstance(e, sp.asinh | sp.atan | sp.asin | sp.acosh), undone)


_SPECIAL = (sp.gamma, sp.loggamma, sp.polygamma, sp.beta, sp.Ei, sp.expint, sp.Si, sp.Ci,
            sp.Shi, sp.Chi, sp.erf, sp.erfc, sp.zeta)

_PIECEWISE = (sp.Max, sp.Min, sp.Piecewise, sp.Abs, sp.sign, sp.Heaviside)

# (name, applies to, form): tried in order on the difference, each followed by simplify; a form
# may give a list of cases instead, each of which must simplify to zero, or None (no cases)
FORMS: tuple[tuple[str, Callable, Callable], ...] = (
    ("Piecewise form", _has(*_PIECEWISE), lambda e: sp.piecewise_fold(e.rewrite(sp.Piecewise))),
    ("Piecewise form, branch by branch", _has(*_PIECEWISE), piecewise_branches),
    ("inverse functions undone", _has(sp.asinh, sp.atan, sp.asin, sp.acosh), inverses_undone),
    ("exponential form", _has(TrigonometricFunction, HyperbolicFunction),
     lambda e: e.rewrite(sp.exp)),
    ("floor form", _has(sp.Mod, sp.frac), lambda e: e.rewrite(sp.floor)),
    ("residue classes", _has(*_INTEGER_PARTS, sp.Pow, sp.sin, sp.cos, sp.tan), residue_classes),
    ("one period of its floors, piece by piece", _has(sp.floor, sp.ceiling, sp.frac),
     one_period),
    ("constant terms of sums counted", _has(sp.Sum, sp.Product), constant_terms),
    ("a product of exponentials as the exponential of a sum", _has(sp.Product),
     lambda e: e.replace(lambda x: isinstance(x, sp.Product) and isinstance(x.function, sp.exp),
                         lambda x: sp.exp(sp.Sum(x.function.args[0], *x.limits))).doit()),
    ("special functions expanded", _has(*_SPECIAL),
     lambda e: sp.expand_log(sp.expand_func(_loggamma_positive(e)))),
    ("exponential integrals as Ei", _has(sp.Si, sp.Ci, sp.Shi, sp.Chi, sp.expint, sp.Ei),
     lambda e: e.rewrite(sp.Ei)),
    ("logarithms combined", _has(sp.log), lambda e: sp.logcombine(e)),
    ("principal branches on a known sign", _has(sp.log, sp.atan, sp.loggamma), branches),
    ("logarithms exponentiated", _has(sp.log, sp.atanh), logarithms_exponentiated),
    ("complex symbols by their real and imaginary parts", has_complex, complex_parts),
    ("traces rotated to one cyclic order", _has(sp.Trace), cyclic),
    ("traces as sums of their diagonal entries", _has(sp.Trace), traces_as_sums),
)


def own_forms(diff: sp.Basic, is_zero: Callable[[sp.Basic], bool]) -> str:
    """The name of the first form in which ``diff`` is zero by ``is_zero`` (a form of cases:
    zero in every one of them), or ''."""
    if diff.has(sp.Integral) or isinstance(diff, sp.MatrixExpr | sp.MatrixBase):
        return ""
    for name, applies, form in FORMS:
        if not applies(diff):
            continue
        out = form(diff)
        cases = [out] if isinstance(out, sp.Basic) else out
        if cases and all(is_zero(case) for case in cases):
            return name
    return ""
