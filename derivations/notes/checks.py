"""Each formula of a note, checked: its links as claims, its numbers exactly, its ``≈`` by the
digits it shows — or the reason it is not checked.

A link ``lhs = rhs`` becomes an engine :class:`~derivations.engine.Derivation` — statement
``lhs = rhs``, one step ``rhs`` — with the note's definitions it uses (unfolded by the engine in
both routes) and the domain the symbol table gives, and is verified like any claim: the same
statuses, the same counterexamples.  A number written with a decimal point is the rational it
prints as: ``1/3 = 0.333`` is false as an equation, and reads as a rounding (``=`` to the digits
shown) only where the exact value rounds to those digits; it is then marked as ``≈`` is.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

import mpmath
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.repr import ReprPrinter

from derivations.engine import Definition, Derivation, DerivationError, Domain, Step, verify
from derivations.notes import approx
from derivations.notes import cache as cache_mod
from derivations.notes.context import Context, Made, head_of, is_number
from derivations.notes.markdown import Formula
from derivations.notes.model import (
    DEFINITION,
    NOT_CHECKABLE,
    NOT_UNDERSTOOD,
    FormulaResult,
    Link,
    worst,
)
from derivations.notes.reading import APPROX, DECLARE, DEFINE, EQUAL, ORDER, NoteSymbols, Reading
from derivations.notes.shapes import NoShape, shape_of
from derivations.notes.shapes import judge as judge_shape

CHECKED = ("proved", "numeric", "timed out", "failed")
# two shapes side by side, (n × d)(d × m): the notation of shapes, which reads as a product
_SHAPE_PRODUCT = re.compile(r"\(\s*[^()]*\\times[^()]*\)\s*\(\s*[^()]*\\times[^()]*\)")


def _objects(expr) -> set:
    """The symbols, indexed bases, matrices and functions ``expr`` refers to (free)."""
    if isinstance(expr, sp.MatrixBase):
        return set().union(*(_objects(e) for e in expr)) if expr else set()
    if not isinstance(expr, sp.Basic):
        return set()
    found = set(expr.free_symbols) | {a.base for a in expr.atoms(sp.Indexed)}
    found |= {a.func for a in expr.atoms(AppliedUndef)} | expr.atoms(sp.MatrixSymbol)
    found -= {a for a in expr.atoms(sp.Indexed)}
    return {o for o in found if not isinstance(o, sp.Indexed)}


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
    return sorted(used.values(), key=lambda m: m.formula)


def domain(symbols: NoteSymbols, defs: list[Made], exprs=()) -> Domain:
    """The engine's domain from the symbol table for ``exprs`` (and the bodies of ``defs``):
    only the symbols they use, and none the note defines (a defined symbol has no values of its
    own to draw)."""
    defined = {m.definition.key for m in defs}
    used = {_name(o) for e in (*exprs, *(m.definition.body for m in defs)) for o in _objects(e)}
    used |= {_name(p) for m in defs for p in m.definition.params}
    for e in (*exprs, *(m.definition.body for m in defs)):  # the sizes of the vectors used
        for entry in (e.atoms(sp.Indexed) if isinstance(e, sp.Basic) else ()):
            used |= {_name(x) for k in (entry.base.shape or ()) for x in
                     sp.sympify(k).free_symbols}

    def keep(k) -> bool:
        return _name(k) in used and _name(k) not in defined

    indices = {k: v for k, v in symbols.indices.items() if keep(k)}
    # an index with no declared range ranges over the size of the vector whose entry it is
    for e in (*exprs, *(m.definition.body for m in defs)):
        for entry in (e.atoms(sp.Indexed) if isinstance(e, sp.Basic) else ()):
            shape = entry.base.shape
            for pos, index in enumerate(entry.indices):
                if isinstance(index, sp.Symbol) and index.is_integer and keep(index) \
                        and index not in indices and shape and pos < len(shape):
                    indices[index] = (sp.Integer(1), shape[pos])
    # an index of vectors of no declared size ranges over the one size the link's vectors
    # have, else over a size of its own: an identity in entries holds for every size
    sizes = {k for e in (*exprs, *(m.definition.body for m in defs)) if isinstance(e, sp.Basic)
             for entry in e.atoms(sp.Indexed) for k in (entry.base.shape or ())}
    size = next(iter(sizes)) if len(sizes) == 1 else sp.Symbol("n_entries", integer=True,
                                                               positive=True)
    for e in (*exprs, *(m.definition.body for m in defs)):
        for entry in (e.atoms(sp.Indexed) if isinstance(e, sp.Basic) else ()):
            for index in entry.indices:
                if isinstance(index, sp.Symbol) and index.is_integer and keep(index) \
                        and index not in indices:
                    indices[index] = (sp.Integer(1), size)
    bounds = {_name(o) for lo_hi in indices.values() for b in lo_hi
              for o in sp.sympify(b).free_symbols}
    dims = tuple(d for d in symbols.dims if keep(d) or _name(d) in bounds)
    dims += tuple({b for lo_hi in indices.values() for x in lo_hi
                   for b in sp.sympify(x).free_symbols} - set(dims) - set(indices))
    return Domain(dims=dims,
                  indices=indices,
                  random={k: v for k, v in symbols.random.items() if keep(k)},
                  ranges={**{k: v for k, v in symbols.ranges.items() if keep(k)},
                          **_body_only(exprs, defs, set(indices) | set(dims))},
                  constants=tuple(c for c in symbols.constants if keep(c)))


def _body_only(exprs, defs: list[Made], declared: set) -> dict:
    """The real symbols only a definition's body uses (ε in x̂_i = (x_i − μ)/√(σ² + ε)): the
    engine draws a claim's own symbols, so these are declared, positive as an ε or a variance
    is wherever a note leaves them in a body."""
    mine = {o for e in exprs if isinstance(e, sp.Basic) for o in e.free_symbols}
    defined = {m.definition.key for m in defs}
    out = {}
    for m in defs:
        for o in m.definition.body.free_symbols - mine - declared - set(m.definition.params):
            if isinstance(o, sp.Symbol) and not o.is_integer and o not in out \
                    and _name(o) not in defined:
                out[o] = (sp.Rational(1, 1000), sp.Integer(100))
    return out


def _entries_exist(lhs, rhs, defs: list[Made]) -> tuple:
    """What the notation presumes: z_3 exists only where z has at least 3 entries (a size >=
    every number indexing it), and Σ_{i=1}^{t} counts t - 0 terms (an upper bound in an index
    at least the lower bound minus one)."""
    out = set()
    for e in (lhs, rhs, *(m.definition.body for m in defs)):
        for total in (e.atoms(sp.Sum, sp.Product) if isinstance(e, sp.Basic) else ()):
            for _, low, high in total.limits:
                if isinstance(high, sp.Symbol) and high.is_integer and not high.is_positive:
                    out.add(sp.Ge(high, low - 1))
        for entry in (e.atoms(sp.Indexed) if isinstance(e, sp.Basic) else ()):
            shape = entry.base.shape or ()
            for pos, index in enumerate(entry.indices):
                if index.is_Integer and pos < len(shape) and not sp.sympify(shape[pos]).is_number:
                    out.add(sp.Ge(shape[pos], index))
    return tuple(sorted(out, key=sp.srepr))


def _claim_id(*parts: str) -> str:
    return "note-" + hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:12]


def _shown_rounding(tex: str, value_expr) -> tuple[bool, str] | None:
    """Whether the numbers shown in ``tex`` are the roundings of ``value_expr`` (a number or a
    matrix of numbers) to the digits shown; None when the two do not pair up."""
    shown = approx.shown_numbers(tex)
    values = list(value_expr) if isinstance(value_expr, sp.MatrixBase) else [value_expr]
    if not shown or len(shown) != len(values):
        return None
    said = []
    for s, v in zip(shown, values, strict=True):
        ok, more = approx.rounds_to(approx.exact_value(v), s)
        said.append(more)
        if not ok:
            return False, ", ".join(said)
    return True, ", ".join(said)


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


def _numbers(lhs, rhs, defs, dom):
    """The two sides as numbers (or matrices of numbers) with the note's values put in, or
    None when a symbol is left."""
    try:
        a, b = (_unfold(x, defs) for x in (lhs, rhs))
        a, b = (x.doit() if isinstance(x, sp.Basic) else x for x in (a, b))
    except Exception:  # noqa: BLE001 - not numbers the note level can compute
        return None
    return (a, b) if is_number(a) and is_number(b) else None


def _key(relation, lhs, rhs, lhs_tex, rhs_tex, defs: list[Made], symbols: NoteSymbols,
         named: dict | None = None) -> str:
    """Everything a link's verdict depends on, as text: its sides, the definitions it uses
    (symbol, parameters, body), where they were made (named in its reason) and the table."""
    said = [f"{sp.srepr(m.definition.symbol)}|{sp.srepr(m.definition.params)}|"
            f"{sp.srepr(m.definition.body)}|{m.definition.name}|{m.where}" for m in defs]
    return cache_mod.key(relation, sp.srepr(lhs), sp.srepr(rhs), lhs_tex, rhs_tex,
                         symbols.digest, repr(sorted((named or {}).items())), *said)


def check_link(index: int, relation: str, lhs, rhs, lhs_tex: str, rhs_tex: str,
               defs: list[Made], symbols: NoteSymbols, store: cache_mod.Cache | None = None,
               said: dict | None = None, hypotheses=()) -> Link:
    """One link, from the cache when nothing it depends on changed.  ``said``: the
    definitions named in its reason, when they were put in before (an example's step);
    ``hypotheses``: the case it is stated in (i ≠ j)."""
    k = _key(relation, lhs, rhs, lhs_tex, rhs_tex, defs, symbols,
             {**(said or {}), "hypotheses": sp.srepr(tuple(hypotheses))}) if store else ""
    got = store.get(k) if store else None
    if got is not None:
        return Link(index, **{f: got[f] for f in ("relation", "lhs", "rhs", "status", "reason",
                                                  "counterexample", "definitions", "claim")})
    link = _check_link(index, relation, lhs, rhs, lhs_tex, rhs_tex, defs, symbols, said,
                       hypotheses)
    if store:
        store.put(k, link.to_dict())
    return link


def _check_link(index: int, relation: str, lhs, rhs, lhs_tex: str, rhs_tex: str,
                defs: list[Made], symbols: NoteSymbols, said: dict | None = None,
                hypotheses=()) -> Link:
    said = {m.definition.name: m.where for m in defs} if said is None else said

    def link(status, reason="", counterexample=None):
        return Link(index, relation, lhs_tex, rhs_tex, status, reason, counterexample, said)

    free = {o for e in (lhs, rhs) for o in _objects(e) if isinstance(o, sp.FunctionClass)}
    defined_funcs = {m.definition.key for m in defs}
    free = sorted(_name(f) for f in free if _name(f) not in defined_funcs)
    if free:
        return link(NOT_CHECKABLE, f"free function {', '.join(free)}: the note does not say "
                                   f"what it is")
    dom = domain(symbols, defs, (lhs, rhs))
    if relation in ORDER or relation == APPROX:
        nums = _numbers(lhs, rhs, defs, dom)
        if nums is None:
            return link(NOT_CHECKABLE, f"{relation} between expressions with symbols: only "
                                       f"values can be judged")
        a, b = nums
        if relation == APPROX:
            try:  # the digits are those of the side written as a plain number
                judged = (_shown_rounding(rhs_tex, a) if approx.is_literal(rhs_tex)
                          else _shown_rounding(lhs_tex, b) if approx.is_literal(lhs_tex)
                          else None)
            except approx.NotANumber as exc:
                return link(NOT_CHECKABLE, f"≈: {exc}")
            if judged is None:
                got = _rounded_inputs(a, b, lhs_tex, rhs_tex, symbols, irrational=False)
                if got is not None:
                    ok, more = got
                    return link("proved" if ok else NOT_CHECKABLE, f"≈: {more}")
                return link(NOT_CHECKABLE, "≈ with no decimal number to judge the rounding by")
            ok, more = judged
            return link("proved" if ok else "failed",
                        f"≈: the exact value {more} {'rounds' if ok else 'does not round'} to "
                        f"the digits shown", None if ok else {"exact": more, "shown": rhs_tex})
        try:
            va, vb = approx.exact_value(a), approx.exact_value(b)
        except (approx.NotANumber, TypeError) as exc:
            return link(NOT_CHECKABLE, f"{relation}: {exc}")
        holds = {"<": va < vb, "≤": va <= vb, ">": va > vb, "≥": va >= vb, "≠": va != vb}
        ok = holds[relation]
        return link("proved" if ok else "failed", f"exactly: {va} {relation} {vb} "
                    f"{'holds' if ok else 'does not hold'}",
                    None if ok else {"lhs": str(va), "rhs": str(vb)})
    claim_id = _claim_id(str(lhs), str(rhs), lhs_tex, rhs_tex)
    try:
        claim = Derivation(claim_id, f"{lhs_tex} = {rhs_tex}", sp.Eq(lhs, rhs, evaluate=False),
                           (), (Step(rhs, "as the note writes it"),), dom,
                           definitions=tuple(m.definition for m in defs),
                           hypotheses=tuple(h for h in (*_entries_exist(lhs, rhs, defs),
                                                        *hypotheses) if h is not sp.true))
        result = verify(claim)
    except DerivationError as exc:
        return link(NOT_CHECKABLE, f"not a claim the engine can state: {exc}")
    except Exception as exc:  # noqa: BLE001 - SymPy failing on the note's form: say so
        return link(NOT_CHECKABLE, f"the engine could not check it: {type(exc).__name__}: "
                                   f"{' '.join(str(exc).split())[:200]}")
    step = result.steps[0]
    if result.status == "failed":
        nums = _numbers(lhs, rhs, defs, dom)
        if nums is not None and approx.is_literal(rhs_tex):  # "= 0.333": a rounding?
            try:
                judged = _shown_rounding(rhs_tex, nums[0])
            except approx.NotANumber:
                judged = None
            if judged and judged[0]:
                return link("proved", f"= to the digits shown: the exact value is {judged[1]}")
        got = _rounded_inputs(*nums, lhs_tex, rhs_tex, symbols) if nums is not None else None
        if got is not None and got[0]:
            return link("proved", f"= to the digits shown: {got[1]}")
        failed = link("failed", step.reason or "the two sides differ", step.counterexample)
        return dataclasses.replace(failed, claim=claim_source(claim))
    return link(result.status, step.reason)


def _rounded_inputs(a, b, lhs_tex: str, rhs_tex: str, symbols: NoteSymbols,
                    irrational: bool = True):
    """A side computed from decimals the note rounded (2.0794/0.6931 for L/ln 2) against an
    exact value: (whether the exact value lies in the values the side takes while each decimal
    ranges over the numbers it is a rounding of, the reason), or None when the link is not of
    that shape.  For ``=`` (``irrational``) only against a value no decimal can equal: between
    rationals, = is exact."""
    if symbols.reread is None:
        return None
    for exact, tex in ((a, rhs_tex), (b, lhs_tex)):
        template, shown = approx.with_stand_ins(tex)
        if not shown or not isinstance(exact, sp.Basic) or irrational and (
                exact.is_rational is not False and sp.nsimplify(exact).is_rational is not False):
            continue
        side = symbols.reread(template)
        if side is None:
            continue
        try:
            span = approx.interval(side, shown)
            value = approx.exact_value(exact)
        except (approx.NotANumber, TypeError, ValueError, ZeroDivisionError):
            continue
        ok = approx.within(value, span)
        digits = ", ".join(s.text for s in shown.values())
        return ok, (f"with {digits} read as roundings, {tex} lies in "
                    f"[{mpmath.nstr(span.a, 8)}, {mpmath.nstr(span.b, 8)}], which "
                    f"{'holds' if ok else 'does not hold'} the exact value "
                    f"{mpmath.nstr(value, 10)}")
    return None


class _Repr(ReprPrinter):
    """SymPy's srepr, but Euler's number as ``exp(Integer(1))``: in a claims file ``E`` is the
    engine's expectation, which srepr would otherwise print Euler's number as too."""

    def _print_Exp1(self, expr):
        return "exp(Integer(1))"


def _srepr(expr) -> str:
    return _Repr().doprint(expr)


def claim_source(claim: Derivation) -> str:
    """Python that builds ``claim`` again (SymPy's srepr of every object), for a claims file."""
    d, r = claim.domain, _srepr

    def mapping(m: dict) -> str:
        return "{" + ", ".join(f"{r(k)}: ({r(sp.sympify(a))}, {r(sp.sympify(b))})"
                               for k, (a, b) in m.items()) + "}"

    def seq(items) -> str:
        return "(" + "".join(r(x) + ", " for x in items) + ")"

    defs = "".join(f"Definition({x.name!r}, {r(x.symbol)}, {r(x.body)}, params={seq(x.params)}), "
                   for x in claim.definitions)
    lhs, rhs = claim.statement.lhs, claim.statement.rhs
    return (f"Derivation({claim.id!r}, {claim.title!r}, Eq({r(lhs)}, {r(rhs)}, "
            f"evaluate=False), (), (Step({r(rhs)}, 'as the note writes it'),), "
            f"Domain(dims={seq(d.dims)}, indices={mapping(d.indices)}, "
            f"random={mapping(d.random)}, ranges={mapping(d.ranges)}, "
            f"constants={seq(d.constants)}), definitions=({defs}))")


def _split(reading: Reading) -> list[tuple[int, str, object, object, str, str]]:
    tex = reading.part_latex or tuple(sp.latex(p) for p in reading.parts)
    return [(k + 1, rel, reading.parts[k], reading.parts[k + 1], tex[k], tex[k + 1])
            for k, rel in enumerate(reading.relations)]


def _unknown(reading: Reading, symbols: NoteSymbols, visible: list[Made],
             valued: set[str] = frozenset()) -> list[str]:
    known = {_name(o) for o in symbols.known} | {_name(d) for d in symbols.dims} | set(valued)
    known |= {_name(i) for i in symbols.indices} | {m.definition.key for m in visible}
    return sorted({_name(o) for p in reading.parts for o in _objects(p)} - known)


def check_formula(formula: Formula, reading: Reading, context: Context, symbols: NoteSymbols,
                  store: cache_mod.Cache | None = None) -> FormulaResult:
    """The verdict on one formula; a definition it makes is added to ``context``."""

    def result(verdict, reason, links=(), approx_=False):
        return FormulaResult(formula.index, formula.start, formula.end, formula.line,
                             formula.latex, formula.display, reading.printed, verdict, reason,
                             tuple(links), approx_, formula.sentence)

    context.at = formula.block
    if not reading.understood:
        return result(NOT_UNDERSTOOD, reading.not_understood)
    if reading.pieces:
        return _combine(result, [check_formula(formula, p, context, symbols, store)
                                 for p in reading.pieces])
    if not reading.relations:
        return result(NOT_CHECKABLE, "an expression: it states nothing to check")
    if _SHAPE_PRODUCT.search(formula.latex) and all(
            o in symbols.dims for p in reading.parts if isinstance(p, sp.Basic)
            for o in p.free_symbols):
        return result(NOT_CHECKABLE, "sizes multiplied as shapes ((n × d)(d × m) = n × m): a "
                                     "statement about shapes, not algebra, and not checked")
    links = _split(reading) if len(reading.parts) == len(reading.relations) + 1 else []
    shaped = _shapes(links, context)
    if all(r in DECLARE for r in reading.relations):
        if shaped and len(links) == 1:
            return result(shaped[0].status, shaped[0].reason if shaped[0].status == "proved"
                          else _blame(shaped[0]), shaped)
        return result(NOT_CHECKABLE, "a declaration: it says what a symbol is")
    out = _links(result, formula, reading, links, context, symbols, store)
    wrong = [k for k in shaped if k.status == "failed"]
    if wrong:  # a shape the formula states is wrong, whatever its other links say
        judged = {k.index: k for k in shaped}
        return result("failed", _blame(wrong[0]),
                      [judged.get(k.index, k) for k in out.links] or shaped)
    return out


def _links(result, formula: Formula, reading: Reading, links, context: Context,
           symbols: NoteSymbols, store) -> FormulaResult:
    """A formula's links after its shapes: values, definitions, and claims."""
    if set(reading.relations) <= {EQUAL} and len(reading.parts) > 2 \
            and _closed(reading.parts[-1]) and all(_bare(p) for p in reading.parts[:-1]):
        for part in reading.parts[:-1]:  # m_0 = v_0 = 0: values for the example
            context.give(part, reading.parts[-1], formula.section)
        return result(NOT_CHECKABLE, "values for the worked example")
    made_by_me = None
    first_rel, first_lhs = links[0][1], links[0][2]
    if len(links) == 1 and first_rel in (EQUAL, "≠") and all(
            isinstance(p, sp.Symbol) and p.is_integer and not p.is_positive
            for p in reading.parts):  # "when i = j:", "when i ≠ j:" — the case of what follows
        context.case = (first_rel, *reading.parts[:2], formula.index + 1)
        return result(NOT_CHECKABLE, f"a case of the indices ({links[0][4]} {first_rel} "
                                     f"{links[0][5]}): it holds in the formula that follows, "
                                     f"and is not a definition")
    head = head_of(first_lhs) if first_rel in (EQUAL, DEFINE) and 0 not in reading.unlowered \
        else None
    if head is not None and isinstance(head[0], sp.Symbol) and any(
            isinstance(o, sp.IndexedBase) and o.name == head[0].name
            for o in _objects(links[0][3])):
        return result(NOT_CHECKABLE, f"{links[0][4]} is given in terms of its own entries "
                                     f"({links[0][5]}): two quantities of one name, not checked")
    if head is not None and isinstance(head[0], sp.IndexedBase) and head[0] in _objects(
            links[0][3]) and first_rel in (EQUAL, DEFINE):
        if len(first_lhs.indices) == 1 and isinstance(first_lhs.indices[0], sp.Symbol):
            context.recursions[_name(head[0])] = (first_lhs, links[0][3], formula.line)
        return result(NOT_CHECKABLE, f"a recursion: {links[0][4]} is defined from earlier "
                                     f"entries of itself; its terms are not checked")
    if isinstance(first_lhs, sp.IndexedBase | sp.Symbol) and isinstance(links[0][3], sp.Tuple) \
            and first_rel == EQUAL and all(_closed(v) for v in links[0][3]):
        values = links[0][3]
        base = first_lhs if isinstance(first_lhs, sp.IndexedBase) else sp.IndexedBase(
            first_lhs.name, real=True)
        # a bold vector's entries are written in the plain letter (𝐱 = (1, 2, 3, 4), x_i)
        plain = [o for o in symbols.known if isinstance(o, sp.IndexedBase)
                 and base.name.startswith("bf_") and o.name == base.name[3:]]
        # the vector as the table holds it, with its declared size (z ∈ ℝ^K)
        same = [o for o in symbols.known if isinstance(o, sp.IndexedBase)
                and o.name in (base.name, base.name.removeprefix("bf_")) and o != base]
        for k, v in enumerate(values, 1):  # x = (1, 2, 3, 4): x_1 … x_4, and x's size 4
            for b in dict.fromkeys((base, *plain, *same)):
                context.give(b[k], v, formula.section)
        sizes = {o.shape[0] for o in (base, *same) if o.shape and len(o.shape) == 1}
        for size in sizes if len(sizes) == 1 else ():
            if isinstance(size, sp.Symbol):
                context.give(size, sp.Integer(len(values)), formula.section)
        return result(NOT_CHECKABLE, f"gives {links[0][4]} values for the worked example")
    if head is not None and 1 in reading.unlowered:
        context.opaque[_name(head[0])] = links[0][4]
        return result(NOT_CHECKABLE, f"would define {links[0][4]}, but its body cannot be "
                                     f"written out: {reading.unlowered[1]}")
    if first_rel == EQUAL and isinstance(first_lhs, sp.Indexed) \
            and all(i.is_Integer for i in first_lhs.indices) and not _closed(links[0][3]) \
            and first_lhs.base not in _objects(links[0][3]) \
            and first_lhs not in context.entries_of(formula.section) \
            and context.defined(first_lhs.base, formula.section, formula.block) is None:
        # u_1 = x² + 2: this entry, defined by substitution wherever it occurs
        context.entries.append((first_lhs, links[0][3], formula.section))
        if len(links) == 1:
            return result(DEFINITION, f"defines {links[0][4]}")
        return _rest(result, formula, reading, links[1:], context, symbols, store,
                     f"defines {links[0][4]}; ")
    candidate = reading.defines if reading.defines is not None else \
        head is not None and not _is_variable(head[0], symbols, links[0][3])
    # the reader's candidates are a bare symbol, an entry or a function of symbols; a name it
    # took for a vector (L beside L_b) and a square σ² are as much so once lowered
    candidate = candidate or head is not None
    before = context.defined(head[0], formula.section, formula.block) if head else None
    recursion = context.recursions.get(_name(head[0])) if head else None
    if recursion is not None and first_rel in (EQUAL, DEFINE) and not _closed(links[0][3]):
        why = (f"{links[0][4]} is defined by the recursion at line {recursion[2]}: a second "
               f"formula for it (a closed form) is not taken as its definition, and is not "
               f"checked")
        if len(links) == 1:
            return result(NOT_CHECKABLE, why)
        first = Link(1, first_rel, links[0][4], links[0][5], NOT_CHECKABLE, why)
        return _rest(result, formula, reading, links[1:], context, symbols, store, "",
                     (first,))
    if head is not None and (first_rel == DEFINE or before is None
                             or (before.value and is_number(links[0][3]))
                             or _other_terms(before, links[0][3])) \
            and head[0] not in _objects(links[0][3]) and (candidate or first_rel == DEFINE
                                                          or is_number(links[0][3])):
        if _bare(first_lhs) and _closed(links[0][3]):  # a value for a worked example
            context.give(first_lhs, links[0][3], formula.section)
            if len(links) == 1:
                return result(NOT_CHECKABLE, f"gives {links[0][4]} a value for the worked "
                                             f"example")
            return _rest(result, formula, reading, links[1:], context, symbols, store,
                         f"gives {links[0][4]} a value; ")
        try:
            made_by_me = context.define(first_lhs, links[0][3], formula, formula.block,
                                        f"{links[0][4]} = {links[0][5]}")
        except DerivationError as exc:
            return result(NOT_CHECKABLE, f"reads as a definition the engine refuses: {exc}")
        key = made_by_me.definition.key
        if first_rel == DEFINE:  # := says the new meaning replaces the old
            context.twice.pop(key, None)
        elif before is not None and not before.value and before.paragraph is None \
                and made_by_me.paragraph is None and before.section == formula.section:
            # a second meaning of one name in one section: which one a later line uses is
            # not said, so neither is used
            context.twice[key] = (*context.twice.get(key, (before.line,)), formula.line)
        links = links[1:]
        if not links:
            kind = "a value for the example in its paragraph" if made_by_me.value else \
                "defines " + links_name(made_by_me)
            return result(DEFINITION if not made_by_me.value else NOT_CHECKABLE, kind)
    prefix = f"defines {links_name(made_by_me)}; " if made_by_me is not None else ""
    return _rest(result, formula, reading, links, context, symbols, store, prefix)


def _rest(result, formula: Formula, reading: Reading, links, context: Context,
          symbols: NoteSymbols, store, prefix: str, before=()) -> FormulaResult:
    """The links of a formula after any definition or value its first link makes (``before``:
    links already judged, not checked)."""
    visible = context.visible(formula.section, formula.block)
    case = context.case if context.case and context.case[3] == formula.index else None
    if case and case[0] == EQUAL:  # when i = j: the formula is about i alone
        links = [(k, r, *(x.xreplace({case[2]: case[1]}) if isinstance(x, sp.Basic) else x
                          for x in (a, b)), ta, tb) for k, r, a, b, ta, tb in links]
    hypotheses = (sp.Ne(case[1], case[2]),) if case and case[0] == "≠" else ()
    standalone = len(reading.relations) == 1
    if standalone and all(rel not in (APPROX, *ORDER) for _, rel, *_ in links):
        unknown = _unknown(reading, symbols, visible, context.valued(formula.section))
        if unknown:
            return result(NOT_CHECKABLE, f"uses {', '.join(unknown)}, which the note does not "
                                         f"introduce (say what it is in a symbols block)")
    checked = list(before)
    for index, rel, lhs, rhs, lhs_tex, rhs_tex in links:
        if rel in DECLARE or rel not in (EQUAL, DEFINE, APPROX, *ORDER):
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE,
                                f"the relation {rel} is not one the engine checks"))
            continue
        why = reading.unlowered.get(index - 1) or reading.unlowered.get(index)
        if why:
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE,
                                f"cannot be written out in plain SymPy: {why}"))
            continue
        defined_entries = context.entries_of(formula.section)
        if defined_entries:
            lhs, rhs = (x.xreplace(defined_entries) if isinstance(x, sp.Basic) else x
                        for x in (lhs, rhs))
        # "if p_c = 0.25, …": a number alone for a name the note defines may be a value an
        # example supposes; it is checked, but a failure is not blamed
        supposed = standalone and rel == EQUAL and _bare(lhs) and approx.is_literal(rhs_tex)
        given = context.value_of(formula.section)
        if supposed:
            given = {k: v for k, v in given.items() if k != lhs}
        visible_now = context.visible(formula.section, formula.block)
        worked = bool(given) and (_closed(lhs) or _closed(rhs))
        written = {_name(o) for o in _objects(lhs) | _objects(rhs)}
        as_written = lhs, rhs
        if worked:  # a worked example's step: its values in
            lhs, rhs = (put(x, given, context) for x in (lhs, rhs))
        said = _value_or_instance(lhs, rhs, lhs_tex, visible_now, context, formula.section,
                                  symbols.known, written) if rel in (EQUAL, DEFINE) else ""
        if said:
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE, said))
            continue
        names = {_name(o) for o in _objects(lhs) | _objects(rhs)}
        names |= {_name(o) + "[]" for o in _objects(lhs) | _objects(rhs)
                  if isinstance(o, sp.IndexedBase)}
        opaque = sorted({context.opaque[n] for n in names if n in context.opaque})
        if opaque:
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE,
                                f"uses {', '.join(opaque)}, which the note defines by what "
                                f"cannot be read or written out"))
            continue
        defs = used_definitions((lhs, rhs), visible_now)
        ambiguous = _ambiguous(lhs, rhs, defs, context)
        if ambiguous:
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE, ambiguous))
            continue
        tex = (index, EQUAL if rel == DEFINE else rel, lhs_tex, rhs_tex)
        link = _verify(tex, lhs, rhs, defs, given if worked else None, context, symbols, store,
                       hypotheses)
        tiny = _negligible(context, link, lhs, rhs, defs, given if worked else {})
        if tiny:  # ε = 10⁻⁸ the note leaves out: does the link hold without it?
            zero = {e: sp.Integer(0) for e in tiny}
            if worked:
                again = _verify(tex, *(put(x, {**given, **zero}, context) for x in as_written),
                                defs, {**given, **zero}, context, symbols, store, hypotheses)
            else:
                again = _verify(tex, *(x.xreplace(zero) for x in (lhs, rhs)),
                                _with_values(defs, zero), None, context, symbols, store,
                                hypotheses)
            if again.status in ("proved", "numeric"):
                shown = ", ".join(f"{_name(e)} = {tiny[e]}" for e in sorted(tiny, key=str))
                link = dataclasses.replace(link, status=NOT_CHECKABLE, counterexample=None,
                                           claim="", reason=(
                    f"holds only with {', '.join(sorted(map(_name, tiny)))} taken as 0 (the "
                    f"note gives {shown}): the note leaves it out here, so it is not checked"))
        if supposed and link.status == "failed":
            context.give(lhs, rhs, formula.section)
            link = dataclasses.replace(link, status=NOT_CHECKABLE, counterexample=None, claim="",
                                       reason=f"gives {lhs_tex} a value an example supposes "
                                              f"(\"if {lhs_tex} = {rhs_tex}\"): the note's "
                                              f"definition gives another, and this is not "
                                              f"blamed for it")
        checked.append(link)
    statuses = [k.status for k in checked if k.status in CHECKED]
    if not statuses:
        reason = "; ".join(dict.fromkeys(k.reason for k in checked))
        return result(NOT_CHECKABLE, reason, checked)
    verdict = worst(statuses)
    failed = [k for k in checked if k.status == "failed"]
    unchecked = [k for k in checked if k.status not in CHECKED]
    if failed:
        reason = _blame(failed[0])
    elif unchecked:  # a formula is proved only if all of it is: say what was and was not
        verdict = NOT_CHECKABLE
        reason = "; ".join([f"link {k.index} {k.status}" for k in checked if k.status in CHECKED]
                           + [f"link {k.index} not checkable: {k.reason}" for k in unchecked])
    else:
        reason = f"{len(statuses)} link{'s' if len(statuses) > 1 else ''} {verdict}"
    reason = prefix + reason
    approx_ = any(k.relation == APPROX or k.reason.startswith("= to the digits")
                  for k in checked if k.status == "proved")
    return result(verdict, reason, checked, approx_)


