"""The symbolic route: a step equals the previous one if their difference simplifies to zero.

Only SymPy's algebra, SymPy's matrix calculus, the definitions of E and Var, and the rewrites of the
assumptions a step cites are used — all within a budget of SymPy operations
(:mod:`derivations.engine.core.budget`), so that a step's outcome is the same on every machine.
Whatever this route concludes, the numeric route in :mod:`derivations.engine.numeric.pointwise` must
agree before a step counts as proved.
"""

from __future__ import annotations

import functools
import operator
from contextlib import contextmanager
from typing import NamedTuple

import sympy as sp

from derivations.engine.core.binders import bound_symbols
from derivations.engine.core.budget import (
    OverBudget,
    budget,
    forget_with_claims,
    innermost,
    operations,
)
from derivations.engine.core.stochastic import E, linearize
from derivations.engine.symbolic.antiderivatives import integrals_by_antiderivative, vanishes
from derivations.engine.symbolic.methods import (
    LAW_DENSITIES,
    expectations_by_density,
    own_forms,
    partial_closed_forms,
    positive_off_zero,
    sequence_limits,
    signed_by_hypotheses,
    signed_by_ranges,
    textbook,
)
from derivations.engine.symbolic.ring import as_ring
from derivations.engine.symbolic.series import rational_series_closed

# SymPy operations for one step's check: the heaviest shipped step uses about a ninth of it
# (python -m derivations verify --budget prints each claim's use)
SYMBOLIC_OPS = 1_000_000
# SymPy operations for the route's own methods (derivations.engine.symbolic.methods), tried on a
# step the numbers agree with when simplify has not shown it
OWN_OPS = 400_000
# SymPy operations for a step the numbers have already refuted: it is `failed` whatever SymPy
# says, so SymPy's word on it is only reported, and a tenth of the budget settles it for nearly
# every mistake (192 of the 217 mutants of python -m derivations.mutants end within it, the
# others `timeout`); at the full budget the mutants took half as long again (520 CPU s, not 350)
REFUTED_OPS = 100_000


def apply_rewrites(expr: sp.Basic, rewrites) -> sp.Basic:
    for pattern, replacement in rewrites:
        expr = expr.replace(pattern, replacement)
    return expr


def _matrix_diff(expr: sp.Basic, var: sp.MatrixSymbol) -> sp.Basic:
    # SymPy's diff of a sum by a MatrixSymbol is a silent 0 ((Trace(A*F) + Trace(B*F)).diff(F)),
    # also inside a product (c·(Trace(A*F) + Trace(B*F))); so linearity, the product rule and
    # the power rule of scalar factors are applied here and SymPy only sees single terms.
    # The numeric route re-derives every result entrywise, so a wrong rule here cannot prove.
    if isinstance(expr, sp.MatrixExpr | sp.MatrixBase):
        return expr.diff(var)
    if not expr.has(var):
        return sp.ZeroMatrix(*var.shape)
    if isinstance(expr, sp.Add):
        return functools.reduce(operator.add, [_matrix_diff(t, var) for t in expr.args])
    if isinstance(expr, sp.Mul) and expr.is_commutative:
        factors = expr.args
        terms = []
        for n, f in enumerate(factors):
            if f.has(var):
                rest = sp.Mul(*(factors[:n] + factors[n + 1:]))
                terms.append(rest * _matrix_diff(f, var))
        return functools.reduce(operator.add, terms)
    if isinstance(expr, sp.Determinant) and expr.arg == var:
        return expr * sp.Inverse(var).T  # Jacobi's formula; SymPy has no rule for it
    if isinstance(expr, sp.Pow) and not expr.exp.has(var) and expr.base.is_commutative:
        return expr.exp * expr.base ** (expr.exp - 1) * _matrix_diff(expr.base, var)
    return expr.diff(var)


def _first_derivative(node: sp.Derivative) -> sp.Basic:
    f, var = node.expr, node.variables[0]
    out = _matrix_diff(f, var)
    if isinstance(f, sp.MatrixExpr | sp.MatrixBase) and f.shape[1] == 1:
        # SymPy lays out a vector by a vector as ∂f_b/∂x_a (denominator layout); the engine's
        # convention is the Jacobian, entry (a, b) = ∂f_a/∂x_b
        out = out.T
    return out


