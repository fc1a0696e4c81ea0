"""The derivation engine: a claim, its named assumptions, and a chain of steps checked twice.

A :class:`Derivation` is data.  ``verify`` compares every step with the one before it in two
independent ways:

* symbolically — the difference, after the rewrites of the assumptions the step cites and the
  definitions of expectation and variance, simplifies to zero within a time limit;
* numerically — both sides agree at ``POINTS`` random points evaluated at ``DIGITS`` digits, with
  symbolic dimensions and indices replaced by random small integers, matrices by explicit matrices
  and derivatives taken entry by entry on those explicit matrices.

The numeric route never uses SymPy's matrix calculus or the assumptions' rewrites, so a silent wrong
answer on the symbolic side (SymPy has returned zero for ``(Trace(F.T*F)-3).diff(F)``) shows up as a
disagreement, and the step is ``failed``.  Symbolic success without numeric agreement is impossible;
numeric agreement without symbolic success is ``numeric``, never ``proved``.
"""

from __future__ import annotations

import functools
import hashlib
import operator
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import mpmath
import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement

from derivations.limits import SymbolicTimeout, time_limit
from derivations.stochastic import expectation_value, linearize

POINTS = 20
DIGITS = 50
# Agreement at 50 digits: differences of a correct step are rounding noise near 1e-45;
# a wrong step differs in leading digits.  1e-30 leaves fifteen orders of margin both ways.
NUMERIC_RTOL = mpmath.mpf("1e-30")
SYMBOLIC_SECONDS = 2.0
MAX_DIM = 4

ASSUMPTION_RULES = frozenset(
    {"assumption", "independence", "stationarity", "identically distributed", "moments"}
)
STATUSES = ("proved", "numeric", "failed")


class DerivationError(ValueError):
    """A derivation is malformed; the message names the claim and the step."""


@dataclass(frozen=True)
class Assumption:
    """A named hypothesis.  ``rewrites`` are (pattern, replacement) pairs — SymPy ``Wild`` allowed —
    that the symbolic check applies to steps citing it; the numeric check never uses them."""

    name: str
    text: str
    latex: str = ""
    rewrites: tuple[tuple[sp.Basic, sp.Basic], ...] = ()


@dataclass(frozen=True)
class Step:
    expr: sp.Basic
    rule: str
    by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Domain:
    """How random points are drawn.

    dims: symbols that are sizes (drawn from 1..max_dim); integer symbols not named in
    ``indices`` are dims by default.  indices: index symbol -> (low, high), high may be a dim.
    ranges: symbol / IndexedBase / MatrixSymbol -> (low, high) for real values.
    random: Symbol or IndexedBase -> (mean, variance): independent normal random variables that
    ``E`` and ``Var`` are evaluated over on the numeric side.
    """

    dims: tuple[sp.Symbol, ...] = ()
    indices: dict = field(default_factory=dict)
    ranges: dict = field(default_factory=dict)
    random: dict = field(default_factory=dict)
    max_dim: int = MAX_DIM


@dataclass(frozen=True)
class Derivation:
    id: str
    title: str
    statement: sp.Eq
    assumptions: tuple[Assumption, ...]
    steps: tuple[Step, ...]
    domain: Domain = field(default_factory=Domain)

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def lhs(self) -> sp.Basic:
        return self.statement.lhs

    @property
    def rhs(self) -> sp.Basic:
        return self.statement.rhs


@dataclass
class StepResult:
    index: int
    latex: str
    rule: str
    by: tuple[str, ...]
    symbolic: str  # zero | inconclusive | timeout | error
    numeric: str  # agree | disagree
    status: str
    points: int
    counterexample: dict | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "index": self.index, "latex": self.latex, "rule": self.rule, "by": list(self.by),
            "symbolic": self.symbolic, "numeric": self.numeric, "status": self.status,
            "points": self.points, "counterexample": self.counterexample,
        }


@dataclass
class ChainResult:
    derivation: Derivation
    steps: list[StepResult]
    seconds: float

    @property
    def id(self) -> str:
        return self.derivation.id

    @property
    def status(self) -> str:
        states = {s.status for s in self.steps}
        return "failed" if "failed" in states else "numeric" if "numeric" in states else "proved"

    @property
    def failed_step(self) -> int | None:
        return next((s.index for s in self.steps if s.status == "failed"), None)

    def to_dict(self) -> dict:
        d = self.derivation
        return {
            "id": d.id, "title": d.title, "module": _module_of(d),
            "statement": sp.latex(d.statement),
            "assumptions": [{"name": a.name, "text": a.text, "latex": a.latex}
                            for a in d.assumptions],
            "status": self.status, "seconds": round(self.seconds, 3),
            "failed_step": self.failed_step, "steps": [s.to_dict() for s in self.steps],
        }


