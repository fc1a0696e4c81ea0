"""Runtime control of NumPy's OpenBLAS thread count (the part of threadpoolctl we need).

The model's matrices are small; on a loaded 2-core machine OpenBLAS's second thread spends more
time waiting for a core than it saves (a (16, 1024)·(1024, 64) product measured 0.07 ms on one
thread and up to 1.9 ms on two). Training and the gradient check therefore run on one BLAS thread.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import numpy as np  # noqa: F401  (loads the OpenBLAS that NumPy links)

_SET = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
        "openblas_set_num_threads64_", "openblas_set_num_threads")
_GET = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
        "openblas_get_num_threads64_", "openblas_get_num_threads")


@cache
def _library():
    """(set, get) C functions of the loaded OpenBLAS, or None if NumPy uses another BLAS."""
    try:
        with open("/proc/self/maps") as fh:
            paths = sorted({line.split()[-1] for line in fh if "openblas" in line.lower()
                            and line.split()[-1].startswith("/")})
    except OSError:
        return None
    for path in paths:
        lib = ctypes.CDLL(path)
        setter = next((getattr(lib, s) for s in _SET if hasattr(lib, s)), None)
        getter = next((getattr(lib, s) for s in _GET if hasattr(lib, s)), None)
        if setter is not None and getter is not None:
            getter.restype = ctypes.c_int
            return setter, getter
    return None


def get_blas_threads() -> int | None:
    lib = _library()
    return None if lib is None else int(lib[1]())


def set_blas_threads(n: int) -> int | None:
    """Set OpenBLAS's thread count; returns the previous count (None if not OpenBLAS)."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"set_blas_threads: n expected a positive int, got {n!r}")
    lib = _library()
    if lib is None:
        return None
    previous = int(lib[1]())
    lib[0](ctypes.c_int(n))
    return previous


@contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """Run the body with ``n`` BLAS threads, restoring the previous count afterwards."""
    previous = set_blas_threads(n)
    try:
        yield
    finally:
        if previous is not None:
            set_blas_threads(previous)
