"""Cross-checks of the derivations against the live model: all pass on the model as built, and
each named record fails when the model (or a derived formula) is deliberately broken."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

import derivations
from derivations.library import attention_scaling as sc
from numeric import adam as adam_mod
from numeric import crosscheck, model, ops
from numeric.crosscheck import layers as crosscheck_layers
from numeric.crosscheck import softmax as crosscheck_softmax
from numeric.crosscheck import stats as crosscheck_stats
from numeric.crosscheck.core import (
    MODEL_RTOL,
    Kind,
    Record,
    compare,
    matrix_fn,
    one_based,
    stat_record,
)
from numeric.crosscheck.live import check_config
from numeric.crosscheck.live import run as run_live

RECORD_KEYS = {"claim", "id", "kind", "compared", "tensor", "values", "max_abs", "max_rel",
               "tolerance", "decides", "passed"}
# A mutation changes a gradient at O(0.1) relative; it must miss its tolerance by far.
BROKEN_MIN_REL = 1e-3


def _by_id(recs, claim):
    return {r.id: r for r in recs if r.claim == claim}


def _assert_broken(recs, claim, rid_part):
    hits = [r for r in recs if r.claim == claim and rid_part in r.id]
    assert hits, f"no record {claim}/{rid_part}"
    for r in hits:
        assert not r.passed and r.max_rel > BROKEN_MIN_REL, r


# ----------------------------------------------------------------------------- all pass
def test_every_record_passes_and_every_claim_is_covered(crosscheck_records):
    failed = [r.to_dict() for r in crosscheck_records if not r.passed]
    assert not failed
    cov = crosscheck.coverage(crosscheck_records)
    assert cov["unchecked"] == [], cov
    assert {d.id for d in derivations.claims()} <= {r.claim for r in crosscheck_records}


def test_records_are_json_with_the_agreed_fields(crosscheck_records):
    for r in crosscheck_records:
        d = r.to_dict()
        assert set(d) - {"power"} == RECORD_KEYS  # power: Monte Carlo rows only
        assert "power" not in d or set(d["power"]) == {"formula", "value", "would_fail"}
        assert isinstance(d["passed"], bool) and isinstance(d["id"], str)
        assert all(isinstance(d[k], float) for k in ("max_abs", "max_rel", "tolerance"))
        assert d["kind"] in {k.value for k in Kind} and d["decides"] in ("max_rel", "max_abs")
        # the record decides as it says: its deciding error against its tolerance
        assert d["passed"] == (d[d["decides"]] <= d["tolerance"]), d
    json.dumps([r.to_dict() for r in crosscheck_records], allow_nan=False)
    ids = [(r.claim, r.id) for r in crosscheck_records]
    assert len(ids) == len(set(ids))


def test_every_tensor_is_one_the_model_names(crosscheck_records):
    """A record's tensor is an activation, its gradient or a parameter of the check model's one
    naming scheme (the RoPE and ignore_index models name theirs alike)."""
    cfg = run_live().cfg
    acts = model.activation_names(cfg)
    names = {*acts, *(model.grad_name(a) for a in acts), *model.param_shapes(cfg)}
    tensors = {r.tensor for r in crosscheck_records} - {None}
    assert tensors and tensors <= names, tensors - names
    assert {"h.0.attn.w_q.in", "h.0.attn.scores", "logits", "wte"} <= tensors


def test_kinds_are_declared_per_comparison(crosscheck_records):
    """The kind is the producer's, never read from words: every finite-difference comparison is
    one, and the Adam closed forms stand against the optimiser's recursion."""
    kinds = {(r.claim, r.id): r.kind for r in crosscheck_records}
    assert set(kinds.values()) == set(Kind)
    assert kinds[("linear_grad_weight", "h.0.attn.w_q.fd")] is Kind.FINITE_DIFFERENCE
    assert kinds[("linear_grad_weight", "h.0.attn.w_q.model")] is Kind.IDENTITY
    assert kinds[("dot_product_variance", "iid_half.d_k=64")] is Kind.MONTE_CARLO
    for rid in ("optimizer_m", "constant_m", "constant_m_hat", "uncorrected_gap"):
        claim = next(c for c, i in kinds if i == rid)
        assert kinds[(claim, rid)] is Kind.CLOSED_FORM, rid
    assert [k for k in Kind if k.independent] == [Kind.FINITE_DIFFERENCE, Kind.MONTE_CARLO,
                                                   Kind.CLOSED_FORM]


