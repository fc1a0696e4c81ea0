"""A short training smoke test: the task is well formed, the loss falls, runs are reproducible."""

from __future__ import annotations

import json

import numpy as np
import pytest

from numeric import threads, train
from numeric.config import GPTConfig, preset

SMOKE_STEPS = 40
# After 40 Adam steps the mean loss of the last 5 steps must sit clearly below the first 5.
MIN_LOSS_DROP = 0.2


def smoke_config() -> GPTConfig:
    return preset("train", n_head=2, n_embd=16, pos="rope", seed=0)


def test_batches_encode_reversal():
    x, y = train.make_batch(np.random.default_rng(0), 4)
    n = train.SEQ_LEN
    assert x.shape == y.shape == (4, 2 * n)
    assert np.all(x[:, n] == train.SEP)
    assert np.all(y[:, :n] == train.IGNORE)
    assert np.array_equal(y[:, n:], x[:, :n][:, ::-1])  # answers are the reversed prompt
    assert np.array_equal(x[:, n + 1:], y[:, n:-1])  # teacher forcing: shifted by one


def test_heldout_sequences_never_train():
    rng = np.random.default_rng(0)
    x, _ = train.make_batch(rng, 50)
    exclude = {tuple(r) for r in x[:25, : train.SEQ_LEN].tolist()}
    again, _ = train.make_batch(np.random.default_rng(0), 50, exclude=exclude)
    assert len(again) == 25
    assert not exclude & {tuple(r) for r in again[:, : train.SEQ_LEN].tolist()}


def test_short_training_lowers_loss_deterministically():
    runs = [train.run(smoke_config(), steps=SMOKE_STEPS, eval_every=20, n_heldout=64, lr=1e-2)
            for _ in range(2)]
    curve = runs[0]["loss_curve"]
    assert len(curve) == SMOKE_STEPS and runs[0]["steps"] == SMOKE_STEPS
    assert np.mean(curve[-5:]) < np.mean(curve[:5]) - MIN_LOSS_DROP
    assert runs[0]["loss_curve"] == runs[1]["loss_curve"]
    assert 0.0 <= runs[0]["test_accuracy"] <= 1.0


def test_cli_writes_curve_and_rejects_bad_usage(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(train, "default_config", lambda seed=0: smoke_config())
    out = tmp_path / "curve.json"
    code = train.main(["--json", "--steps", "3", "--out", str(out)])
    assert code == 1  # 3 steps cannot reach the accuracy target: a failed check, exit 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["steps"] == 3 and not summary["reached"]
    assert len(json.loads(out.read_text())["loss_curve"]) == 3
    assert train.main(["--steps", "0"]) == 2
    assert train.main(["--nope"]) == 2


def test_blas_thread_control_restores_previous_count():
    before = threads.get_blas_threads()
    if before is None:
        pytest.skip("NumPy is linked against a BLAS other than OpenBLAS")
    with threads.blas_threads(1):
        assert threads.get_blas_threads() == 1
    assert threads.get_blas_threads() == before


@pytest.mark.parametrize("n", [0, -1, 1.5, True])
def test_blas_thread_count_must_be_a_positive_int(n):
    with pytest.raises(ValueError, match="blas_threads: n expected a positive int"):
        threads.blas_threads(n)
