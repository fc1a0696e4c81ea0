"""Definitions: the named notation a claim is written and shown in.

A :class:`Definition` gives a symbol (μ), an entry of an indexed symbol (x̂_i), a matrix (Y) or an
applied function (Φ(x), ‖M‖²_F) its defining expression, its body.  A claim lists the definitions it
uses and writes its statement and steps with them; both routes check the claim with every definition
*unfolded* (:func:`unfold`) — a substitution, never a premise — so a definition cannot make a false
claim pass: what is checked is the claim written out in full.  What is printed is the claim as
written, the definitions folded (:mod:`derivations.engine.core.printing`): it unfolds to exactly
what was checked.

Definitions live in one home, a :class:`Notation`, which declares the variables they are about
(as Lean's ``variable``) and defines each name once; claims from many modules cite the same
definitions.  A definition is refused, with an error naming it, when it is circular, shadows a
declared symbol, refers to a symbol it does not declare, or changes its symbol's shape.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.core.function import AppliedUndef, UndefinedFunction

from derivations.engine.core.binders import bound_symbols
from derivations.engine.core.errors import DerivationError

__all__ = ["Definition", "Notation", "heads", "ordered", "unfold"]

# what a symbol's assumptions say that its body must say too: a positive σ_ε lets SymPy simplify
# √(σ_ε²) to σ_ε as the author writes it, which is only right if the body is positive
CARRIED = ("positive", "nonnegative", "negative", "nonpositive", "nonzero", "integer")


@dataclass(frozen=True)
class Definition:
    """``symbol`` (with ``params``) := ``body``.

    symbol: a Symbol or a MatrixSymbol (no params), an IndexedBase (params: its indices, so that
    ``symbol[params]`` := body) or an undefined function, ``sp.Function("Phi")`` (params: its
    arguments).  name: how a step cites it ("x̂").  tex: how the symbol prints, when SymPy's
    own form will not do; for a function a template with ``{0}``, ``{1}`` … for its arguments
    (``r"\\lVert {0} \\rVert_F^2"``).  text: what it is, in words.  variables: the symbols the
    body may use besides its params and other definitions (set by its :class:`Notation`; None:
    the symbols of the claim that uses it).  uses: the definitions its body refers to.
    """

    name: str
    symbol: sp.Basic
    body: sp.Basic
    tex: str = ""
    params: tuple = ()
    text: str = ""
    variables: tuple | None = None
    uses: tuple[Definition, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        _check(self)

    @property
    def head(self) -> sp.Basic:
        """The defined object as it appears in an expression: μ, x̂[i], Φ(x)."""
        if isinstance(self.symbol, sp.IndexedBase):
            return self.symbol[self.params]
        if isinstance(self.symbol, UndefinedFunction):
            return self.symbol(*self.params)
        return self.symbol

    @property
    def key(self) -> str:
        """The defined symbol's name: two definitions of one name are one too many."""
        return str(self.symbol.name if hasattr(self.symbol, "name") else self.symbol)


def _where(d: Definition) -> str:
    return f"definition {d.name!r}"


def _shape(expr: sp.Basic):
    return tuple(expr.shape) if isinstance(expr, sp.MatrixExpr | sp.MatrixBase) else None


