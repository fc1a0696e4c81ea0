"""The numeric route is an independent witness: while it runs, SymPy's own algorithms for the
claim's operators refuse to run.

A step is proved only when the symbolic route and the numeric route agree.  If both ended in the
same SymPy algorithm (``Integral.doit`` on the claim, say), one wrong answer of SymPy would fool
both, so the numeric route evaluates definitions with numbers (quadrature, term by term sums,
numeric limits; :mod:`derivations.engine.numeric.mpnum`) and never calls them.  :func:`numbers_only`
makes that a rule of the running engine rather than a habit of its code: inside it, each
function below raises :class:`Dependent`, which the numeric route treats like any other failure
to evaluate a point (the point decides nothing), and the call is recorded in :data:`REFUSED` so
that a test can require there were none.  Differentiating an explicit expression stays allowed.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager

# by module path: sympy.series re-exports a function named limit over its module's name
_MODULES = {m: importlib.import_module(f"sympy.{m}") for m in (
    "concrete.products", "concrete.summations", "integrals.integrals", "series.limits",
    "simplify.simplify", "solvers.solvers")}
_products, _summations, _integrals, _limits, _simplify, _solvers = _MODULES.values()

FORBIDDEN = (
    (_integrals, "integrate"), (_integrals.Integral, "doit"),
    (_limits, "limit"), (_limits.Limit, "doit"),
    (_summations, "summation"), (_summations, "eval_sum"), (_summations.Sum, "doit"),
    (_products, "product"), (_products.Product, "doit"),
    (_simplify, "simplify"), (_solvers, "solve"),
)

# what the numeric route tried to call, in order, since the process started (a test reads it)
REFUSED: list[str] = []


class Dependent(RuntimeError):
    """The numeric route called one of SymPy's algorithms for the claim's operators."""


def _refusing(label: str):
    def refuse(*args, **kwargs):
        REFUSED.append(label)
        raise Dependent(f"the numeric route may not use SymPy's {label} (it would witness "
                        f"with the symbolic route's own algorithm)")
    return refuse


_INHERITED = object()  # a method a class takes from its parent: deleted again, not set
# named as a reader knows them: Integral.doit, integrate
_GUARDS = tuple((owner, name, _refusing(f"{owner.__name__}.{name}" if isinstance(owner, type)
                                        else name)) for owner, name in FORBIDDEN)
_depth = 0


@contextmanager
def numbers_only():
    """Run the body with SymPy's integration, limits, summation, products, ``simplify`` and
    ``solve`` refusing to run; re-entrant, and everything is restored on the way out."""
    global _depth
    if _depth:
        _depth += 1
        try:
            yield
        finally:
            _depth -= 1
        return
    saved = [(owner, name, vars(owner).get(name, _INHERITED)) for owner, name, _ in _GUARDS]
    for owner, name, guard in _GUARDS:
        setattr(owner, name, guard)
    _depth = 1
    try:
        yield
    finally:
        _depth = 0
        for owner, name, original in saved:
            if original is _INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
