"""The student edition's text as a lecturer writes it: products in the order of the textbook
(weights first, entries in the order of the product), no step that only restates its result,
every symbol defined before it is used, the attention backward pass summarised whole, and the
Chinese punctuation of a printed page (no bracket inside a bracket, no blank before ：)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from derivations.engine import verify, with_step
from derivations.engine.core.printing import latex, order_unused, same_sum
from derivations.library import attention as at
from derivations.library import attention_scaling as sc
from derivations.library import claims
from numeric import ops
from reports.render import i18n
from reports.render.katex import Prose, prose
from reports.view import student, student_data, student_read
from tests.student_fixture import edition_data, edition_views

FD_STEP = 1e-6  # central differences in float64: error ~ h² f''' + eps/h, about 1e-10 here
FD_RTOL = 1e-7


data = pytest.fixture(scope="module", name="data")(edition_data)
views = pytest.fixture(scope="module", name="views")(edition_views)


def _claims(view) -> dict[str, dict]:
    return {it["id"]: it for t in view["topics"] for it in t["parts"] if it["type"] == "claim"}


def _formulas(claim: dict) -> str:
    """Every formula of a shown derivation, braces and blanks dropped: P_ijV_jr."""
    texts = [x["tex"].tex for x in claim["statement"]]
    texts += [d["tex"].tex for d in claim["definitions"]]
    texts += [x["tex"].tex for st in claim["steps"] for x in st["lines"]]
    return re.sub(r"[{}\s]", "", "\n".join(texts))


# ----------------------------------------------------------------------------- factor order
# (claim, as a lecturer writes it, as SymPy orders it): braces and blanks dropped
WRITTEN = [
    ("attention_shapes", r"P_ijV_jr", r"V_jrP_ij"),
    ("attention_shapes", r"Q_irK_jr", r"K_jrQ_ir"),
    ("softmax_jacobian", r"\delta_ije^z_iZ-", r"Ze^z_i\delta_ij"),
    ("softmax_jacobian", r"=p_i\left(\delta_ij-p_j\right)", r"\right)p_i"),
    ("attention_softmax_backward", r"g_l\frac\partialp_l\partialz_j", r"\partialz_jg_l"),
    ("attention_softmax_backward", r"=p_j\left(g_j-\bar", r"\right)p_j"),
    ("layernorm_grad_input", r"g_i\frac\partial\hatx_i\partialx_j", r"\partialx_jg_i"),
    ("dot_product_variance", r"[q]_r[k]_r", r"[k]_r[q]_r"),
    # a sum's terms: q before k, step 2's order in step 3, the reason's ε(ε + 2√ŝ_t − 1)
    ("dot_product_variance",
     r"\left(\mu_q^2+\sigma_q^2\right)\left(\mu_k^2+\sigma_k^2\right)-\mu_q^2\mu_k^2",
     r"\left(\mu_k^2+\sigma_k^2\right)\left(\mu_q^2"),
    ("dot_product_variance",
     r"d_k\left(\mu_q^2\sigma_k^2+\sigma_q^2\mu_k^2+\sigma_q^2\sigma_k^2\right)",
     r"\mu_k^2\sigma_q^2+"),
    ("layernorm_grad_input",
     r"\delta_ijg_i-\frac1d\sum_i=1^dg_i-\frac1d\sum_i=1^dg_i\hatx_i\hatx_j",
     r"\hatx_i\hatx_j-\frac1d\sum_i=1^dg_i\right)"),
    ("adam_epsilon_placement", r"\epsilon\left(\epsilon+2\sqrt\hats_t-1\right)", r"\epsilon-1+2"),
]


@pytest.mark.parametrize(("cid", "written", "sympy_order"), WRITTEN)
def test_products_read_as_a_lecturer_writes_them(views, cid, written, sympy_order):
    for view in views.values():
        shown = _formulas(_claims(view)[cid])
        assert written in shown and sympy_order not in shown, (cid, shown[:300])


def _same_symbols(a: str, b: str) -> bool:
    """Two prints of one expression: the same characters, in another order at most."""
    return sorted(a.replace(" ", "")) == sorted(b.replace(" ", ""))


def test_a_stated_order_reorders_and_changes_nothing_else():
    ordered = [d for d in claims() if d.order]
    assert {d.id for d in ordered} >= {w[0] for w in WRITTEN}
    for d in ordered:
        assert order_unused(d) == [], d.id
        for e in (d.statement, *(s.expr for s in d.steps)):
            mine, plain = latex(e, d.definitions_used, d.order), latex(e, d.definitions_used)
            assert _same_symbols(mine, plain), (d.id, mine, plain)
    # the check tells a print that lost a factor
    assert not _same_symbols(r"{P}_{ij} {V}_{jc}", r"{P}_{ij}")


def test_a_stated_order_of_terms_is_the_same_sum_or_refused():
    """Printing may put a sum's terms in another order, never other terms: a list of terms
    that loses, doubles or changes one is refused; and a step written in the lecturer's order
    with another term (−μ_q²σ_k² for −μ_q²μ_k²) is not proved."""
    mq, sq, mk, sk = (sp.Symbol(n, real=True) for n in ("mu_q", "sigma_q", "mu_k", "sigma_k"))
    total = mq**2 * sk**2 + sq**2 * mk**2 + sq**2 * sk**2
    assert same_sum(total, [mq**2 * sk**2, sq**2 * mk**2, sq**2 * sk**2])
    for wrong in ([mq**2 * sk**2, sq**2 * mk**2], [mq**2 * sk**2, sq**2 * mk**2, sq**2 * mk**2],
                  [mq**2 * sk**2, sq**2 * mk**2, sq * sk**2]):
        with pytest.raises(AssertionError, match="another sum"):
            same_sum(total, wrong)
    d = sc.dot_product_variance
    assert latex(d.steps[3].expr, d.definitions_used, d.order).startswith(
        r"\sum_{m=1}^{d_{k}} \left(\left(\mu_{q}^{2} + \sigma_{q}^{2}\right)")
    m = sc.m
    other = sp.Sum((sc.mu_q**2 + sc.sigma_q**2) * (sc.mu_k**2 + sc.sigma_k**2)
                   - sc.mu_q**2 * sc.sigma_k**2, (m, 1, sc.d_k))
    assert verify(with_step(d, 4, other)).status != "proved"


def test_a_misspelt_order_name_is_found():
    d = at.attention_shapes
    bad = type(d)(d.id, d.title, d.statement, d.assumptions, d.steps, d.domain, d.definitions,
                  order=("s", "Qx"))
    assert order_unused(bad) == ["Qx"]


def test_a_written_form_that_is_another_expression_is_refused():
    """The printed order is the proved expression's: a step written otherwise (the value's
    indices swapped) is not proved."""
    d = at.attention_shapes
    i, j, c = at.i, at.j, at.c
    wrong = sp.Sum(at.w[i, j] * at.entry(at.V, c, j), (j, 1, at.m))
    assert verify(with_step(d, 1, wrong)).status != "proved"
    right = sp.Sum(sp.Mul(at.w[i, j], at.entry(at.V, j, c), evaluate=False), (j, 1, at.m))
    assert sp.simplify((right - d.steps[0].expr).doit()) == 0


# ----------------------------------------------------------------------------- steps
def test_the_lookup_computes_its_index_and_restated_steps_read_by_definition(views):
    for lang, view in views.items():
        claims = _claims(view)
        lookup = _formulas(claims["embedding_lookup"])
        assert r"(E^\tope_i)_r=\sum_l=1^|\mathcalV|E_lr(e_i)_l" in lookup, lookup
        assert r"\sum_l=1^|\mathcalV|\delta_ilE_lr" in lookup and len(
            claims["embedding_lookup"]["steps"]) == 3
        said = {"zh": ("由定义即得", "直接可得"), "en": ("By definition", "Directly")}[lang]
        # 4.1 reads the definitions of P and S; 5.4 is the trace rule, not a definition
        for cid, label in (("attention_shapes", said[0]), ("attention_grad_values", said[1])):
            assert claims[cid]["steps"] == [], cid
            assert claims[cid]["by_definition"]["label"] == label, cid
        # no shown derivation is a single step that writes its result again
        for cid, c in claims.items():
            if len(c["steps"]) == 1:
                assert [x["tex"].tex for x in c["steps"][0]["lines"]] != [
                    x["tex"].tex for x in c["statement"]], cid


def test_a_title_says_what_its_derivation_derives(views):
    """2.1 derives entries: its title says the entries, its lead the matrix they make."""
    for view in views.values():
        c = _claims(view)["softmax_jacobian"]
        assert "diag" not in c["title"].plain and r"\partial p_i/\partial z_j" in "".join(
            x.tex for x in c["title"].parts if not isinstance(x, str))
        assert "diag(p)" in c["lead"]["text"].plain.replace("operatorname{diag}", "diag")


# ----------------------------------------------------------------------------- defined first
def test_symbols_are_defined_before_they_are_used(views):
    words = student_data.words()
    lead = words["lead"]["attention_shapes"]["text"]
    for lang in ("en", "zh"):
        assert "$Q = XW_Q$" in lead[lang] and "10.6" in lead[lang]
        intro = words["chapter"]["residual"]["intro"][lang]
        first = min(intro.index(x) for x in (r"\sigma^2", r"\varepsilon"))
        # σ² and ε are said in words where they first stand
        said = {"zh": ("方差", "小常数"), "en": ("variance", "small constant")}[lang]
        assert all(w in intro for w in said) and intro.index(said[0]) < first + 120
        box = next(b for b in words["box"] if b["id"] == "at_least_one")
        for term in (r"\succeq 0", r"x^\top(J + J^\top + J^\top J)x \ge 0"):
            assert term in box["footnote"][lang], term
        # ‖J‖₂ is defined once in the box, in its text where it first stands, and no σ_min
        said = box["wrong"][lang] + box["footnote"][lang]
        assert r"\sigma" not in said, lang
        assert box["wrong"][lang].count(r"\lVert J\rVert_2 = \max") == 1, lang
        assert said.count(r"\max_{\lVert x\rVert_2") == 1, lang
        ln = words["lead"]["layernorm_grad_input"]["text"][lang]
        assert {"zh": "视为常数", "en": "held constant"}[lang] in ln
    for view in views.values():
        box = next(it for t in view["topics"] for it in t["parts"] if it.get("id") ==
                   "at_least_one")
        assert box["footnote"] is not None


# ----------------------------------------------------------------------------- chapter 5
def _softmax_rows(s: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    return ops.softmax_forward(s, mask)[0]


def test_the_summary_gives_g_p_and_the_row_softmax_backward_which_finite_differences_confirm(
        views):
    for view in views.values():
        summary = [x for t in view["topics"] if t["key"] == "linear" for x in t["summary"]]
        tex = "".join(p.tex for x in summary for p in x.parts if not isinstance(p, str))
        assert r"G_P = G_O\,V^\top" in tex
        assert r"G_S = P \odot \bigl(G_P - (G_P \odot P)\mathbf{1}\mathbf{1}^\top\bigr)" in tex
    # the summary's matrix form, against central differences of L = Σ G_P ⊙ softmax(S)
    rng = np.random.default_rng(50)
    s, gp = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    p = _softmax_rows(s)
    gs = p * (gp - (gp * p) @ np.ones((4, 1)) @ np.ones((1, 4)))
    fd = np.zeros_like(s)
    for idx in np.ndindex(*s.shape):
        e = np.zeros_like(s)
        e[idx] = FD_STEP
        fd[idx] = ((gp * _softmax_rows(s + e)).sum()
                   - (gp * _softmax_rows(s - e)).sum()) / (2 * FD_STEP)
    np.testing.assert_allclose(gs, fd, rtol=FD_RTOL, atol=FD_RTOL)
    # and the check tells a wrong form: the plain row mean instead of the mean under P
    wrong = p * (gp - gp.mean(axis=1, keepdims=True))
    assert not np.allclose(wrong, fd, rtol=FD_RTOL, atol=FD_RTOL)


def test_the_causal_mask_exercise_answer_is_what_the_model_computes(views):
    """Exercise 5.1: G_S is 0 at masked positions, by the model's softmax backward and by
    finite differences of the masked forward pass."""
    words = student_data.words()["chapter"]["linear"]["exercise"]
    ex = next(e for e in words if e["id"] == "causal_gradient")
    assert ex["answer"]["zh"].startswith("为 0") and ex["answer"]["en"].startswith("0")
    assert not any(e["id"] == "probs" for e in words)  # not 5.5 again
    n = 4
    mask = ops.causal_mask(n)
    rng = np.random.default_rng(51)
    s, gp = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    p, cache = ops.softmax_forward(s, mask)
    gs = ops.softmax_backward(gp, cache)
    assert np.all(gs[~mask] == 0.0) and np.all(p[~mask] == 0.0)
    for idx in zip(*np.nonzero(~mask), strict=True):
        e = np.zeros_like(s)
        e[idx] = 1.0  # any change of a masked score: nothing moves
        assert (gp * _softmax_rows(s + e, mask)).sum() == (gp * p).sum()
    # kept positions are not all 0: the answer is about the masked ones only
    assert np.abs(gs[mask]).max() > 1e-3


# ----------------------------------------------------------------------------- wording
def _chinese_strings(node, out: list[str]) -> list[str]:
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, dict):
        for k, v in node.items():
            if k != "en":
                _chinese_strings(v, out)
    elif isinstance(node, list):
        for v in node:
            _chinese_strings(v, out)
    return out


def _nested_bracket(text: str) -> bool:
    depth = 0
    for ch in re.sub(r"\$[^$]*\$", "", text):
        depth += {"（": 1, "）": -1}.get(ch, 0)
        if depth > 1:
            return True
    return False


_BAD_BLANK = re.compile(r"[“”]\s+[“”]|\s+[：；，。、]")


def _zh_texts(view) -> list[str]:
    return student_read.visible_text(view)


def test_no_bracket_inside_a_bracket_and_no_blank_before_chinese_punctuation(views):
    import tomllib
    root = Path(student_data.WORDS).parent
    strings = []
    for name in ("student.toml", "claims.toml", "ui.toml"):
        strings += _chinese_strings(tomllib.loads((root / name).read_text("utf-8")), [])
    zh = [x for x in strings if re.search(r"[\u4e00-\u9fff]", x)]
    assert not [x for x in zh if _nested_bracket(x)]
    assert not [x for x in zh if _BAD_BLANK.search(re.sub(r"\$[^$]*\$", "x", x))]
    # and the page a reader sees, with the definitions' own brackets around their words
    page = _zh_texts(views["zh"])
    assert not [x for x in page if _BAD_BLANK.search(x)]
    for claim in _claims(views["zh"]).values():
        for d in claim["definitions"]:
            assert "（" not in d["text"].plain, d["text"].plain
    # the checks find what they look for
    assert _nested_bracket("该行的方差（除以 $d$ 的有偏方差（有偏））")
    assert _BAD_BLANK.search("谈不上“保证” “永远” ：")


def test_the_wording_fixes(views, data):
    words = student_data.words()
    boxes = {b["id"]: b for b in words["box"]}
    zh = {k: b["wrong"]["zh"] for k, b in boxes.items() if "wrong" in b}
    en = {k: b["wrong"]["en"] for k, b in boxes.items() if "wrong" in b}
    assert "分量均值不为 0 时" in zh["half_example"]
    d_k = 4096  # every component 0.5: qᵀk = 0.25 d_k, and divided by √d_k it is 0.25 √d_k
    assert 0.5 * 0.5 * d_k / np.sqrt(d_k) == 0.25 * np.sqrt(d_k) == 16.0
    assert "mean is not 0" in en["half_example"]
    assert "不含曲率信息" not in zh["second_order"] and "不是黑塞矩阵" in zh["second_order"]
    assert "not the Hessian" in en["second_order"]
    # the condition ‖J_l‖₂ < 1 stands with the lower bound alone
    correct = boxes["lossless"]["correct"]
    assert correct.index(r"<1)") < correct.index(r"\le\prod")
    assert "层规范化不是一回事" in boxes["normalise"]["wrong"]["zh"]
    assert "not layer normalization" in boxes["normalise"]["wrong"]["en"]
    linear = words["chapter"]["linear"]["intro"]["zh"]
    assert linear.startswith("本册统一约定") and "全书" not in linear
    answers = {e["id"]: e["answer"]["zh"] for ch in words["chapter"].values()
               for e in ch["exercise"]}
    assert "只看点积，无法区分" in answers["rotation"] and "意义下确定" not in answers["rotation"]
    assert "远大于" not in answers["rotation_gain"]
    # the front page counts the derivations compared with the model, from the data: a claim with
    # a record that runs the model or the optimiser (not only a Monte Carlo sample)
    shown = list(_claims(views["en"]))
    model = {r["claim"] for r in data["crosschecks"]
             if r["kind"] in ("identity", "finite-difference", "closed-form")}
    sampled = {r["claim"] for r in data["crosschecks"] if r["kind"] == "monte-carlo"} - model
    n, m = len(set(shown) & model), len(set(shown) & sampled)
    assert 0 < n < len(shown) == 27 and m == 2
    for lang, view in views.items():
        line = view["how_check"]
        assert {"zh": f"27 条推导中，{n} 条", "en": f"for {n} of the 27"}[lang] in line, line
        assert {"zh": f"{m} 条用蒙特卡罗", "en": f"for {m} with a Monte Carlo"}[lang] in line
    # Adam's expectations (7.2–7.4) meet only the optimizer's recursion at a constant gradient,
    # not the NumPy model: the line says so
    recursion = {r["claim"] for r in data["crosschecks"] if r["kind"] == "closed-form"} - {
        r["claim"] for r in data["crosschecks"] if r["kind"] in ("identity", "finite-difference")}
    assert set(shown) & recursion
    for lang, view in views.items():
        line = view["how_check"]
        assert {"zh": "NumPy 模型或优化器的递推", "en": "NumPy model or with the optimizer's "
                "recursion"}[lang] in line and "可运行的模型" not in line, line


def test_the_count_of_model_comparisons_comes_from_the_data():
    s = i18n.ui("en")["student"]
    records = [{"claim": "a", "kind": "identity"}, {"claim": "b", "kind": "monte-carlo"},
               {"claim": "c", "kind": "finite-difference"}, {"claim": "c", "kind": "identity"}]
    line = student.how_check(s, ["a", "b", "c", "d"], records)
    assert "for 2 of the 4 derivations" in line and "for 1 with a Monte Carlo" in line
    assert "compared" not in student.how_check(s, ["a"], [])



# ----------------------------------------------------------------------------- step reasons
def test_no_step_reason_types_a_formula_as_words(views):
    """Every symbol of a step's reason is set as a formula, in both languages: the English
    7.6's "common denominator: g(g + λθ + ε) − …" and "factor ηλθ", the Chinese 5.6's
    「克罗内克 δ」 were words."""
    for lang, view in views.items():
        assert student_read.bare_formulas(view) == [], lang
    old = ["common denominator: g(g + λθ + ε) − (g + λθ)(g + ε) = −λθε", "factor ηλθ"]
    new = [prose("factor out $\\eta\\lambda\\epsilon$"),
           prose("克罗内克 $\\delta_{ij}$ 只留下 $i=j$ 的项")]
    page = {"topics": [{"parts": [{"type": "claim", "id": "x", "by_definition": None, "steps": [
        {"number": n, "rule": r} for n, r in enumerate(
            [Prose((old[0],)), Prose((old[1],)), prose("克罗内克 δ 只留下 $i=j$ 的项"), *new],
            start=1)]}]}]}
    assert [x[1] for x in student_read.bare_formulas(page)] == [1, 2, 3]


def test_layernorm_step_2_gives_the_reason_for_the_derivative_of_sigma(views):
    """6.2 step 2: ∂σ²/∂x_j = (2/d)Σ_l (x_l − μ)(δ_lj − 1/d) = 2(x_j − μ)/d since
    Σ_l (x_l − μ) = 0, then the chain rule gives ∂σ_ε/∂x_j = x̂_j/d; each equality checked
    with SymPy on d = 4."""
    for lang, view in views.items():
        claim = next(c for c in _claims(view).values() if c["id"] == "layernorm_xhat_derivative")
        rule = claim["steps"][1]["rule"].plain
        for term in (r"\partial\sigma^2/\partial x_j", r"\sum_l (x_l - \mu) = 0",
                     r"\frac{2}{d}(x_j - \mu)", r"\frac{1}{2\sigma_\varepsilon}",
                     r"\hat x_j/d"):
            assert term in rule, (lang, term)
        assert {"zh": "链式法则", "en": "chain rule"}[lang] in rule
    d = 4
    x, eps = sp.symbols("x1:5"), sp.Symbol("varepsilon", positive=True)
    mu = sum(x) / d
    var = sum((xl - mu) ** 2 for xl in x) / d
    sig = sp.sqrt(var + eps)
    for j in range(d):
        middle = sp.Rational(2, d) * sum((x[l] - mu) * (int(l == j) - sp.Rational(1, d))
                                         for l in range(d))
        assert sp.simplify(sp.diff(var, x[j]) - middle) == 0
        assert sp.simplify(middle - 2 * (x[j] - mu) / d) == 0
        assert sp.simplify(sp.diff(sig, x[j]) - (x[j] - mu) / sig / d) == 0
    assert sp.simplify(sum(xl - mu for xl in x)) == 0


# a by-definition reason that trails off into 「；$P_{ij}$ 与 $S_{ij}$ 的定义」
_FRAGMENT = re.compile(r"[；;]\s*(?:the definitions? of\s*)?(?:\$[^$]*\$\s*(?:与|、|and|,)?\s*)+"
                       r"(?:的定义)?\s*$")


def test_a_reason_given_by_definition_is_one_sentence(views):
    """4.1's 「由定义即得：」 reads as one sentence that names its matrices and the entry."""
    for lang, view in views.items():
        for c in _claims(view).values():
            if c["by_definition"]:
                assert not _FRAGMENT.search(c["by_definition"]["rule"].plain), (lang, c["id"])
        shapes = next(c for c in _claims(view).values() if c["id"] == "attention_shapes")
        assert r"\sum_{j=1}^{n_k} P_{ij}V_{jr}" in shapes["by_definition"]["rule"].plain
    for old in ("其第 $(i,c)$ 个元素是对 $n_{k}$ 个键 $j$ 求和 $P_{ij}V_{jc}$；"
                "$P_{ij}$ 与 $S_{ij}$ 的定义",
                "is a sum over the $m$ keys $j$ of $s_{ij}V_{jc}$; the definitions of $s_{ij}$ and "
                "$S_{ij}$"):
        assert _FRAGMENT.search(old), old


