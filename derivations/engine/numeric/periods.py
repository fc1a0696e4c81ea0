"""The numeric route's reading of what makes a function of a limit's variable oscillate: the
period of an integer sequence's arithmetic parts (Mod, floor, frac, (−1)^n, cos(πn/3)), and the
places where no finite set of points can show a limit (a jump of an oscillating argument, a
period past reach).

A limit is evaluated at finitely many points near its point (:func:`mplimits.limit`).  That is a
witness only if the points meet every behaviour the function has there: every residue of an
integer sequence's period, and no jump or exponent that only a thin, unreachable set of points
switches on.  Heaviside(Mod(n, 2003) − 2001) is 0 at every n whose residue is below 2001, and
(1 − frac(x))^x is 0 at every x but those just past an integer.  Reading the form finds these;
what it cannot read is refused, never guessed.

The symbolic route reads periods on its own (``cases._period``, a smaller cap): a misreading
here cannot make both routes agree.
"""

from __future__ import annotations

import math

import sympy as sp

__all__ = ["LIMIT_MAX_PERIOD", "MAX_PERIOD", "Phase", "coefficients", "critical_factors",
           "limit_trap", "period_of", "phased"]

MAX_PERIOD = 60  # a series' period, summed a whole period at a time
LIMIT_MAX_PERIOD = 2000  # a limit's: every residue is evaluated

ARITHMETIC = (sp.floor, sp.ceiling, sp.frac, sp.Mod)
TRIG = (sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)
# functions whose value switches on a set a finite sample may never meet
JUMP = (sp.Heaviside, sp.sign, sp.floor, sp.ceiling, sp.frac, sp.Mod, sp.Piecewise,
        sp.KroneckerDelta)


class Unreadable(ValueError):
    """A part whose period cannot be read from its form."""


def coefficients(expr: sp.Basic, var: sp.Symbol) -> dict[int, sp.Basic] | None:
    """{degree: coefficient} of ``expr`` as a polynomial in var, or None.  Read from the expanded
    terms, not with ``sp.Poly``: SymPy keeps its polynomial rings past its cache's clearing, and
    the engine's operation counts must not depend on the claims checked before."""
    out: dict[int, sp.Basic] = {}
    for term in sp.Add.make_args(sp.expand(expr)):
        coeff, degree = term.as_coeff_exponent(var)
        if coeff.has(var) or not (degree.is_Integer and degree >= 0):
            return None
        out[int(degree)] = out.get(int(degree), sp.S.Zero) + coeff
    return out


def _denominators(arg: sp.Basic, var: sp.Symbol) -> int:
    """The lcm of the denominators of the coefficients of var, var², … in ``arg``, a polynomial
    in var with rational coefficients (its constant term may be anything)."""
    terms = coefficients(arg, var)
    if terms is None:
        raise Unreadable(f"{arg} is not a polynomial in {var}")
    q = 1
    for degree, c in terms.items():
        if degree == 0:
            continue
        if not c.is_Rational:
            raise Unreadable(f"the coefficient {c} of {var}^{degree} in {arg} is not rational")
        q = math.lcm(q, int(c.q))
    return q


def _part_period(node: sp.Basic, var: sp.Symbol) -> int | None:
    """The period along the integers of one part of a sequence; None for a part that does not
    oscillate there (a smooth function of n); :class:`Unreadable` for one that does, with no
    period that can be read."""
    if isinstance(node, sp.Mod):
        m = node.args[1]
        if m.has(var) or not m.is_Integer or m == 0:
            raise Unreadable(f"the modulus {m} of {node} is not a constant integer")
        return abs(int(m)) * _denominators(node.args[0], var)
    if isinstance(node, sp.floor | sp.ceiling | sp.frac):
        return _denominators(node.args[0], var)
    if isinstance(node, sp.Pow) and node.exp.has(var):
        if node.base.has(var) or node.base.is_nonnegative:
            return None
        if not node.base.is_number:
            raise Unreadable(f"the sign of the base of {node} is not known")
        return 2 * _denominators(node.exp, var)  # (−2)^n: a sign with period 2
    if isinstance(node, TRIG):
        ratio = sp.expand(node.args[0] / sp.pi)
        if ratio.has(sp.pi) or not _grows(node.args[0], var):
            return None if not _grows(node.args[0], var) else _not_periodic(node)
        return 2 * _denominators(ratio, var)
    return None


