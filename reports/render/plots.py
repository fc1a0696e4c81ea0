"""The report's figures, drawn with matplotlib: SVG for the page, PDF for LaTeX.

Outputs are byte-stable: fixed SVG hash salt, no dates in metadata, glyphs as paths
(so the SVG needs no font at view time).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from reports.view.model import ReportDataError  # noqa: E402

RC = {
    "svg.hashsalt": "transformer-derivations-report",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.figsize": (6.0, 3.4),
    "figure.dpi": 100,
    "path.simplify": False,
}
SVG_META = {"Date": None, "Creator": None}
PDF_META = {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None}


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


def _variance(ax, data: dict) -> None:
    s = _series(data["plot_data"], "variance_vs_dk", ("d_k", "empirical_var",
                "empirical_var_scaled", "derived_var", "derived_var_scaled"))
    ax.plot(s["d_k"], s["derived_var"], "-", color="C0", label=r"derived $d_k$")
    ax.plot(s["d_k"], s["empirical_var"], "o", color="C0", label=r"empirical, $q^\top k$")
    ax.plot(s["d_k"], s["derived_var_scaled"], "-", color="C1", label="derived 1")
    ax.plot(s["d_k"], s["empirical_var_scaled"], "s", color="C1",
            label=r"empirical, $q^\top k/\sqrt{d_k}$")
    ax.set(xscale="log", yscale="log", xlabel=r"$d_k$", ylabel="variance")
    ax.legend()


def _saturation(ax, data: dict) -> None:
    s = _series(data["plot_data"], "saturation", ("d_k", "max_weight_unscaled",
                "max_weight_scaled", "grad_norm_unscaled", "grad_norm_scaled"))
    ax.plot(s["d_k"], s["max_weight_unscaled"], "o-", color="C3", label="max weight, unscaled")
    ax.plot(s["d_k"], s["max_weight_scaled"], "o-", color="C2", label=r"max weight, $1/\sqrt{d_k}$")
    ax.plot(s["d_k"], s["grad_norm_unscaled"], "s--", color="C3", label="grad norm, unscaled")
    ax.plot(s["d_k"], s["grad_norm_scaled"], "s--", color="C2", label=r"grad norm, $1/\sqrt{d_k}$")
    ax.set(xscale="log", xlabel=r"$d_k$", ylabel="value")
    ax.legend(fontsize=7)


def _depth(ax, data: dict) -> None:
    s = _series(data["plot_data"], "depth_gradnorm", ("layer", "with_residual",
                "without_residual"))
    ax.plot(s["layer"], s["with_residual"], "o-", label="with residual")
    ax.plot(s["layer"], s["without_residual"], "s-", label="without residual")
    ax.set(yscale="log", xlabel="block (0 = next to the input)", ylabel="gradient norm")
    ax.legend()


def _loss(ax, data: dict) -> None:
    s = _series(data, "training", ("steps", "loss"))
    ax.plot(s["steps"], s["loss"], "-", color="C4")
    ax.set(xlabel="training step", ylabel="cross-entropy loss")


Drawer = Callable[[object, dict], None]
# Titles and captions are words, kept with the other words in i18n/ui.toml (figure.<name>_*).
FIGURES: tuple[tuple[str, Drawer], ...] = (
    ("variance_vs_dk", _variance),
    ("saturation", _saturation),
    ("depth_gradnorm", _depth),
    ("training_loss", _loss),
)


def render(data: dict, html_dir: Path | None, latex_dir: Path | None) -> list[dict]:
    """Draw every figure as ``<name>.svg`` into ``html_dir`` and ``<name>.pdf`` into
    ``latex_dir`` (either may be None); return [{name}] in report order."""
    out = []
    with matplotlib.rc_context(RC):
        for name, draw in FIGURES:
            fig, ax = plt.subplots()
            try:
                draw(ax, data)
                fig.tight_layout()
                if html_dir is not None:
                    html_dir.mkdir(parents=True, exist_ok=True)
                    fig.savefig(html_dir / f"{name}.svg", format="svg", metadata=SVG_META)
                if latex_dir is not None:
                    latex_dir.mkdir(parents=True, exist_ok=True)
                    fig.savefig(latex_dir / f"{name}.pdf", format="pdf", metadata=PDF_META)
            finally:
                plt.close(fig)
            out.append({"name": name})
    return out