def _check(d: Definition) -> None:
    where = _where(d)
    if not isinstance(d.name, str) or not d.name:
        raise DerivationError(f"a definition needs a name to be cited by, got {d.name!r}")
    sym, params = d.symbol, tuple(d.params)
    if isinstance(d.body, bool | int | float) or not isinstance(d.body, sp.Basic):
        raise DerivationError(f"{where}: expected a SymPy expression as its body, got "
                              f"{type(d.body).__name__} {d.body!r}")
    if isinstance(sym, sp.Symbol | sp.MatrixSymbol):
        if params:
            raise DerivationError(f"{where}: {sym} takes no parameters, got {params}; an "
                                  f"indexed symbol is an IndexedBase")
    elif isinstance(sym, sp.IndexedBase):
        if not params or not all(isinstance(p, sp.Symbol) and p.is_integer for p in params):
            raise DerivationError(f"{where}: the indices of {sym} must be integer symbols, "
                                  f"e.g. params=(i,), got {params}")
    elif isinstance(sym, UndefinedFunction):
        if not params or not all(isinstance(p, sp.Symbol | sp.MatrixSymbol) for p in params):
            raise DerivationError(f"{where}: the arguments of {sym} must be symbols or "
                                  f"matrix symbols, e.g. params=(x,), got {params}")
    else:
        raise DerivationError(f"{where}: expected a Symbol, MatrixSymbol, IndexedBase or "
                              f"sp.Function('name') to define, got {type(sym).__name__} {sym}")
    if len(set(params)) != len(params):
        raise DerivationError(f"{where}: a parameter is repeated in {params}")
    want, got = _shape(sym) if isinstance(sym, sp.MatrixSymbol) else None, _shape(d.body)
    if want != got:
        what = f"a {want[0]}×{want[1]} matrix" if want else "a scalar"
        came = f"a {got[0]}×{got[1]} matrix" if got else "a scalar"
        raise DerivationError(f"{where}: {sym} is {what}, but its body {d.body} is {came}; a "
                              f"definition keeps its symbol's shape")
    if _refers(d.body, sym):
        raise DerivationError(f"{where}: circular, {sym} is defined in terms of itself: "
                              f"{d.body}")
    clash = bound_symbols(d.body) & set(params)
    if clash:
        raise DerivationError(f"{where}: the parameter {sorted(map(str, clash))[0]} is also "
                              f"bound by a sum or a lambda in the body; rename one of them")
    if isinstance(sym, sp.Symbol):
        for name in CARRIED:
            if getattr(sym, f"is_{name}") and getattr(d.body, f"is_{name}") is not True:
                raise DerivationError(
                    f"{where}: {sym} is declared {name}, but SymPy cannot tell that its body "
                    f"{d.body} is; declare the symbol without it (or with what the body is)")


def _objects(expr: sp.Basic) -> set:
    """What ``expr`` refers to: its free symbols, indexed bases, matrices and functions."""
    found = set(expr.free_symbols) | {a.base for a in expr.atoms(sp.Indexed)}
    found |= {a.func for a in expr.atoms(AppliedUndef)}
    found |= expr.atoms(sp.MatrixSymbol)
    for m in [s for s in found if isinstance(s, sp.MatrixSymbol)]:
        found |= set().union(*(sp.sympify(k, strict=True).free_symbols for k in m.shape))
    return {s for s in found if not isinstance(s, sp.Indexed)}


def _refers(expr: sp.Basic, sym) -> bool:
    return sym in _objects(expr)


def _name(obj) -> str:
    return str(getattr(obj, "name", obj))


def _names(objects) -> str:
    """Names, each once (an IndexedBase and its label share one), sorted."""
    return ", ".join(sorted({_name(o) for o in objects}))


def _free(d: Definition) -> set:
    """The body's references that are not its own parameters (nor their sizes)."""
    own = set(d.params)
    for p in d.params:
        if isinstance(p, sp.MatrixSymbol):
            own |= set().union(*(sp.sympify(k, strict=True).free_symbols for k in p.shape))
    labels = {b.label for b in _objects(d.body) if isinstance(b, sp.IndexedBase)}
    return {o for o in _objects(d.body) - own - labels}


