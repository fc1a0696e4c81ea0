"""The figures, drawn once per language: the Chinese edition's figures carry Chinese words
(i18n/ui.toml [plot]) set in a CJK font, and without such a font the build says so."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

import pytest

from reports.pipeline import build
from reports.render import fonts, katex, plots
from reports.view import edition, model, student

NAMES = [name for name, _ in plots.FIGURES]
CJK = fonts.cjk_font()
needs_cjk = pytest.mark.skipif(CJK is None, reason="no CJK font (.ci/run installs "
                               "fonts-noto-cjk): the Chinese figures cannot be drawn here")
# matplotlib reports a glyph its font lacks by a warning (plain text) or a log line (mathtext)
MISSING_GLYPH = ("missing from font", "does not have a glyph")


def _draw(data: dict, out: Path, langs: tuple[str, ...], cjk) -> list[str]:
    """Draw the figures; return what matplotlib said about glyphs it could not find."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        plots.render({"plot_data": data["plot_data"], "training": data["training"]}, out, None,
                     langs, cjk)
    return [str(w.message) for w in said if any(m in str(w.message) for m in MISSING_GLYPH)]


def _missing_glyphs(caplog, warned: list[str]) -> list[str]:
    return warned + [r.getMessage() for r in caplog.records
                     if any(m in r.getMessage() for m in MISSING_GLYPH)]


@needs_cjk
def test_each_language_has_its_own_drawing_with_every_glyph(data, tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    warned = _draw(data, tmp_path, ("en", "zh"), CJK)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{model.figure_stem(n, lang, narrow=narrow)}.svg" for n in NAMES for lang in ("en", "zh")
        for narrow in (False, True))
    for name in NAMES:
        assert (tmp_path / f"{name}.svg").read_bytes() != (tmp_path / f"{name}-zh.svg").read_bytes()
    assert _missing_glyphs(caplog, warned) == []


@needs_cjk
def test_chinese_words_in_a_font_without_them_are_found(data, tmp_path, caplog):
    # the check above can fail: the CJK file under a Latin family draws no Chinese glyph
    caplog.set_level(logging.WARNING)
    warned = _draw(data, tmp_path, ("zh",), (CJK[0], "DejaVu Sans"))
    assert warned and [r for r in caplog.records if MISSING_GLYPH[1] in r.getMessage()]


def test_the_english_drawings_do_not_change_with_the_chinese_font(data, tmp_path):
    _draw(data, tmp_path / "a", ("en",), None)
    _draw(data, tmp_path / "b", ("en",), CJK)
    for name in NAMES:
        assert (tmp_path / "a" / f"{name}.svg").read_bytes() == \
            (tmp_path / "b" / f"{name}.svg").read_bytes()


def test_without_a_cjk_font_the_chinese_figures_keep_the_english_words():
    english, _ = plots.words("en", None)
    chinese, rc = plots.words("zh", None)
    assert rc == {} and all(chinese(k) == english(k) for k in ("variance", "block"))
    if CJK is not None:
        chinese, rc = plots.words("zh", CJK)
        assert chinese("variance") == "方差" and rc["font.family"][0] == CJK[1]


def test_an_edition_s_own_letters_are_drawn_as_its_variant(data, tmp_path):
    """Figure 4 of the student edition names Adam's moments as d2l does (v_t, s_t): drawn once
    more, its legend's formulas renamed at once (m → v, v → s); the report's keeps m_t, v_t."""
    variants = {"adam_moments": {"student": student.figure_symbols()["adam_moments"]}}
    figures = plots.render({"plot_data": data["plot_data"], "training": data["training"]},
                           tmp_path, None, ("en",), None, variants)
    assert next(f for f in figures if f["name"] == "adam_moments")["variants"] == ["student"]
    assert all(f["variants"] == [] for f in figures if f["name"] != "adam_moments")
    own, report = (tmp_path / "adam_moments-student.svg"), (tmp_path / "adam_moments.svg")
    assert own.is_file() and own.read_bytes() != report.read_bytes()
    english, _ = plots.words("en", None)
    renamed = plots._renaming(english, variants["adam_moments"]["student"])
    assert [renamed(k) for k in ("m_raw", "m_hat", "v_raw", "v_hat")] == \
        ["$v_t$", "$\\hat v_t$", "$s_t$", "$\\hat s_t$"]
    assert [english(k) for k in ("m_raw", "v_raw")] == ["$m_t$", "$v_t$"]
    assert model.figure_stem("adam_moments", "zh", "student") == "adam_moments-student-zh"


