"""Printing the operators the numeric route closes by numbers: an integral, a sum, a product, a
limit and an expectation become calls of the runtime (``_rt.quad``, ``_rt.nsum``, …), each with
what the runtime needs to know of the body — where a quadrature must be split, the period of a
sum's terms, the phases of a limit."""

from __future__ import annotations

import sympy as sp

from derivations.engine.core.stochastic import LAWS
from derivations.engine.numeric.mplimits import limit_scale
from derivations.engine.numeric.periods import (
    Unreadable,
    critical_factors,
    limit_trap,
    period_of,
    phased,
)


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


class Operators:
    """The printer's methods for NIntegral, NSum, NProduct, NLimit, Phase and NExpect."""

    def _lambda(self, var, body):
        return f"(lambda {self._print(var)}: {self._operator_body(body)})"

    def _indicators(self, var, body):
        parts = []
        for k in kinks(body) + _singular(body, var):
            if isinstance(k, tuple):
                parts.append(f"(lambda {self._print(var)}: (1, {self._operator_body(k[1])}))")
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

    def _print_NDerivative(self, e):
        body, v, x0, order = e.args
        # the body at the point, traced: its scales set the precision the differences need
        at = self._print(body.xreplace({v: x0}))
        return (f"_rt.derivative({self._lambda(v, body)}, {self._print(x0)}, {int(order)}, "
                f"{at})")

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
        critical = "[" + ", ".join(f"(lambda {us}: {self._operator_body(h)})"
                                   for h in factors) + "]"
        return (f"_rt.limit_phases((lambda {self._print(v)}, {us}: {self._operator_body(body_u)}), "
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
        return (f"_rt.expect((lambda {names}: {self._operator_body(arg)}), {params}, {law!r}, "
                f"{inds})")