# ----------------------------------------------------------------------------- boxes and map
def _box(view, key):
    return next(it for t in view["topics"] for it in t["parts"] if it.get("id") == key)


def test_adam_s_step_of_eta_holds_for_the_first_step_and_theta_counts_from_0(views):
    """Box 7.2 says Adam's step is −η g₁/(|g₁| + ϵ) ≈ −η sign(g₁) for the first step (and
    steady gradients), not always; box 7.1 writes θ_t = θ_{t−1} − …, as d2l 11.10 and box 7.2
    (θ₀, then Δθ₁ from g₁) do. The first step is recomputed; a noisy run shows why the claim
    needs its condition."""
    for lang, view in views.items():
        words = _box(view, "second_order")["wrong"].plain
        assert r"-\eta g_1/(|g_1| + \epsilon)" in words, lang
        assert {"zh": "第一步", "en": "first step"}[lang] in words
        assert r"\eta\operatorname{sign}(g)$" not in words
        tex = " ".join(f.tex for t in view["topics"] if t["key"] == "adam"
                       for f in student_read.formulas(t))
        assert r"\theta_t=\theta_{t-1}" in tex and r"\theta_{t+1}" not in tex, lang
    eta, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8

    def steps(g):
        v = s = 0.0
        out = []
        for t, gt in enumerate(g, start=1):
            v, s = b1 * v + (1 - b1) * gt, b2 * s + (1 - b2) * gt ** 2
            out.append(-eta * (v / (1 - b1 ** t)) / (np.sqrt(s / (1 - b2 ** t)) + eps))
        return np.array(out)

    for kappa in (0.01, 100.0):  # box 7.2's counter: θ₀ = 1, g₁ = κθ₀
        assert steps([kappa])[0] == pytest.approx(-eta * kappa / (kappa + eps), rel=1e-12)
        assert steps([kappa])[0] == pytest.approx(-0.1, rel=1e-6)
    assert np.allclose(steps([2.0] * 50), -eta, rtol=1e-6)  # steady gradients: every step
    noisy = steps(np.random.default_rng(0).normal(0.3, 1.5, 200))
    assert np.mean(np.abs(noisy[20:])) < 0.5 * eta  # noisy: well below η


