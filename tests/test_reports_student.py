"""The student edition's view (reports/view/student.py): topics in teaching order, one line of
evidence naming the error that decides against its tolerance, numbers as formulas, the notes'
errata under the topic of the derivation they cite, short anchors; and readable PDF bookmarks."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from reports.render import i18n
from reports.render.katex import Prose, Tex
from reports.render.latex import tex_text
from reports.view import student

FIXTURE = Path(__file__).parent / "fixtures" / "student_claims.json"
ORDER = ["embedding", "attention", "softmax", "cross_entropy", "linear", "residual", "adam"]


@pytest.fixture(scope="module")
def shipped() -> dict:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    erratum = {"id": "n9-x", "note": "n.txt", "quote": "q", "claim_latex": "a = b",
               "verdict": "error", "correction_latex": "a = c", "correction_text": "c, not b",
               "evidence": {"kind": "claim", "ref": "softmax_jacobian", "passed": True,
                            "detail": "d"}}
    loose = {**erratum, "id": "n9-y", "evidence": {"kind": "history", "ref": "",
                                                    "passed": True, "detail": "d"}}
    right = {**erratum, "id": "n9-z", "verdict": "correct"}
    return {**data, "plot_data": {}, "training": {"steps": [], "loss": []},
            "errata": {"records": [erratum, loose, right], "summary": {}}}


def _text(p: Prose) -> str:
    return "".join(x if isinstance(x, str) else f"${x.tex}$" for x in p.parts)


@pytest.mark.parametrize(("x", "tex"), [
    (1e-5, "10^{-5}"), (4.6e-2, "0.046"), (2.94e-11, "2.9\\times 10^{-11}"),
    (9.96e-5, "10^{-4}"), (0.0, "0"), (123.0, "123"),
])
def test_numbers_are_formulas_not_e_notation(x, tex):
    assert student.sci(x).tex == tex


def test_topics_come_in_teaching_order(shipped):
    view = student.build_view(shipped, [], "en")
    assert [t["key"] for t in view["topics"]] == ORDER
    assert [t["anchor"] for t in view["topics"]] == [f"t{i}" for i in range(1, 8)]
    assert all(t["claims"] for t in view["topics"])


def test_errata_stand_under_the_topic_they_cite(shipped):
    view = student.build_view(shipped, [], "en")
    softmax = next(t for t in view["topics"] if t["key"] == "softmax")
    assert [e["anchor"] for e in softmax["errata"]] == ["t3-e1"]
    assert [e["corrected"].tex for e in softmax["errata"]] == ["a = c"]
    # citing no derivation: at the end; a correct statement: only in the full report
    assert [e["anchor"] for e in view["other_errata"]] == ["e1"]
    assert sum(len(t["errata"]) for t in view["topics"]) == 1


def test_the_evidence_line_names_the_error_that_decides(shipped):
    data = copy.deepcopy(shipped)
    checks = [r for r in data["crosschecks"] if r["claim"] == "softmax_jacobian"]
    worst = checks[0]
    # large absolute error, judged on the relative one: the line must show the relative error
    worst.update(max_abs=4.6e-2, max_rel=3e-4, tolerance=1e-3, decides="max_rel")
    for r in checks[1:]:
        r.update(max_rel=1e-12, max_abs=1e-12, decides="max_rel", tolerance=1e-3)
    view = student.build_view(data, [], "en")
    claim = next(c for t in view["topics"] for c in t["claims"]
                 if c["href"].endswith("claim-softmax_jacobian"))
    line = _text(claim["evidence"])
    assert "relative error $3\\times 10^{-4}$ (tolerance $10^{-3}$)" in line, line
    assert "0.046" not in line and "e-" not in line
    worst.update(decides="max_abs", tolerance=0.1)
    view = student.build_view(data, [], "en")
    claim = next(c for t in view["topics"] for c in t["claims"]
                 if c["href"].endswith("claim-softmax_jacobian"))
    assert "absolute error $0.046$ (tolerance $0.1$)" in _text(claim["evidence"])


def test_both_editions_have_every_word(shipped):
    for lang in i18n.LANGS:
        view = student.build_view(shipped, [], lang)
        # the derivations, topic names and introductions (the errata here are made up)
        shown = [{k: v for k, v in t.items() if k != "errata"} for t in view["topics"]]
        missing = [p.plain for p in _walk(shown) if isinstance(p, Prose) and p.missing]
        assert missing == [], (lang, missing)
    # an untranslated word would be found
    assert [p.plain for p in _walk([{"x": Prose(("word",), True)}]) if p.missing] == ["word"]


def _walk(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in ("t", "s"):
                yield from _walk(v)
    elif isinstance(node, list | tuple):
        for v in node:
            yield from _walk(v)
    else:
        yield node


def test_no_visible_string_is_a_code_identifier(shipped):
    view = student.build_view(shipped, [], "en")
    text = "\n".join(student.visible_text(view))
    ids = {c["id"] for c in shipped["claims"]} | {c["module"] for c in shipped["claims"]}
    assert [i for i in sorted(ids) if "_" in i and i in text] == []
    assert "n9-x" not in text
    # a slip that showed a claim id would be found
    assert "softmax_jacobian" in "\n".join(student.visible_text(
        {**view, "extra": Prose(("see softmax_jacobian",))}))


@pytest.mark.parametrize(("tex", "text"), [
    (r"m_t = (1-\beta_1)\sum_{i=1}^{t} \beta_1^{t-i} g_i", "mₜ = (1-β₁)Σᵢ₌₁ᵗ β₁ᵗ⁻ⁱ gᵢ"),
    (r"\frac{\eta}{\sqrt{\hat{v}_t + \varepsilon}}", "η/(√(v̂ₜ + ε))"),
    (r"\operatorname{diag}(s) - s s^\top", "diag(s) - s sᵀ"),
    (r"\lVert g \rVert = 10^{-5}", "‖ g ‖ = 10⁻⁵"),
])
def test_bookmarks_keep_their_symbols(tex, text):
    assert tex_text(tex) == text
    assert Tex(tex).tex == tex
