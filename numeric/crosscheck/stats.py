"""Monte Carlo checks of the attention-scaling results, softmax saturation, and gradient norms
through depth.

Samples for every d_k are prefixes of one draw at the largest d_k: the first d_k columns of
i.i.d. columns are i.i.d., so each width's estimate is valid (estimates at different widths are
correlated, which no single record depends on).  Two sources:

* i.i.d. entries: uniform, not normal — the derivation assumes only independence and moments
  (its own numeric route uses normals), so a second distribution is an independent test.  u in
  [0, 1) gives the "entries ≈ 0.5" case of the notes (μ = 1/2, σ² = 1/12) and (u − ½)√12 the
  standardized case;
* the model's q/k projections at initialisation: a live LN₁ output row h of the check model times
  fresh weights drawn as ``model.init_params`` draws them (N(0, init_std²)), through
  ``ops.linear_forward``.  Given h, q_m = Σ_c h_c W[c, m] has mean 0 and variance init_std²‖h‖².
"""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from derivations.library import attention_scaling as sc
from numeric import model, ops
from numeric.config import preset
from numeric.crosscheck.core import Record, stat_record
from numeric.crosscheck.live import Live

D_KS = (4, 16, 64, 256, 1024, 4096)
# Sample counts: relative standard errors of a variance ≈ √((κ − 1)/S), κ the kurtosis (≤ 4.5 at
# d_k = 4, → 3 as d_k grows), so 4000 samples keep the 3-SE band (the tolerance column) ≤ 10 %
# of the derived value at every d_k; the band must be that narrow for the plausible wrong
# formulas (2·d_k, d_k², …) to fall outside it.
S_IID = 4000
S_MODEL = 4000
BLOCK = 250  # samples drawn at once: arrays of tens of MB instead of gigabytes
# Saturation: rows of SAT_KEYS keys each.
S_SAT, SAT_KEYS = 64, 16
DEPTH_LAYERS = 10
SEED = 20240
# the live tensor whose first row the model's projections read
LN_ROW = "h.0.ln_1.out"


def _funcs():
    args = (sc.d_k, sc.mu_q, sc.mu_k, sc.sigma_q, sc.sigma_k)
    return {name: sp.lambdify(args, getattr(sc, name), modules="numpy") for name in
            ("MEAN", "VARIANCE", "UNIT_VARIANCE", "SCALED_UNIT_VARIANCE", "SCALED_MEAN",
             "SCALED_SECOND_MOMENT")}


def _mean_se(y: np.ndarray) -> tuple[float, float]:
    return float(y.mean()), float(y.std(ddof=1) / np.sqrt(y.size))


def _var_se(y: np.ndarray) -> tuple[float, float]:
    """Sample variance and its standard error √((m₄ − s⁴)/S) (m₄ the 4th central moment)."""
    c = y - y.mean()
    s2, m4 = float(c @ c / (y.size - 1)), float(np.mean(c**4))
    return s2, float(np.sqrt(max(m4 - s2**2, 0.0) / y.size))


def _dots(q: np.ndarray, k: np.ndarray) -> dict[int, np.ndarray]:
    """qᵀk over the first d_k entries, for every d_k (running sums of the products' segments
    between consecutive d_k: only the d_k columns of a full cumulative sum are ever read)."""
    seg = np.add.reduceat(q * k, (0, *D_KS[:-1]), axis=-1)  # (S, len(D_KS))
    cum = np.cumsum(seg, axis=-1)  # (S, len(D_KS))
    return {d: cum[:, i] for i, d in enumerate(D_KS)}


def _joined(parts: list[dict[int, np.ndarray]]) -> dict[int, np.ndarray]:
    return {d: np.concatenate([p[d] for p in parts]) for d in D_KS}


def _iid_dots(rng: np.random.Generator) -> tuple[dict, dict]:
    """qᵀk for S_IID samples of uniform [0, 1) entries, and for the same entries standardized,
    (u − ½)√12; drawn in blocks of samples so no (S_IID, d_k) array is ever whole."""
    half, std = [], []
    for start in range(0, S_IID, BLOCK):
        u = rng.random((2, min(BLOCK, S_IID - start), D_KS[-1]))  # (2, n, top)
        half.append(_dots(u[0], u[1]))
        u -= 0.5
        u *= np.sqrt(12.0)
        std.append(_dots(u[0], u[1]))
    return _joined(half), _joined(std)


