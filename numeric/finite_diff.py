"""Central finite differences: the one definition the gradient check, the cross-checks and the
tests use.

Two stencils, both central (odd error terms cancel):
    order 2:  f' ≈ [f(x+h) − f(x−h)] / 2h                          error h²f'''/6
    order 4:  f' ≈ [f(x−2h) − 8f(x−h) + 8f(x+h) − f(x+2h)] / 12h     error h⁴f⁽⁵⁾/30
Both add a rounding error ~δ/h, δ the function's own float64 noise, so each has its best step:

* STEP_2 = 1e-5 for the two-point stencil: truncation ≈ 1e-10 and rounding ≈ 1e-11 relative on the
  check model (measured ≤ 1e-8 over sampled entries);
* STEP_4 = 3e-4 for the four-point stencil: measured on the check model (normwise error over
  sampled entries) h=1e-2: 4e-6, 3e-3: 3e-8, 1e-3: 4e-10, 3e-4: 2.5e-11, 1e-4: 8e-11, 1e-5: 8e-10.

Two ways to evaluate:

* :func:`derivative` — batched: f takes a stack of perturbed copies (N, *x.shape) and returns a
  stack (N, *out); every entry's stencil runs in one call;
* :func:`derivative_inplace` — one entry at a time, writing into the array itself (for arrays that
  only a whole pass reads, like parameters); the array is restored.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

STEP_2 = 1e-5
STEP_4 = 3e-4
# order → (((multiple of h, integer weight), ...), denominator): the derivative is
# Σ weight·f(x + multiple·h) / (denominator·h); integer weights keep the sum's rounding that of
# the textbook formula.
STENCILS = {2: (((1.0, 1.0), (-1.0, -1.0)), 2.0),
            4: (((-2.0, 1.0), (-1.0, -8.0), (1.0, 8.0), (2.0, -1.0)), 12.0)}


def _stencil(order: int):
    if order not in STENCILS:
        raise ValueError(f"finite_diff: order expected one of {sorted(STENCILS)}, got {order!r}")
    return STENCILS[order][0]


def _denominator(order: int) -> float:
    return STENCILS[order][1]


def default_step(order: int) -> float:
    return STEP_2 if order == 2 else STEP_4


def sample_entries(size: int, max_entries: int | None,
                   seed: int | np.random.Generator = 0) -> np.ndarray:
    """All flat indices if there are at most ``max_entries``, else a sorted seeded sample (a
    Generator passed as ``seed`` is drawn from, so one stream can serve many tensors)."""
    if max_entries is None or size <= max_entries:
        return np.arange(size)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(size, max_entries, replace=False))


def offsets(shape: tuple, entries: np.ndarray, h: float, order: int = 2) -> np.ndarray:
    """(S·K, *shape) stack of perturbations: row s·K + k moves entry ``entries[k]`` by
    multiple_s·h (S stencil points, K entries)."""
    pts = _stencil(order)
    k, size = entries.size, int(np.prod(shape))
    out = np.zeros((len(pts) * k, size))  # (S·K, size)
    for s, (mult, _) in enumerate(pts):
        out[s * k + np.arange(k), entries] = mult * h
    return out.reshape(len(pts) * k, *shape)


def combine(values: np.ndarray, h: float, order: int = 2) -> np.ndarray:
    """Stencil sum of f at the rows of :func:`offsets`: (S·K, ...) → (K, ...) derivatives."""
    pts = _stencil(order)
    values = np.asarray(values, dtype=np.float64)
    k = values.shape[0] // len(pts)
    parts = values.reshape(len(pts), k, *values.shape[1:])  # (S, K, ...)
    total = parts[0] * pts[0][1]
    for s in range(1, len(pts)):
        total = total + parts[s] * pts[s][1]
    return total / (_denominator(order) * h)


def derivative(f: Callable[[np.ndarray], np.ndarray], x: np.ndarray,
               entries: np.ndarray | None = None, h: float | None = None,
               order: int = 2) -> np.ndarray:
    """∂f/∂x.flat[entries] for every entry at once: f maps a stack (N, *x.shape) to (N, *out)
    and treats the stack axis independently.  Returns (K, *out)."""
    x = np.asarray(x, dtype=np.float64)
    h = default_step(order) if h is None else h
    entries = np.arange(x.size) if entries is None else np.asarray(entries)
    return combine(f(x[None] + offsets(x.shape, entries, h, order)), h, order)


def rowwise(f: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Turn a function of one array into the stack-mapping form :func:`derivative` takes."""
    return lambda stack: np.stack([np.asarray(f(x), dtype=np.float64) for x in stack])


def gradient(f: Callable[[np.ndarray], float], x: np.ndarray, h: float | None = None,
             order: int = 2) -> np.ndarray:
    """∂f/∂x, in x's shape, of a scalar f of one array (called once per stencil point)."""
    x = np.asarray(x, dtype=np.float64)
    return derivative(rowwise(f), x, h=h, order=order).reshape(x.shape)


def jacobian(f: Callable[[np.ndarray], np.ndarray], x: np.ndarray, h: float | None = None,
             order: int = 2) -> np.ndarray:
    """(out.size, x.size) Jacobian of a stack-mapping f (see :func:`derivative`)."""
    return derivative(f, x, h=h, order=order).reshape(x.size, -1).T


def derivative_inplace(f: Callable[[], float], arr: np.ndarray, entries: np.ndarray,
                       h: float | None = None, order: int = 4) -> np.ndarray:
    """∂f()/∂arr.flat[entries], moving one entry of ``arr`` at a time (arr is restored)."""
    h = default_step(order) if h is None else h
    pts = _stencil(order)
    out = np.empty(len(entries))  # (K,)
    flat = arr.reshape(-1)  # (size,) view: writes go into arr
    if not np.shares_memory(flat, arr):
        raise ValueError("derivative_inplace: arr expected contiguous (a view to write), got a "
                         "non-contiguous array")
    for j, e in enumerate(entries):
        old = flat[e]
        vals = []
        for mult, _ in pts:
            flat[e] = old + mult * h
            vals.append(f())
        flat[e] = old
        out[j] = combine(np.array(vals), h, order)[0]
    return out
