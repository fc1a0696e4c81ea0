"""Where a training step of the benchmark model spends its time: BLAS versus everything else.

``python -m numeric.bench --profile [--config small|medium]`` (one BLAS thread, float64) prints the
median step time, the time of the step's matrix products run alone — every product of the forward
and backward, on the step's own named tensors (``h.i.attn.w_q.in``, ``…dout``, …) — and its share
of the step, the rest (elementwise work and Python), the page faults a step causes (fresh memory
the allocator must map: numeric.buffers keeps them near 0), then the ops that take the most time
(cProfile, own time).
"""

from __future__ import annotations

import cProfile
import pstats
import resource
import time

import numpy as np

from numeric import model, ops
from numeric.config import BENCH_CONFIGS as CONFIGS
from numeric.config import preset
from numeric.threads import blas_threads

LINEARS = ("attn.w_q", "attn.w_k", "attn.w_v", "attn.w_o", "mlp.w_fc", "mlp.w_proj")
TOP_OPS = 10


def _median_ms(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def _product(a: np.ndarray, b: np.ndarray):
    """A zero-argument callable computing a @ b into an array allocated once: fresh result
    arrays would time the allocator's page faults too, not only BLAS."""
    res = a @ b  # (..., M, N)
    return lambda: np.matmul(a, b, out=res)


def products(cfg, params: dict, cache: dict) -> list:
    """Zero-argument callables, one per matrix product of a forward+backward step."""
    out = []

    def linear(x, w, g):
        x2, g2 = x.reshape(-1, w.shape[0]), g.reshape(-1, w.shape[1])  # (N, C_in), (N, C_out)
        out.extend([_product(x2, w), _product(x2.T, g2), _product(g2, w.T)])

    for i in range(cfg.n_layer):
        pre = f"h.{i}."
        for leaf in LINEARS:
            linear(cache[f"{pre}{leaf}.in"], params[pre + leaf], cache[f"{pre}{leaf}.dout"])
        q, k, v = (cache[f"{pre}attn.{n}"] for n in "qkv")  # (B, H, T, D)
        p, ds = cache[pre + "attn.probs"], cache[pre + "attn.dscores"]  # (B, H, T, T)
        dy = ops.split_heads(cache[pre + "attn.dy"], cfg.n_head)  # (B, H, T, D)
        out.extend([_product(q, k.transpose(0, 1, 3, 2)), _product(p, v),
                    _product(dy, v.transpose(0, 1, 3, 2)), _product(p.transpose(0, 1, 3, 2), dy),
                    _product(ds, k), _product(ds.transpose(0, 1, 3, 2), q)])
    linear(cache["ln_f.out"], params["lm_head.w"], cache["dlogits"])
    return out


def run(name: str = "small", repeats: int = 20) -> dict:
    cfg = preset(f"bench-{name}")
    params = model.init_params(cfg)
    rng = np.random.default_rng(0)
    shape = (CONFIGS[name]["batch"], cfg.block_size)
    idx, targets = rng.integers(0, cfg.vocab_size, shape), rng.integers(0, cfg.vocab_size, shape)

    def step():
        _, _, cache = model.forward(params, cfg, idx, targets)
        model.backward(cache, params)
        return cache

    with blas_threads(1):
        cache = step()
        step_ms = _median_ms(step, repeats)
        prods = products(cfg, params, cache)
        blas_ms = _median_ms(lambda: [f() for f in prods], repeats)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(repeats):
            step()
        faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / repeats
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(repeats):
            step()
        prof.disable()
    stats = pstats.Stats(prof).stats
    own = {f"{fn}": tt / repeats * 1e3 for (path, _, fn), (_, _, tt, _, _) in stats.items()
           if path.endswith(("ops.py", "model.py"))}
    top = sorted(own.items(), key=lambda kv: -kv[1])[:TOP_OPS]
    return {"config": name, "step_ms": step_ms, "blas_ms": blas_ms, "products": len(prods),
            "blas_share": blas_ms / step_ms, "faults_per_step": faults, "top_ops_ms": top}


def report(r: dict) -> str:
    lines = [f"{r['config']}: step {r['step_ms']:.2f} ms, its {r['products']} matrix products "
             f"alone {r['blas_ms']:.2f} ms = {100 * r['blas_share']:.0f} % BLAS; the rest "
             f"(elementwise, Python) {r['step_ms'] - r['blas_ms']:.2f} ms; "
             f"{r['faults_per_step']:.0f} page faults a step",
             "own time per step (cProfile, includes its overhead):"]
    lines += [f"  {fn:28s} {ms:8.3f} ms" for fn, ms in r["top_ops_ms"]]
    return "\n".join(lines)
