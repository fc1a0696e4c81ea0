"""Fixtures the numeric tests share: a seeded generator and the live check model."""

from __future__ import annotations

import numpy as np
import pytest

from numeric.crosscheck.live import Live
from numeric.crosscheck.live import run as run_live


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh generator, seed 0, for each test."""
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def live() -> Live:
    """One forward/backward of the unmodified check model (tests that patch an op must call
    ``run_live()`` themselves, after patching)."""
    return run_live()
