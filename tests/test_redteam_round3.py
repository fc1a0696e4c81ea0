"""Round 3 of the adversarial suite, through the engine: a fixed sample of its cases (the two
cheapest of every class, false and true, and the command-line inputs of the classes the
sample would otherwise miss) ends as its witness says — a false claim `failed` or `refused`,
a true one `proved`.  The whole round (327 cases, about 26 min) runs with
``python -m derivations.redteam.round3 --engine``; the witnesses of every case are tested in
``test_redteam_round3_witnesses.py``."""

from __future__ import annotations

import pytest

from derivations.redteam.round3 import CASES
from derivations.redteam.round3.run import run_engine

# wall seconds one case may take here: the slowest of the sample used about 3 s of CPU
CAP = 120
SAMPLE = (
    # false: each must be failed or refused
    "bat_floor_pos_1e1", "bat_Abs_pos_1e0", "trust_cite_proved_false_claim",
    "trust_cites_numeric_false_lemma", "cx_abs_square_is_square", "cx_conjugate_is_identity",
    "hyp_gt1000_digit_count", "hyp_gt1e7_tanh_is_one", "inc_trace_swap_is_not_cyclic",
    "inc_adam_folded_form_unscaled_eps", "never_alternating_binomial_m0",
    "never_index_end_zero_power", "sat_dtanh_is_zero", "sat_erfc_scaled_is_zero",
    "time_adam_correction_at_1e6", "time_power_derivative_1e6_wrong",
    "cli_sat_premise_gelu_tanh", "cli_never_size5_with_step", "cli_trust_lemma_in_file",
    # true: each must be proved
    "bat_floor_pos_identity", "bat_gamma_pos_identity", "canc_one_minus_cos_tiny",
    "canc_softmax_complement", "trust_instance_inside_true", "trust_cites_true_lemma",
    "cx_rotary_real_frequency_true", "cx_pythagoras_true", "hyp_line_product_true",
    "hyp_ge2_sqrt_square_true", "inc_adam_first_step", "inc_trace_as_zero_based_sum",
    "never_alternating_binomial_positive", "never_geometric_m0_true",
    "time_power_derivative_1e6_true", "cli_canc_softplus_split", "cli_inc_trace_cyclic_four",
)
BY_ID = {c.id: c for c in CASES}


@pytest.fixture(scope="module")
def outcomes():
    return {o.case.id: o for o in run_engine([BY_ID[i] for i in SAMPLE], workers=2, cap=CAP)}


def test_the_sample_covers_every_class_both_ways():
    picked = [BY_ID[i] for i in SAMPLE]
    assert len(set(SAMPLE)) == len(SAMPLE)
    classes = {c.cls for c in CASES}
    assert {c.cls for c in picked if not c.true} == classes - {"cancellation"}  # no false ones
    assert {c.cls for c in picked if c.true} == classes - {"saturation"}  # no true ones
    assert any(i.startswith("cli_") for i in SAMPLE)


def test_every_false_claim_of_the_sample_is_caught(outcomes):
    wrong = [(i, o.result, o.detail[:200]) for i, o in outcomes.items()
             if not o.case.true and o.result not in ("failed", "refused")]
    assert wrong == []


def test_every_true_claim_of_the_sample_is_proved(outcomes):
    wrong = [(i, o.result, o.detail[:200]) for i, o in outcomes.items()
             if o.case.true and o.result != "proved"]
    assert wrong == []
