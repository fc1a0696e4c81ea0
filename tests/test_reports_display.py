"""Named abbreviations: shown only when substituting the definitions back gives the engine's
expression, and they do produce the textbook forms the titles name."""

from __future__ import annotations

import sympy as sp

import derivations
from derivations.engine.conditions import conditions
from reports.forms import display


def test_softmax_jacobian_reads_s_i_delta_minus_s_j():
    out = display.claim_display("softmax", derivations.get("softmax_jacobian").statement,
                                [s.expr for s in derivations.get("softmax_jacobian").steps])
    rhs = r"\left(\delta_{i j} - {s}_{j}\right) {s}_{i}"
    assert out["statement"] == r"\frac{\partial}{\partial {z}_{j}} {s}_{i} = " + rhs
    assert out["steps"]["3"] == rhs


def test_cross_entropy_gradient_reads_p_minus_y():
    d = derivations.get("cross_entropy_gradient")
    out = display.claim_display("cross_entropy", d.statement, [s.expr for s in d.steps])
    assert "{p}_{j}" in out["statement"] and r"\delta_{j k}" in out["statement"]


def test_a_wrong_abbreviation_is_never_shown():
    from derivations.library import softmax as sm

    s = sp.IndexedBase("s")
    expr = sm.softmax(sm.i) * (1 - sm.softmax(sm.j))
    right = [(sm.softmax(sm.i), s[sm.i]), (sm.softmax(sm.j), s[sm.j])]
    assert display.abbreviate(expr, right) == s[sm.i] * (1 - s[sm.j])
    # a name that stands for something else: substituting back does not give expr again
    mismatched = [(sm.softmax(sm.i), s[sm.i]), (sp.exp(sm.z[sm.j]), s[sm.i])]
    assert display.abbreviate(expr, mismatched) is None


def test_numeric_check_fails_on_a_nonzero_difference():
    z, k, n = sp.IndexedBase("z"), sp.Symbol("k", integer=True), sp.Symbol("n", integer=True)
    assert display._numeric_zero(sp.Sum(z[k], (k, 1, n)) - sp.Sum(z[k], (k, 1, n)), 1)
    assert not display._numeric_zero(sp.Sum(z[k] ** 2, (k, 1, n)) + 1, 1)


def chain_dicts() -> list[dict]:
    """Every shipped claim as report data, from the derivation objects (nothing verified)."""
    out = []
    for d in derivations.claims():
        module = derivations.module_of(d) or d.id.split("_")[0]
        out.append({
            "id": d.id, "title": d.title, "module": module, "status": "proved",
            "seconds": 0.0, "failed_step": None, "statement": sp.latex(d.statement),
            "premises": {a.name: "proved" for a in d.assumptions if a.source is not None},
            "assumptions": [{"name": a.name, "text": a.text, "latex": a.latex or "x",
                             "kind": a.kind} for a in d.assumptions],
            "conditions": conditions(d),
            "steps": [{"index": i, "latex": sp.latex(s.expr), "rule": s.rule,
                       "by": list(s.by), "symbolic": "zero", "numeric": "agree",
                       "status": "proved", "points": 1, "counterexample": None}
                      for i, s in enumerate(d.steps, 1)],
            "abbreviated": display.claim_display(module, d.statement,
                                                 [s.expr for s in d.steps]),
        })
    return out


def test_no_two_consecutive_steps_look_alike_on_the_page():
    from reports.view import edition

    data = {"claims": chain_dicts(), "crosschecks": [], "plot_data": {},
            "training": {"steps": [], "loss": []}, "errata": {"records": [], "summary": {}},
            "display_forms": {"dropped": {}, "problems": []}}
    for lang in ("en", "zh"):
        view = edition.build_view(data, [], lang)
        same = []
        for c in view["claims"]:
            texts = [c["statement"].tex.split(" = ")[0]] + [s["tex"].tex for s in c["steps"]]
            same += [f"{c['id']} steps {i - 1}, {i}" for i in range(1, len(texts))
                     if texts[i] == texts[i - 1]]
        assert same == [], same
        jac = next(c for c in view["claims"] if c["id"] == "softmax_jacobian")
        assert "{s}_{i}" in jac["steps"][-1]["tex"].tex  # the textbook form is on the page