def _ambiguous(lhs, rhs, defs: list[Made], context: Context) -> str:
    """Why the definitions a link would be checked with are not used, or "": a name the note
    defines twice (in one section, by =), or one it writes both as a constant and with an
    index (g beside g_t) where one of the two is defined."""
    for m in defs:
        key = m.definition.key
        if key in context.twice:
            lines = ", ".join(str(n) for n in context.twice[key])
            return (f"{m.definition.name} is defined twice (lines {lines}): which meaning this "
                    f"line uses is not said, so it is not checked")
    exprs = [x for x in (lhs, rhs, *(m.definition.body for m in defs)) if isinstance(x, sp.Basic)]
    plain = {s.name for e in exprs for s in _outside_entries(e)}
    indexed = {a.base.name for e in exprs for a in e.atoms(sp.Indexed)}
    for m in defs:
        key = m.definition.key
        kinds = {"constant" for n in plain if n == key} | {"indexed" for n in indexed if n == key}
        kinds.add("indexed" if isinstance(m.definition.symbol, sp.IndexedBase) else
                  "constant" if isinstance(m.definition.symbol, sp.Symbol) else "other")
        if {"constant", "indexed"} <= kinds:
            return (f"{key} is used both as a constant and with an index, and one of them is "
                    f"defined: which is meant is not said, so it is not checked")
    return ""


