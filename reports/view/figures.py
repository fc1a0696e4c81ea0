"""What a figure's caption says about its curves, computed from the data the figure plots.

A caption written by hand can drift from the plot it describes (a new seed, a deeper model);
the sentence that quotes the curves' values is written here, from ``plot_data``, so that it
says what the figure shows. A caption whose words hold no such sentence is returned as it is.
"""

from __future__ import annotations

import math


def number_tex(x: float) -> str:
    """``x`` to two significant digits as inline math: 0.97, 0.037, 2.1 × 10⁻⁶."""
    if x == 0:
        return "$0$"
    if 1e-3 <= abs(x) < 1e3:
        return f"${x:.2g}$"
    exp = math.floor(math.log10(abs(x)))
    mant = x / 10**exp
    if round(mant, 1) >= 10:
        mant, exp = mant / 10, exp + 1
    return f"${mant:.1f}\\times 10^{{{exp}}}$"


def _depth(series: dict) -> dict[str, str]:
    """Block 0 first, where the residual connections matter: its gap as a power of ten."""
    w, wo = series["with_residual"], series["without_residual"]
    return {"last": str(series["layer"][-1]), "first": str(series["layer"][0]),
            "reslast": number_tex(w[-1]), "plainlast": number_tex(wo[-1]),
            "resfirst": number_tex(w[0]), "plainfirst": number_tex(wo[0]),
            "firstexp": str(round(math.log10(w[0] / wo[0])))}


def _saturation(series: dict) -> dict[str, str] | None:
    """The row length n_k and the rows averaged: the largest weight of a row depends on both
    (None for curves recorded without them)."""
    if "keys" not in series or "rows" not in series:
        return None
    return {"keys": str(series["keys"]), "rows": str(series["rows"])}


VALUES = {"depth_gradnorm": _depth, "saturation": _saturation}


def caption(name: str, text: str, t: dict, plot_data: dict) -> str:
    """``text``, the caption of figure ``name``, followed by the sentence ui [figure]
    ``<name>_values`` filled with the values of its curves, where the data holds them."""
    template = t["figure"].get(f"{name}_values")
    series = plot_data.get(name)
    values = VALUES[name](series) if template and series and name in VALUES else None
    if values is None:
        return text
    return text + t["meta"]["sentence_sep"] + template.format(**values)
