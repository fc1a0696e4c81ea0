"""Printing numbers and functions: infinities, special functions mpmath knows by another name
(:data:`FUNCTIONS`), functions of the claim's own (SymPy's class, at numbers of the working
precision: :func:`sympy_fn`), powers with symbolic exponents, and polar numbers."""

from __future__ import annotations

import mpmath
import sympy as sp

from derivations.engine.numeric.mpsnap import _snap

FUNCTIONS = {"polygamma": lambda m, x: mpmath.polygamma(m, x), "zeta": mpmath.zeta,
              "LambertW": lambda x, k=0: mpmath.lambertw(x, int(k)), "Si": mpmath.si,
              "Ci": mpmath.ci, "harmonic": mpmath.harmonic, "lerchphi": mpmath.lerchphi,
              "expint": mpmath.expint, "Ei": mpmath.ei, "fibonacci": mpmath.fibonacci,
              "li": mpmath.li, "digamma": mpmath.digamma, "dirichlet_eta": mpmath.altzeta,
              "polylog": mpmath.polylog, "KroneckerDelta": lambda a, b: int(_snap(a) == _snap(b))}


_CLASSES: dict[str, type] = {}


def sympy_fn(key: str, *args):
    value = _CLASSES[key](*[sp.Float(a, mpmath.mp.dps) if isinstance(a, mpmath.mpf) else
                            sp.sympify(a, strict=True) for a in args]).evalf(mpmath.mp.dps)
    if isinstance(value, sp.Float):
        return mpmath.mpf(value._to_mpmath(mpmath.mp.prec))
    return mpmath.mpmathify(complex(value))


class Values:
    """The printer's methods for infinities, functions, powers and polar numbers."""

    def _print_Infinity(self, e):
        return "_rt.mpmath.inf"

    def _print_NegativeInfinity(self, e):
        return "(-_rt.mpmath.inf)"

    def _print_Function(self, e):
        name = type(e).__name__
        args = ", ".join(self._print(a) for a in e.args)
        if name in FUNCTIONS:
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