def _outside_entries(expr) -> set:
    """The symbols of ``expr`` written on their own, not as the name of an entry x_i."""
    if isinstance(expr, sp.Indexed | sp.IndexedBase):
        return set()
    if isinstance(expr, sp.Symbol):
        return {expr}
    bound = {lim[0] for lim in getattr(expr, "limits", ())}
    return set().union(*(_outside_entries(a) for a in expr.args)) - bound if expr.args else set()


def _verify(tex, lhs, rhs, defs: list[Made], given: dict | None, context: Context,
            symbols: NoteSymbols, store, hypotheses=()) -> Link:
    """One link checked: an example's step (``given`` its values) recomputed as numbers when
    they are all there, else as a claim with the definitions it uses."""
    index, rel, lhs_tex, rhs_tex = tex
    if given is not None:  # and in the definitions it unfolds (ω_i = 10000^{-2i/d}, d = 512)
        defs = _with_values(defs, given)
        a, b = (put(_unfold(x, defs), given, context) for x in (lhs, rhs))
        if _closed(a) and _closed(b):  # recomputed: numbers against numbers
            return check_link(index, rel, a, b, lhs_tex, rhs_tex, [], symbols, store,
                              {m.definition.name: m.where for m in defs}, hypotheses)
    apart = _apart(_unfold(lhs, defs), _unfold(rhs, defs)) if rel == EQUAL else ""
    if apart:
        return Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE, apart)
    return check_link(index, rel, lhs, rhs, lhs_tex, rhs_tex, defs, symbols, store,
                      hypotheses=hypotheses)