def test_the_settings_a_sentence_states_are_fields(crosscheck_records):
    by = {(r.claim, r.id): r for r in crosscheck_records}
    assert by[("dot_product_mean", "iid_half.d_k=4096")].values == {"d_k": 4096}
    assert by[("adam_first_moment_closed_form", "optimizer_m")].values == {"steps": 6}
    linear = by[("linear_grad_input", "h.1.mlp.w_fc.fd")]
    assert linear.tensor == "h.1.mlp.w_fc.in" and linear.values == {"layer": "h.1.mlp.w_fc"}
    assert by[("causal_mask_weight_zero", "L0.model_probs")].decides == "max_abs"


def test_attention_scaling_covers_every_width(crosscheck_records):
    ids = set(_by_id(crosscheck_records, "scaled_dot_product_variance"))
    assert ids == {f"iid_std.d_k={d}" for d in crosscheck_stats.D_KS}
    assert {f"model_proj.d_k={d}" for d in crosscheck_stats.D_KS} <= set(
        _by_id(crosscheck_records, "dot_product_variance"))


# ----------------------------------------------------------------------------- mutations
def test_softmax_backward_without_inner_product_fails(monkeypatch):
    monkeypatch.setattr(ops, "softmax_backward", lambda dout, s: dout * s)
    recs = crosscheck_softmax.softmax_records(run_live())
    for claim, part in (("softmax_jacobian", "jvp_vs_model"),
                        ("softmax_jacobian_vector_product", "model_backward"),
                        ("attention_softmax_backward", "vs_model"),
                        ("softmax_jacobian_rows_sum_zero", "model_backward"),
                        ("softmax_jacobian_psd", "quadratic_form")):
        _assert_broken(recs, claim, part)
    # the forward is intact, so the comparison with finite differences of it still passes
    assert all(r.passed for r in recs if r.id.endswith("index_form_vs_fd"))


def test_residual_without_identity_fails(monkeypatch):
    monkeypatch.setattr(ops, "residual_backward", lambda dout, c: (np.zeros_like(dout), dout))
    recs = crosscheck_layers.residual_records(run_live())
    _assert_broken(recs, "residual_jacobian", "model_vs_fd")
    _assert_broken(recs, "residual_jacobian", "derived_vs_fd")


def test_adam_without_bias_correction_fails(monkeypatch):
    monkeypatch.setattr(adam_mod, "bias_correction", lambda moment, beta, t: moment)
    recs = crosscheck_layers.adam_records(run_live())
    _assert_broken(recs, "adam_first_moment_unbiased", "constant_m_hat")
    _assert_broken(recs, "adam_second_moment_unbiased", "constant_v_hat")
    _assert_broken(recs, "adam_epsilon_placement", "step_alg1")
    assert _by_id(recs, "adam_first_moment_closed_form")["optimizer_m"].passed


def test_adam_started_from_nonzero_moments_fails(monkeypatch):
    class WarmStart(adam_mod.Adam):
        """Adam whose moments start at 0.1 instead of 0 (a restored or reused state)."""

        def step(self, params, grads):
            for name, p in params.items():
                self.m.setdefault(name, np.full_like(p, 0.1))
                self.v.setdefault(name, np.full_like(p, 0.1))
            super().step(params, grads)
    monkeypatch.setattr(crosscheck_layers, "Adam", WarmStart)
    recs = crosscheck_layers.adam_records(run_live())
    _assert_broken(recs, "adam_moments_start_at_zero", "optimizer_m0")
    _assert_broken(recs, "adam_moments_start_at_zero", "optimizer_v0")


def test_upstream_gradient_not_the_loss_gradient_fails(monkeypatch):
    original = ops.cross_entropy_backward

    def summed(dloss, cache):  # every G downstream N times the loss's gradient
        return original(dloss, cache) * cache[3]
    monkeypatch.setattr(ops, "cross_entropy_backward", summed)
    recs = crosscheck_layers.linear_records(run_live())
    for leaf in crosscheck_layers.LINEARS:
        _assert_broken(recs, "linear_upstream_gradient", f"h.0.{leaf}.fd")


