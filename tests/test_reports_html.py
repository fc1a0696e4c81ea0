"""HTML renderer: static KaTeX markup, escaping, assets, and the errors it must raise."""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path

import jinja2
import pytest

from reports.render import html, katex, plots
from reports.render.katex import FormulaError, Tex
from reports.view import edition, model

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="Node.js is needed to typeset the HTML report")



def figures() -> list[dict]:
    return [{"name": n} for n, _ in plots.FIGURES]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, data) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("html")
    html.render(edition.build_view(data, figures(), "zh"), out)  # the page the switch links to
    index = html.render(edition.build_view(data, figures()), out)
    return out, index.read_text(encoding="utf-8")


def visible_markup(page: str) -> str:
    """The page without MathML annotations (KaTeX keeps the source TeX there, hidden)."""
    return re.sub(r"<annotation[^>]*>.*?</annotation>", "", page, flags=re.S)


def test_every_formula_is_static_katex_markup(rendered, data):
    _, page = rendered
    view = edition.build_view(data, figures())
    typeset = html.typeset(view)
    # every formula of the view is on the page as KaTeX markup, and nothing else is KaTeX
    assert [t.label for t in edition.formulas(view) if typeset[t] not in page] == []
    assert page.count('<span class="katex">') >= len(typeset)
    shown = visible_markup(page)
    for raw in ("\\frac", "\\begin{", "\\operatorname", "\\mathbb", "\\top"):
        assert raw not in shown, f"raw TeX {raw!r} outside KaTeX annotations"
    assert "katex-error" not in page
    assert "<script" not in page.lower()


def test_quote_with_markup_and_percent_is_escaped(rendered):
    _, page = rendered
    assert "&lt;script&gt;alert(1)&lt;/script&gt; 约 100%" in page
    assert "缩放因子取 1/d_k" in page


def test_no_reference_leaves_the_folder(rendered):
    out, page = rendered
    refs = re.findall(r'(?:href|src)="([^"]+)"', page)
    assert refs
    for ref in refs:
        assert not re.match(r"^[a-z]+:", ref) and not ref.startswith("//"), ref
        if not ref.startswith("#") and not ref.startswith("figures/"):
            assert (out / ref).is_file(), f"{ref} referenced but not written"


def test_katex_assets_are_woff2_only_and_present(rendered):
    out, _ = rendered
    css = (out / "katex" / "katex.min.css").read_text(encoding="utf-8")
    urls = re.findall(r"url\(([^)]+)\)", css)
    assert urls and all(u.endswith(".woff2") for u in urls), urls
    for url in urls:
        assert (out / "katex" / url).is_file(), url


def test_summary_links_each_claim_and_flags_failure(rendered, data):
    _, page = rendered
    for claim in data["claims"]:
        assert f'href="#claim-{claim["id"]}"' in page
        assert f'id="claim-{claim["id"]}"' in page
    assert '<section class="claim claim-failed" id="claim-scaled_variance_wrong">' in page
    assert 'class="alert" role="alert"' in page
    assert "FAILED at step 2" in page
    assert "Counterexample" in page and "<code>d_k = 4</code>" in page


def test_a_formula_is_typeset_once_for_every_place_and_edition(data):
    views = [edition.build_view(data, figures(), lang) for lang in ("en", "zh")]
    every = [t for v in views for t in edition.formulas(v)]
    both = html.typeset(*views)
    assert len(both) == len({(t.tex, t.display) for t in every}) < len(every)
    alone = html.typeset(views[1])
    assert all(both[t] == alone[t] for t in edition.formulas(views[1]))


def test_malformed_formula_fails_naming_it(data, tmp_path):
    bad = copy.deepcopy(data)
    bad["claims"][1]["steps"][2]["latex"] = r"\frac{\mathbb{E}[q_i^2]"
    with pytest.raises(FormulaError) as err:
        html.render(edition.build_view(bad, figures()), tmp_path)
    message = str(err.value)
    assert "claim 'dot_product_variance' step 2" in message
    assert r"\frac{\mathbb{E}[q_i^2]" in message
    assert not (tmp_path / "index.html").exists()


def test_unknown_command_and_bare_unicode_are_errors():
    with pytest.raises(FormulaError, match="nosuchmacro"):
        katex.render_all([Tex(r"x + \nosuchmacro{y}", False, "probe")])
    with pytest.raises(FormulaError, match="probe-cjk"):
        katex.render_all([Tex("中文 = 1", False, "probe-cjk")])
    ok = katex.render_all([Tex(r"\text{中文} \operatorname*{argmax}_x \sim \mathbb{R}", True)])
    assert "katex-display" in ok[0] and "中文" in ok[0]


