"""The claim types: a statement, named assumptions and steps, and the domain they are sampled over
(:mod:`derivations.engine.core.domain`).

Everything here is data plus the validation that refuses a malformed claim when it is built, with a
:class:`DerivationError` naming the claim, the step and the cause; each of its expressions is read
on its own — its shape, its symbols, its floats — by :mod:`derivations.engine.core.expressions`.
Checking a claim is :mod:`derivations.engine.chain`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import sympy as sp

from derivations.engine.core import definitions as defs
from derivations.engine.core import noncommutative as ring
from derivations.engine.core.complexes import check_complex
from derivations.engine.core.domain import (
    MIN_MAX_DIM,
    Domain,
    _check_indices,
    _check_laws,
    _check_range,
)
from derivations.engine.core.errors import DerivationError
from derivations.engine.core.expressions import (
    _as_written,
    _expect_expr,
    _index_symbols,
    _shape_or_raise,
    _undeclared_in_expectations,
    symbols_of,
)
from derivations.engine.core.hypotheses import check_sampleable
from derivations.engine.core.noncommutative import RING_SIZE
from derivations.engine.core.stochastic import FAMILIES

__all__ = ["ASSUMPTION_RULES", "KINDS", "Assumption", "Derivation", "DerivationError", "Step",
           "with_step"]

ASSUMPTION_RULES = frozenset(
    {"assumption", "independence", "stationarity", "identically distributed", "moments"}
)
KINDS = ("hypothesis", "lemma")


@dataclass(frozen=True)
class Assumption:
    """A named premise.  ``rewrites`` are (pattern, replacement) pairs — SymPy ``Wild`` allowed —
    that the symbolic check applies to steps citing it.  Every rewrite is itself checked
    numerically at its instances in the citing steps, under the claim's domain; a rewrite with no
    checkable instance (and an assumption without rewrites) is reported "assumed, unchecked".

    kind: "hypothesis" (assumed, e.g. independence) or "lemma" (a true identity or an earlier
    claim).  A lemma with a ``source`` claim is only as good as that claim: a chain citing it is
    ``proved`` only if the source is too (see :func:`lemma`).
    """

    name: str
    text: str
    latex: str = ""
    rewrites: tuple[tuple[sp.Basic, sp.Basic], ...] = ()
    kind: str = "hypothesis"
    source: Derivation | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Step:
    """One step: ``expr``, equal to the step before by ``rule``; ``by`` names the assumptions it
    applies and the definitions it folds or unfolds ("by the definition of x̂")."""

    expr: sp.Basic
    rule: str
    by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Derivation:
    """A claim: ``statement`` (lhs = rhs), its named ``assumptions``, ``steps`` from the lhs to the
    rhs, the ``domain`` its points are drawn from, and the ``definitions`` its expressions are
    written with (:mod:`derivations.engine.core.definitions`; with those they use, in
    :attr:`definitions_used`).  :attr:`checked` is the claim both routes check: every definition
    unfolded."""

    id: str
    title: str
    statement: sp.Eq
    assumptions: tuple[Assumption, ...]
    steps: tuple[Step, ...]
    domain: Domain = field(default_factory=Domain)
    definitions: tuple = ()
    # relations the claim holds under (|j − i| ≤ 5, x < 10⁶): part of its statement, printed with
    # it; the numeric route draws only points where they hold
    hypotheses: tuple = ()
    # the order a lecturer writes a product's factors in (P_ij V_jc, not SymPy's V_jc P_ij): names
    # of bases, functions or kinds of factor, first first (:mod:`derivations.engine.core.printing`);
    # printing only, the expressions both routes check are the same
    order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _read_floats(self)
        _validate(self)

    @property
    def definitions_used(self) -> tuple:
        return self.__dict__["_definitions"]

    @property
    def checked(self) -> Derivation:
        """The claim with every definition unfolded: what both routes check."""
        return self.__dict__["_checked"]

    @property
    def lhs(self) -> sp.Basic:
        return self.statement.lhs

    @property
    def expressions(self) -> tuple[sp.Basic, ...]:
        """The left-hand side and every step (the last step is the right-hand side)."""
        return (self.lhs, *(s.expr for s in self.steps))

    @property
    def symbols(self) -> set:
        """What the claim is about (:func:`symbols_of` its expressions)."""
        return symbols_of(self.expressions)

    @property
    def rhs(self) -> sp.Basic:
        return self.statement.rhs


def with_step(d: Derivation, index: int, expr: sp.Basic, *, rule: str | None = None,
              by: tuple[str, ...] | None = None, id: str | None = None,  # noqa: A002
              title: str | None = None) -> Derivation:
    """``d`` with step ``index`` (1-based) replaced by ``expr``; its rule kept unless ``rule`` is
    given, its id unless ``id`` is given (to show the variant beside the original), its title
    ``title``, else the original's marked "— step N replaced" when ``expr`` differs from the
    step (a variant, possibly false, is never shown under the original's title).  Its
    citations are ``by`` if given; else the old step's.  Kept citations of definitions that
    ``expr`` leaves nothing to fold or unfold are dropped, in this step and the next (a
    definition is a substitution, not a premise, so no check is weakened).  Replacing the last
    step replaces the statement's right-hand side too.  The result is validated anew."""
    if not 1 <= index <= len(d.steps):
        raise IndexError(f"claim {d.id!r} has steps 1..{len(d.steps)}, got {index}")
    steps = list(d.steps)
    old = steps[index - 1]
    named = {x.name: x for x in d.definitions_used}
    exprs = list(d.expressions)
    exprs[index] = expr

    def still_cited(n: int) -> tuple[str, ...]:  # step n's citations that still have a use
        return tuple(b for b in steps[n - 1].by if b not in named
                     or _occurs(exprs[n - 1], named[b]) or _occurs(exprs[n], named[b]))
    steps[index - 1] = replace(old, expr=expr, rule=old.rule if rule is None else rule,
                               by=still_cited(index) if by is None else tuple(by))
    if index < len(steps):
        steps[index] = replace(steps[index], by=still_cited(index + 1))
    statement = sp.Eq(d.lhs, expr, evaluate=False) if index == len(steps) else d.statement
    if title is None:  # the same expression again leaves the claim what it was
        title = d.title if expr == old.expr else f"{d.title} — step {index} replaced"
    return replace(d, statement=statement, steps=tuple(steps), id=d.id if id is None else id,
                   title=title)


# --- validation -------------------------------------------------------------------------------


def _check_domain(d: Derivation, where: str) -> None:
    dom = d.domain
    if isinstance(dom.max_dim, bool) or not isinstance(dom.max_dim, int) \
            or dom.max_dim < MIN_MAX_DIM:
        raise DerivationError(f"{where}: Domain(max_dim={dom.max_dim!r}) is below the sound "
                              f"minimum {MIN_MAX_DIM}: claims true only at sizes 1 and 2 would "
                              f"pass; use max_dim >= {MIN_MAX_DIM}")
    if dom.distribution not in FAMILIES:
        raise DerivationError(f"{where}: Domain(distribution={dom.distribution!r}) is not one of "
                              f"{sorted(FAMILIES)}")
    for key, bounds in dom.ranges.items():
        _check_range(key, bounds, where)
    for key in dom.random:
        if not isinstance(key, sp.Symbol | sp.IndexedBase | sp.MatrixSymbol):
            raise DerivationError(f"{where}: random key {key!r} must be a Symbol, IndexedBase or "
                                  f"MatrixSymbol, got {type(key).__name__}")
    exprs = [d.lhs, *(s.expr for s in d.steps)]
    declared_idx = set(dom.indices) | set(dom.dims)
    for n, e in enumerate(exprs):
        at = where if n == 0 else f"{where}, step {n} ({d.steps[n - 1].rule!r})"
        # an index is always declared: an integer symbol left to be inferred would be drawn as
        # a size, and a real one as a real number
        loose = sorted((s for s in _index_symbols(e) if s not in declared_idx), key=str)
        if loose:
            i = loose[0]
            raise DerivationError(f"{at}: index {i} is not declared in Domain, so it would be "
                                  f"drawn as a real number; declare its range, e.g. "
                                  f"Domain(indices={{{i}: (1, n)}}) with n its size")
    _check_indices(dom, where)
    _check_laws(dom, where)
    declared = (set(dom.random) | set(dom.dims) | set(dom.indices) | set(dom.ranges)
                | set(dom.constants))
    # a defined symbol inside E is its body there: the claim with its definitions unfolded is
    # checked for what its body holds (a claim checks itself so when it is built)
    for x in defs.ordered(d.definitions, where):
        declared.add(x.symbol)
        if isinstance(x.symbol, sp.IndexedBase):
            declared.add(x.symbol.label)
    for mean, var in dom.random.values():
        declared |= sp.sympify(mean, strict=True).free_symbols
        declared |= sp.sympify(var, strict=True).free_symbols
    for n, e in enumerate(exprs):
        loose = _undeclared_in_expectations(e, declared)
        if loose:
            at = where if n == 0 else f"{where}, step {n} ({d.steps[n - 1].rule!r})"
            names = ", ".join(sorted(map(str, loose)))
            raise DerivationError(f"{at}: {names} inside E or Var is neither random nor a "
                                  f"constant; declare it in Domain(random={{...: (mean, "
                                  f"variance)}}) or Domain(constants=(...))")


def _read_floats(d: Derivation) -> None:
    """A claim is checked as written: its float literals become the decimals they print as
    (``0.1*x`` is ``x/10``), in the statement, the steps, the rewrites and the hypotheses."""
    if not isinstance(d.statement, sp.Basic):
        return
    set_ = object.__setattr__
    if isinstance(d.statement, sp.Eq) and d.statement.atoms(sp.Float):
        set_(d, "statement", sp.Eq(_as_written(d.statement.lhs), _as_written(d.statement.rhs),
                                   evaluate=False))
    set_(d, "steps", tuple(replace(s, expr=_as_written(s.expr)) if isinstance(s, Step) else s
                           for s in d.steps))
    set_(d, "hypotheses", tuple(_as_written(h) for h in d.hypotheses))
    set_(d, "assumptions", tuple(
        replace(a, rewrites=tuple(tuple(_as_written(e) for e in pair) for pair in a.rewrites))
        if isinstance(a, Assumption) and any(isinstance(e, sp.Basic) and e.atoms(sp.Float)
                                             for pair in a.rewrites for e in pair) else a
        for a in d.assumptions))


def _check_hypotheses(d: Derivation, where: str) -> None:
    for k, h in enumerate(d.hypotheses):
        at = f"{where}: hypothesis {k + 1}"
        if not isinstance(h, sp.logic.boolalg.Boolean) or isinstance(
                h, sp.logic.boolalg.BooleanAtom):
            raise DerivationError(f"{at}: expected a relation such as sp.Le(sp.Abs(j - i), 5), "
                                  f"got {h!r}")
        if h.atoms(sp.MatrixSymbol):
            raise DerivationError(f"{at}: {h} is about a matrix; a hypothesis relates scalars, "
                                  f"indices or sizes")
        # a hypothesis may be about what the claim uses through a definition (Σ y_i = 1 of
        # the y inside L = −Σ y_i log p_i); the claim with its definitions unfolded uses it
        bodies = symbols_of(tuple(x.body for x in d.definitions))
        known = d.symbols | bodies
        loose = sorted(map(str, {s for s in symbols_of((h,)) - known - set(d.domain.indices)
                                 - set(d.domain.dims)
                                 if not (isinstance(s, sp.Indexed) and s.base in known)}))
        if loose:
            raise DerivationError(f"{at}: {h} names {', '.join(loose)}, which the claim does "
                                  f"not use")


def _check_exact(d: Derivation, where: str) -> None:
    """Noncommutative symbols only in polynomials (they are checked as square matrices,
    :mod:`derivations.engine.core.noncommutative`), and not in an assumption's rewrites."""
    exprs = [d.lhs, *(s.expr for s in d.steps)]
    exprs += [e for a in d.assumptions for pair in a.rewrites for e in pair
              if isinstance(e, sp.Basic)]
    for n, e in enumerate(exprs):
        at = where if n == 0 else (f"{where}, step {n} ({d.steps[n - 1].rule!r})"
                                   if n <= len(d.steps) else f"{where}, an assumption's rewrite")
        nc = ring.noncommutative(e)
        problem = ring.polynomial_problem(e) if n <= len(d.steps) else "an assumption's rewrite"
        if nc and problem:
            raise DerivationError(f"{at}: {nc[0]} is a noncommutative symbol, checked as a "
                                  f"square matrix only in sums, products and positive integer "
                                  f"powers, not in {problem}; write it as a MatrixSymbol, e.g. "
                                  f"sp.MatrixSymbol({str(nc[0])!r}, n, n)")


_ENTRY_NAME = re.compile(r"^(.+)\[-?\d+,-?\d+\]$")


def _check_names(d: Derivation, where: str) -> None:
    """One object per name: two symbols, bases or matrices that print alike but differ (in
    assumptions or shape) would make a report that reads x = x, and two matrices named X share
    the names of their entries in the numeric route."""
    seen: dict[str, sp.Basic] = {}
    for e in (d.lhs, d.rhs, *(s.expr for s in d.steps)):
        for obj in e.atoms(sp.Symbol, sp.IndexedBase, sp.MatrixSymbol):
            if isinstance(obj, sp.Dummy):
                continue
            if isinstance(obj, sp.Symbol) and _ENTRY_NAME.match(obj.name):
                raise DerivationError(
                    f"{where}: the symbol name {obj.name!r} is reserved for the entries of "
                    f"explicit matrices in the numeric route (a symbol so named would take an "
                    f"entry's value); name it without brackets, e.g. "
                    f"{re.sub(r'[^0-9A-Za-z_]+', '_', obj.name).strip('_')!r}")
            other = seen.setdefault(obj.name, obj)
            if other != obj and not _label_of(other, obj):
                raise DerivationError(
                    f"{where}: two different objects are named {obj.name!r}: "
                    f"{sp.srepr(other)} and {sp.srepr(obj)}; give each its own name")


def _label_of(a, b) -> bool:
    """An IndexedBase and the Symbol that labels it share a name and are one thing."""
    return any(isinstance(x, sp.IndexedBase) and y == x.label for x, y in ((a, b), (b, a)))


def _validate(d: Derivation) -> None:
    where = f"claim {d.id!r}"
    _expect_expr(d.statement, where, "the statement")
    if not isinstance(d.statement, sp.Eq):
        raise DerivationError(f"{where}: statement must be a sympy Eq, got {type(d.statement)!r}")
    if not d.steps:
        raise DerivationError(f"{where}: a derivation needs at least one step, got none")
    declared = {a.name for a in d.assumptions}
    cited = declared | {x.name for x in defs.ordered(d.definitions, where)}
    for a in d.assumptions:
        if a.kind not in KINDS:
            raise DerivationError(f"{where}: assumption {a.name!r} has kind {a.kind!r}, "
                                  f"expected one of {KINDS}")
    expected_shape = _shape_or_raise(d.lhs, f"{where}, left-hand side")
    for n, step in enumerate(d.steps, start=1):
        at = f"{where}, step {n} ({step.rule!r})"
        _expect_expr(step.expr, at, "the step")
        missing = [name for name in step.by if name not in cited]
        if missing:
            raise DerivationError(f"{at}: cites undeclared assumption(s) or definition(s) "
                                  f"{missing}; declared: {sorted(cited)}")
        if step.rule in ASSUMPTION_RULES and not step.by:
            raise DerivationError(f"{at}: rule {step.rule!r} applies an assumption and must cite "
                                  f"one of {sorted(declared)} with by=(...)")
        got = _shape_or_raise(step.expr, at)
        if got != expected_shape:
            raise DerivationError(f"{at}: shape mismatch, expected {expected_shape} "
                                  f"(shape of the left-hand side), got {got}")
    if d.steps[-1].expr != d.rhs:
        raise DerivationError(f"{where}: the last step must be the statement's right-hand side "
                              f"{d.rhs}, got {d.steps[-1].expr}")
    _check_names(d, where)
    _check_exact(d, where)
    _check_hypotheses(d, where)
    _check_domain(d, where)
    check_complex(d, where)
    check_sampleable(d, where)
    _unfold_claim(d, where, declared)


def _unfold_claim(d: Derivation, where: str, assumed: set) -> None:
    """Check the claim's definitions and build :attr:`Derivation.checked`, the claim with them
    unfolded (validated as a claim of its own); a step citing a definition, to fold or unfold
    it, must show it before or after."""
    used = defs.ordered(d.definitions, where)
    object.__setattr__(d, "_definitions", used)
    if not used:
        object.__setattr__(d, "_checked", _as_matrices(d))
        return
    defs.check_in_claim(used, d.expressions, d.domain, where)
    named = {x.name: x for x in used}
    both = sorted(set(named) & assumed)
    if both:
        raise DerivationError(f"{where}: {both[0]!r} names both an assumption and a definition; "
                              f"give them different names")
    for n, step in enumerate(d.steps, start=1):
        cited = [named[b] for b in step.by if b in named]
        before = d.expressions[n - 1]
        for x in cited:
            if not (_occurs(before, x) or _occurs(step.expr, x)):
                raise DerivationError(
                    f"{where}, step {n} ({step.rule!r}): cites the definition {x.name!r}, but "
                    f"{x.head} occurs neither in the step nor in the one before: there is "
                    f"nothing to fold or unfold")

    def flat(e):
        return defs.unfold(e, used)

    def rewrite(a: Assumption) -> Assumption:
        pairs = tuple((flat(p), flat(r)) if isinstance(p, sp.Basic) else (p, r)
                      for p, r in a.rewrites)
        return replace(a, rewrites=pairs) if pairs != a.rewrites else a

    steps = tuple(replace(s, expr=flat(s.expr), by=tuple(b for b in s.by if b not in named))
                  for s in d.steps)
    try:
        checked = Derivation(d.id, d.title, sp.Eq(flat(d.lhs), flat(d.rhs), evaluate=False),
                             tuple(rewrite(a) for a in d.assumptions), steps, d.domain,
                             hypotheses=tuple(flat(h) for h in d.hypotheses))
    except DerivationError as exc:
        raise DerivationError(f"{exc} (with its definitions unfolded)") from None
    object.__setattr__(d, "_checked", _as_matrices(checked))


def _as_matrices(d: Derivation) -> Derivation:
    """``d`` with its noncommutative symbols square matrices of size ring.RING_SIZE, a size
    drawn like the others (``d`` itself when it has none)."""
    if not any(ring.noncommutative(e) for e in d.expressions):
        return d
    if RING_SIZE in d.symbols:
        raise DerivationError(f"claim {d.id!r}: the name {RING_SIZE} is reserved for the size of "
                              f"its noncommutative symbols' matrices")
    steps = tuple(replace(s, expr=ring.to_matrices(s.expr)) for s in d.steps)
    return Derivation(d.id, d.title, sp.Eq(ring.to_matrices(d.lhs), steps[-1].expr,
                                           evaluate=False),
                      d.assumptions, steps, replace(d.domain, dims=(*d.domain.dims, RING_SIZE)),
                      hypotheses=d.hypotheses)


def _occurs(expr: sp.Basic, x) -> bool:
    """Whether the symbol of definition ``x`` occurs in ``expr``."""
    if isinstance(x.symbol, sp.IndexedBase):
        return any(a.base == x.symbol for a in expr.atoms(sp.Indexed))
    if isinstance(x.symbol, sp.Symbol | sp.MatrixSymbol):
        return expr.has(x.symbol)
    return any(a.func == x.symbol for a in expr.atoms(sp.Function))
