"""Every display form is machine-checked: a hand-written form is exactly the TeX its SymPy twin
vouches for, a generated one is printed from its twin, and every twin matches the engine
(structurally and numerically); deliberately wrong forms are rejected."""

from __future__ import annotations

import pytest
import sympy as sp

import derivations
from derivations.library import adam
from reports.forms import display_checks as dc
from reports.forms import display_steps as ds
from reports.forms import display_twins as dt
from reports.render import i18n
from reports.view import edition


@pytest.fixture(scope="module")
def claim_ids() -> list[str]:
    return [d.id for d in derivations.claims()]


def test_every_display_form_has_a_twin_that_matches(claim_ids):
    assert dt.unchecked(i18n.display_written, claim_ids) == []
    assert dt.dropped(i18n.display_written) == {"dropped": {}, "problems": []}
    shown = sum(bool(i18n.display(c)[k]) for c in claim_ids for k in ("result", "where"))
    assert shown >= 12 and len(ds.STEP_TWINS) >= 15


def test_generated_forms_reach_the_report():
    steps = i18n.display("cross_entropy_gradient")["steps"]
    assert steps[3] == r"p_{j} - y_{j}".replace("p_{j}", "{p}_{j}").replace("y_{j}", "{y}_{j}")
    where = i18n.display("adam_first_moment_bias")["where"]
    assert where.startswith("m_t = ") and r"\hat{m}_t = \frac{m_{t}}{1 - \beta_{1}^{t}}" in where


@pytest.mark.parametrize(("check", "expected"), [
    (dc.softmax_matrix(+1), "matrix form differs"),  # diag(s) + ssᵀ
    (dc.adam_bias(1, lambda m: m / (1 - adam.beta_1)), "hatted definition"),  # m_t/(1 − β₁)
    (dc.adam_bias(2, lambda v: v), "hatted definition"),  # v̂_t = v_t
])
def test_a_wrong_display_form_is_rejected(check, expected):
    reason = check()
    assert reason is not None and expected in reason, reason


def test_a_wrong_step_form_is_rejected():
    # d_k μ_k μ_q / d_k instead of / √d_k: SymPy would print it just as readably
    wrong = ds.StepTwin("nonzero_mean_growth", 2,
                        lambda e: (ds._over(e["d_k"] * e["mu_k"] * e["mu_q"], e["d_k"]), {}))
    assert "does not equal" in wrong.check()
    # s_i − s_i (Σ_j)/(Σ_k) with the wrong normalizer in one place
    def drift(e):
        twin, ab = ds._psd(e)
        return twin.subs(sp.Symbol(r"\bar{x}"), 2 * sp.Symbol(r"\bar{x}")), ab

    assert ds.StepTwin("softmax_jacobian_psd", 4, drift).check() is not None


def test_residual_and_multihead_checks_can_fail():
    assert dc.residual_step(5)() is None
    dropped_w1 = dc.residual_step(5, lambda eye, w1, w2, diag, xs: eye + w2 * diag)
    assert "differs from the Jacobian" in dropped_w1()
    assert dc.multihead_statement() is None
    first_block_only = dc.multihead_statement(lambda w_o, e, dv: w_o[0:dv, :])
    assert "differs" in first_block_only


def test_tex_that_drifts_from_its_twin_is_rejected_and_dropped(monkeypatch, data):
    real = i18n.display_written

    def drifted(cid):
        shown = real(cid)
        if cid == "softmax_jacobian":
            shown = {**shown, "result": shown["result"].replace("-ss^{\\top}", "+ss^{\\top}")}
        return shown

    monkeypatch.setattr(i18n, "display_written", drifted)
    problems = dt.verify(i18n.display_written)
    assert problems and problems[0].startswith("softmax_jacobian result: claims.toml shows")
    forms = dt.dropped(i18n.display_written)
    assert forms["dropped"] == {"softmax_jacobian": ["result"]}
    monkeypatch.undo()

    def result_of(dropped: dict):
        view_ = edition.build_view({**data, "display_forms": {"dropped": dropped, "problems": []}},
                                 [], "en")
        shown = next(c for c in view_["claims"] if c["id"] == "softmax_jacobian")
        return shown["display_result"] and shown["display_result"].tex

    pinned = i18n.display("softmax_jacobian")["result"]
    assert result_of({}) == pinned
    assert result_of(forms["dropped"]) != pinned  # the report data's drop reaches the view


def test_a_generated_form_also_written_by_hand_is_refused(monkeypatch):
    real = i18n.display_written

    def written(cid):
        shown = real(cid)
        if cid == "log_sum_exp":
            shown = {**shown, "steps": {3: r"\log e^{c} + \log\sum_k e^{z_k-c}"}}
        return shown

    monkeypatch.setattr(i18n, "display_written", written)
    assert any(p.startswith("log_sum_exp steps.3: generated") for p in dt.verify(written))


def test_unchecked_forms_are_named(claim_ids):
    def extra(cid):
        shown = i18n.display_written(cid)
        return {**shown, "where": "x = 1"} if cid == "mlp_collapse" else shown

    assert dt.unchecked(extra, claim_ids) == ["mlp_collapse where"]
