"""The student edition (reports/view/student.py): chapters in teaching order with the core
derivations, one 「常见误区」 box per misconception beside its derivation, a 小结 and exercises
with answers at the back; formulas as a lecturer writes them; readable PDF bookmarks."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from reports.audit import errata as registry
from reports.render import html, i18n, latex
from reports.render.katex import Prose, Tex
from reports.render.latex import tex_text
from reports.view import student, student_data, student_read, student_tex
from tests.student_fixture import FIGURES, META, edition_data, edition_views, parts

ORDER = ["embedding", "softmax", "cross_entropy", "attention", "linear", "residual", "adam"]


data = pytest.fixture(scope="module", name="data")(edition_data)
views = pytest.fixture(scope="module", name="views")(edition_views)


def _parts(view, kind):
    return parts(view, kind)


def _claims(view):
    return _parts(view, "claim")


# ----------------------------------------------------------------------------- the chapters
def test_chapters_come_in_teaching_order_with_the_core_derivations(views):
    view = views["zh"]
    assert [t["key"] for t in view["topics"]] == ORDER
    assert [t["anchor"] for t in view["topics"]] == [f"t{i}" for i in range(1, 8)]
    shown = {c for t in student.topics_data() for c in t["claims"]}
    # Attention(Q, K, V) with its shapes, the LayerNorm backward pass, v̂_t, dQ, dK, dV
    assert {"attention_shapes", "layernorm_grad_input", "adam_second_moment_bias",
            "attention_grad_query", "attention_grad_key", "attention_grad_values"} <= shown
    for t in view["topics"]:
        assert t["d2l"].plain and t["intro"].plain and t["summary"], t["key"]
        assert 2 <= len(t["exercises"]) <= 3, t["key"]


def test_every_promised_derivation_is_a_shipped_claim(data):
    import derivations

    shipped = {c.id for c in derivations.claims()}
    promised = {c for t in student.topics_data() for c in t["claims"]}
    promised |= {c for ch in student.words()["chapter"].values() for ex in ch["exercise"]
                 for c in ex["claims"]}
    assert promised <= shipped, sorted(promised - shipped)
    # data of other claims (a report of a reader's own) leaves the chapters it lacks out
    kept = [c for c in data["claims"] if c["module"] == "softmax"]
    thin = {**data, "claims": kept, "crosschecks": [r for r in data["crosschecks"]
                                                    if r["claim"] in {c["id"] for c in kept}]}
    view = student.build_view(thin, FIGURES, "en", META)
    assert [t["key"] for t in view["topics"]] == ["softmax"]


def test_every_erratum_of_the_notes_stands_in_exactly_one_box():
    boxes = student.words()["box"]
    placed: dict[str, str] = {}
    for box in boxes:
        for rid in box["records"]:
            assert rid not in placed, f"{rid} in boxes {placed[rid]} and {box['id']}"
            placed[rid] = box["id"]
    errata = {r["id"] for r in registry.read() if r["verdict"] in student_data.BOXED_VERDICTS}
    assert set(placed) == errata
    # about fifteen boxes, one per point: several records of one point share a box
    numbered = [b for b in boxes if b.get("kind") != "history"]
    assert 12 <= len(numbered) <= 18 and len(placed) > len(boxes)


def test_a_box_stands_right_after_the_derivation_it_concerns(views):
    view = views["zh"]
    for topic in view["topics"]:
        last = None
        for it in topic["parts"]:
            if it["type"] == "claim":
                last = it["anchor"]
            if it["type"] == "box":
                box = next(b for b in student.words()["box"] if b["id"] == it["id"])
                cid = box["after"]
                chapter = next(t for t in student.topics_data() if cid in t["claims"])
                assert chapter["key"] == topic["key"]
                assert last == f"{topic['anchor']}-{chapter['claims'].index(cid) + 1}"


def test_a_box_reads_quote_wrong_counterexample_correct(views):
    for view in views.values():
        for box in _parts(view, "box"):
            if box["kind"] == "history":
                assert box["lines"]
                continue
            assert box["quotes"] and box["wrong"].plain and box["counter"].plain, box["id"]
            assert isinstance(box["correct"]["tex"], Tex) and box["correct"]["tex"].display
            # no log lines of the audit: no pass or fail words, no evidence paragraphs
            text = " ".join(student_read.visible_text(box))
            assert not re.search(r"独立核验|计算结果|未通过|— holds|— does not hold|"
                                 r"Independent check|Computed:", text)


SOURCES = re.compile(r"《(?!动手学深度学习)|第 ?\d+ ?[行句]）|原讲义|讲义|原题如此|\[sic\]|"
                     r"lecture notes?|\bthe note\b|\bline \d+|\bsentence \d+")


def _sources(text: str) -> list[str]:
    """What in ``text`` points to material a student does not have: a note's title, a line
    or sentence number, 「原讲义」, a sic mark."""
    return [m.group(0) for m in SOURCES.finditer(text)]


def test_a_box_quotes_a_common_saying_and_names_no_source(views, tmp_path):
    """The notes are not handed out: a box starts from 「常见说法：“…”」 with no title, line or
    sentence number, and its verdict label says 「错误」 or 「不够精确」, not what a note did."""
    for lang, view in views.items():
        boxes = [b for b in _parts(view, "box") if b["kind"] != "history"]
        for box in boxes:
            assert box["quotes"] and all(set(q) == {"quote"} for q in box["quotes"]), box["id"]
            assert _sources(" ".join(student_read.visible_text(box))) == [], (lang, box["id"])
            # no item number of the list the saying came from
            assert not re.match(r"\d+\.", box["quotes"][0]["quote"].plain), box["id"]
        assert {b["says"] for b in boxes if len(b["quotes"]) > 1} == {
            "en": {"Common sayings"}, "zh": {"常见说法"}}[lang]
        assert {b["kind_label"] for b in boxes} == {
            "en": {"wrong", "imprecise"}, "zh": {"错误", "不够精确"}}[lang]
        text = "\n".join(student_read.visible_text(view) + [v for v in view["s"].values()
                                                       if isinstance(v, str)])
        assert _sources(text) == [], (lang, _sources(text)[:5])
        for page in (html.render(view, tmp_path / lang, template=html.STUDENT_TEMPLATE),
                     latex.render(view, tmp_path / lang, template=latex.STUDENT_TEMPLATE,
                                  name="student.tex")):
            body = page.read_text(encoding="utf-8")
            plain = re.sub(r"<[^>]+>|\\textbf\{|\}", "", body)
            assert ("常见说法：“" if lang == "zh" else "A common saying: “") in plain, lang
            assert "erratum-" not in body and "Tranforms" not in body, lang
    # the check finds what the edition used to print
    assert _sources("原讲义原话：“…”（《Tranforms讲义》（原题如此），第 38 行）") == [
        "原讲义", "《", "讲义", "原题如此", "第 38 行）"]
    assert _sources("The notes: “…” (in Attention, line 38)") == ["line 38"]
    assert _sources("常见说法：“指数运算放大了差距”") == []


def test_each_derivation_carries_one_mark_linked_to_its_evidence(views):
    for view in views.values():
        for claim in _claims(view):
            assert claim["proved"] and claim["href"].startswith(view["full_file"] + "#claim-")
        text = "\n".join(student_read.visible_text(view))
        assert "证据：" not in text and "Evidence:" not in text


def test_exercises_have_their_answers_at_the_back_and_proved_claims_behind_them(views, data):
    proved = {c["id"] for c in data["claims"] if c["status"] == "proved"}
    for view in views.values():
        asked = [ex["number"] for t in view["topics"] for ex in t["exercises"]]
        assert [a["number"] for a in view["answers"]] == asked
    for ch in student.words()["chapter"].values():
        for ex in ch["exercise"]:
            assert ex.get("claims") and set(ex["claims"]) <= proved, ex["id"]


def test_the_numbers_of_the_answers_are_right():
    """Answers whose numbers no derivation states, recomputed."""
    s = np.exp([1.0, 0.0, -1.0]) / np.exp([1.0, 0.0, -1.0]).sum()
    assert [round(x, 3) for x in s] == [0.665, 0.245, 0.090]
    shifted = np.exp(np.array([101.0, 100.0, 99.0]) - 101) / np.exp(
        np.array([101.0, 100.0, 99.0]) - 101).sum()
    np.testing.assert_allclose(shifted, s, rtol=1e-12)
    var = 0.25 * 0.25 * 3  # μ_k²σ_q² + μ_q²σ_k² + σ_q²σ_k² with μ = σ = 0.5
    assert (var, 4096 * var, 4096 * var / 64**2) == (0.1875, 768.0, 0.1875)
    j = np.array([[0, -0.1], [0.1, 0]])
    sv = np.linalg.svd(np.eye(2) + j, compute_uv=False)
    assert np.allclose(sv, math.sqrt(1.01)) and round(sv.min(), 3) == 1.005
    assert [round(1 - 0.9**t, 3) for t in (1, 2, 10)] == [0.1, 0.19, 0.651]
    # the sum of LayerNorm's input gradient is 0, at random rows and upstream gradients
    rng = np.random.default_rng(3)
    x, g = rng.normal(size=7), rng.normal(size=7)
    xh = (x - x.mean()) / math.sqrt(x.var() + 1e-5)
    dx = (g - g.mean() - xh * (g * xh).mean()) / math.sqrt(x.var() + 1e-5)
    assert abs(dx.sum()) < 1e-12
    # the covariance of a one-hot draw is diag(s) − ssᵀ
    cov = sum(p * np.outer(e, e) for p, e in zip(s, np.eye(3), strict=True)) - np.outer(s, s)
    np.testing.assert_allclose(cov, np.diag(s) - np.outer(s, s), atol=1e-15)


# ----------------------------------------------------------------------------- formulas
TRANSPOSE_T = re.compile(r"\^\{?T\}?(?![A-Za-z])")
STACK = re.compile(r"\\left\[\\begin\{matrix\}")


def _formulas(view) -> list[str]:
    return [f.tex for f in student_read.formulas(view)]


def test_one_transpose_sign(views):
    for view in views.values():
        assert [f for f in _formulas(view) if TRANSPOSE_T.search(f)] == []
    # the check finds what SymPy prints for .T, and the edition rewrites it
    assert TRANSPOSE_T.search(r"X^{T} G") and TRANSPOSE_T.search("K^T")
    assert student.lecturer_tex(r"X^{T} G + \tan(T)") == r"X^{\top} G + \tan(T)"


def _letters(x: str) -> str:
    """``x`` as a pattern: a letter, not the end of a command (a_{ij} is not \\delta_{ij})."""
    return (r"(?<![A-Za-z\\])" if x[0].isalpha() else "") + re.escape(x) + r"(?![A-Za-z])"


def _chapters_formulas(view) -> dict[str | None, list[str]]:
    """The edition's formulas by chapter key (None: outside the chapters), prose included. The
    front matter's map and a chapter's notation line name other books' letters on purpose (d2l's
    α(q_i, k_j) is no step size, Kingma and Ba's m_t is no letter of this edition)."""
    topics = view["topics"]
    out: dict[str | None, list[str]] = {
        None: _formulas({k: v for k, v in view.items()
                         if k not in ("notation_map", "topics", "answers")})}
    for t in topics:
        out[t["key"]] = _formulas({k: v for k, v in t.items() if k != "notation"})
        out[t["key"]] += _formulas({"a": [a for a in view["answers"]
                                          if a["number"].split(".")[0] == str(t["number"])]})
    return out


def notation_breaches(view, notation: dict) -> list[tuple[str, str, str]]:
    """(quantity, avoided letter or pattern, formula) for each formula of ``view`` that writes a
    quantity of [notation] with a letter the edition avoids for it."""
    bad = []
    for chapter, formulas in _chapters_formulas(view).items():
        for name, entry in notation.items():
            if chapter in entry.get("except", []):
                continue
            patterns = [(a, _letters(a)) for a in entry.get("avoid", [])]
            patterns += [(a, a) for a in entry.get("avoid_re", [])]
            bad += [(name, a, f) for a, pat in patterns for f in formulas if re.search(pat, f)]
    return bad


