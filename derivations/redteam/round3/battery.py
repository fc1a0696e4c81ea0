"""The battery — every function the engine evaluates, at x = ±10^k, k = 0..3.

For each function, at each of the eight points a FALSE claim that the function equals its limit
or leading asymptotic form there (tanh 1000 = 1, e^1000 = 2 sinh 1000, erf(−100) = −1,
Γ(−1000.5) = 0, √−10 = √10 ...; for the piecewise functions, whose value at ±10^k *is* their
limit, the argument is pulled towards the jump by a saturating gap: ⌊1000 tanh 1000⌋ = 1000),
and on each side a TRUE exact identity over the whole range 1..1000 (or −1000..−1).

Each formula is written once as ``f(L, v) -> (lhs, rhs)`` and read with ``L`` = SymPy (to build
the claim) or ``L`` = mpmath (the witness): the witness evaluates it at 1200 digits, and where the
difference is below even that (erf(1000) − 1 = −erfc(1000) ~ 10^-434298) computes the gap with a
function free of cancellation — the spec's ``gap`` — whose equality to the difference is a
definition (erfc = 1 − erf).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import mpmath as mp
import sympy as sp

from derivations import Domain
from derivations.redteam.round3.common import add_to, claim, pts

CLS = "battery"
CASES: list = []
add = add_to(CASES, CLS)

x = sp.Symbol("x", real=True)
POINTS = (1, 10, 100, 1000)
FALSE_DPS = 1200


class SP:
    exp, log, sqrt, sin, cos, atan = sp.exp, sp.log, sp.sqrt, sp.sin, sp.cos, sp.atan
    cosh, sinh, tanh, erf, erfc = sp.cosh, sp.sinh, sp.tanh, sp.erf, sp.erfc
    gamma, loggamma, floor = sp.gamma, sp.loggamma, sp.floor
    Heaviside, Max, Abs, sign = sp.Heaviside, sp.Max, sp.Abs, sp.sign
    I, pi = sp.I, sp.pi

    @staticmethod
    def half():
        return sp.Rational(1, 2)

    @staticmethod
    def atanh_(v):  # log v = 2 atanh((v − 1)/(v + 1)) for v > 0
        return sp.atanh((v - 1) / (v + 1))


class MP:
    exp, log, sqrt, sin, cos, atan = mp.exp, mp.log, mp.sqrt, mp.sin, mp.cos, mp.atan
    cosh, sinh, tanh, erf, erfc = mp.cosh, mp.sinh, mp.tanh, mp.erf, mp.erfc
    gamma, loggamma, floor = mp.gamma, mp.loggamma, mp.floor
    I, pi = mp.j, mp.pi
    Max, Abs = max, abs

    @staticmethod
    def Heaviside(v):  # SymPy's convention: H(0) = 1/2
        return mp.mpf(0) if v < 0 else mp.mpf(1) if v > 0 else mp.mpf(1) / 2

    @staticmethod
    def sign(v):
        return mp.mpf(0) if v == 0 else mp.mpf(1) if v > 0 else mp.mpf(-1)

    @staticmethod
    def half():
        return mp.mpf(1) / 2

    @staticmethod
    def atanh_(v):
        return mp.atanh((v - 1) / (v + 1))


Form = Callable[[type, object], tuple]


@dataclass(frozen=True)
class Spec:
    name: str
    pos: Form  # the false claim at +10^k
    neg: Form  # the false claim at −10^k
    pos_true: Form  # an identity on (1, 1000)
    neg_true: Form  # an identity on (−1000, −1)
    gap_pos: Callable | None = None  # the difference at +P, free of cancellation
    gap_neg: Callable | None = None
    # the identity's witness: digits, and the slack (10^(slack − dps) of the larger side, or of
    # 1) that absorbs the rounding of intermediate terms up to 10^slack times the result
    true_dps: int = 80
    true_slack: int = 20
    poles: bool = False  # undefined at integers on the negative side: the ends are skipped


SPECS = [
    Spec("exp", lambda L, v: (L.exp(v), 2 * L.sinh(v)), lambda L, v: (L.exp(v), 0),
         lambda L, v: (L.exp(v), L.cosh(v) + L.sinh(v)),
         lambda L, v: (L.exp(v), L.cosh(v) + L.sinh(v)), true_dps=2000, true_slack=500),
    Spec("log", lambda L, v: (L.log(v), L.log(v + 1)), lambda L, v: (L.log(v), L.log(-v)),
         lambda L, v: (L.log(v), 2 * L.atanh_(v)),
         lambda L, v: (L.log(v), L.log(-v) + L.I * L.pi)),
    Spec("sqrt", lambda L, v: (L.sqrt(v), L.sqrt(v + 1)), lambda L, v: (L.sqrt(v), L.sqrt(-v)),
         lambda L, v: (L.sqrt(v + 1) - L.sqrt(v), 1 / (L.sqrt(v + 1) + L.sqrt(v))),
         lambda L, v: (L.sqrt(v), L.I * L.sqrt(-v)), true_dps=200),
    Spec("sin", lambda L, v: (L.sin(v) / v, 0), lambda L, v: (L.sin(v) / v, 0),
         lambda L, v: (L.sin(v), 2 * L.sin(v / 2) * L.cos(v / 2)),
         lambda L, v: (L.sin(v), 2 * L.sin(v / 2) * L.cos(v / 2))),
    Spec("atan", lambda L, v: (L.atan(v), L.pi / 2), lambda L, v: (L.atan(v), -L.pi / 2),
         lambda L, v: (L.atan(v), L.pi / 2 - L.atan(1 / v)),
         lambda L, v: (L.atan(v), -L.pi / 2 - L.atan(1 / v))),
    Spec("cosh", lambda L, v: (L.cosh(v), L.exp(v) / 2), lambda L, v: (L.cosh(v), L.exp(-v) / 2),
         lambda L, v: (L.cosh(v) ** 2 - L.sinh(v) ** 2, 1),
         lambda L, v: (L.cosh(v), 1 + 2 * L.sinh(v / 2) ** 2), true_dps=2000, true_slack=900),
    Spec("tanh", lambda L, v: (L.tanh(v), 1), lambda L, v: (L.tanh(v), -1),
         lambda L, v: (L.tanh(v), 1 - 2 / (L.exp(2 * v) + 1)),
         lambda L, v: (L.tanh(v), 2 / (1 + L.exp(-2 * v)) - 1), true_dps=1000),
    Spec("erf", lambda L, v: (L.erf(v), 1), lambda L, v: (L.erf(v), -1),
         lambda L, v: (L.erf(v), 1 - L.erfc(v)), lambda L, v: (L.erf(v), L.erfc(-v) - 1),
         gap_pos=lambda p: -mp.erfc(p), gap_neg=lambda p: mp.erfc(p)),
    Spec("erfc", lambda L, v: (L.erfc(v), 0), lambda L, v: (L.erfc(v), 2),
         lambda L, v: (L.erfc(v), 1 - L.erf(v)), lambda L, v: (L.erfc(v), 1 + L.erf(abs(v))),
         gap_pos=lambda p: mp.erfc(p), gap_neg=lambda p: -mp.erfc(p)),
    Spec("gamma",  # Stirling's leading term at +P; at −P − 1/2 (between poles) the limit 0
         lambda L, v: (L.gamma(v), L.sqrt(2 * L.pi / v) * (v / L.exp(1)) ** v),
         lambda L, v: (L.gamma(v - L.half()), 0),
         lambda L, v: (L.gamma(v + 1), v * L.gamma(v)),
         lambda L, v: (L.gamma(v) * L.gamma(1 - v), L.pi / L.sin(L.pi * v)), poles=True,
         gap_neg=lambda p: mp.gamma(-p - mp.mpf(1) / 2)),
    Spec("loggamma",  # Stirling without 1/(12x); at −P − 1/2 the real part alone
         lambda L, v: (L.loggamma(v), (v - L.half()) * L.log(v) - v + L.log(2 * L.pi) / 2),
         lambda L, v: (L.loggamma(v - L.half()), L.log(L.Abs(L.gamma(v - L.half())))),
         lambda L, v: (L.loggamma(v + 1), L.loggamma(v) + L.log(v)),
         lambda L, v: (L.exp(L.loggamma(v)), L.gamma(v)), poles=True),
    Spec("Heaviside",  # H of an argument within 10^-866 of 0 is not H(0) = 1/2
         lambda L, v: (L.Heaviside(v * (L.tanh(v) - 1)), L.half()),
         lambda L, v: (L.Heaviside(v * (L.tanh(-v) - 1)), L.half()),
         lambda L, v: (L.Heaviside(v), (1 + L.sign(v)) / 2),
         lambda L, v: (L.Heaviside(v), (1 + L.sign(v)) / 2)),
    Spec("Max",
         lambda L, v: (L.Max(v, v * L.tanh(v)), v * L.tanh(v)),
         lambda L, v: (L.Max(v, v * L.tanh(-v)), v),
         lambda L, v: (L.Max(v, v * L.tanh(v)), v),
         lambda L, v: (L.Max(v, v * L.tanh(-v)), v * L.tanh(-v))),
    Spec("Abs",
         lambda L, v: (L.Abs(v - v * L.tanh(v)), 0), lambda L, v: (L.Abs(v + v * L.tanh(v)), 0),
         lambda L, v: (L.Abs(L.tanh(v)), L.tanh(L.Abs(v))),
         lambda L, v: (L.Abs(L.tanh(v)), L.tanh(L.Abs(v)))),
    Spec("sign",
         lambda L, v: (L.sign(v * L.tanh(v) - v), 0),
         lambda L, v: (L.sign(v * L.tanh(-v) - v), 0),
         lambda L, v: (L.sign(L.tanh(v)), L.sign(v)), lambda L, v: (L.sign(L.tanh(v)), L.sign(v))),
    Spec("floor",  # ⌊P tanh P⌋ = P − 1 and ⌊−P/tanh P⌋ = −P − 1
         lambda L, v: (L.floor(v * L.tanh(v)), v), lambda L, v: (L.floor(v / L.tanh(-v)), v),
         lambda L, v: (L.floor(v + 1), L.floor(v) + 1),
         lambda L, v: (L.floor(v + 1), L.floor(v) + 1)),
]


def false_witness(spec: Spec, sign: int, power: int) -> bool:
    """The claim's truth at v = sign·power: False when the sides differ at 1200 digits or, below
    that, when the spec's cancellation-free gap is not 0."""
    form = spec.pos if sign > 0 else spec.neg
    with mp.workdps(FALSE_DPS):
        v = mp.mpf(sign * power)
        lhs, rhs = form(MP, v)
        diff = abs(lhs - rhs)
        if diff > mp.mpf(10) ** (30 - FALSE_DPS) * max(1, abs(lhs), abs(rhs)):
            return False
    gap = spec.gap_pos if sign > 0 else spec.gap_neg
    if gap is not None:
        with mp.workdps(60):
            if gap(mp.mpf(power)) != 0:
                return False
    return True


