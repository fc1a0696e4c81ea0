"""Finite-difference check of every analytic gradient of the model.

``python -m numeric.gradcheck [--json]`` checks every parameter tensor (all entries of small
tensors, a seeded sample of large ones) and the input embeddings x0 of a small float64 model, once
with sinusoidal encodings and once with RoPE. Exit 0 if all pass, 1 if any fails, 2 on bad usage.

Error measures per tensor, over the checked entries (a analytic, n numeric):
    max_abs = max |a − n|;   max_rel = max |a − n| / max |n|   (normwise, ∞-norm).
A tensor passes when max_abs ≤ RTOL·max |n| + floor, floor the stencil's own rounding noise,
NOISE_ULPS·1.5·ε·|L|/h (the loss L is computed to a few ulps; the stencil's weights sum to 1.5/h in
magnitude): a gradient far smaller than the loss (a key projection deep in a model without residual
connections, 10⁻⁴) has no relative digits below that floor, and a wrong backward is off by a
fraction of max |n| far above it. A gradient that is structurally zero (e.g. the key bias under
sinusoidal encodings: q·b_k shifts a whole score row, which softmax cancels) has no scale to be
relative to; it passes only if both max |a| and max |n| are ≤ ZERO_ATOL, and is reported as "zero".
"""

from __future__ import annotations

import json
import sys

import numpy as np

from derivations.cli import Parser
from numeric import finite_diff as fd
from numeric import model
from numeric.config import GPTConfig, preset
from numeric.threads import blas_threads

# 10⁴× tighter than torch.autograd.gradcheck's default rtol of 1e-3.
RTOL = 1e-8
# The 4-point stencil's rounding noise is ~1.5·ε·|L|/h ≈ 2e-12 at |L| ≈ 2 (noise_floor with one
# ulp); ZERO_ATOL is far above it.
ZERO_ATOL = 1e-9
# ulps of the loss its rounding noise is taken as: measured ≤ 1 on the test models (1.5e-12
# absolute at |L| ≈ 2); 10 for headroom, still 45× below ZERO_ATOL
NOISE_ULPS = 10
# The 4-point stencil's best step on the check model (measurements in numeric.finite_diff); the
# 2-point stencil's best error, 5e-10, is too close to RTOL.
STEP = fd.STEP_4
# Tensors with more entries than this are checked on a seeded random sample of entries.
MAX_ENTRIES = 64



def check_config(pos: str = "sinusoidal") -> GPTConfig:
    """The "check" preset the CLI checks, with sinusoidal encodings or RoPE."""
    return preset("check", pos=pos)


def make_problem(cfg: GPTConfig, batch: int = 2, seed: int = 0):
    """Seeded params (γ, β and biases moved off 1/0 so their gradients are generic) and data."""
    rng = np.random.default_rng(seed)
    params = model.init_params(cfg)
    for name, p in params.items():
        if name.rsplit(".", 1)[-1] in ("g", "b") or ".b_" in name:
            p += rng.normal(0.0, 0.2, p.shape).astype(p.dtype)
    idx = rng.integers(0, cfg.vocab_size, (batch, cfg.block_size))  # (B, T)
    targets = rng.integers(0, cfg.vocab_size, (batch, cfg.block_size))  # (B, T)
    targets[0, 0] = cfg.ignore_index if cfg.ignore_index is not None else targets[0, 0]
    return params, idx, targets


def noise_floor(loss: float, h: float = STEP) -> float:
    """The 4-point stencil's rounding noise for a loss of this size (see the module docstring)."""
    terms, denominator = fd.STENCILS[4]
    gain = sum(abs(weight) for _, weight in terms) / denominator  # 1.5
    return NOISE_ULPS * gain * float(np.finfo(np.float64).eps) * abs(loss) / h