def _claim_formulas(claim: dict) -> list[str]:
    """A claim of the data as it is proved: its statement, definitions and steps."""
    steps = [s["latex"] for s in claim["steps"]]
    if steps:  # the edition's first step starts from the result's left side: count it there too
        lines = student.unstack(claim["statement"])
        steps[0:1] = student.with_left_side(lines, student.step_lines(steps[0], len(lines)))
    return [claim["statement"], *(d["latex"] for d in claim["definitions"]), *steps]


def _shown_formulas(claim: dict) -> list[str]:
    """The same formulas of a claim as the edition shows them."""
    return [x["tex"].tex for x in claim["statement"]] \
        + [d["tex"].tex for d in claim["definitions"]] \
        + [x["tex"].tex for s in claim["steps"] for x in s["lines"]]


def renaming_breaches(data, view, notation: dict) -> list[tuple[str, str, int, int]]:
    """(quantity, claim id, letters the claim writes for it, letters the edition shows) where a
    claim of a quantity's chapter does not show every letter it was written with (``was``) as the
    quantity's letter, one for one: m → v and v → s at once, so that the first moment's v is
    never the second's."""
    count = {}
    for t in view["topics"]:
        for c in (it for it in t["parts"] if it["type"] == "claim"):
            count[(t["key"], c["href"].split("#claim-")[1].replace("-", "_"))] = c
    raw = {c["id"]: c for c in data["claims"]}
    bad = []
    for name, entry in notation.items():
        if "was" not in entry:
            continue
        letter = entry["symbol"].split("_")[0]
        for (chapter, cid), shown in count.items():
            if chapter != entry["chapter"]:
                continue
            n_was = sum(len(re.findall(_letters(entry["was"]), f))
                        for f in _claim_formulas(raw[cid]))
            n_shown = sum(len(re.findall(_letters(letter), f)) for f in _shown_formulas(shown))
            if n_was != n_shown:
                bad.append((name, cid, n_was, n_shown))
    return bad


def test_one_symbol_per_quantity(views, data):
    notation = student.structure()["notation"]
    for view in views.values():
        edition_only = [f for fs in _chapters_formulas(view).values() for f in fs]
        assert len(edition_only) < len(_formulas(view))
        assert notation_breaches(view, notation) == []
        assert renaming_breaches(data, view, notation) == []
        # Adam's moments: every letter of the claims renamed, in prose too
        adam = _chapters_formulas(view)["adam"]
        assert any(re.search(_letters("s_t"), f) for f in adam)
        assert any(re.search(_letters("v_t"), f) for f in adam)
    # Kingma and Ba's α is the edition's η
    assert student.lecturer_tex(r"\alpha \hat{m}_{t}", {"\\alpha": "\\eta"}) == r"\eta \hat{m}_{t}"


def _page(chapter: str, *formulas: str) -> dict:
    """A page of one chapter whose intro holds ``formulas``."""
    return {"topics": [{"key": chapter, "number": 1,
                        "intro": Prose(tuple(Tex(f, False, "x") for f in formulas))}],
            "answers": [], "notation_map": []}


@pytest.mark.parametrize(("chapter", "old", "quantity"), [
    ("adam", r"\hat m_t = m_t/(1 - \beta_1^t)", "first_moment"),
    ("adam", r"\mathbb{E}\left[{\hat{m}}_{t}\right]", "first_moment"),
    ("adam", r"\theta_{t+1}=\theta_t-\frac{\eta\,\hat v_t}{\sqrt{\hat v_t}+\epsilon}",
     "second_moment"),
    ("adam", r"\hat v_t = v_t/(1 - \beta_2^t)", "second_moment"),
    ("adam", r"\hat v_t \gg \epsilon", "second_moment"),
    ("adam", r"v_t = 1 - 0.999^t", "second_moment"),
    ("adam", r"\hat v_1 = g_1^2", "second_moment"),
    ("softmax", r"J = \operatorname{diag}(s) - ss^\top", "softmax_output"),
    ("linear", r"\partial s_l/\partial z_j", "softmax_output"),
    ("linear", r"dQ = dS\,K/\sqrt{d_k}", "gradient"),
    ("linear", r"\frac{\partial}{\partial V} \operatorname{tr}\left(dO^{\top} P V \right)",
     "gradient"),
    ("linear", r"\partial L/\partial X = GW^\top", "gradient"),
    ("linear", r"\left({a}_{j} - \bar{a}\right) {p}_{j}", "gradient"),
    ("embedding", r"\frac{\partial L}{\partial E} = X^{\top} G", "gradient"),
    ("residual", r"(d\bar g - d\bar g - \overline{g\hat x}\sum_j\hat x_j)/\sigma_\varepsilon",
     "gradient"),
    ("attention", r"\mathbb{E}[q_r]=\mu_q", "vector_component"),
    ("attention", r"\sum_{r=1}^{d_{k}} \operatorname{Var}\left({k}_{r} {q}_{r}\right)",
     "vector_component"),
    ("attention", r"q_1,\dots,q_{d_k},k_1,\dots,k_{d_k}", "vector_component"),
])
def test_an_old_letter_is_found(chapter, old, quantity):
    notation = student.structure()["notation"]
    assert quantity in {name for name, _a, _f in notation_breaches(_page(chapter, old), notation)}


def test_the_new_letters_pass_where_they_belong():
    notation = student.structure()["notation"]
    new = [r"\hat v_t = v_t/(1 - \beta_1^t)", r"\hat s_t = s_t/(1 - \beta_2^t)",
           r"\theta_{t+1}=\theta_t-\frac{\eta\,\hat v_t}{\sqrt{\hat s_t}+\epsilon}",
           r"\hat v_1 = g_1", r"\hat s_1 = g_1^2", r"\sqrt{\varepsilon}"]
    assert notation_breaches(_page("adam", *new), notation) == []
    assert notation_breaches(_page("linear", r"G_Q = G_S\,K/\sqrt{d_k}", r"X^{\top} G_{Y}",
                                   r"\left({g}_{j} - \bar{g}_{p}\right) {p}_{j}",
                                   r"\mathrm{d}L = \operatorname{tr}(G_Y^\top\,\mathrm{d}Y)"),
                             notation) == []
    # s is Adam's second moment in its chapter, and no other chapter's letter
    assert notation_breaches(_page("adam", r"s_t"), notation) == []
    assert [a for _n, a, _f in notation_breaches(_page("softmax", r"s_t"), notation)] == ["s"]


def test_a_renaming_one_letter_after_another_is_found(data, views, monkeypatch):
    """m → v then v → s sends the first moment to s as well: the letters shown no longer match
    the claims' one for one, and the check says where."""
    notation = student.structure()["notation"]
    assert student.lecturer_tex(r"{m}_{t} + \hat{v}_{t}", {"m": "v", "v": "s"}) == \
        r"{v}_{t} + \hat{s}_{t}"

    simultaneous = student.lecturer_tex

    def one_after_another(tex, symbols=None):
        out = tex
        for old, new in (symbols or {}).items():
            out = simultaneous(out, {old: new})
        return out

    monkeypatch.setattr(student, "lecturer_tex", one_after_another)
    view = student.build_view(data, FIGURES, "en", META)
    bad = renaming_breaches(data, view, notation)
    assert {cid for _n, cid, _a, _b in bad} >= {"adam_epsilon_placement"}, bad


def test_a_claim_shown_in_its_own_letters_is_found(data, monkeypatch):
    structure = student.structure()
    kept = {k: v for k, v in structure["symbols"].items() if not k.startswith("adam_")}
    monkeypatch.setattr(student, "structure", lambda: {**structure, "symbols": kept})
    view = student.build_view(data, FIGURES, "zh", META)
    bad = renaming_breaches(data, view, structure["notation"])
    assert {n for n, *_ in bad} == {"first_moment", "second_moment"}, bad
    assert "first_moment" in {n for n, _a, _f in notation_breaches(view, structure["notation"])}


def test_no_old_gradient_name_in_the_words(views):
    """The plain words of the edition (titles, reasons written without $…$) name no dO, dV, …
    either."""
    old = re.compile(r"(?<![A-Za-z])d[OVPSQKXY](?![A-Za-z])|m̂|m_t")
    for view in views.values():
        assert [x for x in _visible_text(view) if old.search(x)] == []
    assert old.search("Attention backward through O = PV: dV = PᵀdO")


def test_steps_count_from_one_and_no_result_is_stacked(views):
    for view in views.values():
        for claim in _claims(view):
            assert [s["number"] for s in claim["steps"]] == list(range(1, len(claim["steps"]) + 1))
            shown = [x["tex"].tex for x in claim["statement"]]
            shown += [x["tex"].tex for s in claim["steps"] for x in s["lines"]]
            assert not any(STACK.search(x) for x in shown), claim["title"].plain
    stacked = (r"\left[\begin{matrix}\mathbb{E}\left[{m}_{t}\right]\\\mathbb{E}\left[{\hat{m}}_{t}"
               r"\right]\end{matrix}\right] = \left[\begin{matrix}\mu \left(1 - \beta_{1}^{t}\right"
               r")"
               r"\\\mu\end{matrix}\right]")
    assert STACK.search(stacked)
    assert student.unstack(stacked) == [r"\mathbb{E}\left[{m}_{t}\right] = \mu \left(1 - "
                                        r"\beta_{1}^{t}\right)",
                                        r"\mathbb{E}\left[{\hat{m}}_{t}\right] = \mu"]


def test_every_reason_explains(views, data):
    """No 「依据 X」, no reason that only repeats the name of what it cites or of a hypothesis."""
    names = {c["id"]: {a["name"].lower() for a in c["assumptions"]} for c in data["claims"]}
    for lang, view in views.items():
        rules = [s["rule"].plain for c in _claims(view) for s in c["steps"]]
        assert not [r for r in rules if "依据" in r or "(by " in r], lang
        for claim in _claims(view):
            cid = next(c["id"] for c in data["claims"]
                       if claim["href"].endswith(f"claim-{c['id']}"))
            for step in claim["steps"]:
                rule = step["rule"].plain.strip().lower()
                assert rule not in names[cid], (lang, cid, rule)
                assert rule not in ("stationarity", "平稳性", "independence", "独立性"), (cid, rule)
    # the full report's circular wording is what the edition replaces
    shipped = next(c for c in data["claims"] if c["id"] == "adam_first_moment_bias")
    assert shipped["steps"][1]["rule"].lower() in names["adam_first_moment_bias"]


def test_the_notes_words_are_typeset(views):
    for view in views.values():
        for box in _parts(view, "box"):
            for q in box["quotes"]:
                assert not any("\\" in p for p in q["quote"].parts if isinstance(p, str)), q
    raw = student._quote({"id": "x", "quote": r"\frac{\eta}{\sqrt{\hat{v}_t}}"})
    assert isinstance(raw.parts[0], Tex)
    assert student._quote({"id": "x", "quote": "越对齐，越“关注”"}).plain == "越对齐，越‘关注’"


def test_no_formula_is_shrunk(views, tmp_path):
    for lang, view in views.items():
        tex = latex.render(view, tmp_path / lang, template=latex.STUDENT_TEMPLATE,
                           name="student.tex").read_text(encoding="utf-8")
        body = tex.split(r"\begin{document}", 1)[1]
        assert not re.search(r"\\(resizebox|adjustbox|fitcell|scriptsize|tiny)\b", body)
        # the display macro of this edition wraps a wide formula, never scales it
        macros = tex[tex.index(r"\renewcommand{\fitdisplay}"):tex.index(r"\begin{document}")]
        assert "resizebox" not in macros.split(r"\newunicodechar")[0]
        # a step's reason is set like the text around it, and a definition after 「其中」
        # stands on its own line in display style, its fractions full size
        assert not re.search(r"\{\\small \d+\. ", body)
        where = i18n.ui(lang)["student"]["where"]
        defs = [c for c in _claims(view) if c["definitions"]]
        assert defs and body.count(where) >= len(defs)
        for claim in defs:
            for d in claim["definitions"]:
                assert "\\noindent$\\displaystyle " + d["tex"].tex.replace(", ", ",\\allowbreak ") \
                    + "$" in body, (lang, d["tex"].tex[:40])