def test_environment_is_strict_and_autoescaping():
    env = html.environment()
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ missing }}").render()
    assert env.from_string("{{ x }}").render(x="<b>&") == "&lt;b&gt;&amp;"
    assert env.autoescape("report.html.j2") is True


def test_math_filter_rejects_plain_strings(data, tmp_path):
    view = edition.build_view(data, figures())
    view["claims"][0]["statement"] = r"\frac{a}{b}"
    with pytest.raises(TypeError, match="expected Tex"):
        html.render(view, tmp_path)


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.pop("errata"), "missing key 'errata'"),
        (lambda d: d["claims"][0].update(status="ok"),
         "claims[0].status: expected one of ['proved', 'numeric', 'timed out', 'failed'], "
         "got 'ok'"),
        (lambda d: d["claims"][4].update(failed_step=None), "status 'failed' needs failed_step"),
        (lambda d: d["claims"][0]["steps"][0].update(points="8"),
         "claims[0].steps[0].points: expected int, got str"),
        (lambda d: d["crosschecks"][0].update(claim="nope"),
         "crosschecks[0].claim: expected one of the claim ids, got 'nope'"),
        (lambda d: d["crosschecks"][0].update(passed=1),
         "crosschecks[0].passed: expected bool, got int"),
        (lambda d: d["errata"]["records"][0].update(verdict="wrong"),
         "errata.records[0].verdict: expected one of"),
        (lambda d: d["claims"].append(copy.deepcopy(d["claims"][0])), "duplicate id"),
        (lambda d: d["errata"]["records"][0].update(see_also="softmax_jacobian"),
         "errata.records[0].see_also: expected list of claim ids, got 'softmax_jacobian'"),
        (lambda d: d["claims"][0].update(definitions={"s": "s_i"}),
         "claims[0].definitions: expected list, got dict"),
        (lambda d: d["claims"][0].update(definitions=[{"name": "s", "latex": "s_i"}]),
         "claims[0].definitions[0]: missing key 'text' (expected str)"),
        (lambda d: d["claims"][0].pop("conditions"),
         "claims[0]: missing key 'conditions' (expected list)"),
        (lambda d: d["claims"][0]["conditions"][0].update(kind="axiom"),
         "claims[0].conditions[0].kind: expected one of ['symbol', 'hypothesis', 'index', "
         "'sampled', 'random'], got 'axiom'"),
        (lambda d: d["claims"][1]["conditions"][1].pop("distribution"),
         "claims[1].conditions[1]: missing key 'distribution'"),
        (lambda d: d["claims"][0]["conditions"].append("n > 0"),
         "claims[0].conditions[3]: expected dict, got str"),
    ],
)
def test_bad_report_data_names_expected_and_got(data, mutate, expected):
    bad = copy.deepcopy(data)
    mutate(bad)
    with pytest.raises(model.ReportDataError) as err:
        model.validate(bad)
    assert expected in str(err.value)


def test_fixture_is_valid(data):
    model.validate(data)


def section(page: str, start: str, end: str) -> str:
    assert start in page, f"expected {start!r} in the page"
    return page.split(start, 1)[1].split(end, 1)[0]


def test_correct_claim_is_one_compact_row_with_its_reason(rendered):
    _, page = rendered
    checked = section(page, '<h3 id="errata-checked">', "</section>")
    rows = re.findall(r'<li id="(erratum-[^"]+)" class="verdict-([a-z-]+)">(.*?)</li>', checked,
                      re.S)
    assert [(a, v) for a, v, _ in rows] == [("erratum-note2-softmax", "correct")]
    row = rows[0][2]
    reason = "The note&#39;s Jacobian matches the derived one entry by entry."
    assert f'<span class="reason"> {reason}</span>' in row  # " ": sentence_sep in English
    # The quote is the locator: shown escaped, & included, next to note, verdict and pass/fail.
    assert ('<q class="note-quote" lang="zh">softmax 的导数是 s_i(δ_ij − s_j) &amp; 对角阵减外积'
            '</q>') in row
    assert "badge-correct" in row and "badge-pass" in row
    assert '<a href="#claim-softmax_jacobian"' in row  # its evidence is a claim of the report
    # the evidence is a readable line on the page, not a tooltip, and names what was compared
    assert '<span class="evidence-line">' in row and "title=" not in row
    assert "《lecture2.md》" in checked  # a note without a registered title keeps its file name
    assert page.count('id="erratum-note2-softmax"') == 1
    assert '<article class="erratum verdict-correct"' not in page


