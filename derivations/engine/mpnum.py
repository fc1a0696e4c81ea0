"""The numeric route's own evaluation of what SymPy would otherwise close: by definition, with
numbers (mpmath), at the working precision of the ladder.  A concrete form is compiled to mpmath
(:func:`compile_mp`), each operator SymPy would close becoming a call of the runtime's own:

* an integral, an infinite sum, a product — :mod:`derivations.engine.mpseries`;
* a limit — :mod:`derivations.engine.mplimits`;
* E of a non-polynomial — against the law's distribution: exact enumeration of the two-point
  laws, quadrature against the density of the continuous ones (one random variable);
* floor, ceiling, frac, Mod, sign, Heaviside and comparisons — read through rounding
  (:mod:`derivations.engine.mpsnap`).

What cannot be decided raises :class:`~derivations.engine.mpsnap.NotEvaluated`; the numeric route
then treats the point as undefined (replaced, reported), never as a difference.
"""

from __future__ import annotations

import mpmath
import sympy as sp
from sympy.printing.pycode import MpmathPrinter

from derivations.engine.mplimits import limit, limit_phases, limit_scale
from derivations.engine.mpseries import nprod, nsum, quad
from derivations.engine.mpsnap import (
    _RELATIONS,
    NotEvaluated,
    _snap,
    cancelled,
    ceiling,
    floor,
    frac,
    heaviside,
    mod,
    relation,
    sign,
)
from derivations.engine.periods import (
    Unreadable,
    critical_factors,
    limit_trap,
    period_of,
    phased,
)
from derivations.engine.stochastic import LAWS

__all__ = ["compile_mp", "kinks"]


# --- expectations of non-polynomials ----------------------------------------------------------

def _two_point(low, high, p_high):
    return ((mpmath.mpf(low), 1 - mpmath.mpf(p_high)), (mpmath.mpf(high), mpmath.mpf(p_high)))


# standardized laws (mean 0, variance 1): a support with probabilities, or a density on an interval
DISCRETE = {"rademacher": lambda: _two_point(-1, 1, mpmath.mpf(1) / 2),
            "skewed two-point": lambda: _two_point(-mpmath.mpf(1) / 2, 2, mpmath.mpf(1) / 5)}
def _normal():
    c = 1 / mpmath.sqrt(2 * mpmath.pi)
    return (lambda z: c * mpmath.exp(-z * z / 2)), -mpmath.inf, mpmath.inf


def _uniform():
    c = 1 / (2 * mpmath.sqrt(3))
    return (lambda z: c), -mpmath.sqrt(3), mpmath.sqrt(3)


def _exponential():
    return (lambda z: mpmath.exp(-(z + 1))), -1, mpmath.inf


# each a factory of (density, low, high) at the working precision: the density's constant is
# computed once per integral, not at each of its thousands of nodes (npdf recomputes √(2π))
CONTINUOUS = {"normal": _normal, "uniform": _uniform, "exponential": _exponential}


def expect(f, params, law, indicators=()):
    """E f(X_1, …, X_k) for independent X_i = mean_i + sqrt(var_i) Z_i, Z_i of the standardized
    ``law``."""
    params = [(mpmath.mpmathify(m), mpmath.sqrt(mpmath.mpmathify(v))) for m, v in params]
    if law in DISCRETE:
        support = DISCRETE[law]()
        total = mpmath.mpf(0)
        for combo in _product(support, len(params)):
            weight = mpmath.fprod(p for _, p in combo)
            total += weight * f(*[m + s * z for (m, s), (z, _) in zip(params, combo,
                                                                        strict=True)])
        return total
    if len(params) != 1:
        raise NotEvaluated(f"E of a non-polynomial in {len(params)} random variables under the "
                           f"{law} law: only one is integrated numerically")
    density, lo, hi = CONTINUOUS[law]()
    (m, s), = params
    inds = [(lambda z, g=g: g(m + s * z)) for g in indicators]
    return quad(lambda z: f(m + s * z) * density(z), lo, hi, inds)


def _product(support, k):
    if k == 0:
        yield ()
        return
    for rest in _product(support, k - 1):
        for item in support:
            yield (*rest, item)


# --- compiling --------------------------------------------------------------------------------

