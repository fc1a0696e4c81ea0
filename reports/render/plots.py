"""The report's figures, drawn with matplotlib once per language: SVG for the page, PDF for
LaTeX. Their words (axis labels, legends) are in i18n/ui.toml, section [plot].

Outputs are byte-stable: fixed SVG hash salt, no dates in metadata, glyphs as paths
(so the SVG needs no font at view time).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends import backend_pdf  # noqa: E402
from matplotlib.font_manager import FontPath  # noqa: E402

from reports.render import i18n  # noqa: E402
from reports.view.model import FIGURE_PANELS, ReportDataError, figure_stem  # noqa: E402

Words = Callable[[str], str]

# A figure is drawn at the width the PDFs print it (their templates include it at its own
# size), so a point of its type is a point on paper: one panel at two thirds of the text width,
# two panels at nearly all of it (A4 with 2.2 cm margins, preamble.tex.j2).
TEXT_WIDTH_IN = (210 - 2 * 22) / 25.4
SIZES = {1: (0.66 * TEXT_WIDTH_IN, 2.75), 2: (0.92 * TEXT_WIDTH_IN, 2.75)}
# A phone shows a figure about 350 CSS px wide: the print drawing shrunk to that width set its
# type at 6 to 10 px. Its narrow drawing is about that wide, its panels one above the other, so
# that its type stays near its own size, 8.5 pt = 11.3 px (a page picks it on a narrow screen).
NARROW_WIDTH_IN = 3.6
NARROW_SIZES = {1: (NARROW_WIDTH_IN, 2.7), 2: (NARROW_WIDTH_IN, 5.0)}
# two series told apart by a reader who cannot tell red from green: blue and orange of the
# Okabe-Ito palette, and a marker and a line style of their own as well
UNSCALED = {"color": "#D55E00", "marker": "s", "linestyle": "--"}
SCALED = {"color": "#0072B2", "marker": "o", "linestyle": "-"}
# every word and number of a figure at least 80 % of the body text's 10 pt
FONT_PT = 8.5
RC = {
    "svg.hashsalt": "transformer-derivations-report",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
    "font.family": "DejaVu Sans",
    "font.size": FONT_PT,
    "axes.labelsize": FONT_PT,
    "xtick.labelsize": FONT_PT,
    "ytick.labelsize": FONT_PT,
    "legend.fontsize": FONT_PT,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.figsize": SIZES[1],
    "figure.dpi": 100,
    "path.simplify": False,
}
SVG_META = {"Date": None, "Creator": None}
PDF_META = {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None}


class _FirstUsed(FontPath):
    """A font's file that sorts by when the figure first used it, not by where it lies."""

    def __new__(cls, font, rank: int):
        made = super().__new__(cls, str(font), getattr(font, "face_index", 0))
        made._rank = rank
        return made

    def __lt__(self, other):
        return self._rank < other._rank if isinstance(other, _FirstUsed) else super().__lt__(other)

    def __gt__(self, other):
        return self._rank > other._rank if isinstance(other, _FirstUsed) else super().__gt__(other)


@contextmanager
def _fonts_in_first_use_order():
    """matplotlib writes a PDF's fonts sorted by their files' paths, and its own DejaVu lies in
    the virtual environment: a checkout elsewhere put the Chinese figures' two fonts in the
    other order, and their bytes differed.  In the order the figure first used them instead."""
    original = backend_pdf.PdfFile.writeFonts

    def write_fonts(pdf):
        pdf._fontNames = {(_FirstUsed(font, k), subset): name for k, ((font, subset), name)
                          in enumerate(pdf._fontNames.items())}
        return original(pdf)

    backend_pdf.PdfFile.writeFonts = write_fonts
    try:
        yield
    finally:
        backend_pdf.PdfFile.writeFonts = original


def _series(data: dict, section: str, keys: tuple[str, ...]) -> dict[str, list[float]]:
    """Pull equally long numeric lists ``keys`` out of ``data[section]``."""
    block = data.get(section)
    if not isinstance(block, dict):
        raise ReportDataError(
            f"plot_data.{section}: expected dict with {list(keys)}, got {type(block).__name__}"
        )
    out: dict[str, list[float]] = {}
    for key in keys:
        values = block.get(key)
        if not isinstance(values, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values
        ):
            raise ReportDataError(f"plot_data.{section}.{key}: expected list of numbers, "
                                  f"got {values!r:.60}")
        out[key] = values
    lengths = {k: len(v) for k, v in out.items()}
    if len(set(lengths.values())) != 1 or not next(iter(lengths.values())):
        raise ReportDataError(f"plot_data.{section}: expected equal, non-zero lengths, "
                              f"got {lengths}")
    return out


