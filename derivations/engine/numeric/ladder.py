"""The precision ladder: one side at one point as a :class:`Value` — computed on demand at any
precision, with the scales each evaluation recorded (:mod:`derivations.engine.numeric.scales`) —
and the comparison of two (:func:`disagree`).

A comparison is evidence only when the precision it was made at could have shown a difference.
Each evaluation at P digits records its *scales*
(:mod:`derivations.engine.numeric.scales`): at the point's actual values, how many digits below
its leading ones each sum holds a term (x + 1 at x = 10^200: 200) and each saturating function
holds its distance to its asymptote (tanh 250: 217; erf 30: 392; atan 10^300: 300; cosh 250
beside its e^-250: 217) — rounding noise not counted.  A rung of the ladder is *resolved* when
its digits exceed the deepest scale of both sides by ``MARGIN``; below that a side may have
rounded away the very difference in question (tanh 250 is exactly 1 at 50 digits), so the
ladder climbs to the first resolved rung, ``STEP`` digits at a time after it.  Only resolved
rungs decide:

* **agree** — the difference is exactly 0 at a resolved rung after the first, or shrinks by at
  least 1/``NOISE_RATIO`` at two consecutive rises (rounding noise shrinks as the precision
  rises, a real difference does not) — whatever the magnitudes involved — and each value is
  itself correct, judged by its change to the next rung, to ``MARGIN`` digits past the deepest
  scale (a value that lost 200 digits to cancellation says nothing of its 201st);
* **differ** — the difference holds still from one resolved rung to the next and exceeds, a
  thousandfold, both values' error bounds, read from their change between the two rungs;
* **cannot separate** (:class:`~derivations.engine.core.errors.Unseparated`) — the first
  resolved rung would lie past ``MAX_DIGITS`` (tanh 10^4 against 1 needs 8,700), or
  ``RUNGS`` resolved rungs decided neither.  Never an agreement, never a counterexample: the
  point is replaced like an undefined one, and a step left with such points is not proved
  (:mod:`derivations.engine.chain`); a premise is not checked.

Both sides rational in exact inputs are compared exactly, without a ladder.
"""

from __future__ import annotations

import math

import mpmath
import sympy as sp

from derivations.engine.core.budget import OverBudget, budget, record
from derivations.engine.core.errors import DerivationError, Undefined, Unseparated
from derivations.engine.numeric import scales
from derivations.engine.numeric.mpsnap import NotEvaluated

__all__ = ["DIGITS", "MARGIN", "MAX_DIGITS", "NUMERIC_OPS", "PROBE_MAX_DIGITS", "STEP", "Value",
           "disagree", "rung_above"]

DIGITS = 50  # the first rung
STEP = 40  # digits between two rungs past the first resolved one
MARGIN = 30  # digits a resolved rung carries past the deepest scale of its values
RUNGS = 6  # resolved rungs compared before a difference that neither shrinks nor holds still
# is given up as not separated
# Rounding noise shrinks by ~1e-40 per 40 more digits (less after heavy cancellation: 1e-12 was
# seen with e^93 terms); a wrong step's difference keeps its value, a ratio near 1.
NOISE_RATIO = mpmath.mpf("1e-3")
# SymPy operations (derivations.engine.core.budget) for the concrete form of one expression at one
# size, and for one evaluation of it; the heaviest shipped form uses about a tenth
NUMERIC_OPS = 1_000_000
# the budget kind of the evaluations under way: the probe's are its own, since a probe point that
# runs out of its budget is skipped (it can only find a difference), never decides a status; a
# list, so that the probe (derivations.engine.numeric.probe) switches the one that Value reads
_KIND = ["numeric"]
MAX_DIGITS = 1200  # the most digits a comparison may use (tanh 1000 against 1 needs 900)
PROBE_MAX_DIGITS = 400  # at a point of the wider probe
EXACT_BITS = 200_000  # the largest exact value (bits of an integer power) worth computing


