"""One link of a note's formula checked: its values and definitions put in, what keeps it from
being checked said, and the claim the engine verifies (the formula-level logic that calls this
is :mod:`derivations.notes.checks`)."""

from __future__ import annotations

import dataclasses
import re

import sympy as sp

from derivations.notes import approx, laws, opaque, premises, stated
from derivations.notes.claims import (
    check_link,
)
from derivations.notes.context import Context, Made
from derivations.notes.markdown import Formula
from derivations.notes.model import (
    NOT_CHECKABLE,
    FormulaResult,
    Link,
    worst,
)
from derivations.notes.reading import APPROX, DECLARE, DEFINE, EQUAL, ORDER, NoteSymbols, Reading
from derivations.notes.reasons import join, say
from derivations.notes.terms import (
    _bare,
    _closed,
    _name,
    _objects,
    _outside_entries,
    _unfold,
    _with_values,
    put,
    used_definitions,
)

CHECKED = ("proved", "numeric", "timed out", "failed")


def _unknown(reading: Reading, symbols: NoteSymbols, visible: list[Made],
             valued: set[str] = frozenset()) -> list[str]:
    known = {_name(o) for o in symbols.known} | {_name(d) for d in symbols.dims} | set(valued)
    known |= {_name(i) for i in symbols.indices} | {m.definition.key for m in visible}
    hidden = {_name(o) for p in reading.parts for o in opaque.atoms_of(p)}
    hidden |= set(reading.bound)  # f(x) = …: x is the variable of f
    return sorted({_name(o) for p in reading.parts for o in _objects(p)} - known - hidden)