def test_chapter_3_gives_stability_as_the_first_reason_to_fuse(views):
    """Softmax and cross-entropy are computed together first for numerical stability (d2l 3.7,
    log-sum-exp), then for the gradient p − y; the identity is recomputed where the naive
    form overflows."""
    words = student_data.words()["chapter"]["cross_entropy"]["intro"]
    for lang in ("en", "zh"):
        intro = words[lang]
        lse = r"\log\sum_l e^{z_l} = a + \log\sum_l e^{z_l - a}"
        assert lse in intro and "3.7" in intro and r"a = \max_l z_l" in intro
        stable = intro.index({"zh": "数值稳定", "en": "numerical stability"}[lang])
        assert stable < intro.rindex("$p - y$")
        assert intro.index(lse) < intro.rindex("$p - y$")
    z = np.array([1000.0, 0.0, -5.0])
    a = z.max()
    with np.errstate(over="ignore"):
        assert not np.isfinite(np.log(np.sum(np.exp(z))))
    assert a + np.log(np.sum(np.exp(z - a))) == pytest.approx(1000.0 + np.log1p(np.exp(-1000)
                                                                           + np.exp(-1005)))


def test_the_notation_map_defines_its_signs_and_the_report_s_letters(views):
    """⊙ and 𝟏, a matrix's spectral norm (σ always a standard deviation), τ a position, ℓ^(b);
    and the letters the full report writes otherwise, each a renaming of render/student.toml
    [symbols]."""
    symbols = student_data.structure()["symbols"]
    renamed = {(old, new) for m in symbols.values() for old, new in m.items()}
    for old, new in (("s", "p"), ("s", "P"), ("m", "n_{k}"), ("dV", "G_{V}"),
                     ("dS", "G_{S}"), ("G", "G_{Y}")):
        assert (old, new) in renamed, (old, new)
    for lang, view in views.items():
        tex = " ".join(f.tex for f in student_read.formulas({"m": view["notation_map"]}))
        for term in (r"a\odot b", r"\mathbf{1}", r"\lVert A\rVert_2", r"\sigma_q", r"\tau",
                     r"\ell^{(b)}", "dV", "dS", "n_k"):
            assert term in tex, (lang, term)
        assert r"\min" not in tex and r"\max" not in tex, lang
        words = " ".join(x.plain for x in view["notation_map"])
        assert {"zh": "全 1 列向量", "en": "all-ones column vector"}[lang] in words
        assert {"zh": "按元素乘积", "en": "elementwise product"}[lang] in words
        assert {"zh": "最大奇异值", "en": "largest singular value"}[lang] in words


