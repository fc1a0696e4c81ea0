"""A pool of step-sized arrays, reused once nothing outside the pool refers to them.

Why: a training step allocates every activation and gradient (≈ 30 MB at the bench's small
size) and frees them all when its cache is dropped. glibc then returns the freed top of the heap to
the kernel, and the next step touches the same amount of fresh memory again: ≈ 8000 page faults a
step, measured to cost as much as all of the step's matrix products (25.7 → 11.9 ms when the
faults were switched off). The ops draw their outputs and large temporaries from here instead
(``np.matmul(a, b, out=empty(shape, dtype))``), so a step reuses the memory of the last one.

Safety: :func:`empty` hands out an array only while the pool holds the sole reference to it
(``sys.getrefcount``); a view, a cache entry or a caller's variable keeps it out of reuse. A
cache kept by a caller (the gradient check keeps several) therefore stays intact, and results are
the same as with fresh ``np.empty`` arrays: the contents of a reused array are never read before
they are overwritten (every user writes with ``out=``).
"""

from __future__ import annotations

import math
import sys
import threading

import numpy as np

# Below this size malloc serves requests from its free lists without touching fresh pages.
MIN_BYTES = 64 * 1024
# The pool keeps at most this many bytes (the bench's medium step needs ≈ 0.5 GB); callers that
# hold more (many caches kept at once) get ordinary arrays beyond it.
MAX_BYTES = 2 * 1024**3

_pool: dict[tuple, list[np.ndarray]] = {}
_held = [0]  # bytes in _pool
_lock = threading.Lock()


def _free_refcount() -> int:
    """The reference count that an array held only by a pool list shows inside :func:`empty`'s
    loop (the list, the loop variable, getrefcount's argument): measured, not assumed, since it
    depends on the interpreter."""
    arrays = [np.empty(0)]
    for arr in arrays:
        return sys.getrefcount(arr)
    raise AssertionError("unreachable")


FREE = _free_refcount()


def empty(shape: tuple[int, ...], dtype) -> np.ndarray:
    """An uninitialised array of ``shape`` and ``dtype`` that no one else refers to."""
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype.itemsize * math.prod(shape) < MIN_BYTES:
        return np.empty(shape, dtype)
    key = (shape, dtype)
    with _lock:
        arrays = _pool.setdefault(key, [])
        for arr in arrays:
            if sys.getrefcount(arr) == FREE:
                return arr
        arr = np.empty(shape, dtype)
        if _held[0] + arr.nbytes <= MAX_BYTES:
            arrays.append(arr)
            _held[0] += arr.nbytes
        return arr


def empty_like(x: np.ndarray) -> np.ndarray:
    """:func:`empty` with the shape and dtype of ``x`` (always C-contiguous)."""
    return empty(x.shape, x.dtype)


def pooled_bytes() -> int:
    """Bytes held by the pool (in use or free)."""
    with _lock:
        return _held[0]


def clear() -> None:
    """Drop the pool's references; arrays still used elsewhere live on as ordinary arrays."""
    with _lock:
        _pool.clear()
        _held[0] = 0