_FUNCTIONS = {"polygamma": lambda m, x: mpmath.polygamma(m, x), "zeta": mpmath.zeta,
              "LambertW": lambda x, k=0: mpmath.lambertw(x, int(k)), "Si": mpmath.si,
              "Ci": mpmath.ci, "harmonic": mpmath.harmonic, "lerchphi": mpmath.lerchphi,
              "expint": mpmath.expint, "Ei": mpmath.ei, "fibonacci": mpmath.fibonacci,
              "li": mpmath.li, "digamma": mpmath.digamma, "dirichlet_eta": mpmath.altzeta,
              "polylog": mpmath.polylog, "KroneckerDelta": lambda a, b: int(_snap(a) == _snap(b))}


def kinks(body) -> list:
    """The arguments whose sign or integer part decides a piece of ``body``."""
    out = []
    for node in sp.preorder_traversal(body):
        if isinstance(node, sp.Abs | sp.sign | sp.Heaviside):
            out.append(node.args[0])
        elif isinstance(node, sp.Min | sp.Max) and len(node.args) == 2:
            out.append(node.args[0] - node.args[1])
        elif isinstance(node, sp.Piecewise):
            # a condition x < π | y > e jumps where either side of either relation meets
            out += [r.lhs - r.rhs for _, c in node.args if isinstance(c, sp.Basic)
                    for r in ((c,) if isinstance(c, sp.core.relational.Relational)
                              else c.atoms(sp.core.relational.Relational))]
        elif isinstance(node, sp.floor | sp.ceiling | sp.frac):
            out.append(("floor", node.args[0]))
        elif isinstance(node, sp.Mod):
            out.append(("floor", node.args[0] / node.args[1]))
    return out


def _singular(body, var) -> list:
    """Where a quadrature should be split besides the kinks: the poles of tan and cot (a jump
    of atan(tan x)), and the zeros of a root's radicand (√(x² + a) turns from imaginary to
    real there) — each where its argument changes sign."""
    out = []
    for node in sp.preorder_traversal(body):
        if isinstance(node, sp.tan | sp.cot) and node.has(var):
            out.append((sp.cos if isinstance(node, sp.tan) else sp.sin)(node.args[0]))
        elif isinstance(node, sp.Pow) and node.base.has(var) and node.exp.is_number \
                and not node.exp.is_integer:
            out.append(node.base)
    return out


def frequency(body, var) -> sp.Expr:
    """The one angular frequency ω of the sines and cosines of ``var`` in ``body`` (sin 3x: 3),
    each of an argument ω·x + c with ω a number; 0 when there is none, or more than one."""
    found = set()
    for node in sp.preorder_traversal(body):
        if isinstance(node, sp.sin | sp.cos) and node.has(var):
            slope = sp.diff(node.args[0], var)
            if not slope.is_number or slope == 0 or sp.diff(slope, var) != 0:
                return sp.S.Zero
            found.add(abs(slope))
    return found.pop() if len(found) == 1 else sp.S.Zero


