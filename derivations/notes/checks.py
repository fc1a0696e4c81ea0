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
import re

import sympy as sp

from derivations.engine import DerivationError
from derivations.notes import cache as cache_mod
from derivations.notes import closedform, laws, premises, sequences, wording
from derivations.notes.context import Context, Made, head_of, is_number
from derivations.notes.latex.printer import to_latex
from derivations.notes.linkcheck import CHECKED, _blame, _rest, _verify
from derivations.notes.markdown import Formula
from derivations.notes.model import (
    DEFINITION,
    NOT_CHECKABLE,
    NOT_UNDERSTOOD,
    FormulaResult,
    Link,
    worst,
)
from derivations.notes.reading import APPROX, DECLARE, DEFINE, EQUAL, NoteSymbols, Reading
from derivations.notes.reasons import join, say
from derivations.notes.refusals import engine_refusal
from derivations.notes.shapes import NoShape, different_shapes, shape_of, undefined_product
from derivations.notes.shapes import judge as judge_shape
from derivations.notes.terms import (
    _bare,
    _closed,
    _name,
    _objects,
)

# two shapes side by side, (n × d)(d × m): the notation of shapes, which reads as a product
_SHAPE_PRODUCT = re.compile(r"\(\s*[^()]*\\times[^()]*\)\s*\(\s*[^()]*\\times[^()]*\)")


def _split(reading: Reading) -> list[tuple[int, str, object, object, str, str]]:
    tex = reading.part_latex or tuple(sp.latex(p) for p in reading.parts)
    return [(k + 1, rel, reading.parts[k], reading.parts[k + 1], tex[k], tex[k + 1])
            for k, rel in enumerate(reading.relations)]


