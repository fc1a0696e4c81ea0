"""python -m derivations.redteam.sympy_vs_mpmath — where SymPy's closed forms are wrong.

Batteries that compute a definite integral, a limit, a sum or a product twice: with SymPy
(``integrate``, ``limit``, ``Sum/Product.doit``, ``rewrite``/``expand_func``) and with mpmath from
the definition (``quad`` split at the kinks, ``nsum``, ``nprod``, the sequence at large n, a loop
over the terms). Each closed form is evaluated at a few points of its free parameter. Every
discrepancy is printed; the cases in ``battery.py`` are built from what this finds. It never
imports the engine. About two minutes.
"""

from __future__ import annotations

import signal
import sys
import time

import mpmath as mp
import sympy as sp

mp.mp.dps = 30
x = sp.Symbol("x", real=True)
a = sp.Symbol("a", real=True)
p = sp.Symbol("p", positive=True)
i = sp.Symbol("i", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
pi = sp.pi
oo = sp.oo
R = sp.Rational

FOUND: list[str] = []


class _Timeout(Exception):
    pass


def _alarm(*_):
    raise _Timeout


def timed(fn, seconds=20):
    """fn() with a wall-clock limit; returns (value, error text or None)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        return fn(), None
    except _Timeout:
        return None, "timeout"
    except Exception as exc:  # noqa: BLE001 - any SymPy failure is a result here
        return None, f"{type(exc).__name__}: {str(exc)[:60]}"
    finally:
        signal.alarm(0)


def num(expr, subs=None):
    """SymPy's value of a closed form at a point, as an mpmath number (None if it has none)."""
    if expr is None:
        return None
    e = expr.subs(subs or {})
    if e.has(sp.Integral, sp.Sum, sp.Product, sp.Limit):
        return None  # left unevaluated: not a closed form
    if e.has(sp.zoo, sp.nan) or e.is_infinite:
        return e
    try:
        v = sp.N(e, 30)
        return mp.mpc(complex(v)) if not v.is_real else mp.mpf(str(v))
    except Exception:  # noqa: BLE001
        return None


def differs(s, t, tol=None):
    tol = mp.mpf(10) ** -15 if tol is None else tol
    if s is None:
        return False  # nothing claimed
    if not isinstance(s, (mp.mpf, mp.mpc)):
        return t is not None and mp.isfinite(t)  # SymPy says oo/zoo/nan, the truth is finite
    if t is None:
        return True  # SymPy gives a number, the truth is divergent / does not exist
    return abs(s - t) > tol * (1 + abs(t))


def report(kind, label, sympy_form, point, s, t):
    line = (f"{kind:9s} {label}{'' if point is None else f' at {point}'}: "
            f"SymPy {str(sympy_form)[:90]} = {_fmt(s)}, true {_fmt(t)}")
    FOUND.append(line)
    print(line, flush=True)


def _fmt(v):
    if v is None:
        return "divergent / no limit"
    if isinstance(v, (mp.mpf, mp.mpc)):
        return mp.nstr(v, 12)
    return str(v)


# ---- integrals ----------------------------------------------------------------------------------
def quad(f, lo, hi, cuts=()):
    """mpmath.quad of f over [lo, hi], split at the given kinks/singular points inside."""
    lo_, hi_ = (mp.inf if e == oo else -mp.inf if e == -oo else mp.mpf(sp.N(e, 40))
                for e in (lo, hi))
    inner = sorted(mp.mpf(c) for c in cuts if lo_ < mp.mpf(c) < hi_)
    return mp.quad(f, [lo_, *inner, hi_], maxdegree=10)


# (integrand, lower, upper, parameter or None, parameter values, kinks as function of the value)
INTEGRALS = [
    (sp.atan(sp.tan(x)), 0, pi, None, [None], lambda v: [mp.pi / 2]),
    (sp.sign(sp.sin(x)), 0, 3 * pi, None, [None], lambda v: [mp.pi, 2 * mp.pi]),
    (sp.Abs(sp.sin(x)), 0, 2 * pi, None, [None], lambda v: [mp.pi]),
    (1 / (x**2 + 2 * a * x + 1), 0, 1, a, [R(-1, 2), 0, R(1, 2), 2], lambda v: []),
    (1 / (x**2 + a * x + 1), 0, 1, a, [0, 1, 3], lambda v: []),
    (1 / (x**2 + p), 0, 1, p, [R(1, 4), 1, 3], lambda v: []),
    (1 / (x**2 - 2 * a * x + 1), -1, 1, a, [R(-1, 2), R(1, 3)], lambda v: []),
    (x / (x**2 + 2 * a * x + 1), 0, 1, a, [R(1, 2), 2], lambda v: []),
    (1 / (a + sp.cos(x)), 0, 2 * pi, a, [-3, 2, 5], lambda v: [mp.pi]),
    (1 / (a - sp.sin(x)), 0, 2 * pi, a, [-3, 2, 5], lambda v: [mp.pi]),
    (1 / (a + sp.sin(x)), 0, 2 * pi, a, [2, 5], lambda v: [mp.pi]),
    (1 / (p**2 + sp.cos(x) ** 2), 0, 2 * pi, p, [R(1, 2), 2], lambda v: [mp.pi]),
    (sp.cos(x) / (a + sp.cos(x)), 0, 2 * pi, a, [2, 5], lambda v: [mp.pi]),
    (sp.sqrt(x**2 + a), 0, 1, a, [R(-1, 2), R(-1, 4), R(1, 2)],
     lambda v: [mp.sqrt(-v)] if v < 0 else []),
    (1 / sp.sqrt(a**2 - x**2), 0, R(1, 2), a, [-2, 3], lambda v: []),
    (sp.sqrt(a**2 - x**2), 0, R(1, 2), a, [-2, 3], lambda v: []),
    (1 / (x - a), 0, 1, a, [R(1, 3), 2], lambda v: [v]),
    (sp.log(sp.Abs(x - a)), 0, 1, a, [R(1, 3), 2], lambda v: [v]),
    (sp.Abs(x - a), 0, 1, a, [R(1, 3), 2], lambda v: [v]),
    (sp.exp(-p * x) * sp.log(x), 0, oo, p, [R(1, 2), 3], lambda v: [1]),
    (sp.exp(-(x**2)) * sp.erf(a * x), 0, oo, a, [R(1, 2), 2], lambda v: []),
    (sp.sqrt(1 - sp.cos(x)), 0, 2 * pi, None, [None], lambda v: [mp.pi]),
    (sp.sqrt(1 - sp.sin(2 * x)), 0, pi, None, [None], lambda v: [mp.pi / 4]),
    (x / (sp.exp(x) - 1), 0, oo, None, [None], lambda v: []),
    (x * sp.floor(x), 0, 3, None, [None], lambda v: [1, 2]),
    (x**p * sp.log(x), 0, 1, p, [R(1, 2), 2], lambda v: []),
]


def integrals():
    for f, lo, hi, par, vals, cuts in INTEGRALS:
        form, err = timed(lambda f=f, lo=lo, hi=hi: sp.integrate(f, (x, lo, hi)), 15)
        if err or form is None or form.has(sp.Integral):
            print(f"  (integral of {f} over [{lo}, {hi}] not closed: {err or 'unevaluated'})")
            if form is None or not form.has(sp.Integral):
                continue
        for v in vals:
            subs = {par: v} if par is not None else {}
            fv = sp.lambdify(x, f.subs(subs), "mpmath")
            mv = None if v is None else mp.mpf(sp.Rational(v).p) / sp.Rational(v).q
            try:
                t = quad(fv, lo, hi, cuts(mv))
                tail = quad(fv, lo, hi, [*cuts(mv), *(c + mp.mpf(10) ** -12 for c in cuts(mv))])
                t = t if abs(t - tail) < mp.mpf(10) ** -8 * (1 + abs(t)) else None
            except Exception:  # noqa: BLE001 - a pole: divergent
                t = None
            s = num(form, subs)
            if s is None and form.has(sp.Integral):
                # SymPy rewrote the integrand: evaluate its rewritten Integral by quadrature
                inner = [g for g in form.atoms(sp.Integral)]
                if len(inner) == 1 and inner[0].limits[0][1:] == (lo, hi):
                    g = sp.lambdify(x, inner[0].function.subs(subs), "mpmath")
                    s = quad(g, lo, hi, cuts(mv))
            if differs(s, t, mp.mpf(10) ** -10):
                report("integral", f"∫_{lo}^{hi} {f} dx", form,
                       None if v is None else f"{par}={v}", s, t)


# ---- limits of integer sequences ----------------------------------------------------------------
LIMITS = [
    n * sp.sin(pi / n), n * sp.tan(pi / n), n * sp.sin(2 * pi / n), n * sp.sin(pi / (2 * n)),
    n**2 * (1 - sp.cos(pi / n)), n * (1 - sp.cos(pi / n)), sp.sin(pi / n) / sp.sin(pi / (2 * n)),
    n * sp.sin(pi / n) * sp.cos(pi / n), n * sp.sin(3 / n), sp.cos(pi / n) ** (n**2),
    sp.Mod(n, 2), sp.Mod(n, 2) / n, sp.Mod(n, 5) / n, sp.Mod(n, 2) * n / (n + 1),
    sp.Mod(n, 2) + 1 / n, sp.Mod(n, 2) / n**2, sp.Mod(n**2, 2), sp.Mod(n**2 + n + 1, 2),
    sp.Mod(n, 2) * sp.Mod(n + 1, 2), n - 2 * sp.floor(n / 2), sp.floor(n / 2) - n / 2,
    sp.ceiling(n / 2) - n / 2, sp.floor(n / 2) / n, sp.floor(sp.sqrt(n)) ** 2 / n,
    (-1) ** n / n, (1 + (-1) ** n) / 2, ((-1) ** n + 1) ** 2 / n,
    sp.sin(pi * n / 2) ** 2, sp.frac(n / 2), sp.frac(n / 2) + sp.frac((n + 1) / 2),
    sp.sin(n) / n, (-1) ** n * sp.exp(-n), sp.factorial(n) / n**n,
]


def sequence_limit(expr):
    """The limit of expr(n), n = 1, 2, ... from its values at large n (None: no limit)."""
    f = sp.lambdify(n, expr, "mpmath")
    with mp.workdps(60):
        tails = [[f(mp.mpf(10) ** k + r) for r in range(6)] for k in (12, 16)]
    last = tails[-1]
    spread = max(abs(u - last[0]) for u in last)
    if spread > mp.mpf(10) ** -8:
        return None
    if abs(last[0]) > 10**8 and abs(last[0]) > 100 * abs(tails[0][0]):
        return None  # grows without bound: not a finite limit
    return mp.mpf(mp.nstr(last[0], 20)) if abs(mp.im(last[0])) < 1e-20 else last[0]


def limits():
    for e in LIMITS:
        form, err = timed(lambda e=e: sp.limit(e, n, oo), 20)
        t = sequence_limit(e)
        if err:
            print(f"  (limit of {e}: SymPy {err}; the sequence tends to {_fmt(t)})")
            continue
        if form.has(sp.Limit) or isinstance(form, sp.AccumBounds) or form.has(sp.AccumBounds):
            if t is not None:
                print(f"  (limit of {e}: SymPy {form}; the sequence tends to {_fmt(t)})")
            continue
        s = num(form)
        if differs(s, t, mp.mpf(10) ** -10):
            report("limit", f"lim_(n→∞) {e}, n integer", form, None, s, t)


# ---- sums and products: reversed bounds, symbolic bounds, infinite ------------------------------
def textbook_sum(f, lo, hi):
    return sum((f(k) for k in range(lo, hi + 1)), mp.mpf(0))  # empty when hi < lo


def textbook_product(f, lo, hi):
    out = mp.mpf(1)
    for k in range(lo, hi + 1):
        out *= f(k)
    return out


FINITE_SUMS = [(i, 1, -3), (i**2, 1, -2), (sp.S.One, 1, -5), (sp.S.One, 5, 1), (1 / i, 5, 2),
               (2**i, 3, 0), (i, 1, 0), (i, n, n - 3), (sp.S.One, n + 2, n), (i**2, n, n - 4),
               (sp.S.One, 1, n - 5), (i, 1, n - 3), ((-1) ** i, 1, n),
               (i * sp.binomial(n, i), 0, n)]
FINITE_PRODUCTS = [(i, 5, 2), (sp.Integer(2), 4, 1), (i + 1, 3, 0), (i, n, n - 3),
                   (sp.Integer(2), n + 3, n), (i, 1, n - 3), (1 - 1 / i**2, 2, n), (2**i, 1, n),
                   ((-1) ** i, 1, n), (i - 3, 1, n)]


def finite():
    for kind, cls, loop in (("sum", sp.Sum, textbook_sum),
                            ("product", sp.Product, textbook_product)):
        for f, lo, hi in FINITE_SUMS if kind == "sum" else FINITE_PRODUCTS:
            form, err = timed(lambda f=f, lo=lo, hi=hi, cls=cls: cls(f, (i, lo, hi)).doit(), 20)
            if err or form.has(cls):
                print(f"  ({kind} of {f} over {lo}..{hi}: {err or 'unevaluated'})")
                continue
            fl = sp.lambdify((i, n), f, "mpmath")
            symbolic = sp.sympify(hi, strict=True).has(n) or sp.sympify(lo, strict=True).has(n)
            for nv in (1, 2, 3, 4, 7) if symbolic else (None,):
                lo_v, hi_v = (int(sp.sympify(e, strict=True).subs(n, nv or 0)) for e in (lo, hi))
                t = loop(lambda k, nv=nv, fl=fl: fl(mp.mpf(k), mp.mpf(nv or 0)), lo_v, hi_v)
                s = num(form, {n: nv} if nv else {})
                if differs(s, t):
                    report(kind, f"{cls.__name__}({f}, ({i}, {lo}, {hi}))", form,
                           None if nv is None else f"n={nv}", s, t)


INFINITE_SUMS = [
    ((-1) ** i / i, 1), (sp.sin(i) / i, 1), (sp.cos(i) / i, 1), (sp.Mod(i, 2) / i**2, 1),
    (1 / (i**2 + 1), 1), (1 / sp.binomial(2 * i, i), 1), (i / (sp.exp(2 * pi * i) - 1), 1),
    (1 / ((i + R(1, 3)) * (i + 1)), 0), (1 / (i + R(1, 3)) ** 2, 0), ((-1) ** i / (i + R(1, 3)), 0),
    (sp.zeta(i) - 1, 2), (sp.harmonic(i) / i**2, 1), (sp.log(1 + 1 / i**2), 1),
]
INFINITE_PRODUCTS = [(1 - 1 / i**2, 2), (1 + 1 / i**2, 1), (1 - 1 / (4 * i**2), 1),
                     ((i**3 - 1) / (i**3 + 1), 2), (1 + (-1) ** i / i, 2)]


def infinite():
    for f, lo in INFINITE_SUMS:
        form, err = timed(lambda f=f, lo=lo: sp.Sum(f, (i, lo, oo)).doit(), 20)
        fl = sp.lambdify(i, f, "mpmath")
        alt = f.has(sp.Pow) and any(b == -1 for b in (q.base for q in f.atoms(sp.Pow)))
        t = mp.nsum(fl, [lo, mp.inf], method="alternating" if alt else "r+s+e")
        if err or form.has(sp.Sum):
            print(f"  (sum of {f} from {lo} to oo: {err or 'unevaluated'}; it is {mp.nstr(t, 15)})")
            continue
        s = num(form)
        if differs(s, t, mp.mpf(10) ** -12):
            report("sum", f"Sum({f}, ({i}, {lo}, oo))", form, None, s, t)
    for f, lo in INFINITE_PRODUCTS:
        form, err = timed(lambda f=f, lo=lo: sp.Product(f, (i, lo, oo)).doit(), 20)
        t = mp.nprod(sp.lambdify(i, f, "mpmath"), [lo, mp.inf])
        if err or form.has(sp.Product):
            print(f"  (product of {f} from {lo} to oo: {err or 'unevaluated'}; "
                  f"it is {mp.nstr(t, 15)})")
            continue
        s = num(form)
        if differs(s, t, mp.mpf(10) ** -12):
            report("product", f"Product({f}, ({i}, {lo}, oo))", form, None, s, t)


# ---- special functions: SymPy's rewrites against mpmath's definitions ---------------------------
SPECIAL = [
    ("Si(x).rewrite(expint)", lambda: sp.Si(x).rewrite(sp.expint), mp.si),
    ("Ci(x).rewrite(expint)", lambda: sp.Ci(x).rewrite(sp.expint), mp.ci),
    ("Ei(x).rewrite(Si) (Chi + Shi)", lambda: sp.Ei(x).rewrite(sp.Si), mp.ei),
    ("Chi(x).rewrite(expint)", lambda: sp.Chi(x).rewrite(sp.expint), mp.chi),
    ("Shi(x).rewrite(expint)", lambda: sp.Shi(x).rewrite(sp.expint), mp.shi),
    ("li(x).rewrite(Ei)", lambda: sp.li(x).rewrite(sp.Ei), mp.li),
    ("expint(1,x).rewrite(Ei)", lambda: sp.expint(1, x).rewrite(sp.Ei),
     lambda v: mp.expint(1, v)),
    ("loggamma(x) + log(x) for loggamma(x+1)", lambda: sp.loggamma(x) + sp.log(x),
     lambda v: mp.loggamma(v + 1)),
    ("log(gamma(x)) for loggamma(x)", lambda: sp.log(sp.gamma(x)), mp.loggamma),
    ("expand_func(polygamma(0, x+3))", lambda: sp.expand_func(sp.polygamma(0, x + 3)),
     lambda v: mp.digamma(v + 3)),
    ("expand_func(beta(x, 2))", lambda: sp.expand_func(sp.beta(x, 2)), lambda v: mp.beta(v, 2)),
    ("hyperexpand(2F1(1,1;2;x))", lambda: sp.hyperexpand(sp.hyper([1, 1], [2], x)),
     lambda v: mp.hyp2f1(1, 1, 2, v)),
    ("hyperexpand(2F1(1/2,1;3/2;x))",
     lambda: sp.hyperexpand(sp.hyper([R(1, 2), 1], [R(3, 2)], x)),
     lambda v: mp.hyp2f1(0.5, 1, 1.5, v)),
    ("erf(x).rewrite(uppergamma)", lambda: sp.erf(x).rewrite(sp.uppergamma), mp.erf),
    ("fresnels(x).rewrite(erf)", lambda: sp.fresnels(x).rewrite(sp.erf), mp.fresnels),
    ("harmonic(x).rewrite(digamma)", lambda: sp.harmonic(x).rewrite(sp.digamma),
     lambda v: mp.harmonic(v)),
    ("expand_func(lerchphi(x, 1, 2))", lambda: sp.expand_func(sp.lerchphi(x, 1, 2)),
     lambda v: mp.lerchphi(v, 1, 2)),
    ("asec(x).rewrite(atan)", lambda: sp.asec(x).rewrite(sp.atan), mp.asec),
    ("acot(x).rewrite(log)", lambda: sp.acot(x).rewrite(sp.log), mp.acot),
    ("acoth(x).rewrite(log)", lambda: sp.acoth(x).rewrite(sp.log), mp.acoth),
]
SPECIAL_POINTS = [R(-73, 10), R(-5, 2), R(-3, 2), R(-7, 10), R(-3, 10), R(1, 5), R(3, 5),
                  R(9, 10), R(3, 2), R(27, 10), R(51, 10)]


def special():
    for label, build, truth in SPECIAL:
        form, err = timed(build, 20)
        if err:
            print(f"  ({label}: {err})")
            continue
        bad = []
        for v in SPECIAL_POINTS:
            try:
                t = truth(mp.mpf(v.p) / v.q)
            except Exception:  # noqa: BLE001
                continue
            s = num(form, {x: v})
            if s is not None and differs(s, t, mp.mpf(10) ** -15):
                bad.append((v, s, t))
        if bad:
            v, s, t = bad[0]
            report("special", f"{label} (wrong at {len(bad)} of {len(SPECIAL_POINTS)} points)",
                   form, f"x={v}", s, t)


def main() -> int:
    start = time.perf_counter()
    for name, battery in (("integrals", integrals), ("limits", limits), ("sums/products", finite),
                          ("infinite sums/products", infinite), ("special functions", special)):
        print(f"== {name}", flush=True)
        battery()
    print(f"{len(FOUND)} discrepancies in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
