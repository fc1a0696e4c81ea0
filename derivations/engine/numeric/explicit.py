"""A side at one point's sizes as a concrete form, compiled to mpmath for the numeric route
(:mod:`derivations.engine.numeric.pointwise`).

Matrix symbols become explicit matrices of real symbols, derivatives by a matrix are taken entry by
entry on those, sums are written out term by term (:mod:`derivations.engine.numeric.finite`) and E
and Var are evaluated exactly over the declared distribution family
(:mod:`derivations.engine.core.stochastic`); what is left of integrals, limits, infinite sums and
products is evaluated by definition, with numbers (:mod:`derivations.engine.numeric.mpnum`). Nothing
here uses SymPy's matrix calculus or an assumption's rewrites, so it is independent of the symbolic
route.  A form is built once per structure and shared by its points; one too large to build with a
symbol for every input is built again at a point's numbers, to the same value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mpmath
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.matrices.expressions.matexpr import MatrixElement

from derivations.engine.core.budget import ClaimMemo
from derivations.engine.core.errors import DerivationError, Pole
from derivations.engine.core.inert import Bound, NDerivative, make_inert, rebind
from derivations.engine.core.stochastic import expectation_value
from derivations.engine.numeric import finite
from derivations.engine.numeric.mpnum import compile_mp
from derivations.engine.numeric.sampling import ENTRY_PARENT, draw
from derivations.engine.numeric.solving import Inexact

if TYPE_CHECKING:
    from derivations.engine.core.claim import Derivation

__all__ = ["exactly", "unfold"]


def _entries(m: sp.MatrixSymbol) -> sp.ImmutableMatrix:
    """An explicit matrix of plain real symbols (differentiating by them is fast, unlike by
    MatrixElement), remembered so that their values are drawn from the matrix's range.  Their
    names, X[i,j], are reserved: a claim's own symbol may not be named so
    (derivations.engine.core.claim)."""
    def entry(i, j):
        sym = sp.Symbol(f"{m.name}[{i},{j}]", real=True)
        ENTRY_PARENT[sym] = m
        return sym
    return sp.ImmutableMatrix(int(m.rows), int(m.cols), entry)


def _entry_symbols(expr: sp.Basic) -> sp.Basic:
    """Each entry X[i, j] of a concrete-shaped MatrixSymbol points at the explicit matrix of its
    entries before sums are written out: each written-out term is then a plain lookup, where a
    MatrixSymbol's element is built with a symbolic bounds check per term (most of the time of
    writing out an attention sum).  ``_explicit`` would reach the same entry symbols later."""
    def concrete(e):
        return (isinstance(e, MatrixElement) and isinstance(e.parent, sp.MatrixSymbol)
                and e.parent.rows.is_Integer and e.parent.cols.is_Integer)
    if not expr.has(MatrixElement):  # a walk that finds nothing still rebuilds its path
        return expr
    return expr.replace(concrete, lambda e: MatrixElement(_entries(e.parent), e.i, e.j))


def _scalar_var(var):
    if isinstance(var, MatrixElement) and isinstance(var.parent, sp.MatrixSymbol):
        return _entries(var.parent)[int(var.i), int(var.j)]
    if isinstance(var, sp.MatrixSymbol):
        raise DerivationError(f"a higher-order or mixed derivative by the matrix {var} is not "
                              f"supported; differentiate by its entries, e.g. {var}[0, 0]")
    return var


# a derivative of this order or more by one scalar is taken by differences, with numbers
# (NDerivative): SymPy's own swells (the 15th of tanh x has 25,000 operations, the 30th
# millions)
NUMERIC_ORDER = 8


def _explicit(expr: sp.Basic) -> sp.Basic:
    """Concrete-shaped matrix expressions become explicit matrices of entries, and derivatives are
    taken entry by entry on them, so no SymPy matrix calculus is involved.  Layout: a scalar by a
    matrix has the matrix's shape; a column vector f (k×1) by a column vector x (n×1) is the k×n
    Jacobian, entry (a, b) = ∂f_a/∂x_b."""
    def derivative(node):
        f, counts = _explicit(node.expr), node.variable_count
        (var, count), = counts if len(counts) == 1 else ((None, 0),)
        if (count >= NUMERIC_ORDER and isinstance(var, sp.Symbol) and not isinstance(var, Bound)
                and not isinstance(f, sp.MatrixBase | sp.MatrixExpr)):
            v = Bound(str(var), real=True)
            return NDerivative(unfold(f).xreplace({var: v}), v, var, sp.Integer(count))
        if isinstance(var, sp.MatrixSymbol) and count == 1:
            entries = _entries(var)
            if isinstance(f, sp.MatrixBase):  # vector by column vector: the Jacobian
                return sp.ImmutableMatrix(f).jacobian(list(entries))
            return sp.ImmutableMatrix(*entries.shape, lambda i, j: sp.diff(f, entries[i, j]))
        return sp.diff(unfold(f), *[(_scalar_var(v), c) for v, c in counts])

    if expr.has(sp.Derivative):
        expr = expr.replace(lambda x: isinstance(x, sp.Derivative), derivative)
    sub = {m: _entries(m) if isinstance(m, sp.MatrixSymbol) else m.as_explicit()
           for m in expr.atoms(sp.MatrixSymbol, sp.OneMatrix, sp.ZeroMatrix, sp.Identity)}
    expr = expr.xreplace(sub)
    # the adjugate over the determinant: SymPy's default Gaussian elimination on symbolic
    # entries runs for minutes at 3×3
    if expr.has(sp.Inverse):
        expr = expr.replace(lambda e: isinstance(e, sp.Inverse), lambda e: _inverse(e.arg))
    expr = unfold(expr)
    return sp.ImmutableMatrix(expr.as_explicit()) if isinstance(expr, sp.MatrixExpr) else expr


def unfold(expr: sp.Basic) -> sp.Basic:
    """``expr.doit()`` without SymPy's closing algorithms: each node is done on its own
    (``deep=False``: a claim's functions unfold to their definitions, products of explicit
    matrices are multiplied), innermost first, and every Sum or Product that appears — also one a
    definition unfolds to — is written out term by term, or made an inert node
    (:mod:`derivations.engine.core.inert`) that the numeric route evaluates with numbers."""
    return _unfold(expr, {})


def _unfold(expr: sp.Basic, seen: dict) -> sp.Basic:
    """:func:`unfold`, each distinct subtree once: the entries of an explicit matrix share most
    of theirs (every entry of a softmax has the same denominator)."""
    if not isinstance(expr, sp.Basic) or expr.is_Atom:
        return expr
    done = seen.get(expr)
    if done is not None:
        return done
    if isinstance(expr, sp.Sum | sp.Product):  # the outermost first: its variable may be a bound
        out = finite.write_out(expr)
        if out != expr:
            out = _unfold(out, seen)
        else:
            out = make_inert(expr.func(_unfold(expr.function, seen), *expr.limits))
    elif isinstance(expr, sp.Integral | sp.Limit):
        out = make_inert(expr.func(_unfold(expr.args[0], seen), *expr.args[1:]))
    else:
        args = tuple(_unfold(a, seen) for a in expr.args)
        node = expr.func(*args) if args != expr.args else expr
        out = node.doit(deep=False)
        out = node if out is node or out == node else _unfold(out, seen)
    seen[expr] = out
    return out


def _inverse(m):
    m = unfold(m)
    if not isinstance(m, sp.MatrixBase):
        return sp.Inverse(m)
    m = sp.ImmutableMatrix(m)
    return sp.ImmutableMatrix(m.adjugate(method="berkowitz") / m.det(method="berkowitz"))


def _model_functions(expr: sp.Basic) -> sp.Basic:
    """Each undefined function f(a_1, …, a_m) of the claim as a random smooth function whose
    coefficients are drawn like any value: c_0 + Σ_k (c_k sin(d_k a_k + e_k) + g_k a_k² +
    r_k a_k/(1 + a_k²)) +
    h·Π a_k.  A rule that holds for every f (the product or the chain rule) holds for it; one
    that holds only for some f is caught by the draws."""
    undefined = expr.atoms(AppliedUndef)
    if not undefined:
        return expr

    def model(call):
        name = call.func.__name__
        c = [sp.Symbol(f"{name}_c{k}", real=True) for k in range(5 * len(call.args) + 2)]
        out = c[0] + c[1] * sp.Mul(*call.args)
        for k, a in enumerate(call.args):
            s1, s2, s3, s4, s5 = c[2 + 5 * k: 7 + 5 * k]
            out += s1 * sp.sin(s2 * a + s3) + s4 * a**2 + s5 * a / (1 + a**2)
        return out
    return expr.replace(lambda e: isinstance(e, AppliedUndef), model)


def _value_atoms(expr) -> set:
    atoms = expr.atoms(sp.Symbol, sp.Indexed, MatrixElement)
    # an Indexed's base label is a name, not a value of its own; a bound variable has none
    labels = {i.base.label for i in atoms if isinstance(i, sp.Indexed)}
    return {a for a in atoms if a not in labels and not isinstance(a, Bound)}


def _kept(b: Bound) -> dict:
    return {"integer": True} if b.is_integer else {}


def _shaped(expr: sp.Basic, structure: dict) -> sp.Basic:
    """``expr`` at one assignment of sizes and indices, sums written out, before its matrices are
    made explicit and its derivatives taken (the costly part)."""
    shaped = finite.write_out(_entry_symbols(rebind(expr, structure).xreplace(structure)))
    # what is left of integrals, limits, infinite sums and products is evaluated by definition,
    # with numbers (derivations.engine.numeric.mpnum), never closed by SymPy's doit
    return make_inert(_model_functions(shaped))


def _compiled(expr: sp.Basic, structure: tuple, random: tuple, distribution: str):
    """The concrete form of ``expr`` for one assignment of sizes and indices; points that share a
    structure share it (the memo of :func:`derivations.engine.pointwise.evaluate`)."""
    structure = dict(structure)
    return _concrete(_shaped(expr, structure), structure, random, distribution)


def _held(shaped: sp.Basic) -> set:
    """The inputs of ``shaped`` a derivative is taken by: a scalar, a matrix's entries, or every
    input its variable mentions (more than needed is only slower, never wrong)."""
    held: set = set()
    for node in shaped.atoms(sp.Derivative):
        for v in node.variables:
            if isinstance(v, sp.MatrixSymbol) and v.rows.is_Integer and v.cols.is_Integer:
                held |= set(_entries(v))
            elif isinstance(v, MatrixElement) and isinstance(v.parent, sp.MatrixSymbol):
                held.add(_scalar_var(v))
            else:
                held |= v.free_symbols | set(v.atoms(sp.Indexed))
    return held


def _at_numbers(d: Derivation, expr: sp.Basic, point: int, structure: dict, wide: bool,
                attempt: int):
    """The concrete form of ``expr`` at one point with its inputs put in first, as exact rationals
    — all but the variables a derivative is taken by, which stay symbols until it is taken. The
    same value as the shared form's, reached when that form is too large to build (Y⁻¹ with 3×3
    symbolic entries, differentiated): the adjugate of a matrix of numbers is small."""
    shaped = _shaped(expr, structure)
    held = _held(shaped)
    fixed = {a for a in _value_atoms(shaped) & shaped.free_symbols
             if a not in held and not isinstance(a, MatrixElement)
             and not (isinstance(a, sp.Indexed) and not all(i.is_Integer for i in a.indices))}
    # a matrix is put in whole, unless a derivative is taken by one of its entries
    matrices = [m for m in shaped.atoms(sp.MatrixSymbol) if m.rows.is_Integer
                and m.cols.is_Integer and not set(_entries(m)) & held]
    for m in matrices:
        fixed |= set(_entries(m))
    values = {a: draw(d, point, a, wide, attempt) for a in sorted(fixed, key=sp.srepr)}
    exact = {a: exactly(v) for a, v in values.items()}
    exact.update({m: _entries(m).xreplace(exact) for m in matrices})
    atoms, fn = _concrete(shaped.xreplace(exact), structure, (), "normal")
    return atoms, fn, values


# Per claim: steps written differently often reach the same shaped form (a definition unfolded,
# a sum split), and more often the same concrete one (SymPy's canonical order undoes a
# rearrangement) — in the shipped claims a fifth of the shaped forms and three quarters of the
# compiled ones were repeats.
_CONCRETE = ClaimMemo()
_COMPILED = ClaimMemo()


def _concrete(shaped: sp.Basic, structure: dict, random: tuple, distribution: str):
    """The rest of :func:`_compiled`: explicit matrices, derivatives, expectations, compiled."""
    key = (shaped, tuple(sorted(structure.items(), key=str)), random, distribution)
    form = _CONCRETE.get(key)
    if form is None:
        form = _CONCRETE.keep(key, _build(shaped, structure, random, distribution))
    return form


def _build(shaped: sp.Basic, structure: dict, random: tuple, distribution: str):
    concrete, back = finite.entries_as_symbols(shaped)
    concrete = unfold(_explicit(concrete)).xreplace(back)
    # a random MatrixSymbol's entries name it at concrete size
    random = tuple((k.xreplace(structure), val) for k, val in random)
    concrete = expectation_value(concrete, dict(random), distribution,
                                 lambda atom: ENTRY_PARENT.get(atom, atom))
    if isinstance(concrete, sp.MatrixBase):
        concrete = unfold(sp.ImmutableMatrix(concrete))
    if concrete in (sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise Pole(f"the side is {concrete} at this size")
    atoms = tuple(sorted(_value_atoms(concrete), key=sp.srepr))
    # compiled to mpmath and run at a fixed working precision: rounding noise then shrinks as the
    # ladder climbs (SymPy's adaptive evalf returns the same tiny residue of a true 0 at every
    # precision); plain argument names, since lambdify's own dummify scans the tree once per atom
    args = sp.symbols(f"v0:{len(atoms)}")
    bound = sorted(concrete.atoms(Bound), key=sp.srepr)
    renamed = concrete.xreplace(dict(zip(atoms, args, strict=True)) | {
        b: sp.Symbol(f"b{k}", **_kept(b)) for k, b in enumerate(bound)})
    fn = _COMPILED.get((args, renamed)) or _COMPILED.keep((args, renamed),
                                                          compile_mp(args, renamed))

    rational: list[bool] = []  # whether concrete is rational, found at the first call

    def exact(*values):
        """The exact value from the exactly representable inputs, for a rational expression
        (no functions, integer powers); None otherwise."""
        if not rational:
            rational.append(_rational(concrete))
        if not rational[0] or any(isinstance(v, Inexact) for v in values):
            return None  # a value solved to SOLVED_DIGITS meets its equality only that far
        filled = concrete.xreplace({a: exactly(v) for a, v in zip(atoms, values, strict=True)})
        out = unfold(filled)
        flat = list(out) if isinstance(out, sp.MatrixBase) else [out]
        return flat if all(isinstance(x, sp.Rational) for x in flat) else None

    constant: dict = {}  # a form with no inputs (Σ cos(i)/i) has one value at each precision

    def compiled(digits, *values):
        if atoms:
            return fn(*values)
        if digits not in constant:
            constant[digits] = fn()
        return constant[digits]
    compiled.exact = exact
    compiled.concrete, compiled.atoms = concrete, atoms
    return atoms, compiled


def exactly(v) -> sp.Rational:
    """The rational an input is, every binary digit of it (a jump's root has hundreds); a complex
    input is the pair of its parts."""
    if isinstance(v, mpmath.mpc):
        return exactly(v.real) + sp.I * exactly(v.imag)
    value = v if isinstance(v, mpmath.mpf) else mpmath.mpf(v)  # mpf(v) rounds to the context's
    return sp.Rational(*mpmath.libmp.to_rational(value._mpf_))


def _rational(expr) -> bool:
    """No function, no non-integer power, no float: rational operations on the atoms only."""
    atoms = expr.atoms(sp.Function, sp.Float, sp.NumberSymbol, sp.Sum, sp.Product, sp.Pow)
    return all(isinstance(a, sp.Pow) and a.exp.is_Integer for a in atoms)