def test_transposed_linear_backward_fails(monkeypatch):
    original = ops.linear_backward

    def transposed(dout, cache):
        dx, dw, db = original(dout, cache)
        return dx, (dw.T if dw.shape[0] == dw.shape[1] else dw), db
    monkeypatch.setattr(ops, "linear_backward", transposed)
    recs = crosscheck_layers.linear_records(run_live())
    for leaf in ("w_q", "w_k", "w_v", "w_o"):
        _assert_broken(recs, "linear_grad_weight", f"h.0.attn.{leaf}.model")


def test_cross_entropy_without_batch_mean_fails(monkeypatch):
    original = ops.cross_entropy_backward

    def summed(dloss, cache):
        return original(dloss, cache) * cache[3]  # undo the 1/N
    monkeypatch.setattr(ops, "cross_entropy_backward", summed)
    live = run_live()
    recs = crosscheck_softmax.cross_entropy_records(live, crosscheck.fd_logits(live))
    _assert_broken(recs, "cross_entropy_batch_mean", "model_backward")
    assert _by_id(recs, "cross_entropy_batch_mean")["fd"].passed


def test_mlp_collapse_fails_with_a_nonlinearity():
    recs = crosscheck_layers.mlp_records(run_live(check_config(activation="gelu")))
    _assert_broken(recs, "mlp_collapse", "collapsed")


@pytest.mark.parametrize(("name", "wrong"), [
    ("SCALED_UNIT_VARIANCE", sc.d_k),  # forgetting the 1/√d_k
    ("UNIT_VARIANCE", sc.d_k * 6 / 5),  # a 20 % error
    ("VARIANCE", sc.d_k * sc.sigma_q**2 * sc.sigma_k**2),  # the zero-mean formula at μ ≠ 0
])
def test_monte_carlo_rejects_a_wrong_formula(monkeypatch, name, wrong, live):
    monkeypatch.setattr(sc, name, wrong)  # a derived formula, not an op: the live model is fine
    recs = crosscheck_stats.scaling_records(live)
    claim = {"SCALED_UNIT_VARIANCE": "scaled_dot_product_variance",
             "UNIT_VARIANCE": "unit_dot_product_variance",
             "VARIANCE": "dot_product_variance"}[name]
    bad = [r for r in recs if r.claim == claim and "iid" in r.id and not r.passed]
    assert bad, f"{name} = {wrong} went unnoticed"


@pytest.mark.parametrize("block_size", [3, 4, 6])
def test_softmax_checks_pass_for_other_row_lengths(block_size):
    recs = crosscheck_softmax.softmax_records(run_live(check_config(block_size=block_size)))
    assert all(r.passed for r in recs), [r.to_dict() for r in recs if not r.passed]


# ----------------------------------------------------------------------------- building blocks
def test_compare_fails_on_wrong_values_and_names_shapes():
    want = np.array([1.0, -2.0])
    kind = Kind.IDENTITY
    assert compare("c", "i", "x", want + 1e-14, want, MODEL_RTOL, kind=kind).passed
    r = compare("c", "i", "x", want * 1.01, want, MODEL_RTOL, kind=kind)
    assert not r.passed and r.max_rel == pytest.approx(0.01)
    assert not compare("c", "i", "x", np.array([np.nan, 1.0]), want, MODEL_RTOL, kind=kind).passed
    with pytest.raises(ValueError, match=r"expected \(2,\), got \(3,\)"):
        compare("c", "i", "x", np.zeros(3), want, MODEL_RTOL, kind=kind)
    # an exact reference: the absolute error decides, against a tolerance of 0
    exact = compare("c", "i", "x", np.array([0.0, 1e-300]), np.zeros(2), 0.0, kind=kind,
                    absolute=True)
    assert exact.decides == "max_abs" and not exact.passed and exact.max_abs == 1e-300


@pytest.mark.parametrize(("change", "message"), [
    ({"kind": "finite-difference"}, r"kind expected one of \['finite-difference'"),
    ({"compared": "the model's gradient vs FD"}, "compared expected a key of lowercase"),
    ({"compared": ""}, "compared expected a key"),
    ({"decides": "max_sq"}, r"decides expected one of \['max_rel', 'max_abs'\]"),
    ({"values": {"d_k": True}}, "values expected a dict of str, int or float"),
])
def test_a_malformed_record_is_refused_naming_the_field(change, message):
    fields = {"claim": "softmax_jacobian", "id": "x", "kind": Kind.IDENTITY, "compared": "model",
              "max_abs": 0.0, "max_rel": 0.0, "tolerance": MODEL_RTOL, "passed": True}
    Record(**fields)
    with pytest.raises(ValueError, match=f"softmax_jacobian/x: {message}"):
        Record(**{**fields, **change})


