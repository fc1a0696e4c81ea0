"""What a value holds below its leading digit: the scales of a concrete form at a point's actual
values, and the numeric route's count of work.

A comparison at P digits can show only the differences the evaluation kept.  An operation loses
what lies below P digits of its result: an addition absorbs a term 10^-s of its largest (x + 1 at
x = 10^200: s = 200), and a function near its asymptote rounds to it (tanh 250 is 1 − 10^-217;
erf 30 is 1 − 10^-392; atan 10^300 is π/2 − 10^-300; e^u at u = 10^-60 is 1 + 10^-60; cosh 250
hides its e^-250 beside its e^250).  The compiled form (:mod:`derivations.engine.numeric.mpnum`)
calls this module's :func:`add` for every sum and its traced functions (:data:`FUNCTIONS`) for
tanh, coth, sech, csch, cosh, sinh, erf, erfc, atan, acot, exp, sin, cos and a power with a
symbolic exponent; each records the *scale* of what it did — the digits between its largest and
its smallest nonzero term, or the digits of its result's distance to the function's nearest
asymptote, 1 − |tanh u| = 2/(e^2|u| + 1) — when that is more than :data:`FLOOR` digits.  A scale
is read from the values themselves, never from the expression's syntax: tanh(u) with u = 10^-3
records nothing.

A term that is itself rounding noise — what an exact cancellation leaves, about 10^-P of what
cancelled — would look like an absorbed term at every precision.  So the scales of one
evaluation are compared with those of the same form at the rung below
(:func:`needed`): a term, or a function's argument, that did not keep its first
:data:`STABLE_DIGITS` digits from one rung to the next is noise and is not counted.

Work: every traced call, and every evaluation of an integrand, a series' term or a limit's
function inside the runtime's operators, costs units that grow with the digits
(:func:`cost`); a value's evaluation may use :data:`WORK` of them.  The count depends only on
the form, the inputs and the digits: the same on every machine and at any load.  An evaluation
that passes it raises :class:`~derivations.engine.core.budget.OverBudget` (kind ``work``).
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import mpmath

from derivations.engine.core.budget import OverBudget

__all__ = ["FLOOR", "FUNCTIONS", "Trace", "WORK", "add", "cost", "needed", "opaque", "power",
           "tick", "tracing"]

FLOOR = 12  # scales of this many digits or fewer are not recorded: the first rung carries them
STABLE_DIGITS = 8  # digits a term must keep from one rung to the next to count as a value
LOG10_2 = math.log10(2)
# units a value's evaluation at one precision may use: the heaviest shipped form uses about a
# tenth (python -m derivations verify --budget prints each claim's use)
WORK = 1_000_000


def cost(digits: int, weight: int = 1) -> int:
    """Units of one traced operation at ``digits``: 1 at 50 digits, growing as the square of
    the digits (a multiplication's cost, and less than an elementary function's) — times the
    weight of a special function, whose cost grows faster still."""
    rungs = -(-digits // 50)
    return weight * rungs * rungs


class Trace:
    """The scales recorded while one value was evaluated at one precision."""

    __slots__ = ("active", "calls", "digits", "limit", "records", "unit", "what", "work")

    def __init__(self, digits: int, limit: int = WORK, what: str = "numeric evaluation"):
        self.digits, self.limit, self.what = digits, limit, what
        self.active, self.calls, self.work = True, 0, 0
        self.unit = cost(digits)
        # call number -> (kind, scale in digits, the terms or the argument it was read from)
        self.records: dict[int, tuple[str, float, tuple]] = {}

    def charge(self, units: int) -> None:
        self.work += units
        if self.work > self.limit:
            raise OverBudget(f"{self.what} at {self.digits} digits", "work", self.limit,
                             self.work)

    def raw(self) -> float:
        """The largest scale recorded, noise included."""
        return max((r[1] for r in self.records.values()), default=0.0)


_CURRENT: list[Trace | None] = [None]


@contextmanager
def tracing(trace: Trace):
    """Record the scales of everything evaluated inside into ``trace``."""
    saved = _CURRENT[0]
    _CURRENT[0] = trace
    try:
        yield trace
    finally:
        _CURRENT[0] = saved


def _active() -> Trace | None:
    tr = _CURRENT[0]
    return tr if tr is not None and tr.active else None


def opaque(fn):
    """``fn`` (an integral, a series, a limit, an expectation) with the scales inside it not
    recorded: its integrand is evaluated at nodes far from the point (a tanh-sinh node at 10^10
    absorbs any constant), and its own error estimate decides its digits.  Its evaluations are
    counted as work by :func:`tick`."""
    def wrapped(*args, **kwargs):
        tr = _CURRENT[0]
        if tr is None or not tr.active:
            return fn(*args, **kwargs)
        tr.active = False
        try:
            return fn(*args, **kwargs)
        finally:
            tr.active = True
    wrapped.__wrapped__ = fn
    return wrapped


def tick(value):
    """One evaluation of an operator's body (an integrand, a term): counted, ``value`` returned."""
    tr = _CURRENT[0]
    if tr is not None:
        tr.charge(tr.unit)
    return value


