"""Input checks shared by the ops and the model: a bad array raises ValueError naming what was
expected and what came."""

from __future__ import annotations

import numpy as np

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def check_float(fn: str, name: str, arr, ndim: int | None = None) -> None:
    """Raise ValueError naming expected vs got for a non-float array or a wrong rank."""
    if not isinstance(arr, np.ndarray):
        raise ValueError(f"{fn}: {name} expected numpy.ndarray, got {type(arr).__name__}")
    if arr.dtype not in FLOATS:
        raise ValueError(f"{fn}: {name} dtype expected float32 or float64, got {arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{fn}: {name} expected {ndim}-d array, got shape {arr.shape}")


def check_same(fn: str, name: str, arr: np.ndarray, shape: tuple, dtype: np.dtype) -> None:
    """Raise ValueError unless ``arr`` has exactly ``shape`` and ``dtype``."""
    check_float(fn, name, arr)
    if arr.shape != tuple(shape):
        raise ValueError(f"{fn}: {name} shape expected {tuple(shape)}, got {arr.shape}")
    if arr.dtype != dtype:
        raise ValueError(f"{fn}: {name} dtype expected {dtype}, got {arr.dtype}")


def check_int(fn: str, name: str, arr, high: int) -> None:
    """Raise ValueError unless ``arr`` is an integer array with values in [0, high)."""
    if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "iu":
        got = arr.dtype if isinstance(arr, np.ndarray) else type(arr).__name__
        raise ValueError(f"{fn}: {name} expected an integer array, got {got}")
    if arr.size and (arr.min() < 0 or arr.max() >= high):
        raise ValueError(
            f"{fn}: {name} values expected in [0, {high}), got [{arr.min()}, {arr.max()}]"
        )