class _Printer(MpmathPrinter):
    def __init__(self, *args, **kwargs):
        # terms in the order they are stored: sorting them costs most of printing a large form
        super().__init__({"fully_qualified_modules": False, "inline": True, "order": "none",
                          "allow_unknown_functions": True, "strict": False})

    def _lambda(self, var, body):
        return f"(lambda {self._print(var)}: {self._print(body)})"

    def _indicators(self, var, body):
        parts = []
        for k in kinks(body) + _singular(body, var):
            if isinstance(k, tuple):
                parts.append(f"(lambda {self._print(var)}: (1, {self._print(k[1])}))")
            else:
                parts.append(self._lambda(var, k))
        return "(" + "".join(p + ", " for p in parts) + ")"

    def _print_NIntegral(self, e):
        body, v, lo, hi = e.args
        return (f"_rt.quad({self._lambda(v, body)}, {self._print(lo)}, {self._print(hi)}, "
                f"{self._indicators(v, body)}, {self._print(frequency(body, v))})")

    def _print_NSum(self, e):
        body, v, lo, hi = e.args
        return (f"_rt.nsum({self._lambda(v, body)}, {self._print(lo)}, {self._print(hi)}, "
                f"{period_of(body, v)})")

    def _print_NProduct(self, e):
        body, v, lo, hi = e.args
        return (f"_rt.nprod({self._lambda(v, body)}, {self._print(lo)}, {self._print(hi)}, "
                f"{period_of(body, v)})")

    def _print_NLimit(self, e):
        body, v, x0, d = e.args
        period, trap = limit_trap(body, v, bool(x0.is_infinite))
        try:
            body_u, phases = phased(body, v)
        except Unreadable as exc:
            trap = str(exc)
        if trap:
            return f"_rt.refuse({f'the limit was not found: {trap}'!r})"
        tail = (f"{self._print(x0)}, {int(d)}, {bool(v.is_integer)}, {period}, "
                f"{limit_scale(body)}")
        if not phases:
            return f"_rt.limit({self._lambda(v, body)}, {tail})"
        us = ", ".join(self._print(u) for u, _, _ in phases)
        cycles = "[" + ", ".join(self._lambda(v, c) for _, c, _ in phases) + "]"
        kinds = [kind for _, _, kind in phases]
        factors = critical_factors(body_u, v, [u for u, _, _ in phases])
        critical = "[" + ", ".join(f"(lambda {us}: {self._print(h)})" for h in factors) + "]"
        return (f"_rt.limit_phases((lambda {self._print(v)}, {us}: {self._print(body_u)}), "
                f"{cycles}, {kinds!r}, {tail}, critical={critical})")

    def _print_Phase(self, e):
        u, part = e.args
        return f"({self._print(u)} if {self._print(u)} is not None else {self._print(part)})"

    def _print_NExpect(self, e):
        arg, spec = e.args
        law, atoms = LAWS[int(spec.args[0])], spec.args[1:]
        names = ", ".join(self._print(t.args[0]) for t in atoms)
        params = "(" + "".join(f"({self._print(t.args[1])}, {self._print(t.args[2])}), "
                               for t in atoms) + ")"
        inds = "()"
        if len(atoms) == 1:
            inds = self._indicators(atoms[0].args[0], arg)
        return f"_rt.expect((lambda {names}: {self._print(arg)}), {params}, {law!r}, {inds})"

    def _print_Infinity(self, e):
        return "_rt.mpmath.inf"

    def _print_NegativeInfinity(self, e):
        return "(-_rt.mpmath.inf)"

    _in_jump = 0  # depth of jump arguments being printed

    def _terms(self, lhs, rhs=sp.S.Zero):
        """lhs − rhs as the printed terms of a sum, for :func:`cancelled`; every sum inside them
        is cancelled too: at (x, y) = (π, e) to the working precision, (x − π)² + (y − e)²
        cancels in its factors, not in its terms."""
        terms = [*sp.Add.make_args(lhs), *(-t for t in sp.Add.make_args(rhs) if t != 0)]
        self._in_jump += 1
        try:
            return ", ".join(self._print(t) for t in terms)
        finally:
            self._in_jump -= 1

    def _print_Add(self, e, order=None):
        if not self._in_jump:
            return super()._print_Add(e, order=order)
        return f"_rt.cancelled({', '.join(self._print(t) for t in e.args)})"

    def _print_sign(self, e):
        return f"_rt.sign({self._terms(e.args[0])})"

    def _print_Heaviside(self, e):
        at_zero = e.args[1] if len(e.args) > 1 else sp.S.Half
        return f"_rt.heaviside({self._print(at_zero)}, {self._terms(e.args[0])})"

    def _print_Relational(self, e):
        if e.rel_op not in _RELATIONS:
            return super()._print_Relational(e)
        return f"_rt.relation({e.rel_op!r}, {self._terms(e.lhs, e.rhs)})"

    def _print_floor(self, e):
        return f"_rt.floor({self._print(e.args[0])})"

    def _print_ceiling(self, e):
        return f"_rt.ceiling({self._print(e.args[0])})"

    def _print_frac(self, e):
        return f"_rt.frac({self._print(e.args[0])})"

    def _print_Mod(self, e):
        return f"_rt.mod({self._print(e.args[0])}, {self._print(e.args[1])})"

    def _print_Function(self, e):
        name = type(e).__name__
        args = ", ".join(self._print(a) for a in e.args)
        if name in _FUNCTIONS:
            return f"_rt.fn[{name!r}]({args})"
        if not hasattr(mpmath, name) or name not in self.known_functions:
            # a function of the claim's own (a sp.Function subclass that evaluates at numbers):
            # SymPy's class itself, at numbers of the working precision
            key = f"{name}_{id(type(e))}"
            _CLASSES[key] = type(e)
            return f"_rt.sympy_fn({key!r}, {args})"
        return super()._print_Function(e)

    def _print_Pow(self, expr, rational=False):
        if expr.exp.is_number:
            return super()._print_Pow(expr, rational=rational)
        return f"_rt.power({self._print(expr.base)}, {self._print(expr.exp)})"

    def _print_exp_polar(self, e):
        # a polar number e^(iθ) on the principal sheet, −π < θ ≤ π, is the complex number of
        # that argument, and θ = π is the upper side of the cut where principal branches
        # (mpmath's and SymPy's) are continuous: −1 exactly, with no rounding below the axis.
        # Any other sheet has no number of its own
        z = e.args[0]
        theta = sp.im(z)
        if z.is_number and (theta > -sp.pi) is sp.true and (theta <= sp.pi) is sp.true:
            if theta == sp.pi:
                return f"(_rt.mpmath.exp({self._print(sp.re(z))}) * _rt.mpmath.mpc(-1, 0))"
            return f"_rt.mpmath.exp({self._print(z)})"
        return f"_rt.refuse({f'{e} is not a number on the principal sheet'!r})"

    def _print_KroneckerDelta(self, e):
        return self._print_Function(e)


