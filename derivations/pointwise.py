"""The numeric route: both sides of a step at random points, at 50 digits.

Symbolic sizes and indices become random small integers, matrix symbols explicit matrices of real
symbols, derivatives by a matrix are taken entry by entry on those, E and Var are evaluated over
independent normal variables, and every remaining atom gets a seeded random value.  Nothing here
uses SymPy's matrix calculus or an assumption's rewrites, so it is independent of the symbolic
route.
"""

from __future__ import annotations

import hashlib
import random
from functools import lru_cache
from typing import TYPE_CHECKING

import mpmath
import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement

from derivations.stochastic import expectation_value

if TYPE_CHECKING:
    from derivations.core import Derivation

POINTS = 20
DIGITS = 50
# Agreement at 50 digits: differences of a correct step are rounding noise near 1e-45;
# a wrong step differs in leading digits.  1e-30 leaves fifteen orders of margin both ways.
NUMERIC_RTOL = mpmath.mpf("1e-30")
MAX_DIM = 4


def _seeded(*parts) -> random.Random:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def structures(d: Derivation) -> list[dict]:
    """One assignment of dims and indices per point: random sizes, then indices within them."""
    dims = list(d.domain.dims) or sorted(
        (s for s in _free_symbols(d) if s.is_integer and s not in d.domain.indices), key=str)
    out = []
    for p in range(POINTS):
        rng = _seeded(d.id, "structure", p)
        sub = {s: sp.Integer(rng.randint(1, d.domain.max_dim)) for s in dims}
        for idx, (lo, hi) in d.domain.indices.items():
            lo_v = int(sp.sympify(lo, strict=True).xreplace(sub))
            hi_v = int(sp.sympify(hi, strict=True).xreplace(sub))
            sub[idx] = sp.Integer(rng.randint(lo_v, hi_v))
        out.append(sub)
    return out


def _free_symbols(d: Derivation) -> set:
    syms = set(d.lhs.free_symbols)
    for step in d.steps:
        syms |= step.expr.free_symbols
    return {s for s in syms if isinstance(s, sp.Symbol)}


_ENTRY_PARENT: dict[sp.Symbol, sp.MatrixSymbol] = {}


def _entries(m: sp.MatrixSymbol) -> sp.ImmutableMatrix:
    """An explicit matrix of plain real symbols (differentiating by them is fast, unlike by
    MatrixElement), remembered so that their values are drawn from the matrix's range."""
    def entry(i, j):
        sym = sp.Symbol(f"{m.name}[{i},{j}]", real=True)
        _ENTRY_PARENT[sym] = m
        return sym
    return sp.ImmutableMatrix(int(m.rows), int(m.cols), entry)


def _explicit(expr: sp.Basic) -> sp.Basic:
    """Concrete-shaped matrix expressions become explicit matrices of entries, and derivatives are
    taken entry by entry on them, so no SymPy matrix calculus is involved."""
    def derivative(node):
        f, var = _explicit(node.expr), node.variables[0]
        if isinstance(var, sp.MatrixSymbol):
            entries = _entries(var)
            if isinstance(f, sp.MatrixBase):  # vector by column vector: the Jacobian
                return sp.ImmutableMatrix(f).jacobian(list(entries))
            return sp.ImmutableMatrix(*entries.shape, lambda i, j: sp.diff(f, entries[i, j]))
        return sp.diff(f.doit(), var)

    expr = expr.replace(lambda x: isinstance(x, sp.Derivative), derivative)
    sub = {m: _entries(m) for m in expr.atoms(sp.MatrixSymbol)}
    sub.update({m: m.as_explicit() for m in expr.atoms(sp.OneMatrix, sp.ZeroMatrix, sp.Identity)})
    expr = expr.xreplace(sub).doit()
    return sp.ImmutableMatrix(expr.as_explicit()) if isinstance(expr, sp.MatrixExpr) else expr


def _atom_key(atom):
    if isinstance(atom, sp.Indexed):
        return atom.base
    if isinstance(atom, MatrixElement):
        return atom.parent
    return _ENTRY_PARENT.get(atom, atom)


