"""Hand-written display forms are machine-checked: each twin's TeX is what claims.toml shows and
its SymPy form matches the engine; deliberately wrong forms are rejected."""

from __future__ import annotations

import pytest

from derivations import adam
from reports import display_twins, view
from reports.render import i18n


def test_every_twinned_display_form_matches_the_engine():
    assert len(display_twins.TWINS) >= 6
    assert display_twins.verify(i18n.display) == []
    assert view.rejected_display_forms() == {}


@pytest.mark.parametrize(("check", "expected"), [
    (display_twins.softmax_matrix(+1), "matrix form differs"),  # diag(s) + ssᵀ
    (display_twins.adam_bias(1, lambda m: m / (1 - adam.beta_1)), "hatted definition"),
    (display_twins.adam_bias(2, lambda v: v), "hatted definition"),
])
def test_a_wrong_display_form_is_rejected(check, expected):
    reason = check()
    assert reason is not None and expected in reason, reason


def test_tex_that_drifts_from_its_twin_is_rejected_and_dropped(monkeypatch):
    real = i18n.display

    def drifted(cid):
        shown = real(cid)
        if cid == "softmax_jacobian":
            shown = {**shown, "result": shown["result"].replace("-ss^{\\top}", "+ss^{\\top}")}
        return shown

    monkeypatch.setattr(i18n, "display", drifted)
    problems = display_twins.verify(i18n.display)
    assert problems and problems[0].startswith("softmax_jacobian result.matrix")
    view.rejected_display_forms.cache_clear()
    try:
        assert view.rejected_display_forms() == {"softmax_jacobian": ("result",)}
    finally:
        view.rejected_display_forms.cache_clear()


def test_unchecked_forms_are_named():
    import derivations

    ids = [d.id for d in derivations.claims()]
    names = display_twins.unchecked(i18n.display, ids)
    assert "softmax_jacobian result" not in names
    assert all(n.split()[0] in ids for n in names)
