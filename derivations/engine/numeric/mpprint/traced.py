"""Printing the calls that record a value's scales (:mod:`derivations.engine.numeric.scales`):
outside the runtime's operators, every sum becomes ``_rt.add(…)`` and every saturating function
``_rt.t.<name>(…)``; inside an operator's body (an integrand, a series' term, a limit's function)
the plain mpmath code is printed, its every evaluation counted by ``_rt.tick``."""

from __future__ import annotations

from sympy.printing.pycode import MpmathPrinter

from derivations.engine.numeric.scales import FUNCTIONS

TRACED = tuple(name for name in vars(FUNCTIONS) if not name.startswith("_"))
# how each is printed inside an operator, as before tracing: mpmath's own name, or (coth, sech,
# csch, acot, which the printer does not know) SymPy's class at the working precision
_PLAIN = {name: getattr(MpmathPrinter, f"_print_{name}", None) for name in TRACED}


class Traced:
    """The printer's methods for sums and traced functions, and the operators' bodies."""

    _in_operator = 0  # depth of operator bodies being printed

    def _print_Add(self, e, order=None):
        if self._in_operator:
            return super()._print_Add(e, order=order)
        terms = self._as_ordered_terms(e, order=order)
        return f"_rt.add({', '.join(self._print(t) for t in terms)})"

    def _print_traced(self, e):
        name = type(e).__name__
        if self._in_operator:
            plain = _PLAIN[name]
            return plain(self, e) if plain is not None else self._print_Function(e)
        return f"_rt.t.{name}({self._print(e.args[0])})"

    def _operator_body(self, body) -> str:
        """``body`` printed plain, each evaluation counted as work."""
        self._in_operator += 1
        try:
            return f"_rt.tick({self._print(body)})"
        finally:
            self._in_operator -= 1


for _name in TRACED:
    setattr(Traced, f"_print_{_name}", Traced._print_traced)
