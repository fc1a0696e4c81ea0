"""A formula that gives a sequence's entry in terms of entries of the same sequence: a
*recursion* (``v_t = β v_{t−1} + g_t``, ``η_{t+1} = 0.5 η_t``: an entry at an index that moves
with t) or a *closed form in its own start value* (``η_t = η_0 · 0.5^t``, ``a_n = a_1 r^{n−1}``,
``x_k = x_0 + k h``: entries at whole numbers only).

A recursion is recorded with its left side at t (``η_{t+1} = 0.5 η_t`` as ``η_t = 0.5 η_{t−1}``)
and its terms are not checked; an example's entries are computed from it.  A closed form is a
definition: it must give its start value back at the start index (``η_0 = η_0 · 0.5^0``), which
is checked as a claim, and then it gives every other entry — ``η_3`` stated later is checked
against ``η_0 · 0.5^3`` once ``η_0`` has a value.  A closed form whose start fails defines
nothing: which of the two the note means is not said.
"""

from __future__ import annotations

import re

import sympy as sp

from derivations.notes.model import NOT_CHECKABLE, Link
from derivations.notes.reading import DEFINE, EQUAL
from derivations.notes.reasons import say
from derivations.notes.terms import _name, used_definitions

RECURSION, CLOSED = "recursion", "closed"


def _moving(lhs) -> tuple[sp.Symbol, int] | None:
    """(t, c) for an entry x_{t+c} of one index, t an integer symbol and c a whole number."""
    if not isinstance(lhs, sp.Indexed) or len(lhs.indices) != 1:
        return None
    index = lhs.indices[0]
    free = [s for s in index.free_symbols if s.is_integer]
    if len(free) != 1 or len(index.free_symbols) != 1:
        return None
    t = free[0]
    shift = sp.expand(index - t)
    return (t, int(shift)) if shift.is_Integer else None


def shape(lhs, body) -> tuple[str, sp.Indexed, sp.Basic, tuple[int, ...]] | None:
    """(RECURSION or CLOSED, the entry at t, the body at t, the start indices) when ``lhs =
    body`` gives one entry of a sequence from entries of itself; None otherwise (another
    formula, or one whose sequence is also used whole)."""
    moving = _moving(lhs)
    if moving is None or not isinstance(body, sp.Basic):
        return None
    base, (t, shift) = lhs.base, moving
    entries = [a for a in body.atoms(sp.Indexed) if a.base == base]
    if not entries or any(len(a.indices) != 1 for a in entries):
        return None
    if body.xreplace({a: sp.Dummy() for a in entries}).has(base):
        return None  # the sequence used as a whole beside its entries
    at_t = body.xreplace({t: t - shift}) if shift else body
    if all(a.indices[0].is_Integer for a in entries):
        if shift:
            return None  # η_{t+1} = η_0 ·…: a closed form written at t + 1 is not guessed at
        return CLOSED, base[t], at_t, tuple(sorted({int(a.indices[0]) for a in entries}))
    return RECURSION, base[t], at_t, ()


def start_links(index: int, entry, body, starts, context, formula, verify, tex) -> list[Link]:
    """The closed form at each start index k checked as a claim ``x_k = body(k)``."""
    t = entry.indices[0]
    visible = context.visible(formula.section, formula.block)
    out = []
    for k in starts:
        start, at_k = entry.base[k], body.xreplace({t: sp.Integer(k)})
        defs = [m for m in used_definitions((start, at_k), visible)
                if m.definition.key != _name(entry.base)]
        out.append(verify((index, EQUAL, tex(start), tex(at_k)), start, at_k, defs, ()))
    return out


