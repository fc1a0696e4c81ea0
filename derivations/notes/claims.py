"""One link of a note checked as a claim: the engine's :class:`~derivations.engine.Derivation`
(statement ``lhs = rhs``, one step ``rhs``) with the definitions it uses and the domain the symbol
table gives — the same statuses and counterexamples as any claim — or, between numbers, exactly,
by the digits shown.  A link's verdict is cached by everything it depends on.  ``claim_source``
writes a failed claim back as Python for the drafted errata."""

from __future__ import annotations

import dataclasses
import hashlib
import re

import mpmath
import sympy as sp
from sympy.printing.repr import ReprPrinter

from derivations.engine import Derivation, DerivationError, Domain, Step, verify
from derivations.notes import approx, engine_words, laws, moments, opaque
from derivations.notes import cache as cache_mod
from derivations.notes.context import Made, is_number
from derivations.notes.model import (
    NOT_CHECKABLE,
    Link,
)
from derivations.notes.reading import APPROX, ORDER, NoteSymbols
from derivations.notes.reasons import join, of_error, say
from derivations.notes.refusals import engine_refusal
from derivations.notes.terms import (
    _name,
    _objects,
    _unfold,
)


def _ordered(symbols) -> list:
    """Symbols in a fixed order: a set's order follows string hashing, which changes from run
    to run, and the order of a domain's indices decides which counterexample is shown."""
    return sorted(symbols, key=sp.default_sort_key)


def domain(symbols: NoteSymbols, defs: list[Made], exprs=()) -> Domain:
    """The engine's domain from the symbol table for ``exprs`` (and the bodies of ``defs``):
    only the symbols they use, and none the note defines (a defined symbol has no values of its
    own to draw)."""
    defined = {m.definition.key for m in defs}
    used = {_name(o) for e in (*exprs, *(m.definition.body for m in defs)) for o in _objects(e)}
    used |= {_name(p) for m in defs for p in m.definition.params}
    for e in (*exprs, *(m.definition.body for m in defs)):  # the sizes of the vectors used
        for entry in (_ordered(e.atoms(sp.Indexed)) if isinstance(e, sp.Basic) else ()):
            used |= {_name(x) for k in (entry.base.shape or ()) for x in
                     sp.sympify(k, strict=True).free_symbols}

    def keep(k) -> bool:
        return _name(k) in used and _name(k) not in defined

    indices = {k: v for k, v in symbols.indices.items() if keep(k)}
    # an index with no declared range ranges over the size of the vector whose entry it is
    for e in (*exprs, *(m.definition.body for m in defs)):
        for entry in (_ordered(e.atoms(sp.Indexed)) if isinstance(e, sp.Basic) else ()):
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
    summed = summed_over(exprs, defs)
    for e in (*exprs, *(m.definition.body for m in defs)):
        for entry in (_ordered(e.atoms(sp.Indexed)) if isinstance(e, sp.Basic) else ()):
            for index in entry.indices:
                if isinstance(index, sp.Symbol) and index.is_integer and keep(index) \
                        and index not in indices:
                    indices[index] = (sp.Integer(1), summed.get(entry.base, size))
    bounds = {_name(o) for lo_hi in indices.values() for b in lo_hi
              for o in sp.sympify(b, strict=True).free_symbols}
    dims = tuple(d for d in symbols.dims if keep(d) or _name(d) in bounds)
    dims += tuple(_ordered({b for lo_hi in indices.values() for x in lo_hi
                            for b in sp.sympify(x, strict=True).free_symbols}
                           - set(dims) - set(indices)))
    # η_T with T where the schedule's t ends (READING §1, v3.9): T is a size, drawn as one
    dims += tuple(_ordered({i for e in (*exprs, *(m.definition.body for m in defs))
                            if isinstance(e, sp.Basic) for entry in e.atoms(sp.Indexed)
                            for i in entry.indices if isinstance(i, sp.Symbol)
                            and i.is_integer is None and keep(i) and i.name[:1].isupper()}
                           - set(dims) - set(indices)))
    # a term inside E or Var that cannot be written out: a random scalar whose mean and
    # variance are symbols drawn like any other
    hidden = sorted(set().union(*(opaque.atoms_of(e) for e in exprs)), key=str)
    laws = {a: opaque.law(a) for a in hidden}
    return Domain(dims=dims,
                  indices={k: indices[k] for k in _ordered(indices)},
                  random={**{k: v for k, v in symbols.random.items() if keep(k)}, **laws},
                  ranges={**{k: v for k, v in symbols.ranges.items() if keep(k)},
                          **_body_only(exprs, defs, set(indices) | set(dims)),
                          **{m: (-3, 3) for m, _ in laws.values()},
                          **{v: (sp.Rational(1, 10), 10) for _, v in laws.values()}},
                  constants=tuple(c for c in symbols.constants if keep(c)) +
                  _body_arrays(exprs, defs, symbols))