_CLASSES: dict[str, type] = {}


def sympy_fn(key: str, *args):
    value = _CLASSES[key](*[sp.Float(a, mpmath.mp.dps) if isinstance(a, mpmath.mpf) else
                            sp.sympify(a, strict=True) for a in args]).evalf(mpmath.mp.dps)
    if isinstance(value, sp.Float):
        return mpmath.mpf(value._to_mpmath(mpmath.mp.prec))
    return mpmath.mpmathify(complex(value))


HUGE_EXPONENT = 2**64


def power(base, exponent):
    """base ** exponent; a positive base to a huge exponent (a limit's point past a constant of
    500 digits: n = 10^530) as exp(exponent · log base), with the exponent's digits added to
    the logarithm's — mpmath's own square-and-multiply took a minute there."""
    if (isinstance(base, mpmath.mpf) and base > 0 and isinstance(exponent, mpmath.mpf)
            and abs(exponent) > HUGE_EXPONENT):
        with mpmath.extraprec(int(mpmath.log(abs(exponent), 2)) + 10):
            value = mpmath.exp(exponent * mpmath.log(base))
        return +value
    return base**exponent


def refuse(why: str):
    raise NotEvaluated(why)


class _Runtime:
    mpmath = mpmath
    fn = _FUNCTIONS
    quad, nsum, nprod, limit, expect = (staticmethod(quad), staticmethod(nsum),
                                        staticmethod(nprod), staticmethod(limit),
                                        staticmethod(expect))
    floor, ceiling, frac, mod = (staticmethod(floor), staticmethod(ceiling), staticmethod(frac),
                                 staticmethod(mod))
    sympy_fn, power = staticmethod(sympy_fn), staticmethod(power)
    refuse, limit_phases = staticmethod(refuse), staticmethod(limit_phases)
    sign, heaviside, relation = staticmethod(sign), staticmethod(heaviside), staticmethod(relation)
    cancelled = staticmethod(cancelled)


for _name in ("polygamma", "zeta", "LambertW", "Si", "Ci", "harmonic", "lerchphi", "expint", "Ei",
              "fibonacci", "li", "digamma", "dirichlet_eta", "polylog"):
    setattr(_Printer, f"_print_{_name}", _Printer._print_Function)


def compile_mp(args, expr):
    """A function of ``args`` (plain symbols) computing ``expr`` with mpmath at the current
    precision."""
    # docstring_limit=0: the docstring lambdify writes holds str(expr), which cost more than
    # the code itself on the concrete forms of matrices
    return sp.lambdify(args, expr, modules=[{"_rt": _Runtime}, "mpmath"], printer=_Printer,
                       dummify=False, docstring_limit=0)
