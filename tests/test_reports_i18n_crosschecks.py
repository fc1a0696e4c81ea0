"""Every text a numeric cross-check shows ("compared") exists in English with $...$ math and in
Chinese (reports/render/i18n/crosschecks.toml); an unknown text is named, not hidden."""

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
def compared(crosscheck_records) -> list[str]:
    return sorted({r.compared for r in crosscheck_records})


def _words(text: str) -> str:
    return CODE_NAMES.sub("", "".join(p for p in prose(text).parts if isinstance(p, str)))


def test_every_crosscheck_text_has_both_languages(compared):
    gaps = i18n.missing_crosscheck_texts(compared)
    assert gaps == [], ("cross-check texts without en/zh (add them to reports/render/i18n/"
                        "crosschecks.toml):\n" + "\n".join(gaps))


def test_an_unknown_crosscheck_text_is_named_and_shown_marked():
    new = "u_i vs a brand-new FD check"
    assert i18n.missing_crosscheck_texts([new]) == [
        f"cross-check text {new!r} has no en/zh entry in crosschecks.toml"]
    assert i18n.crosscheck(new, "zh") == i18n.Text(new, missing=True, engine=True)
    # a pattern's repeated placeholder must agree: a mixed-up parameter is not translated
    mixed = "GWᵀ vs FD of the loss by h.0.attn.w_k.in (what h.0.attn.w_q reads)"
    assert i18n.missing_crosscheck_texts([mixed]) != []


def test_a_pattern_fills_in_its_placeholders():
    zh = i18n.crosscheck("XᵀG vs the model's gradient of h.1.mlp.w_fc", "zh")
    assert zh == i18n.Text(r"$X^\top G$ 对比模型关于 h.1.mlp.w_fc 的梯度")
    en = i18n.crosscheck("Monte Carlo E[qᵀk], uniform [0, 1) entries, d_k = 64", "en")
    assert en.text.endswith("${d_k = 64}$") and not en.missing


def test_crosscheck_texts_keep_math_between_dollars(compared):
    found = []
    for lang in i18n.LANGS:
        for english in compared:
            text = i18n.crosscheck(english, lang).text
            if PSEUDO_TEX.search(_words(text)):
                found.append(f"{lang}: {text!r}")
    assert found == [], "math outside $...$:\n" + "\n".join(found)


def test_pseudo_math_check_catches_the_engine_texts(compared):
    # the engine's own texts are exactly what the check exists for
    assert all(PSEUDO_TEX.search(_words(t)) for t in
               ("s_i(δ_ij − s_j) at the live logits", "sqrt(d_k)", "q^T k", "(QKᵀ/√d_k)V"))
    assert not PSEUDO_TEX.search(_words(r"$s_i(\delta_{ij} - s_j)$ 对比 h.0.attn.w_k"))


def test_the_view_shows_compared_as_typeset_prose():
    rec = {"id": "softmax.jacobian_fd", "claim": "softmax_jacobian", "max_abs": 0.0,
           "max_rel": 0.0, "tolerance": 1e-6, "passed": True,
           "compared": "s_i(δ_ij − s_j) at the live logits vs the FD Jacobian of the model's "
                       "softmax"}
    for lang in i18n.LANGS:
        shown = view._crosscheck(rec, i18n.ui(lang), lang)["compared"]
        assert isinstance(shown, Prose) and not shown.missing
        assert Tex(r"s_i(\delta_{ij} - s_j)", False, "cross-check 'softmax.jacobian_fd' "
                   "compared") in shown.parts
    unknown = view._crosscheck({**rec, "compared": "a new check"}, i18n.ui("zh"), "zh")
    assert unknown["compared"] == Prose(("a new check",), missing=True)
