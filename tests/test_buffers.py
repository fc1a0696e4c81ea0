"""The array pool reuses an array only when nothing outside it refers to it; kept caches survive."""

from __future__ import annotations

import numpy as np

from numeric import buffers, model
from numeric.config import preset

# Large enough to be pooled (above buffers.MIN_BYTES), small enough to be quick.
SHAPE = (64, 256)


def test_a_dropped_array_is_handed_out_again():
    first = buffers.empty(SHAPE, np.float64)
    address = first.ctypes.data
    del first
    again = buffers.empty(SHAPE, np.float64)
    assert again.ctypes.data == address


def test_a_held_array_or_view_is_never_handed_out_twice():
    held = buffers.empty(SHAPE, np.float64)
    other = buffers.empty(SHAPE, np.float64)
    assert not np.shares_memory(held, other)
    view = other[:, :3]  # (64, 3)
    del other
    third = buffers.empty(SHAPE, np.float64)
    assert not np.shares_memory(third, held)
    assert not np.shares_memory(third, view)


def test_small_arrays_and_other_dtypes_are_not_mixed_up():
    small = buffers.empty((4,), np.float64)
    assert small.shape == (4,)
    f32 = buffers.empty(SHAPE, np.float32)
    f64 = buffers.empty(SHAPE, np.float64)
    assert (f32.dtype, f64.dtype) == (np.float32, np.float64)
    assert not np.shares_memory(f32, f64)


def _step(cfg, params, idx, targets):
    loss, _, cache = model.forward(params, cfg, idx, targets)
    grads = model.backward(cache, params)
    return loss, grads, cache


def test_a_kept_cache_survives_later_steps_and_results_repeat_bitwise():
    cfg = preset("bench-small", n_layer=1)  # pooled sizes, one layer to stay quick
    params = model.init_params(cfg)
    rng = np.random.default_rng(0)
    idx, targets = (rng.integers(0, cfg.vocab_size, (4, cfg.block_size)) for _ in range(2))
    loss, grads, cache = _step(cfg, params, idx, targets)
    snapshot = {k: v.copy() for k, v in cache.items() if isinstance(v, np.ndarray)}
    grads_copy = {k: v.copy() for k, v in grads.items()}
    other_idx = (idx + 1) % cfg.vocab_size  # (B, T)   a different step in between
    _step(cfg, params, other_idx, targets)
    loss2, grads2, cache2 = _step(cfg, params, idx, targets)
    for name, arr in snapshot.items():
        assert np.array_equal(cache[name], arr), name
        assert not np.shares_memory(cache[name], cache2[name]) or name in ("idx", "targets")
    assert loss2 == loss
    for name, g in grads_copy.items():
        assert np.array_equal(grads[name], g) and np.array_equal(grads2[name], g), name


def test_a_dropped_cache_is_reused_by_the_next_step():
    cfg = preset("bench-small", n_layer=1)
    params = model.init_params(cfg)
    rng = np.random.default_rng(1)
    idx, targets = (rng.integers(0, cfg.vocab_size, (4, cfg.block_size)) for _ in range(2))
    _, _, cache = _step(cfg, params, idx, targets)
    address = cache["logits"].ctypes.data
    del cache
    _, _, cache = _step(cfg, params, idx, targets)
    assert cache["logits"].ctypes.data == address


def test_a_pool_that_ignores_one_reference_would_hand_out_a_held_array(monkeypatch):
    # the negative of the tests above: their assertions can fail
    monkeypatch.setattr(buffers, "FREE", buffers.FREE + 1)
    held = buffers.empty(SHAPE, np.float64)
    assert np.shares_memory(held, buffers.empty(SHAPE, np.float64))


def test_beyond_its_byte_limit_the_pool_hands_out_ordinary_arrays(monkeypatch):
    buffers.clear()
    one = np.empty(SHAPE).nbytes
    monkeypatch.setattr(buffers, "MAX_BYTES", one)
    kept = buffers.empty(SHAPE, np.float64)
    extra = buffers.empty(SHAPE, np.float64)
    assert buffers.pooled_bytes() == one
    del extra  # not pooled: the next request cannot get it back
    assert not np.shares_memory(buffers.empty(SHAPE, np.float64), kept)
    buffers.clear()