BOOKMARK_JUNK = re.compile(r"(?<![A-Za-z])(?:bigl|bigr|Bigl|Bigr|left|right|frac|operatorname|mathr"
                           r"m|"
                           r"text|hat|sqrt|mathbb)(?![A-Za-z])")


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def test_bookmarks_are_readable(views):
    for view in views.values():
        titles = [t["name"] for t in view["topics"]] + [c["title"] for c in _claims(view)]
        for title in titles:
            mark = latex.bookmark(title)
            assert not BOOKMARK_JUNK.search(mark) and _balanced(mark), mark
    # what the old bookmarks showed
    assert tex_text(r"\eta\lambda\theta\bigl(1-\frac{\varepsilon}{a}\bigr)") == "ηλθ(1-ε/a)"
    assert _balanced(tex_text(r"-z_k+\log\sum_l e^{z_{l}}"))
    assert BOOKMARK_JUNK.search("ηλθbigl(1") and not _balanced("e⁽zₗ)")


@pytest.mark.parametrize(("tex", "text"), [
    (r"m_t = (1-\beta_1)\sum_{i=1}^{t} \beta_1^{t-i} g_i", "mₜ = (1-β₁)Σᵢ₌₁ᵗ β₁ᵗ⁻ⁱ gᵢ"),
    (r"\frac{\eta}{\sqrt{\hat{v}_t + \varepsilon}}", "η/(√(v̂ₜ + ε))"),
    (r"\operatorname{diag}(s) - s s^\top", "diag(s) - s sᵀ"),
    (r"\lVert g \rVert = 10^{-5}", "‖ g ‖ = 10⁻⁵"),
])
def test_bookmarks_keep_their_symbols(tex, text):
    assert tex_text(tex) == text


# ----------------------------------------------------------------------------- figures
def test_figures_are_numbered_alike_in_the_page_and_the_pdf(views):
    for view in views.values():
        figures = _parts(view, "figure")
        assert [f["number"] for f in figures] == list(range(1, len(figures) + 1))
        labels = [f["label"] for f in figures]
        assert labels == [view["s"]["figure_label"].format(n=n) for n in range(1, 5)]
        # the figure that teaches Adam's bias correction and ε, not the loss curve
        assert "adam_moments" in [f["name"] for f in figures]
        assert "training_loss" not in [f["name"] for f in figures]
    assert views["zh"]["s"]["figure_label"].format(n=1) == "图 1"


# ----------------------------------------------------------------------------- words
def test_both_editions_have_every_word(views):
    for view in views.values():
        missing = [p.plain for p in _walk(view) if isinstance(p, Prose) and p.missing]
        assert missing == []
    assert [p.plain for p in _walk([{"x": Prose(("word",), True)}]) if p.missing] == ["word"]


def test_adam_has_a_notation_map_to_d2l(views):
    for view in views.values():
        adam = next(t for t in view["topics"] if t["key"] == "adam")
        text = adam["notation"].plain
        said = [p.tex for p in adam["notation"].parts if isinstance(p, Tex)]
        # d2l's letters, and Kingma and Ba's for a reader of the paper
        assert "d2l" in text and "Kingma" in text
        assert all(x in said for x in ("v_t", "s_t", "m_t", r"\hat v_t", r"\hat s_t")), said


def test_the_gradient_convention_is_stated_where_chapter_5_starts(views):
    for lang, view in views.items():
        linear = next(t for t in view["topics"] if t["key"] == "linear")
        said = [p.tex for p in linear["intro"].parts if isinstance(p, Tex)]
        assert r"G_X := \partial L/\partial X" in said and r"G_Y = \partial L/\partial Y" in said
        # the differential is an upright d
        assert r"\mathrm{d}L = \operatorname{tr}(G_Y^\top\,\mathrm{d}Y)" in said, lang


def test_the_edition_draws_figure_4_in_its_own_letters(views):
    """The student edition's figure 4 is its own drawing ("student"), its caption in the
    chapter's letters; the full report keeps Kingma and Ba's."""
    assert student.figure_symbols() == {"adam_moments": {"m": "v", "v": "s"}}
    for lang, view in views.items():
        fig = next(it for t in view["topics"] for it in t["parts"]
                   if it["type"] == "figure" and it["name"] == "adam_moments")
        assert fig["file"] == ("adam_moments-student" if lang == "en"
                               else "adam_moments-student-zh")
        caption = [p.tex for p in fig["caption"].parts if isinstance(p, Tex)]
        assert "v_t = 1 - 0.9^t" in caption and "s_t = 1 - 0.999^t" in caption, caption
        assert r"\hat s_t" in caption and not any("m_t" in x for x in caption), caption
    words = i18n.ui("en")["figure"]["adam_moments_caption"]
    assert "$m_t = 1 - 0.9^t$" in words and "$v_t = 1 - 0.999^t$" in words
    assert student.rename_math("$m_t$ and $\\hat v_t$, not m", {"m": "v", "v": "s"}) == \
        "$v_t$ and $\\hat s_t$, not m"


def test_a_quoted_formula_is_shown_in_the_edition_s_letters(views, audit):
    """Box 7.1 quotes ε inside the root: its m̂_t and v̂_t (Kingma and Ba's) are shown as the
    chapter's v̂_t and ŝ_t."""
    record = next(r for r in audit["records"] if r["id"] == "n002-adam-epsilon-inside")
    assert r"\hat{m}_t" in record["quote"]
    for view in views.values():
        box = next(b for b in _parts(view, "box") if b["id"] == "eps_inside")
        quoted = [p.tex for q in box["quotes"] for p in q["quote"].parts if isinstance(p, Tex)]
        # and its ε is Adam's ϵ of the chapter (ε is layer normalization's)
        assert quoted == [r"\displaystyle \frac{\eta}{\sqrt{\hat{s}_t + \epsilon}}"
                          r" \hat{v}_t"], quoted


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


def test_no_visible_string_is_a_code_identifier(views, data):
    text = "\n".join(student_read.visible_text(views["en"]))
    ids = {c["id"] for c in data["claims"]} | {c["module"] for c in data["claims"]}
    assert [i for i in sorted(ids) if "_" in i and i in text] == []
    assert not re.search(r"\bn00\d-", text)
    assert "softmax_jacobian" in "\n".join(student_read.visible_text(
        {**views["en"], "extra": Prose(("see softmax_jacobian",))}))


def test_bad_student_words_are_named():
    bad = {"chapter": {}, "box": []}
    with pytest.raises(student.StudentError, match="chapter 'embedding' expected"):
        student_data.validate_words(bad)


def test_each_mark_links_to_its_section_of_the_full_report(views, data, tmp_path):
    """The mark reads 「✓ 已逐步验证」 alone (no § a student would look up); in the PDF it links,
    relative to this PDF, to that subsection of the full report's PDF beside it."""
    from reports.view import edition

    full = latex.render(edition.build_view(data, [], "zh", META), tmp_path / "full",
                        name="report.tex").read_text(encoding="utf-8")
    # the number LaTeX gives each claim's subsection in the full report
    numbered, sec, sub = {}, 0, 0
    for m in re.finditer(r"\\(section|subsection)\{.*?\\label\{claim-([^}]+)\}|\\section\{", full):
        if m.group(1) == "subsection":
            sub += 1
            numbered[m.group(2)] = f"{sec}.{sub}"
        else:
            sec, sub = sec + 1, 0
    assert numbered == edition.section_numbers(data["claims"])
    for lang, view in views.items():
        tex = latex.render(view, tmp_path / lang, template=latex.STUDENT_TEMPLATE,
                           name="student.tex").read_text(encoding="utf-8")
        marks = re.findall(r"\\verifiedmark\{(.*?)\}\{(.*?)\}\\par", tex)
        assert len(marks) == len(_claims(view))
        for (link, text), claim in zip(marks, _claims(view), strict=True):
            section = numbered[claim["href"].split("#claim-")[1]]
            assert link == f"{view['full_pdf']}\\#subsection.{section}", link
            assert text == view["s"]["verified"], text
        assert "§" not in tex, lang


def test_the_depth_caption_says_what_its_curves_show(data):
    """The sentence that quotes figure 3's curves is computed from the data it plots: the old
    caption's 「靠近输出的几块……两种网络相差不大」 stood beside curves ~30 times apart."""
    from numeric.crosscheck import stats
    from reports.view import figures

    depth = stats.depth_gradnorm()
    shown = {**data, "plot_data": {"depth_gradnorm": depth}}
    for lang in i18n.LANGS:
        view = student.build_view(shown, FIGURES, lang, META)
        fig = next(f for f in _parts(view, "figure") if f["name"] == "depth_gradnorm")
        caption = fig["caption"]
        tex = [p.tex for p in caption.parts if isinstance(p, Tex)]
        assert figures.number_tex(depth["without_residual"][-1]).strip("$") in tex
        assert figures.number_tex(depth["with_residual"][-1]).strip("$") in tex
        # block 1 first, where the residual connections matter, its gap as a power of ten;
        # blocks count from 1, as every index of the edition: 1 next to the embeddings
        assert depth["layer"] == list(range(1, len(depth["layer"]) + 1))
        first = caption.plain.index({"en": "At block 1,", "zh": "第 1 块"}[lang])
        last = f"{len(depth['layer'])}"
        assert first < caption.plain.index({"en": f"block {last}", "zh": f"第 {last} 块"}[lang])
        assert not re.search(r"(block|第) 0\b", caption.plain)
        gap = round(math.log10(depth["with_residual"][0] / depth["without_residual"][0]))
        assert gap >= 6 and f"10^{{{gap}}}" in tex, tex
        # the gap near the output runs the other way: no ratio the caption cannot explain
        ratio = depth["without_residual"][-1] / depth["with_residual"][-1]
        assert ratio > 10 and not re.search(rf"(about|约) {ratio:.0f}", caption.plain)
        why = caption.plain.index({"en": "The order is reversed", "zh": "反了过来"}[lang])
        assert caption.plain[:why].count({"en": " times larger", "zh": "倍"}[lang]) == 1
        # and it is explained, from the data: the final layer normalization divides by the
        # root of its input's variance, which without residual connections has shrunk far
        # below √ε, and so amplifies the gradient about 1/√ε times
        assert {"en": "final layer normalization", "zh": "最后的层规范化"}[lang] in \
            caption.plain[why:]
        for key in ("ln_f_std_with_residual", "ln_f_std_without_residual",
                    "ln_f_gain_with_residual", "ln_f_gain_without_residual"):
            assert figures.number_tex(depth[key]).strip("$") in tex, key
        assert depth["ln_f_std_without_residual"] ** 2 < 1e-3 * depth["ln_eps"]
        assert 0.9 < depth["ln_f_gain_without_residual"] * math.sqrt(depth["ln_eps"]) <= 1
        assert depth["ln_f_gain_with_residual"] < 1 / depth["ln_f_std_with_residual"] < 10
        assert {"en": "logarithmic", "zh": "对数坐标"}[lang] in caption.plain
        assert {"en": "GPT-style", "zh": "GPT 式模型"}[lang] in caption.plain
        assert "相差不大" not in caption.plain and "alike" not in caption.plain
    # other curves, another sentence: the words follow the data
    other = {**depth, "without_residual": depth["with_residual"]}
    t = i18n.ui("zh")
    assert figures.caption("depth_gradnorm", "", t, {"depth_gradnorm": other}) != \
        figures.caption("depth_gradnorm", "", t, {"depth_gradnorm": depth})
    assert figures.caption("depth_gradnorm", "原文。", t, {}) == "原文。"
    # curves recorded without the final normalization's figures: no sentence on it
    bare = {k: v for k, v in depth.items() if not k.startswith("ln_")}
    assert "反了过来" not in figures.caption("depth_gradnorm", "", t, {"depth_gradnorm": bare})
    assert "反了过来" in figures.caption("depth_gradnorm", "", t, {"depth_gradnorm": depth})
    assert figures.number_tex(4.5e-10) == r"$4.5\times 10^{-10}$"
    # two significant digits, never Python's exponent form (3.1e+02)
    assert [figures.number_tex(x) for x in (310.68, 1.88, 0.0316)] == ["$310$", "$1.9$",
                                                                       "$0.032$"]