def _variance(ax, data: dict, w: Words) -> None:
    s = _series(data["plot_data"], "variance_vs_dk", ("d_k", "empirical_var",
                "empirical_var_scaled", "derived_var", "derived_var_scaled"))
    ax.plot(s["d_k"], s["derived_var"], "-", color="C0", label=w("derived_dk"))
    ax.plot(s["d_k"], s["empirical_var"], "o", color="C0", label=w("empirical_qk"))
    ax.plot(s["d_k"], s["derived_var_scaled"], "-", color="C1", label=w("derived_one"))
    ax.plot(s["d_k"], s["empirical_var_scaled"], "s", color="C1",
            label=w("empirical_qk_scaled"))
    ax.set(xscale="log", yscale="log", xlabel=r"$d_k$", ylabel=w("variance"))
    ax.legend()


def _saturation(axes, data: dict, w: Words) -> None:
    """The two quantities on two axes of their own: the largest weight of a row (a) and
    the norm of the softmax's backward pass (b), each unscaled and scaled."""
    s = _series(data["plot_data"], "saturation", ("d_k", "max_weight_unscaled",
                "max_weight_scaled", "grad_norm_unscaled", "grad_norm_scaled"))
    left, right = axes
    # each legend where its curves leave room: the weights rise, the norms fall
    for ax, key, label, top, where in ((left, "max_weight", "largest_weight", 1.05,
                                        "center right"),
                                       (right, "grad_norm", "backward_norm", None,
                                        "lower left")):
        ax.plot(s["d_k"], s[f"{key}_unscaled"], label=w("unscaled"), **UNSCALED)
        ax.plot(s["d_k"], s[f"{key}_scaled"], label=w("scaled"), **SCALED)
        ax.set(xscale="log", xlabel=r"$d_k$", ylabel=w(label))
        ax.set_ylim(0, top)
        ax.legend(loc=where)


def _depth(ax, data: dict, w: Words) -> None:
    s = _series(data["plot_data"], "depth_gradnorm", ("layer", "with_residual",
                "without_residual"))
    ax.plot(s["layer"], s["with_residual"], "o-", label=w("with_residual"))
    ax.plot(s["layer"], s["without_residual"], "s-", label=w("without_residual"))
    ax.set(yscale="log", xlabel=w("block"), ylabel=w("gradient_norm"))
    ax.legend()


def _loss(ax, data: dict, w: Words) -> None:
    s = _series(data, "training", ("steps", "loss"))
    ax.plot(s["steps"], s["loss"], "-", color="C4")
    ax.set(xlabel=w("training_step"), ylabel=w("cross_entropy_loss"))


def _adam(axes, data: dict, w: Words) -> None:
    """What the bias correction and the place of ε do, from the closed forms of chapter 7:
    the moments of a constant gradient g = 1 (a) and the first step against |g| (b)."""
    left, right = axes
    t = list(range(1, 61))
    b1, b2 = 0.9, 0.999
    left.plot(t, [1 - b1**k for k in t], "-", color="C0", label=w("m_raw"))
    # the two corrected moments are both 1, one line over the other: each its own marker, at
    # steps of its own (1, 11, … and 6, 16, …), so that both show where the lines coincide
    left.plot(t, [1.0 for _ in t], "--", color="C0", marker="^", markevery=(0, 10),
              label=w("m_hat"))
    # each curve a line style of its own too: the pairs are not told apart by colour alone
    left.plot(t, [1 - b2**k for k in t], "-.", color="C1", label=w("v_raw"))
    left.plot(t, [1.0 for _ in t], ":", color="C1", marker="v", markevery=(5, 10),
              label=w("v_hat"))
    left.set(xlabel=w("adam_step"), ylabel=w("moment"), ylim=(0, 1.1))
    left.legend()
    lr, eps = 1e-3, 1e-8
    gs = [10 ** (k / 8) for k in range(-72, 1)]
    # not red against green: the pair a red-green colour-blind reader tells apart
    right.plot(gs, [lr * g / (g + eps) for g in gs], "-", color=SCALED["color"],
               label=w("eps_outside"))
    right.plot(gs, [lr * g / (g * g + eps) ** 0.5 for g in gs], "--", color=UNSCALED["color"],
               label=w("eps_inside"))
    right.set(xscale="log", yscale="log", xlabel=w("grad_size"), ylabel=w("first_step"))
    right.legend()


