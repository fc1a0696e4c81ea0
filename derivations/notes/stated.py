"""A value stated for a name the note defines (``η_3 = 0.2`` beside ``η_t = η_0 · 0.5^t``),
which the definitions contradict: blamed when the words before it conclude it ("所以",
"hence"), not when they suppose it ("设", "if"), and not when they say neither — the reason
then says so (READING.md, "Stated values: supposed or concluded")."""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

import mpmath
import sympy as sp

from derivations.notes import approx, wording
from derivations.notes.context import Context
from derivations.notes.latex.printer import to_latex
from derivations.notes.model import NOT_CHECKABLE, Link
from derivations.notes.reasons import say
from derivations.notes.terms import _name, _unfold


def _shown(value) -> str:
    """A number as a reason prints it: a decimal when it has one, else a fraction, else its
    first ten digits."""
    try:
        value = sp.nsimplify(value) if not isinstance(value, sp.Rational) else value
    except (TypeError, ValueError, sp.SympifyError):
        pass
    if isinstance(value, sp.Rational):
        q = Fraction(int(value.p), int(value.q))
        den, twos, fives = q.denominator, 0, 0
        while den % 2 == 0:
            den, twos = den // 2, twos + 1
        while den % 5 == 0:
            den, fives = den // 5, fives + 1
        if den == 1:
            digits = max(twos, fives)
            text = f"{float(q):.{digits}f}" if digits <= 12 else str(value)
            return text if q == Fraction(text) else to_latex(value)
        return to_latex(value)
    try:
        return mpmath.nstr(approx.exact_value(value), 10) + "…"
    except (approx.NotANumber, TypeError, ValueError):
        return to_latex(value)


def written_at(context: Context, entry) -> str | None:
    """The closed form of ``entry``'s sequence as the note writes it, at the entry's index
    (``\\eta_0 \\cdot 0.5^{t}`` at 3: ``\\eta_0 \\cdot 0.5^{3}``); None for a recursion, or an
    index of more than one letter."""
    form = context.closed_forms.get(_name(entry.base)) if isinstance(entry, sp.Indexed) else None
    if form is None or not entry.indices[0].is_Integer:
        return None
    t = form[0].indices[0].name
    if len(t) != 1:
        return None
    at = str(entry.indices[0])
    return re.sub(r"(?<![\\A-Za-z])" + t + r"(?![A-Za-z])",
                  at if int(at) >= 0 else "(" + at + ")", form[6])


def judge(link: Link, written, worked, given: dict, context: Context, formula,
          lhs_tex: str, rhs_tex: str, defs=()) -> Link:
    """The failed ``link`` of a stated value ``written`` = (lhs, rhs) as the note writes them
    (``worked``: the sides with the example's values and definitions in), judged by what the
    words say; ``defs``: the definitions the link uses, for the values they were given."""
    lhs, rhs = written
    if worked is not None and isinstance(lhs, sp.Indexed):
        computed = written_at(context, lhs)
        try:
            value = _shown(sp.sympify(worked[0], strict=True).doit())
        except (TypeError, ValueError, sp.SympifyError):
            value = None
    else:
        computed, value = None, None
    sequence = _name(lhs.base) if isinstance(lhs, sp.Indexed) else None
    against = context.supposed_against.get(sequence) if sequence else None

    def unblamed(reason) -> Link:
        return dataclasses.replace(link, status=NOT_CHECKABLE, counterexample=None, claim="",
                                   reason=reason)

    if context.said == wording.SUPPOSED:
        if sequence in context.closed_forms:
            context.supposed_against[sequence] = (f"{lhs_tex} = {rhs_tex}", context.at)
        context.give(lhs, rhs, formula.section)
        return unblamed(say("link.supposed", lhs=lhs_tex, rhs=rhs_tex))
    if context.said != wording.CONCLUDED:
        context.give(lhs, rhs, formula.section)
        return unblamed(say("link.unsaid", lhs=lhs_tex, rhs=rhs_tex, value=value)
                        if value is not None else say("link.unsaid_other", lhs=lhs_tex,
                                                      rhs=rhs_tex))
    if against is not None and against[1] == context.at:
        return unblamed(say("link.after_supposition", lhs=lhs_tex, rhs=rhs_tex,
                            value=value if value is not None else "?", supposed=against[0]))
    if value is None:  # concluded, with no number to show: the engine's own reason stands
        return link
    # the values the definitions were computed from: those its entries and symbols take
    written = context.unroll(_unfold(lhs, list(defs)))
    for _ in range(8):
        written, before = context.unroll(written), written
        if written == before:
            break

    def uses(o) -> bool:  # g_t given for every t is used by g_1, g_2, …
        if written.has(o):
            return True
        return isinstance(o, sp.Indexed) and len(o.indices) == 1 \
            and (_name(o.base), str(o.indices[0])) in context.every \
            and any(a.base == o.base for a in written.atoms(sp.Indexed))

    used = sorted((o for o in given if uses(o)), key=str)
    values = ", ".join(f"{to_latex(o)} = {_shown(given[o])}" for o in used)
    equation = " = ".join((lhs_tex, *((computed,) if computed else ()), value))
    reason = say("link.concluded_with", values=values, equation=equation, rhs=rhs_tex) \
        if values else say("link.concluded", equation=equation, rhs=rhs_tex)
    where = context.sequence(sequence) if sequence else None
    definitions = {**link.definitions, **({where[0]: where[1]} if where else {})}
    return dataclasses.replace(link, reason=reason, definitions=definitions)
