"""The model's one naming scheme for live tensors: every name the cross-checks read is a name the
model records, each name's gradient is the loss's gradient by that tensor, and perturbing a name
shifts exactly that tensor."""

from __future__ import annotations

import numpy as np
import pytest

from numeric import crosscheck, model, profile
from numeric.config import GPTConfig
from numeric.crosscheck.core import FD_RTOL
from numeric.crosscheck.live import loss_grad_at

# Entries per name differentiated numerically in the gradient-name test.
NAME_FD_ENTRIES = 4
# Non-tensor entries the cross-checks may read besides named activations and their gradients.
EXTRAS = {"mask", "loss"}


class ReadLog(dict):
    """A cache that remembers every key read."""

    read: set

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)


def documented(cfg) -> set[str]:
    names = model.activation_names(cfg)
    return set(names) | {model.grad_name(n) for n in names} | EXTRAS


def test_every_name_the_crosschecks_use_is_recorded(monkeypatch):
    read, perturbed, configs = set(), set(), []
    real = model.forward

    def logging_forward(params, cfg, idx, targets=None, perturb=None):
        loss, logits, cache = real(params, cfg, idx, targets, perturb)
        perturbed.update(perturb or {})
        configs.append(cfg)
        log = ReadLog(cache)
        log.read = read
        return loss, logits, log

    monkeypatch.setattr(model, "forward", logging_forward)
    records = crosscheck.run_all()
    assert records and all(r.passed for r in records)
    public = {k for k in read if not k.startswith("_")}
    allowed = set().union(*(documented(c) for c in configs))
    assert public - allowed == set(), "cross-checks read undocumented keys"
    assert perturbed and perturbed <= allowed
    # the names the linear and attention checks are built on are among those read
    assert {"h.0.attn.w_q.in", "h.0.attn.w_q.dout", "h.0.attn.w_q.din", "h.1.ln_1.dout",
            "h.0.attn.probs", "h.0.attn.dscores", "dlogits"} <= public
    assert {"logits", "h.0.ln_1.out", "h.1.attn.w_o.in"} <= perturbed


def test_recorder_rejects_an_undocumented_read():
    log = ReadLog({"h.0.attn.x_mid": 1})
    log.read = set()
    _ = log["h.0.attn.x_mid"]
    assert log.read - documented(GPTConfig()) == {"h.0.attn.x_mid"}


def test_forward_records_every_name_in_order_and_backward_every_gradient(live):
    names = model.activation_names(live.cfg)
    assert [k for k in live.cache if k in set(names)] == list(names)
    for name in names:
        assert live.cache[model.grad_name(name)].shape == live.cache[name].shape, name
    assert model.grad_name("h.0.attn.w_q.in") == "h.0.attn.w_q.din"
    assert model.grad_name("logits") == "dlogits"


def test_each_gradient_name_is_the_loss_gradient_by_that_tensor(live):
    """FD of the loss by each named tensor (through perturb) against the recorded gradient."""
    worst = {}
    for name in model.activation_names(live.cfg):
        entries, num = loss_grad_at(live, name, entries=NAME_FD_ENTRIES, seed=1)
        grad = live.cache[model.grad_name(name)]
        scale = max(float(np.max(np.abs(grad))), 1e-300)
        worst[name] = float(np.max(np.abs(grad.reshape(-1)[entries] - num))) / scale
    bad = {k: v for k, v in worst.items() if v > FD_RTOL}
    assert not bad, bad


def test_gradient_name_check_fails_for_a_misnamed_gradient(live):
    entries, num = loss_grad_at(live, "h.0.attn.w_q.in", entries=NAME_FD_ENTRIES, seed=1)
    wrong = live.cache["h.0.ln_1.dout"]  # the sum of three shares, not w_q's alone
    scale = float(np.max(np.abs(wrong)))
    assert np.max(np.abs(wrong.reshape(-1)[entries] - num)) / scale > 1e3 * FD_RTOL


def test_perturbing_a_name_shifts_exactly_that_tensor(live):
    names = model.activation_names(live.cfg)
    rng = np.random.default_rng(0)
    base = live.cache
    for pos, name in enumerate(names):
        offset = rng.standard_normal(base[name].shape)
        _, _, cache = model.forward(live.params, live.cfg, live.idx, live.targets,
                                    perturb={name: offset})
        assert np.array_equal(cache[name], base[name] + offset), name
        for before in names[:pos]:
            assert np.array_equal(cache[before], base[before]), (name, before)
        if name != "logits":
            assert not np.array_equal(cache["logits"], base["logits"]), name


@pytest.mark.parametrize("n", "qkv")
def test_perturbing_one_projection_input_leaves_its_siblings(live, n):
    """w_q, w_k and w_v read the same LN₁ output; each input is its own name."""
    name = f"h.0.attn.w_{n}.in"
    offset = np.ones(live.cache[name].shape)
    _, _, cache = model.forward(live.params, live.cfg, live.idx, perturb={name: offset})
    for other in "qkv":
        for leaf in ("in", "out"):
            key = f"h.0.attn.w_{other}.{leaf}"
            same = np.array_equal(cache[key], live.cache[key])
            assert same == (other != n), key


def test_unknown_or_misshaped_perturbation_is_refused(live):
    with pytest.raises(ValueError, match=r"unknown \['h.0.x_mid'\]"):
        model.forward(live.params, live.cfg, live.idx, perturb={"h.0.x_mid": 1.0})
    with pytest.raises(ValueError, match=r"perturb\['logits'\]: expected an offset"):
        model.forward(live.params, live.cfg, live.idx, perturb={"logits": np.ones((3, 1, 1))})
    with pytest.raises(ValueError, match=r"unknown \['h.1.in'\]"):
        model.block_forward(live.params, live.cfg, 0, live.cache["h.0.in"],
                            perturb={"h.0.in": 1.0, "h.1.in": 1.0})
    with pytest.raises(ValueError, match="loss_grad_at: name expected"):
        loss_grad_at(live, "h.0.attn.out")


def test_profile_times_every_matrix_product_of_a_step(live):
    """numeric.profile's BLAS share counts each product once, on the step's named tensors."""
    prods = profile.products(live.cfg, live.params, live.cache)
    # per layer: 6 linears × 3 products + 6 attention products; the head: 3
    assert len(prods) == live.cfg.n_layer * (6 * 3 + 6) + 3
    x, w = live.cache["h.0.attn.w_q.in"], live.params["h.0.attn.w_q"]
    assert np.array_equal(prods[0](), x.reshape(-1, w.shape[0]) @ w)
    dlogits = live.cache["dlogits"].reshape(-1, live.cfg.vocab_size)  # (N, V)
    assert np.array_equal(prods[-1](), dlogits @ live.params["lm_head.w"].T)