def _model_dots(h: np.ndarray, w_std: float, rng: np.random.Generator) -> dict[int, np.ndarray]:
    """qᵀk for S_MODEL samples of q = h W_q, k = h W_k with fresh (C, D_KS[-1]) init weights per
    sample.  The weights are drawn in blocks of samples, so at most BLOCK samples' weights
    exist at once (all of them at once is C·S_MODEL·d_k floats, gigabytes)."""
    top, parts = D_KS[-1], []
    for start in range(0, S_MODEL, BLOCK):
        n = min(BLOCK, S_MODEL - start)
        # one (C, top) weight per sample, side by side as the columns of a (C, n·top) projection;
        # the weights are w_std·Z with Z standard normal, and the scale is applied to the
        # (n, top) product instead of to the C times larger weights (the same numbers drawn)
        q, k = (w_std * ops.linear_forward(h[None], rng.standard_normal((h.size, n * top)))[0]
                .reshape(n, top) for _ in range(2))  # (n, top) each
        parts.append(_dots(q, k))
    return _joined(parts)


def _samples(h: np.ndarray, w_std: float) -> tuple[dict, dict, dict]:
    """qᵀk for every d_k: of uniform entries, of the same standardized, and of the model's
    projections of the live row ``h``.  Drawn once per process for a row, a scale and a
    projection op: the draws depend on nothing else, and a process that recomputes the records
    with a backward op or a derived formula changed (the tests do, dozens of times) would
    otherwise draw the same gigabyte of normals again each time."""
    return _drawn(tuple(float(x) for x in h), float(w_std), ops.linear_forward)


@functools.lru_cache(maxsize=4)
def _drawn(h: tuple[float, ...], w_std: float, _projection) -> tuple[dict, dict, dict]:
    rng = np.random.default_rng(SEED)
    half, std = _iid_dots(rng)  # entries ≈ 0.5, and the same standardized
    proj = _model_dots(np.array(h), w_std, rng)
    for dots in (half, std, proj):
        for arr in dots.values():
            arr.flags.writeable = False  # shared by every later call
    return half, std, proj


def scaling_records(live: Live, curves: dict | None = None) -> list[Record]:
    f = _funcs()
    mu, sig = 0.5, np.sqrt(1.0 / 12.0)
    h = live.cache[LN_ROW][0, 0]  # (C,) a live LN₁ output row
    w_std = live.cfg.init_std
    half, std, proj = _samples(h, w_std)
    s_q = w_std * float(np.linalg.norm(h))
    out: list[Record] = []
    for d in D_KS:
        tag, rt = f"d_k={d}", np.sqrt(d)
        var_half = f["VARIANCE"](d, mu, mu, sig, sig)
        # each row: claim, source, (estimate, SE), derived, a plausible wrong formula; the
        # source is what the comparison is about (its sentence is the report's)
        items = [
            ("unit_dot_product_variance", "iid_std",
             _var_se(std[d]), f["UNIT_VARIANCE"](d, 0, 0, 1, 1), ("2d_k", 2 * d)),
            ("scaled_dot_product_variance", "iid_std",
             _var_se(std[d] / rt), f["SCALED_UNIT_VARIANCE"](d, 0, 0, 1, 1),
             (r"1/\sqrt{d_k}", 1 / rt)),
            ("dot_product_mean", "iid_half",
             _mean_se(half[d]), f["MEAN"](d, mu, mu, sig, sig), (r"d_k\mu_q", d * mu)),
            ("dot_product_variance", "iid_half",
             _var_se(half[d]), var_half, (r"d_k\sigma_q^2\sigma_k^2", d * sig**4)),
            ("nonzero_mean_growth", "iid_half",
             _mean_se(half[d] / rt), f["SCALED_MEAN"](d, mu, mu, sig, sig),
             (r"\mu_q\mu_k", mu * mu)),
            ("scaled_dot_product_second_moment", "iid_half",
             _mean_se((half[d] / rt) ** 2), f["SCALED_SECOND_MOMENT"](d, mu, mu, sig, sig),
             (r"\operatorname{Var}(q^\top k)/d_k", var_half / d)),
            ("dot_product_variance", "model_proj",
             _var_se(proj[d]), f["VARIANCE"](d, 0, 0, s_q, s_q),
             (r"d_k^2\sigma_q^2\sigma_k^2", d * d * s_q**4)),
            ("scaled_dot_product_second_moment", "model_proj",
             _mean_se((proj[d] / rt) ** 2), f["SCALED_SECOND_MOMENT"](d, 0, 0, s_q, s_q),
             (r"d_k\sigma_q^2\sigma_k^2", d * s_q**4)),
        ]
        for claim, source, (est, se), derived, wrong in items:
            # the model's projections read a live LN₁ output row; the i.i.d. entries no tensor
            out.append(stat_record(claim, f"{source}.{tag}", source, est, se, float(derived),
                                   wrong, tensor=LN_ROW if source == "model_proj" else None,
                                   values={"d_k": d}))
    if curves is not None:
        curves.update({
            "d_k": list(D_KS),
            "empirical_var": [_var_se(std[d])[0] for d in D_KS],
            "empirical_var_scaled": [_var_se(std[d] / np.sqrt(d))[0] for d in D_KS],
            "derived_var": [float(f["UNIT_VARIANCE"](d, 0, 0, 1, 1)) for d in D_KS],
            "derived_var_scaled": [float(f["SCALED_UNIT_VARIANCE"](d, 0, 0, 1, 1))
                                   for d in D_KS],
            # each point's sample size, which the caption states
            "samples": S_IID})
    return out


