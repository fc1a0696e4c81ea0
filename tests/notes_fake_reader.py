"""A stand-in for the LaTeX reader in the note level's tests: readings given by hand, so that
what the note level does with a reading is tested apart from how LaTeX is read."""

from __future__ import annotations

import sympy as sp

from derivations.notes.model import SymbolRow
from derivations.notes.reading import NoteSymbols, Reading

x, y, c = sp.symbols("x y c", real=True)
s, T = sp.symbols("s T", real=True)
f = sp.Function("f")
n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True)
z = sp.IndexedBase("z", real=True)


def r(parts, relations=(), tex=()):
    parts = tuple(sp.sympify(p) for p in parts)
    return Reading(parts, tuple(relations), " ".join(tex), tuple(tex))


READINGS = {
    "s = x^2 + 1": r((s, x**2 + 1), "=", ("s", "x^2 + 1")),
    "s := x^2 + 1": r((s, x**2 + 1), [":="], ("s", "x^2 + 1")),
    "s := x^2 + 2": r((s, x**2 + 2), [":="], ("s", "x^2 + 2")),
    "s = x^2 + 2": r((s, x**2 + 2), "=", ("s", "x^2 + 2")),
    "s - 1 = x^2": r((s - 1, x**2), "=", ("s - 1", "x^2")),
    "s = x^2": r((s, x**2), "=", ("s", "x^2")),
    "(x+y)^2 = x^2 + 2xy + y^2": r(((x + y)**2, x**2 + 2*x*y + y**2), "=",
                                   ("(x+y)^2", "x^2 + 2xy + y^2")),
    "(x+y)^2 = x^2 + 2xy + y^2 = x^2 + y^2": r(
        ((x + y)**2, x**2 + 2*x*y + y**2, x**2 + y**2), ("=", "="),
        ("(x+y)^2", "x^2 + 2xy + y^2", "x^2 + y^2")),
    "e^{-1} \\approx 0.37": r((sp.exp(-1), sp.Rational(37, 100)), ["≈"], ("e^{-1}", "0.37")),
    "e^{-1} \\approx 0.36": r((sp.exp(-1), sp.Rational(36, 100)), ["≈"], ("e^{-1}", "0.36")),
    "\\frac13 = 0.333": r((sp.Rational(1, 3), sp.Rational(333, 1000)), "=", ("\\frac13", "0.333")),
    "\\frac13 = 0.334": r((sp.Rational(1, 3), sp.Rational(334, 1000)), "=", ("\\frac13", "0.334")),
    "0.27 < 0.73": r((sp.Rational(27, 100), sp.Rational(73, 100)), ["<"], ("0.27", "0.73")),
    "0.73 < 0.27": r((sp.Rational(73, 100), sp.Rational(27, 100)), ["<"], ("0.73", "0.27")),
    "T < 1": r((T, 1), ["<"], ("T", "1")),
    "\\sqrt{T}": r((sp.sqrt(T),), (), ("\\sqrt{T}",)),
    "\\foo": Reading(not_understood="`\\foo` at character 0: an unknown command"),
    "f(x+c) = f(x)": r((f(x + c), f(x)), "=", ("f(x+c)", "f(x)")),
    "w = q": r((sp.Symbol("w"), sp.Symbol("q")), "=", ("w", "q")),
    "x + y = w": r((x + y, sp.Symbol("w")), "=", ("x + y", "w")),
    "x = 2": r((x, 2), "=", ("x", "2")),
    "x^2 \\approx 4.0": r((x**2, sp.Integer(4)), ["≈"], ("x^2", "4.0")),
    "x^2 = 2x": r((x**2, 2 * x), "=", ("x^2", "2x")),
    "x \\in \\mathbb{R}": r((x, sp.S.Reals), ["∈"], ("x", "\\mathbb{R}")),
    "\\sum_i z_i = \\sum_i z_i": r((sp.Sum(z[i], (i, 1, n)), sp.Sum(z[i], (i, 1, n))), "=",
                                   ("\\sum_i z_i", "\\sum_i z_i")),
}
READINGS["s = x^2 + 1,\\quad s - 1 = x^2"] = Reading(
    printed="s = x^2 + 1, s - 1 = x^2",
    pieces=(READINGS["s = x^2 + 1"], READINGS["s - 1 = x^2"]))


class FakeReader:
    version = "fake"

    def __init__(self) -> None:
        self.reads = 0

    def symbols(self, text, formulas, path=None) -> NoteSymbols:
        return NoteSymbols([SymbolRow("x", "scalar", rests_on="by hand"),
                            SymbolRow("y", "scalar", rests_on="by hand")],
                           known={x, y, c, z}, dims=(n,), digest="fake")

    def read(self, latex, symbols) -> Reading:
        self.reads += 1
        return READINGS.get(latex, Reading(not_understood=f"not in the fake table: {latex}"))