def test_each_edition_links_the_drawing_of_its_language(data):
    figures = [{"name": n} for n in NAMES]
    for lang in ("en", "zh"):
        view = edition.build_view(data, figures, lang)
        assert [f["file"] for f in view["figures"]] == [model.figure_stem(n, lang) for n in NAMES]
        topics = student.build_view(data, figures, lang, {"date": "2026-12-01", "version": "0"})
        linked = [it["file"] for t in topics["topics"] for it in t["parts"]
                  if it["type"] == "figure"]
        assert linked and all(f.endswith("-zh") == (lang == "zh") for f in linked)
    assert model.figure_stem("saturation", "en") == "saturation"


def test_a_build_without_a_cjk_font_says_how_to_get_one(data, tmp_path, monkeypatch):
    monkeypatch.setattr(fonts, "cjk_font", lambda: None)
    lines: list[str] = []
    build.build(tmp_path / "out", data=data, pdf=False, log=lines.append,
                cache=build.Cache(tmp_path / "cache"))
    plots_line = next(line for line in lines if line.split()[1] == "plots")
    assert fonts.HINT in plots_line and f"{len(NAMES)} figures in 2 languages" in plots_line
    if katex.node_available():  # the HTML needs node (KaTeX); the LaTeX is always written
        zh = (tmp_path / "out" / "html" / "index.zh.html").read_text(encoding="utf-8")
        assert 'src="figures/variance_vs_dk-zh.svg"' in zh
        assert (tmp_path / "out" / "html" / "figures" / "variance_vs_dk-zh.svg").is_file()
    assert (tmp_path / "out" / "latex" / "zh" / "figures" / "variance_vs_dk-zh.pdf").is_file()
    assert not (tmp_path / "out" / "latex" / "zh" / "figures" / "variance_vs_dk.pdf").exists()


def _fonts_written(tmp_path: Path, first_used_order: bool) -> list[bytes]:
    """The fonts of a figure whose first words take DejaVu Sans from a folder named z/ and whose
    next take DejaVu Sans Bold from a folder named a/, in the order the PDF holds them; no other
    font is drawn."""
    import re
    import shutil

    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.font_manager import FontProperties

    ttf = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    regular, bold = tmp_path / "z" / "DejaVuSans.ttf", tmp_path / "a" / "DejaVuSans-Bold.ttf"
    for src, dst in ((ttf / "DejaVuSans.ttf", regular), (ttf / "DejaVuSans-Bold.ttf", bold)):
        dst.parent.mkdir(exist_ok=True)
        shutil.copy(src, dst)
    with matplotlib.rc_context({**plots.RC}):
        # no axes: their tick labels would take the default DejaVu, at the checkout's own path
        fig = plt.figure()
        fig.text(0.1, 0.6, "first", fontproperties=FontProperties(fname=str(regular)))
        fig.text(0.1, 0.3, "then", fontproperties=FontProperties(fname=str(bold)))
        out = tmp_path / f"fig{first_used_order}.pdf"
        try:
            if first_used_order:
                with plots._fonts_in_first_use_order():
                    fig.savefig(out, format="pdf", metadata=plots.PDF_META)
            else:
                fig.savefig(out, format="pdf", metadata=plots.PDF_META)
        finally:
            plt.close(fig)
    return re.findall(rb"/BaseFont /(?:[A-Z]{6}\+)?(DejaVuSans(?:-Bold)?)\b", out.read_bytes())


def test_a_figure_s_fonts_are_written_in_the_order_first_used_not_by_path(tmp_path):
    # matplotlib's own order follows the files' paths (a/ before z/): a checkout elsewhere,
    # with the virtual environment's DejaVu at another path, gave other bytes
    by_path = list(dict.fromkeys(_fonts_written(tmp_path, first_used_order=False)))
    assert by_path == [b"DejaVuSans-Bold", b"DejaVuSans"], by_path
    first_used = list(dict.fromkeys(_fonts_written(tmp_path, first_used_order=True)))
    assert first_used == [b"DejaVuSans", b"DejaVuSans-Bold"], first_used


# ----------------------------------------------------------------------------- colour
# Machado, Oliveira and Fernandes (2009): what a deuteranope sees of a linear-RGB colour
DEUTERANOPIA = ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                (-0.011820, 0.042940, 0.968881))
# two series a reader cannot tell apart by colour under that simulation (sRGB distance)
MIN_SEEN_APART = 0.25