def for_all(reading: Reading, unknown: list[str]) -> list[str]:
    """The letters of an equation read as its variables, for all real values, or [] when the
    letters the note does not introduce are not all such: one equation (=), and each of them a
    plain real scalar written on both of its sides (σ(−x) = σ(x) − 1, (a − b)² = a² − 2ab + b²).
    A letter on one side only (x + y = 1, E[m x / p] = x) is a condition or a value, not a
    variable: the formula is then still refused."""
    if not unknown or reading.relations != (EQUAL,) or reading.unlowered:
        return []
    sides = [{o for o in _objects(p)} for p in reading.parts]
    names = [{_name(o) for o in side} for side in sides]
    plain = {_name(o) for side in sides for o in side
             if isinstance(o, sp.Symbol) and o.is_real and not o.is_integer}
    if all(n in plain and n in names[0] and n in names[1] for n in unknown):
        return list(unknown)
    return []


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
        # the letters of a recursion's terms (g in m_t = 0.9 m_{t−1} + 0.1 g) are the note's:
        # an entry computed from it (m_2 = 0.19 g) is in them
        stepped = {_name(o) for entry, body, _ in context.recursions.values()
                   for o in _objects(body)}
        # and those of a definition the formula uses (T and η_max in η_T = η_max after
        # η_t = η_min + ½(η_max − η_min)(1 + cos(πt/T))): the definition introduced them
        parts = tuple(p for p in reading.parts if isinstance(p, sp.Basic))
        stepped |= {_name(o) for m in used_definitions(parts, visible)
                    for o in _objects(m.definition.body)}
        unknown = _unknown(reading, symbols, visible, context.valued(formula.section) | stepped)
        every = for_all(reading, unknown)
        if unknown and not every:
            return result(NOT_CHECKABLE, say("link.unknown", names=", ".join(unknown)))
        if every:  # an identity in letters of its own: for all real values of them
            said = say("link.for_all", names=", ".join(every))
            prefix = join(prefix, said, sep=False) if prefix else said
    checked, assumed_all = list(before), []
    for index, rel, lhs, rhs, lhs_tex, rhs_tex in links:
        if rel in DECLARE or rel not in (EQUAL, DEFINE, APPROX, *ORDER):
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE,
                                say("link.relation", rel=rel)))
            continue
        why = reading.unlowered.get(index - 1) or reading.unlowered.get(index)
        if why:
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE,
                                say("link.unlowered", why=why)))
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
        # an entry of a recursion at a whole number (m_2 = 0.19 g after m_t = 0.9 m_{t−1} +
        # 0.1 g) is computed from it as a numeric one is, its right side in symbols or not
        stepped = any(_name(a.base) in context.recursions and context.unroll(a) != a
                      for x in (lhs, rhs) if isinstance(x, sp.Basic)
                      for a in x.atoms(sp.Indexed))
        worked = bool(given) and (_closed(lhs) or _closed(rhs) or stepped)
        written = {_name(o) for o in _objects(lhs) | _objects(rhs)}
        as_written = lhs, rhs
        if worked:  # a worked example's step: its values in
            lhs, rhs = (put(x, given, context) for x in (lhs, rhs))
        said = opaque.apart(lhs, rhs) or (_value_or_instance(
            lhs, rhs, lhs_tex, visible_now, context, formula.section, symbols.known, written)
            if rel in (EQUAL, DEFINE) else "")
        if said:
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE, said))
            continue
        names = {_name(o) for o in _objects(lhs) | _objects(rhs)}
        names |= {_name(o) + "[]" for o in _objects(lhs) | _objects(rhs)
                  if isinstance(o, sp.IndexedBase)}
        unread = sorted({context.opaque[n] for n in names if n in context.opaque})
        if unread:
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE,
                                say("link.opaque", names=", ".join(unread))))
            continue
        # an entry of a sequence given in closed form at another index (η_{t+1}): the closed
        # form at that index, a substitution as any definition's
        sequences_used = [context.sequence(_name(a.base)) for x in (lhs, rhs)
                          if isinstance(x, sp.Basic) and not worked for a in x.atoms(sp.Indexed)
                          if context.unroll(a, whole=True) != a]
        if sequences_used:
            lhs, rhs = (context.unroll(x, whole=True) for x in (lhs, rhs))
        defs = used_definitions((lhs, rhs), visible_now)
        ambiguous = _ambiguous(lhs, rhs, defs, context, formula.section)
        if ambiguous:
            checked.append(Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE, ambiguous))
            continue
        tex = (index, EQUAL if rel == DEFINE else rel, lhs_tex, rhs_tex)
        assumed = premises.applying(context, formula.section, lhs, rhs, defs)
        link = _verify(tex, lhs, rhs, defs, given if worked else None, context, symbols, store,
                       (*hypotheses, *(h for h, _ in assumed)))
        assumed_all += [t for _, t in assumed if t not in assumed_all]
        if assumed:
            link = dataclasses.replace(link, reason=join(say("link.assuming", premises="; ".join(
                t for _, t in assumed)), link.reason, sep=False) if link.reason else say(
                "link.assuming", premises="; ".join(t for _, t in assumed)))
        elif link.status == "failed" and not worked and defs:  # a link against definitions
            link = _needs_premise(link, tex, lhs, rhs, defs, context, symbols, store, hypotheses)
        if worked and link.status == "failed":  # an example's step against a sequence: name it
            sequences_used = [context.sequence(_name(a.base)) for x in as_written
                              if isinstance(x, sp.Basic) for a in x.atoms(sp.Indexed)
                              if context.unroll(a) != a]
        if any(sequences_used):
            link = dataclasses.replace(link, definitions={**link.definitions, **dict(
                u for u in sequences_used if u)})
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
                                           claim="", reason=say(
                    "link.negligible", names=", ".join(sorted(map(_name, tiny))), shown=shown))
        if supposed and link.status == "failed":
            # the value the definitions give: m̂_3 with m̂_t = m_t/(1 − β^t) unfolded
            with_values = _with_values(defs, given) if worked else defs
            link = stated.judge(link, as_written, tuple(
                put(_unfold(x, with_values), given, context) for x in (lhs, rhs))
                if worked else None, given, context, formula, lhs_tex, rhs_tex, defs)
        checked.append(link)
    statuses = [k.status for k in checked if k.status in CHECKED]
    if not statuses:
        reason = join(*dict.fromkeys(k.reason for k in checked))
        return result(NOT_CHECKABLE, reason, checked)
    verdict = worst(statuses)
    failed = [k for k in checked if k.status == "failed"]
    unchecked = [k for k in checked if k.status not in CHECKED]
    if failed:
        reason = _blame(failed[0])
    elif unchecked:  # a formula is proved only if all of it is: say what was and was not
        verdict = NOT_CHECKABLE
        reason = join(*[say("link.link_status", n=k.index, status=say(f"status.{k.status}"))
                        for k in checked if k.status in CHECKED],
                      *[say("link.link_unchecked", n=k.index, why=k.reason) for k in unchecked])
    else:
        reason = say("link.links_many" if len(statuses) > 1 else "link.links", n=len(statuses),
                     status=say(f"status.{verdict}"))
    if assumed_all:  # a premise used is said beside the verdict, not only in its link
        reason = join(say("link.assuming", premises="; ".join(assumed_all)), reason, sep=False)
    reason = join(prefix, reason, sep=False) if prefix else reason
    approx_ = any(k.relation == APPROX or k.reason.startswith("= to the digits")
                  for k in checked if k.status == "proved")
    return result(verdict, reason, checked, approx_)


