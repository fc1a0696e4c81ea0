"""Printing what the numeric route reads through rounding: sign, Heaviside, comparisons, floor,
ceiling, frac, Mod and Kronecker's delta become calls of the runtime
(:mod:`derivations.engine.numeric.mpsnap`), and the argument of a jump is printed as its terms so
that the runtime can tell a cancelled zero from a small number."""

from __future__ import annotations

import sympy as sp

from derivations.engine.numeric.mpsnap import _RELATIONS


class Rounding:
    """The printer's methods for the functions that jump."""

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

    def _print_KroneckerDelta(self, e):
        return self._print_Function(e)