def _mpf(x, digits):
    if isinstance(x, mpmath.mpf | mpmath.mpc):
        return x
    if isinstance(x, type(mpmath.pi)):  # e, π: constants, evaluated at the precision
        return +x
    return mpmath.mpmathify(sp.N(x, digits)) if isinstance(x, sp.Basic) else mpmath.mpmathify(x)


def _finite(x) -> bool:
    return bool(mpmath.isfinite(x)) if isinstance(x, mpmath.mpf | mpmath.mpc) else False


def rung_above(need: float) -> int:
    """The first rung resolved for values whose deepest scale is ``need`` digits: a multiple
    of 10, at least ``DIGITS``."""
    return max(DIGITS, 10 * math.ceil((need + MARGIN) / 10))


class Value:
    """One side at one point, at any precision, computed on demand, with the scales each
    evaluation recorded (:mod:`derivations.engine.numeric.scales`)."""

    def __init__(self, fn, args):
        self._fn, self._args, self._at = fn, args, {}
        self._traces: dict[int, scales.Trace] = {}
        self._need: dict[int, float] = {}
        self._exact = False
        self.base = DIGITS  # the lowest resolved precision at which it is finite
        self.max_digits = MAX_DIGITS

    def exact(self):
        """The exact rational entries (a flat list), or None when the expression is not
        rational, or too large to compute within the budget (an integer power of 10^6 of a
        53-bit input has 53 million bits)."""
        if self._exact is False:
            fn = getattr(self._fn, "exact", None)
            if fn is not None and _exact_bits(self._fn, self._args) > EXACT_BITS:
                fn = None
            try:
                with budget(NUMERIC_OPS, "exact evaluation", kind=_KIND[0]):
                    self._exact = fn(*self._args) if fn else None
            except OverBudget:
                self._exact = None
        return self._exact

    def at(self, digits: int):
        if digits not in self._at:
            trace = scales.Trace(digits, what=f"{_KIND[0]} evaluation")
            try:
                with budget(NUMERIC_OPS, "numeric evaluation", kind=_KIND[0]), \
                        mpmath.workdps(digits), scales.tracing(trace):
                    out = self._fn(digits, *self._args)
                    if isinstance(out, mpmath.matrix | sp.MatrixBase):
                        out = [[_mpf(out[i, j], digits) for j in range(out.cols)]
                               for i in range(out.rows)]
                    else:
                        out = _mpf(out, digits)
            finally:  # a partial trace still shows the scales met before a failure
                self._traces[digits] = trace
                record("work", trace.work, trace.limit, 0.0)
                record("digits", digits, MAX_DIGITS, 0.0)
            self._at[digits] = out
        return self._at[digits]

    def needed(self, digits: int) -> float:
        """The digits below the leading ones that the values hold at this rung (its deepest
        scale, noise not counted: compared with the nearest rung below that was evaluated)."""
        if digits not in self._need:
            if digits not in self._traces:
                try:
                    self.at(digits)
                except (OverBudget, DerivationError):
                    raise
                except Exception:  # noqa: BLE001 - what was recorded before it still counts
                    pass
            below = max((d for d in self._at if d < digits), default=None)
            self._need[digits] = scales.needed(
                self._traces[digits], self._traces[below] if below is not None else None)
        return self._need[digits]

    def settle(self) -> None:
        """Find the lowest resolved rung at which the side is finite: 1 − σ(270) is 0 at 50
        digits and its log is undefined there, and the sum 1 + e^-270 shows 117 digits below
        its leading ones, so the side is taken at 150.  Raise :class:`Unseparated` if the
        values' own scales lie past ``max_digits``, :class:`Undefined` if no rung evaluates."""
        rung, why, tries = DIGITS, "", 0
        while True:
            failed = None
            try:
                out = self.at(rung)
            except (OverBudget, DerivationError):
                raise
            except Exception as exc:  # noqa: BLE001 - any failure to evaluate: climb
                failed = exc
            need = self.needed(rung)
            if need + MARGIN > rung:  # below the values' own scales: nothing read here counts
                nxt = rung_above(need)
                if nxt > self.max_digits:
                    raise Unseparated(
                        f"cannot separate: the values here hold digits {need:.0f} below their "
                        f"leading ones, which needs {nxt} digits, more than the "
                        f"{self.max_digits} the numeric route works with", nxt)
                rung = nxt
                continue
            if failed is None and all(_finite(x) for x in _flat(out)):
                self.base = rung
                return
            why = (f"{type(failed).__name__}: {failed}" if failed is not None
                   else f"not finite ({_show(out)})")
            tries += 1
            # a divergent integral stays divergent: one more try
            if tries >= (2 if isinstance(failed, NotEvaluated) else RUNGS):
                break
            rung += STEP
            if rung > self.max_digits:
                break
        raise Undefined(why)