def _seen_by_deuteranope(colour) -> tuple[float, ...]:
    from matplotlib.colors import to_rgb

    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)]
    sim = [min(1.0, max(0.0, sum(m * c for m, c in zip(row, lin, strict=True))))
           for row in DEUTERANOPIA]
    return tuple(12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055 for c in sim)


def _distance(a, b) -> float:
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5


def series_problems(fig) -> list[str]:
    """Two series of one panel told apart by colour alone, or by a colour pair a red-green
    colour-blind reader confuses (and no marker or line style of their own); two panels that
    share a y label (one quantity per axis)."""
    from matplotlib.colors import to_rgb

    out = []
    for ax in fig.axes:
        lines = [x for x in ax.get_lines() if not x.get_label().startswith("_")]
        for k, a in enumerate(lines):
            for b in lines[k + 1:]:
                # colours meant to differ (not one colour in two line styles) that a
                # deuteranope sees alike
                meant = _distance(to_rgb(a.get_color()), to_rgb(b.get_color()))
                seen = _distance(_seen_by_deuteranope(a.get_color()),
                                 _seen_by_deuteranope(b.get_color()))
                same_shape = (a.get_marker(), a.get_linestyle()) == \
                    (b.get_marker(), b.get_linestyle())
                if (meant >= MIN_SEEN_APART > seen) or same_shape:
                    out.append(f"{ax.get_ylabel()}: {a.get_label()} / {b.get_label()}")
    labels = [ax.get_ylabel() for ax in fig.axes]
    return out + [f"one y label for two panels: {x}" for x in set(labels)
                  if labels.count(x) > 1]


def test_figure_2_and_figure_4_read_without_red_and_green(data):
    import matplotlib
    import matplotlib.pyplot as plt

    english, _ = plots.words("en", None)
    with matplotlib.rc_context(plots.RC):
        for name, narrow in [(n, k) for n in ("saturation", "adam_moments") for k in (0, 1)]:
            fig = plots.draw(name, data, english, narrow=bool(narrow))
            try:
                assert len(fig.axes) == 2 and series_problems(fig) == [], name
                if name == "saturation":  # two quantities, each on an axis of its own
                    assert [ax.get_ylabel() for ax in fig.axes] == [
                        english("largest_weight"), english("backward_norm")]
            finally:
                plt.close(fig)


def test_a_red_green_pair_on_one_axis_is_found():
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2)
    try:
        # red against green, each with a marker and a line style of its own; blue and orange
        # told apart by their colour alone; one colour in two line styles is no problem
        left.plot([1, 2], [1, 2], "o-", color="C3", label="unscaled")
        left.plot([1, 2], [2, 1], "s--", color="C2", label="scaled")
        left.set_ylabel("value")
        right.plot([1, 2], [0, 1], "^:", color="#0072B2", label="blue")
        right.plot([1, 2], [1, 0], "^:", color="#D55E00", label="orange")
        right.plot([1, 2], [1, 1], "^-", color="#D55E00", label="orange, solid")
        right.set_ylabel("norm")
        assert series_problems(fig) == ["value: unscaled / scaled", "norm: blue / orange"]
        right.set_ylabel("value")
        assert series_problems(fig)[-1] == "one y label for two panels: value"
    finally:
        plt.close(fig)


def test_the_narrow_drawings_are_byte_stable(data, tmp_path):
    for out in (tmp_path / "a", tmp_path / "b"):
        plots.render({"plot_data": data["plot_data"], "training": data["training"]}, out, None,
                     ("en",), None)
    narrow = sorted(p.name for p in (tmp_path / "a").glob("*-narrow.svg"))
    assert narrow == sorted(f"{model.figure_stem(n, 'en', narrow=True)}.svg" for n in NAMES)
    for name in narrow:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


# ----------------------------------------------------------------------------- coinciding curves
def _marked(line) -> set[tuple[float, float]]:
    """The points of ``line`` that carry a marker (none without one): markevery None, n or
    (start, n), the forms the figures use."""
    if line.get_marker() in (None, "None", "", " "):
        return set()
    xs, ys = line.get_xdata(), line.get_ydata()
    every = line.get_markevery()
    start, step = (0, 1) if every is None else (0, every) if isinstance(every, int) else every
    return {(float(xs[k]), float(ys[k])) for k in range(start, len(xs), step)}


