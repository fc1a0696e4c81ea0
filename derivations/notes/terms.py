"""The terms of a note's links as the checks handle them: the objects a term refers to, the
definitions it uses, a term with definitions or an example's values put in, and whether a term
is a number as written."""

from __future__ import annotations

import dataclasses

import sympy as sp
from sympy.core.function import AppliedUndef

from derivations.engine import Definition, DerivationError
from derivations.notes.context import Context, Made, is_number


def _objects(expr) -> set:
    """The symbols, indexed bases, matrices and functions ``expr`` refers to (free)."""
    if isinstance(expr, sp.MatrixBase):
        return set().union(*(_objects(e) for e in expr)) if expr else set()
    if not isinstance(expr, sp.Basic):
        return set()
    bases = expr.atoms(sp.IndexedBase)
    found = _free(expr) | bases | {a.func for a in expr.atoms(AppliedUndef)}
    return found | expr.atoms(sp.MatrixSymbol)


def _free(expr) -> set:
    """The free symbols of ``expr``, leaving out the sizes inside an IndexedBase's shape (a
    vector's size, s ∈ ℝ^K, is not a symbol the term uses). Walked, not rebuilt: rebuilding a
    matrix product with an entry inside it raises in SymPy (noncommutative scalars in MatMul)."""
    if isinstance(expr, sp.IndexedBase):
        return set()
    if isinstance(expr, sp.Indexed):
        return set().union(*(_free(i) for i in expr.indices))
    if isinstance(expr, sp.Symbol | sp.MatrixSymbol):
        return {expr} if isinstance(expr, sp.Symbol) else set()
    inner = set().union(*(_free(a) for a in expr.args if isinstance(a, sp.Basic)))
    return inner - set(getattr(expr, "bound_symbols", ()) or ())


def _name(obj) -> str:
    return str(getattr(obj, "name", obj))


def used_definitions(exprs, visible: list[Made]) -> list[Made]:
    """The visible definitions that ``exprs`` use, with those their bodies use, in the order
    they were made."""
    by_key = {m.definition.key: m for m in visible}
    todo = [o for e in exprs for o in _objects(e)]
    used: dict[str, Made] = {}
    while todo:
        key = _name(todo.pop())
        if key in by_key and key not in used:
            used[key] = by_key[key]
            todo.extend(_objects(used[key].definition.body))
    made = {id(m): k for k, m in enumerate(visible)}  # the order they were made, not a set's
    return sorted(used.values(), key=lambda m: (m.formula, made[id(m)]))


def _unfold(expr, defs: list[Made]):
    """``expr`` with the definitions put in — only to tell whether a side is a number once the
    note's values are in; what is checked is unfolded by the engine itself."""
    if not isinstance(expr, sp.Basic):
        return expr
    try:
        return _unfolded(expr, defs)
    except (ValueError, TypeError):  # ∂/∂p_i with p_i written out: no variable SymPy takes
        return expr


def _unfolded(expr, defs: list[Made]):
    for _ in range(len(defs) + 1):
        before = expr
        for m in reversed(defs):
            d = m.definition
            if isinstance(d.symbol, sp.IndexedBase):
                expr = expr.replace(
                    lambda e, d=d: isinstance(e, sp.Indexed) and e.base == d.symbol,
                    lambda e, d=d: d.body.xreplace(dict(zip(d.params, e.indices, strict=True))))
            elif isinstance(d.symbol, sp.FunctionClass):
                expr = expr.replace(
                    lambda e, d=d: isinstance(e, AppliedUndef) and e.func == d.symbol,
                    lambda e, d=d: d.body.xreplace(dict(zip(d.params, e.args, strict=True))))
            else:
                expr = expr.xreplace({d.symbol: d.body})
        if expr == before:
            break
    return expr


