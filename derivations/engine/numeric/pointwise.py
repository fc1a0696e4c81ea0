"""The numeric route: both sides of a step at sampled points
(:mod:`derivations.engine.numeric.sampling`), compared along the precision ladder
(:mod:`derivations.engine.numeric.ladder`, where the precision policy is: a comparison is evidence
only when the precision it was made at could have shown a difference).

At each point's sizes a side becomes a concrete form (:mod:`derivations.engine.numeric.explicit`:
explicit matrices, derivatives entry by entry, sums written out, E and Var evaluated, compiled to
mpmath); then the drawn values are put in.  A matrix too large to build entry by entry, and a
pair of sides the ladder cannot separate, are neither an agreement nor a counterexample
(:class:`~derivations.engine.core.errors.Unseparated`): the caller replaces the point
(:mod:`derivations.engine.chain`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mpmath
import sympy as sp

from derivations.engine.core.budget import ClaimMemo, OverBudget, budget, forget_with_claims
from derivations.engine.core.errors import DerivationError, Pole, Undefined, Unseparated
from derivations.engine.core.stochastic import E, Var
from derivations.engine.numeric.explicit import _at_numbers, _compiled
from derivations.engine.numeric.ladder import (
    _KIND,
    DIGITS,
    MAX_DIGITS,
    NUMERIC_OPS,
    PROBE_MAX_DIGITS,
    Value,
    _flat,
    _show,
    disagree,
)
from derivations.engine.numeric.sampling import attempt_for, distribution_at, draw

if TYPE_CHECKING:
    from derivations.engine.core.claim import Derivation

__all__ = ["DIGITS", "MAX_DIGITS", "NUMERIC_OPS", "REPLACED_FROM", "Value", "compare",
           "counterexample", "disagree", "evaluate", "safe_eval"]

REPLACED_FROM = 10_000  # the first point number drawn in place of an undefined one


_TIMED_OUT: dict = {}
# the concrete forms this claim built, by the arguments of _compiled: built once per structure,
# not once per point
_FORMS = ClaimMemo()
_VALUES: dict = {}
_UNDEFINED: dict = {}
for _memo in (_TIMED_OUT.clear, _VALUES.clear, _UNDEFINED.clear):
    forget_with_claims(_memo)


def evaluate(d: Derivation, expr: sp.Basic, point: int, structure: dict, wide: bool = False):
    """The value of ``expr`` at numeric point ``point`` — a :class:`Value` whose ``at(digits)``
    is an mpf, or a list of rows of mpf for a matrix — and the values drawn for its atoms."""
    key = tuple(sorted(structure.items(), key=str))
    entries = _largest_matrix(expr, key)
    if entries > MAX_ENTRIES:
        raise Unseparated(
            f"the side holds a matrix of {entries:,} entries at these sizes, more than the "
            f"{MAX_ENTRIES:,} the numeric route builds entry by entry: state the claim for "
            f"symbolic sizes (an n×n MatrixSymbol), which are checked at sizes up to 6",
            MAX_ENTRIES, "size")
    random_key = tuple(sorted(d.domain.random.items(), key=str))
    # the law matters only where there is an expectation: one concrete form serves all laws
    law = distribution_at(d, point) if expr.has(E, Var) else "normal"
    args = (expr, key, random_key, law)
    attempt = attempt_for(d, point, structure, wide)
    fixed: dict = {}
    try:
        if args in _TIMED_OUT:  # built once per size, not once per point
            raise _TIMED_OUT[args]
        form = _FORMS.get(args)
        if form is None:  # a form built before costs no SymPy operation: no budget to meter
            with budget(NUMERIC_OPS, "the concrete form", kind=_KIND[0]):
                form = _FORMS.keep(args, _compiled(*args))
        atoms, fn = form
    except OverBudget as exc:
        if exc.kind == "thread":
            raise
        _TIMED_OUT[args] = exc
        if exc.kind != "operations" or expr.has(E, Var):
            raise
        # too large with symbols for every input: built again at this point's numbers (an
        # expectation keeps its random variables symbolic, so it is not built this way)
        with budget(NUMERIC_OPS, "the concrete form at the point's numbers", kind=_KIND[0]):
            atoms, fn, fixed = _at_numbers(d, expr, point, structure, wide, attempt)
    values = {**fixed, **{a: draw(d, point, a, wide, attempt) for a in atoms}}
    inputs = tuple(values[a] for a in atoms)
    # Consecutive steps often reach the same concrete form (SymPy's canonical ordering undoes a
    # rearrangement): the same form at the same inputs is the same value, at every precision.
    # So is a form that no precision evaluates: a constant series that cannot be summed fails
    # the same way at every point, and is tried once (keyed by the digits it may use).
    seen = (fn.concrete, inputs)
    value = _VALUES.get(seen)
    failed = _UNDEFINED.get((seen, wide))
    if failed is not None:
        raise type(failed)(*failed.args)
    if value is None:
        value = Value(fn, inputs)
        if wide:  # a probe point is only worth what it costs: past this it is skipped
            value.max_digits = PROBE_MAX_DIGITS
        if len(_VALUES) > 4096:
            _VALUES.clear()
            _UNDEFINED.clear()
        try:
            value.settle()
        except Undefined as exc:
            _UNDEFINED[(seen, wide)] = exc
            raise
        _VALUES[seen] = value
    return value, values


# the most entries of one concrete matrix (a 20×20 product has 8,000 terms; a 100×100 one a
# million, which SymPy takes minutes to build)
MAX_ENTRIES = 400
_ENTRIES = ClaimMemo()


def _largest_matrix(expr: sp.Basic, structure: tuple) -> int:
    """The most entries of a matrix symbol in ``expr`` at these sizes."""
    key = (expr, structure)
    if key not in _ENTRIES:
        sizes = dict(structure)
        found = [sp.sympify(m.rows, strict=True).xreplace(sizes)
                 * sp.sympify(m.cols, strict=True).xreplace(sizes)
                 for m in expr.atoms(sp.MatrixSymbol)]
        _ENTRIES.keep(key, max((int(n) for n in found if n.is_Integer), default=0))
    return _ENTRIES[key]


def safe_eval(d, expr, p, s, wide: bool = False):
    """(value, values drawn, None) or (None, {}, why): an :class:`OverBudget` or an
    :class:`Undefined` — never a difference by itself."""
    try:
        value, values = evaluate(d, expr, p, s, wide)
        return value, values, None
    except (OverBudget, Undefined) as exc:  # a point either stops decides nothing
        return None, {}, exc
    except DerivationError:
        raise
    except Exception as exc:  # noqa: BLE001 - a concrete form that cannot be built is undefined
        return None, {}, Undefined(f"{type(exc).__name__}: {exc}")


def compare(d, structures, prev_vals, vals) -> tuple[dict | None, list[OverBudget], list]:
    """(a counterexample or None, what stopped each point left out, the points where a side is
    undefined).  Only a real difference is a counterexample; of several, the one whose sides
    differ most (relative to their size) is shown, so that a reader sees the difference in the
    first digits rather than beside a saturated sigmoid."""
    left_out, undefined, differing, poles = [], [], [], []
    for p, ((a, _, err_a), (b, _, err_b)) in enumerate(zip(prev_vals, vals, strict=True)):
        stopped = next((e for e in (err_a, err_b) if isinstance(e, OverBudget)), None)
        if stopped is not None:
            left_out.append(stopped)
            continue
        if err_a or err_b:
            if _pole_beside_a_number(a, err_a, b, err_b):
                poles.append(p)
            undefined.append((p, next((e for e in (err_a, err_b) if isinstance(e, Unseparated)),
                                      err_a or err_b)))
            continue
        try:
            differs = disagree(a, b)
        except OverBudget as exc:
            left_out.append(exc)
            continue
        except DerivationError:
            raise
        except Undefined as exc:  # cannot separate: replaced like an undefined point
            undefined.append((p, exc))
            continue
        except Exception as exc:  # noqa: BLE001 - a precision at which a side cannot be had
            undefined.append((p, Undefined(f"{type(exc).__name__}: {exc}")))
            continue
        if differs:
            differing.append(p)
    if not differing and poles and len(undefined) <= len(prev_vals) / 2:
        # a side that is a pole at some sizes and a number at most: a wrong formula there (a
        # side undefined almost everywhere is refused instead, by the caller)
        return _counter(d, structures, prev_vals, vals, poles[0]), left_out, undefined
    if not differing:
        return None, left_out, undefined
    p = max(differing, key=lambda q: _gap(prev_vals[q][0], vals[q][0]))
    return _counter(d, structures, prev_vals, vals, p), left_out, undefined


def _pole_beside_a_number(a, err_a, b, err_b) -> bool:
    """Whether one side is a pole (:class:`Pole`) where the other is finite."""
    for pole, other, err in ((err_a, b, err_b), (err_b, a, err_a)):
        if isinstance(pole, Pole) and err is None:
            try:
                other.settle()
            except (Undefined, OverBudget):
                return False
            return True
    return False


def _gap(a: Value, b: Value):
    """How far apart the two sides are at their base precision, relative to their size (a
    difference in shape counts as the largest)."""
    x, y = _flat(a.at(a.base)), _flat(b.at(b.base))
    if len(x) != len(y):
        return mpmath.inf
    with mpmath.workdps(DIGITS):
        return max((abs(u - v) / (abs(u) + abs(v) + mpmath.mpf(10) ** -DIGITS)
                    for u, v in zip(x, y, strict=True)), default=mpmath.mpf(0))


def counterexample(d, structures, prev_vals, vals) -> dict | None:
    return compare(d, structures, prev_vals, vals)[0]


def _counter(d, structures, prev_vals, vals, p: int) -> dict:
    """The point and both sides; a side that is a pole (:class:`Pole`) is shown as undefined."""
    (a, va, err_a), (b, vb, err_b) = prev_vals[p], vals[p]
    point = {str(k): str(v) for k, v in structures[p].items()}
    point.update({str(k): _show(v) for k, v in {**va, **vb}.items()})
    if d.domain.random:
        point["distribution"] = distribution_at(d, p)
    if err_a or err_b:
        previous, current = (f"undefined ({err})" if err else _show(v.at(v.base))
                             for v, err in ((a, err_a), (b, err_b)))
    else:
        previous, current = _show_apart(a, b)
    return {"point": dict(sorted(point.items())), "previous": previous, "current": current}


def _show_apart(a: Value, b: Value) -> tuple[str, str]:
    """The two sides printed with the fewest digits (15 at least) at which they read apart: two
    sides that differ only in the 180th digit are not shown as the same number.  The digits come
    from the highest precision both sides were evaluated at."""
    top = max(set(a._at) & set(b._at))
    x, y = a.at(top), b.at(top)
    digits = 15
    while True:
        shown = _show(x, digits), _show(y, digits)
        if shown[0] != shown[1] or digits >= top:
            return shown
        digits = min(2 * digits, top)