def test_the_front_page_says_where_the_evidence_is(views, data, tmp_path):
    """The front page counts nothing of how the edition was made (no 「76 条中的 27 条」): one
    sentence says where the evidence is, the full report's PDF and page beside this edition;
    the d2l chapters named are those of the sections the chapters cite (8.2 included)."""
    for lang, view in views.items():
        evidence = "".join(p["text"] for p in view["evidence"])
        assert not re.search(r"\d", evidence.replace(view["full_pdf"], "")), evidence
        # each file by its folder in the build, linked from where each edition lies
        assert f"pdf/{view['full_pdf']}" in evidence and f"html/{view['full_file']}" in evidence
        pdf_part, page_part = [p for p in view["evidence"] if p["file"]]
        assert (pdf_part["pdf_href"], pdf_part["html_href"]) == (
            view["full_pdf"], f"../pdf/{view['full_pdf']}")
        assert (page_part["pdf_href"], page_part["html_href"]) == (
            f"../html/{view['full_file']}", view["full_file"])
        assert [p["file"] for p in view["evidence"] if p["file"]] == [
            view["full_pdf"], view["full_file"]]
        assert {"en": "handed out with this edition", "zh": "随本册一并发放"}[lang] in evidence
        cited = sorted({int(m) for t in view["topics"]
                        for m in re.findall(r"(?<![\d.])(\d+)\.\d", t["d2l"].plain)})
        assert 8 in cited
        listed = [int(x) for x in re.findall(r"\d+", view["subtitle"].replace("d2l", ""))]
        assert listed == cited, (lang, view["subtitle"])
        # the cover keeps the date and shows no version number; the file names link
        cover = student.build_view(data, FIGURES, lang, {"date": "2026-12-01",
                                                         "version": "0.1.0"})
        page = html.render(cover, tmp_path / lang, template=html.STUDENT_TEMPLATE)
        tex = latex.render(cover, tmp_path / lang, template=latex.STUDENT_TEMPLATE,
                           name="student.tex")
        for body in (page.read_text(encoding="utf-8"), tex.read_text(encoding="utf-8")):
            assert "0.1.0" not in body and "2026-12-01" in body, lang
        assert f'<a href="../pdf/{view["full_pdf"]}"><code>' in page.read_text(encoding="utf-8")
        assert f"\\href{{{view['full_pdf']}}}" in tex.read_text(encoding="utf-8")
    with pytest.raises(student.StudentError, match="placeholders"):
        student._evidence("The evidence is in {page}.", {"pdf": "r.pdf", "page": "i.html"})
    assert student.d2l_chapters(["8.2 x; 10.7 y", "3.4 z"], i18n.ui("en")) == "3, 8 and 10"
    assert student.d2l_chapters(["8.2 x; 10.7 y", "3.4 z"], i18n.ui("zh")) == "3、8、10"
    with pytest.raises(student.StudentError, match="expected numbers such as 10.3"):
        student.d2l_chapters(["Transformer"], i18n.ui("en"))


def test_attention_is_written_in_matrix_form_with_its_shapes(views):
    for view in views.values():
        claim = next(c for c in _claims(view) if c["href"].endswith("claim-attention_shapes"))
        formula = claim["lead"]["formula"]["tex"].tex
        assert r"\operatorname{softmax}" in formula and r"QK^{\top}" in formula
        assert formula.endswith(r"\in\mathbb R^{n\times d_v}")
        shapes = [p.tex for p in claim["lead"]["text"].parts if isinstance(p, Tex)]
        for shape in (r"Q \in \mathbb{R}^{n\times d_k}", r"K \in \mathbb{R}^{n_k\times d_k}",
                      r"V \in \mathbb{R}^{n_k\times d_v}"):
            assert shape in shapes, shape
    with pytest.raises(student.StudentError, match="lead 'nope'"):
        student_data.validate_words({**student.words(), "lead": {"nope": {"text": {}}}})


def test_a_renamed_letter_is_never_part_of_a_command():
    tex = r"\sum_{m=1}^{d_k} \mu_m q_{m} + \operatorname{softmax}(s) + s_{ij}"
    assert student.lecturer_tex(tex, {"m": "r"}) == \
        r"\sum_{r=1}^{d_k} \mu_r q_{r} + \operatorname{softmax}(s) + s_{ij}"
    assert student.lecturer_tex(tex, {"s": "P"}).endswith(r"\operatorname{softmax}(P) + P_{ij}")


def test_the_attention_backward_chain_has_no_gap(views):
    """G_O is defined before it is used, and G_P → G_S (the softmax backward pass of each row)
    stands between G_V and G_Q, a derivation the engine checked."""
    chain = ["attention_grad_values", "attention_grad_probs", "attention_softmax_backward",
             "attention_grad_query", "attention_grad_key"]
    for view in views.values():
        linear = next(t for t in view["topics"] if t["key"] == "linear")
        ids = [c["href"].split("#claim-")[1] for c in linear["parts"] if c["type"] == "claim"]
        assert [i for i in ids if i.startswith("attention")] == chain
        first = next(c for c in linear["parts"] if c.get("href", "").endswith(chain[0]))
        defined = [p.tex for p in first["lead"]["text"].parts if isinstance(p, Tex)]
        assert r"G_O = \partial L/\partial O" in defined and r"O = PV" in defined
        row = next(c for c in linear["parts"] if c.get("href", "").endswith(chain[2]))
        assert row["proved"] and "G_S" in row["lead"]["text"].plain + " ".join(
            p.tex for p in row["lead"]["text"].parts if isinstance(p, Tex))


def test_a_quote_that_lost_its_typesetting_is_typeset(views):
    """Box 6.2 showed 「利用 I+∂X∂F」: ∂F/∂X flattened by a web copy; it is typeset again, and a
    typeset quote holds the note's characters and no others."""
    records = {r["id"]: r for r in registry.read()}
    for rid, typeset in student.words()["typeset"].items():
        assert student.typeset_source(typeset) == student.typeset_source(records[rid]["quote"])
    assert student.typeset_source("利用 $I+\\partial F/\\partial X$") != \
        student.typeset_source("利用 $I+\\partial G/\\partial X$")
    for view in views.values():
        box = next(b for b in _parts(view, "box") if b["id"] == "lossless")
        quoted = [p for q in box["quotes"] for p in q["quote"].parts]
        assert r"I+\partial F/\partial X" in [p.tex for p in quoted if isinstance(p, Tex)]
        assert not any("∂X∂F" in p for p in quoted if isinstance(p, str))


def test_the_adamw_gap_states_its_premise_the_first_step(views):
    for view in views.values():
        claim = next(c for c in _claims(view) if c["href"].endswith("adamw_decoupled_vs_l2"))
        tex = [p.tex for p in claim["lead"]["text"].parts if isinstance(p, Tex)]
        assert r"t = 1" in tex and r"\hat v_1 = g_1" in tex and r"\hat s_1 = g_1^2" in tex
    # the first step of each, as the lead writes them, differs by the claimed amount
    eta, lam, theta, g, eps = 1e-3, 0.1, 2.0, 0.3, 1e-8
    l2 = theta - eta * (g + lam * theta) / (abs(g + lam * theta) + eps)
    decoupled = theta * (1 - eta * lam) - eta * g / (abs(g) + eps)
    gap = eta * lam * theta * (1 - eps / ((eps + g) * (eps + g + lam * theta)))
    assert math.isclose(l2 - decoupled, gap, rel_tol=1e-9)


def _softmax(z):
    e = np.exp(np.asarray(z, dtype=float) - np.max(z))
    return e / e.sum()


def test_every_counterexample_can_be_recomputed_by_hand(views):
    """No number from a model the student cannot see or a random draw: each counterexample
    states its inputs, and its numbers are recomputed here from them."""
    for view in views.values():
        text = " ".join(b["counter"].plain + " ".join(
            p.tex for p in b["counter"].parts if isinstance(p, Tex))
            for b in _parts(view, "box") if b["counter"])
        assert not re.search(r"本项目|核验所用|project's model|model of the checks|0\.9908|81\.08"
                             r"|52\.2|0\.172|1\.09", text), text
    # 2.1: S = q kᵀ with d_k = 1
    q, k = np.array([1.0, 2.0]), np.array([1.0, 1.0])
    np.testing.assert_array_equal(np.outer(q, k), [[1, 1], [2, 2]])
    np.testing.assert_array_equal(np.outer([1.0, 3.0], k)[1], [3, 3])
    np.testing.assert_array_equal(np.outer(q, [1.0, 3.0])[:, 1], [3, 6])

    # 2.2 and 2.8: two tokens, d = d_k = 1, every weight matrix 1
    def attention(x):
        p = np.array([_softmax(row) for row in np.outer(x, x)])
        return p, p @ x

    p, out = attention(np.array([0.0, 1.0]))
    _, out2 = attention(np.array([0.0, 2.0]))
    assert (round(out[1], 3), round(out2[1], 3), round(2 * out[1], 3)) == (0.731, 1.964, 1.462)
    np.testing.assert_allclose(p, [[0.5, 0.5], [0.268941, 0.731059]], atol=1e-6)
    assert (p > 0).sum() == 4 and round(p[1, 0], 3) == 0.269
    # 2.4: two scores 64 apart, then 1 apart
    assert f"{_softmax([64.0, 0.0])[1]:.1e}" == "1.6e-28"
    assert [round(x, 3) for x in _softmax([1.0, 0.0])] == [0.731, 0.269]
    # 2.5: σ_q²σ_k² with σ = 3
    assert 3**2 * 3**2 == 81
    # 2.7: 90° per position, positions counted from 1 (position t rotates by t·90°),
    # W = diag(1, 2), x = (1, 0): 4 at positions (1, 1), 1 at (2, 2)
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    w, x = np.diag([1.0, 2.0]), np.array([1.0, 0.0])
    before = [(w @ np.linalg.matrix_power(rot, m) @ x) @ (w @ np.linalg.matrix_power(rot, m) @ x)
              for m in (1, 2)]
    inside = [(np.linalg.matrix_power(rot, m) @ w @ x) @ (np.linalg.matrix_power(rot, m) @ w @ x)
              for m in (1, 2)]
    np.testing.assert_allclose(before, [4, 1], atol=1e-12)
    np.testing.assert_allclose(inside, [1, 1], atol=1e-12)
    for view in views.values():
        counter = next(b for b in _parts(view, "box") if b["id"] == "rope")["counter"]
        tex = [f.tex for f in student_read.formulas({"c": counter})]
        assert "(1, 1)" in tex and "(2, 2)" in tex and "(0, 0)" not in tex


def test_smaller_review_items(views):
    """Steps numbered on the page as in the PDF; a chain of bounds wraps on a phone; the wide
    figure fits there; no code-like subscript; logit explained before 3.2."""
    css = (Path(student.__file__).parent.parent / "render" / "templates" / "student.css"
           ).read_text(encoding="utf-8")
    assert re.search(r"\.student ol\.steps \{[^}]*list-style: decimal", css)
    # figure 4's two panels are shown whole on a phone, never cut off in a scrolling frame
    assert re.search(r"\.topic-figure\.wide img \{[^}]*width: 100%", css)
    assert "overflow-x: auto; }" not in css.split(".topic-figure.wide")[-1]
    for view in views.values():
        box = next(b for b in _parts(view, "box") if b["id"] == "lossless")
        assert len(box["correct"]["pieces"]) >= 3
        assert not [f for f in _formulas(view) if r"\text{keys}" in f]
    softmax = next(t for t in views["zh"]["topics"] if t["key"] == "softmax")
    assert "logit，即未规范化的预测" in softmax["intro"].plain
    assert student_tex._cut_relations(r"a \le b\Bigl(c \le d\Bigr) \ge e") == [
        "a", r"\le b\Bigl(c \le d\Bigr)", r"\ge e"]
    assert student_tex._cut_relations("a \\le (b") == ["a \\le (b"]


def test_the_reviews_wording_fixes(views):
    zh = "\n".join(student_read.visible_text(views["zh"]))
    assert "除以 $d_k$ 后就与" not in zh and "亦即 d2l 11.10 节的写法" in zh
    # the RoPE saying is right in its words (加入 is "bring in"); what misleads is its place
    rope = next(b for b in _parts(views["zh"], "box") if b["id"] == "rope")
    said = rope["wrong"].plain
    assert said.startswith("这句话本身没有错") and "“添加”" not in said
    assert "d2l 10.6" in said and "输入层" in said
    eps = next(b for b in _parts(views["zh"], "box") if b["id"] == "eps_inside")
    assert "接近" not in eps["wrong"].plain  # |g| ≲ √ε, as the summary says
    box = next(b for b in _parts(views["zh"], "box") if b["id"] == "lossless")
    assert r"\lVert J_l\rVert_2<1" in box["correct"]["tex"].tex


