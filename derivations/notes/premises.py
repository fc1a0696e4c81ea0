"""Premises a note states: a formula introduced as one (``设 … \\sum_{i=1}^{n} y_i = 1``,
"where $\\sum_i y_i = 1$") is no claim to check but a hypothesis of the later links that use its
symbols, listed in their reasons as assumed; and, for a link that fails without one, whether it
holds once the entries of one of its vectors sum to 1 (then it is not blamed, and the reason says
which premise it needs).

A formula is a premise when the prose of its sentence before it has one of the words of
:data:`WORDS` and no word of :data:`THEN` after that word, and it is one relation whose left side
is no name the note could be defining (a sum, a product, an expression) — ``p_i = …`` in the same
sentence stays a definition, and a letter or an entry given a value is a stated value.  The words
are the language's, listed in READING.md; nothing else in
the prose is read.
"""

from __future__ import annotations

import re

import sympy as sp

from derivations.notes.context import _own_bound, head_of
from derivations.notes.reading import EQUAL, ORDER
from derivations.notes.reasons import say
from derivations.notes.terms import _name, _objects, _unfold

# words that introduce a premise; "if"/若/如果 are left out: notes write a wrong step after them
WORDS = re.compile(r"设|假设|假定|其中|满足|已知|\b(?:where|assume|assuming|suppose|given|"
                   r"let)\b", re.I)
# words after which the prose states a consequence, not a premise
THEN = re.compile(r"则|那么|于是|所以|因此|故|可得|\b(?:then|so|hence|thus|therefore)\b", re.I)


def is_premise(formula, reading) -> bool:
    """Whether ``formula`` is stated as a premise (see the module's docstring)."""
    if len(reading.relations) != 1 or reading.relations[0] not in (EQUAL, *ORDER) \
            or reading.unlowered or reading.pieces or len(reading.parts) != 2:
        return False
    if head_of(reading.parts[0]) is not None if isinstance(reading.parts[0], sp.Basic) else True:
        return False
    # an equation is a premise only about a sum, a product or a combination (Σ_i y_i = 1,
    # a + b = 1): 设 σ(x) = … defines, and a letter or an entry given a value (设 η_3 = 0.2,
    # let a_1 = 2) is a value the note states, supposed or concluded (stated.py)
    if reading.relations[0] == EQUAL and not isinstance(
            reading.parts[0], (sp.Sum, sp.Product, sp.Add, sp.Mul)):
        return False
    at = formula.sentence.find(formula.latex)
    before = formula.sentence[:at] if at >= 0 else ""
    words = list(WORDS.finditer(before))
    return bool(words) and not THEN.search(before[words[-1].end():])


def relation(reading) -> sp.Basic:
    rel = reading.relations[0]
    make = {EQUAL: sp.Eq, "<": sp.Lt, "≤": sp.Le, ">": sp.Gt, "≥": sp.Ge, "≠": sp.Ne}[rel]
    return make(*reading.parts, evaluate=False)


def record(context, formula, reading) -> str:
    """Keep ``formula`` as a premise of what follows in its section; its reason."""
    names = sorted({_name(o) for p in reading.parts for o in _objects(p)})
    # its sums' variables renamed: Σ_i y_i = 1 must not bind the i of ∂L/∂z_i
    context.premises.append((_own_bound(relation(reading)), formula.latex, formula.line,
                             formula.section))
    return say("check.premise", names=", ".join(names))


def applying(context, section, lhs, rhs, defs) -> list[tuple[sp.Basic, str]]:
    """The premises stated before in ``section`` (or a section around it) whose symbols the link
    uses, its definitions unfolded: (hypothesis, "LaTeX (line N)")."""
    used = {_name(o) for x in (lhs, rhs) for o in _objects(_unfold(x, defs))}
    out = []
    for hyp, tex, line, where in context.premises:
        if section[:len(where)] == where and {_name(o) for o in _objects(hyp)} & used:
            out.append((hyp, f"{tex} (line {line})"))
    return out


def sums_to_one(lhs, rhs, defs) -> list[tuple[sp.Basic, str]]:
    """For each vector the link uses (its definitions unfolded) that runs over a known size —
    its declared size or the upper end of a sum over its entries — the premise that its entries
    sum to 1, and that premise's LaTeX."""
    exprs = [_unfold(x, defs) for x in (lhs, rhs)]
    exprs = [x for x in exprs if isinstance(x, sp.Basic)]
    defined = {m.definition.key for m in defs}
    sizes: dict = {}
    for e in exprs:
        for total in e.atoms(sp.Sum):
            var, low, high = total.limits[0]
            for entry in total.function.atoms(sp.Indexed):
                if entry.indices == (var,) and low == 1:
                    sizes.setdefault(entry.base, high)
        for entry in e.atoms(sp.Indexed):
            if entry.base.shape and len(entry.base.shape) == 1:
                sizes.setdefault(entry.base, entry.base.shape[0])
    out = []
    for base, size in sorted(sizes.items(), key=lambda kv: _name(kv[0])):
        if _name(base) in defined or not isinstance(size, sp.Basic) or size.free_symbols and \
                not all(s.is_integer and s.is_positive for s in size.free_symbols):
            continue
        k = sp.Symbol(f"k_{_name(base)}", integer=True)
        tex = rf"\sum_{{k=1}}^{{{sp.latex(size)}}} {sp.latex(base)}_k = 1"
        out.append((sp.Eq(sp.Sum(base[k], (k, 1, size)), 1, evaluate=False), tex))
    return out