def _module_of(d: Derivation) -> str:
    return getattr(d, "_module", "") or d.id.split("_")[0]


# --- validation -------------------------------------------------------------------------------

def _shape(expr: sp.Basic):
    if isinstance(expr, sp.Derivative):
        inner, var = _shape(expr.expr), expr.variables[0]
        if inner is None and isinstance(var, sp.MatrixSymbol):
            return var.shape
        if inner is not None and isinstance(var, sp.MatrixSymbol) and var.shape[1] == 1:
            return (inner[0], var.shape[0])
        return inner
    if isinstance(expr, sp.MatrixExpr | sp.MatrixBase):
        return tuple(expr.shape)
    return None


def _validate(d: Derivation) -> None:
    where = f"claim {d.id!r}"
    if not isinstance(d.statement, sp.Eq):
        raise DerivationError(f"{where}: statement must be a sympy Eq, got {type(d.statement)!r}")
    if not d.steps:
        raise DerivationError(f"{where}: a derivation needs at least one step, got none")
    declared = {a.name for a in d.assumptions}
    expected_shape = _shape(d.lhs)
    for n, step in enumerate(d.steps, start=1):
        at = f"{where}, step {n} ({step.rule!r})"
        if not isinstance(step.expr, sp.Basic | sp.MatrixBase):
            raise DerivationError(f"{at}: expected a SymPy expression, got {type(step.expr)!r}")
        missing = [name for name in step.by if name not in declared]
        if missing:
            raise DerivationError(f"{at}: cites undeclared assumption(s) {missing}; "
                                  f"declared: {sorted(declared)}")
        if step.rule in ASSUMPTION_RULES and not step.by:
            raise DerivationError(f"{at}: rule {step.rule!r} applies an assumption and must cite "
                                  f"one of {sorted(declared)} with by=(...)")
        got = _shape(step.expr)
        if got != expected_shape:
            raise DerivationError(f"{at}: shape mismatch, expected {expected_shape} "
                                  f"(shape of the left-hand side), got {got}")
    if d.steps[-1].expr != d.rhs:
        raise DerivationError(f"{where}: the last step must be the statement's right-hand side "
                              f"{d.rhs}, got {d.steps[-1].expr}")


# --- symbolic route ---------------------------------------------------------------------------

def _apply_rewrites(expr: sp.Basic, rewrites) -> sp.Basic:
    for pattern, replacement in rewrites:
        expr = expr.replace(pattern, replacement)
    return expr


def _matrix_diff(expr: sp.Basic, var: sp.MatrixSymbol) -> sp.Basic:
    # SymPy's diff of a sum by a MatrixSymbol is a silent 0 ((Trace(A*F) + Trace(B*F)).diff(F)),
    # so two wrong zeros could agree; linearity is applied here, term by term.
    if isinstance(expr, sp.Add):
        terms = [_matrix_diff(t, var) for t in expr.args if t.has(var)]
        return functools.reduce(operator.add, terms) if terms else expr.diff(var)
    return expr.diff(var)


def _matrix_calculus(expr: sp.Basic) -> sp.Basic:
    """SymPy's own matrix derivative; the numeric route re-derives every such result entrywise."""
    return expr.replace(lambda x: isinstance(x, sp.Derivative)
                        and isinstance(x.variables[0], sp.MatrixSymbol),
                        lambda x: _matrix_diff(x.expr, x.variables[0]))


def _normal_form(expr: sp.Basic, rewrites, random_bases) -> sp.Basic:
    expr = _matrix_calculus(expr)
    for _ in range(3):
        new = linearize(_apply_rewrites(expr, rewrites), random_bases)
        if new == expr:
            break
        expr = new
    return expr


def _within_ranges(expr: sp.Basic, indices: dict) -> sp.Basic:
    """Sums over KroneckerDelta leave Piecewise conditions such as 1 <= j <= n; a declared index
    range makes them true."""
    facts = {}
    for idx, (lo, hi) in indices.items():
        lo, hi = sp.sympify(lo), sp.sympify(hi)
        for rel in (sp.Ge(idx, lo), sp.Le(lo, idx), sp.Le(idx, hi), sp.Ge(hi, idx)):
            facts[rel] = sp.true
    return expr.xreplace(facts) if facts else expr


