"""Numbers as a note shows them: decimals read as the rationals they print as, and ``≈`` judged
against the digits shown.

``x ≈ 0.27`` holds when the exact value of x, rounded to the two decimals the note shows, is
0.27 — not when it is merely near: 0.2689… rounds to 0.27 (right), 0.2649… to 0.26 (wrong, though
within 0.01).  A value exactly halfway between two roundings accepts either.  The value is
computed twice, by SymPy's ``evalf`` and by mpmath from a lambdified form at more digits, and
the two must agree before anything is judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp

from derivations.notes.reasons import say

DIGITS = 60  # digits of each evaluation: far more than any rounding a note shows
_DECIMAL = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?(?:\s*\\times\s*10\^\{?[-−]?\d+\}?)?")
_SCI = re.compile(r"\\times\s*10\^\{?([-−]?\d+)\}?")


@dataclass(frozen=True)
class Shown:
    """A number as the note writes it: its exact value and its decimals after the point."""

    text: str
    value: Fraction
    decimals: int  # 0.27 → 2; 3 → 0; 1.2 × 10⁻⁵ → 6; 5.4 × 10⁸ → −7 (rounded to 10⁷)


_NUMBER = r"[-−]?\d+(?:\.\d+)?(?:\s*\\times\s*10\^\{?[-−]?\d+\}?)?"
_LITERAL = re.compile(r"\s*(?:\[|\(|\\left[\[(])?\s*" + _NUMBER + r"(?:\s*,\s*" + _NUMBER
                      + r")*\s*(?:\]|\)|\\right[\])])?\s*")


def is_literal(latex: str) -> bool:
    """Whether ``latex`` is only a number, or a list of numbers, as written (0.27, −1.342,
    5.4 × 10^{8}, (0.27, 0.73))."""
    return bool(_LITERAL.fullmatch(latex))


def shown_numbers(latex: str) -> list[Shown]:
    """The decimal numbers of ``latex`` in order (``[0.27, 0.73]`` → two)."""
    out = []
    for m in _DECIMAL.finditer(latex):
        text = m.group(0).replace("−", "-")
        sci = _SCI.search(text)
        mantissa = text[:sci.start()].strip() if sci else text
        exponent = int(sci.group(1).replace("−", "-")) if sci else 0
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        value = Fraction(mantissa) * Fraction(10) ** exponent
        out.append(Shown(m.group(0), value, decimals - exponent))
    return out


class NotANumber(ValueError):
    """The expression has free symbols or the two evaluations disagree."""


def exact_value(expr: sp.Basic) -> mpmath.mpf:
    """The value of a closed expression, confirmed by two evaluations."""
    if getattr(expr, "free_symbols", None):
        names = ", ".join(sorted(map(str, expr.free_symbols)))
        raise NotANumber(say("approx.symbols_left", names=names))
    first = sp.N(expr, DIGITS)
    if not first.is_real or not first.is_number:
        raise NotANumber(say("approx.not_real", value=first))
    with mpmath.workdps(DIGITS + 20):
        second = sp.lambdify((), expr, modules="mpmath")()
        second = mpmath.mpf(second) if not isinstance(second, mpmath.mpc) else second
        if isinstance(second, mpmath.mpc):
            raise NotANumber(say("approx.not_real", value=second))
        a = mpmath.mpf(str(first))
        scale = max(abs(a), abs(second), mpmath.mpf(1))
        if abs(a - second) > scale * mpmath.mpf(10) ** (-(DIGITS - 10)):
            raise NotANumber(say("approx.disagree", a=a, b=second))
        return second


def rounds_to(value: mpmath.mpf, shown: Shown) -> tuple[bool, str]:
    """Whether ``value`` rounded to ``shown.decimals`` decimals is ``shown.value``, and the
    value rounded to two more digits, for the reason."""
    with mpmath.workdps(DIGITS + 20):
        scaled = value * mpmath.power(10, shown.decimals)
        lower = mpmath.floor(scaled + mpmath.mpf(1) / 2)
        tie = abs(scaled - mpmath.floor(scaled) - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -40
        candidates = {int(lower)} | ({int(lower) - 1} if tie else set())
        target = shown.value * Fraction(10) ** shown.decimals
        ok = target.denominator == 1 and int(target) in candidates
        digits = len(str(abs(int(value)))) if abs(value) >= 1 else 0
        more = mpmath.nstr(value, max(digits + shown.decimals + 2, 4), strip_zeros=False)
    return ok, more


# With "=" a note may round, but only as a reader recognises it: a decimal point and at least
# this many significant digits (e^{-1} = 0.37).  "1 - 0.9 = 0", "0.9^{10} = 0.3" or "1/8 = 0.1"
# are no roundings anyone reads from "=": they are wrong, and said so.
EQUAL_DIGITS = 2


def rounding_said_by_equal(shown: Shown) -> bool:
    """Whether ``= shown`` may be read as a rounding: a decimal with ``EQUAL_DIGITS``
    significant digits or more (an integer after = is exact)."""
    mantissa = _SCI.split(shown.text)[0].strip().lstrip("-−")
    if "." not in mantissa:
        return False
    return len(mantissa.replace(".", "").lstrip("0")) >= EQUAL_DIGITS


# a decimal a note may have rounded (2.0794, 0.6931): a point and digits, not the mantissa of
# a power of ten, and not inside a name or a command
_ROUNDABLE = re.compile(r"(?<![\w.\\])\d+\.\d+(?![\d.])(?!\s*\\times\s*10)")
# what each such decimal is replaced by before the side is read again
STAND_IN = "rnd"


def with_stand_ins(latex: str) -> tuple[str, dict[str, Shown]]:
    """``latex`` with each decimal replaced by a name of its own (``\\mathrm{rnd}_{1}`` …),
    and the decimal each name stands for; no decimal: ``(latex, {})``."""
    shown: dict[str, Shown] = {}

    def swap(m):
        k = len(shown) + 1
        text = m.group(0)
        shown[f"{STAND_IN}_{k}"] = Shown(text, Fraction(text), len(text.split(".")[1]))
        return rf"\mathrm{{{STAND_IN}}}_{{{k}}}"

    return _ROUNDABLE.sub(swap, latex), shown


def interval(expr, shown: dict[str, Shown]):
    """The values ``expr`` takes while each stand-in ranges over the numbers its decimal is a
    rounding of (2.0794: [2.07935, 2.07945]), as an mpmath interval, in exact interval
    arithmetic; NotANumber for what it cannot bound."""
    iv = mpmath.iv

    def half_unit(s: Shown):
        h = Fraction(1, 2 * 10 ** s.decimals)
        lo, hi = s.value - h, s.value + h
        return iv.mpf([mpmath.mpf(lo.numerator) / lo.denominator,
                       mpmath.mpf(hi.numerator) / hi.denominator])

    def walk(e):
        if isinstance(e, sp.Symbol):
            if e.name not in shown:
                raise NotANumber(say("approx.symbol_left", name=e.name))
            return half_unit(shown[e.name])
        if isinstance(e, sp.Rational):
            return iv.mpf(int(e.p)) / int(e.q)
        if e is sp.pi:
            return iv.pi
        if e is sp.E:
            return iv.e
        if isinstance(e, sp.Add):
            out = iv.mpf(0)
            for a in e.args:
                out = out + walk(a)
            return out
        if isinstance(e, sp.Mul):
            out = iv.mpf(1)
            for a in e.args:
                out = out * walk(a)
            return out
        if isinstance(e, sp.Pow):
            base = walk(e.base)
            if e.exp.is_Integer:
                return base ** int(e.exp)
            if not base.a > 0:
                raise NotANumber("a power of a base that may not be positive")
            return iv.exp(walk(e.exp) * iv.log(base))
        if isinstance(e, sp.exp):
            return iv.exp(walk(e.args[0]))
        if isinstance(e, sp.log) and len(e.args) == 1:
            inner = walk(e.args[0])
            if not inner.a > 0:
                raise NotANumber("a logarithm of what may not be positive")
            return iv.log(inner)
        raise NotANumber(say("approx.unbounded", what=type(e).__name__))

    before = iv.dps
    iv.dps = DIGITS
    try:
        return walk(expr)
    finally:
        iv.dps = before


def within(value: mpmath.mpf, span) -> bool:
    return bool(span.a <= value <= span.b)