def check_formula(formula: Formula, reading: Reading, context: Context, symbols: NoteSymbols,
                  store: cache_mod.Cache | None = None) -> FormulaResult:
    """The verdict on one formula; a definition it makes is added to ``context``."""

    def result(verdict, reason, links=(), approx_=False):
        return FormulaResult(formula.index, formula.start, formula.end, formula.line,
                             formula.latex, formula.display, reading.printed, verdict, reason,
                             tuple(links), approx_, formula.sentence)

    context.at = formula.block
    if context.said_at != formula.index:  # once a formula, not again for each of its pieces
        context.said, context.said_at = wording.stance(formula.before, context.said), \
            formula.index
    if not reading.understood:
        return result(NOT_UNDERSTOOD, reading.not_understood)
    if reading.pieces:
        return _combine(result, [check_formula(formula, p, context, symbols, store)
                                 for p in reading.pieces])
    if not reading.relations:
        return result(NOT_CHECKABLE, say("check.expression"))
    if _SHAPE_PRODUCT.search(formula.latex) and all(
            o in symbols.dims for p in reading.parts if isinstance(p, sp.Basic)
            for o in p.free_symbols):
        return result(NOT_CHECKABLE, say("check.shape_product"))
    links = _split(reading) if len(reading.parts) == len(reading.relations) + 1 else []
    shaped = _shapes(links, context)
    if all(r in DECLARE for r in reading.relations):
        if shaped and len(links) == 1:
            return result(shaped[0].status, shaped[0].reason if shaped[0].status == "proved"
                          else _blame(shaped[0]), shaped)
        if reading.relations == ("~",):
            return result(NOT_CHECKABLE, laws.declare(*reading.parts, symbols))
        return result(NOT_CHECKABLE, say("check.declaration"))
    if premises.is_premise(formula, reading):  # 设 … Σ y_i = 1: a hypothesis of what follows
        return result(NOT_CHECKABLE, premises.record(context, formula, reading))
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
        return result(NOT_CHECKABLE, say("check.example_values"))
    made_by_me = None
    first_rel, first_lhs = links[0][1], links[0][2]
    if len(links) == 1 and first_rel in (EQUAL, "≠") and all(
            isinstance(p, sp.Symbol) and p.is_integer and not p.is_positive
            for p in reading.parts):  # "when i = j:", "when i ≠ j:" — the case of what follows
        context.case = (first_rel, *reading.parts[:2], formula.index + 1)
        return result(NOT_CHECKABLE, say("check.index_case", lhs=links[0][4], rel=first_rel,
                                         rhs=links[0][5]))
    head = head_of(first_lhs) if first_rel in (EQUAL, DEFINE) and 0 not in reading.unlowered \
        else None
    if head is not None and isinstance(head[0], sp.Symbol) and any(
            isinstance(o, sp.IndexedBase) and o.name == head[0].name
            for o in _objects(links[0][3])):
        return result(NOT_CHECKABLE, say("check.own_entries", lhs=links[0][4], rhs=links[0][5]))
    seq = sequences.shape(first_lhs, links[0][3]) \
        if first_rel in (EQUAL, DEFINE) and 0 not in reading.unlowered else None
    if seq is not None and _name(seq[1].base) not in context.recursions:
        return _sequence(result, seq, formula, reading, links, context, symbols, store)
    if head is not None and isinstance(head[0], sp.IndexedBase) and head[0] in _objects(
            links[0][3]) and first_rel in (EQUAL, DEFINE):
        if len(first_lhs.indices) == 1 and isinstance(first_lhs.indices[0], sp.Symbol):
            context.recursions[_name(head[0])] = (first_lhs, links[0][3], formula.line)
        return result(NOT_CHECKABLE, say("check.recursion", lhs=links[0][4]))
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
        return result(NOT_CHECKABLE, say("check.gives_values", lhs=links[0][4]))
    if head is not None and 1 in reading.unlowered:
        context.opaque[_name(head[0])] = links[0][4]
        return result(NOT_CHECKABLE, say("check.unwritable_definition", lhs=links[0][4],
                                         why=reading.unlowered[1]))
    if first_rel == EQUAL and isinstance(first_lhs, sp.Indexed) \
            and all(i.is_Integer for i in first_lhs.indices) and not _closed(links[0][3]) \
            and first_lhs.base not in _objects(links[0][3]) \
            and first_lhs not in context.entries_of(formula.section) \
            and _name(first_lhs.base) not in context.recursions \
            and context.defined(first_lhs.base, formula.section, formula.block) is None:
        # u_1 = x² + 2: this entry, defined by substitution wherever it occurs
        context.entries.append((first_lhs, links[0][3], formula.section))
        if len(links) == 1:
            return result(DEFINITION, say("check.defines", name=links[0][4]))
        return _rest(result, formula, reading, links[1:], context, symbols, store,
                     say("check.defines_then", name=links[0][4]))
    candidate = reading.defines if reading.defines is not None else \
        head is not None and not _is_variable(head[0], symbols, links[0][3])
    # the reader's candidates are a bare symbol, an entry or a function of symbols; a name it
    # took for a vector (L beside L_b) and a square σ² are as much so once lowered
    candidate = candidate or head is not None
    before = context.defined(head[0], formula.section, formula.block) if head else None
    recursion = context.recursions.get(_name(head[0])) if head else None
    if recursion is not None and first_rel in (EQUAL, DEFINE) and not _closed(links[0][3]):
        # a second formula for the sequence is no definition: a closed form, checked by
        # induction against the recursion
        def verify(tex, a, b, defs, hyps):
            return _verify(tex, a, b, defs, None, context, symbols, store, hyps)

        first = closedform.check(links[0], recursion, context, formula, verify)
        if len(links) == 1:
            return result(first.status, first.reason if first.status != "failed"
                          else _blame(first), (first,))
        return _rest(result, formula, reading, links[1:], context, symbols, store, "",
                     (first,))
    if head is not None and (first_rel == DEFINE or before is None
                             or (before.value and is_number(links[0][3]))
                             or _other_terms(before, links[0][3])) \
            and head[0] not in _objects(links[0][3]) and (candidate or first_rel == DEFINE
                                                          or is_number(links[0][3])):
        if _bare(first_lhs) and _closed(links[0][3]):  # a value for a worked example
            every = sequences.at_free_index(first_lhs, formula, context)
            context.give(first_lhs, links[0][3], formula.section, every=every is not None)
            if len(links) == 1:
                return result(NOT_CHECKABLE, _given_every(first_lhs, every, links[0])
                              if every else say("check.gives_value", lhs=links[0][4]))
            return _rest(result, formula, reading, links[1:], context, symbols, store,
                         _given_every(first_lhs, every, links[0], "_then") if every else
                         say("check.gives_value_then", lhs=links[0][4]))
        try:
            made_by_me = context.define(first_lhs, links[0][3], formula, formula.block,
                                        f"{links[0][4]} = {links[0][5]}")
        except DerivationError as exc:
            return result(NOT_CHECKABLE, engine_refusal(str(exc),
                                                        "check.engine_refuses_definition"))
        key = made_by_me.definition.key
        if first_rel == DEFINE:  # := says the new meaning replaces the old
            context.twice.pop(key, None)
        elif before is not None and not before.value and before.paragraph is None \
                and made_by_me.paragraph is None \
                and formula.section[:len(before.section)] != before.section \
                or before is not None and before.section == formula.section \
                and not before.value and before.paragraph is None \
                and made_by_me.paragraph is None:
            # a second meaning of one name: in one section, which one a later line uses is
            # not said, so neither is used; in a section beside the first, the second holds
            # there, and after it neither does
            lines = (*context.twice.get(key, ((before.line,), None))[0], formula.line)
            context.twice[key] = (lines, None if before.section == formula.section
                                  else formula.section)
        links = links[1:]
        if not links:
            kind = say("check.paragraph_value") if made_by_me.value else \
                say("check.defines", name=links_name(made_by_me))
            return result(DEFINITION if not made_by_me.value else NOT_CHECKABLE, kind)
    prefix = say("check.defines_then", name=links_name(made_by_me)) \
        if made_by_me is not None else ""
    return _rest(result, formula, reading, links, context, symbols, store, prefix)