def _is_zero(diff: sp.Basic, indices: dict) -> bool:
    for _ in range(3):  # a derivative's doit can leave a Sum over a KroneckerDelta to evaluate
        done = diff.doit()
        if done == diff:
            break
        diff = done
    diff = _within_ranges(diff, indices)
    if isinstance(diff, sp.MatrixExpr | sp.MatrixBase):
        if isinstance(diff, sp.ZeroMatrix) or getattr(diff, "is_ZeroMatrix", False):
            return True
        if isinstance(diff, sp.MatrixBase):
            return all(sp.simplify(x) == 0 for x in diff)
        return sp.simplify(sp.expand(diff)) == sp.ZeroMatrix(*diff.shape)
    return sp.simplify(diff) == 0 or sp.simplify(sp.expand(sp.powsimp(diff))) == 0


def symbolic_check(prev, cur, rewrites=(), random_bases=(), indices=None,
                   seconds=SYMBOLIC_SECONDS) -> str:
    """'zero' if prev - cur simplifies to 0 within ``seconds``; never raises."""
    try:
        with time_limit(seconds):
            a = _normal_form(prev, rewrites, random_bases)
            b = _normal_form(cur, rewrites, random_bases)
            return "zero" if _is_zero(a - b, indices or {}) else "inconclusive"
    except SymbolicTimeout:
        return "timeout"
    except Exception:  # noqa: BLE001 - any SymPy failure only makes the step not 'proved'
        return "error"


# --- numeric route ----------------------------------------------------------------------------

def _seeded(*parts) -> random.Random:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _structures(d: Derivation) -> list[dict]:
    """One assignment of dims and indices per point: random sizes, then indices within them."""
    dims = list(d.domain.dims) or sorted(
        (s for s in _free_symbols(d) if s.is_integer and s not in d.domain.indices), key=str)
    out = []
    for p in range(POINTS):
        rng = _seeded(d.id, "structure", p)
        sub = {s: sp.Integer(rng.randint(1, d.domain.max_dim)) for s in dims}
        for idx, (lo, hi) in d.domain.indices.items():
            lo_v, hi_v = int(sp.sympify(lo).xreplace(sub)), int(sp.sympify(hi).xreplace(sub))
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


# --- the chain --------------------------------------------------------------------------------

def _safe_eval(d, expr, p, s):
    try:
        value, values = evaluate(d, expr, p, s)
        return value, values, None
    except Exception as exc:  # noqa: BLE001 - an expression that cannot be evaluated fails the step
        return None, {}, f"{type(exc).__name__}: {exc}"


def _counterexample(d, structures, prev_vals, vals) -> dict | None:
    for p, ((a, va, err_a), (b, vb, err_b)) in enumerate(zip(prev_vals, vals, strict=True)):
        if err_a or err_b or _disagree(a, b):
            point = {str(k): str(v) for k, v in structures[p].items()}
            point.update({str(k): _show(v) for k, v in {**va, **vb}.items()})
            return {"point": dict(sorted(point.items())), "previous": err_a or _show(a),
                    "current": err_b or _show(b)}
    return None


def verify(d: Derivation, symbolic_seconds: float = SYMBOLIC_SECONDS,
           progress: Callable[[str], None] | None = None) -> ChainResult:
    start = time.perf_counter()
    structures = _structures(d)
    random_bases = tuple(d.domain.random)
    prev_expr = d.lhs
    prev_vals = [_safe_eval(d, prev_expr, p, s) for p, s in enumerate(structures)]
    results = []
    for n, step in enumerate(d.steps, start=1):
        t0 = time.perf_counter()
        vals = [_safe_eval(d, step.expr, p, s) for p, s in enumerate(structures)]
        counter = _counterexample(d, structures, prev_vals, vals)
        rewrites = tuple(rw for a in d.assumptions if a.name in step.by for rw in a.rewrites)
        symbolic = symbolic_check(prev_expr, step.expr, rewrites, random_bases,
                                  d.domain.indices, symbolic_seconds)
        status = "failed" if counter else "proved" if symbolic == "zero" else "numeric"
        results.append(StepResult(
            index=n, latex=sp.latex(step.expr), rule=step.rule, by=step.by, symbolic=symbolic,
            numeric="disagree" if counter else "agree", status=status, points=len(structures),
            counterexample=counter, seconds=time.perf_counter() - t0))
        prev_expr, prev_vals = step.expr, vals
    result = ChainResult(d, results, time.perf_counter() - start)
    if progress:
        progress(f"{d.id}: {result.status} ({len(results)} steps, {result.seconds:.2f} s)")
    return result
