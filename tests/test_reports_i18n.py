"""Both editions say everything: every claim text has a Chinese twin, every interface string
both languages, no step looks like its neighbour, and no prose carries ASCII pseudo-TeX."""

from __future__ import annotations

import re

import pytest

import derivations
from derivations.engine.core.printing import latex, legend
from reports.render import html, i18n
from reports.render import latex as tex_render
from reports.render.katex import Code, FormulaError, Tex, prose


def claim_records() -> list[dict]:
    """The fields the report shows, straight from the derivation objects (nothing verified),
    printed as the report prints them."""
    out = []
    for d in derivations.claims():
        defined = d.definitions_used
        out.append({
            "id": d.id, "title": d.title,
            "steps": [{"index": i, "rule": s.rule, "latex": latex(s.expr, defined)}
                      for i, s in enumerate(d.steps, 1)],
            "assumptions": [{"name": a.name, "text": a.text, "kind": a.kind, "latex": a.latex}
                            for a in d.assumptions],
            "definitions": legend(defined),
            "premises": {a.name: "" for a in d.assumptions if a.source is not None},
            "statement_lhs": latex(d.lhs, defined),
        })
    return out


@pytest.fixture(scope="module")
def claims() -> list[dict]:
    return claim_records()


def test_every_claim_field_has_a_chinese_text(claims):
    gaps = i18n.missing_claim_fields(claims)
    assert gaps == [], ("untranslated claim fields (add them to reports/render/i18n/"
                        "claims.toml):\n" + "\n".join(gaps))


def test_a_missing_translation_is_named_by_claim_and_field():
    fake = [{"id": "no_such_claim", "title": "A new claim", "premises": {},
             "steps": [{"index": 1, "rule": "a brand-new reason"}],
             "assumptions": [{"name": "fresh", "text": "fresh text", "kind": "hypothesis"}]}]
    gaps = i18n.missing_claim_fields(fake)
    assert gaps == [
        "claim no_such_claim: title 'A new claim' has no zh",
        "claim no_such_claim: rule of step 1 'a brand-new reason' has no zh",
        "claim no_such_claim: assumption name 'fresh' has no zh",
        "claim no_such_claim: assumption text of 'fresh' has no zh",
    ]
    # ...and the renderer falls back to the English, marked, instead of failing silently
    text = i18n.rule("no_such_claim", "a brand-new reason", "zh")
    assert text == i18n.Text("a brand-new reason", missing=True, engine=True)


def test_every_interface_string_exists_in_both_languages():
    en, zh = i18n.ui("en"), i18n.ui("zh")
    assert en.keys() == zh.keys()
    for section in en:
        assert en[section].keys() == zh[section].keys(), section
        # a separator may be empty where a language needs none (no space between Chinese
        # sentences); every other string has words in both
        empty = [k for k in en[section] if not en[section][k]
                 or not zh[section][k] and not k.endswith("_sep")]
        assert empty == [], f"[{section}] empty strings: {empty}"


def test_interface_record_without_a_language_is_refused(monkeypatch):
    monkeypatch.setattr(i18n, "ui_data", lambda: {"meta": {"title": {"en": "Only English"}}})
    with pytest.raises(i18n.TranslationError, match=r"\[meta\] title: expected \{en, zh\}"):
        i18n.ui("zh")


def test_no_two_consecutive_steps_render_identically(claims):
    same = []
    for c in claims:
        # step 0 is the statement's left side; then each step as printed
        texts = [c["statement_lhs"]] + [s["latex"] for s in c["steps"]]
        same += [f"{c['id']}: steps {i - 1} and {i} both print {texts[i][:60]!r}"
                 for i in range(1, len(texts)) if texts[i] == texts[i - 1]]
    assert same == [], "\n".join(same)


def test_a_missing_definition_text_is_named():
    fake = [{"id": "no_such_claim", "title": "A new claim", "premises": {}, "steps": [],
             "assumptions": [], "definitions": [{"name": "ν", "latex": r"\nu := 1",
                                                 "text": "a brand-new quantity"}]}]
    assert i18n.missing_claim_fields(fake) == [
        "claim no_such_claim: title 'A new claim' has no zh",
        "claim no_such_claim: definition 'ν' ('a brand-new quantity') has no zh"]