def matrix_calculus(expr: sp.Basic) -> sp.Basic:
    """SymPy's own matrix derivative; the numeric route re-derives every such result entrywise.
    Only first derivatives by a whole matrix reach here (validation refuses the others)."""
    return expr.replace(lambda x: isinstance(x, sp.Derivative)
                        and isinstance(x.variables[0], sp.MatrixSymbol)
                        and len(x.variables) == 1, _first_derivative)


def normal_forms(expr: sp.Basic, rewrites, random_bases) -> list[sp.Basic]:
    """The forms the symbolic route takes ``expr`` through, the last being its normal form: as
    written, after matrix calculus, then up to three rounds of the cited rewrites and linearity
    of E (a rewrite may apply only once E has been pushed inside a sum).  The premise check looks
    for a rewrite's instances in these same forms."""
    forms = [expr, matrix_calculus(expr)]
    for _ in range(3):
        rewritten = apply_rewrites(forms[-1], rewrites)
        new = linearize(rewritten, random_bases)
        if new == forms[-1]:
            break
        forms += [rewritten, new]
    return forms


def _normal_form(expr: sp.Basic, rewrites, random_bases) -> sp.Basic:
    return normal_forms(expr, rewrites, random_bases)[-1]


def _within_ranges(expr: sp.Basic, indices: dict) -> sp.Basic:
    """Sums over KroneckerDelta leave Piecewise conditions such as 1 <= j <= n; a declared index
    range makes them true."""
    facts = {}
    for idx, (lo, hi) in indices.items():
        lo, hi = sp.sympify(lo, strict=True), sp.sympify(hi, strict=True)
        for rel in (sp.Ge(idx, lo), sp.Le(lo, idx), sp.Le(idx, hi), sp.Ge(hi, idx)):
            facts[rel] = sp.true
    return expr.xreplace(facts) if facts else expr


def _sums_from_zero(expr: sp.Basic) -> sp.Basic:
    """Every summation variable shifted to start at 0: Σ_{i=a}^{b} f(i) = Σ_{i=0}^{b-a} f(i + a)
    (Karr's convention holds on both sides), so that sums written with shifted indices meet.
    A variable that bounds another limit of its sum is left alone."""
    def shift(s: sp.Sum) -> sp.Sum:
        for var, lo, _ in s.limits:
            others = [b for v, *bounds in s.limits if v != var for b in bounds]
            if lo != 0 and not any(b.has(var) for b in others):
                s = s.change_index(var, var - lo, var)
        return s
    return expr.replace(lambda e: isinstance(e, sp.Sum), shift)


def _is_zero(diff: sp.Basic, indices: dict) -> bool:
    if _simplifies_to_zero(diff, indices):
        return True
    shifted = _sums_from_zero(diff)
    return shifted != diff and _simplifies_to_zero(shifted, indices)


def _settled(diff: sp.Basic, indices: dict) -> sp.Basic:
    diff = textbook(diff, indices)
    for _ in range(3):  # a derivative's doit can leave a Sum over a KroneckerDelta to evaluate
        done = diff.doit()
        if done == diff:
            break
        diff = done
    return _within_ranges(diff, indices)


def _simplifies_to_zero(diff: sp.Basic, indices: dict) -> bool:
    diff = _settled(diff, indices)
    if isinstance(diff, sp.MatrixExpr | sp.MatrixBase):
        if isinstance(diff, sp.ZeroMatrix) or getattr(diff, "is_ZeroMatrix", False):
            return True
        if isinstance(diff, sp.MatrixBase):
            return all(sp.simplify(x) == 0 for x in diff)
        return sp.simplify(sp.expand(diff)) == sp.ZeroMatrix(*diff.shape)
    return sp.simplify(diff) == 0 or sp.simplify(sp.expand(sp.powsimp(diff))) == 0


_DONE: dict = {}
_DONE_KEPT = 20000
forget_with_claims(_DONE.clear)


class _Unaffordable(NamedTuple):
    """An integral whose evaluation was stopped by its budget after ``ops`` SymPy operations."""

    ops: int