def _exact_bits(fn, inputs) -> int:
    """About how many bits the exact value of ``fn``'s concrete form has at most: of its
    integer powers, the exponent times the bits of the base's inputs (53 for a drawn double)."""
    concrete = getattr(fn, "concrete", None)
    if concrete is None:
        return 0
    top = max((abs(int(p.exp)) for p in concrete.atoms(sp.Pow) if p.exp.is_Integer), default=0)
    return top * 64


def _flat(v):
    return [x for row in v for x in row] if isinstance(v, list) else [v]


class _Verdict:
    AGREE, DIFFER = "agree", "differ"


def _entry(a: Value, b: Value, k: int) -> str:
    """Whether entry ``k`` of the two sides agrees or differs (see the module docstring);
    raises :class:`Unseparated` when the ladder cannot tell."""
    ea, eb = a.exact(), b.exact()
    if ea is not None and eb is not None:  # both sides rational in exact inputs: no tolerance
        return _Verdict.AGREE if ea[k] == eb[k] else _Verdict.DIFFER
    cap = min(a.max_digits, b.max_digits)
    rung = max(a.base, b.base)
    seen: list[tuple[int, object, object]] = []
    deepest = 0.0
    while True:
        need = max(a.needed(rung), b.needed(rung))
        if need + MARGIN > rung:  # a side holds digits below this rung: climb to them
            nxt = rung_above(need)
            if nxt > cap:
                raise Unseparated(_unseparated(a, b, k, rung, need, nxt), nxt)
            rung, seen = nxt, []
            continue
        x, y = _flat(a.at(rung))[k], _flat(b.at(rung))[k]
        if not (_finite(x) and _finite(y)):
            return _Verdict.DIFFER
        seen.append((rung, x, y))
        deepest = max(deepest, need)
        verdict, ahead = _decided(seen, deepest)
        if verdict is not None:
            return verdict
        if len(seen) >= RUNGS or rung + STEP > cap:
            raise Unseparated(
                f"cannot separate the two sides at {rung} digits: their difference neither "
                f"shrank nor held still above the values' own errors over {len(seen)} rungs "
                f"(last {_show(x - y, 5)} against sides of {_show(x, 5)})", rung)
        rung = min(rung + max(STEP, ahead), cap)


