"""A closed form for a sequence the note defines by a recursion is checked by induction: at
t = 1 one step from the start value, then one step of the recursion for every t ≥ 2."""

from __future__ import annotations

import pytest

from derivations.notes import check_text

RECURSION = r"""# Moments
Start from $v_0 = 0$ and $\beta = 0.9$.

$$v_t = \beta v_{t-1} + (1 - \beta)\, g_t^2$$

If the gradient is constant, $v_t = {closed}$.
"""


def _closed_form(closed: str, text: str = RECURSION):
    note = text.replace("{closed}", closed)
    return [f for f in check_text(note, "v.md", store=None).formulas
            if f.latex.startswith("v_t =") and "beta v_{t-1}" not in f.latex][0]


@pytest.mark.parametrize("closed", [r"(1 - \beta^{t})\, g^2", r"g^2 - \beta^t g^2"])
def test_a_right_closed_form_holds_by_induction(closed):
    got = _closed_form(closed)
    assert got.verdict in ("proved", "numeric"), got.reason
    assert "by induction" in got.reason and "g_t = g for every t" in got.reason


@pytest.mark.parametrize("closed", [r"(1 - \beta^{t-1})\, g^2", r"(1 - \beta)^{t}\, g^2",
                                    r"(1 - \beta^{t+1})\, g^2"])
def test_a_wrong_closed_form_fails_and_says_where(closed):
    got = _closed_form(closed)
    assert got.verdict == "failed", got.reason
    assert "by induction" in got.reason
    assert "t = 1" in got.reason or "one step of the recursion does not give it" in got.reason


def test_a_closed_form_is_asked_only_from_t_1():
    # a_t = 3t for every t ≥ 1 although a_0 = 5: right, and not blamed for t = 0
    note = (r"Let $a_0 = 5$. $$a_t = 0 \cdot a_{t-1} + 3t$$" "\n\n"
            r"So $a_t = 3t$ and $a_t = 3t + 5$.")
    right, wrong = [f for f in check_text(note, "a.md", store=None).formulas
                    if f.latex in ("a_t = 3t", "a_t = 3t + 5")]
    assert right.verdict in ("proved", "numeric"), right.reason
    assert wrong.verdict == "failed", wrong.reason


def test_without_a_start_value_a_closed_form_is_not_checked():
    got = _closed_form(r"(1 - \beta^{t})\, g^2", RECURSION.replace("$v_0 = 0$ and ", ""))
    assert got.verdict == "not checkable"
    assert "start value v_0" in got.reason