def verdict(links: list[Link], lhs_tex: str, entry, starts, tex) -> tuple[str, str, bool]:
    """(status, reason, whether the closed form defines its sequence) from its start links."""
    t = entry.indices[0]
    at = ", ".join(f"{t} = {k}" for k in starts)
    names = ", ".join(tex(entry.base[k]) for k in starts)
    bad = next((k for k in links if k.status == "failed"), None)
    if bad is not None:
        return "failed", say("sequence.start_fails", lhs=lhs_tex, at=at, start=bad.lhs,
                             gives=bad.rhs), False
    unchecked = next((k for k in links if k.status == NOT_CHECKABLE), None)
    if unchecked is not None:
        return NOT_CHECKABLE, say("sequence.start_unchecked", lhs=lhs_tex, at=at, start=names,
                                  why=unchecked.reason), False
    status = "numeric" if any(k.status == "numeric" for k in links) else (
        "timed out" if any(k.status == "timed out" for k in links) else "proved")
    if status == "timed out":
        return NOT_CHECKABLE, say("sequence.start_unchecked", lhs=lhs_tex, at=at, start=names,
                                  why=say("status.timed out")), False
    return status, say("sequence.closed", lhs=lhs_tex, at=at, start=names,
                       status=say(f"status.{status}")), True


def letters_of(readings) -> dict[tuple[str, str], dict[int, int]]:
    """(name, letter) -> {formula index: line} of the formulas that write an entry of a sequence
    at a letter alone (``g_t`` in ``m_t = β m_{t−1} + (1 − β) g_t``); ``readings``: (formula,
    reading) pairs."""
    out: dict[tuple[str, str], dict[int, int]] = {}

    def walk(formula, reading) -> None:
        for piece in reading.pieces:
            walk(formula, piece)
        for part in reading.parts:
            if not isinstance(part, sp.Basic):
                continue
            for a in part.atoms(sp.Indexed):
                if len(a.indices) == 1 and isinstance(a.indices[0], sp.Symbol) \
                        and a.indices[0].is_integer:
                    key = (_name(a.base), a.indices[0].name)
                    out.setdefault(key, {})[formula.index] = formula.line

    for formula, reading in readings:
        if reading.understood:
            walk(formula, reading)
    return out


def sections_of(readings) -> dict[str, list[tuple[int, ...]]]:
    """name -> the sections whose formulas give that sequence by a recursion or a closed form
    (η_t = η_0 γ^t): in such a section a definition of the name from a section beside it does
    not hold, from the section's first line on (``η_0 = 0.1`` before the closed form is its
    start value, not the cosine schedule of the section before); ``readings``: (formula,
    reading) pairs."""
    out: dict[str, list[tuple[int, ...]]] = {}

    def walk(formula, reading) -> None:
        for piece in reading.pieces:
            walk(formula, piece)
        if not reading.relations or reading.relations[0] not in (EQUAL, DEFINE) \
                or len(reading.parts) < 2 or reading.unlowered:
            return
        found = shape(reading.parts[0], reading.parts[1])
        if found is not None:
            out.setdefault(_name(found[1].base), []).append(formula.section)

    for formula, reading in readings:
        if reading.understood:
            walk(formula, reading)
    return out


def at_free_index(entry, formula, context) -> tuple[str, int] | None:
    """(the letter, the line that writes the sequence at it) when a value stated for ``entry``
    is every entry's: ``entry`` is ``g_t``, t an index letter with no value where it is said
    (none given before in its section, none written ``t = 1`` in its paragraph, in a formula
    or in words), and another formula of the note writes ``g`` at t.  None otherwise: the value
    is the entry's at that t only (``t = 1`` 时 ``g_t = 1``), and nothing is generalised."""
    if not isinstance(entry, sp.Indexed) or len(entry.indices) != 1:
        return None
    t = entry.indices[0]
    if not (isinstance(t, sp.Symbol) and t.is_integer):
        return None
    if any(_name(o) == t.name for o in context.value_of(formula.section)):
        return None
    bound = re.compile(r"(?<![A-Za-z_\\^])" + re.escape(t.name)
                       + r"\s*(?:=|为|取|是|等于|equals|is)\s*-?\{?\d")
    if bound.search(formula.paragraph):
        return None
    elsewhere = {k: line for k, line in context.indexed_at.get(
        (_name(entry.base), t.name), {}).items() if k != formula.index}
    return (t.name, elsewhere[min(elsewhere)]) if elsewhere else None
