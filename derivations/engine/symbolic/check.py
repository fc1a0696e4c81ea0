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
from types import SimpleNamespace
from typing import NamedTuple

import sympy as sp
from sympy.functions.elementary.hyperbolic import HyperbolicFunction
from sympy.functions.elementary.trigonometric import TrigonometricFunction

from derivations.engine.core.binders import bound_symbols
from derivations.engine.core.budget import (
    OverBudget,
    budget,
)
from derivations.engine.core.expressions import symbols_of
from derivations.engine.core.stochastic import E, linearize
from derivations.engine.symbolic.antiderivatives import integrals_by_antiderivative, vanishes
from derivations.engine.symbolic.given import by_equalities, shifted, unit_powers, zero_apart
from derivations.engine.symbolic.guards import no_numbers, remembered_doits
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
from derivations.engine.symbolic.sums import nested_sums, sums_as_symbols

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
            return all(_simplified(x) == 0 for x in diff)
        return sp.simplify(sp.expand(diff)) == sp.ZeroMatrix(*diff.shape)
    return _simplified(diff) == 0 or _simplified(sp.expand(sp.powsimp(diff))) == 0


def _simplified(e: sp.Basic) -> sp.Basic:
    """``sp.simplify(e)``.  SymPy's Sum simplification raises StopIteration on a term whose Sum
    sits under a power or a function (x_i/√(Σ_k x_k²): its sum_combine looks for a Sum among the
    term's factors and finds none); then every sum is held as a symbol of its own, equal sums
    as one — a difference zero for every value of those symbols is zero."""
    try:
        return sp.simplify(e)
    except StopIteration:
        held = {s: sp.Dummy("sum", **({"real": True} if s.is_real else {}))
                for s in sorted(e.atoms(sp.Sum), key=sp.default_sort_key)}
        return sp.simplify(e.xreplace(held)).xreplace({v: k for k, v in held.items()})


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
            unsigned = diff
            if signed:
                before, diff = diff, diff.xreplace(signed)
                if diff != before and _is_zero(diff, indices):
                    return "the signs its ranges and hypotheses give its symbols"
            method = _given(unsigned, prev, cur, hypotheses, domain, bound)
            if method:
                return method
            cases = zero_apart(unsigned, indices)
            if cases and all(_is_zero(c, indices) for c in cases):
                return "a size that may be 0 taken apart: 0 and positive"
            unit = unit_powers(unsigned, domain.ranges)
            if unit != unsigned and _is_zero(unit, indices):
                return "powers of a base in (0, 1) taken as values in (0, 1)"
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


# SymPy's polynomial algorithms (factoring, gcds over dense lists of coefficients) do their work
# outside its cached functions, so no count of SymPy operations sees it: simplify ran for minutes
# on v/(1 − β^(10^6)) and on e^100 − 2 sinh 100 (trigsimp factors a polynomial of degree 200 in e
# over the Gaussian integers).  Such parts are taken as atoms of their own
MAX_POWER = 64  # integer exponents past this
MAX_HYPERBOLIC = 20  # numbers past this inside a hyperbolic function
MAX_ORDER = 8  # derivatives of this order or more (the 15th of tanh x has 25,000 operations)


def _dear(node, bound, bound_plain) -> bool:
    if isinstance(node, sp.Derivative):
        return not node.free_symbols & bound_plain and sum(
            int(c) if c.is_Integer else MAX_ORDER for _, c in node.variable_count) >= MAX_ORDER
    if node.free_symbols & bound:
        return False
    if isinstance(node, sp.Pow) and node.exp.is_Integer and abs(int(node.exp)) > MAX_POWER:
        return True
    return (isinstance(node, sp.sinh | sp.cosh | sp.tanh | sp.coth | sp.sech | sp.csch)
            and node.args[0].is_number and bool(abs(node.args[0]) > MAX_HYPERBOLIC))


def _atoms_for_dear_parts(*exprs):
    """``exprs`` with each power of a huge integer exponent (β^(10^6)), each hyperbolic function
    of a large number (sinh 100) and each derivative of high order replaced by a symbol of its
    own, the same one for the same part in all of them.  Sound: what is zero for every value of
    the symbol is zero for the part's (a positive base's power stays positive); only
    completeness is lost."""
    bound = set().union(*(bound_symbols(e, derivatives=True) for e in exprs))
    bound_plain = set().union(*(bound_symbols(e) for e in exprs))
    parts: dict = {}
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if isinstance(node, sp.Basic) and node not in parts and _dear(node, bound,
                                                                         bound_plain):
                positive = bool(isinstance(node, sp.Pow) and node.base.is_positive)
                parts[node] = sp.Dummy(f"part{len(parts)}", positive=positive or None)
    if not parts:
        return exprs
    return tuple(e.xreplace(parts) for e in exprs)


