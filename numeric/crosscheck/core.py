"""Records, tolerances and the adapters that turn the derivations' SymPy results into NumPy code.

Every derived formula a cross-check evaluates comes from a derivation module's exported SymPy
object through :func:`sympy.lambdify`; nothing here restates a formula.  Two adapters cover the
shapes the modules export:

* index form (``IndexedBase`` with 1-based ``Sum`` indices): :func:`indexed_fn` lambdifies the
  expression with the bases, indices and sizes as arguments; arrays are passed through
  :func:`one_based`, which puts the derivation's index on the leading axes (slot 0 unused), so one
  call evaluates a formula for every attention row at once;
* matrix form (``MatrixSymbol``): :func:`matrix_fn` substitutes the sizes and lambdifies with the
  matrices as arguments (2-D NumPy arrays).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import sympy as sp

# Derived formula and model evaluate the same quantity in float64 along different operation
# orders; the disagreement is rounding, ~1e-15 relative (measured ≤ 4e-14 on the check model).
# 1e-10 leaves over three orders of margin, while every mutation the tests inject differs at O(1).
MODEL_RTOL = 1e-10
# Two-point central differences with h = finite_diff.STEP_2 measured ≤ 1e-8 relative over sampled
# entries of the check model.  1e-6 keeps 100× margin and is still 1e5× below the O(0.1) errors
# of a wrong gradient.
FD_RTOL = 1e-6
# Monte Carlo estimates pass within this many standard errors of the derived value (the issue's
# criterion; a correct formula fails one such record with probability 0.27 %).
MC_Z = 3.0


class Kind(StrEnum):
    """How a record's reference was computed, which decides what its agreement shows.

    IDENTITY: the model (or the optimiser) evaluates the derived formula itself, so agreement
    shows that the code implements the result; the others compute the quantity another way and
    are independent evidence for the result: central finite differences of the model's forward
    pass, a Monte Carlo estimate, or the optimiser's recursion against a derived closed form."""

    FINITE_DIFFERENCE = "finite-difference"
    MONTE_CARLO = "monte-carlo"
    CLOSED_FORM = "closed-form"
    IDENTITY = "identity"

    @property
    def independent(self) -> bool:
        return self is not Kind.IDENTITY


# Which number a record compares with its tolerance: the normwise relative error (against
# max|reference| or a scale the record names), or the absolute error (a reference that is exact,
# such as a masked weight's 0).
DECIDES = ("max_rel", "max_abs")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


@dataclass(frozen=True)
class Record:
    """One comparison of a derived result with the live model, finite differences, a Monte
    Carlo estimate or the optimiser's recursion, as fields — the report writes its sentence.

    ``compared`` names the comparison within its claim (the report's words for it are keyed by
    claim and ``compared``); ``tensor`` is the model's named tensor the comparison is made at
    (an activation of ``model.activation_names``, its gradient, or a parameter), None for data
    drawn apart from the model or for the optimiser's state; ``values`` are the settings the
    sentence states (a width d_k, a number of steps, the layer a tensor feeds)."""

    claim: str
    id: str
    kind: Kind
    compared: str
    max_abs: float
    max_rel: float
    tolerance: float
    passed: bool
    tensor: str | None = None
    values: dict[str, str | int | float] = field(default_factory=dict)
    decides: str = "max_rel"
    # a Monte Carlo record's power: {"formula": LaTeX of a plausible wrong result, "value": what
    # it gives here, "would_fail": whether this estimate rejects it}
    power: dict | None = None

    def __post_init__(self) -> None:
        where = f"cross-check record {self.claim}/{self.id}"
        if not isinstance(self.kind, Kind):
            raise ValueError(f"{where}: kind expected one of {[k.value for k in Kind]}, "
                             f"got {self.kind!r}")
        if not self.compared or not set(self.compared) <= _KEY_CHARS:
            raise ValueError(f"{where}: compared expected a key of lowercase letters, digits "
                             f"and '_' (its words are the report's), got {self.compared!r}")
        if self.decides not in DECIDES:
            raise ValueError(f"{where}: decides expected one of {list(DECIDES)}, "
                             f"got {self.decides!r}")
        if not isinstance(self.values, dict) or not all(
                isinstance(v, str | int | float) and not isinstance(v, bool)
                for v in self.values.values()):
            raise ValueError(f"{where}: values expected a dict of str, int or float, "
                             f"got {self.values!r}")

    def to_dict(self) -> dict:
        out = {"claim": self.claim, "id": self.id, "kind": self.kind.value,
               "compared": self.compared, "tensor": self.tensor, "values": dict(self.values),
               "max_abs": self.max_abs, "max_rel": self.max_rel, "tolerance": self.tolerance,
               "decides": self.decides, "passed": self.passed}
        if self.power is not None:
            out["power"] = dict(self.power)
        return out


