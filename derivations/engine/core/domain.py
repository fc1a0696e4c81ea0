"""The domain a claim's points are drawn from: which symbols are sizes, the ranges of its indices
and of its real values, its random variables and the law they follow.

Each declaration is checked here on its own when the claim is built — a value range is two numbers
its symbol's sign allows (:data:`SIGNS`), an index's bounds are integers once the sizes are drawn, a
law's mean and variance are exact constants — and a malformed one is refused with a
:class:`DerivationError` naming the claim.  That every symbol the claim's expressions use is
declared is the claim's own check (:mod:`derivations.engine.core.claim`), which imports this module
and not the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp

from derivations.engine.core.errors import DerivationError

__all__ = ["MAX_DIM", "MIN_MAX_DIM", "SIGNS", "Domain", "Sign"]


MAX_DIM = 4  # sizes are drawn from 1..max_dim (and once at 6)
MIN_MAX_DIM = 3  # below this, sizes 1 and 2 alone decide: many false claims hold there


@dataclass(frozen=True)
class Sign:
    """What a symbol's assumptions say of its sign: ``names`` all hold; ``tex`` follows the
    symbol in the report; a value range for it needs ``rule`` (``holds(low, high)``)."""

    names: tuple[str, ...]
    tex: str
    rule: str = ""
    holds: Callable[[float, float], bool] | None = None


# the first that holds is printed: a positive integer is a size
SIGNS = (
    Sign(("integer", "positive"), r"\in \{1, 2, \dots\}"),
    Sign(("integer", "nonnegative"), r"\in \{0, 1, \dots\}"),
    Sign(("integer",), r"\in \mathbb{Z}"),
    Sign(("positive",), "> 0", "low > 0", lambda lo, hi: lo > 0),
    Sign(("nonnegative",), r"\geq 0", "low >= 0", lambda lo, hi: lo >= 0),
    Sign(("negative",), "< 0", "high < 0", lambda lo, hi: hi < 0),
    Sign(("nonpositive",), r"\leq 0", "high <= 0", lambda lo, hi: hi <= 0),
    Sign(("nonzero",), r"\neq 0"),
)


@dataclass(frozen=True)
class Domain:
    """How points are drawn.

    dims: symbols that are sizes (drawn from 1..max_dim, and once at 6); integer symbols not named
    in ``indices`` are dims by default.  indices: index symbol -> (low, high), high may be a dim.
    ranges: symbol / IndexedBase / MatrixSymbol -> (low, high) for real values.
    random: Symbol, IndexedBase or MatrixSymbol -> (mean, variance): independent random variables
    (every entry, for an IndexedBase or MatrixSymbol) that ``E`` and ``Var`` are evaluated over.
    distribution: the family the claim is stated for — "any" (every distribution with these
    moments; checked under the five laws of stochastic.LAWS) or "normal".
    constants: symbols that may appear inside E or Var without being random.
    """

    dims: tuple[sp.Symbol, ...] = ()
    indices: dict = field(default_factory=dict)
    ranges: dict = field(default_factory=dict)
    random: dict = field(default_factory=dict)
    max_dim: int = MAX_DIM
    distribution: str = "any"
    constants: tuple = ()


def _check_range(key, bounds, where: str) -> None:
    """A value range is two numbers, low < high, that the symbol's own assumptions allow: the
    numeric route draws from it as given, so a range outside them would check a claim where its
    proof does not apply."""
    at = f"{where}: Domain(ranges={{{key}: {bounds!r}}})"
    try:
        lo, hi = (float(sp.sympify(b, strict=True)) for b in bounds)
    except (TypeError, ValueError, sp.SympifyError):
        raise DerivationError(f"{at}: expected (low, high), two numbers, got {bounds!r}") from None
    if not lo < hi:
        raise DerivationError(f"{at}: expected low < high, got low={lo}, high={hi}")
    if getattr(key, "is_integer", None):
        raise DerivationError(f"{at}: {key} is an integer symbol, but values from a range are "
                              f"drawn as reals; declare it in Domain(indices=...) instead")
    for sign in SIGNS:
        name = sign.names[0]
        if sign.holds and getattr(key, f"is_{name}", None) and not sign.holds(lo, hi):
            raise DerivationError(f"{at}: {key} is declared {name}, so its range needs "
                                  f"{sign.rule}, got ({lo}, {hi})")


def _check_indices(dom: Domain, where: str) -> None:
    """An index ranges over integers between bounds that become integers once the sizes and the
    indices declared before it are drawn."""
    known = set(dom.dims)
    for idx, bounds in dom.indices.items():
        at = f"{where}: Domain(indices={{{idx}: {bounds!r}}})"
        if not (isinstance(bounds, tuple | list) and len(bounds) == 2):
            raise DerivationError(f"{at}: expected (low, high), got {bounds!r}")
        for b in bounds:
            try:
                e = sp.sympify(b, strict=True)
            except (sp.SympifyError, TypeError):
                raise DerivationError(f"{at}: a bound must be an integer or an integer "
                                      f"expression in the sizes, got {b!r}") from None
            if e.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or e.atoms(sp.Float):
                raise DerivationError(f"{at}: a bound must be finite and exact, got {b}; an "
                                      f"index ranges over finitely many integers (write a sum "
                                      f"to ∞ with sp.oo in the Sum itself)")
            odd = sorted((str(f) for f in e.free_symbols if not f.is_integer), key=str)
            if odd:
                raise DerivationError(f"{at}: a bound must be an integer expression, but "
                                      f"{', '.join(odd)} is not an integer symbol; bound an "
                                      f"index by integers, sizes or other indices")
            if not e.is_integer and e.free_symbols <= known | set(dom.indices):
                raise DerivationError(f"{at}: the bound {e} is not an integer")
        known.add(idx)


def _check_laws(dom: Domain, where: str) -> None:
    """A random variable's mean and variance are constants: a mean that is itself random would
    need a joint law the claim does not give."""
    keys = set(dom.random)
    for key, params in dom.random.items():
        at = f"{where}: Domain(random={{{key}: {params!r}}})"
        if not (isinstance(params, tuple | list) and len(params) == 2):
            raise DerivationError(f"{at}: expected (mean, variance), got {params!r}")
        for what, v in zip(("mean", "variance"), params, strict=True):
            e = sp.sympify(v, strict=True)
            bases = {a.base for a in e.atoms(sp.Indexed)} | e.free_symbols
            random = sorted(map(str, bases & keys))
            if random:
                raise DerivationError(f"{at}: the {what} {e} depends on the random "
                                      f"{', '.join(random)}; a law's parameters must be "
                                      f"constants (a random mean needs a joint law; write the "
                                      f"variable as a sum of independent ones instead)")
            if e.atoms(sp.Float):
                raise DerivationError(f"{at}: the {what} {e} is a float; give it exactly, e.g. "
                                      f"sp.Rational(1, 10)")