def test_symbols_stand_with_their_meaning_where_they_are_used(views):
    """E with its shape where it is introduced; F the residual branch where it is used (box 6.2,
    chapter 6's summary); R_i the rotation of position i (box 4.7); the mean ḡ subtracted from
    a vector as ḡ𝟏."""
    w = student_data.words()
    boxes = {b["id"]: b for b in w["box"]}
    for lang in ("en", "zh"):
        intro = w["chapter"]["embedding"]["intro"][lang]
        assert r"E \in \mathbb{R}^{|\mathcal{V}|\times d}" in intro
        summary = " ".join(x[lang] for x in w["chapter"]["residual"]["summary"])
        assert r"x + F(x)" in summary and r"g - \bar g\mathbf{1} - " in summary
        assert r"g - \bar g - " not in summary
        assert r"x + F(x)" in boxes["lossless"]["wrong"][lang]
        assert "F(X)" not in boxes["lossless"]["wrong"][lang]
        assert "$R_i$" in boxes["rope"]["wrong"][lang]


def test_the_wording_of_boxes_2_1_2_2_and_4_9(views):
    """2.1 says what saturates means there; 2.2's two sentences no longer read as contradicting;
    4.9's entries are sums of dot products plus a bias through φ (d2l 8.4), not a dot product."""
    boxes = {b["id"]: b for b in student_data.words()["box"]}
    said = {"zh": ("最大权重趋于 1", "雅可比矩阵趋于 0"), "en": ("largest weight nears 1",
                                                        "Jacobian nears 0")}
    for lang in ("en", "zh"):
        assert all(x in boxes["large_inputs"]["wrong"][lang] for x in said[lang])
        assert {"zh": "不只由差距决定", "en": "not decided by the gap alone"}[lang] not in \
            boxes["amplify"]["wrong"][lang]
        gpu = boxes["gpu"]["counter"][lang]
        assert "8.4" in gpu and {"zh": "两个点积之和", "en": "sum of two dot products"}[lang] in gpu
        assert "各是一个点积" not in gpu and "each a dot product" not in gpu