LETTER_M = re.compile(r"(?<![A-Za-z\\])m(?![A-Za-z])")


def _stray_m(tex: str) -> list[str]:
    """The letters m of ``tex`` that are not Adam's moment m_t (m_t, m_{10}, {m}_{t},
    \\hat{m}_t: an m with a subscript); the snippet around each."""
    return [tex[max(0, x.start() - 12):x.end() + 8] for x in LETTER_M.finditer(tex)
            if not tex[x.end():].lstrip("}").startswith("_")]


def test_m_is_adams_first_moment_and_nothing_else(views):
    """One letter per quantity: m names nothing but Kingma and Ba's m_t where chapter 7 maps
    its letters to the paper's; the number of keys is n_k, the sum over the d_k entries runs over
    r, a linear layer's output width is d_out."""
    for lang, view in views.items():
        for topic in view["topics"]:
            tex = [f.tex for f in student_read.formulas(topic)]
            stray = [x for f in tex for x in _stray_m(f)]
            assert stray == [], (lang, topic["key"], stray[:3])
            if topic["key"] != "adam":
                assert not [f for f in tex if LETTER_M.search(f)], (lang, topic["key"])
        answers = [f.tex for f in student_read.formulas({"answers": view["answers"]})]
        assert [x for f in answers for x in _stray_m(f)] == [], lang
    # the check finds the keys' m and the positions' m, and lets Adam's moments pass
    assert _stray_m(r"K \in \mathbb{R}^{m\times d_k}") and _stray_m(r"R_{n-m}")
    assert _stray_m(r"\sum_{j=0}^{m - 1} P_{ij}")
    assert not _stray_m(r"{m}_{t} = \beta_1 m_{t-1} + \hat{m}_t + {\hat{m}}_{t} + m_{10}")
    linear = next(t for t in views["zh"]["topics"] if t["key"] == "linear")
    shapes = [p.tex for p in linear["intro"].parts if isinstance(p, Tex)]
    assert r"W \in \mathbb{R}^{d\times d_{\text{out}}}" in shapes
    attention = next(t for t in views["en"]["topics"] if t["key"] == "attention")
    lead = next(c for c in attention["parts"] if c["type"] == "claim")["lead"]["text"]
    assert r"K \in \mathbb{R}^{n_k\times d_k}" in [p.tex for p in lead.parts
                                                      if isinstance(p, Tex)]


def test_the_english_pdf_keeps_a_box_title_apart_from_its_label(views, tmp_path):
    tex = latex.render(views["en"], tmp_path, template=latex.STUDENT_TEMPLATE,
                       name="student.tex").read_text(encoding="utf-8")
    # "…in parallelimprecise": at least 1em between, the label in one piece
    assert r"\hskip1em\hbox{}\nobreak\hfil\mbox{\small imprecise}" in tex
    assert r"\hfill{\small imprecise" not in tex
    # no control word glued to the next text (\parThe is undefined)
    assert not re.search(r"\\par(?!fillskip|skip|indent|box|tial)[A-Za-z]", tex)
    # the front page's sentence on the evidence links the full report's PDF beside it
    assert r"\href{report.en.pdf}{\texttt{pdf/report.en.pdf}}" in tex
    assert r"\href{../html/index.html}{\texttt{html/index.html}}" in tex


def test_the_row_softmax_backward_speaks_of_one_row_of_n_k_keys(views):
    """i names the row of P: the sum inside a row runs over l, up to the keys' n_k."""
    for view in views.values():
        c = next(c for c in _claims(view) if c["href"].endswith("attention_softmax_backward"))
        tex = " ".join(f.tex for f in student_read.formulas({k: v for k, v in c.items()
                                                        if k != "lead"}))
        assert r"\sum_{l=1}^{n_{k}}" in tex and r"\sum_{i=1}^{n}" not in tex
        assert r"\delta_{ij}" not in tex and r"\delta_{lj}" in tex
        assert "i" in [p.tex for p in c["lead"]["text"].parts if isinstance(p, Tex)]


def test_no_reason_states_a_range_a_lecturer_would_not(views):
    """「当 1 ≤ i ≤ V 时，δ_iv 只留下…」 is the algebra system's premise, not a lecturer's."""
    for view in views.values():
        for claim in _claims(view):
            for step in claim["steps"]:
                tex = [p.tex for p in step["rule"].parts if isinstance(p, Tex)]
                assert not [x for x in tex if re.fullmatch(r"1\s*\\le\s*\w\s*\\le\s*\w", x)], \
                    (claim["number"], step["number"], tex)


def test_then_stays_with_the_last_premise_on_the_page(views, tmp_path):
    from reports.render import html

    page = html.render(views["zh"], tmp_path, template=html.STUDENT_TEMPLATE).read_text(
        encoding="utf-8")
    premises = re.findall(r'<p class="premises">(.*?)</p>', page, re.S)
    assert premises and all(re.search(r'<span class="keep">.*，则</span>$', p, re.S)
                            for p in premises)


# ----------------------------------------------------------------------------- one result each
def _stacked(view) -> list[str]:
    """The derivations of ``view`` whose statement or a step shows two results at once (a
    column of results, or a step cut into rows)."""
    out = []
    for claim in _claims(view):
        formulas = [x["tex"].tex for x in claim["statement"]]
        formulas += [x["tex"].tex for st in claim["steps"] for x in st["lines"]]
        if (len(claim["statement"]) != 1 or any(len(st["lines"]) != 1 for st in claim["steps"])
                or any(r"\begin{matrix}" in f for f in formulas)):
            out.append(claim["number"])
    return out


def test_no_shown_step_stacks_two_results(views):
    for lang, view in views.items():
        assert _stacked(view) == [], lang
    # E[v_t] is derived first, and divided by 1 − β₁ᵗ in a derivation of its own
    adam = next(t for t in views["en"]["topics"] if t["key"] == "adam")
    statements = [c["statement"][0]["tex"].tex for c in adam["parts"] if c["type"] == "claim"]
    assert any(r"\mathbb{E}\left[{v}_{t}\right] =" in s for s in statements), statements
    assert any(r"\mathbb{E}\left[{\hat{v}}_{t}\right] = \mu" in s for s in statements)


def test_a_stacked_derivation_is_found(data):
    stacked = json.loads(json.dumps(data))
    claim = next(c for c in stacked["claims"] if c["id"] == "adam_first_moment_bias")
    pair = r"\left[\begin{matrix}\mu \left(1 - \beta_{1}^{t}\right)\\\mu\end{matrix}\right]"
    claim["statement"] = (r"\left[\begin{matrix}\mathbb{E}\left[{m}_{t}\right]\\"
                          r"\mathbb{E}\left[{\hat{m}}_{t}\right]\end{matrix}\right] = " + pair)
    claim["steps"][-1]["latex"] = pair
    view = student.build_view(stacked, FIGURES, "en", META)
    assert len(_stacked(view)) == 1


def test_the_history_box_is_one_sentence_on_softmax():
    box = next(b for b in student.words()["box"] if b["id"] == "history")
    assert len(box["lines"]) == 1
    line = box["lines"][0]
    assert "Bridle" in line["en"] and "Bridle" in line["zh"]
    # the Boltzmann machine and who-did-what-with-whom are no part of the softmax's story
    for word in ("Hinton", "Maxwell", "jointly"):
        assert word not in line["en"], word
    for word in ("Hinton", "麦克斯韦", "独立", "共同"):
        assert word not in line["zh"], word


def test_the_front_matter_maps_the_notation_to_d2l(views):
    for lang, view in views.items():
        text = " ".join(p.tex for line in view["notation_map"] for p in line.parts
                        if isinstance(p, Tex))
        for symbol in (r"\hat y", r"\alpha(q_i, k_j)", r"\gamma", r"\beta", r"\hat s_t",
                       r"Y = XW + \mathbf{1}b^\top", r"p = \operatorname{softmax}(z)", "m_t",
                       r"G_X := \partial L/\partial X", r"g := \partial L/\partial p"):
            assert symbol in text, (lang, symbol)


def test_the_vector_convention_is_the_one_the_formulas_use(views):
    """Batch matrices stack samples as rows; a vector standing alone is a column (qᵀk, ppᵀ,
    1bᵀ, Eᵀe_i): no line of the front matter or a chapter calls a vector a row, and the output
    layer's box writes z = W_outᵀh for a column h."""
    for lang, view in views.items():
        first = view["notation_map"][0].plain
        said = " ".join(_visible_text(view))
        for wrong in ("vectors are rows", "row vector", "行向量", "Only 6.1", "只有 6.1"):
            assert wrong not in said, (lang, wrong)
        assert ("column vector" if lang == "en" else "列向量") in first, (lang, first)
        tex = " ".join(p.tex for p in view["notation_map"][0].parts if isinstance(p, Tex))
        for symbol in ("q^\\top k", "pp^\\top", "e_i", "Y = XW + \\mathbf{1}b^\\top"):
            assert symbol in tex, (lang, symbol)
        vocab = next(b for b in _parts(view, "box") if b["id"] == "vocab")
        assert "W_{\\text{out}}^{\\top}x" in vocab["correct"]["tex"].tex
        assert "1\\times" not in vocab["correct"]["tex"].tex


def _visible_text(view):
    return student_read.visible_text(view)


def test_an_unbiased_moment_states_the_mean_it_is_equal_to(views):
    """「若 0<β₁<1，则 E[v̂_t] = μ」 named no μ: the premise E[g_i] = μ stands in the statement's
    「若 …」, and the shipped claims carry it as their own hypothesis (still proved)."""
    from derivations.library import adam

    result = r"\mathbb{E}\left[{\hat{v}}_{t}\right] = \mu"
    for lang, view in views.items():
        claim = next(c for c in _claims(view) if result in c["statement"][0]["tex"].tex)
        premises = [h.tex for h in claim["hypotheses"]]
        assert r"\mathbb{E}[g_\tau]=\mu" in premises, (lang, premises)
    for claim, premise in ((adam.adam_first_moment_unbiased, "same mean"),
                           (adam.adam_second_moment_unbiased, "stationarity")):
        assert premise in [a.name for a in claim.assumptions if a.kind == "hypothesis"]


def test_each_variance_step_gives_the_reason_it_uses(views):
    """§2.2: step 1 (Var of the sum → sum of Var) names the independence of the products and
    the sum of variances; step 2 (Var → E[X²] − E[X]²) names the definition of variance, in the
    edition and in the shipped claim."""
    from derivations.library import attention_scaling as a

    for lang, view in views.items():
        claim = next(c for c in _claims(view) if "Var" in c["statement"][0]["tex"].tex
                     and "d_{k} \\left(" in c["statement"][0]["tex"].tex)
        first, second = (claim["steps"][n]["rule"] for n in (0, 1))
        words = {"en": ("sum of their variances", "definition of variance"),
                 "zh": ("方差之和", "方差的定义")}[lang]
        assert words[0] in first.plain and words[1] not in first.plain, (lang, first.plain)
        assert words[1] in second.plain and words[0] not in second.plain, (lang, second.plain)
        assert r"\mathbb{E}\bigl[([q]_r[k]_r)^2\bigr]" in " ".join(p.tex for p in second.parts
                                                     if isinstance(p, Tex))
    rules = [s.rule for s in a.dot_product_variance.steps]
    assert "sum of their variances" in rules[0] and rules[1].startswith("the definition of var")


def test_the_saturation_counterexample_counts_its_keys_once(views):
    """Box 2.4: the uniform weight 1/16 is of a row of 16 keys; the saturated pair is a row of
    two keys, said so, since 1/(1 + e^{−64}) is a softmax over two."""
    for lang, view in views.items():
        box = next(b for b in _parts(view, "box") if b["id"] == "half_example")
        text = box["counter"].plain
        assert ("a row of just two keys" if lang == "en" else "一行只有两个键") in text, lang
        assert text.count("16") == 2, text  # "16 keys" and "1/16", nowhere the pair