def summed_over(exprs, defs: list[Made]) -> dict:
    """The vectors of no declared size whose entries a sum Σ_{k=1}^{n} runs over (z in
    log Σ_k e^{z_k}), each with the sum's upper bound n: a free index of such a vector (z_j)
    names one of the summed entries, so it ranges over 1..n — at j = 2, n = 1 the formula
    means nothing, and a counterexample there would be no counterexample."""
    found: dict = {}
    for e in (*exprs, *(m.definition.body for m in defs)):
        for total in (e.atoms(sp.Sum) if isinstance(e, sp.Basic) else ()):
            for k, low, high in total.limits:
                if low != 1 or not isinstance(high, sp.Symbol):
                    continue
                for entry in total.function.atoms(sp.Indexed):
                    if entry.indices == (k,) and not entry.base.shape:
                        found.setdefault(entry.base, set()).add(high)
    # sums of one vector up to two bounds say nothing of which one its entries run to
    return {b: next(iter(h)) for b, h in found.items() if len(h) == 1}


def summed_indices(exprs, defs: list[Made], dom: Domain) -> list[tuple[str, str]]:
    """The free indices :func:`summed_over` bounded, as (index, bound) names, for the reason."""
    summed = summed_over(exprs, defs)
    out = set()
    for e in (*exprs, *(m.definition.body for m in defs)):
        for entry in (e.atoms(sp.Indexed) if isinstance(e, sp.Basic) else ()):
            for index in entry.indices:
                if entry.base in summed and index in dom.indices \
                        and dom.indices[index] == (sp.Integer(1), summed[entry.base]):
                    out.add((_name(index), _name(summed[entry.base])))
    return sorted(out)


def _body_arrays(exprs, defs: list[Made], symbols: NoteSymbols) -> tuple:
    """The vectors and matrices of the symbols block that only a definition's body uses (x in
    μ = 1/d Σ x_i, the link about x̂ alone): the engine declares a claim's own arrays by their
    use, these it is told of — values of their own, drawn like the claim's, not random.  Only
    the symbols block's: a vector declared in the text may stand in a link whose premise is
    prose (p_c = 1/K for a uniform guess), which a link checked in general would fail."""
    mine = {o for e in exprs if isinstance(e, sp.Basic) for o in _objects(e)}
    defined = {m.definition.key for m in defs}
    taken = {_name(k) for k in (*symbols.random, *symbols.ranges, *symbols.constants)}
    block = {r.name for r in symbols.rows if "symbols block" in r.rests_on}
    out: list = []
    for m in defs:
        for o in sorted(_objects(m.definition.body), key=_name):
            if isinstance(o, (sp.IndexedBase, sp.MatrixSymbol)) and o not in mine and \
                    o not in out and _name(o) in block - defined - taken and \
                    o not in set(m.definition.params):
                out.append(o)
    return tuple(out)