Drawer = Callable[[object, dict, Words], None]
# Titles and captions are words, kept with the other words in i18n/ui.toml (figure.<name>_*).
FIGURES: tuple[tuple[str, Drawer], ...] = (
    ("variance_vs_dk", _variance),
    ("saturation", _saturation),
    ("depth_gradnorm", _depth),
    ("training_loss", _loss),
    ("adam_moments", _adam),
)
# figures of two panels side by side (their drawer takes both axes)
PANELS = FIGURE_PANELS


def words(lang: str, cjk: tuple[Path, str] | None) -> tuple[Words, dict]:
    """The figures' words in ``lang`` and the rc settings that draw them. Chinese words need a
    CJK font (``fonts.cjk_font``); without one the Chinese figures keep the English words."""
    table = i18n.ui_data()["plot"]
    if lang == "en" or cjk is None:
        return (lambda key: table[key]["en"]), {}
    from matplotlib import font_manager

    path, family = cjk
    font_manager.fontManager.addfont(str(path))  # known even if matplotlib's font list is stale
    # the CJK font first: a label mixing words and $math$ is set by mathtext, whose words take
    # the first family only (no per-glyph fallback); the math keeps mathtext's DejaVu fonts
    return (lambda key: table[key][lang]), {"font.family": [family, "DejaVu Sans"]}


def panel_label(i: int) -> str:
    """The name of panel ``i`` (from 0) of a figure, in its drawing and in its caption."""
    return f"({chr(ord('a') + i)})"


def draw(name: str, data: dict, w: Words, narrow: bool = False):
    """Figure ``name`` of ``data`` with the words ``w``, laid out at its print size, or
    ``narrow`` for a phone, its panels stacked (inside the caller's rc settings; the caller
    closes it)."""
    drawer = dict(FIGURES)[name]
    panels = PANELS.get(name, 1)
    fig, ax = plt.subplots(*((panels, 1) if narrow else (1, panels)),
                           figsize=(NARROW_SIZES if narrow else SIZES)[panels])
    try:
        drawer(ax, data, w)
        # panels named (a), (b): side by side in print, stacked on a phone, so a caption that
        # said left and right would be wrong on one of them
        for i, axis in enumerate(ax if panels > 1 else ()):
            axis.set_title(panel_label(i), loc="left", fontweight="bold")
        fig.tight_layout()
    except BaseException:
        plt.close(fig)
        raise
    return fig


def render(data: dict, html_dir: Path | None, latex_dir: Path | None,
           langs: tuple[str, ...] = i18n.LANGS,
           cjk: tuple[Path, str] | None = None,
           variants: dict[str, dict[str, dict[str, str]]] | None = None) -> list[dict]:
    """Draw every figure in every language of ``langs`` as ``<stem>.svg`` (and its narrow
    drawing, :func:`figure_stem` ``narrow``) into ``html_dir`` and
    ``<stem>.pdf`` into ``latex_dir`` (either may be None; stems by ``figure_stem``); return
    [{name, variants}] in report order. ``cjk`` is the font of the Chinese words
    (``fonts.cjk_font()``). ``variants`` {name: {variant: symbols}}: a figure drawn once more
    with the letters of its words' formulas renamed (an edition's own letters)."""
    variants = variants or {}
    for lang in langs:
        w, rc = words(lang, cjk)
        with matplotlib.rc_context({**RC, **rc}):
            for name, variant, ww in [
                    (n, v, w_) for n, _ in FIGURES
                    for v, w_ in [("", w)] + [(v, _renaming(w, s)) for v, s in
                                              sorted(variants.get(n, {}).items())]]:
                fig = draw(name, data, ww)
                stem = figure_stem(name, lang, variant)
                try:
                    if html_dir is not None:
                        html_dir.mkdir(parents=True, exist_ok=True)
                        fig.savefig(html_dir / f"{stem}.svg", format="svg", metadata=SVG_META)
                        narrow = draw(name, data, ww, narrow=True)
                        try:
                            narrow.savefig(html_dir / f"{figure_stem(name, lang, variant, True)}"
                                                      ".svg", format="svg", metadata=SVG_META)
                        finally:
                            plt.close(narrow)
                    if latex_dir is not None:
                        latex_dir.mkdir(parents=True, exist_ok=True)
                        with _fonts_in_first_use_order():
                            fig.savefig(latex_dir / f"{stem}.pdf", format="pdf",
                                        metadata=PDF_META)
                finally:
                    plt.close(fig)
    return [{"name": name, "variants": sorted(variants.get(name, {}))} for name, _ in FIGURES]


def _renaming(w: Words, symbols: dict[str, str]) -> Words:
    from reports.view.student_tex import rename_math

    return lambda key: rename_math(w(key), symbols)