def _outside_entries(expr) -> set:
    """The symbols of ``expr`` written on their own, not as the name of an entry x_i."""
    if isinstance(expr, sp.Indexed | sp.IndexedBase):
        return set()
    if isinstance(expr, sp.Symbol):
        return {expr}
    bound = {lim[0] for lim in getattr(expr, "limits", ())}
    return set().union(*(_outside_entries(a) for a in expr.args)) - bound if expr.args else set()


def put(expr, given: dict, context: Context | None = None):
    """``expr`` with an example's values in, its sums over a range the values made numeric
    written out so that entries given one by one (x_1 … x_4) go in too, and the entries of
    a recursion the note has not given (v_2) computed from it."""
    if not isinstance(expr, sp.Basic) or not given:
        return expr
    try:  # a derivative first, at the general point: ∂s_3/∂z_3 before z_3 = 3 goes in (of
        # what is written out only: ∂L/∂z_1 of an L not written out in z is not 0)
        return _put(expr.replace(lambda e: isinstance(e, sp.Derivative) and all(
            e.expr.has(v.base if isinstance(v, sp.Indexed) else v) for v, _ in e.variable_count),
            lambda e: e.doit()), given, context)
    except (ValueError, TypeError):  # not something SymPy can put the values in
        return expr


def _put(expr, given: dict, context: Context | None):
    # an entry by its name and place: z_3 of z ∈ ℝ^K is z_3 of z once K = 3 is in
    entries = {(k.base.name, k.indices): v for k, v in given.items() if isinstance(k, sp.Indexed)}
    # a value stated at a free index (g_t = 1 for every t) is every entry's: g_1, g_2, …
    every = {name: v for (name, at), v in entries.items() if context is not None
             and len(at) == 1 and isinstance(at[0], sp.Symbol) and (name, at[0].name) in
             context.every}

    def entry(e):
        return entries.get((e.base.name, e.indices), every.get(e.base.name)) \
            if len(e.indices) == 1 else entries.get((e.base.name, e.indices))

    for _ in range(6):
        before = expr
        # a value for a size (K = 3) is no value for the shape of a vector of that size: s_3
        # stays the entry of the s the note defines
        expr = expr.xreplace({**{b: b for b in expr.atoms(sp.IndexedBase)}, **given})
        if entries:
            expr = expr.replace(lambda e: isinstance(e, sp.Indexed) and entry(e) is not None,
                                entry)
        if context is not None:
            expr = context.unroll(expr)
        expr = expr.replace(
            lambda e: isinstance(e, sp.Sum | sp.Product) and all(
                sp.sympify(b, strict=True).is_Integer for _, *lim in e.limits for b in lim),
            lambda e: e.doit())
        if expr == before:
            break
    return expr


def _with_values(defs: list[Made], given: dict) -> list[Made]:
    out = []
    for m in defs:
        d = m.definition
        body = put(d.body, given)
        if body != d.body:
            try:
                d = Definition(d.name, d.symbol, body, d.tex, d.params, d.text)
            except DerivationError:
                pass
        out.append(dataclasses.replace(m, definition=d))
    return out


def _bare(expr) -> bool:
    """A symbol or an entry (x, g_1, θ_0, PE_{1,0}): what a value is given to."""
    return isinstance(expr, sp.Symbol) or (
        isinstance(expr, sp.Indexed) and all(i.is_Integer or isinstance(i, sp.Symbol)
                                             for i in expr.indices))


def _closed(expr) -> bool:
    """A number as written (0.9 × 0.07, √0.49, a vector of numbers): no symbol in it — not one
    SymPy makes a number (∂L/∂x̂ of two unrelated symbols is not 0 for the note)."""
    if isinstance(expr, sp.Basic) and not isinstance(expr, sp.MatrixBase) \
            and expr.free_symbols:
        return False
    try:
        return is_number(expr.doit() if isinstance(expr, sp.Basic) else expr)
    except Exception:  # noqa: BLE001 - not a number SymPy can compute
        return False