def _decided(seen, need: float = 0.0) -> tuple[str | None, int]:
    """(the verdict of the resolved rungs ``seen`` so far, or None while undecided; the digits
    to climb before the next rung).  ``need`` is the deepest scale of the values: an agreement
    also needs each value correct to that many digits and ``MARGIN`` more — a side that lost
    200 of its digits to cancellation (√(x+1) − √x at 10^200) says nothing of a difference at
    its 201st."""
    top = seen[-1][0]
    with mpmath.workdps(top):
        d = [x - y for _, x, y in seen]
        short = _short_of(seen[-2], seen[-1], need) if len(d) >= 2 and need else 0
        if len(d) >= 2 and d[-1] == 0 and not short:  # equal at a resolved rung, past a first
            return _Verdict.AGREE, 0
        if len(d) >= 3 and not short and all(
                lo != 0 and abs(hi) <= NOISE_RATIO * abs(lo)
                for lo, hi in zip(d[-3:-1], d[-2:], strict=True)):
            return _Verdict.AGREE, 0  # rounding noise: shrinks at two consecutive rises
        if len(d) < 2:
            return None, 0
        (_, x1, y1), (_, x2, y2) = seen[-2:]
        d1, d2 = d[-2], d[-1]
        # the errors of the lower rung's values, read from their change to the higher one
        error = abs(x2 - x1) + abs(y2 - y1)
        if d1 != 0 and abs(d2 - d1) <= NOISE_RATIO * abs(d2):
            if abs(d1) * NOISE_RATIO > error:
                return _Verdict.DIFFER, 0  # it holds still, far above both values' errors
            # it holds still below the values' errors, which two roundings alike can do (log
            # of 1 − ε and of 1 + ε on the same binary grid): climb past those errors
            return None, max(short, int(mpmath.log10(error / abs(d1))) + 10)
        return None, short


def _short_of(lower, upper, need: float) -> int:
    """How many digits the values at the ``lower`` rung fall short of ``need`` + ``MARGIN``
    correct ones, judged by their change to the ``upper`` rung (0 when none does).  A value
    with no correct digit at all is rounding noise about 0 — an exact cancellation — and is
    judged by the shrinking of the difference alone."""
    short = 0
    for v1, v2 in ((lower[1], upper[1]), (lower[2], upper[2])):
        if v1 == v2:
            continue
        change = abs(v1 - v2)
        if v2 == 0 or change >= abs(v2):
            continue
        correct = -mpmath.log10(change / abs(v2))
        short = max(short, math.ceil(need + MARGIN - correct))
    return short


def _unseparated(a: Value, b: Value, k: int, rung: int, need: float, nxt: int) -> str:
    text = (f"cannot separate the two sides at {min(a.max_digits, b.max_digits)} digits: "
            f"their values hold digits {need:.0f} below their leading ones (a term absorbed in "
            f"a sum, or a function within 10^-{need:.0f} of its asymptote), which needs {nxt}")
    try:
        x, y = _flat(a.at(rung))[k], _flat(b.at(rung))[k]
    except Exception:  # noqa: BLE001 - a rung that did not evaluate: no values to show
        return text
    with mpmath.workdps(rung):
        same = _agreeing_digits(x, y)
    return (f"{text}; at {rung} digits they read {_show(x)} and {_show(y)}"
            + (f", the same to {same} digits" if same else ""))


def _agreeing_digits(x, y) -> int:
    if x == y:
        return mpmath.mp.dps
    scale = max(abs(x), abs(y))
    if scale == 0:
        return 0
    return max(0, int(-mpmath.log10(abs(x - y) / scale)))


def disagree(a: Value, b: Value) -> bool:
    """Whether the two sides differ at this point (see the module docstring); raises
    :class:`Unseparated` when some entry can be neither agreed nor told apart."""
    x, y = a.at(a.base), b.at(b.base)
    if isinstance(x, list) != isinstance(y, list):
        return True
    if isinstance(x, list) and (len(x) != len(y) or any(
            len(r) != len(s) for r, s in zip(x, y, strict=True))):
        return True
    if a is b:  # one concrete form at one set of inputs
        return False
    unseparated = None
    for k in range(len(_flat(x))):
        try:
            if _entry(a, b, k) == _Verdict.DIFFER:
                return True
        except Unseparated as exc:
            unseparated = unseparated or exc
    if unseparated is not None:
        raise unseparated
    return False


def _show(v, digits: int = 15) -> str:
    if isinstance(v, list):
        return "[" + ", ".join("[" + ", ".join(_show(x, digits) for x in row) + "]"
                               for row in v) + "]"
    return mpmath.nstr(v, digits)