def saturation() -> dict:
    """Mean max attention weight and mean ‖softmax backward‖ of rows of SAT_KEYS keys, with and
    without the 1/√d_k, standardized entries; the model's own softmax ops."""
    rng = np.random.default_rng(SEED + 1)
    top = D_KS[-1]
    q = (rng.random((S_SAT, 1, top)) - 0.5) * np.sqrt(12.0)
    k = (rng.random((S_SAT, SAT_KEYS, top)) - 0.5) * np.sqrt(12.0)
    # one upstream gradient per row, the same at every d_k: standard normal entries, as
    # the caption says
    g = rng.standard_normal((S_SAT, SAT_KEYS))
    cum = np.cumsum(q * k, axis=-1)  # (S, keys, top)
    # the caption states the row length and the number of rows averaged, from here
    out = {"d_k": list(D_KS), "keys": SAT_KEYS, "rows": S_SAT,
           "max_weight_unscaled": [], "max_weight_scaled": [],
           "grad_norm_unscaled": [], "grad_norm_scaled": []}
    for d in D_KS:
        logits = cum[:, :, d - 1]
        for name, z in (("unscaled", logits), ("scaled", logits / np.sqrt(d))):
            s, cache = ops.softmax_forward(z)
            ds = ops.softmax_backward(g, cache)
            out[f"max_weight_{name}"].append(float(s.max(axis=-1).mean()))
            out[f"grad_norm_{name}"].append(float(np.linalg.norm(ds, axis=-1).mean()))
    return out


def depth_gradnorm(layers: int = DEPTH_LAYERS) -> dict:
    """‖∂loss/∂(block input)‖ per layer at initialisation, with and without skip connections;
    the blocks numbered from 1 (next to the embeddings), as the reports count.

    Also what explains the last block, where the network without skips has the larger gradient:
    the final LayerNorm's input (its rows' mean standard deviation) and the factor its
    backward pass multiplies the gradient's norm by, ‖∂loss/∂ln_f.in‖ / ‖∂loss/∂ln_f.out‖
    (it divides by √(σ² + ε), so a row that has shrunk far below √ε is amplified ~1/√ε)."""
    out: dict = {"layer": list(range(1, layers + 1))}
    for key, residual in (("with_residual", True), ("without_residual", False)):
        cfg = preset("depth", n_layer=layers, residual=residual)
        rng = np.random.default_rng(SEED + 2)
        idx = rng.integers(0, cfg.vocab_size, (2, cfg.block_size))
        net = model.GPT(cfg)
        _, _, cache = net.loss_and_grads(idx, rng.integers(0, cfg.vocab_size, idx.shape))
        out[key] = [float(np.linalg.norm(cache[f"h.{i}.din"])) for i in range(layers)]
        out[f"ln_f_std_{key}"] = float(cache["ln_f.in"].std(axis=-1).mean())
        out[f"ln_f_gain_{key}"] = float(np.linalg.norm(cache["ln_f.din"])
                                        / np.linalg.norm(cache["ln_f.dout"]))
        out["ln_eps"] = cfg.ln_eps
    return out
