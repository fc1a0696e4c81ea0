"""NumPy's BLAS thread count, through threadpoolctl.

The model's matrices are small; on a loaded 2-core machine OpenBLAS's second thread spends more
time waiting for a core than it saves (a (16, 1024)·(1024, 64) product measured 0.07 ms on one
thread and up to 1.9 ms on two). Training, the gradient check and the cross-checks therefore run
on one BLAS thread.
"""

from __future__ import annotations

import numpy as np  # noqa: F401  (loads the BLAS that NumPy links, so threadpoolctl sees it)
from threadpoolctl import threadpool_info, threadpool_limits


def get_blas_threads() -> int | None:
    """Threads of the loaded BLAS libraries (the largest if several), None if none is loaded."""
    counts = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    return max(counts) if counts else None


def blas_threads(n: int) -> threadpool_limits:
    """Context manager: the body runs with ``n`` BLAS threads, the previous count restored after."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"blas_threads: n expected a positive int, got {n!r}")
    return threadpool_limits(limits=n, user_api="blas")