def test_errors_and_imprecisions_are_shown_side_by_side_in_full(rendered):
    _, page = rendered
    full = section(page, '<h3 id="errata-corrections">', '<h3 id="errata-checked">')
    articles = re.findall(r'<article class="erratum verdict-([a-z-]+)" id="([^"]+)">', full)
    assert articles == [("error", "erratum-note1-scale"), ("imprecise", "erratum-note3-residual")]
    for body in full.split("<article")[1:]:
        heads = re.findall(r"<h5>([^<]+)</h5>", body)
        assert heads == ["The notes say", "Correction", "Why", "Evidence"]
        assert body.count('<span class="katex">') >= 2  # the note's formula, the correction
    scale = section(full, 'id="erratum-note1-scale"', "</article>")
    assert "The scale is 1/sqrt(d_k); dividing by d_k gives variance 1/d_k." in scale
    assert '<a href="#claim-scaled_variance_wrong">' in scale


def test_errata_summary_counts_verdicts_per_note(rendered):
    _, page = rendered
    table = section(page, '<table class="errata-summary">', "</table>")
    assert re.findall(r'<th class="num">([a-z -]+)</th>', table) == ["correct", "error",
                                                                      "imprecise"]
    cells = re.findall(r'<tr><td><a href="#note-[^"]+">《([^<]+)》</a>(.*?)</tr>', table, re.S)
    counts = {note: re.findall(r'<td class="num">(\d+)</td>', rest) for note, rest in cells}
    assert counts == {"lecture1.md": ["0", "1", "0"], "lecture2.md": ["1", "0", "0"],
                      "lecture3.md": ["0", "0", "1"]}
    assert re.findall(r'<td class="num">(\d+)</td>', section(table, "<tfoot>", "</tfoot>")) == \
        ["1", "1", "1"]
    # each error and imprecision is one click from the top
    assert '<a href="#erratum-note1-scale" class="v-error" title="note1-scale">' in table


def test_errata_views_put_errors_first_and_group_checked_rows_by_note(data):
    bad = copy.deepcopy(data)
    first = copy.deepcopy(bad["errata"]["records"][2])  # an imprecision, now listed first
    bad["errata"]["records"].insert(0, dict(first, id="note0-first", note="lecture9.md"))
    bad["errata"]["records"].append(dict(bad["errata"]["records"][2], id="note1-out",
                                         verdict="out-of-scope", note="lecture1.md"))
    view = edition.build_view(bad, figures())
    assert [(e["verdict"], e["id"]) for e in view["errata"]] == [
        ("error", "note1-scale"), ("imprecise", "note0-first"), ("imprecise", "note3-residual")]
    assert [(g["note"], [r["id"] for r in g["rows"]]) for g in view["errata_checked"]] == [
        ("lecture1.md", ["note1-out"]), ("lecture2.md", ["note2-softmax"])]
    assert [g["anchor"] for g in view["errata_checked"]] == ["note-lecture1-md",
                                                               "note-lecture2-md"]


def _with_evidence_view(data: dict) -> dict:
    """The fixture's error record with the audit's evidence view: the note's version failing
    next to the correction passing, each with its numbers."""
    rich = copy.deepcopy(data)
    rec = rich["errata"]["records"][0]
    assert rec["verdict"] == "error"
    rec["evidence"]["rows"] = [
        {"version": "note", "label": {"en": "variance after dividing by d_k",
                                      "zh": "除以 d_k 后的方差"},
         "value": "0.0156 at d_k = 64 (should be 1)", "math": r"\operatorname{Var} = 1/d_k",
         "passed": False},
        {"version": "correction", "label": {"en": "variance after dividing by √d_k",
                                            "zh": "除以 √d_k 后的方差"},
         "value": "1.002 at d_k = 64", "math": "", "passed": True},
    ]
    rec["evidence"]["summary"] = {"en": "The note's scale fails; the correction holds.",
                                  "zh": "讲义的缩放不成立；更正成立。"}
    return rich


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_error_card_shows_the_note_failing_next_to_the_correction_passing(data, tmp_path, lang):
    view = edition.build_view(_with_evidence_view(data), figures(), lang)
    html.render(view, tmp_path)
    page = (tmp_path / view["file"]).read_text(encoding="utf-8")
    card = section(page, 'id="erratum-note1-scale"', "</article>")
    note = section(card, '<li class="ev-note">', "</li>")
    corr = section(card, '<li class="ev-correction">', "</li>")
    assert "badge-fail" in note and "0.0156 at d_k = 64" in note and "katex" in note
    assert "badge-pass" in corr and "1.002 at d_k = 64" in corr
    label = "除以 d_k 后的方差" if lang == "zh" else "variance after dividing by d_k"
    assert f"<strong>{label}</strong>" in note
    assert ("讲义的缩放不成立" if lang == "zh" else "The note&#39;s scale fails") in card
    assert "not run separately" not in card and "未单独运行" not in card


