"""Whole-model gradient check, determinism, cache contents, standalone block, mutations."""

from __future__ import annotations

import json

import numpy as np
import pytest

from numeric import finite_diff as fd
from numeric import gradcheck, model, ops
from numeric.config import GPTConfig, preset
from numeric.gradcheck import RTOL, check_model, make_problem

# Entries sampled per tensor in tests: enough to hit every tensor, small enough to stay fast.
TEST_ENTRIES = 6
# Block Jacobian vs finite differences: same stencil, same bar as the gradient check.
JAC_RTOL = RTOL
# A broken backward is off by O(1) of the Jacobian's scale.
BROKEN_MIN_REL = 1e-3


def tiny(pos="sinusoidal", **kw) -> GPTConfig:
    return preset("test", pos=pos, **kw)


def run_check(cfg: GPTConfig, entries: int = TEST_ENTRIES) -> list[dict]:
    params, idx, targets = make_problem(cfg, seed=1)
    return check_model(cfg, params, idx, targets, max_entries=entries)


@pytest.mark.parametrize("cfg", [tiny("sinusoidal"), tiny("rope"),
                                 tiny("rope", activation="identity"),
                                 tiny("sinusoidal", residual=False, n_layer=3)],
                         ids=["sinusoidal", "rope", "identity-mlp", "no-residual"])
def test_full_model_gradcheck_passes(cfg):
    records = run_check(cfg)
    assert {r["tensor"] for r in records} == set(model.param_shapes(cfg)) | {"input.x0"}
    bad = [r for r in records if not r["pass"]]
    assert not bad, bad
    # past RTOL only where the stencil's own noise is all the difference there is
    assert all(r["max_abs"] <= r["floor"] for r in records
               if r["max_rel"] is not None and r["max_rel"] > RTOL)


MUTANTS = {
    "softmax without <g,s>": ("softmax_backward", lambda dout, s: s * dout),
    "residual without identity": ("residual_backward", lambda dout, c: (0.0 * dout, dout)),
    "linear without bias gradient": ("linear_backward", None),
    "gelu derivative = sigma": ("gelu_backward", lambda dout, c: dout * c[1]),
}


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_gradcheck_fails_on_broken_backward(mutant, monkeypatch):
    name, broken = MUTANTS[mutant]
    if broken is None:  # drop the bias gradient: a subtle, realistic omission
        real = ops.linear_backward

        def broken(dout, cache):
            dx, dw, db = real(dout, cache)
            return dx, dw, None if db is None else 0.0 * db
    monkeypatch.setattr(ops, name, broken)
    records = run_check(tiny("rope"), entries=3)
    assert not all(r["pass"] for r in records)


def test_a_gradient_smaller_than_the_stencil_noise_is_judged_against_it():
    # variables: a gradient of size 1e-4 beside a loss of 2, as deep in a model without residuals
    exact = np.array([1e-4, -5e-5, 2e-5])
    floor = gradcheck.noise_floor(2.0)
    # forward/backward stand-ins: the stencil's own noise (about 1e-12), and a backward off by 1 %
    noisy = exact + np.array([1.5e-12, -1e-12, 0.5e-12])
    wrong = exact * 1.01
    # check: noise within the floor passes although max_rel > RTOL; the wrong one fails
    ok = gradcheck.compare("t", noisy, exact, 3, floor)
    assert ok["pass"] and ok["max_rel"] > RTOL
    assert not gradcheck.compare("t", wrong, exact, 3, floor)["pass"]
    assert not gradcheck.compare("t", noisy, exact, 3)["pass"]  # without the floor: the old bar
    assert floor < gradcheck.ZERO_ATOL / 10


def test_structurally_zero_key_bias_is_reported_as_zero():
    records = {r["tensor"]: r for r in run_check(tiny("sinusoidal"))}
    # q·b_k adds the same amount to a whole score row; softmax cancels it.
    assert records["h.0.attn.b_k"]["status"] == "zero"
    assert records["h.0.attn.b_q"]["status"] == "checked"


def test_determinism_from_seed():
    cfg = tiny("rope")
    a, b, c = model.init_params(cfg), model.init_params(cfg), model.init_params(tiny(seed=4))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["wte"], c["wte"])
    params, idx, targets = make_problem(cfg)
    runs = [model.forward(params, cfg, idx, targets) for _ in range(2)]
    grads = [model.backward(r[2], params) for r in runs]
    assert runs[0][0] == runs[1][0]
    assert all(np.array_equal(grads[0][k], grads[1][k]) for k in params)