def _not_periodic(node):
    raise Unreadable(f"{node} oscillates along the integers without a period")


def _grows(arg: sp.Basic, var: sp.Symbol) -> bool:
    """Whether ``arg`` may run off to ±∞ with var (then a trigonometric function of it
    oscillates): anything but a polynomial in 1/var."""
    t = sp.Dummy("t")
    return coefficients(arg.xreplace({var: 1 / t}), t) is None


def _read_period(body: sp.Basic, var: sp.Symbol) -> int:
    """The lcm of the periods of the parts of ``body`` whose period can be read."""
    period = 1
    for node in sp.preorder_traversal(body):
        if not isinstance(node, sp.Basic) or not node.has(var):
            continue
        try:
            p = _part_period(node, var)
        except Unreadable:
            continue
        if p is not None:
            period = math.lcm(period, p)
    return period


def period_of(body: sp.Basic, var: sp.Symbol, cap: int = MAX_PERIOD) -> int:
    """The period of the pieces of ``body`` that jump with an integer ``var`` — Mod(var, 2),
    ⌊var/3⌋, (−1)^var — up to ``cap``, or 1.  Such terms are not smooth in var, and
    extrapolation (Richardson, Shanks) assumes they are; sums of whole periods are."""
    period = _read_period(body, var)
    return period if period <= cap else 1


def _oscillating(node: sp.Basic, var: sp.Symbol, integer: bool) -> bool:
    """Whether ``node`` oscillates in var without a period the residues of an integer sequence
    follow."""
    if not node.has(var) or (integer and _periodic(node, var)):
        return False
    if isinstance(node, ARITHMETIC):
        return True
    if isinstance(node, TRIG):
        return _grows(node.args[0], var)
    return (isinstance(node, sp.Pow) and node.exp.has(var) and not node.base.has(var)
            and not node.base.is_nonnegative)


def _thin(body: sp.Basic, var: sp.Symbol, integer: bool) -> str | None:
    """A jump or an exponent in var whose argument holds an oscillating part: the set where it
    switches may be too thin for any sample (frac(n√2) near 1, (1 − frac(x))^x past an
    integer)."""
    for node in sp.preorder_traversal(body):
        if isinstance(node, JUMP) or (isinstance(node, sp.Pow) and node.exp.has(var)):
            inner = node.args if not isinstance(node, sp.Piecewise) else [
                part for pair in node.args for part in pair]
            for arg in inner:
                if any(_oscillating(n, var, integer) for n in sp.preorder_traversal(arg)
                       if isinstance(n, sp.Basic)):
                    return f"{node} switches on an oscillating part of {var}"
    return None


def limit_trap(body: sp.Basic, var: sp.Symbol, at_infinity: bool) -> tuple[int, str | None]:
    """(the period of an integer sequence's residues to evaluate, or 1; why no finite set of
    points can show the limit, or None).  Parts without a period are left to :func:`phased`."""
    integer = bool(var.is_integer)
    thin = _thin(body, var, integer)
    if thin or not (integer and at_infinity):
        return 1, thin
    period = _read_period(body, var)
    if period > LIMIT_MAX_PERIOD:
        return 1, (f"the sequence's period {period} is past the {LIMIT_MAX_PERIOD} "
                   f"residues evaluated")
    return period, None