# x_i, d_k, σ_ε, x̂_j, mu_q, sqrt(, ^T, e^M, m_hat: what TeX looks like when it is not typeset
PSEUDO_TEX = re.compile(r"[A-Za-zα-ωΑ-Ω\u0300-\u036f′]_[A-Za-z0-9{α-ω]|sqrt\(|\^[A-Za-z0-9{(]"
                        r"|_hat|\bmu_|\bsigma_")


def _prose_text(text: str) -> str:
    return "".join(p for p in prose(text).parts if isinstance(p, str))


def test_no_pseudo_tex_outside_math(claims):
    found = []
    for lang in i18n.LANGS:
        for section, entries in i18n.ui(lang).items():
            if section == "notes":
                continue  # note titles are the notes' own
            for key, text in entries.items():
                if PSEUDO_TEX.search(_prose_text(text)):
                    found.append(f"ui [{section}] {key} ({lang}): {text[:60]!r}")
        for c in claims:
            cid = c["id"]
            texts = [("title", i18n.title(cid, c["title"], lang).text)]
            texts += [(f"rule {s['index']}", i18n.rule(cid, s["rule"], lang).text)
                      for s in c["steps"]]
            for a in c["assumptions"]:
                if a["name"] not in c["premises"]:
                    name, text = i18n.assumption(cid, a["name"], a["text"], lang)
                    texts += [(f"assumption {a['name']!r}", text.text)]
            found += [f"claim {cid} {field} ({lang}): {t[:60]!r}" for field, t in texts
                      if PSEUDO_TEX.search(_prose_text(t))]
    assert found == [], "\n".join(found)


def test_pseudo_tex_check_catches_ascii_math():
    for bad in ("cancel d_k", "sqrt(d_k)", "m_hat", "q^T k", "E[q_m] = mu_q", "R(θ_m) q", "x̂_j",
                "e^M → 0"):
        assert PSEUDO_TEX.search(_prose_text(bad)), bad
    assert not PSEUDO_TEX.search(_prose_text(r"cancel $d_k$ and $\sqrt{d_k}$"))


def test_prose_splits_inline_math_and_refuses_an_open_dollar():
    p = prose(r"cancel $d_k$, cost \$5")
    assert p.parts == ("cancel ", Tex("d_k", False, ""), ", cost $5")
    with pytest.raises(FormulaError, match="unclosed"):
        prose("cancel $d_k")


def test_prose_sets_backquoted_names_as_code_in_both_renderers():
    p = prose(r"gradient of `h.0.attn.w_q` vs $X^\top G$, price \$5 in `a$b`")
    assert p.parts == ("gradient of ", Code("h.0.attn.w_q"), " vs ",
                       Tex(r"X^\top G", False, ""), ", price $5 in ", Code("a$b"))
    assert "h.0.attn.w_q" in p.plain
    page = html.prose_markup(p, {Tex(r"X^\top G", False, ""): "[formula]"}, "untranslated")
    assert page == ("gradient of <code>h.0.attn.w_q</code> vs [formula], price $5 in "
                    "<code>a$b</code>")
    assert tex_render.prose(prose("`w_o` of it")) == r"\texttt{w\_\allowbreak{}o} of it"
    with pytest.raises(FormulaError, match="unclosed `"):
        prose("gradient of `wte")


WORDS_IN_MATH = re.compile(r"\\text\{[^}]*[A-Za-z]{3,}[^}]*\}")


def test_words_inside_assumption_formulas_are_translated(claims):
    untranslated = [f"claim {c['id']}: assumption {a['name']!r} formula {a['latex'][:50]!r}"
                    for c in claims for a in c["assumptions"]
                    if WORDS_IN_MATH.search(i18n.assumption_latex(c["id"], a["name"],
                                                                  a["latex"], "zh"))]
    assert untranslated == [], "\n".join(untranslated)
    assert WORDS_IN_MATH.search(r"x\ \text{mutually independent}")


def test_every_shipped_module_has_a_section_name_of_its_own():
    # a module without one falls back to "Other derivations", and eleven sections were named so
    from derivations.library import modules

    for lang in i18n.LANGS:
        topics = i18n.ui(lang)["topic"]
        unnamed = [name for name, _ in modules() if name not in topics]
        assert unnamed == [], f"{lang}: no section name for {unnamed}"
        names = [topics[name] for name, _ in modules()]
        assert len(set(names)) == len(names), f"{lang}: two sections share a name"