def _draw(d: Derivation, point: int, atom) -> mpmath.mpf:
    key = _atom_key(atom)
    if key in d.domain.ranges:
        lo, hi = d.domain.ranges[key]
    elif getattr(key, "is_positive", False) or getattr(getattr(key, "label", None),
                                                       "is_positive", False):
        lo, hi = 0.25, 2.0
    else:
        lo, hi = -2.0, 2.0
    rng = _seeded(d.id, "value", point, sp.srepr(atom))
    return mpmath.mpf(rng.uniform(float(lo), float(hi)))


def _value_atoms(expr) -> set:
    atoms = expr.atoms(sp.Symbol, sp.Indexed, MatrixElement)
    # an Indexed's base label is a name, not a value of its own
    labels = {i.base.label for i in expr.atoms(sp.Indexed)}
    return {a for a in atoms if a not in labels}


# Above this many nodes, compiling to mpmath beats substituting into the SymPy tree per point.
COMPILE_NODES = 2000


@lru_cache(maxsize=4096)
def _compiled(expr: sp.Basic, structure: tuple, random: tuple):
    """The concrete form of ``expr`` for one assignment of sizes and indices: points that share a
    structure share the (slow) SymPy work."""
    concrete = _explicit(expr.xreplace(dict(structure))).doit()
    concrete = expectation_value(concrete, dict(random))
    if isinstance(concrete, sp.MatrixBase):
        concrete = sp.ImmutableMatrix(concrete).doit()
    atoms = tuple(sorted(_value_atoms(concrete), key=sp.srepr))
    if sum(1 for _ in sp.preorder_traversal(concrete)) > COMPILE_NODES:
        return atoms, sp.lambdify(atoms, concrete, modules="mpmath", dummify=True)

    def substitute(*values):
        filled = concrete.xreplace({a: sp.Float(v, DIGITS) for a, v in zip(atoms, values,
                                                                            strict=True)})
        return filled.evalf(DIGITS)
    return atoms, substitute


def _mpf(x):
    return x if isinstance(x, mpmath.mpf) else mpmath.mpmathify(sp.N(x, DIGITS)) \
        if isinstance(x, sp.Basic) else mpmath.mpmathify(x)


def evaluate(d: Derivation, expr: sp.Basic, point: int, structure: dict):
    """The value of ``expr`` at numeric point ``point`` — an mpf, or a list of rows of mpf for a
    matrix — and the values drawn for its atoms."""
    key = tuple(sorted(structure.items(), key=str))
    random_key = tuple(sorted(d.domain.random.items(), key=str))
    atoms, fn = _compiled(expr, key, random_key)
    values = {a: _draw(d, point, a) for a in atoms}
    with mpmath.workdps(DIGITS):
        out = fn(*(values[a] for a in atoms))
        if isinstance(out, mpmath.matrix | sp.MatrixBase):
            return [[_mpf(out[i, j]) for j in range(out.cols)] for i in range(out.rows)], values
        return _mpf(out), values


def _disagree(a, b) -> bool:
    if isinstance(a, list) != isinstance(b, list):
        return True
    if isinstance(a, list):
        return (len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b, strict=True))
                or any(_disagree(x, y) for ra, rb in zip(a, b, strict=True)
                       for x, y in zip(ra, rb, strict=True)))
    with mpmath.workdps(DIGITS):
        if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
            return True
        return abs(a - b) > NUMERIC_RTOL * max(abs(a), abs(b), 1)


def _show(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join("[" + ", ".join(_show(x) for x in row) + "]" for row in v) + "]"
    return mpmath.nstr(v, 15)


def safe_eval(d, expr, p, s):
    try:
        value, values = evaluate(d, expr, p, s)
        return value, values, None
    except Exception as exc:  # noqa: BLE001 - an expression that cannot be evaluated fails the step
        return None, {}, f"{type(exc).__name__}: {exc}"


def counterexample(d, structures, prev_vals, vals) -> dict | None:
    for p, ((a, va, err_a), (b, vb, err_b)) in enumerate(zip(prev_vals, vals, strict=True)):
        if err_a or err_b or _disagree(a, b):
            point = {str(k): str(v) for k, v in structures[p].items()}
            point.update({str(k): _show(v) for k, v in {**va, **vb}.items()})
            return {"point": dict(sorted(point.items())), "previous": err_a or _show(a),
                    "current": err_b or _show(b)}
    return None