# --- phases ---------------------------------------------------------------------------------
# An oscillating part without a period the residues can follow (sin n, frac(n√2), sin(1/x) at 0)
# comes back to every value of its range, so the function has a limit only if it has one at
# each value of the part: 1/(1 + n² sin² n) tends to 0 where sin n is 1/3, not where it is 0,
# and n = 355 puts sin n within 10⁻⁴ of 0.  The part is replaced by a phase u drawn over its
# range, ends and 0 included, wherever it moves by more than a cycle near the point.

BOUNDED, UNIT, UNBOUNDED = "bounded", "unit", "unbounded"


class Phase(sp.Function):
    """(u, part): the phase u in place of the part where the numeric limit sets one, the part's
    own value otherwise."""

    @classmethod
    def eval(cls, *args):
        return None


def _cycles(node: sp.Basic) -> sp.Basic:
    """How many of its cycles a part has run through: its turns for sin, its argument for frac."""
    if isinstance(node, TRIG):
        return node.args[0] / (2 * sp.pi)
    if isinstance(node, sp.Mod):
        return node.args[0] / node.args[1]
    return node.args[0]


def _periodic(node: sp.Basic, var: sp.Symbol) -> bool:
    try:
        return _part_period(node, var) is not None
    except Unreadable:
        return False


def phased(body: sp.Basic, var: sp.Symbol) -> tuple[sp.Basic, list]:
    """``body`` with each oscillating candidate in var wrapped as Phase(u_k, …), and the list of
    (u_k, its cycles, its kind).  An integer sequence's parts with a period are followed by
    their residues instead."""
    found: dict = {}
    integer = bool(var.is_integer)

    def visit(node):
        if not isinstance(node, sp.Basic) or not node.has(var):
            return
        if isinstance(node, (*TRIG, *ARITHMETIC)) and not (integer and _periodic(node, var)):
            if isinstance(node, sp.Mod) and not (node.args[1].is_number and node.args[1] != 0):
                raise Unreadable(f"the modulus of {node} is not a constant")
            found.setdefault(node, len(found))
            return
        for arg in node.args:
            visit(arg)

    visit(body)
    if not found:
        return body, []
    us = [sp.Dummy(f"u{k}") for k in range(len(found))]
    table, out = {}, []
    for node, k in found.items():
        u = us[k]
        if isinstance(node, sp.sin | sp.cos):
            table[node], kind = Phase(u, node), BOUNDED
        elif isinstance(node, TRIG):
            table[node], kind = Phase(u, node), UNBOUNDED
        elif isinstance(node, sp.frac):
            table[node], kind = Phase(u, node), UNIT
        elif isinstance(node, sp.floor):
            a = node.args[0]
            table[node], kind = a - Phase(u, a - node), UNIT
        elif isinstance(node, sp.ceiling):
            a = node.args[0]
            table[node], kind = a + Phase(u, node - a), UNIT
        else:  # Mod(a, m) = m·frac(a/m)
            m = node.args[1]
            table[node], kind = m * Phase(u, node / m), UNIT
        out.append((u, _cycles(node), kind))
    return body.xreplace(table), out


def critical_factors(body_u: sp.Basic, var: sp.Symbol, us: list) -> list[sp.Basic]:
    """The factors of var's terms that depend on the phases alone, their even powers taken off:
    where one is 0 the term loses var (n²(sin² n − 0.49)² at sin n = 0.7), and the limit there
    may differ from the limit at every other phase."""
    plain = body_u.replace(lambda e: isinstance(e, Phase), lambda e: e.args[0])
    out: list[sp.Basic] = []
    for node in sp.preorder_traversal(plain):
        if not (isinstance(node, sp.Mul) and node.has(var)):
            continue
        for factor in node.args:
            if factor.has(var) or not factor.has(*us):
                continue
            # |h| and h² vanish where h does, and h changes sign there
            while (isinstance(factor, sp.Pow) and factor.exp.is_number and factor.exp > 0
                   or isinstance(factor, sp.Abs)):
                factor = factor.args[0]
            if factor not in out and not factor.is_number:
                out.append(factor)
    return out