# a value this small given to a symbol (ε = 10⁻⁸) is one a note may leave out of a step
NEGLIGIBLE = sp.Rational(1, 10**4)


def _negligible(context: Context, link: Link, lhs, rhs, defs: list[Made], given: dict) -> dict:
    """The symbols of a failed link (or of the definitions it unfolds) the note gives a
    negligible value (ε = 10⁻⁵): symbol -> value; empty when the link did not fail."""
    if link.status != "failed":
        return {}
    tiny = {o: v for o, v, *_ in context.values if isinstance(o, sp.Symbol)
            and isinstance(v, sp.Rational) and v != 0 and abs(v) <= NEGLIGIBLE}
    used = set().union(*(x.free_symbols for x in (lhs, rhs, *(m.definition.body for m in defs))
                         if isinstance(x, sp.Basic)))
    used |= {o for o in given if given[o] in tiny.values()}
    return {o: v for o, v in tiny.items() if o in used}


def _shapes(links, context: Context) -> list[Link]:
    """The links ``expr ∈ ℝ^{a×b}`` judged by shapes, where the shape of ``expr`` can be told
    (a declared matrix alone is a declaration, not judged); a name the formula defines by a
    matrix expression (S = QKᵀ/√d_k) gets that expression's shape for later formulas."""
    out = []
    for k, (index, rel, lhs, rhs, lhs_tex, rhs_tex) in enumerate(links):
        if rel in (EQUAL, DEFINE) and k == 0 and isinstance(lhs, sp.Symbol | sp.IndexedBase):
            try:
                found = shape_of(rhs, context.shapes)
            except NoShape:
                found = None
            if found is not None:
                context.shapes[_name(lhs)] = found
        if rel != "∈" or isinstance(lhs, sp.Symbol | sp.IndexedBase | sp.MatrixSymbol):
            continue
        judged = judge_shape(lhs, rhs, context.shapes)
        if judged is None:
            continue
        ok, shape = judged
        out.append(Link(index, rel, lhs_tex, rhs_tex, "proved" if ok else "failed",
                        f"by shapes: {lhs_tex} is {shape}",
                        None if ok else {"shape": shape, "stated": rhs_tex}))
    return out


