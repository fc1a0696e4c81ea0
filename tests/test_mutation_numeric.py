"""Broken backward passes and a broken Adam: the gradient check and the cross-checks catch each.

Every mutant replaces one function of ``numeric.ops`` (the model calls ops through the module) or
of ``numeric.adam`` by a realistic mistake.  Killed means: ``numeric.gradcheck.check_model`` fails
a record of a tensor the mistake reaches, and ``numeric.crosscheck.run_all`` fails at least one
record of a claim that the broken op's backward names (its ``Claims:`` line).  Every op with a
backward has at least one mutant, and none is left to the gradient check alone.  The unbroken code
passes both (the control test), so the checks can tell the difference.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_op_claims import named_claims

from numeric import adam, crosscheck, ops
from numeric.adam import check_against_closed_form
from numeric.config import GPTConfig, preset
from numeric.gradcheck import check_model, make_problem

# Entries per tensor: every tensor gets checked, the file stays fast.
ENTRIES = 3
# Adam: ε = 1e-3 lets ε inside vs outside the root differ far above float64 rounding.
ADAM_EPS = 1e-3

REAL = {name: getattr(ops, name) for name in (
    "softmax_backward", "residual_backward", "linear_backward", "layernorm_backward",
    "gelu_backward", "identity_backward", "cross_entropy_backward", "attention_scores_backward",
    "attention_values_backward", "embedding_backward", "rope_backward", "merge_heads")}


def _linear_transposed(dout, cache):
    dx, dw, db = REAL["linear_backward"](dout, cache)
    x2, w = cache[0], cache[1]
    g = dout.reshape(-1, w.shape[1])
    return dx, (g.T @ x2).reshape(dw.shape), db  # GᵀX for XᵀG, reshaped as the weight


def _linear_bias_mean(dout, cache):
    dx, dw, db = REAL["linear_backward"](dout, cache)
    return dx, dw, None if db is None else db / dout.reshape(-1, dw.shape[1]).shape[0]


def _layernorm_no_mean(dout, cache):
    xhat, rstd, g = cache
    dx, dg, db = REAL["layernorm_backward"](dout, cache)
    return dx + rstd * (dout * g).mean(axis=-1, keepdims=True), dg, db


def _layernorm_no_projection(dout, cache):
    xhat, rstd, g = cache
    dx, dg, db = REAL["layernorm_backward"](dout, cache)
    proj = np.einsum("...c,...c->...", dout * g, xhat)[..., None] / xhat.shape[-1]
    return dx + rstd * xhat * proj, dg, db


def _ce_no_mean(dloss, cache):
    return REAL["cross_entropy_backward"](dloss, cache) * cache[3]  # undo the 1/N


def _scores_no_scale(dscores, cache):
    dq, dk = REAL["attention_scores_backward"](dscores, cache)
    return dq / cache[2], dk / cache[2]


def _values_untransposed(dout, cache):
    dprobs, _ = REAL["attention_values_backward"](dout, cache)
    return dprobs, cache[0] @ dout  # P·dO for Pᵀ·dO


def _embedding_overwrite(dout, cache):
    idx, shape, dtype = cache
    dwte = np.zeros(shape, dtype)
    dwte[idx.ravel()] = dout.reshape(-1, shape[1])  # repeated tokens keep only the last row
    return dwte


def _layernorm_gamma_without_xhat(dout, cache):
    dx, dg, db = REAL["layernorm_backward"](dout, cache)
    return dx, db.copy(), db  # Σ dout for Σ dout ⊙ x̂


def _gelu_exact_derivative(dout, cache):
    x = cache[0]
    phi = np.exp(-x * x / 2) / np.sqrt(2 * np.pi)
    big_phi = 0.5 * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))
    return dout * (big_phi + x * phi)  # the exact GELU's derivative for the tanh form's


def _softmax_leaks_into_masked(dout, cache):
    ds = REAL["softmax_backward"](dout, cache)
    return ds + np.where(cache == 0.0, dout, 0.0)  # masked positions keep the upstream gradient


def _ce_ignored_rows_counted(dloss, cache):
    probs, safe, valid, n = cache
    return REAL["cross_entropy_backward"](dloss, (probs, safe, np.ones_like(valid), n))


def _scores_dk_untransposed(dscores, cache):
    dq, _ = REAL["attention_scores_backward"](dscores, cache)
    q, _, scale = cache
    return dq, dscores @ q * scale  # dS·Q for dSᵀ·Q


def _rope_cosine_only(dout, cache):
    c, s = cache
    return REAL["rope_backward"](dout, (c, np.zeros_like(s)))


def _merge_width_major(x):
    b, h, t, d = x.shape
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1)).reshape(b, t, h * d)  # (D, H) order


def _rope_forward_rotation(dout, cache):
    c, s = cache
    return REAL["rope_backward"](dout, (c, -s))  # R(θ) for R(θ)ᵀ


# name -> (op, broken function, tensor-name fragments of which at least one must fail)
MUTANTS = {
    "softmax backward without <g, s>": (
        "softmax_backward", lambda dout, s: s * dout, ("attn.w_q", "attn.w_k")),
    "residual backward without the identity": (
        "residual_backward", lambda dout, c: (np.zeros_like(dout), dout), ("wte", "input.x0")),
    "linear backward GᵀX for XᵀG": ("linear_backward", _linear_transposed, ("attn.w_",)),
    "linear backward without the bias sum": (
        "linear_backward", _linear_bias_mean, ("attn.b_", "mlp.b_")),
    "layer norm backward without the mean term": (
        "layernorm_backward", _layernorm_no_mean, ("input.x0", "wte")),
    "layer norm backward without the x̂ projection": (
        "layernorm_backward", _layernorm_no_projection, ("input.x0", "wte")),
    "GELU derivative σ only": ("gelu_backward", lambda dout, c: dout * c[1], ("mlp.w_fc",)),
    "cross-entropy gradient without 1/N": ("cross_entropy_backward", _ce_no_mean, ("lm_head.w",)),
    "attention scores backward without 1/√D": (
        "attention_scores_backward", _scores_no_scale, ("attn.w_q", "attn.w_k")),
    "attention values backward P·dO for Pᵀ·dO": (
        "attention_values_backward", _values_untransposed, ("attn.w_v",)),
    "embedding backward overwrites repeated tokens": (
        "embedding_backward", _embedding_overwrite, ("wte",)),
    "RoPE backward rotates forward": ("rope_backward", _rope_forward_rotation, ("attn.w_q",)),
    "layer norm γ gradient without x̂": (
        "layernorm_backward", _layernorm_gamma_without_xhat, ("ln_1.g", "ln_2.g", "ln_f.g")),
    "GELU backward with the exact erf derivative": (
        "gelu_backward", _gelu_exact_derivative, ("mlp.w_fc",)),
    "identity activation backward drops the gradient": (
        "identity_backward", lambda dout, cache: np.zeros_like(dout), ("mlp.w_fc",),
        {"activation": "identity"}),
    "softmax backward leaks into masked positions": (
        "softmax_backward", _softmax_leaks_into_masked, ("attn.w_q", "attn.w_k")),
    "cross-entropy gradient on ignored rows": (
        "cross_entropy_backward", _ce_ignored_rows_counted, ("lm_head.w",)),
    "attention scores backward dS·Q for dSᵀ·Q": (
        "attention_scores_backward", _scores_dk_untransposed, ("attn.w_k",)),
    "RoPE backward without the sine terms": ("rope_backward", _rope_cosine_only, ("attn.w_q",)),
    "merge_heads (split_heads' backward) interleaves the heads": (
        "merge_heads", _merge_width_major, ("attn.w_",)),
}
# Ops whose backward a mutant breaks: every op of numeric.ops that has one, and merge_heads, the
# backward of split_heads (the model merges its attention output with it too).
assert {m[0] for m in MUTANTS.values()} == set(REAL)


def tiny(**changes) -> GPTConfig:
    return preset("test", **{"vocab_size": 5, "n_layer": 1, "pos": "rope", **changes})


def gradcheck_records(**changes) -> list[dict]:
    cfg = tiny(**changes)
    params, idx, targets = make_problem(cfg, seed=1)
    return check_model(cfg, params, idx, targets, max_entries=ENTRIES)


def test_unbroken_code_passes_gradcheck_and_crosschecks(crosscheck_records):
    assert all(r["pass"] for r in gradcheck_records())
    assert all(r.passed for r in crosscheck_records)


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_gradcheck_catches_the_mutant(monkeypatch, mutant):
    op, broken, reached, *changes = MUTANTS[mutant]
    monkeypatch.setattr(ops, op, broken)
    failed = [r["tensor"] for r in gradcheck_records(**(changes[0] if changes else {}))
              if not r["pass"]]
    assert any(part in name for name in failed for part in reached), (reached, failed)


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_crosscheck_catches_the_mutant(monkeypatch, mutant):
    op, broken, *_ = MUTANTS[mutant]
    monkeypatch.setattr(ops, op, broken)
    failed = [r for r in crosscheck.run_all() if not r.passed]
    assert failed, f"no cross-check record failed with {mutant!r}"
    # a record of a claim the op's backward names (its docstring's Claims: line) is among them
    named = set(named_claims(REAL[op]))
    assert named & {r.claim for r in failed}, (named, [f"{r.claim}:{r.id}" for r in failed])


ADAM_MUTANTS = {
    "no bias correction": ("bias_correction", lambda moment, beta, t: moment),
    "bias correction 1 − β^(t+1)": (
        "bias_correction", lambda moment, beta, t: moment / (1.0 - beta ** (t + 1))),
    "ε inside the root": (
        "adam_direction", lambda m_hat, v_hat, eps: m_hat / np.sqrt(v_hat + eps)),
    "no square root": ("adam_direction", lambda m_hat, v_hat, eps: m_hat / (v_hat + eps)),
}


def recorded(steps=20, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(4), [rng.standard_normal(4) for _ in range(steps)]


def test_unbroken_adam_passes_the_closed_form_check():
    theta0, grads = recorded()
    assert check_against_closed_form(1e-2, (0.9, 0.999), ADAM_EPS, theta0, grads)["pass"]


@pytest.mark.parametrize("mutant", list(ADAM_MUTANTS))
def test_adam_mutant_is_caught(monkeypatch, mutant):
    name, broken = ADAM_MUTANTS[mutant]
    monkeypatch.setattr(adam, name, broken)
    theta0, grads = recorded()
    assert not check_against_closed_form(1e-2, (0.9, 0.999), ADAM_EPS, theta0, grads)["pass"]
    failed = [f"{r.claim}:{r.id}" for r in crosscheck.run_all() if not r.passed]
    assert any(claim.startswith("adam_") for claim in failed), failed