def true_witness(spec: Spec, sign: int) -> bool:
    form = spec.pos_true if sign > 0 else spec.neg_true
    with mp.workdps(spec.true_dps):
        tol = mp.mpf(10) ** (spec.true_slack - spec.true_dps)
        points = pts(1, 1000, 10, zlib.crc32(spec.name.encode()), log=True)
        if sign < 0 and spec.poles:  # Γ has poles at −1 and −1000: just inside the ends
            points = [mp.mpf("1.001"), mp.mpf("999.999"), *points[2:]]
        for p in points:
            v = sign * p
            lhs, rhs = form(MP, v)
            if abs(lhs - rhs) > tol * max(1, abs(lhs), abs(rhs)):
                return False
    return True


def _false_case(spec, sign, power):
    side = "pos" if sign > 0 else "neg"
    cid = f"bat_{spec.name}_{side}_1e{len(str(power)) - 1}"
    form = spec.pos if sign > 0 else spec.neg

    def build():
        lhs, rhs = form(SP, sp.Integer(sign * power))
        return claim(cid, lhs, rhs)
    add(cid, False, build, lambda: false_witness(spec, sign, power))


def _true_case(spec, sign):
    side = "pos" if sign > 0 else "neg"
    cid = f"bat_{spec.name}_{side}_identity"
    form = spec.pos_true if sign > 0 else spec.neg_true
    dom = Domain(ranges={x: (1, 1000) if sign > 0 else (-1000, -1)})

    def build():
        lhs, rhs = form(SP, x)
        return claim(cid, lhs, rhs, dom)
    add(cid, True, build, lambda: true_witness(spec, sign))


for _spec in SPECS:
    for _sign in (1, -1):
        for _power in POINTS:
            _false_case(_spec, _sign, _power)
        _true_case(_spec, _sign)