def _needs_premise(link: Link, tex, lhs, rhs, defs: list[Made], context: Context,
                   symbols: NoteSymbols, store, hypotheses) -> Link:
    """A failed link that holds once the entries of one of its vectors sum to 1 (∂L/∂z_i =
    p_i − y_i of L = −Σ y_i log p_i, y one-hot): not blamed, its reason names the premise."""
    for hyp, premise in premises.sums_to_one(lhs, rhs, defs):
        again = _verify(tex, lhs, rhs, defs, None, context, symbols, store, (*hypotheses, hyp))
        if again.status in ("proved", "numeric"):
            return dataclasses.replace(link, status=NOT_CHECKABLE, counterexample=None,
                                       claim="", reason=say("link.needs_premise",
                                                            premise=premise))
    return link


def _ambiguous(lhs, rhs, defs: list[Made], context: Context, section: tuple[int, ...]) -> str:
    """Why the definitions a link would be checked with are not used, or "": a name the note
    defines twice (in one section, by =), or one it writes both as a constant and with an
    index (g beside g_t) where one of the two is defined."""
    for m in defs:
        key = m.definition.key
        lines, scope = context.twice.get(key, ((), None))
        if lines and (scope is None or section[:len(scope)] != scope):
            lines = ", ".join(str(n) for n in lines)
            return say("link.twice", name=m.definition.name, lines=lines)
    exprs = [x for x in (lhs, rhs, *(m.definition.body for m in defs)) if isinstance(x, sp.Basic)]
    plain = {s.name for e in exprs for s in _outside_entries(e)}
    indexed = {a.base.name for e in exprs for a in e.atoms(sp.Indexed)}
    for m in defs:
        key = m.definition.key
        kinds = {"constant" for n in plain if n == key} | {"indexed" for n in indexed if n == key}
        kinds.add("indexed" if isinstance(m.definition.symbol, sp.IndexedBase) else
                  "constant" if isinstance(m.definition.symbol, sp.Symbol) else "other")
        if {"constant", "indexed"} <= kinds:
            return say("link.constant_and_indexed", name=key)
    return ""


