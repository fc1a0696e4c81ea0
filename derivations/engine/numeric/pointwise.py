"""The numeric route: both sides of a step at sampled points
(:mod:`derivations.engine.numeric.sampling`), at a ladder of precisions.

At each point's sizes a side becomes a concrete form (:mod:`derivations.engine.numeric.explicit`:
explicit matrices, derivatives entry by entry, sums written out, E and Var evaluated, compiled to
mpmath); then the drawn values are put in.

Agreement is decided without an absolute floor: each side is evaluated along a ladder of
precisions (``LADDER``: 50, 90, 130, 170 digits) from the same exactly representable inputs.
Rounding noise shrinks as the precision rises; a real difference, however tiny, does not.  Two
sides agree when their difference is exactly zero at a precision above 50 digits, or shrinks by at
least 1/``NOISE_RATIO`` at two consecutive rises of the ladder — whatever the magnitudes involved.
A difference hidden under the 50-digit noise shows at 90 digits and then stops shrinking.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import mpmath
import sympy as sp

from derivations.engine.core.budget import ClaimMemo, OverBudget, budget, forget_with_claims
from derivations.engine.core.errors import DerivationError, Pole, Undefined
from derivations.engine.core.inert import Bound
from derivations.engine.core.stochastic import E, Var
from derivations.engine.numeric.explicit import _at_numbers, _compiled
from derivations.engine.numeric.mpsnap import NotEvaluated
from derivations.engine.numeric.sampling import attempt_for, distribution_at, draw

if TYPE_CHECKING:
    from derivations.engine.core.claim import Derivation

__all__ = ["DIGITS", "NUMERIC_OPS", "REPLACED_FROM", "compare", "counterexample", "disagree",
           "evaluate", "safe_eval"]

DIGITS = 50
HIGH_DIGITS = 90
# Rounding noise shrinks by ~1e-40 per 40 more digits (less after heavy cancellation: 1e-12 was
# seen with e^93 terms); a wrong step's difference keeps its value, a ratio near 1.
NOISE_RATIO = mpmath.mpf("1e-3")
# SymPy operations (derivations.engine.core.budget) for the concrete form of one expression at one
# size, and for one evaluation of it; the heaviest shipped form uses about a tenth
NUMERIC_OPS = 1_000_000
REPLACED_FROM = 10_000  # the first point number drawn in place of an undefined one
# the budget kind of the evaluations under way: the probe's are its own, since a probe point that
# runs out of its budget is skipped (it can only find a difference), never decides a status; a
# list, so that the probe (derivations.engine.numeric.probe) switches the one that Value reads
_KIND = ["numeric"]


def _mpf(x, digits):
    if isinstance(x, mpmath.mpf | mpmath.mpc):
        return x
    if isinstance(x, type(mpmath.pi)):  # e, π: constants, evaluated at the precision
        return +x
    return mpmath.mpmathify(sp.N(x, digits)) if isinstance(x, sp.Basic) else mpmath.mpmathify(x)


def _finite(x) -> bool:
    return bool(mpmath.isfinite(x)) if isinstance(x, mpmath.mpf | mpmath.mpc) else False


class Value:
    """One side at one point, at any precision of the ladder, computed on demand."""

    def __init__(self, fn, args):
        self._fn, self._args, self._at = fn, args, {}
        self._exact = False
        self.base = DIGITS  # the lowest precision at which it is finite
        self.max_digits = MAX_DIGITS
        self.ladder = LADDER
        self._needed: int | None = None

    def exact(self):
        """The exact rational entries (a flat list), or None when the expression is not
        rational or too large to substitute into within the budget."""
        if self._exact is False:
            fn = getattr(self._fn, "exact", None)
            try:
                with budget(NUMERIC_OPS, "exact evaluation", kind=_KIND[0]):
                    self._exact = fn(*self._args) if fn else None
            except OverBudget:
                self._exact = None
        return self._exact

    def at(self, digits: int):
        if digits not in self._at:
            with budget(NUMERIC_OPS, "numeric evaluation", kind=_KIND[0]), \
                    mpmath.workdps(digits):
                out = self._fn(digits, *self._args)
                if isinstance(out, mpmath.matrix | sp.MatrixBase):
                    out = [[_mpf(out[i, j], digits) for j in range(out.cols)]
                           for i in range(out.rows)]
                else:
                    out = _mpf(out, digits)
            self._at[digits] = out
        return self._at[digits]

    def settle(self) -> None:
        """Climb the ladder until the side is finite: 1 − σ(270) is 0 at 50 digits and its log
        is undefined there, not at 170.  Raise :class:`Undefined` if it never is.  The ladder
        starts above the digits the values need (:meth:`needed`): with e^1012 beside 1, the
        terms of a softmax's Jacobian differ from 1 in the 440th digit."""
        extra = self.needed()
        if DIGITS + extra > self.max_digits:
            raise Undefined(f"the values at this point need {DIGITS + extra} digits, more than "
                            f"the {self.max_digits} the numeric route works with here")
        self.ladder = tuple(r + extra for r in LADDER)
        why = ""
        for digits in self.ladder:
            try:
                out = self.at(digits)
            except (OverBudget, DerivationError):
                raise
            except NotEvaluated as exc:  # a divergent integral stays divergent: one more try
                why = f"{type(exc).__name__}: {exc}"
                if digits > self.ladder[0]:
                    break
                continue
            except Exception as exc:  # noqa: BLE001 - any other failure to evaluate: climb
                why = f"{type(exc).__name__}: {exc}"
                continue
            if all(_finite(x) for x in _flat(out)):
                self.base = digits
                return
            why = f"not finite ({_show(out)})"
        raise Undefined(why)

    def needed(self) -> int:
        """Digits the values need beyond the ladder's first: a term e^−600 beside 1 is seen only
        at 261 digits or more.  From the largest |Re a| of the form's exp(a) at this point."""
        if self._needed is None:
            self._needed = _exp_digits(self._fn, self._args)
        return self._needed