def test_the_rope_box_says_d2ls_encoding_is_at_the_input(views):
    """Box 2.7 must not read as if d2l 10.6 were wrong: its sinusoidal encoding is added at the
    input layer, and what misleads is listing RoPE there too (its words are right)."""
    for lang, view in views.items():
        wrong = next(b for b in _parts(view, "box") if b["id"] == "rope")["wrong"].plain
        for word in {"en": ("d2l 10.6", "sinusoidal", "input layer",
                            "is added to the token embeddings"),
                     "zh": ("d2l 10.6", "正弦位置编码", "输入层", "在输入层与词元嵌入相加")}[lang]:
            assert word in wrong, (lang, word)


def test_figure_2_stands_by_the_scaling_and_side_boxes_close_chapter_2(views):
    """Figure 2 (saturation against d_k) follows box 2.4 in chapter 2, not chapter 3's shift
    invariance; boxes 2.7–2.9 (RoPE, graph, RNN) close chapter 2 under a heading of their own."""
    for lang, view in views.items():
        attention = next(t for t in view["topics"] if t["key"] == "attention")
        kinds = [(it["type"], it.get("name") or it.get("id")) for it in attention["parts"]]
        at = kinds.index(("box", "half_example"))
        assert kinds[at + 1] == ("figure", "saturation"), (lang, kinds)
        figure = attention["parts"][at + 1]
        assert figure["number"] == 2, lang
        heading = [k for k, (kind, _) in enumerate(kinds) if kind == "heading"]
        assert len(heading) == 1, kinds
        assert [x for _, x in kinds[heading[0] + 1:]] == ["rope", "graph", "gpu"], kinds
        assert attention["parts"][heading[0]]["title"].plain == {
            "en": "Other common sayings about attention", "zh": "注意力的其他常见说法"}[lang]
        numbers = [it["number"] for it in attention["parts"] if it["type"] == "box"]
        assert numbers == [f"{attention['number']}.{n}" for n in range(1, 10)], numbers
        softmax = next(t for t in view["topics"] if t["key"] == "softmax")
        assert not [it for it in softmax["parts"] if it["type"] == "figure"]


def test_a_box_group_without_a_heading_is_named():
    raw = {**student.words(), "box": [{**student.words()["box"][0], "group": "nowhere"}]}
    with pytest.raises(student.StudentError, match="group expected one of"):
        student_data.validate_words(raw)


def test_a_formula_keeps_the_chinese_punctuation_after_it(views, tmp_path):
    """「$x$，」: the formula and its punctuation are one unbreakable box on the page, and a
    premise that lists several facts is cut between them (its last fact stays with 「，则」)."""
    from markupsafe import Markup

    from reports.render import html

    page = html.render(views["zh"], tmp_path, template=html.STUDENT_TEMPLATE).read_text(
        encoding="utf-8")
    glued = re.findall(r'<span class="glue">(.*?)</span>(?!</span>)', page, re.S)
    assert len(glued) > 20
    x = Tex("x", False, "test")
    out = html.prose_markup(Prose(("若 ", x, "，则 ", x, ", and ", x, "。")),
                            {x: Markup("<X>")}, "")
    assert out == '若 <span class="glue"><X>，</span>则 <X>, and <span class="glue"><X>。</span>'
    assert re.search(r'<span class="glue"><span class="formula-inline">.*?</span>，</span>&#8203;',
                     page)
    # an opening bracket goes with the formula after it, and its closing mark too
    out = html.prose_markup(Prose(("余弦（", x, "）与 ", x)), {x: Markup("<X>")}, "")
    assert out == '余弦<span class="glue">（<X>）</span>与 <X>'
    assert student._list_items(r"a=1,\ f(b,\ c)=2") == ["a=1", r"f(b,\ c)=2"]


def test_a_display_s_pieces_carry_tex_s_own_space_and_keep_a_bracket_together():
    """On a phone a display wraps as pieces set with no gap between them: each piece after the
    first opens with an empty atom before its relation or operator (「{}≤」, 「{}−」), so that
    the space before it is TeX's, and an opened bracket's pieces are one unit, with the null
    delimiters of 「\\right.」 and 「\\left.」 kerned away."""
    inner = r"{x}_{i} - \mu"
    tex = (r"a = \frac{1}{\sigma_{\varepsilon}^{2}} \left(" + inner + r"\right) "
           r"\frac{\partial \sigma_{\varepsilon}}{\partial {x}_{j}} - b "
           r"\le \frac{\partial c}{\partial x}")
    shown = student_tex.shown(Tex(tex, True, "test"))
    [group] = shown["groups"]
    texs = [[[x.tex.removeprefix("\\displaystyle ") for x in u] for u in side] for side in group]
    assert texs[0] == [["a"]]
    assert texs[-1] == [["{}\\le \\frac{\\partial c}{\\partial x}"]]
    bracket, minus_b = texs[1]
    assert minus_b == ["{}- b"]
    assert len(bracket) == 2 and bracket[0].startswith("{}= ")
    assert bracket[0].endswith("\\right." + student_tex.NULL_KERN)
    assert bracket[1].startswith(student_tex.NULL_KERN + "\\left. {}- \\mu")


# ----------------------------------------------------------------------------- links and order
def test_every_link_into_the_full_report_reaches_an_id_of_it(views, data, tmp_path):
    """The ✓ marks (and any other link of the student page into the full report) point to an
    anchor the full report of the same data has, so a student never lands on nothing."""
    from reports.view import edition

    for lang, view in views.items():
        full = html.render(edition.build_view(data, [], lang, META), tmp_path / f"full-{lang}")
        ids = set(re.findall(r'\bid="([^"]+)"', full.read_text(encoding="utf-8")))
        page = html.render(view, tmp_path / lang, template=html.STUDENT_TEMPLATE)
        links = re.findall(r'href="' + re.escape(view["full_file"]) + r'#([^"]+)"',
                           page.read_text(encoding="utf-8"))
        assert len(links) >= len(_claims(view)), lang
        assert _unresolved(links, ids) == [], lang
    # the check finds a link to an anchor the report does not have
    assert _unresolved(["claim-a", "erratum-n000-x"], {"claim-a"}) == ["erratum-n000-x"]


def _unresolved(links: list[str], ids: set[str]) -> list[str]:
    return [x for x in links if x not in ids]


def test_no_chapter_uses_what_a_later_one_proves(views):
    """softmax's shift invariance and Jacobian (used by the attention chapter's box and figure
    and by its backward pass) and the trace trick (used in 1.2) stand before their first use."""
    uses, facts = student.structure()["uses"], student.structure()["facts"]
    assert {"half_example", "saturation", "embedding_grad_one_hot"} <= set(uses)
    for view in views.values():
        order = student.reading_order(view["topics"])
        assert student.order_problems(order, uses, facts) == []
        assert order.index("softmax_shift_invariance") < order.index("half_example")
        assert order.index("softmax_jacobian") < order.index("saturation")
    # the old order (attention before softmax) is found, and refused when building
    old = ["embedding_lookup", "embedding_grad_one_hot", "attention_shapes", "half_example",
           "saturation", "softmax_jacobian", "softmax_shift_invariance", "linear_grad_weight"]
    found = student.order_problems(old, uses, facts)
    assert len(found) == 2 and "half_example uses softmax_shift_invariance" in found[0]
    assert student.order_problems(["linear_grad_weight", "embedding_grad_one_hot"], uses,
                                  facts) == ["linear_grad_weight uses trace_trick, shown only "
                                             "later (embedding_grad_one_hot)"]


def test_a_late_chapter_order_is_refused(data, monkeypatch):
    topics = [dict(t) for t in student.topics_data()]
    attention = next(t for t in topics if t["key"] == "attention")
    topics.remove(attention)
    topics.insert(1, attention)
    monkeypatch.setattr(student, "topics_data", lambda: topics)
    with pytest.raises(student.StudentError, match="half_example uses softmax_shift_invariance"):
        student.build_view(data, FIGURES, "en", META)


HARD_CHAPTER = re.compile(r"第 ?\d+ ?章|[Cc]hapters? \d|(?<![\d.])\d\.\d+ ?节")


def _hard_references(text: str) -> list[str]:
    """Chapter or section numbers of this edition written out: a d2l reference (「d2l 第 3 章」,
    「d2l 7.5、10.7.2 节」) is not one of them."""
    return [m.group(0) for m in HARD_CHAPTER.finditer(text)
            if "d2l" not in text[max(0, m.start() - 40):m.start()]]


