"""The student edition's words against what they stand for: the loss L and its linear stand-in
L̃, the RoPE box against its audit record and the note, the d2l edition whose section numbers it
cites (and those sections on d2l.ai 1.0), the full report's letters, and the small wordings of
boxes and answers. Each checker also runs on the earlier wording, which it must refuse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reports.render import i18n
from reports.render.katex import Tex
from reports.render.katex import prose as inline_prose
from reports.view import student, student_data, student_read
from tests.student_fixture import FIGURES, META, edition_data, edition_views, parts

NOTES = Path(__file__).resolve().parents[1].parent / "shared" / "notes"  # as test_audit
STAND_IN = ("embedding_grad_one_hot", "linear_grad_weight", "linear_grad_input",
            "linear_grad_bias")


data = pytest.fixture(scope="module", name="data")(edition_data)
views = pytest.fixture(scope="module", name="views")(edition_views)


def _parts(view, kind):
    return parts(view, kind)


def _box(view, bid):
    return next(b for b in _parts(view, "box") if b["id"] == bid)


# ----------------------------------------------------------------------------- L and L̃
_BARE_L = re.compile(r"(?<![A-Za-z\\{])L(?![A-Za-z])")


def loss_defined_as_trace(view) -> list[str]:
    """The derivations that define the loss L itself (not a stand-in L̃) as a trace: L is the
    loss across the edition, and tr(G_YᵀY) with G_Y held constant is only its linear stand-in."""
    return [c["id"] for c in _parts(view, "claim") for d in c["definitions"]
            if _BARE_L.match(d["tex"].tex.lstrip("{ ")) and r"\operatorname{tr}" in d["tex"].tex]


def test_the_linear_stand_in_is_not_the_loss(views, monkeypatch, data):
    said = {"en": "linear stand-in", "zh": "线性替代"}
    for lang, view in views.items():
        assert loss_defined_as_trace(view) == [], lang
        claims = {c["id"]: c for c in _parts(view, "claim")}
        for cid in STAND_IN:
            c = claims[cid]
            assert c["proved"], cid
            (d,) = [d for d in c["definitions"] if r"\operatorname{tr}" in d["tex"].tex]
            assert d["tex"].tex.startswith(r"\tilde{L} :="), d["tex"].tex
            assert said[lang] in d["text"].plain, (lang, cid)
            assert c["statement"][0]["tex"].tex.startswith(r"\frac{\partial \tilde{L}}"), cid
        # where the stand-in is introduced, the loss's gradient is said to be the stand-in's
        linear = next(t for t in view["topics"] if t["key"] == "linear")
        lead = claims["embedding_grad_one_hot"]["lead"]["text"]
        tex = [p.tex for p in linear["intro"].parts if isinstance(p, Tex)]
        assert r"\partial L/\partial W = \partial\tilde L/\partial W" in tex, lang
        assert r"\partial L/\partial E = \partial\tilde L/\partial E" in \
            [p.tex for p in lead.parts if isinstance(p, Tex)], lang
        # L̃ is a letter of the legend's L, in the chapters the legend gives it
        assert student_read.misused_letters(view) == [], lang
    # the earlier page: the claims' own L, defined as the trace
    symbols = {k: {o: n for o, n in v.items() if o != "L"}
               for k, v in student_data.structure()["symbols"].items()}
    monkeypatch.setattr(student, "structure",
                        lambda: {**student_data.structure(), "symbols": symbols})
    old = student.build_view(data, FIGURES, "en", META)
    assert sorted(loss_defined_as_trace(old)) == sorted(STAND_IN)


def test_a_definition_s_words_name_one_of_its_definitions(data, monkeypatch):
    words = student_data.words()
    wrong = {**words, "definition": {"linear_grad_weight": {"Z": {"en": "x", "zh": "x"}}}}
    monkeypatch.setattr(student, "words", lambda: wrong)
    with pytest.raises(student.StudentError, match="expected the names of its definitions"):
        student.build_view(data, FIGURES, "en", META)
    with pytest.raises(student.StudentError, match="expected a claim the edition shows"):
        student_data.validate_words({**words, "definition": {"nope": {}}})


# ----------------------------------------------------------------------------- box 4.7
def rope_box_problems(box: dict, rec: dict) -> list[str]:
    """Where the RoPE box and its audit record disagree: the box quotes the record's words,
    has its verdict, and says, as the record does, that the words are right (加入 is "bring
    in") and that what misleads is the place under the input layer."""
    out = []
    if [q["quote"].plain for q in box["quotes"]] != [rec["quote"]]:
        out.append("quote")
    if box["kind"] != rec["verdict"]:
        out.append("verdict")
    wrong = box["wrong"].plain
    if not (wrong.startswith(("这句话本身没有错", "The sentence itself is right"))
            and ("输入层" in wrong or "input layer" in wrong) and "d2l 10.6" in wrong):
        out.append("wrong")
    if not (rec["reason"].startswith("The words are right")
            and rec["reason_zh"].startswith("这句话的措辞没有错")):
        out.append("reason")
    return out


def test_the_rope_box_says_what_its_record_says(views, data):
    rec = next(r for r in data["errata"]["records"] if r["id"] == "n002-rope")
    for view in views.values():
        assert rope_box_problems(_box(view, "rope"), rec) == []
    # the quote is the note's own words
    assert rec["quote"] == "旋转位置编码。把位置信息加入。"
    if NOTES.is_dir():
        assert rec["quote"] in (NOTES / rec["note"]).read_text(encoding="utf-8")
    # the earlier box blamed the word 添加 itself
    old = {**_box(views["zh"], "rope"), "wrong": inline_prose(
        "d2l 10.6 节的正弦位置编码确实是在输入层与词元嵌入相加的，这没有错。旋转位置编码是另一种"
        "做法，这句说法错在说它“添加”位置信息，好像它也加在输入上", "old")}
    assert rope_box_problems(old, rec) == ["wrong"]
    assert rope_box_problems(_box(views["en"], "rope"), {**rec, "quote": "把位置信息添加"}) \
        == ["quote"]


def test_the_rope_counterexample_keeps_the_row_vector_convention():
    box = next(b for b in student_data.words()["box"] if b["id"] == "rope")
    for lang in ("en", "zh"):
        counter = box["counter"][lang]
        assert r"q = W_Q^\top x" in counter and r"k = W_K^\top x" in counter, lang
        assert "W_Qx" not in counter and "W_Kx" not in counter


# ----------------------------------------------------------------------------- d2l editions
# d2l-zh 2.0.0 (and d2l-en 0.17.6, numbered alike) against d2l-en 1.0.3, read from the
# tables of contents (index.md of each chapter) of d2l-ai/d2l-zh and d2l-ai/d2l-en
D2L_1_0 = {"2.3": "2.3", "3.1": "3.1", "3.4": "4.1", "3.7": "4.5", "4.5": "3.7", "4.7": "5.3",
           "7.5": "8.5", "7.6": "8.6", "8.2": "9.2", "8.4": "9.4", "9.7": "10.7",
           "10.3": "11.3", "10.5": "11.5", "10.6": "11.6", "10.7": "11.7", "10.7.3": "11.7.3",
           "11.10": "12.10"}
_SECTION = r"\d+\.\d+(?:\.\d+)?"
_CITED = re.compile(r"d2l(?:’s|'s)?,?\s*\(?(?:sections?\s+)?(" + _SECTION
                    + r"(?:(?:,\s*|\s+and\s+)" + _SECTION + r")*)")


def cited_sections(view) -> set[str]:
    """The d2l sections the edition cites: its chapters' 「In d2l」 lines, and a number after
    「d2l」 in its words (d2l 10.6, d2l's (sections 7.5 and 10.7.3))."""
    out = {m for t in view["topics"] for m in re.findall(_SECTION, t["d2l"].plain)}
    for text in student_read.visible_text(view):
        for m in _CITED.finditer(text):
            out |= set(re.findall(_SECTION, m.group(1)))
    return out


def unmapped_sections(view, sentence: str) -> set[str]:
    """The cited sections that ``sentence`` does not give with their d2l.ai 1.0 number
    (「3.4 is 4.1」, or among those that 「keep their numbers」), or gives wrongly."""
    pairs = dict(re.findall(rf"({_SECTION}) is ({_SECTION})", sentence))
    kept = re.search(r"((?:" + _SECTION + r"(?:, | and )?)+) keep their numbers", sentence)
    pairs |= {x: x for x in re.findall(_SECTION, kept.group(1))} if kept else {}
    return {x for x in cited_sections(view) if pairs.get(x) != D2L_1_0.get(x, "?")}


def test_the_d2l_edition_is_named_and_mapped_to_d2l_ai_1_0(views):
    en = i18n.ui("en")["student"]["how_d2l"]
    zh = i18n.ui("zh")["student"]["how_d2l"]
    assert "zh.d2l.ai" in en and "0.17" in en and "1.0" in en
    assert "第二版" in zh and "中文网站" in zh
    cited = cited_sections(views["en"])
    assert {"3.4", "9.7", "10.6", "10.7.3", "11.10"} <= cited <= set(D2L_1_0), cited
    assert unmapped_sections(views["en"], en) == set()
    # the earlier page named no edition; a wrong or missing number is found
    assert unmapped_sections(views["en"], "") == cited
    assert unmapped_sections(views["en"], en.replace("11.10 is 12.10", "11.10 is 11.10")) \
        == {"11.10"}
    for view in views.values():  # on the first page, in the reading notes of both pages
        assert view["s"]["how_d2l"]


def test_chapter_1_cites_the_embedding_layer_of_d2l_9_7(views):
    for lang, view in views.items():
        line = view["topics"][0]["d2l"].plain
        assert "9.7" in line and "8.2" in line, lang


# ----------------------------------------------------------------------------- the report
def missing_report_letters(view) -> list[str]:
    """The full report's letters that the notation map does not give beside this edition's:
    the gradients through attention (dO … dK), the stand-in L (here L̃), the target class k."""
    tex = " ".join(f.tex for f in student_read.formulas({"m": view["notation_map"]}))
    symbols = student_data.structure()["symbols"]
    wanted = {old for m in symbols.values() for old, new in m.items()
              if re.fullmatch(r"d[A-Z]", old)} | {"dA", r"\tilde L", r"\bar a", "k", "C"}
    return sorted(x for x in wanted if not re.search(r"(?<![A-Za-z\\_{])" + re.escape(x)
                                                     + r"(?![A-Za-z])", tex))


def test_the_notation_map_gives_the_full_report_s_letters(views):
    for view in views.values():
        assert missing_report_letters(view) == []
    old = {"notation_map": [inline_prose(
        "The full report also writes the softmax output $s$ (here $p$, and $P$ in attention), "
        "the number of keys $m$ (here $n_k$), and the gradients $dV$, $dS$, $G$ (here $G_V$, "
        "$G_S$, $G_Y$).", "old")]}
    assert missing_report_letters(old) == sorted(["C", "dA", "dK", "dO", "dP", "dQ",
                                                  r"\bar a", "k", r"\tilde L"])


_HERE = re.compile(r"\$([^$]+)\$\s*(?:\(here |（本册为 )([^)）]*)")


def _flat(tex: str) -> str:
    return re.sub(r"[{}\s]", "", tex)


def wrong_report_letters(lines: list[str]) -> list[tuple[str, str]]:
    """The pairs "the report's X (here Y)" of the notation map whose Y is none of the letters
    student.toml [symbols] puts for X in this edition's derivations."""
    renames: dict[str, set[str]] = {}
    for m in student_data.structure()["symbols"].values():
        for old, new in m.items():
            renames.setdefault(_flat(old), set()).add(_flat(new))
    bad = []
    for line in lines:
        for old, here in _HERE.findall(line):
            ours = {_flat(x) for x in re.findall(r"\$([^$]+)\$", here)}
            if _flat(old) in renames and not ours & renames[_flat(old)]:
                bad.append((old, here))
    return bad


def test_the_notation_map_gives_this_edition_s_letters_for_the_report_s(views):
    lines = [x[lang] for x in student_data.words()["notation_map"] for lang in ("en", "zh")]
    assert wrong_report_letters(lines) == []
    # every pair is read: the target class and the number of classes in both languages
    pairs = [p for line in lines for p in _HERE.findall(line)]
    assert sum(old == "k" for old, _ in pairs) == 2 and sum(old == "n" for old, _ in pairs) == 2
    old = ["the number of classes $n$ (here $C$) and the target class $k$ (here $i$)",
           "类别数记作 $n$（本册为 $C$），目标类别记作 $k$（本册为 $i$）"]
    assert wrong_report_letters(old) == [("k", "$i$"), ("k", "$i$")]


def test_the_notation_map_states_the_index_convention_with_its_exceptions(views):
    for lang, view in views.items():
        words = " ".join(x.plain for x in view["notation_map"])
        assert {"en": "An index has one meaning", "zh": "每个下标只有一个含义"}[lang] not in words
        tex = " ".join(f.tex for f in student_read.formulas({"m": view["notation_map"]}))
        # the departures named: E's column j in 1.2, p_j of chapter 3, the sample's (b)
        assert "E_{ij}" in tex and "p_j" in tex and "(b)" in tex, lang


def test_the_notation_map_says_what_n_counts_and_where_beta_eps_mu_change(views):
    for lang, view in views.items():
        words = [x.plain for x in view["notation_map"]]
        tex = [f.tex for f in student_read.formulas({"m": view["notation_map"]})]
        assert any({"en": "counts the rows", "zh": "表示行数"}[lang] in w for w in words)
        assert all(x in tex for x in (r"\beta_1", r"\varepsilon", r"\epsilon", r"\mu_q")), lang
        linear = student_data.words()["chapter"]["linear"]["intro"][lang]
        assert {"en": "$n$ samples (or $n$ tokens)", "zh": "$n$ 个样本，或 $n$ 个词元"}[lang] \
            in linear
        assert "第 $i$ 行是第 $i$ 个样本" not in linear and "row $i$ is sample $i$" not in linear
        # each letter stands where the legend says, with the sentence or without it
        assert student_read.misused_letters(view) == []


# ----------------------------------------------------------------------------- wordings
# (what, where in the words, the words now, the words before): each check passes on the one
# and fails on the other
def _w(*keys):
    def get(lang):
        node = student_data.words()
        for k in keys:
            node = next(b for b in node if b["id"] == k) if isinstance(node, list) else node[k]
        return node if isinstance(node, str) else node[lang]
    return get


WORDINGS = [
    ("box 4.1 defines the rows O_i, V_j", _w("box", "query", "footnote"),
     lambda t: ("O_i" in t and "V_j" in t and ("行" in t or "row" in t)), ""),
    ("box 4.8: without a mask", _w("box", "graph", "wrong"),
     lambda t: "without a mask" in t or "不加掩码时" in t,
     "每个词元还关注它自己：共有 $n^2$ 条带权有向边"),
    ("box 4.8's formula: without a mask", _w("box", "graph", "correct"),
     lambda t: "without a mask" in t, r"P_{ij}>0\ \text{ for all } i,j"),
    ("box 4.8's formula in Chinese: without a mask", _w("box", "graph", "correct_zh"),
     lambda t: "不加掩码时" in t, r"P_{ij}>0\ \ \text{对所有}\ i,j"),
    ("box 2.2 states z_2 > z_1 > 0", _w("box", "amplify", "wrong"),
     lambda t: "$z_2 > z_1 > 0$" in t, "softmax 的权重之比 $e^{z_2-z_1}$ 只由差距决定"),
    ("a box gives a counterexample, not a one-line one",
     lambda lang: i18n.ui(lang)["student"]["how_boxes"],
     lambda t: "一行反例" not in t and "one-line" not in t
     and ("一个反例" in t or "a counter" in t),
     "再给出一行反例和正确的公式。"),
    ("answer 6.1 orders its term as the derivation does",
     lambda lang: student_data.words()["chapter"]["residual"]["exercise"][0]["answer"][lang],
     lambda t: r"\hat x_j\,\overline{g\hat x}" not in t and r"\overline{g\hat x}\,\hat x_j" in t,
     r"$\sum_j (g_j - \bar g - \hat x_j\,\overline{g\hat x})/\sigma_\varepsilon$"),
    ("chapter 6's summary orders its term as the derivation does",
     lambda lang: student_data.words()["chapter"]["residual"]["summary"][2][lang],
     lambda t: r"\overline{g\hat x}\,\hat x)" in t,
     r"$(g - \bar g\mathbf{1} - \hat x\,\overline{g\hat x})/\sigma_\varepsilon$"),
    ("chapter 7's summary writes E[v_t] = μ(1 − β₁ᵗ), as 7.2 does",
     lambda lang: student_data.words()["chapter"]["adam"]["summary"][1][lang],
     lambda t: r"\mu(1 - \beta_1^t)" in t and r"(1 - \beta_1^t)\mu" not in t,
     r"$\mathbb{E}[v_t] = (1 - \beta_1^t)\mu$"),
    ("7.3 cites E[v_t] = μ(1 − β₁ᵗ), as 7.2 writes it",
     _w("rule", "adam_first_moment_unbiased", "2"),
     lambda t: r"\mu(1 - \beta_1^t)" in t, r"$\mathbb{E}[m_t]=(1-\beta_1^t)\mu$"),
    ("first order, in words a textbook uses", _w("lead", "embedding_grad_one_hot", "text"),
     lambda t: "一阶上都有" not in t and ("一阶近似下" in t or "to first order" in t),
     "任何损失在一阶上都有"),
    ("answer 1.2 says what dot products cannot tell apart",
     lambda lang: student_data.words()["chapter"]["embedding"]["exercise"][1]["answer"][lang],
     lambda t: "无法区分" in t or "cannot tell apart" in t, "嵌入只能确定到相差一个正交变换"),
    ("box 6.2: better than before", _w("box", "lossless", "wrong"),
     lambda t: "这比原来好得多" in t or "far better" in t, "这要好得多，但"),
    ("σ_ε is the standard deviation with ε added",
     lambda lang: i18n.definition("its standard deviation, kept away from 0 by ε > 0", lang).text,
     lambda t: "加了 $\\varepsilon$ 的标准差" in t or "standard deviation with" in t,
     "该行的标准差，由 $\\varepsilon>0$ 保证不为 0"),
    ("box 4.1 says what O is, the attention output PV", _w("box", "query", "footnote"),
     lambda t: "O = PV" in t, "$O_i$ and $V_j$ are row $i$ of $O$ and row $j$ of $V$."),
    ("1.1 says what δ is where it first stands", _w("rule", "embedding_lookup", "2"),
     lambda t: "Kronecker" in t or "克罗内克" in t,
     "独热向量 $e_i$ 的分量为 $(e_i)_l = \\delta_{il}$"),
    ("chapter 7 says θ are the parameters, d2l's x",
     lambda lang: student_data.words()["chapter"]["adam"]["notation"][lang],
     lambda t: "$\\theta$" in t and ("参数" in t or "parameters" in t) and " x" in t,
     "本章记号与 d2l 11.10 节相同：$v_t$、$s_t$、$\\hat v_t$、$\\hat s_t$，学习率 $\\eta$。"),
    ("box 6.1 carries the gradient back through (I + J)ᵀ", _w("box", "at_least_one", "wrong"),
     lambda t: "(I + J)^\\top g" in t and "JJ^\\top" in t,
     "$J$ 很小只能保证 $\\lVert (I + J)x\\rVert_2 \\ge (1 - \\lVert J\\rVert_2)"),
    ("box 4.7 needs no layout the reader has not seen", _w("box", "rope", "wrong"),
     lambda t: "列在" not in t and "listed under" not in t,
     "但把它与嵌入一起列在“输入层”之下"),
    ("4.2 step 5: expand, μ_q²μ_k² cancels", _w("rule", "dot_product_variance", "5"),
     lambda t: "相消" in t or "cancels" in t, "$d_k$ 个相等项求和"),
]


@pytest.mark.parametrize("what, get, check, before", WORDINGS, ids=[w[0] for w in WORDINGS])
def test_a_wording(what, get, check, before):
    for lang in ("en", "zh"):
        assert check(get(lang)), (lang, what)
    assert not check(before), what