def _combine(result, parts: list[FormulaResult]) -> FormulaResult:
    """One verdict for a formula of several statements: the worst of what was checked, else a
    definition, else the first reason it is not checked."""
    links, k = [], 0
    for p in parts:
        for link in p.links:
            k += 1
            links.append(dataclasses.replace(link, index=k))
    checked = [p.verdict for p in parts if p.verdict in CHECKED]
    reason = "; ".join(p.reason for p in parts)
    if "failed" in checked:
        verdict = "failed"
    elif checked and all(p.verdict in CHECKED or p.verdict == DEFINITION for p in parts):
        verdict = worst(checked)
    elif any(p.verdict == NOT_CHECKABLE for p in parts) and checked:
        verdict = NOT_CHECKABLE
    elif any(p.verdict == DEFINITION for p in parts):
        verdict = DEFINITION
    elif all(p.verdict == NOT_UNDERSTOOD for p in parts):
        verdict = NOT_UNDERSTOOD
    else:
        verdict = NOT_CHECKABLE
    approx_ = any(p.approx for p in parts) and verdict == "proved"
    return result(verdict, reason, links, approx_)


def links_name(made: Made) -> str:
    return made.definition.name


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
    for _ in range(6):
        before = expr
        expr = expr.xreplace(given)
        if entries:
            expr = expr.replace(lambda e: isinstance(e, sp.Indexed)
                                and (e.base.name, e.indices) in entries,
                                lambda e: entries[(e.base.name, e.indices)])
        if context is not None:
            expr = context.unroll(expr)
        expr = expr.replace(
            lambda e: isinstance(e, sp.Sum | sp.Product) and all(
                sp.sympify(b).is_Integer for _, *lim in e.limits for b in lim),
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


def _apart(lhs, rhs) -> str:
    """Why a link whose sides are each in symbols the other lacks is not checked: it rests on a
    relation between them that the formula does not state (−Σ y_i log p_i = −log p_c holds
    for a one-hot y with y_c = 1).  A side that only drops or adds terms is checked."""
    names = [{_name(o) for o in _objects(x)} for x in (lhs, rhs)]
    only = [sorted(names[0] - names[1]), sorted(names[1] - names[0])]
    if only[0] and only[1]:
        return (f"the sides are in different symbols ({', '.join(only[0])} against "
                f"{', '.join(only[1])}): the link rests on how they relate, which it does not "
                f"state")
    return ""


def _other_terms(before: Made, body) -> bool:
    """A new formula for a defined name in other terms (L = Σ_b L_b / B after L = −Σ y log p)
    defines it anew; in the same terms (σ² = Σ (x − μ)²/(d − 1) after /d) it is a claim
    about it, checked against the first."""
    old = {_name(o) for o in _objects(before.definition.body)}
    old |= {_name(p) for p in before.definition.params}
    return bool({_name(o) for o in _objects(body)} - old)


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


def _value_or_instance(lhs, rhs, lhs_tex: str, visible: list[Made], context: Context,
                       section: tuple[int, ...], known=frozenset(), written=frozenset()) -> str:
    """Why a link ``x = number`` is not checked, or "" when it is: a value given to a symbol or
    entry for a worked example, or an example's computation whose values the note does not all
    give (``L = −ln 0.638`` where L = −Σ y_i log p_i; ``η m̂_1/√v̂_1 = 0.001`` with m̂_1
    given elsewhere).  A statement in symbols none of which has a value (Σ_i s_i = 1) is a
    property, and checked."""
    if _closed(lhs) and not _closed(rhs):
        lhs, rhs = rhs, lhs
    if not _closed(rhs) or _closed(lhs):
        return ""
    base = lhs.base if isinstance(lhs, sp.Indexed) else lhs
    made = next((m for m in reversed(visible) if m.definition.key == _name(base)), None)
    recurs = isinstance(lhs, sp.Indexed) and _name(lhs.base) in context.recursions \
        and context.unroll(lhs) != lhs
    if made is None and _bare(lhs) and not recurs:
        context.give(lhs, rhs, section)
        return f"gives {lhs_tex} a value for the worked example"
    given = context.value_of(section)
    unfolded = put(_unfold(lhs, _with_values(used_definitions((lhs,), visible), given)), given,
                   context)
    left = {_name(o) for o in _objects(unfolded)}
    names = {_name(o) for o in _objects(lhs)}
    introduced = {_name(o) for o in known} | {m.definition.key for m in visible}
    # a link that, as written, uses a value of this section's example (d = 4) is a step of it
    example = set(written) & context.valued(section, here=True)
    if left and (made is not None or names & context.valued(section) or example
                 or names - introduced
                 or any(o.is_Integer for e in lhs.atoms(sp.Indexed) for o in e.indices)):
        return (f"a step of a worked example: the note does not give the values of "
                f"{', '.join(sorted(left))} here")
    return ""


def _is_variable(symbol, symbols: NoteSymbols, body) -> bool:
    """A symbol the table knows as a variable is not defined by an equation with symbols on
    the right (``z = Wx + b`` about a known z is a claim), but may take a value for an example
    (``z = [1, 2]``)."""
    return _name(symbol) in {_name(k) for k in symbols.known} and not is_number(body)


def _blame(link: Link) -> str:
    """The reason of a failed link: where the two sides differ, and which definitions the
    check unfolded — the link contradicts them, and one of the two is wrong."""
    text = f"link {link.index} ({link.lhs} {link.relation} {link.rhs}) fails"
    if link.reason and link.reason != "the two sides differ":
        text += f" ({link.reason})"
    if link.definitions:
        used = "; ".join(f"{name} from {where}" for name, where in link.definitions.items())
        text += (f", checked with the note's definition{'s' if len(link.definitions) > 1 else ''}"
                 f" {used}: this line and that definition contradict each other")
    return text