def test_evidence_view_with_a_wrong_version_is_refused(data):
    bad = _with_evidence_view(data)
    bad["errata"]["records"][0]["evidence"]["rows"][0]["version"] = "paper"
    with pytest.raises(model.ReportDataError,
                       match=r"evidence.rows\[0\].version: expected one of \['note'"):
        model.validate(bad)


def test_monte_carlo_row_shows_its_power(data, tmp_path):
    rich = copy.deepcopy(data)
    rec = next(r for r in rich["crosschecks"] if r["claim"] == "dot_product_variance")
    rec.update(kind="monte-carlo", power={"formula": "2d_k", "value": 8.03, "would_fail": True})
    view = edition.build_view(rich, figures())
    row = next(x for c in view["claims"] for g in c["check_groups"] for x in g["rows"]
               if x["id"] == rec["id"] and c["id"] == "dot_product_variance")
    assert row["power"]["value"] == "8.03" and row["power"]["would_fail"]
    page = html.render(view, tmp_path).read_text(encoding="utf-8")
    assert "a wrong formula would give" in page and "= 8.03 and fail" in page


E_NOTATION = re.compile(r"\d\.?\d*e[-+]\d")


def test_table_numbers_are_set_as_powers_of_ten_not_e_notation(rendered, data):
    _, page = rendered
    table = "".join(re.findall(r'<table class="crosschecks">.*?</table>', page, flags=re.S))
    assert table
    assert E_NOTATION.findall(visible_markup(table)) == []
    assert E_NOTATION.findall("<td>3.200e-10</td><td>1e-05</td>") == ["3.200e-1", "1e-0"]
    assert re.search(r"<td class=\"num[^\"]*\">\d(\.\d+)?&#8202;×&#8202;10<sup>−\d+</sup></td>",
                     table), "a small error is written as m × 10⁻ᵉ"
    assert model.number_view(3.2e-10) == {"m": "3.2", "e": -10}
    assert model.number_view(0.046) == {"m": "0.046", "e": None}
    assert model.number_view(9.996e-5) == {"m": "1", "e": -4}


def test_the_chinese_step_lines_use_full_width_punctuation(rendered):
    out, _ = rendered
    page = (out / "index.zh.html").read_text(encoding="utf-8")
    lines = re.findall(r'<span class="checks">(.*?)</span>', page)
    assert lines
    plain = [re.sub(r"<[^>]+>", "", line) for line in lines]

    def half_width(p: str) -> bool:
        return ": " in p or " (" in p
    assert [p for p in plain if half_width(p)] == []
    assert half_width("符号: 差为零 · 数值: 一致 (20 个点)")  # the old line is caught
    assert all("：" in p and p.endswith("个点）") for p in plain), plain[:3]


def test_the_jump_list_names_each_erratum_by_where_it_stands(data, tmp_path):
    placed = copy.deepcopy(data)
    records = placed["errata"]["records"]
    records[0]["line"] = 12
    records[2]["locator"] = {"unit": "sentence", "sentence": 31}
    view = edition.build_view(placed, figures(), "zh")
    labels = {e["id"]: e["label"] for row in view["notes_summary"]["rows"] for e in row["full"]}
    assert labels == {"note1-scale": "第 12 行", "note3-residual": "第 31 句"}
    page = html.render(view, tmp_path).read_text(encoding="utf-8")
    jump = "".join(re.findall(r'<span class="jump">(.*?)</span>', page))
    assert 'title="note1-scale">第 12 行</a>' in jump
    assert "note3-residual" not in re.sub(r'<[^>]*>', "", jump)  # visible text only