def compare(claim: str, rid: str, compared: str, got, want, tolerance: float, *, kind: Kind,
            tensor: str | None = None, values: dict | None = None, scale: float | None = None,
            absolute: bool = False) -> Record:
    """Normwise error of ``got`` against the reference ``want``: max_rel = max|got − want| / scale,
    scale = max|want| unless given (a reference that is zero by the claim has no scale of its own,
    so the caller names the scale of the inputs instead).  ``absolute``: the reference is exact and
    the absolute error decides (max_rel is then the same number)."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise ValueError(f"cross-check {claim}/{rid}: shapes differ, expected {want.shape}, "
                         f"got {got.shape}")
    max_abs = float(np.max(np.abs(got - want))) if got.size else 0.0
    if not np.all(np.isfinite(got)):
        max_abs = float("inf")
    if absolute:
        scale = 1.0
    ref = float(np.max(np.abs(want))) if scale is None else float(scale)
    max_rel = max_abs / ref if ref > 0 else (0.0 if max_abs == 0 else float("inf"))
    return Record(claim, rid, kind, compared, max_abs, max_rel, float(tolerance),
                  bool(max_rel <= tolerance), tensor, dict(values or {}),
                  "max_abs" if absolute else "max_rel")


def stat_record(claim: str, rid: str, compared: str, estimate: float, se: float,
                derived: float, wrong: tuple[str, float] | None = None, *,
                tensor: str | None = None, values: dict | None = None) -> Record:
    """A Monte Carlo estimate against the derived value: passes within MC_Z standard errors.
    max_rel and tolerance are relative to |derived| so that they read like the other records.
    ``wrong`` = (LaTeX, value) of a plausible wrong formula: the record's power is whether the
    same band rejects it."""
    max_abs = abs(estimate - derived)
    scale = abs(derived) if derived != 0 else 1.0
    power = None if wrong is None else {
        "formula": wrong[0], "value": float(wrong[1]),
        "would_fail": bool(abs(estimate - wrong[1]) > MC_Z * se)}
    return Record(claim, rid, Kind.MONTE_CARLO, compared, float(max_abs),
                  float(max_abs / scale), float(MC_Z * se / scale), bool(max_abs <= MC_Z * se),
                  tensor, dict(values or {}), "max_rel", power)


# ----------------------------------------------------------------------------- adapters
def indexed_fn(expr: sp.Basic, args: Sequence[sp.Basic]) -> Callable:
    """lambdify an index-form result; Sums over symbolic bounds become Python sums over arrays."""
    return sp.lambdify(tuple(args), expr, modules="numpy")


def one_based(arr: np.ndarray, axes: int = 1) -> np.ndarray:
    """Move the last ``axes`` axes (the derivation's indices) to the front and shift them to
    1-based, so ``z[i]`` in lambdified code is the whole batch of i-th entries."""
    arr = np.asarray(arr, dtype=np.float64)
    moved = np.moveaxis(arr, list(range(arr.ndim - axes, arr.ndim)), list(range(axes)))
    pad = [(1, 0)] * axes + [(0, 0)] * (arr.ndim - axes)
    return np.pad(moved, pad)


def matrix_fn(expr: sp.Basic, args: Sequence[sp.MatrixSymbol], sizes: dict,
              explicit: bool = False) -> Callable:
    """lambdify a matrix expression after giving its size symbols the numbers in ``sizes``;
    the returned function takes 2-D arrays shaped like the (now concrete) MatrixSymbols.
    ``explicit``: expand to entries first (for building blocks NumPy has no name for)."""
    concrete = expr.xreplace(sizes)
    if explicit:
        concrete = concrete.doit()
    cargs = [a.xreplace(sizes) for a in args]
    fn = sp.lambdify(tuple(cargs), concrete, modules="numpy")

    def call(*arrays):
        for sym, arr in zip(cargs, arrays, strict=True):
            if tuple(arr.shape) != tuple(int(s) for s in sym.shape):
                raise ValueError(f"{sym.name}: expected shape {tuple(sym.shape)}, "
                                 f"got {arr.shape}")
        return np.asarray(fn(*arrays), dtype=np.float64)
    return call


def batched(fn: Callable, *arrays: np.ndarray) -> np.ndarray:
    """Apply a 2-D matrix function over the leading (batch, head, …) axes."""
    lead = arrays[0].shape[:-2]
    out = [fn(*(a[ix] for a in arrays)) for ix in np.ndindex(*lead)]
    return np.stack(out).reshape(*lead, *out[0].shape)