def _swells(diff, s, value) -> bool:
    """Whether putting ``s = value`` (c ± t) puts a number past MAX_HYPERBOLIC inside an
    exponential, a hyperbolic or trigonometric function or an exponent: e^(2t + 400) is a
    polynomial of degree 800 in e to SymPy's factoring (its cost is charged, see
    :func:`~derivations.engine.core.budget.charge`, and would use the whole budget).  Such a
    symbol keeps only its sign (:func:`~.methods.signed_by_ranges`)."""
    edge = value.as_independent(*value.free_symbols, as_Add=True)[0]
    if not (edge.is_number and abs(edge) > MAX_HYPERBOLIC):
        return False
    return any(node.has(s) for node in sp.preorder_traversal(diff)
               if isinstance(node, sp.exp | HyperbolicFunction | TrigonometricFunction)
               or (isinstance(node, sp.Pow) and node.exp.has(s)))


def _given(diff, prev, cur, hypotheses, domain, bound) -> str:
    """The method name if the claim's hypotheses, put in (:mod:`.given`), make diff zero."""
    shift = {s: v for s, v in shifted(hypotheses, domain.ranges).items()
             if s not in bound and not _swells(diff, s, v)}
    if shift and diff.has(sp.Derivative):  # taken first: a shifted variable is no variable
        diff = diff.replace(lambda e: isinstance(e, sp.Derivative), lambda e: e.doit())
    if shift and _is_zero(diff.xreplace(shift), domain.indices):
        return "the bounds its hypotheses and ranges give its symbols"
    if not hypotheses:
        return ""
    claim = SimpleNamespace(hypotheses=tuple(hypotheses), domain=domain,
                            symbols=symbols_of((prev, cur)))
    solved = by_equalities(claim, diff)
    if solved is not None and _is_zero(solved, domain.indices):
        return "its equality hypotheses"
    return ""


SUMS_OPS = 200_000  # SymPy operations for sums held as symbols, tried first on sums of sums


def _is_matrix(e) -> bool:
    return isinstance(e, sp.MatrixExpr | sp.MatrixBase)


def _sums_held(prev, cur, rewrites, random_bases, indices) -> str:
    """The method's name if prev − cur, its sums held as symbols (:mod:`.sums`), simplifies to
    zero within SUMS_OPS; '' otherwise, never raises."""
    try:
        with budget(SUMS_OPS, "symbolic route (sums held)", kind="symbolic"), \
                remembered_doits(), no_numbers():
            diff = (_normal_form(prev, rewrites, random_bases)
                    - _normal_form(cur, rewrites, random_bases))
            # derivatives taken, sums left as they are: summing them is simplify's dear part
            diff = diff.replace(lambda e: isinstance(e, sp.Derivative), lambda e: e.doit())
            held = sums_as_symbols(_within_ranges(diff, indices),
                                   lambda e: _within_ranges(e, indices))
            if held.has(sp.Sum) and nested_sums(held):
                return ""
            if _simplified(held) == 0:
                return "sums split over their terms and held as symbols"
    except OverBudget:
        return ""
    except Exception:  # noqa: BLE001 - a method that fails has shown nothing
        return ""
    return ""


def symbolic_check_detail(prev, cur, rewrites=(), random_bases=(), indices=None,
                          ops=SYMBOLIC_OPS, own=None, hypotheses=()) -> SymbolicOutcome:
    """Whether prev - cur simplifies to zero within ``ops`` SymPy operations — or, given ``own``
    (the claim's Domain), by one of the route's own methods within ``OWN_OPS`` more, which may
    use the declared ranges' signs, the signs the claim's ``hypotheses`` give its symbols and a
    declared law's density; never raises."""
    prev, cur = _atoms_for_dear_parts(prev, cur)
    # an integral SymPy cannot close costs the whole budget before the own methods run: tried
    # first, the integrals' own methods save it (and are not tried twice)
    integrals = own is not None and (prev.has(sp.Integral) or cur.has(sp.Integral))
    if integrals:
        method = _own_methods(prev, cur, rewrites, random_bases, own, OWN_OPS, hypotheses,
                              integrals="only")
        if method:
            return SymbolicOutcome("zero", f"by {method}", 0)
    if own is not None and not (_is_matrix(prev) or _is_matrix(cur)) and (
            nested_sums(prev) or nested_sums(cur)):
        # sums of sums (LayerNorm's, for a symbolic width): cheap as algebra in a few sums,
        # where simplify can use its whole budget and not finish
        method = _sums_held(prev, cur, rewrites, random_bases, own.indices)
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