def _remembering(original, integral: bool):
    depth = [0]

    def doit(self, **hints):
        try:
            key = (self, tuple(sorted(hints.items())))
            hash(key)
        except TypeError:  # an unhashable hint: not remembered
            return original(self, **hints)
        known = _DONE.get(key)
        if isinstance(known, _Unaffordable):
            running = innermost()
            if running is not None and known.ops >= running.limit:
                raise OverBudget(running.what, "operations", running.limit, known.ops)
        elif known is not None:
            return known
        if len(_DONE) > _DONE_KEPT:
            _DONE.clear()
        start = operations()
        depth[0] += 1
        try:
            _DONE[key] = original(self, **hints)
        except OverBudget:
            # only an evaluation that was not itself inside another integral's: where an inner
            # one stands when the budget runs out depends on when the timer fires
            if integral and depth[0] == 1:
                _DONE[key] = _Unaffordable(operations() - start)
            raise
        finally:
            depth[0] -= 1
        return _DONE[key]
    return doit


@contextmanager
def remembered_doits():
    """``Sum.doit`` and ``Integral.doit`` remember their results while the symbolic route runs.

    The same sums and integrals recur in every step of a claim, in the doit that checks for a
    fixed point, and again in the route's own methods; SymPy runs its summation algorithms
    (Gosper, hypergeometric) and its integration algorithms (Risch, Meijer G, heuristics) afresh
    each time, and most of them fail on the same input the same way.  A result depends only on
    the expression (structural equality includes every symbol's assumptions) and the hints.
    An integral that SymPy could not evaluate within its budget is remembered as such, with the
    operations it had used: a later check whose whole budget is no larger is stopped at once
    (the own methods' budget is 0.4 times the first check's), a larger one tries again.  What is
    remembered is forgotten before each claim (:func:`derivations.engine.budget.fresh_start`),
    so a claim's count is its own."""
    saved = sp.Sum.doit, sp.Integral.doit
    sp.Sum.doit = _remembering(saved[0], integral=False)
    sp.Integral.doit = _remembering(saved[1], integral=True)
    try:
        yield
    finally:
        sp.Sum.doit, sp.Integral.doit = saved


@contextmanager
def no_numbers():
    """SymPy's evalf of a Sum, a Product or an Integral gives up while the symbolic route runs.

    SymPy asks a constant expression for its sign by evaluating it to a few digits (``evalf(2)``
    inside the assumptions); for Σ cos(i)/i that is a quadrature of minutes in mpmath, which no
    count of SymPy operations sees, so the route's cost would depend on the machine.  A number
    is also no proof: the symbolic route decides by algebra, the numeric route by numbers."""
    from sympy.core import evalf as evalf_module

    if not evalf_module.evalf_table:
        evalf_module._create_evalf_table()
    table = evalf_module.evalf_table  # rebound by _create_evalf_table: read after it
    saved = {cls: table[cls] for cls in (sp.Sum, sp.Product, sp.Integral) if cls in table}

    def refuse(x, prec, options):
        raise NotImplementedError(f"{type(x).__name__} is not evaluated by the symbolic route")
    for cls in saved:
        table[cls] = refuse
    try:
        yield
    finally:
        table.update(saved)


class SymbolicOutcome(NamedTuple):
    result: str  # zero | inconclusive | timeout | error
    detail: str  # what happened, when it says more than the result
    ops: int  # SymPy operations used
    stopped: OverBudget | None = None  # what stopped it, when it timed out


