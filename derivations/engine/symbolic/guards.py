"""What SymPy may do while the symbolic route runs: its sums and integrals evaluated once per
claim and remembered (:func:`remembered_doits`), never by numbers (:func:`no_numbers`)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import NamedTuple

import sympy as sp

from derivations.engine.core.budget import (
    OverBudget,
    forget_with_claims,
    innermost,
    operations,
)

__all__ = ["no_numbers", "remembered_doits"]

_DONE: dict = {}
_DONE_KEPT = 20000
forget_with_claims(_DONE.clear)


class _Unaffordable(NamedTuple):
    """An integral whose evaluation was stopped by its budget after ``ops`` SymPy operations."""

    ops: int


def _remembering(original, integral: bool):
    depth = [0]

    def doit(self, **hints):
        try:
            key = (self, tuple(sorted(hints.items())))
            hash(key)
        except TypeError:  # an unhashable hint: not remembered
            return original(self, **hints)
        known = _DONE.get(key)
        if isinstance(known, _Unaffordable):
            running = innermost()
            if running is not None and known.ops >= running.limit:
                raise OverBudget(running.what, "operations", running.limit, known.ops)
        elif known is not None:
            return known
        if len(_DONE) > _DONE_KEPT:
            _DONE.clear()
        start = operations()
        depth[0] += 1
        try:
            _DONE[key] = original(self, **hints)
        except OverBudget:
            # only an evaluation that was not itself inside another integral's: where an inner
            # one stands when the budget runs out depends on when the timer fires
            if integral and depth[0] == 1:
                _DONE[key] = _Unaffordable(operations() - start)
            raise
        except TypeError:
            if integral:
                raise
            # SymPy's Gosper step (hypersimp) indexes an Indexed term as a Piecewise and raises:
            # the sum stays as it is, which is what it equals
            _DONE[key] = self
        finally:
            depth[0] -= 1
        return _DONE[key]
    return doit


@contextmanager
def remembered_doits():
    """``Sum.doit`` and ``Integral.doit`` remember their results while the symbolic route runs.

    The same sums and integrals recur in every step of a claim, in the doit that checks for a
    fixed point, and again in the route's own methods; SymPy runs its summation algorithms
    (Gosper, hypergeometric) and its integration algorithms (Risch, Meijer G, heuristics) afresh
    each time, and most of them fail on the same input the same way.  A result depends only on
    the expression (structural equality includes every symbol's assumptions) and the hints.
    An integral that SymPy could not evaluate within its budget is remembered as such, with the
    operations it had used: a later check whose whole budget is no larger is stopped at once
    (the own methods' budget is 0.4 times the first check's), a larger one tries again.  What is
    remembered is forgotten before each claim (:func:`derivations.engine.budget.fresh_start`),
    so a claim's count is its own."""
    saved = sp.Sum.doit, sp.Integral.doit
    sp.Sum.doit = _remembering(saved[0], integral=False)
    sp.Integral.doit = _remembering(saved[1], integral=True)
    try:
        yield
    finally:
        sp.Sum.doit, sp.Integral.doit = saved


@contextmanager
def no_numbers():
    """SymPy's evalf of a Sum, a Product or an Integral gives up while the symbolic route runs.

    SymPy asks a constant expression for its sign by evaluating it to a few digits (``evalf(2)``
    inside the assumptions); for Σ cos(i)/i that is a quadrature of minutes in mpmath, which no
    count of SymPy operations sees, so the route's cost would depend on the machine.  A number
    is also no proof: the symbolic route decides by algebra, the numeric route by numbers."""
    from sympy.core import evalf as evalf_module

    if not evalf_module.evalf_table:
        evalf_module._create_evalf_table()
    table = evalf_module.evalf_table  # rebound by _create_evalf_table: read after it
    saved = {cls: table[cls] for cls in (sp.Sum, sp.Product, sp.Integral) if cls in table}

    def refuse(x, prec, options):
        raise NotImplementedError(f"{type(x).__name__} is not evaluated by the symbolic route")
    for cls in saved:
        table[cls] = refuse
    try:
        yield
    finally:
        table.update(saved)