def _verify(tex, lhs, rhs, defs: list[Made], given: dict | None, context: Context,
            symbols: NoteSymbols, store, hypotheses=()) -> Link:
    """One link checked: an example's step (``given`` its values) recomputed as numbers when
    they are all there, else as a claim with the definitions it uses."""
    index, rel, lhs_tex, rhs_tex = tex
    if given is not None:  # and in the definitions it unfolds (ω_i = 10000^{-2i/d}, d = 512)
        defs = _with_values(defs, given)
        a, b = (put(_unfold(x, defs), given, context) for x in (lhs, rhs))
        # v̂_1 through v̂_t = v_t/(1 − β₂^{t−1}): the definition divides by zero at this entry,
        # so the value the line states for it is no value of it
        for side, side_tex, written in ((a, lhs_tex, lhs), (b, rhs_tex, rhs)):
            if _undefined(side) and not _undefined(written):
                return Link(index, rel, lhs_tex, rhs_tex, "failed",
                            say("link.undefined_here", tex=side_tex), None,
                            {m.definition.name: m.where for m in defs})
        if _closed(a) and _closed(b):  # recomputed: numbers against numbers
            return check_link(index, rel, a, b, lhs_tex, rhs_tex, [], symbols, store,
                              {m.definition.name: m.where for m in defs}, hypotheses)
    # a side's symbols are also those of the definitions it unfolds, as written: η_T of
    # η_t = η_min + ½(η_max − η_min)(1 + cos(πt/T)) is η_min once cos(π) is evaluated, yet
    # η_T = η_max is about the schedule's own symbols, not a relation the line leaves unsaid
    bodies = [{_name(o) for m in used_definitions((x,), defs)
               for o in _objects(m.definition.body)} for x in (lhs, rhs)]
    apart = _apart(_unfold(lhs, defs), _unfold(rhs, defs), laws.parameters(symbols),
                   bodies) if rel == EQUAL else ""
    if apart:
        return Link(index, rel, lhs_tex, rhs_tex, NOT_CHECKABLE, apart)
    return check_link(index, rel, lhs, rhs, lhs_tex, rhs_tex, defs, symbols, store,
                      hypotheses=hypotheses)


def _undefined(expr) -> bool:
    """Whether an expression is, or holds, a division by zero or another undefined value."""
    return isinstance(expr, sp.Basic) and (expr in (sp.zoo, sp.nan, sp.oo, -sp.oo)
                                           or expr.has(sp.zoo, sp.nan))


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


def _apart(lhs, rhs, related=None, bodies=(frozenset(), frozenset())) -> str:
    """Why a link whose sides are each in symbols the other lacks is not checked: it rests on a
    relation between them that the formula does not state (−Σ y_i log p_i = −log p_c holds
    for a one-hot y with y_c = 1).  A side that only drops or adds terms is checked."""
    names = [{_name(o) for o in _objects(x)} | set(more) for x, more in zip((lhs, rhs), bodies,
                                                                         strict=True)]
    for side in names:  # a variable with a law brings its parameters (m ~ Bernoulli(1 − p))
        side |= {p for n in list(side) for p in (related or {}).get(n, ())}
    only = [sorted(names[0] - names[1]), sorted(names[1] - names[0])]
    if only[0] and only[1]:
        return say("link.different_symbols", left=", ".join(only[0]), right=", ".join(only[1]))
    return ""


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
    recurs = isinstance(lhs, sp.Indexed) and (_name(lhs.base) in context.recursions
                                              or _name(lhs.base) in context.closed_forms) \
        and context.unroll(lhs) != lhs
    if made is None and _bare(lhs) and not recurs:
        context.give(lhs, rhs, section)
        return say("check.gives_value", lhs=lhs_tex)
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
        return say("link.worked_step", names=", ".join(sorted(left)))
    return ""


def _used_from(name: str, where: str) -> str:
    """A definition a check unfolded, and where the note made it ("line N: LaTeX")."""
    made = re.fullmatch(r"line (\d+): (.*)", where, flags=re.DOTALL)
    if made is None:
        return say("link.used_from", name=name, where=where)
    return say("link.used_from_line", name=name, line=made.group(1), tex=made.group(2))


def _blame(link: Link) -> str:
    """The reason of a failed link: where the two sides differ, and which definitions the
    check unfolded — the link contradicts them, and one of the two is wrong."""
    parts = [say("link.fails", n=link.index, lhs=link.lhs, rel=link.relation, rhs=link.rhs)]
    if link.reason and link.reason != "the two sides differ":
        parts.append(say("link.fails_why", why=link.reason))
    if link.definitions:
        used = join(*(_used_from(name, where) for name, where in link.definitions.items()))
        parts.append(say("link.fails_with_many" if len(link.definitions) > 1
                         else "link.fails_with", used=used))
    return join(*parts, sep=False)
