"""Every comparison a numeric cross-check records has a sentence in English with $...$ math and in
Chinese (reports/render/i18n/crosschecks.toml), written from the record's fields; a comparison
without one is named, not hidden."""

from __future__ import annotations

import re

import pytest

from reports.render import i18n
from reports.render.katex import Prose, Tex, prose
from reports.view import edition as view

# ASCII or Unicode math written as text (it belongs between $...$)
PSEUDO_TEX = re.compile(r"[A-Za-z]_[A-Za-z0-9{]|sqrt\(|\^T\b|\^\{|\^\(|_hat|\bmu_|\bsigma_"
                        r"|[ᵀᵗ√Σ⊙‖∂⟨⟩₀-₉²̂−×·≥δθσμτηλβαγεφΦ½]")
# model parameter paths and function names are code, written as the model spells them
CODE_NAMES = re.compile(r"\bh\.\d\.(attn|mlp)\.\w+|\b(layernorm_forward|split_heads|w_o|wte)\b")


@pytest.fixture(scope="module")
def records(crosscheck_records) -> list[dict]:
    return [r.to_dict() for r in crosscheck_records]


def _words(text: str) -> str:
    return CODE_NAMES.sub("", "".join(p for p in prose(text).parts if isinstance(p, str)))


def test_every_comparison_has_both_languages(records):
    gaps = i18n.missing_crosscheck_texts(records)
    assert gaps == [], ("cross-check comparisons without en/zh (add them to reports/render/i18n/"
                        "crosschecks.toml):\n" + "\n".join(gaps))
    for rec in records:
        for lang in i18n.LANGS:
            shown = i18n.crosscheck(rec, lang)
            assert not shown.missing and not shown.engine, (rec["claim"], rec["id"], lang)


def test_every_sentence_is_used(records):
    """No dead words: each entry of crosschecks.toml is a comparison some record makes."""
    made = {(r["claim"], r["compared"]) for r in records}
    kept = {(c, k) for c, entries in i18n.crosschecks_data().items() for k in entries}
    assert kept - made == set()


def test_an_unknown_comparison_is_named_and_shown_marked():
    new = {"claim": "softmax_jacobian", "compared": "brand_new", "tensor": None, "values": {}}
    assert i18n.missing_crosscheck_texts([new]) == [
        "cross-check [softmax_jacobian] brand_new has no en/zh entry in crosschecks.toml"]
    assert i18n.crosscheck(new, "zh") == i18n.Text("brand_new", missing=True, engine=True)
    assert i18n.crosscheck(new, "en") == i18n.Text("brand_new", missing=False, engine=True)


def test_slots_are_filled_from_the_fields():
    linear = {"claim": "linear_grad_input", "compared": "fd", "tensor": "h.1.mlp.w_fc.in",
              "values": {"layer": "h.1.mlp.w_fc"}}
    assert i18n.crosscheck(linear, "zh") == i18n.Text(
        r"$GW^\top$ 对比损失关于 `h.1.mlp.w_fc.in`（`h.1.mlp.w_fc` 的输入）的有限差分")
    mc = {"claim": "dot_product_mean", "compared": "iid_half", "tensor": None,
          "values": {"d_k": 64}}
    assert i18n.crosscheck(mc, "en").text.endswith("${d_k = 64}$")
    bias = {"claim": "causal_mask_weight_derivative", "compared": "fd_finite_bias",
            "tensor": "h.0.attn.scores", "values": {"M": -8.0}}
    assert "$M = -8$" in i18n.crosscheck(bias, "en").text  # a float as format(x, "g") writes it


def test_a_slot_without_its_field_is_an_error_naming_both():
    rec = {"claim": "linear_grad_input", "compared": "fd", "tensor": "h.1.mlp.w_fc.in",
           "values": {}}
    with pytest.raises(i18n.TranslationError,
                       match=r"\[linear_grad_input\] fd \(en\): expected slots among the "
                             r"record's fields \['tensor'\], got .*<layer>"):
        i18n.crosscheck(rec, "en")


def test_crosscheck_texts_keep_math_between_dollars(records):
    found = []
    for lang in i18n.LANGS:
        for rec in records:
            text = i18n.crosscheck(rec, lang).text
            if PSEUDO_TEX.search(_words(text)):
                found.append(f"{lang}: {text!r}")
    assert found == [], "math outside $...$:\n" + "\n".join(found)


def test_pseudo_math_check_catches_math_written_as_text():
    assert all(PSEUDO_TEX.search(_words(t)) for t in
               ("s_i(δ_ij − s_j) at the live logits", "sqrt(d_k)", "q^T k", "(QKᵀ/√d_k)V"))
    assert not PSEUDO_TEX.search(_words(r"$s_i(\delta_{ij} - s_j)$ 对比 h.0.attn.w_k"))


def test_the_view_shows_compared_as_typeset_prose():
    rec = {"id": "L0.index_form_vs_fd", "claim": "softmax_jacobian", "kind": "finite-difference",
           "compared": "index_form_vs_fd", "tensor": "h.0.attn.scores", "values": {},
           "max_abs": 0.0, "max_rel": 0.0, "tolerance": 1e-6, "decides": "max_rel",
           "passed": True}
    for lang in i18n.LANGS:
        shown = view._crosscheck(rec, i18n.ui(lang), lang)["compared"]
        assert isinstance(shown, Prose) and not shown.missing
        assert Tex(r"s_i(\delta_{ij} - s_j)", False, "cross-check 'L0.index_form_vs_fd' "
                   "compared") in shown.parts
    unknown = view._crosscheck({**rec, "compared": "a_new_check"}, i18n.ui("zh"), "zh")
    assert unknown["compared"] == Prose(("a_new_check",), missing=True)
