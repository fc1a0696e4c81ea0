"""Forward+backward step time and peak memory: NumPy model vs the same model in PyTorch eager.

``python -m numeric.bench [--json] [--threads N] [--repeats R] [--strict]``; needs the optional
extra ``torch`` (exit 2 without it); ``--profile`` instead prints the BLAS share of our step
(numeric.profile; no torch needed). Per config, one subprocess times both models alternately
(same weights, same data, float64, CPU, warm-up first, median of R ≥ 10 runs), and one subprocess
per model measures peak memory. Subprocesses are used so that OPENBLAS/OMP/MKL thread counts are
fixed before NumPy and torch load their BLAS, and so each peak is the model's own.

Peak memory = peak resident set size during 3 steps minus the resident size just before them
(Linux /proc/self/clear_refs resets the high-water mark), i.e. activations, gradients and
temporaries, not weights or interpreter. ``--strict`` exits 1 if a ratio misses its target.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time

from derivations.cli import Parser
from numeric.config import BENCH_CONFIGS as CONFIGS
from numeric.config import PRESETS

# Model shapes come from the presets "bench-small" / "bench-medium" of numeric.config.
TARGETS = {"small": 1.0, "medium": 1.2}
WARMUP = 3
MIN_REPEATS = 10


def _setup(name: str, threads: int, need_torch: bool):
    import numpy as np

    from numeric import model
    from numeric.config import preset

    cfg = preset(f"bench-{name}", pos="sinusoidal", dtype="float64")
    params = model.init_params(cfg)
    rng = np.random.default_rng(0)
    shape = (CONFIGS[name]["batch"], cfg.block_size)
    idx = rng.integers(0, cfg.vocab_size, shape)  # (B, T)
    targets = rng.integers(0, cfg.vocab_size, shape)  # (B, T)

    def ours():
        _, _, cache = model.forward(params, cfg, idx, targets)
        model.backward(cache, params)

    if not need_torch:
        return ours, None
    import torch

    from numeric.torch_ref import TorchGPT

    torch.set_num_threads(threads)
    twin = TorchGPT(cfg, params)

    def theirs():
        twin.zero_grad()
        loss, _ = twin.forward(idx, targets)
        loss.backward()

    return ours, theirs


def _time_worker(name: str, threads: int, repeats: int) -> dict:
    import numpy as np

    ours, theirs = _setup(name, threads, need_torch=True)
    for _ in range(WARMUP):
        ours()
        theirs()
    times = {"ours": [], "torch": []}
    gc.disable()  # a collection landing inside one model's timing would bias that model
    for r in range(repeats):
        # Alternate which model goes first so neither always runs on a warmer cache.
        order = (("ours", ours), ("torch", theirs)) if r % 2 == 0 else (
            ("torch", theirs), ("ours", ours))
        for key, fn in order:
            start = time.perf_counter()
            fn()
            times[key].append(time.perf_counter() - start)
    gc.enable()
    med = {k: float(np.median(v)) * 1e3 for k, v in times.items()}
    import torch

    from numeric.threads import get_blas_threads

    return {"blas_threads": get_blas_threads(), "torch_threads": torch.get_num_threads(),
            "ours_ms": med["ours"], "torch_ms": med["torch"], "ratio": med["ours"] / med["torch"],
            "ours_all_ms": [t * 1e3 for t in times["ours"]],
            "torch_all_ms": [t * 1e3 for t in times["torch"]]}


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} missing from /proc/self/status")


def _mem_worker(name: str, threads: int, which: str) -> dict:
    ours, theirs = _setup(name, threads, need_torch=which == "torch")
    fn = ours if which == "ours" else theirs
    gc.collect()
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # reset VmHWM to the current RSS
    base = _status_kb("VmRSS")
    for _ in range(3):
        fn()
    return {"peak_mb": (_status_kb("VmHWM") - base) / 1024}


def _spawn(args: list[str], threads: int) -> dict:
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    out = subprocess.run([sys.executable, "-m", "numeric.bench", *args], env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"bench worker {args} failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


def run(threads: int = 1, repeats: int = 15, names: tuple[str, ...] = tuple(CONFIGS)) -> dict:
    configs = []
    for name in names:
        t = _spawn(["--worker", "time", "--config", name, "--repeats", str(repeats),
                    "--threads", str(threads)], threads)
        mem = {w: _spawn(["--worker", f"mem-{w}", "--config", name, "--threads", str(threads)],
                         threads)["peak_mb"] for w in ("ours", "torch")}
        if t["blas_threads"] not in (None, threads) or t["torch_threads"] != threads:
            raise RuntimeError(f"thread counts differ: {t['blas_threads']=} "
                               f"{t['torch_threads']=} expected {threads}")
        configs.append({"name": name, **CONFIGS[name], **PRESETS[f"bench-{name}"],
                        "ratio": t["ratio"], "ours_ms": t["ours_ms"], "torch_ms": t["torch_ms"],
                        "ours_peak_mb": mem["ours"], "torch_peak_mb": mem["torch"],
                        "target": TARGETS[name], "met": t["ratio"] <= TARGETS[name],
                        "ours_all_ms": t["ours_all_ms"], "torch_all_ms": t["torch_all_ms"]})
    return {"threads": threads, "repeats": repeats, "dtype": "float64", "configs": configs,
            "training": _training()}


def _training() -> dict:
    """``python -m numeric.train`` as ``make train`` runs it: steps and seconds to the target."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-m", "numeric.train", "--json", "--out",
                              os.path.join(tmp, "curve.json")], capture_output=True, text=True,
                             check=False)
    if out.returncode not in (0, 1):
        raise RuntimeError(f"numeric.train failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m numeric.bench",
                                     description="step time of the NumPy model vs PyTorch eager")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--threads", type=int, default=1, help="threads for BLAS and torch")
    parser.add_argument("--repeats", type=int, default=15, help=f"timed runs (≥ {MIN_REPEATS})")
    parser.add_argument("--config", choices=tuple(CONFIGS), action="append",
                        help="benchmark only this config (repeatable)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--profile", action="store_true",
                        help="instead: the BLAS share of our step and its slowest ops (no torch)")
    parser.add_argument("--worker", choices=("time", "mem-ours", "mem-torch"),
                        help=argparse.SUPPRESS)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if args.threads < 1 or args.repeats < MIN_REPEATS:
        print(f"error: expected --threads ≥ 1 and --repeats ≥ {MIN_REPEATS}, got "
              f"{args.threads} and {args.repeats}", file=sys.stderr)
        return 2
    names = tuple(args.config or CONFIGS)
    if args.profile:
        from numeric import profile

        for name in names:
            print(profile.report(profile.run(name, args.repeats)))
        return 0
    if args.worker:
        if args.worker == "time":
            result = _time_worker(names[0], args.threads, args.repeats)
        else:
            result = _mem_worker(names[0], args.threads, args.worker[4:])
        print(json.dumps(result))
        return 0
    try:
        import torch  # noqa: F401
    except ImportError:
        print("error: the benchmark needs the optional extra: pip install -e '.[torch]'",
              file=sys.stderr)
        return 2
    report = run(args.threads, args.repeats, names)
    if args.json:
        slim = [{k: c[k] for k in ("name", "ratio", "ours_ms", "torch_ms", "ours_peak_mb",
                                   "torch_peak_mb", "target", "met")} for c in report["configs"]]
        print(json.dumps({**report, "configs": slim}))
    else:
        print(f"float64, CPU, {args.threads} thread(s), median of {args.repeats} alternating runs")
        for c in report["configs"]:
            print(f"  {c['name']:<7} ours {c['ours_ms']:8.2f} ms  torch {c['torch_ms']:8.2f} ms  "
                  f"ratio {c['ratio']:.2f} (target ≤ {c['target']})  peak MB ours "
                  f"{c['ours_peak_mb']:.1f} torch {c['torch_peak_mb']:.1f}")
        tr = report["training"]
        print(f"  training (make train): test accuracy {tr['test_accuracy']:.4f} "
              f"{'reached' if tr['reached'] else 'MISSED'} in {tr['steps']} steps, "
              f"{tr['seconds']:.1f} s")
    missed = [c["name"] for c in report["configs"] if not c["met"]]
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
