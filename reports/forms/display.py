"""Named abbreviations for display: the engine checks the expanded SymPy forms; the report
also prints them the way people write them (s_i for a softmax entry, p_j for a probability).

Each family maps a defining expression to a name. An abbreviated form is shown only after
substituting the definitions back gives the engine's expression again, checked two ways
(structurally or by simplification, and numerically at random points); a form that fails
either check is dropped, never shown. Computed in the pipeline (collect), not in rendering.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import sympy as sp

Family = Callable[[], list[tuple[sp.Basic, sp.Basic]]]


def _softmax() -> list[tuple[sp.Basic, sp.Basic]]:
    from derivations.library import softmax as sm

    s = sp.IndexedBase("s")
    return [(sm.softmax(idx), s[idx]) for idx in (sm.i, sm.j, sm.l)]


def _cross_entropy() -> list[tuple[sp.Basic, sp.Basic]]:
    from derivations.library import cross_entropy as ce

    p = sp.IndexedBase("p")
    return [(ce.probability(idx), p[idx]) for idx in (ce.j, ce.k)]


# claim module -> its abbreviations (definition, name)
FAMILIES: dict[str, Family] = {"softmax": _softmax, "cross_entropy": _cross_entropy}


def _numeric_zero(diff: sp.Basic, seed: int, points: int = 4) -> bool:
    """``diff`` vanishes at random points, sums over 1..4 unrolled (a second, plain check)."""
    rng = random.Random(seed)
    for _ in range(points):
        size = rng.randint(1, 4)
        subs: dict = {}
        for sym in sorted(diff.free_symbols, key=str):
            if isinstance(sym, sp.Indexed):
                continue
            subs[sym] = size if str(sym) in ("n", "N") else rng.randint(1, size)
        value = diff.subs(subs).doit()
        value = value.replace(lambda e: isinstance(e, sp.Indexed),
                              lambda e: sp.Float(rng.uniform(-2, 2), 30))
        try:
            if abs(complex(sp.N(value, 30))) > 1e-20:
                return False
        except TypeError:
            return False  # something stayed symbolic: not checked, not shown
    return True


def abbreviate(expr: sp.Basic, rules: list[tuple[sp.Basic, sp.Basic]]) -> sp.Basic | None:
    """``expr`` with every definition replaced by its name, or None when nothing changed or
    the back-substitution does not give ``expr`` again."""
    short = expr
    for definition, name in rules:
        short = short.subs(definition, name)
    if short == expr:
        return None
    back = short.subs({name: definition for definition, name in rules})
    diff = back - expr
    if back != expr and sp.simplify(diff) != 0:
        return None
    return short if _numeric_zero(diff, hash(sp.srepr(expr)) & 0xFFFF) else None


def claim_display(module: str, statement: sp.Eq, steps: list[sp.Basic]) -> dict:
    """{"statement": latex | None, "steps": {index: latex}} for one claim's family."""
    family = FAMILIES.get(module)
    if family is None:
        return {"statement": None, "steps": {}}
    rules = family()
    rhs = abbreviate(statement.rhs, rules)
    lhs = abbreviate(statement.lhs, rules)
    shown = {}
    for index, expr in enumerate(steps, 1):
        short = abbreviate(expr, rules)
        if short is not None:
            shown[str(index)] = sp.latex(short)
    if rhs is None:
        return {"statement": None, "steps": shown}
    left = sp.latex(statement.lhs if lhs is None else lhs)
    return {"statement": f"{left} = {sp.latex(rhs)}", "steps": shown}