def compare(name: str, analytic: np.ndarray, numeric: np.ndarray, size: int,
            floor: float = 0.0) -> dict:
    """One report record for a tensor; floor is the stencil's rounding noise (noise_floor)."""
    max_abs = float(np.max(np.abs(analytic - numeric)))
    scale_n, scale_a = float(np.max(np.abs(numeric))), float(np.max(np.abs(analytic)))
    if scale_n <= ZERO_ATOL and scale_a <= ZERO_ATOL:
        status, max_rel, ok = "zero", None, True
    else:
        max_rel = max_abs / scale_n if scale_n > 0 else float("inf")
        status, ok = "checked", max_abs <= RTOL * scale_n + floor
    return {"tensor": name, "size": size, "checked": int(numeric.size), "max_abs": max_abs,
            "max_rel": max_rel, "floor": floor, "status": status, "pass": bool(ok)}


def check_model(cfg: GPTConfig, params: dict, idx: np.ndarray, targets: np.ndarray,
                max_entries: int = MAX_ENTRIES, seed: int = 0) -> list[dict]:
    """Compare model.backward with finite differences for every parameter and for x0."""
    if cfg.np_dtype != np.float64:
        raise ValueError(f"check_model: dtype expected float64, got {cfg.dtype}")
    with blas_threads(1):  # thousands of tiny forwards: a second BLAS thread only waits
        return _check_model(cfg, params, idx, targets, max_entries, seed)


def _check_model(cfg, params, idx, targets, max_entries, seed):
    rng = np.random.default_rng(seed)
    loss, _, cache = model.forward(params, cfg, idx, targets)
    floor = noise_floor(float(loss))
    grads = model.backward(cache, params)
    records = []
    for name, p in params.items():
        entries = fd.sample_entries(p.size, max_entries, rng)
        num = fd.derivative_inplace(lambda: model.forward(params, cfg, idx, targets)[0], p,
                                    entries, STEP)
        records.append(compare(name, grads[name].reshape(-1)[entries], num, p.size, floor))
    x0 = cache["emb.out"].copy()  # (B, T, C)
    entries = fd.sample_entries(x0.size, max_entries, rng)
    num = fd.derivative_inplace(
        lambda: model.forward_from_embeddings(params, cfg, x0, targets)[0], x0, entries, STEP)
    records.append(compare("input.x0", cache["emb.dout"].reshape(-1)[entries], num, x0.size,
                           floor))
    return records


def run(max_entries: int = MAX_ENTRIES) -> dict:
    """Check the sinusoidal and the RoPE model; returns {"pass", "models": [...]}."""
    models = []
    for pos in ("sinusoidal", "rope"):
        cfg = check_config(pos)
        params, idx, targets = make_problem(cfg)
        records = check_model(cfg, params, idx, targets, max_entries)
        models.append({"pos": pos, "records": records, "pass": all(r["pass"] for r in records)})
    return {"rtol": RTOL, "zero_atol": ZERO_ATOL, "noise_ulps": NOISE_ULPS, "step": STEP,
            "stencil": "4-point central",
            "pass": all(m["pass"] for m in models), "models": models}


def _fmt(x: float | None) -> str:
    return "   n/a  " if x is None else f"{x:.1e}"


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m numeric.gradcheck",
                                     description="finite-difference check of model gradients")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--max-entries", type=int, default=MAX_ENTRIES,
                        help="entries sampled per large tensor")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if args.max_entries < 1:
        print(f"error: --max-entries expected ≥ 1, got {args.max_entries}", file=sys.stderr)
        return 2
    report = run(args.max_entries)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for m in report["models"]:
            print(f"pos={m['pos']}")
            for r in m["records"]:
                flag = "ok  " if r["pass"] else "FAIL"
                print(f"  {flag} {r['tensor']:<18} {r['checked']:>4}/{r['size']:<5} "
                      f"max_abs {r['max_abs']:.1e}  max_rel {_fmt(r['max_rel'])}  {r['status']}")
        worst = max((r["max_rel"] or 0.0) for m in report["models"] for r in m["records"])
        print(f"{'PASS' if report['pass'] else 'FAIL'}: worst max_rel {worst:.1e} "
              f"(tolerance {RTOL:.0e} + the stencil's noise, 4-point stencil, h={STEP})")
    return 0 if report["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
