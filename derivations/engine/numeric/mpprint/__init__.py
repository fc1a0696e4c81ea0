"""The numeric route's printer: a concrete form as mpmath code calling the runtime ``_rt``
(:mod:`derivations.engine.numeric.mpnum`), split by concern — the operators closed by numbers
(:mod:`.operators`), what is read through rounding (:mod:`.rounding`), numbers and functions
(:mod:`.values`), and the calls that record a value's scales (:mod:`.traced`)."""

from __future__ import annotations

from sympy.printing.pycode import MpmathPrinter

from derivations.engine.numeric.mpprint.operators import Operators, kinks
from derivations.engine.numeric.mpprint.rounding import Rounding
from derivations.engine.numeric.mpprint.traced import Traced
from derivations.engine.numeric.mpprint.values import FUNCTIONS, Values, sympy_fn

__all__ = ["FUNCTIONS", "Printer", "kinks", "sympy_fn"]


class Printer(Operators, Rounding, Traced, Values, MpmathPrinter):
    def __init__(self, *args, **kwargs):
        # terms in the order they are stored: sorting them costs most of printing a large form
        super().__init__({"fully_qualified_modules": False, "inline": True, "order": "none",
                          "allow_unknown_functions": True, "strict": False})


for _name in ("polygamma", "zeta", "LambertW", "Si", "Ci", "harmonic", "lerchphi", "expint", "Ei",
              "fibonacci", "li", "digamma", "dirichlet_eta", "polylog"):
    setattr(Printer, f"_print_{_name}", Printer._print_Function)