def _mag2(t) -> int | None:
    """log2 of |t| to within one, or None for 0 (and for what is not a finite number)."""
    m = getattr(t, "_mpf_", None)
    if m is not None:
        return m[2] + m[3] if m[1] else None
    m = getattr(t, "_mpc_", None)
    if m is not None:
        parts = [p[2] + p[3] for p in m if p[1]]
        return max(parts) if parts else None
    if isinstance(t, int):
        return t.bit_length() if t else None
    if isinstance(t, float) and t and math.isfinite(t):
        return math.frexp(t)[1]
    return None


def _spread(terms) -> float:
    """Digits between the largest and the smallest nonzero of ``terms``."""
    mags = [m for m in map(_mag2, terms) if m is not None]
    return (max(mags) - min(mags)) * LOG10_2 if len(mags) > 1 else 0.0


def record_terms(terms) -> None:
    """The spread of a sum's terms, recorded in the active trace."""
    tr = _active()
    if tr is None:
        return
    tr.calls += 1
    tr.charge(len(terms) * tr.unit)
    s = _spread(terms)
    if s > FLOOR:
        tr.records[tr.calls] = ("add", s, tuple(terms))


def add(*terms):
    """The sum, added left to right as ``a + b + c`` is; its spread recorded."""
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    if _CURRENT[0] is not None:
        record_terms(terms)
    return total


# --- saturating functions: the digits of the distance to the nearest asymptote ---------------

def _digits_below(distance) -> float:
    """-log10 of a relative distance (an mpf in (0, 1]); 0 for a distance of 1 or more."""
    if distance <= 0 or not mpmath.isfinite(distance):
        return 0.0
    return max(0.0, -float(mpmath.log10(distance)))


def _hyperbolic(u) -> float:
    """cosh, sinh, sech, csch: the e^-|u| part beside the e^|u| one, 2|u|/ln 10 digits below."""
    return 2 * abs(float(u)) / math.log(10) if abs(u) > 10 else 0.0


def _near_one_even(u) -> float:
    """cosh and sech near 0: cosh u − 1 = 2 sinh²(u/2)."""
    if u == 0 or abs(u) > mpmath.mpf("1e-4"):
        return 0.0
    return _digits_below(2 * mpmath.sinh(u / 2) ** 2)


def _tanh(u) -> float:  # 1 − |tanh u| = 2/(e^2|u| + 1); coth alike, |coth u| − 1 = 2/(e^2|u| − 1)
    return _digits_below(2 / (mpmath.exp(2 * abs(u)) + 1)) if abs(u) > 10 else 0.0


def _erf(u) -> float:  # 1 − |erf u| = erfc |u|
    return _digits_below(mpmath.erfc(abs(u))) if abs(u) > 4 else 0.0


def _erfc(u) -> float:  # 2 − erfc u = erfc |u| for u < 0; for u > 0 a small value, not a rounding
    return _digits_below(mpmath.erfc(abs(u)) / 2) if u < -4 else 0.0


def _atan(u) -> float:  # π/2 − |atan u| = atan(1/|u|)
    return _digits_below(mpmath.atan(1 / abs(u)) / (mpmath.pi / 2)) if abs(u) > 1e9 else 0.0


def _acot(u) -> float:  # acot u near 0: π/2 − u
    if u == 0 or abs(u) > 1e-9:
        return 0.0
    return _digits_below(abs(mpmath.atan(u)) / (mpmath.pi / 2))


def _exp(u) -> float:  # e^u = 1 + u near 0
    return _digits_below(abs(u)) if u != 0 and abs(u) < 1e-9 else 0.0


def _cos(u) -> float:  # 1 − |cos u| = sin²u/(1 + |cos u|), near a multiple of π
    return _digits_below(mpmath.sin(u) ** 2 / (1 + abs(mpmath.cos(u)))) if u != 0 else 0.0


def _sin(u) -> float:  # 1 − |sin u| near an odd multiple of π/2
    return _digits_below(mpmath.cos(u) ** 2 / (1 + abs(mpmath.sin(u))))


def _scale(kind, u) -> float:
    if isinstance(u, mpmath.mpc) or not isinstance(u, mpmath.mpf | int | float):
        return 0.0  # complex arguments, numbers of other kinds: no asymptote is read
    # 20 digits of the result; the argument whole (sin u near a multiple of π at u = 10^30
    # needs all of u's digits)
    with mpmath.workdps(20):
        return kind(u if isinstance(u, mpmath.mpf) else mpmath.mpf(u))


