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
        # two significant digits without an exponent: 310, not 3.1e+02
        return f"${float(f'{x:.2g}'):g}$"
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


def _depth_output(series: dict) -> dict[str, str] | None:
    """Why the last block's order is reversed: the final layer normalization's input and the
    factor its backward pass multiplies the gradient by, in each network (None for curves
    recorded without them)."""
    keys = [f"ln_f_{q}_{k}" for q in ("std", "gain") for k in ("with_residual",
                                                                  "without_residual")]
    if any(k not in series for k in keys + ["ln_eps"]):
        return None
    return {"stdres": number_tex(series["ln_f_std_with_residual"]),
            "stdplain": number_tex(series["ln_f_std_without_residual"]),
            "gainres": number_tex(series["ln_f_gain_with_residual"]),
            "gainplain": number_tex(series["ln_f_gain_without_residual"]),
            "rooteps": number_tex(math.sqrt(series["ln_eps"])).strip("$")}


def _variance(series: dict) -> dict[str, str] | None:
    """The samples behind each point (None for curves recorded without their count)."""
    return {"samples": str(series["samples"])} if "samples" in series else None


def _saturation(series: dict) -> dict[str, str] | None:
    """The row length n_k and the rows averaged: the largest weight of a row depends on both
    (None for curves recorded without them)."""
    if "keys" not in series or "rows" not in series:
        return None
    return {"keys": str(series["keys"]), "rows": str(series["rows"])}


# each figure's sentences: the ui [figure] key of its words, and its values from the data
VALUES = {"depth_gradnorm": (("depth_gradnorm_values", _depth),
                             ("depth_gradnorm_output", _depth_output)),
          "saturation": (("saturation_values", _saturation),),
          "variance_vs_dk": (("variance_vs_dk_values", _variance),)}


def caption(name: str, text: str, t: dict, plot_data: dict) -> str:
    """``text``, the caption of figure ``name``, followed by the sentences ui [figure]
    ``<name>_values`` (and the others of :data:`VALUES`) filled with the values of its
    curves, each where the data holds them."""
    series = plot_data.get(name)
    for key, values_of in VALUES.get(name, ()):
        template = t["figure"].get(key)
        values = values_of(series) if template and series else None
        if values is not None:
            text += t["meta"]["sentence_sep"] + template.format(**values)
    return text
