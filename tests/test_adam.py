"""Adam/AdamW: closed forms, bias correction, decoupled decay, clipping, and broken variants."""

from __future__ import annotations

import numpy as np
import pytest

from numeric import adam
from numeric.adam import ADAM_RTOL, Adam, check_against_closed_form

# m̂_t = g for a constant g holds up to float64 rounding of (1−β)Σβ^k / (1−βᵗ).
CONST_GRAD_RTOL = 1e-14
# v̂ divides by 1−β₂ᵗ ≈ t·1e-3 for β₂ = 0.999, which amplifies the ~1e-16 rounding of β₂ᵗ ~10³×.
CONST_GRAD_V_RTOL = 1e-12
# The same identity fails without bias correction by the factor 1−β₁ᵗ (0.1 at t = 1).
UNCORRECTED_MIN_REL = 1e-2
SHAPES = [(3,), (2, 4), (2, 3, 2)]


def recorded(shape, steps=25, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape), [rng.standard_normal(shape) for _ in range(steps)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
def test_matches_closed_form(shape, weight_decay):
    theta0, grads = recorded(shape)
    result = check_against_closed_form(1e-2, (0.9, 0.999), 1e-8, theta0, grads, weight_decay)
    assert result["pass"], result
    assert max(result[k] for k in ("max_rel_m", "max_rel_v", "max_rel_theta")) <= ADAM_RTOL


@pytest.mark.parametrize("mutant,fn", [
    ("no bias correction", lambda moment, beta, t: moment),
    ("epsilon inside the root", lambda m_hat, v_hat, eps: m_hat / np.sqrt(v_hat + eps)),
])
def test_closed_form_check_fails_on_broken_adam(monkeypatch, mutant, fn):
    name = "bias_correction" if mutant.startswith("no bias") else "adam_direction"
    monkeypatch.setattr(adam, name, fn)
    theta0, grads = recorded((4,))
    # ε = 1e-3 makes ε inside vs outside the root differ well above rounding.
    result = check_against_closed_form(1e-2, (0.9, 0.999), 1e-3, theta0, grads)
    assert not result["pass"]


@pytest.mark.parametrize("shape", SHAPES)
def test_bias_correction_recovers_constant_gradient(shape):
    g = np.random.default_rng(1).standard_normal(shape)
    opt = Adam(lr=1e-3)
    params = {"w": np.zeros(shape)}
    for t in range(1, 30):
        opt.step(params, {"w": g})
        m_hat, v_hat = opt.corrected("w")
        assert np.max(np.abs(m_hat - g)) <= CONST_GRAD_RTOL * np.max(np.abs(g)), t
        assert np.max(np.abs(v_hat - g * g)) <= CONST_GRAD_V_RTOL * np.max(g * g), t
        if t < 10:  # the raw EMA is biased towards its zero start
            assert np.max(np.abs(opt.m["w"] - g)) > UNCORRECTED_MIN_REL * np.max(np.abs(g))
    assert opt.t == 29


@pytest.mark.parametrize("p0, decay", [(np.array([[1.0, -2.0, 3.0]]), "matrices"),
                                       (np.array([1.0, -2.0, 3.0]), "all")],
                         ids=["matrix-default", "vector-all"])
def test_adamw_decay_is_decoupled(p0, decay):
    # Zero gradient: Adam's direction is 0, only the decoupled factor (1 − ηλ) acts.
    lr, wd, steps = 0.1, 0.5, 7
    params = {"w": p0.copy()}
    opt = Adam(lr=lr, weight_decay=wd, decay=decay)
    for _ in range(steps):
        opt.step(params, {"w": np.zeros_like(p0)})
    assert np.max(np.abs(params["w"] - p0 * (1 - lr * wd) ** steps)) <= ADAM_RTOL


@pytest.mark.parametrize("decay", ["matrices", "all"])
def test_adamw_parameter_groups(decay):
    """Default: weight matrices and the embedding decay, biases and LayerNorm gains do not."""
    lr, wd, steps = 0.1, 0.5, 3
    p0 = {"wte": np.ones((4, 2)), "h.0.attn.w_q": np.ones((2, 2)), "h.0.attn.b_q": np.ones(2),
          "h.0.ln_1.g": np.ones(2), "h.0.ln_1.b": np.ones(2)}
    params = {k: v.copy() for k, v in p0.items()}
    opt = Adam(lr=lr, weight_decay=wd, decay=decay)
    for _ in range(steps):
        opt.step(params, {k: np.zeros_like(v) for k, v in p0.items()})
    shrunk = {k for k in p0 if np.max(np.abs(params[k] - p0[k] * (1 - lr * wd) ** steps))
              <= ADAM_RTOL}
    kept = {k for k in p0 if np.array_equal(params[k], p0[k])}
    matrices = {"wte", "h.0.attn.w_q"}
    if decay == "matrices":
        assert shrunk == matrices and kept == set(p0) - matrices
    else:
        assert shrunk == set(p0) and kept == set()


def test_unknown_decay_rule_is_refused():
    with pytest.raises(ValueError, match=r"decay expected one of \('matrices', 'all'\), got 'x'"):
        Adam(decay="x")


def test_global_norm_clipping():
    grads = {"a": np.array([3.0, 0.0]), "b": np.array([[0.0, 4.0]])}  # global norm 5
    params = {"a": np.zeros(2), "b": np.zeros((1, 2))}
    opt = Adam(lr=1e-3, betas=(0.9, 0.999), clip_norm=1.0)
    opt.step(params, grads)
    coef = 1.0 / (5.0 + adam.CLIP_GUARD)
    assert opt.last_grad_norm == pytest.approx(5.0, rel=ADAM_RTOL)
    assert opt.last_clip_coef == pytest.approx(coef, rel=ADAM_RTOL)
    assert np.max(np.abs(opt.m["b"] - 0.1 * coef * grads["b"])) <= ADAM_RTOL
    unclipped = Adam(lr=1e-3, clip_norm=10.0)
    unclipped.step({k: v.copy() for k, v in params.items()}, grads)
    assert unclipped.last_clip_coef == 1.0


@pytest.mark.parametrize("kwargs", [{"lr": 0.0}, {"betas": (1.0, 0.999)}, {"eps": -1.0},
                                    {"clip_norm": 0.0}, {"weight_decay": -0.1}])
def test_bad_hyperparameters(kwargs):
    with pytest.raises(ValueError, match="expected.*got"):
        Adam(**kwargs)


@pytest.mark.parametrize("grads", [{"w": np.zeros(2)}, {"w": np.zeros(3, np.float32)},
                                   {"v": np.zeros(3)}])
def test_bad_gradients(grads):
    with pytest.raises(ValueError, match="expected.*got"):
        Adam().step({"w": np.zeros(3)}, grads)