class Notation:
    """One home for definitions shared by claims: the ``variables`` they are about, and each
    definition once, cited by name (``notation["x̂"]``).  A body may use its parameters, the
    variables, the definitions made before it and those of the homes it ``builds_on`` — so a
    definition made here cannot be circular — and a name or a symbol is defined at most once
    and never shadows a variable."""

    def __init__(self, title: str, variables: Iterable = (), builds_on: Iterable = ()) -> None:
        self.title = title
        self.variables = tuple(variables)
        self.builds_on = tuple(builds_on)
        self._defined: dict[str, Definition] = {}

    def define(self, name: str, symbol, body, tex: str = "", params=(), text: str = ""
               ) -> Definition:
        where = f"{self.title}: definition {name!r}"
        if name in self._defined:
            raise DerivationError(f"{where}: the name is defined already, as "
                                  f"{self._defined[name].symbol}")
        taken = {d.key: d for d in self._defined.values()}
        if _name(symbol) in taken:
            raise DerivationError(f"{where}: {symbol} is defined already, as "
                                  f"{taken[_name(symbol)].name!r}")
        if _name(symbol) in {_name(v) for v in self.variables}:
            raise DerivationError(f"{where}: {symbol} shadows the variable {symbol} of "
                                  f"{self.title}; a variable cannot be defined")
        made = Definition(name, symbol, sp.sympify(body, strict=True), tex, tuple(params),
                          text, self.variables)
        defined = {d.symbol: d for home in self.builds_on for d in home}
        defined.update({d.symbol: d for d in self._defined.values()})
        loose = sorted((o for o in _free(made) if o not in defined and o not in self.variables),
                       key=_name)
        if loose:
            before = ", ".join(d.name for d in defined.values()) or "none"
            raise DerivationError(
                f"{where}: its body refers to {_name(loose[0])}, which is not declared: neither a "
                f"parameter ({', '.join(map(str, made.params)) or 'none'}), a variable of "
                f"{self.title} ({_names(self.variables) or 'none'}) nor a symbol "
                f"defined before it ({before}); add {_name(loose[0])} to the variables of "
                f"{self.title} or to the definition's params")
        uses = tuple(d for s, d in defined.items() if s in _free(made))
        made = Definition(made.name, made.symbol, made.body, made.tex, made.params, made.text,
                          made.variables, uses)
        self._defined[name] = made
        return made

    def __getitem__(self, name: str) -> Definition:
        if name not in self._defined:
            raise KeyError(f"{self.title} defines no {name!r}; it defines "
                           f"{', '.join(self._defined)}")
        return self._defined[name]

    def __iter__(self):
        return iter(self._defined.values())


# --- a claim's definitions ----------------------------------------------------------------------

def ordered(definitions: Iterable[Definition], where: str = "") -> tuple[Definition, ...]:
    """``definitions`` and every definition they use, each once, a definition after those it
    uses.  Two definitions of one symbol or one name, and a cycle, are refused."""
    listed: list[Definition] = []

    def add(d: Definition) -> None:
        if any(d is e for e in listed):
            return
        for u in d.uses:
            add(u)
        listed.append(d)

    for d in definitions:
        if not isinstance(d, Definition):
            raise DerivationError(f"{where}: expected Definition objects in definitions, got "
                                  f"{type(d).__name__} {d!r}")
        add(d)
    seen: dict[str, Definition] = {}
    for d in listed:
        for key in (f"name {d.name!r}", f"symbol {d.key}"):
            other = seen.setdefault(key, d)
            if other is not d and other != d:
                raise DerivationError(f"{where}: two definitions of the {key}: "
                                      f"{other.head} := {other.body} and {d.head} := {d.body}")
    unique = []
    for d in listed:
        if not any(d == e for e in unique):
            unique.append(d)
    by_symbol = {d.symbol: d for d in unique}
    refs = {d.symbol: [s for s in _free(d) if s in by_symbol] for d in unique}
    out: list[Definition] = []
    state: dict = {}

    def visit(sym, path) -> None:
        if state.get(sym) == "done":
            return
        if state.get(sym) == "open":
            cycle = path[path.index(sym):] + [sym]
            raise DerivationError(f"{where}: the definitions are circular: "
                                  f"{' → '.join(by_symbol[s].name for s in cycle)}")
        state[sym] = "open"
        for s in refs[sym]:
            visit(s, path + [sym])
        state[sym] = "done"
        out.append(by_symbol[sym])

    for d in unique:
        visit(d.symbol, [])
    return tuple(out)


def heads(definitions) -> dict:
    """The defined symbols (Symbol, MatrixSymbol, IndexedBase or function) -> their definition."""
    return {d.symbol: d for d in definitions}