def test_the_words_refer_to_chapters_by_key_not_by_number(views):
    """A chapter or derivation named in the words is a reference ({{chapter:softmax}}) the view
    numbers, so reordering the chapters cannot leave a 「第 3 章」 pointing at the wrong one."""
    def strings(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for v in node.values():
                yield from strings(v)
        elif isinstance(node, list):
            for v in node:
                yield from strings(v)

    raw = student_data.WORDS.read_text(encoding="utf-8")
    assert "{{chapter:softmax}}" in raw
    found = [h for x in strings(student.words()) for h in _hard_references(x)]
    assert found == [], found
    for lang, view in views.items():
        text = "\n".join(student_read.visible_text(view))
        assert "{{" not in text, lang
        jacobian = next(c for c in _claims(view) if c["id"] == "softmax_jacobian")
        chapter = jacobian["number"].split(".")[0]
        backward = next(c for c in _claims(view) if c["id"] == "attention_softmax_backward")
        assert {"en": f"chapter {chapter}", "zh": f"第 {chapter} 章"}[lang] in \
            backward["lead"]["text"].plain
    assert _hard_references("用第 3 章的雅可比矩阵；见 6.1 节") == ["第 3 章", "6.1 节"]
    assert _hard_references("d2l 第 3 章；d2l 7.5、10.7.2 节") == []
    with pytest.raises(student.StudentError, match="reference"):
        student.resolve({"a": ["see {{chapter:nowhere}}"]}, {"chapter:softmax": "2"})


def test_the_steps_read_as_one_chain_of_equalities(views):
    """The first step starts from the result's left side, 「左边 = …」, so the steps below read
    as one chain ending in the right side."""
    for view in views.values():
        for claim in _claims(view):
            if not claim["steps"]:  # a result read off a definition has no chain to start
                assert claim["by_definition"], claim["id"]
                continue
            left = [line["tex"].tex.partition(" = ")[0] for line in claim["statement"]]
            first = [line["tex"].tex for line in claim["steps"][0]["lines"]]
            assert len(first) == len(left), claim["id"]
            for a, row in zip(left, first, strict=True):
                assert row.startswith(a + " = "), (claim["id"], row[:60])
    assert student.with_left_side(["a = b"], ["c"]) == ["a = c"]
    assert student.with_left_side(["a \\le b"], ["c"]) == ["c"]


# ----------------------------------------------------------------------------- wording
AFTER_FORMULA = re.compile(r"\$[,;:]")


def _halfwidth_after_formula(text: str) -> list[str]:
    """Half-width 「, ; :」 right after an inline formula $…$ of a Chinese string."""
    return [text[max(0, m.start() - 12):m.end() + 4] for m in AFTER_FORMULA.finditer(text)
            if re.search(r"[\u4e00-\u9fff]", text)]


def test_chinese_punctuation_after_a_formula_is_full_width(views, tmp_path):
    """「$=0.1875$，所以」, never 「$=0.1875$,所以」: over every Chinese string of the words and the
    rendered page (after a KaTeX formula)."""
    def chinese(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "zh" and isinstance(v, str):
                    yield v
                else:
                    yield from chinese(v)
        elif isinstance(node, list):
            for v in node:
                yield from chinese(v)

    texts = list(chinese(student.words())) + list(chinese(i18n.ui("zh")["student"])) + [
        v for v in i18n.ui("zh")["student"].values() if isinstance(v, str)]
    assert len(texts) > 100
    assert [x for t in texts for x in _halfwidth_after_formula(t)] == []
    page = html.render(views["zh"], tmp_path, template=html.STUDENT_TEMPLATE).read_text(
        encoding="utf-8")
    after = re.findall(r'</annotation></semantics></math></span>.*?</span></span>([,;:])[^\d]',
                       page)
    assert after == []
    # in the PDF a tight line must not squeeze 「，」 after a long formula to half its width, nor
    # a loose one stretch the blank of “ ” ：, which reads as a blank between them
    tex = latex.render(views["zh"], tmp_path / "tex", template=latex.STUDENT_TEMPLATE,
                       name="student.tex").read_text(encoding="utf-8")
    assert r"\xeCJKsetup{RubberPunctSkip=false}" in tex
    assert len(_halfwidth_after_formula("方差为 $0.1875$,所以 $s$;再求 $y$:")) == 3
    assert _halfwidth_after_formula("方差为 $0.1875$，所以") == []


def test_the_second_reviews_wording(views):
    """Box 2.5 says 「例如」 where 「只有…才」 said too much; RoPE depends on the positions only
    through j − i and is marked as beyond d2l; answers 1.1 and 1.2 name G's rows and the
    orthogonal transformations; box 2.3's 1 and 3 are unscaled dot products; the ε title is
    short, its source in the lead."""
    def box(view, bid):
        return next(b for b in _parts(view, "box") if b["id"] == bid)

    zh, en = views["zh"], views["en"]
    assert "只有" not in box(zh, "normalise")["wrong"].plain
    assert "例如" in box(zh, "normalise")["wrong"].plain
    assert "for example" in box(en, "normalise")["wrong"].plain
    assert "对位置的依赖只通过" in box(zh, "rope")["wrong"].plain
    assert "d2l 未讲，供了解" in box(zh, "rope")["wrong"].plain
    assert "only through" in box(en, "rope")["wrong"].plain
    assert "未缩放的点积为 1 与 3" in box(zh, "dot_cosine")["counter"].plain
    assert "unscaled dot products are 1 and 3" in box(en, "dot_cosine")["counter"].plain
    # the weights are the softmax of those unscaled products
    assert [round(x, 3) for x in _softmax([1.0, 3.0])] == [0.119, 0.881]
    assert round(1 / math.sqrt(2), 3) == 0.707
    answers = {a["number"]: a["answer"] for a in zh["answers"]}
    assert "g_{t_1}" not in " ".join(p.tex for p in answers["1.1"].parts if isinstance(p, Tex))
    assert "累加" in answers["1.1"].plain and "散射" not in answers["1.1"].plain
    assert "只看点积，无法区分相差一个正交变换的两组嵌入" in answers["1.2"].plain
    zh_text, en_text = ("\n".join(student_read.visible_text(v)) for v in (zh, en))
    assert "黑塞矩阵（Hessian）" in zh_text
    assert "拉伸参数" in zh_text and "偏移参数" in zh_text and "10.7.3" in zh_text
    assert "LayerNorm" not in en_text and "Layer normalization" in en_text
    eps = next(c for c in _claims(zh) if c["id"] == "adam_epsilon_placement")
    assert eps["title"].plain.strip() == "ε 在根号外与根号内之差" or \
        "在根号外与根号内之差" in eps["title"].plain
    assert "Kingma" not in eps["title"].plain and "Kingma" in eps["lead"]["text"].plain
    en_eps = next(c for c in _claims(en) if c["id"] == "adam_epsilon_placement")
    assert "Kingma" not in en_eps["title"].plain and len(en_eps["title"].plain) < 50
    variance = next(c for c in _claims(en) if c["id"] == "dot_product_variance")
    assert any("are mutually independent" in h.tex for h in variance["hypotheses"])
    # logit is explained where it first appears: the front page's notation map
    first = next(x for x in student_read.visible_text(zh) if "logit" in x)
    assert "未规范化的预测" in first, first


def test_the_figure_captions_take_their_numbers_from_the_data(data):
    """Figure 2 states n_k and the rows averaged, as the data gives them; figure 4 speaks of
    the first and the second moment in words (no letter that a renaming would leave behind)."""
    from numeric.crosscheck import stats
    from reports.view import figures

    series = stats.saturation()
    for lang in i18n.LANGS:
        t = i18n.ui(lang)
        text = figures.caption("saturation", t["figure"]["saturation_caption"], t,
                               {"saturation": series})
        assert f"n_k = {series['keys']}" in text and f" {series['rows']} " in text, text
        other = figures.caption("saturation", "", t, {"saturation": {**series, "keys": 7}})
        assert "n_k = 7" in other
        # curves recorded before the row length was kept: the caption as written
        assert figures.caption("saturation", "x", t, {"saturation": {"d_k": [1]}}) == "x"
        assert "分数分未缩放" not in text
        # figure 2 says how its upstream gradient is drawn; figure 1 its sample size
        assert {"en": "standard normal", "zh": "标准正态分布"}[lang] in text
        curves = {"samples": 4000}
        assert " 4000 " in figures.caption("variance_vs_dk", "", t, {"variance_vs_dk": curves})
        assert figures.caption("variance_vs_dk", "x", t, {"variance_vs_dk": {"d_k": [1]}}) == "x"
        adam = t["figure"]["adam_moments_caption"]
        # the moments named in words as well as letters (the edition renames the letters)
        assert ("first moment $m_t" in adam or "一阶矩 $m_t" in adam), adam
        assert {"en": "second moment", "zh": "二阶矩"}[lang] in adam



def upstream_draws(saturation, monkeypatch) -> list[str]:
    """How ``saturation`` draws its upstream gradients: the generator methods whose draw has
    the shape (rows, keys) of one g per row."""
    real, seen = np.random.default_rng, []

    class Spy:
        def __init__(self, seed):
            self._rng = real(seed)

        def __getattr__(self, name):
            method = getattr(self._rng, name)

            def drawn(*args, **kwargs):
                out = method(*args, **kwargs)
                seen.append((name, np.shape(out)))
                return out
            return drawn

    monkeypatch.setattr(np.random, "default_rng", Spy)
    series = saturation()
    monkeypatch.setattr(np.random, "default_rng", real)
    return [name for name, shape in seen if shape == (series["rows"], series["keys"])]


def test_figure_2_draws_its_upstream_gradient_as_its_caption_says(monkeypatch):
    """The caption says standard normal entries, one g per row: the figure's data draws so."""
    from numeric.crosscheck import stats

    assert upstream_draws(stats.saturation, monkeypatch) == ["standard_normal"]

    def uniform():
        rng = np.random.default_rng(0)
        rng.random((stats.S_SAT, stats.SAT_KEYS))
        return {"rows": stats.S_SAT, "keys": stats.SAT_KEYS}
    assert upstream_draws(uniform, monkeypatch) == ["random"]

# ----------------------------------------------------------------------------- one notation
FROM_0 = re.compile(r"\\(?:sum|prod)_\{?\s*[A-Za-z]\w*\s*=\s*0(?![\d.])"
                    r"|\\(?:sum|prod)_\{\\substack\{0\s*\\le")


def _sums_from_0(view) -> list[str]:
    return [f for f in _formulas(view) if FROM_0.search(f)]


def test_every_sum_and_product_counts_from_1(views):
    """Indices count from 1, as d2l counts them: no sum or product of the edition starts at 0."""
    for view in views.values():
        assert _sums_from_0(view) == []
    # the check finds a sum from 0 however it is printed, and lets a sum from 1 pass
    for wrong in (r"\sum_{j=0}^{n_{k} - 1} {P}_{ij}", r"\prod_{l = 0}^{L} x_l",
                  r"\sum_{\substack{0 \leq t \leq d_{k} - 1}} x_t"):
        assert FROM_0.search(wrong), wrong
    assert not FROM_0.search(r"\sum_{j=1}^{n_{k}} {P}_{ij} + \sum_{i=10}^{n} x_i")
    bad = {"topics": [{"key": "attention", "intro": Tex(r"\sum_{t=0}^{d_{k} - 1} q_t k_t")}]}
    assert _sums_from_0(bad)


def test_one_letter_names_one_quantity(views):
    """Every letter of a chapter's formulas, lowercase and Greek too, is in the legend
    (student.toml [legend], its meaning in both languages), and stands only in its chapters:
    derivations, boxes, figures, summaries, exercises and their answers at the back."""
    legend = student.structure()["legend"]
    assert all(set(e) == {"means", "chapters"} and set(e["means"]) == set(i18n.LANGS)
               and all(e["means"].values()) and set(e["chapters"]) <= set(ORDER)
               for e in legend.values())
    names = tuple(k for k in legend if "_" in k)
    for lang, view in views.items():
        assert student_read.misused_letters(view) == [], (lang, student_read.misused_letters(view))
        # every letter of the edition's chapters is read, lowercase ones too
        used = {x for t in view["topics"] for f in student_read.formulas(t)
                for x in student_read.letters(f.tex, names)}
        assert {"i", "j", "l", "r", "c", "x", "t", "\\tau", "\\sigma"} <= used
    # one meaning per index: i a row, c the target class (chapter 3), τ an earlier step (7)
    assert {"cross_entropy", "adam"}.isdisjoint(legend["i"]["chapters"])
    assert legend["c"]["chapters"] == ["cross_entropy"] and legend["\\tau"]["chapters"] == ["adam"]
    # the tokens: words, commands and Euler's e are no letters; 𝒱, W_out, d_k, σ_min are one
    assert student_read.letters(r"z=W_{\text{out}}^{\top}x\in\mathbb R^{|\mathcal V|},\ "
                                r"e^{z_i}/\sum_l e^{z_l},\ e/(1+e),\ \operatorname{softmax}(z)\ "
                                r"\text{for all}\ \mu_k") == {"z", "W_out", "x", "\\mathcal{V}",
                                                               "i", "l", "\\mu", "k"}
    assert student_read.letters(r"E^\top e_i") == {"E", "e", "i"}
    assert student_read.letters(r"\sigma_{\min}(I + J)\ge 1-\sigma^2/\sqrt{d_{k}}",
                                names + student_read.EXTREMA) == {
        "\\sigma_min", "I", "J", "\\sigma", "d_k"}
    # a page that writes the vocabulary size V (the value matrix) is found, in its chapter
    vocab = next(b for t in views["en"]["topics"] for b in t["parts"]
                 if b["type"] == "box" and b.get("id") == "vocab")
    page = {"topics": [{"key": "cross_entropy", "parts": [
        {**vocab, "correct": Tex(r"z=W_{\text{out}}^{\top}x\in\mathbb R^{V}")}]}]}
    assert ("cross_entropy", "V", r"z=W_{\text{out}}^{\top}x\in\mathbb R^{V}") in \
        student_read.misused_letters(page)
    # and so is a capital letter the legend does not name (H for the Hessian beside H_t)
    hessian = {"topics": [{"key": "adam", "x": Tex(r"-H^{-1}g")}]}
    assert [x[1] for x in student_read.misused_letters(hessian)] == ["H"]
    # a summation index k or a class count n outside attention is a second meaning
    ce = {"topics": [{"key": "cross_entropy", "x": Tex(r"\log\sum_{k=1}^{n} e^{z_k}")}]}
    assert sorted(x[1] for x in student_read.misused_letters(ce)) == ["k", "n"]


@pytest.mark.parametrize(("chapter", "old", "letter"), [
    # the old page: h a hidden state where h counts hidden units, c a constant and a vector
    # where c is the column of an entry, b an example where b is a bias, v a vocabulary index
    # and a row of V where v is Adam's first moment, θ an angle where θ is a parameter, x and f
    # in box 7.2, a and b the denominators of 7.5, ε in two glyphs in chapter 7
    ("cross_entropy", r"z=W_{\text{out}}^{\top}h\in\mathbb R^{|\mathcal V|}", "h"),
    ("softmax", r"\operatorname{softmax}(z + c\mathbf{1}) = \operatorname{softmax}(z)", "c"),
    ("linear", r"c=G_{Y}^\top\mathbf{1}", "c"),
    ("cross_entropy", r"L = \frac{1}{B}\sum_b \ell_b", "b"),
    ("embedding", r"\sum_{v=1}^{|\mathcal{V}|} \delta_{i v} {E}_{vc}", "v"),
    ("attention", r"O_i=\sum_{j} P_{ij}\,v_j", "v"),
    ("attention", r"q^{\top}k=\lVert q\rVert\,\lVert k\rVert\cos\theta", "\\theta"),
    ("adam", r"f(x) = \kappa x^2/2", "x"),
    ("adam", r"f(x) = \kappa x^2/2", "f"),
    ("adam", r"\frac{\eta \hat{v}_{t} \left(a - b\right)}{a b}", "b"),
    ("adam", r"g(g+\lambda\theta+\varepsilon)-(g+\lambda\theta)(g+\varepsilon)", "\\varepsilon"),
    # λ the weight decay and σ a standard deviation, in every chapter: no σ_min, σ_max, λ_min
    # (chapter 6's boxes and exercise 6.2 wrote them; a matrix's size is its norm ‖J‖₂)
    ("adam", r"\sigma_{\min}(I + J) = 0.9", "\\sigma_min"),
    ("residual", r"\sigma_{\min}(I + J) \ge 1 - \lVert J\rVert_2", "\\sigma_min"),
    ("residual", r"\lVert J\rVert_2 = \sigma_{\max}(J)", "\\sigma_max"),
    ("residual", r"\lambda_{\min}(J + J^\top + J^\top J) = -0.19", "\\lambda_min"),
    ("residual", r"\lambda(J + J^\top)", "\\lambda"),
    # a letter the legend does not name at all
    ("linear", r"w^\top x", "w"),
    # t is a time step (row t of Y = XE, positions t_1, t_2 were t), and τ an earlier step of
    # Adam's sums, no position (chapter 1's τ₁, τ₂ are the positions 5 and 9)
    ("embedding", r"Y_{t}", "t"),
    ("embedding", r"\text{rows } \tau_1, \tau_2 \text{ of } G_Y", "\\tau"),
    # i is a row: never the target class (chapter 3's c) nor an earlier step (chapter 7's τ)
    ("cross_entropy", r"- \log{\left({p}_{i} \right)} = \log{\left(\sum_{l=1}^{C} e^{{z}_{l}} "
                      r"\right)} - {z}_{i}", "i"),
    ("cross_entropy", r"{y}_{j} := \delta_{j i}", "i"),
    ("adam", r"v_t = (1 - \beta_1)\sum_{i=1}^{t}\beta_1^{t-i}g_i", "i"),
    ("adam", r"\mathbb{E}[g_i] = \mu", "i"),
    # c is the target class: the column of an entry inside a row is r (E_ir, V_jr)
    ("embedding", r"(E^{\top} e_{i})_{c} = {E}_{ic}", "c"),
    ("attention", r"\sum_{j=1}^{n_{k}} {P}_{ij} {V}_{jc}", "c"),
    # an example of a batch is ℓ^{(b)} in chapter 3, where i is the target class
    ("cross_entropy", r"L = \frac{1}{B}\sum_{i=1}^{B} \ell^{(i)}", "^(i)"),
])
def test_a_letter_with_a_second_meaning_is_found(chapter, old, letter):
    page = {"topics": [{"key": chapter, "number": 1, "x": Tex(old)}]}
    assert letter in {x[1] for x in student_read.misused_letters(page)}


def test_the_answers_at_the_back_are_read_in_their_chapter(views):
    """An answer's letters count in the chapter of its number: (p_b − y_b)/B in answer 3.1 is
    b, a bias, in chapter 3."""
    topics = [{"key": k, "number": n} for n, k in enumerate(ORDER, start=1)]
    page = {"topics": topics, "answers": [{"number": "3.1", "text": Tex(r"(p_b - y_b)/B")}]}
    assert ("cross_entropy", "b", r"(p_b - y_b)/B") in student_read.misused_letters(page)
    ok = {"topics": topics, "answers": [{"number": "3.1", "text": Tex(r"(p^{(b)} - y^{(b)})/B")}]}
    assert student_read.misused_letters(ok) == []


def test_an_example_s_index_is_no_other_quantity_of_its_chapter():
    """ℓ^{(i)} beside the target class i of chapter 3 is one letter for two quantities: found
    even by a legend that would allow the superscript (i) there."""
    legend = dict(student.structure()["legend"])
    legend["^(i)"] = legend["^(b)"]
    old = {"topics": [{"key": "cross_entropy", "number": 3, "parts": [
        Tex(r"-\log p_i = \log\sum_l e^{z_l} - z_i"),
        Tex(r"L = \frac{1}{B}\sum_{i=1}^{B} \ell^{(i)}")]}]}
    assert ("cross_entropy", "^(i)") in {x[:2] for x in student_read.misused_letters(old, legend)}
    new = {"topics": [{"key": "cross_entropy", "number": 3, "parts": [
        Tex(r"-\log p_c = \log\sum_l e^{z_l} - z_c"),
        Tex(r"L = \frac{1}{B}\bigl(\ell^{(1)} + \dots + \ell^{(B)}\bigr)"),
        Tex(r"(p^{(b)} - y^{(b)})/B")]}]}
    assert student_read.misused_letters(new, legend) == []


SINGULAR = re.compile(r"\\(?:sigma|lambda)_(?:\{\\(?:min|max)\}|\\(?:min|max)(?![A-Za-z]))")


def test_a_matrix_s_size_is_its_norm_defined_once(views):
    """σ is a standard deviation and λ the weight decay: chapter 6 writes no singular value or
    eigenvalue (σ_min, σ_max, λ_min) but ‖(I + J)x‖₂ and the spectral norm ‖J‖₂, which box 6.1
    defines once, where it first stands (its foot note no more)."""
    for lang, view in views.items():
        assert [f for f in _formulas(view) if SINGULAR.search(f)] == [], lang
        box = next(b for b in _parts(view, "box") if b["id"] == "at_least_one")
        defined = r"\lVert J\rVert_2 = \max_{\lVert x\rVert_2 = 1}\lVert Jx\rVert_2"
        wrong = [f.tex for f in student_read.formulas({"b": box["wrong"]})]
        assert defined in wrong, wrong
        assert [f for f in _formulas(view) if r"\max_{" in f and r"\lVert J" in f] == [defined]
        foot = " ".join(f.tex for f in student_read.formulas({"b": box["footnote"]}))
        assert r"\lVert J\rVert_2" not in foot and r"\succeq" in foot
    # the old box: σ_min(I + J) in its words and σ_max(J) in its foot note
    for old in (r"\sigma_{\min}(I + J) = \min_{\lVert x\rVert_2 = 1}\lVert (I + J)x\rVert_2",
                r"\lVert J\rVert_2 = \sigma_{\max}(J)", r"\lambda_{\min}(J + J^\top) = -0.19",
                r"\sigma_{\min}\Bigl(\prod_{l}(I+J_l)\Bigr)"):
        assert SINGULAR.search(old), old
    assert not SINGULAR.search(r"\sigma_{\varepsilon} + \sigma_q^2 + \lambda\theta")


def test_the_notation_map_states_the_jacobian_s_layout(views):
    """J's (i, j) entry is ∂y_i/∂x_j (6.1 is numerator layout), and the backward pass
    multiplies by Jᵀ (figure 2's ‖Jᵀg‖), in both languages; a vector's component is [q]_r."""
    for view in views.values():
        tex = " ".join(_formulas({"m": view["notation_map"]}))
        assert r"\partial y_i/\partial x_j" in tex and r"J^\top g" in tex
        assert "[q]_r" in tex and r"\ell^{(b)}" in tex and r"\tau" in tex


def test_a_dot_product_and_an_entry_are_written_one_way(views):
    """q_iᵀk_j, never q_i·k_j; an entry V_{jr}, never V_{j,r} beside P_{ij}."""
    for view in views.values():
        tex = _formulas(view)
        assert [f for f in tex if re.search(r"q_\{?i\}?\s*\\cdot\s*k", f)] == []
        assert [f for f in tex if re.search(r"\{[A-Z]\}_\{[a-z],[a-z]\}", f)] == []
        attention = next(t for t in view["topics"] if t["key"] == "attention")
        shown = [f.tex for f in student_read.formulas(attention)]
        # the column of an entry inside a row is r, as a component (c is the target class)
        assert any("{V}_{jr}" in f for f in shown) and any("{K}_{jr}" in f for f in shown)
        assert not any("{V}_{jc}" in f for f in shown)


def test_the_residual_norms_are_named_and_the_layer_is_z_equals_w_transpose_x(views):
    for view in views.values():
        residual = next(t for t in view["topics"] if t["key"] == "residual")
        tex = [f.tex for f in student_read.formulas(residual)]
        # ‖J‖ is the spectral norm ‖J‖₂ wherever it stands; σ is never a function of a matrix
        assert [f for f in tex if re.search(r"\\rVert(?!_2)", f)] == []
        assert [f for f in tex if re.search(r"\\sigma\s*(?:\\Bigl|\\bigl|\\left|\()", f)] == []
        # a single column x goes through W₁ᵀx + b₁, as chapter 5's Y = XW reads for one row
        claim = next(p for p in residual["parts"] if p["type"] == "claim")
        assert r"W_{1}^{\top} x + b_{1}" in claim["definitions"][0]["tex"].tex
        assert claim["statement"][-1]["tex"].tex.endswith(r"I + W_{2}^{\top} D W_{1}^{\top}")
        assert not [f for f in tex if re.search(r"W_\{?1\}?\s*x", f)]
    # the checks find the undefined σ(·), the bare ‖J‖ and the left-multiplied W₁x they replace
    assert re.search(r"\\sigma\s*(?:\\Bigl|\\bigl|\\left|\()",
                     r"\le\sigma\Bigl(\prod_{l=1}^{L}(I+J_l)\Bigr)")
    assert re.search(r"\\rVert(?!_2)", r"1 - \lVert J\rVert") and re.search(r"W_\{?1\}?\s*x",
                                                                          r"u := W_{1} x + b_{1}")


def test_the_variance_step_names_no_random_variable_of_its_own(views):
    for view in views.values():
        claim = next(c for c in _claims(view) if "d_{k} \\left(\\mu" in
                     c["statement"][0]["tex"].tex)
        step2 = [p.tex for p in claim["steps"][1]["rule"].parts if isinstance(p, Tex)]
        assert step2 and not [f for f in step2 if re.search(r"(?<![A-Za-z\\])X", f)]


def test_the_sharpening_box_shows_one_gap_on_both_sides():
    """Whether the softmax is sharper than proportional normalization is not the gap's alone:
    the box's two examples share the gap 0.1 and come out on opposite sides, each number
    recomputed here; the rule it states (e^{z₂−z₁} > z₂/z₁) decides both."""
    box = next(b for b in student.words()["box"] if b["id"] == "amplify")
    sides = []
    for z1, z2 in [(0.1, 0.2), (100.0, 100.1)]:
        soft, prop = 1 / (1 + math.exp(z1 - z2)), z2 / (z1 + z2)
        for lang in ("en", "zh"):
            assert f"{soft:.3f}" in box["counter"][lang] and f"{prop:.3f}" in box["counter"][lang]
        sides.append((soft > prop, math.exp(z2 - z1) > z2 / z1))
    assert sides == [(False, False), (True, True)]
    # the rule the box used to state, "sharper only when far apart", fails on the same gap
    assert len({round(z2 - z1, 9) for z1, z2 in [(0.1, 0.2), (100.0, 100.1)]}) == 1
    for lang in ("en", "zh"):
        assert "e^{z_2-z_1} > z_2/z_1" in box["wrong"][lang]


def test_the_query_box_tells_rows_from_columns_by_the_softmax():
    """Query and key play the same part in the score q_iᵀk_j; the box tells them apart by the
    softmax: each row of P (a query's weights over the keys) sums to 1, a column need not. Its
    numbers are recomputed from its scores."""
    box = next(b for b in student.words()["box"] if b["id"] == "query")
    q, k = np.array([1.0, 2.0]), np.array([0.0, 1.0])
    scores = np.outer(q, k)  # d_k = 1
    weights = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    for lang in ("en", "zh"):
        text = box["counter"][lang]
        assert all(f"{w:.3f}" in text for w in weights.ravel()), lang
        assert all(f"{c:.3f}" in text for c in weights.sum(axis=0)), lang
    assert np.allclose(weights.sum(axis=1), 1) and not np.allclose(weights.sum(axis=0), 1)
    assert r"\sum_{j} P_{ij}=1" in box["correct"]


def test_a_spacing_command_names_no_letter():
    """The phone view's pieces carry \\kern-0.12em: its unit is no quantity e or m, while a
    letter beside it still is."""
    assert student_read.letters(r"\left. x \right.\kern-0.12em") == {"x"}
    assert student_read.letters(r"a\mkern3mu m") == {"a", "m"}
