"""Complex symbols: a symbol or indexed symbol declared without ``real=True`` (nor a sign or
integrality, which imply it) ranges over the complex plane, and the numeric route draws it
there (:mod:`derivations.engine.numeric.sampling`): conj(w) = w is false, and so is a premise
that says it.

Where a complex value has no meaning — an order (Max, Min, a bound, a range to draw from, a
hypothesis, a Piecewise condition), a jump (floor, Heaviside) or the bounds of a sum or an
integral — the claim is refused when it is built, naming the symbol: declare it real.  The
engine's matrices are real (ℝ^{n×m}, as the report prints them), so a conjugate, adjoint, real
or imaginary part of a matrix is refused too: the numeric route would read conj(X) = X where
SymPy keeps X complex.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.core.errors import DerivationError

__all__ = ["check_complex", "complex_keys"]

# operators that order or cut their argument: meaningless for a complex one
ORDERED = (sp.Min, sp.Max, sp.Heaviside, sp.floor, sp.ceiling, sp.frac, sp.Mod)


def _real(key) -> bool:
    label = getattr(key, "label", None)
    return bool(getattr(key, "is_real", False) or getattr(label, "is_real", False))


def complex_keys(d, exprs) -> set:
    """The symbols and indexed symbols of ``exprs`` that may be complex: declared without
    real=True, and not random (a random variable follows its real law), not an index or size."""
    out = set()
    skip = set(d.domain.random) | set(d.domain.indices) | set(d.domain.dims)
    for e in exprs:
        labels = {a.base.label for a in e.atoms(sp.Indexed)}
        for a in e.free_symbols | e.atoms(sp.Indexed):
            key = a.base if isinstance(a, sp.Indexed) else a
            if isinstance(key, sp.Symbol) and (key in labels or key.is_integer):
                continue
            if isinstance(key, sp.Symbol | sp.IndexedBase) and key not in skip \
                    and not _real(key):
                out.add(key)
    return out


def _holds(e, keys) -> list:
    return sorted({str(k) for k in keys if e.has(k)})


def _fix(names) -> str:
    return (f"declare {' and '.join(names)} real (sp.Symbol({names[0]!r}, real=True)) if that "
            f"is what the claim means")


def check_complex(d, where: str) -> None:
    """Refuse a complex symbol where a complex value has no meaning (see the module)."""
    exprs = [d.lhs, *(s.expr for s in d.steps)]
    keys = complex_keys(d, exprs)
    for e in exprs:
        for node in e.atoms(sp.conjugate, sp.Adjoint):
            arg = node.args[0]
            if arg.is_Matrix or isinstance(arg, sp.MatrixExpr):
                raise DerivationError(
                    f"{where}: {node} conjugates the matrix {arg}; the engine's matrices are real "
                    f"(ℝ^(n×m)), so the numeric route would read it as the matrix itself; write "
                    f"{'Transpose' if isinstance(node, sp.Adjoint) else 'the matrix'} for a real "
                    f"matrix, or state the claim entry by entry with complex symbols")
    if not keys:
        return
    for key in d.domain.ranges:
        if key in keys:
            raise DerivationError(f"{where}: Domain(ranges={{{key}: ...}}) draws {key} from a "
                                  f"real range, but {key} is complex (declared without "
                                  f"real=True); {_fix([str(key)])}")
    for h in d.hypotheses:
        names = _holds(h, keys)
        if names:
            raise DerivationError(f"{where}: hypothesis {h} orders {', '.join(names)}, a complex "
                                  f"symbol (declared without real=True); {_fix(names)}")
    for e in exprs:
        for node in e.atoms(*ORDERED, sp.Piecewise, sp.Sum, sp.Product, sp.Integral):
            if isinstance(node, sp.Sum | sp.Product | sp.Integral):
                parts = [b for lim in node.limits for b in lim[1:]]
            elif isinstance(node, sp.Piecewise):
                parts = [c for _, c in node.args]
            else:
                parts = list(node.args)
            names = sorted({n for p in parts for n in _holds(p, keys)})
            if names:
                raise DerivationError(
                    f"{where}: {', '.join(names)} is complex (declared without real=True), and "
                    f"{type(node).__name__} orders or cuts its argument, which a complex value "
                    f"has no meaning for; {_fix(names)}")