def _own_methods(prev, cur, rewrites, random_bases, domain, ops, hypotheses=(),
                 integrals: bool | str = True) -> str:
    """The name of the engine's own method that shows prev - cur is zero, or ''; never raises.
    ``integrals``: whether to evaluate definite integrals by residues or an antiderivative, or
    "only" that."""
    indices = domain.indices
    try:
        with budget(ops, "symbolic route (own methods)", kind="symbolic"), remembered_doits(), \
                no_numbers():
            signed = positive_off_zero(
                signed_by_hypotheses(hypotheses, signed_by_ranges(domain.ranges)), prev, cur)
            diff = (_normal_form(prev, rewrites, random_bases)
                    - _normal_form(cur, rewrites, random_bases))
            if integrals and diff.has(sp.Integral):
                evaluated = integrals_by_antiderivative(diff, domain.ranges)
                if evaluated is not None and all(vanishes(case, lambda e: _is_zero(e, indices))
                                                 for case in evaluated.cases):
                    return " and ".join(evaluated.methods)
            if integrals == "only":
                return ""
            if diff.has(E) and domain.distribution in LAW_DENSITIES:
                by_law = expectations_by_density(diff, domain.random, domain.distribution)
                if by_law is not None and _is_zero(by_law, indices):
                    return f"the {domain.distribution} law's density"
            if isinstance(diff, sp.MatrixExpr):
                polynomial = as_ring(diff)
                if polynomial is not None and sp.expand(polynomial) == 0:
                    return "the algebra of square matrices (a noncommutative polynomial)"
            # a sign is the free symbol's: a bound variable of the same name ranges elsewhere
            bound = bound_symbols(diff)
            signed = {s: v for s, v in signed.items() if s not in bound}
            if signed:
                before, diff = diff, diff.xreplace(signed)
                if diff != before and _is_zero(diff, indices):
                    return "the signs its ranges and hypotheses give its symbols"
            if diff.has(sp.Limit):
                limits = sequence_limits(diff)
                if limits != diff and _is_zero(limits, indices):
                    return "the limits of the sequence's residue classes"
                diff = limits
            if any(lim[2] == sp.oo for node in diff.atoms(sp.Sum, sp.Product)
                   for lim in node.limits):
                closed = rational_series_closed(diff)
                if closed != diff and _is_zero(sp.expand_func(sp.gammasimp(closed)), indices):
                    return "rational terms summed by ψ and multiplied by Γ"
                partials = partial_closed_forms(diff)
                if partials != diff and _is_zero(partials, indices):
                    return "the limit of its partial sums or products, closed by induction"
                diff = partials
            return own_forms(_settled(diff, indices), lambda e: sp.simplify(e) == 0)
    except OverBudget:
        return ""
    except Exception:  # noqa: BLE001 - a method that fails has shown nothing
        return ""


def symbolic_check_detail(prev, cur, rewrites=(), random_bases=(), indices=None,
                          ops=SYMBOLIC_OPS, own=None, hypotheses=()) -> SymbolicOutcome:
    """Whether prev - cur simplifies to zero within ``ops`` SymPy operations — or, given ``own``
    (the claim's Domain), by one of the route's own methods within ``OWN_OPS`` more, which may
    use the declared ranges' signs, the signs the claim's ``hypotheses`` give its symbols and a
    declared law's density; never raises."""
    # an integral SymPy cannot close costs the whole budget before the own methods run: tried
    # first, the integrals' own methods save it (and are not tried twice)
    integrals = own is not None and (prev.has(sp.Integral) or cur.has(sp.Integral))
    if integrals:
        method = _own_methods(prev, cur, rewrites, random_bases, own, OWN_OPS, hypotheses,
                              integrals="only")
        if method:
            return SymbolicOutcome("zero", f"by {method}", 0)
    first = _simplify_check(prev, cur, rewrites, random_bases, indices, ops)
    if first.result == "zero" or own is None:
        return first
    method = _own_methods(prev, cur, rewrites, random_bases, own, OWN_OPS, hypotheses,
                          integrals=not integrals)
    if method:
        return SymbolicOutcome("zero", f"by {method}", first.ops)
    return first


def _simplify_check(prev, cur, rewrites, random_bases, indices, ops) -> SymbolicOutcome:
    meter = None
    try:
        with budget(ops, "symbolic route", kind="symbolic") as meter, remembered_doits(), \
                no_numbers():
            a = _normal_form(prev, rewrites, random_bases)
            b = _normal_form(cur, rewrites, random_bases)
            zero = _is_zero(a - b, indices or {})
        if zero:
            return SymbolicOutcome("zero", "", meter.ops)
        return SymbolicOutcome("inconclusive", "the difference did not simplify to zero",
                               meter.ops)
    except OverBudget as exc:
        return SymbolicOutcome("timeout", str(exc), exc.used, exc)
    except Exception as exc:  # noqa: BLE001 - any SymPy failure only makes the step not 'proved'
        return SymbolicOutcome("error", f"{type(exc).__name__}: {exc}",
                               meter.ops if meter else 0)


def symbolic_check(prev, cur, rewrites=(), random_bases=(), indices=None,
                   ops=SYMBOLIC_OPS) -> str:
    """'zero' if prev - cur simplifies to 0 within ``ops`` SymPy operations; never raises."""
    return symbolic_check_detail(prev, cur, rewrites, random_bases, indices, ops).result
