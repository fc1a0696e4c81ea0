"""Sums and products over integer bounds written out term by term.

At concrete sizes every Sum and Product of a claim has integer bounds, and its value is by
definition the Add or Mul of its terms — none when the upper bound is below the lower (the
textbook convention, not SymPy's).  SymPy's own ``doit`` would try partial fractions and
symbolic summation first, the symbolic route's algorithms.  Bounds that are not integers are left
for :mod:`derivations.engine.numeric.mpseries`.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.core.binders import bound_symbols


def _binds(expr: sp.Basic, var: sp.Symbol) -> bool:
    """Whether ``var`` is bound somewhere inside ``expr`` (then substituting needs ``subs``)."""
    return var in bound_symbols(expr, derivatives=True)


def _terms(body: sp.Basic, var: sp.Symbol, lo: int, hi: int) -> list[sp.Basic]:
    if _binds(body, var):
        return [body.subs(var, k) for k in range(lo, hi + 1)]
    return [body.xreplace({var: sp.Integer(k)}) for k in range(lo, hi + 1)]


def _written(cls, terms: list[sp.Basic]) -> sp.Basic:
    return sp.Add(*terms) if cls is sp.Sum else sp.Mul(*terms)


# A sum over more terms than this is left as it is, for derivations.engine.numeric.mpseries to add
# with numbers: a claim's Σ_{i=1}^{10⁹} must not be written out as a SymPy tree.
MAX_TERMS = 1000


def _over(cls, body: sp.Basic, limit) -> sp.Basic | None:
    var, lo, hi = limit
    if not (lo.is_Integer and hi.is_Integer) or abs(int(hi) - int(lo)) >= MAX_TERMS:
        return None
    lo, hi = int(lo), int(hi)
    # the textbook convention: over a..b with b < a the sum is empty (0), the product 1 — not
    # Karr's, which SymPy follows, where it is minus the sum over b+1..a-1
    return _written(cls, _terms(body, var, lo, hi) if hi >= lo else [])


def write_out(expr: sp.Basic) -> sp.Basic:
    """``expr`` with every scalar Sum and Product over integer bounds written out; a bound that
    depends on another summation variable becomes an integer once that one is written out."""
    def expand(node):
        cls, body, limits = type(node), node.function, node.limits
        if body.is_Matrix or isinstance(body, sp.MatrixExpr):
            return node
        # the outermost limit first: its variable may be in the inner bounds
        inner = cls(body, *limits[:-1]) if len(limits) > 1 else body
        out = _over(cls, inner, limits[-1])
        if out is None:
            out = _over(cls, body, limits[0])
            if out is None:
                return cls(write_out(body), *limits)
            out = cls(out, *limits[1:]) if len(limits) > 1 else out
        return write_out(out)

    if not expr.has(sp.Sum, sp.Product):
        return expr
    return expr.replace(lambda e: isinstance(e, sp.Sum | sp.Product), expand)


_AS_SYMBOL: dict[sp.Indexed, sp.Dummy] = {}


def _loose_bases(expr: sp.Basic) -> set:
    """IndexedBases that occur other than as the base of an entry (a derivative by a whole base)."""
    out, stack = set(), [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, sp.IndexedBase):
            out.add(node)
        elif not isinstance(node, sp.Indexed):
            stack.extend(a for a in node.args if isinstance(a, sp.Basic))
    return out


def entries_as_symbols(expr: sp.Basic) -> tuple[sp.Basic, dict]:
    """``expr`` with each entry ``x[2]`` at integer indices as a plain symbol (one Dummy per
    entry, with the base's assumptions), and the map back.

    SymPy builds a new Indexed, with its own assumptions, every time a tree is rebuilt, and
    answers its ``is_*`` questions anew each time; a symbol is built once.  A base is left alone
    when it also occurs at an index that is not an integer (``x[k]``: a derivative by it would not
    see the symbols) or on its own, so every entry that becomes a symbol is an independent
    variable, exactly as the Indexed was."""
    indexed = expr.atoms(sp.Indexed)
    if not indexed:
        return expr, {}
    keep = {a.base for a in indexed if not all(i.is_Integer for i in a.indices)}
    keep |= _loose_bases(expr)
    sub = {}
    for atom in indexed:
        if atom.base not in keep:
            if atom not in _AS_SYMBOL:
                _AS_SYMBOL[atom] = sp.Dummy(str(atom), **atom.base.assumptions0)
            sub[atom] = _AS_SYMBOL[atom]
    return expr.xreplace(sub), {s: a for a, s in sub.items()}
