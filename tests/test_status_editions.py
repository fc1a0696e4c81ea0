"""Every status word of derivations.engine.core.status renders in both editions: a claim of each
status, and a step with each route's outcome (``partial`` included), as a shipped claim and as
one of the reader's; each shows its own label, in the edition's words, in the HTML and the LaTeX."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from derivations.engine.core import status
from reports.render import html, i18n, katex, latex
from reports.view import edition, model

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "report_data.json"


def _claim(base: dict, cid: str, claim_status: str, steps: list[tuple[str, str]]) -> dict:
    c = copy.deepcopy(base)
    c.update(id=cid, status=claim_status, failed_step=None, title=f"claim {cid}")
    step = c["steps"][0]
    c["steps"] = []
    for n, (symbolic, numeric) in enumerate(steps, 1):
        st = status.step_status(symbolic, numeric, None)
        s = {**copy.deepcopy(step), "index": n, "symbolic": symbolic, "numeric": numeric,
             "status": st, "counterexample": None, "timed_out": None}
        if st == status.TIMED_OUT:
            s["timed_out"] = {"route": "symbolic", "by": "operations", "limit": 1000, "points": 3}
        c["steps"].append(s)
    if claim_status == status.FAILED:
        c["steps"][-1].update(status=status.FAILED, numeric="disagree", counterexample={
            "point": {"n": 2, "x": "0.5"}, "previous": "1.0", "current": "2.0"})
        c["failed_step"] = len(c["steps"])
    return c


def every_status() -> dict:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    base = data["claims"][0]
    outcomes = [(s, n) for s in status.SYMBOLIC_OUTCOMES for n in status.NUMERIC_OUTCOMES
                if n != "disagree"]
    mine = [_claim(base, f"user_{st.replace(' ', '_')}", st, outcomes) for st in status.STATUSES]
    data["claims"] += [_claim(base, f"shipped_{st.replace(' ', '_')}", st, outcomes)
                       for st in status.STATUSES]
    data[model.USER_CLAIMS] = mine
    return data


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_every_status_renders_in_both_editions(lang, tmp_path):
    data = every_status()
    view = edition.build_view(data, [], lang)
    t = i18n.ui(lang)
    words = {t["status"][w] for w in (*status.STATUSES, *status.SYMBOLIC_OUTCOMES,
                                      *status.NUMERIC_OUTCOMES)}
    tex = latex.render(view, tmp_path / "latex").read_text(encoding="utf-8")
    for word in words:
        assert word in tex, f"{lang}: the status label {word!r} is not in the LaTeX"
    # the headline counts every status, the reader's claims included, and theirs once more
    everyone = data["claims"] + data[model.USER_CLAIMS]
    total, yours = view["summary"][:2]
    assert total.startswith(t["summary"]["claims_line"].format(n=len(everyone), parts="")[:4])
    for st in status.STATUSES:
        n = sum(c["status"] == st for c in everyone)
        assert t["count"][st].format(n=n) in total
    assert yours == t["summary"]["yours_line"].format(n=len(status.STATUSES), parts=t["meta"][
        "comma"].join(t["count"][st].format(n=1) for st in status.STATUSES))
    if not katex.node_available():
        pytest.skip(katex.NODE_HINT)
    page = html.render(view, tmp_path / "html").read_text(encoding="utf-8")
    for word in words:
        assert word in page, f"{lang}: the status label {word!r} is not in the HTML"


def test_a_status_word_unknown_to_the_report_is_refused():
    data = every_status()
    data["claims"][0]["steps"][0]["numeric"] = "halfway"
    with pytest.raises(model.ReportDataError, match=r"numeric: expected one of .*'partial'.* "
                                                    r"got 'halfway'"):
        edition.build_view(data, [], "en")