def hidden_series(fig) -> list[str]:
    """Two series of one panel that run on one line for more than half their points (a dashed
    line over a dotted one reads as one line): each needs markers of its own shape, and some
    of them where the other has none."""
    out = []
    for ax in fig.axes:
        lines = [x for x in ax.get_lines() if not x.get_label().startswith("_")]
        for k, a in enumerate(lines):
            for b in lines[k + 1:]:
                pa = set(zip(map(float, a.get_xdata()), map(float, a.get_ydata()), strict=True))
                pb = set(zip(map(float, b.get_xdata()), map(float, b.get_ydata()), strict=True))
                if len(pa & pb) <= min(len(pa), len(pb)) / 2:
                    continue
                ma, mb = _marked(a), _marked(b)
                if a.get_marker() == b.get_marker() or not (ma - mb) or not (mb - ma):
                    out.append(f"{ax.get_ylabel()}: {a.get_label()} / {b.get_label()}")
    return out


def test_the_corrected_moments_of_figure_4_each_show_on_their_common_line(data):
    import matplotlib
    import matplotlib.pyplot as plt

    english, _ = plots.words("en", None)
    with matplotlib.rc_context(plots.RC):
        for narrow in (False, True):
            fig = plots.draw("adam_moments", data, english, narrow=narrow)
            try:
                left = fig.axes[0]
                hats = [x for x in left.get_lines() if "hat" in x.get_label()]
                assert len(hats) == 2 and list(hats[0].get_ydata()) == list(hats[1].get_ydata())
                assert hidden_series(fig) == [] and series_problems(fig) == []
            finally:
                plt.close(fig)


def test_a_line_hidden_under_another_is_found():
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2)
    try:
        t = list(range(20))
        # dashed over dotted, no markers: one line to the eye
        left.plot(t, [1.0] * 20, "--", color="C0", label="m_hat")
        left.plot(t, [1.0] * 20, ":", color="C1", label="v_hat")
        left.set_ylabel("moment")
        # markers of two shapes, but at the same steps: the later one covers the other
        right.plot(t, [1.0] * 20, "--", color="C0", marker="^", markevery=5, label="a")
        right.plot(t, [1.0] * 20, ":", color="C1", marker="v", markevery=5, label="b")
        # a curve that meets them at one point only is no problem
        right.plot(t, [k / 19 for k in t], "-", color="C2", label="c")
        right.set_ylabel("norm")
        assert hidden_series(fig) == ["moment: m_hat / v_hat", "norm: a / b"]
        right.lines[1].set_markevery((2, 5))
        assert hidden_series(fig) == ["moment: m_hat / v_hat"]
    finally:
        plt.close(fig)


def panel_problems(fig, caption: str) -> list[str]:
    """Where a figure of several panels and its caption do not name the panels alike: each
    panel titled (a), (b), … and the caption naming each, without left or right, which a
    phone's stacked panels would contradict."""
    labels = [ax.get_title(loc="left") for ax in fig.axes]
    out = [f"panel {i + 1} is titled {x!r}" for i, x in enumerate(labels)
           if x != plots.panel_label(i)]
    # a Chinese caption writes the same name in full-width brackets, （a）
    full = caption.replace("（", "(").replace("）", ")")
    out += [f"the caption does not name {plots.panel_label(i)}" for i in range(len(labels))
            if plots.panel_label(i) not in full]
    out += [f"the caption says {w!r}" for w in ("Left", "Right", "left:", "右：", "左：")
            if w in caption]
    return out


def test_a_figure_of_two_panels_names_them_a_and_b_in_drawing_and_caption(data):
    import matplotlib
    import matplotlib.pyplot as plt

    from reports.render import i18n

    two = [name for name, n in plots.PANELS.items() if n == 2]
    assert sorted(two) == ["adam_moments", "saturation"]
    for lang in ("en", "zh"):
        captions = i18n.ui(lang)["figure"]
        for name in two:
            for narrow in (False, True):
                with matplotlib.rc_context(plots.RC):
                    fig = plots.draw(name, data, plots.words("en", None)[0], narrow=narrow)
                try:
                    assert panel_problems(fig, captions[f"{name}_caption"]) == [], (lang, name)
                finally:
                    plt.close(fig)


def test_panels_without_names_or_a_caption_of_left_and_right_are_found():
    import matplotlib.pyplot as plt

    fig, _ = plt.subplots(2, 1)
    try:
        assert panel_problems(fig, "Left: the moments. Right: the first step.") == [
            "panel 1 is titled ''", "panel 2 is titled ''",
            "the caption does not name (a)", "the caption does not name (b)",
            "the caption says 'Left'", "the caption says 'Right'"]
        assert panel_problems(fig, "左：矩。右：第一步。")[-2:] == [
            "the caption says '右：'", "the caption says '左：'"]
    finally:
        plt.close(fig)
