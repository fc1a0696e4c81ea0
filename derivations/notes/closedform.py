"""A closed form for a sequence the note defines by a recursion (``v_t = β v_{t−1} + (1 − β)
g_t`` with ``v_0`` given; later ``v_t = (1 − β^t) g²``), checked by induction: the closed form
at 1 is one step of the recursion from the start value the note gives, and one step applied to
the closed form at t − 1 gives the closed form at t, for every t ≥ 2 (a closed form is meant
for t ≥ 1; what it gives at 0 is not asked).  Both are claims of the engine, checked by its two
routes like any link; together they prove the closed form, and either failing refutes it (a
sequence that meets the recursion meets each step).

Where the closed form writes a constant (``g``) for what the recursion writes with the index
(``g_t``), it is the closed form for that constant input, and the step is checked with
``g_t = g`` for every t, which the verdict says."""

from __future__ import annotations

import dataclasses

import sympy as sp

from derivations.notes.context import Context
from derivations.notes.model import Link
from derivations.notes.reading import EQUAL
from derivations.notes.reasons import join, say
from derivations.notes.terms import _free, _name, _objects, used_definitions
from derivations.notes.verdicts import NOT_CHECKABLE, worst


def check(link, recursion, context: Context, formula, verify) -> Link:
    """The first link of a formula that gives ``recursion``'s sequence a second formula.
    ``link``: (index, relation, lhs, rhs, lhs_tex, rhs_tex); ``verify``: the note level's
    link check, ``verify(tex, lhs, rhs, defs, hypotheses) -> Link``."""
    index, rel, lhs, closed, lhs_tex, rhs_tex = link
    rec_lhs, body, line = recursion

    def said(status, reason, counterexample=None, claim="", definitions=None) -> Link:
        return Link(index, rel, lhs_tex, rhs_tex, status, reason, counterexample,
                    definitions or {}, claim)

    base = rec_lhs.base
    if not (isinstance(lhs, sp.Indexed) and len(lhs.indices) == 1
            and isinstance(lhs.indices[0], sp.Symbol)):
        return said(NOT_CHECKABLE, say("closedform.second_formula", lhs=lhs_tex, line=line))
    k, n = lhs.indices[0], rec_lhs.indices[0]
    start = next((v for o, v in context.value_of(formula.section).items()
                  if isinstance(o, sp.Indexed) and _name(o.base) == _name(base)
                  and o.indices == (0,)), None)
    if start is None:
        return said(NOT_CHECKABLE, say("closedform.no_start", lhs=lhs_tex, line=line,
                                       start=f"{_name(base)}_0"))
    step_body = body.xreplace({n: k})
    # the closed form writes g where the recursion writes g_t: the constant input g_t = g
    inputs = {a.base for a in step_body.atoms(sp.Indexed) if a.base != base}
    plain = _free(closed)  # the closed form's symbols outside its entries
    constant = {b for b in inputs if any(s.name == _name(b) for s in plain)}
    if any(a.base in constant for a in closed.atoms(sp.Indexed)):
        names = ", ".join(sorted(map(_name, constant)))
        return said(NOT_CHECKABLE, say("closedform.both", names=names))
    as_constant = {a: next(s for s in plain if s.name == _name(a.base))
                   for a in step_body.atoms(sp.Indexed) if a.base in constant}
    step_body = step_body.xreplace(as_constant)
    # η_t = t η_max / 5 against η_t = η_{t−1} + δ: it holds only if δ = η_max / 5, which the
    # note does not state — a relation not checked, as a link between different symbols is not
    own = {_name(base), _name(k), _name(n)}
    names = [{_name(o) for o in _objects(x)} - own for x in (closed, step_body)]
    if names[0] - names[1] and names[1] - names[0]:
        return said(NOT_CHECKABLE, say("closedform.apart", line=line,
                                       left=", ".join(sorted(names[0] - names[1])),
                                       right=", ".join(sorted(names[1] - names[0]))))

    def at(x):
        return closed.xreplace({k: x})

    earlier = [a for a in step_body.atoms(sp.Indexed) if a.base == base]
    if any(a.indices[0] != k - 1 for a in earlier):
        return said(NOT_CHECKABLE, say("closedform.far", line=line))
    step = step_body.xreplace({a: at(a.indices[0]) for a in earlier})
    visible = context.visible(formula.section, formula.block)
    first = step_body.xreplace({k: sp.Integer(1)}).xreplace(
        {a.xreplace({k: sp.Integer(1)}): start for a in earlier})
    start_tex, step_tex = f"{_name(base)}_1", f"the recursion at line {line}"
    parts = []
    for what, a, b, hyps in (("at 1", at(sp.Integer(1)), first, ()),
                             ("one step", at(k), step, (sp.Ge(k, 2),))):
        defs = [m for m in used_definitions((a, b), visible) if m.definition.key != _name(base)]
        parts.append((what, verify((index, EQUAL, lhs_tex, f"{start_tex} ({what})"
                                    if what == "at 1" else step_tex), a, b, defs, hyps)))
    status = worst(p.status for _, p in parts) \
        if all(p.status != NOT_CHECKABLE for _, p in parts) else NOT_CHECKABLE
    same = ", ".join(f"{_name(b)}_{k} = {_name(b)}" for b in sorted(constant, key=str))
    taken = say("closedform.constant", same=same, k=k) if constant else ""
    how = say("closedform.how", line=line, start=f"{_name(base)}_0 = {sp.latex(start)}",
              k=k, base=f"{_name(base)}_0", taken=taken)
    words = {"at 1": say("closedform.at_one"), "one step": say("closedform.one_step")}
    failed = next(((w, p) for w, p in parts if p.status == "failed"), None)
    if failed:
        what, p = failed
        where = say("closedform.not_at_one", k=k, base=f"{_name(base)}_0") if what == "at 1" \
            else say("closedform.not_one_step")
        return dataclasses.replace(p, index=index, relation=rel, lhs=lhs_tex, rhs=rhs_tex,
                                   reason=say("closedform.failed", how=how, where=where,
                                              why=p.reason))
    if status == NOT_CHECKABLE:
        why = join(*(say("closedform.part", what=words[w], why=p.reason)
                     for w, p in parts if p.status == NOT_CHECKABLE))
        return said(NOT_CHECKABLE, say("closedform.unchecked", how=how, why=why))
    return said(status, say("closedform.done", how=how, parts=join(*(
        say("closedform.part_status", what=words[w], status=say(f"status.{p.status}"))
        for w, p in parts))),
                definitions={k2: v for _, p in parts for k2, v in p.definitions.items()})