def _cosh(u) -> float:
    return max(_hyperbolic(u), _near_one_even(u))


def _coarse_cos(u) -> bool:
    """Whether cos u is plainly away from ±1 (a double tells): most arguments."""
    try:
        return abs(math.cos(float(u))) < 0.999999
    except (OverflowError, ValueError):
        return False


def _coarse_sin(u) -> bool:
    try:
        return abs(math.sin(float(u))) < 0.999999
    except (OverflowError, ValueError):
        return False


# name -> (mpmath function, the digits below its result at an argument, a quick test that there
# are none worth reading — most arguments pass it without an mpmath call)
_TABLE = {
    "tanh": (mpmath.tanh, _tanh, lambda u: abs(u) <= 10),
    "coth": (mpmath.coth, _tanh, lambda u: abs(u) <= 10),
    "cosh": (mpmath.cosh, _cosh, lambda u: 1e-4 < abs(u) <= 10),
    "sech": (mpmath.sech, _cosh, lambda u: 1e-4 < abs(u) <= 10),
    "sinh": (mpmath.sinh, _hyperbolic, lambda u: abs(u) <= 10),
    "csch": (mpmath.csch, _hyperbolic, lambda u: abs(u) <= 10),
    "erf": (mpmath.erf, _erf, lambda u: abs(u) <= 4),
    "erfc": (mpmath.erfc, _erfc, lambda u: u >= -4),
    "atan": (mpmath.atan, _atan, lambda u: abs(u) <= 1e9),
    "acot": (mpmath.acot, _acot, lambda u: u == 0 or abs(u) > 1e-9),
    "exp": (mpmath.exp, _exp, lambda u: u == 0 or abs(u) >= 1e-9),
    "cos": (mpmath.cos, _cos, _coarse_cos),
    "sin": (mpmath.sin, _sin, _coarse_sin),
}


def _traced(name: str, fn, kind, plain):
    def f(u):
        value = fn(u)
        tr = _active()
        if tr is not None:
            tr.calls += 1
            tr.charge(tr.unit)
            if not isinstance(u, mpmath.mpc) and not plain(u):
                s = _scale(kind, u)
                if s > FLOOR:
                    tr.records[tr.calls] = ("fn", s, (u,))
        return value
    f.__name__ = f.__qualname__ = name
    return f


class FUNCTIONS:
    """The traced functions, as the compiled form calls them: ``_rt.t.tanh(u)``."""


for _name, (_fn, _kind, _plain) in _TABLE.items():
    setattr(FUNCTIONS, _name, staticmethod(_traced(_name, _fn, _kind, _plain)))


def power_scale(base, exponent) -> None:
    """b^e with a symbolic exponent near 0: b^e − 1 = e log b."""
    tr = _active()
    if tr is None:
        return
    tr.calls += 1
    tr.charge(tr.unit)
    if not (isinstance(base, mpmath.mpf) and isinstance(exponent, mpmath.mpf)) or base <= 0:
        return
    with mpmath.workdps(20):
        gap = abs(exponent * mpmath.log(base))
        s = _digits_below(gap) if gap != 0 and gap < 1e-9 else 0.0
    if s > FLOOR:
        tr.records[tr.calls] = ("fn", s, (exponent,))


def power(pow_fn):
    """The runtime's power with its scale recorded (see :func:`power_scale`)."""
    def f(base, exponent):
        value = pow_fn(base, exponent)
        if _CURRENT[0] is not None:
            power_scale(base, exponent)
        return value
    f.__wrapped__ = pow_fn
    return f


# --- the scales that count: those of values, not of rounding noise ----------------------------

def _stable(new, old) -> bool:
    if _mag2(new) is None or _mag2(old) is None:
        return False
    with mpmath.workdps(20):
        return abs(new - old) <= abs(new) * mpmath.mpf(10) ** -STABLE_DIGITS


def needed(trace: Trace, below: Trace | None) -> float:
    """The digits below the leading ones that the evaluation recorded in ``trace`` holds: its
    largest scale, counting only terms and arguments that are the same to
    :data:`STABLE_DIGITS` digits in ``below`` (the same form evaluated at a lower precision).
    Without ``below``, or when the two evaluations did not take the same path, every scale
    counts."""
    if below is None or below.calls != trace.calls:
        return trace.raw()
    out = 0.0
    for call, (kind, scale, values) in trace.records.items():
        old = below.records.get(call)
        if old is None or old[0] != kind or len(old[2]) != len(values):
            out = max(out, scale)  # its spread was small below: counted, the next rung tells
            continue
        if kind == "add":
            kept = [t for t, s in zip(values, old[2], strict=True) if _stable(t, s)]
            out = max(out, _spread(kept))
        elif _stable(values[0], old[2][0]):
            out = max(out, scale)
    return out