def _body_only(exprs, defs: list[Made], declared: set) -> dict:
    """The real symbols only a definition's body uses (ε in x̂_i = (x_i − μ)/√(σ² + ε)): the
    engine draws a claim's own symbols, so these are declared, positive as an ε or a variance
    is wherever a note leaves them in a body."""
    mine = {o for e in exprs if isinstance(e, sp.Basic) for o in e.free_symbols}
    defined = {m.definition.key for m in defs}
    out = {}
    for m in defs:
        # the letter of a vector x is no symbol of its own: its entries are drawn as x's
        labels = {b.label for b in _objects(m.definition.body) if isinstance(b, sp.IndexedBase)}
        for o in m.definition.body.free_symbols - mine - declared - set(m.definition.params):
            if isinstance(o, sp.Symbol) and not o.is_integer and o not in out \
                    and _name(o) not in defined and o not in labels:
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
        for entry in (_ordered(e.atoms(sp.Indexed)) if isinstance(e, sp.Basic) else ()):
            shape = entry.base.shape or ()
            for pos, index in enumerate(entry.indices):
                if index.is_Integer and pos < len(shape) \
                        and not sp.sympify(shape[pos], strict=True).is_number:
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
                         symbols.digest, repr(sorted((named or {}).items())),
                         repr(sorted(symbols.laws.items())), *said)


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
        return Link.from_dict(got, index)
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
        return link(NOT_CHECKABLE, say("link.free_function", names=", ".join(free)))
    lhs, rhs = (laws.powers_to_one(x, symbols) for x in (lhs, rhs))
    if lhs is None or rhs is None:
        return link(NOT_CHECKABLE, say("link.law_outside", names=", ".join(sorted(symbols.laws))))
    refused = moments.refusal(*(_unfold(x, defs) for x in (lhs, rhs)), symbols)
    if refused:
        return link(NOT_CHECKABLE, refused)
    hypotheses = (*hypotheses, *moments.conditions([_unfold(x, defs) for x in (lhs, rhs)],
                                                   symbols))
    dom = domain(symbols, defs, (lhs, rhs))
    within = summed_indices((lhs, rhs), defs, dom)
    if within:  # the range a counterexample is drawn from is said, never silent
        _said = link

        def link(status, reason="", counterexample=None):
            told = say("link.index_in_sum", ranges=", ".join(f"1 ≤ {j} ≤ {n}"
                                                              for j, n in within))
            return _said(status, join(reason, told) if reason else told,
                         counterexample)
    taken = laws.not_random([_unfold(x, defs) for x in (lhs, rhs)], symbols,
                            (*dom.dims, *dom.indices, *dom.random,
                             *(m.definition.symbol for m in defs)))
    if taken:
        dom = dataclasses.replace(dom, constants=(*dom.constants, *taken))
        _link = link

        def link(status, reason="", counterexample=None):
            said_random = ", ".join(sorted(symbols.laws))
            names = ", ".join(sorted({_name(t) for t in taken}))
            return _link(status, join(reason, say("link.not_random", names=names,
                                                  said=said_random), sep=False),
                         counterexample)
    if relation in ORDER or relation == APPROX:
        nums = _numbers(lhs, rhs, defs, dom)
        if nums is None:
            return link(NOT_CHECKABLE, say("link.order_symbols", rel=relation))
        a, b = nums
        if relation == APPROX:
            try:  # the digits are those of the side written as a plain number
                judged = (_shown_rounding(rhs_tex, a) if approx.is_literal(rhs_tex)
                          else _shown_rounding(lhs_tex, b) if approx.is_literal(lhs_tex)
                          else None)
            except approx.NotANumber as exc:
                return link(NOT_CHECKABLE, say("link.approx_error", error=of_error(exc)))
            if judged is None:
                got = _rounded_inputs(a, b, lhs_tex, rhs_tex, symbols, irrational=False)
                if got is not None:
                    ok, more = got
                    return link("proved" if ok else NOT_CHECKABLE, say("link.approx_inputs",
                                                                        how=more))
                return link(NOT_CHECKABLE, say("link.approx_nothing"))
            ok, more = judged
            return link("proved" if ok else "failed",
                        say("link.approx_rounds" if ok else "link.approx_not_rounds", exact=more),
                        None if ok else {"exact": more, "shown": rhs_tex})
        try:
            va, vb = approx.exact_value(a), approx.exact_value(b)
        except (approx.NotANumber, TypeError) as exc:
            return link(NOT_CHECKABLE, say("link.order_error", rel=relation,
                                               error=of_error(exc)))
        holds = {"<": va < vb, "≤": va <= vb, ">": va > vb, "≥": va >= vb, "≠": va != vb}
        ok = holds[relation]
        return link("proved" if ok else "failed",
                    say("link.exactly_holds" if ok else "link.exactly_fails", a=va, rel=relation,
                        b=vb),
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
        lawless = re.search(r": (.*) inside E or Var is neither random nor a constant", str(exc))
        if lawless:  # random q, k declared, no law given: say what to write
            return link(NOT_CHECKABLE, say("link.no_law", names=lawless.group(1)))
        return link(NOT_CHECKABLE, engine_refusal(str(exc), symbols=symbols))
    except Exception as exc:  # noqa: BLE001 - SymPy failing on the note's form: say so
        return link(NOT_CHECKABLE, say("link.engine_stopped", error=f"{type(exc).__name__}: "
                                       f"{' '.join(str(exc).split())[:200]}"))
    step = result.steps[0]
    if result.status == "failed":
        nums = _numbers(lhs, rhs, defs, dom)
        if nums is not None and approx.is_literal(rhs_tex):  # "= 0.333": a rounding?
            try:
                judged = _shown_rounding(rhs_tex, nums[0])
            except approx.NotANumber:
                judged = None
            if judged and judged[0]:
                if all(approx.rounding_said_by_equal(x) for x in approx.shown_numbers(rhs_tex)):
                    return link("proved", say("link.digits_exact", exact=judged[1]))
                failed = link("failed", say("link.digits_too_few", exact=judged[1]),
                              {"exact": judged[1], "shown": rhs_tex})
                return dataclasses.replace(failed, claim=claim_source(claim))
        got = _rounded_inputs(*nums, lhs_tex, rhs_tex, symbols) if nums is not None else None
        if got is not None and got[0]:
            return link("proved", say("link.digits_inputs", how=got[1]))
        failed = link("failed", _engine(step.reason) or say("link.differ"), step.counterexample)
        return dataclasses.replace(failed, claim=claim_source(claim))
    return link(result.status, _engine(step.reason))


def _engine(reason: str) -> str:
    """The engine's own reason for a step: keyed where the engine's sentences are known, else
    kept in its words (empty: none)."""
    if not reason:
        return ""
    return engine_words.said(reason) or say("link.engine", text=reason)


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
        return ok, say("link.rounded_inputs_holds" if ok else "link.rounded_inputs_fails",
                       digits=digits, tex=tex, a=mpmath.nstr(span.a, 8),
                       b=mpmath.nstr(span.b, 8), value=mpmath.nstr(value, 10))
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
        def obj(x):
            return r(sp.sympify(x, strict=True))

        return "{" + ", ".join(f"{r(k)}: ({obj(a)}, {obj(b)})" for k, (a, b) in m.items()) + "}"

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
