"""What the cases of the own methods' red team share: symbols, claims, witnesses' helpers (mpmath
and plain Python, never SymPy) and the registry the modules add to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mpmath as mp
import sympy as sp

from derivations.engine import Derivation, Domain, Step

# ---------------------------------------------------------------- symbols
n = sp.Symbol("n", integer=True, positive=True)  # size / sequence variable
k = sp.Symbol("k", integer=True)  # bound summation index
l = sp.Symbol("l", integer=True)
i_ = sp.Symbol("i", integer=True)
j = sp.Symbol("j", integer=True, positive=True)  # declared index
x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
a = sp.Symbol("a", real=True)
mu = sp.Symbol("mu", real=True)
s = sp.Symbol("s", positive=True)  # a standard deviation
X = sp.Symbol("X", real=True)
Y = sp.Symbol("Y", real=True)
H = sp.Heaviside
Mod = sp.Mod
half = sp.S.Half
T10 = sp.Integer(10)


def claim(cid, lhs, rhs, dom=None):
    return Derivation(
        cid,
        cid,
        sp.Eq(lhs, rhs, evaluate=False),
        (),
        (Step(rhs, "claimed"),),
        dom if dom is not None else Domain(),
    )


def lim(e):
    return sp.Limit(e, n, sp.oo)


def normal(rv_params, **kw):
    return Domain(random=rv_params, distribution="normal", **kw)


@dataclass
class Raw:
    id: str
    truth: bool
    build: Callable[[], Derivation]
    check: Callable[[], tuple]
    note: str = ""


RAW: list[Raw] = []


def case(cid, truth, note=""):
    def deco(fn):
        build, check = fn()
        RAW.append(Raw(cid, truth, build, check, note))
        return fn

    return deco


# ---------------------------------------------------------------- helpers (no SymPy)
def py_heaviside(v):
    return 0.0 if v < 0 else (1.0 if v > 0 else 0.5)


def py_sign(v):
    return (v > 0) - (v < 0)


DIFFER_TOL = mp.mpf(10) ** -25


def differ(u, v, tol=DIFFER_TOL):
    return abs(mp.mpc(u) - mp.mpc(v)) > tol


def seq_no_limit(f, subs):
    """f: python function of an int; subs: list of (name, big-n generator). Show two
    subsequences with different (stable) values -> no limit."""
    vals = {}
    for name, g in subs:
        vals[name] = [f(g(m)) for m in (10**20, 10**25, 10**30)]
    stable = {k2: v for k2, v in vals.items()}
    distinct = {round(float(mp.re(v[-1])), 12) for v in stable.values()}
    return len(distinct) > 1, f"subsequence values {stable}"


def nquad_normal(f, m=0, sd=1, cuts=()):
    m = mp.mpf(m)
    sd = mp.mpf(sd)
    def pdf(t):
        return mp.exp(-((t - m) ** 2) / (2 * sd**2)) / (sd * mp.sqrt(2 * mp.pi))
    pts = [-mp.inf] + sorted(mp.mpf(c) for c in cuts) + [mp.inf]
    return mp.quad(lambda t: f(t) * pdf(t), pts)