@pytest.mark.parametrize("pos", ["sinusoidal", "rope"])
def test_cache_exposes_live_tensors(pos):
    cfg = tiny(pos)
    params, idx, targets = make_problem(cfg)
    b, t = idx.shape
    h, d, c, v = cfg.n_head, cfg.head_dim, cfg.n_embd, cfg.vocab_size
    loss, logits, cache = model.forward(params, cfg, idx, targets)
    grads = model.backward(cache, params)
    shapes = {"emb.out": (b, t, c), "logits": (b, t, v), "dlogits": (b, t, v),
              "emb.dout": (b, t, c)}
    for i in range(cfg.n_layer):
        p = f"h.{i}."
        shapes.update({p + "in": (b, t, c), p + "ln_1.out": (b, t, c), p + "attn.q": (b, h, t, d),
                       p + "attn.k": (b, h, t, d), p + "attn.v": (b, h, t, d),
                       p + "attn.scores": (b, h, t, t), p + "attn.probs": (b, h, t, t),
                       p + "attn.dprobs": (b, h, t, t), p + "attn.dscores": (b, h, t, t),
                       p + "mlp.w_fc.out": (b, t, 4 * c), p + "mlp.act": (b, t, 4 * c)})
    for key, shape in shapes.items():
        assert cache[key].shape == shape, key
    assert cache["loss"] == loss and np.array_equal(cache["logits"], logits)
    assert set(grads) == set(params) and all(grads[k].shape == params[k].shape for k in params)
    # The cached softmax input/output pair is the one the backward used.
    dscores = ops.softmax_backward(cache["h.0.attn.dprobs"], cache["h.0.attn.probs"])
    assert np.array_equal(dscores, cache["h.0.attn.dscores"])
    mask = ops.causal_mask(t)
    assert np.all(cache["h.1.attn.probs"][..., ~mask] == 0.0)
    assert np.all(cache["h.1.attn.dscores"][..., ~mask] == 0.0)


def test_causality_future_tokens_do_not_change_past_logits():
    cfg = tiny("rope")
    params, idx, _ = make_problem(cfg)
    changed = idx.copy()
    changed[:, -1] = (changed[:, -1] + 1) % cfg.vocab_size
    a, b = model.forward(params, cfg, idx)[1], model.forward(params, cfg, changed)[1]
    assert np.array_equal(a[:, :-1], b[:, :-1]) and not np.array_equal(a[:, -1], b[:, -1])


def block_jacobian_error(cfg: GPTConfig) -> float:
    """Max |J_backward − J_fd| / max |J_fd| for block 0 on a (1, 3, C) input."""
    params, _, _ = make_problem(cfg)
    x = np.random.default_rng(5).standard_normal((1, 3, cfg.n_embd))  # (B, T, C)
    y, cache = model.block_forward(params, cfg, 0, x)
    n = x.size
    jac_bwd = np.empty((n, n))  # row j: e_jᵀJ from the backward (vector-Jacobian product)
    jac_fd = np.empty((n, n))  # row j: gradient of output j by finite differences
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        jac_bwd[j] = model.block_backward(e.reshape(y.shape), cache)[0].reshape(-1)
        jac_fd[j] = fd.derivative_inplace(
            lambda j=j: model.block_forward(params, cfg, 0, x)[0].flat[j], x, np.arange(n))
    return float(np.max(np.abs(jac_bwd - jac_fd)) / np.max(np.abs(jac_fd)))


@pytest.mark.parametrize("residual", [True, False])
def test_block_jacobian_matches_finite_differences(residual):
    assert block_jacobian_error(tiny("rope", residual=residual)) <= JAC_RTOL


def test_block_jacobian_check_fails_without_residual_identity(monkeypatch):
    monkeypatch.setattr(ops, "residual_backward", lambda dout, c: (0.0 * dout, dout))
    assert block_jacobian_error(tiny("rope")) > BROKEN_MIN_REL


def test_float32_model_runs_finite():
    cfg = tiny("rope", dtype="float32")
    params, idx, targets = make_problem(cfg)
    assert all(p.dtype == np.float32 for p in params.values())
    loss, logits, cache = model.forward(params, cfg, idx, targets)
    grads = model.backward(cache, params)
    assert logits.dtype == np.float32 and np.isfinite(loss)
    assert all(g.dtype == np.float32 and np.all(np.isfinite(g)) for g in grads.values())


@pytest.mark.parametrize("call", [
    lambda p, c: model.forward(p, c, np.zeros((2, 9), int)),  # T > block_size
    lambda p, c: model.forward(p, c, np.zeros(5, int)),  # not (B, T)
    lambda p, c: model.forward(p, c, np.full((1, 3), 99)),  # id ≥ vocab
    lambda p, c: model.block_forward(p, c, 0, np.zeros((1, 3, 8), np.float32)),
    lambda p, c: model.GPT(c, {**p, "wte": p["wte"][:, :3]}),
    lambda p, c: GPTConfig(n_embd=10, n_head=4),
    lambda p, c: GPTConfig(pos="alibi"),
])
def test_bad_input_raises_value_error(call):
    cfg = tiny()
    with pytest.raises(ValueError, match="expected.*got"):
        call(model.init_params(cfg), cfg)


def test_gradcheck_cli(capsys):
    assert gradcheck.main(["--json", "--max-entries", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pass"] and {m["pos"] for m in report["models"]} == {"sinusoidal", "rope"}
    assert gradcheck.main(["--bogus"]) == 2
    assert gradcheck.main(["--max-entries", "0"]) == 2


def test_gradcheck_cli_exits_1_on_broken_softmax(monkeypatch, capsys):
    monkeypatch.setattr(ops, "softmax_backward", lambda dout, s: s * dout)
    assert gradcheck.main(["--max-entries", "3"]) == 1
    assert "FAIL" in capsys.readouterr().out