def test_adapters():
    a = np.arange(6.0).reshape(2, 3)  # 2 rows of a length-3 vector
    p = one_based(a)
    assert p.shape == (4, 2) and np.all(p[0] == 0) and np.all(p[1:] == a.T)
    X, W = sp.MatrixSymbol("X", 2, 3), sp.MatrixSymbol("W", 3, 2)
    fn = matrix_fn(X * W, (X, W), {})
    assert np.allclose(fn(np.ones((2, 3)), np.ones((3, 2))), 3.0)
    with pytest.raises(ValueError, match=r"W: expected shape \(3, 2\), got \(2, 2\)"):
        fn(np.ones((2, 3)), np.ones((2, 2)))


# ----------------------------------------------------------------------------- plots and CLI
def test_plot_data_shape_and_trends():
    from numeric.crosscheck import stats

    data = crosscheck.plot_data()
    json.dumps(data, allow_nan=False)
    assert set(data) == {"variance_vs_dk", "saturation", "depth_gradnorm"}
    var, sat, depth = data["variance_vs_dk"], data["saturation"], data["depth_gradnorm"]
    assert set(var) == {"d_k", "empirical_var", "empirical_var_scaled", "derived_var",
                        "derived_var_scaled", "samples"}
    assert var["samples"] == stats.S_IID
    assert var["derived_var"] == [float(d) for d in var["d_k"]]
    assert set(sat) == {"d_k", "max_weight_unscaled", "max_weight_scaled",
                        "grad_norm_unscaled", "grad_norm_scaled", "keys", "rows"}
    # the row length and the number of rows the curves average, which the caption states
    assert isinstance(sat["keys"], int) and isinstance(sat["rows"], int)
    assert sat["keys"] >= 2 and sat["rows"] >= 1
    assert sat["max_weight_unscaled"][-1] > 0.9 > sat["max_weight_scaled"][-1]
    assert sat["grad_norm_unscaled"][-1] < sat["grad_norm_scaled"][-1]
    assert set(depth) == {"layer", "with_residual", "without_residual", "ln_eps",
                          *(f"ln_f_{q}_{k}" for q in ("std", "gain")
                            for k in ("with_residual", "without_residual"))}
    assert len(depth["layer"]) == len(depth["with_residual"]) == len(depth["without_residual"])
    assert depth["without_residual"][0] < 1e-3 * depth["with_residual"][0]
    for group in data.values():
        assert all(isinstance(x, int | float) for v in group.values()
                   for x in (v if isinstance(v, list) else [v]))


def test_cli_json_and_exit_codes(monkeypatch, capsys, crosscheck_records):
    monkeypatch.setattr(crosscheck, "run_all", lambda: crosscheck_records)
    assert crosscheck.main(["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"records"} and len(out["records"]) == len(crosscheck_records)
    assert all(set(r) - {"power"} == RECORD_KEYS for r in out["records"])
    failing = Record("softmax_jacobian", "x", Kind.IDENTITY, "broken", 1.0, 1.0, MODEL_RTOL, False)
    monkeypatch.setattr(crosscheck, "run_all", lambda: [*crosscheck_records, failing])
    assert crosscheck.main([]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_cli_bad_usage_is_one_line_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "numeric.crosscheck", "--bogus"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert proc.stderr.strip().count("\n") == 0 and "--bogus" in proc.stderr


# the relative 3-SE band of every Monte Carlo row: narrow enough that the plausible wrong
# formulas shown as its power fall outside it
MC_BAND = 0.10


def test_every_monte_carlo_row_has_power_and_a_narrow_band(live):
    recs = crosscheck_stats.scaling_records(live)
    assert recs
    for r in recs:
        assert r.tolerance <= MC_BAND, (r.id, r.tolerance)
        assert r.power is not None and r.power["would_fail"], (r.id, r.power)
        assert r.to_dict()["power"]["formula"], r.id


def test_power_says_when_a_wrong_formula_would_pass():
    near = stat_record("c", "id", "what", estimate=10.0, se=1.0, derived=10.0, wrong=("x", 11.0))
    far = stat_record("c", "id", "what", estimate=10.0, se=1.0, derived=10.0, wrong=("x", 20.0))
    assert near.passed and not near.power["would_fail"]
    assert far.passed and far.power["would_fail"]