MECHANICAL = re.compile(r"下式左边|left side below")


def test_a_lead_writes_what_the_formula_below_starts_from(views):
    """A lead says what the derivation below computes (∂L/∂x_j = ∂/∂x_j Σ g_i x̂_i, the first
    minus the second), never 「即下式左边」 / "the left side below"."""
    for lang, view in views.items():
        assert [t for t in student_read.visible_text(view) if MECHANICAL.search(t)] == [], lang
        lead = next(c for t in view["topics"] for c in t["parts"]
                    if c.get("id") == "layernorm_grad_input")["lead"]["text"]
        assert any(p.tex.startswith(r"\partial L/\partial x_j = \frac{\partial}{\partial x_j}")
                   for p in lead.parts if hasattr(p, "tex")), lang
    old = prose(r"所以 $\partial L/\partial x_j$ 是 $\sum_i g_i\hat x_i$ 的导数，即下式左边。")
    assert [t for t in student_read.visible_text({"lead": old}) if MECHANICAL.search(t)]


def test_the_cross_entropy_is_written_in_one_order(views):
    """ℓ = log Σ_l e^{z_l} − z_c in the title of 3.1, its formula, the reason of 3.2's first
    step and the summary: never −z + log Σ beside log Σ − z."""
    first = re.compile(r"-\s*z_\{?[a-z]\}?\s*\+\s*\\log")
    for lang, view in views.items():
        topic = next(t for t in view["topics"] if t["key"] == "cross_entropy")
        said = [f.tex for f in student_read.formulas(topic)]
        assert [f for f in said if first.search(f)] == [], lang
        claim = _claims(view)["cross_entropy_log_softmax"]
        title = " ".join(p.tex for p in claim["title"].parts if hasattr(p, "tex"))
        assert re.search(r"\\log\\sum_l e\^\{z_l\}\s*-\s*z_", title), title
    assert first.search(r"-\log p_k=-z_k+\log\sum_l e^{z_l}")
    assert not first.search(r"\log\sum_l e^{z_l}-z_k")