def _exp_digits(fn, inputs) -> int:
    concrete = getattr(fn, "concrete", None)
    if concrete is None:
        return 0
    exps = getattr(fn, "exps", None)
    if exps is None:
        args = [e.args[0] for e in concrete.atoms(sp.exp) if not e.has(Bound)]
        syms = sp.symbols(f"v0:{len(fn.atoms)}")
        renamed = [a.xreplace(dict(zip(fn.atoms, syms, strict=True))) for a in args]
        exps = fn.exps = sp.lambdify(syms, renamed, modules="mpmath") if args else False
    if not exps:
        return 0
    try:
        with mpmath.workdps(20):
            found = [mpmath.re(v) for v in exps(*inputs)]
    except Exception:  # noqa: BLE001 - an estimate only: no extra digits
        return 0
    # the range of the exponents, 0 (a plain 1) included: e^2050 and e^-2050 in one form differ
    # by 1781 orders of magnitude
    spread = max([0, *found]) - min([0, *found])
    return int(spread / mpmath.log(10)) + 1


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


def _flat(v):
    return [x for row in v for x in row] if isinstance(v, list) else [v]


MAX_DIGITS = 1200  # the most digits a point's values may ask for (e^-2500 beside 1)
PROBE_MAX_DIGITS = 400  # at a point of the wider probe
# precisions tried in turn while a difference is exactly zero at one and not at the next
LADDER = (DIGITS, HIGH_DIGITS, HIGH_DIGITS + 40, HIGH_DIGITS + 80, HIGH_DIGITS + 120)


def _entry_disagrees(a: Value, b: Value, k: int) -> bool:
    ea, eb = a.exact(), b.exact()
    if ea is not None and eb is not None:
        return ea[k] != eb[k]  # both sides rational in exact inputs: no tolerance at all
    shrunk = 0
    start = max(a.base, b.base)
    ladder = [r for r in (a.ladder if a.ladder[0] >= b.ladder[0] else b.ladder) if r >= start]
    for lo, hi in itertools.pairwise(ladder):
        with mpmath.workdps(hi):
            x_lo, y_lo = _flat(a.at(lo))[k], _flat(b.at(lo))[k]
            x_hi, y_hi = _flat(a.at(hi))[k], _flat(b.at(hi))[k]
            if not all(_finite(v) for v in (x_lo, x_hi, y_lo, y_hi)):
                return True
            d_lo, d_hi = x_lo - y_lo, x_hi - y_hi
            if d_hi == 0:
                return _hidden(a, b, k, hi)
            if d_lo == 0 or abs(d_hi) > NOISE_RATIO * abs(d_lo):
                # no scale yet, or no shrinking: a real difference, or noise of an evaluation
                # that lost most of its digits to cancellation; a higher precision tells
                shrunk = 0
                continue
            shrunk += 1
            if shrunk == 2:  # a real difference cannot shrink twice in a row
                return False
    return True  # never decided along the ladder: not agreed


def _hidden(a: Value, b: Value, k: int, digits: int) -> bool:
    """Whether a difference exactly zero at ``digits`` is only below their reach: evaluated again
    at the digits the values need (``Value.needed``), it must vanish or shrink there too."""
    need = DIGITS + max(a.needed(), b.needed())
    if need <= digits or need > MAX_DIGITS:
        return False  # past MAX_DIGITS a difference is not seen (the README's known limits)
    rungs = (need + 20, need + 60)
    diffs = []
    for r in rungs:
        with mpmath.workdps(r):
            diffs.append(_flat(a.at(r))[k] - _flat(b.at(r))[k])
    if 0 in diffs:  # a real difference is seen at both, rounding noise at most at one
        return False
    return abs(diffs[1]) > NOISE_RATIO * abs(diffs[0])


def disagree(a: Value, b: Value) -> bool:
    """Whether the two sides differ at this point (see the module docstring)."""
    x, y = a.at(a.base), b.at(b.base)
    if isinstance(x, list) != isinstance(y, list):
        return True
    if isinstance(x, list) and (len(x) != len(y) or any(
            len(r) != len(s) for r, s in zip(x, y, strict=True))):
        return True
    if a is b:  # one concrete form at one set of inputs
        return False
    return any(_entry_disagrees(a, b, k) for k in range(len(_flat(x))))


def _show(v, digits: int = 15) -> str:
    if isinstance(v, list):
        return "[" + ", ".join("[" + ", ".join(_show(x, digits) for x in row) + "]"
                               for row in v) + "]"
    return mpmath.nstr(v, digits)


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
            undefined.append((p, err_a or err_b))
            continue
        try:
            differs = disagree(a, b)
        except OverBudget as exc:
            left_out.append(exc)
            continue
        except DerivationError:
            raise
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