def check_in_claim(definitions: tuple[Definition, ...], expressions, domain, where: str) -> None:
    """Refuse a definition that shadows what the claim declares, or whose body refers to a
    symbol that is neither its parameter, another definition nor declared (by its home, or by
    the claim when it has none)."""
    defined = heads(definitions)
    names = {d.key: d for d in definitions}
    declared_keys = [*domain.dims, *domain.indices, *domain.ranges, *domain.random,
                     *domain.constants]
    for key in declared_keys:
        if _name(key) in names:
            d = names[_name(key)]
            raise DerivationError(f"{where}: definition {d.name!r} shadows {key}, which the "
                                  f"claim's Domain declares; a defined symbol has no values "
                                  f"of its own to draw")
    mine: set = set()
    for e in expressions:
        mine |= _objects(e)
        for b in bound_symbols(e, derivatives=True):
            if _name(b) in names:
                d = names[_name(b)]
                raise DerivationError(f"{where}: definition {d.name!r} is shadowed by the bound "
                                      f"variable {b} (of a sum, a lambda or a derivative); "
                                      f"rename the bound variable")
    for obj in mine:
        d = names.get(_name(obj))
        if d is not None and obj != d.symbol and not (isinstance(d.symbol, sp.IndexedBase)
                                                       and obj == d.symbol.label):
            raise DerivationError(f"{where}: definition {d.name!r} defines {sp.srepr(d.symbol)}, "
                                  f"but the claim also uses {sp.srepr(obj)}, another object "
                                  f"named {_name(obj)}; use the defined one")
    ambient = {o for o in mine if o not in defined}
    for key in declared_keys:
        ambient |= {key} | set(getattr(key, "free_symbols", set()))
    for d in definitions:
        declared = set(d.variables) if d.variables is not None else ambient
        for o in sorted(_free(d), key=_name):
            if o in defined or o in declared:
                continue
            fix = (f"add {_name(o)} to the variables of its Notation" if d.variables is not None
                   else f"use {_name(o)} in the claim or declare it in its Domain (ranges=, "
                        f"constants= or dims=)")
            raise DerivationError(
                f"{where}: definition {d.name!r} refers to {_name(o)}, which is not declared: "
                f"neither its parameter ({', '.join(map(str, d.params)) or 'none'}), another "
                f"definition of the claim nor "
                + ("a variable of its notation" if d.variables is not None
                   else "a symbol of the claim") + f" ({_names(declared)}); {fix}, or make it "
                f"one of the definition's params")


# --- unfolding and folding ----------------------------------------------------------------------

def _fresh(sym: sp.Symbol, taken: set) -> sp.Symbol:
    name = sym.name + "'"
    while name in taken:
        name += "'"
    return sp.Symbol(name, **sym.assumptions0)


def _substitute(body: sp.Basic, params: tuple, args: tuple) -> sp.Basic:
    """``body`` with ``params`` replaced by ``args``, renaming any variable the body binds that
    an argument uses (Σ_k A_ik at i = k is Σ_k' A_kk', not Σ_k A_kk)."""
    used = set().union(*(sp.sympify(a, strict=True).free_symbols for a in args)) if args else set()
    taken = {_name(s) for s in body.atoms(sp.Symbol) | used}

    def rename(node):
        changes = {}
        for var in (lim[0] for lim in node.limits):
            if var in used:
                changes[var] = _fresh(var, taken)
                taken.add(changes[var].name)
        return node.xreplace(changes) if changes else node

    if used & bound_symbols(body):
        body = body.replace(lambda n: isinstance(n, ExprWithLimits), rename)
    return body.xreplace(dict(zip(params, args, strict=True)))


def _unfold_one(expr: sp.Basic, d: Definition) -> sp.Basic:
    sym = d.symbol
    if isinstance(sym, sp.Symbol | sp.MatrixSymbol):
        return expr.xreplace({sym: d.body}) if expr.has(sym) else expr
    if isinstance(sym, sp.IndexedBase):
        return expr.replace(lambda e: isinstance(e, sp.Indexed) and e.base == sym,
                            lambda e: _substitute(d.body, d.params, e.indices))
    return expr.replace(lambda e: isinstance(e, AppliedUndef) and e.func == sym,
                        lambda e: _substitute(d.body, d.params, e.args))


def unfold(expr, definitions: tuple[Definition, ...]):
    """``expr`` with every defined symbol replaced by its body, until none is left
    (``definitions`` in :func:`ordered` order: a definition after those it uses)."""
    if not definitions or not isinstance(expr, sp.Basic):
        return expr
    for d in reversed(definitions):  # those that use others first: their bodies bring them in
        expr = _unfold_one(expr, d)
    return expr