def _sequence(result, seq, formula: Formula, reading: Reading, links, context: Context,
              symbols: NoteSymbols, store) -> FormulaResult:
    """A formula that gives a sequence's entry from entries of itself (sequences.py): a
    recursion recorded, a closed form checked at its start and recorded, another formula for
    a sequence given in closed form checked with it."""
    kind, entry, body, starts = seq
    name, lhs_tex = _name(entry.base), links[0][4]
    if name in context.closed_forms:  # a second formula for it: a claim, checked with the first
        return _rest(result, formula, reading, links, context, symbols, store, "")
    if kind == sequences.RECURSION:
        context.recursions[name] = (entry, body, formula.line)
        context.given_at[name] = (lhs_tex, f"line {formula.line}: {lhs_tex} = {links[0][5]}")
        return result(NOT_CHECKABLE, say("check.recursion", lhs=lhs_tex))

    def verify(tex, a, b, defs, hyps):
        return _verify(tex, a, b, defs, None, context, symbols, store, hyps)

    checked = sequences.start_links(1, entry, body, starts, context, formula, verify, to_latex)
    status, reason, defines = sequences.verdict(checked, lhs_tex, entry, starts, to_latex)
    if defines:
        context.closed_forms[name] = (entry, body, formula.line, starts, lhs_tex,
                                      f"line {formula.line}: {lhs_tex} = {links[0][5]}",
                                      links[0][5])
    if status == "failed":
        return result("failed", reason, [k for k in checked if k.status == "failed"][:1])
    if status == NOT_CHECKABLE:
        return result(NOT_CHECKABLE, reason)
    if len(links) > 1:
        return _rest(result, formula, reading, links[1:], context, symbols, store,
                     say("sequence.then", what=reason))
    return result(DEFINITION, reason)


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
        if rel in (EQUAL, DEFINE, APPROX):  # a side that multiplies matrices which do not fit
            for side, tex in ((lhs, lhs_tex), (rhs, rhs_tex)):
                bad = undefined_product(side, context.shapes)
                if bad:
                    out.append(Link(index, rel, lhs_tex, rhs_tex, "failed",
                                    say("check.shape_multiplies", tex=tex, bad=bad),
                                    {"shape": bad, "stated": tex}))
                    break
            else:
                apart = different_shapes(lhs, rhs, context.shapes) if rel == EQUAL else None
                if apart:
                    out.append(Link(index, rel, lhs_tex, rhs_tex, "failed",
                                    say("check.shape_sides", apart=apart),
                                    {"shape": apart, "stated": rhs_tex}))
        if rel != "∈" or isinstance(lhs, sp.Symbol | sp.IndexedBase | sp.MatrixSymbol):
            continue
        judged = judge_shape(lhs, rhs, context.shapes)
        if judged is None:
            continue
        ok, shape = judged
        out.append(Link(index, rel, lhs_tex, rhs_tex, "proved" if ok else "failed",
                        say("check.shape_is", lhs=lhs_tex, shape=shape),
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
    reason = join(*(p.reason for p in parts))
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


def _given_every(entry, every, link, then: str = "") -> str:
    """The reading of a value stated at a free index, shown back: every entry takes it."""
    letter, line = every
    base = entry.base
    return say("check.gives_every_value" + then, lhs=link[4], value=link[5], t=letter, line=line,
               name=to_latex(base), first=to_latex(base[1]), second=to_latex(base[2]))


def links_name(made: Made) -> str:
    return made.definition.name


def _other_terms(before: Made, body) -> bool:
    """A new formula for a defined name in other terms (L = Σ_b L_b / B after L = −Σ y log p)
    defines it anew; in the same terms (σ² = Σ (x − μ)²/(d − 1) after /d) it is a claim
    about it, checked against the first."""
    old = {_name(o) for o in _objects(before.definition.body)}
    old |= {_name(p) for p in before.definition.params}
    return bool({_name(o) for o in _objects(body)} - old)


def _is_variable(symbol, symbols: NoteSymbols, body) -> bool:
    """A symbol the table knows as a variable is not defined by an equation with symbols on
    the right (``z = Wx + b`` about a known z is a claim), but may take a value for an example
    (``z = [1, 2]``)."""
    return _name(symbol) in {_name(k) for k in symbols.known} and not is_number(body)

