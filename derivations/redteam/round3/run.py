"""The runner: every witness against its declared truth, and with ``--engine`` every case through
the engine, each in its own process under a wall-time cap.

    python -m derivations.redteam.round3 [--engine] [--only ID ...] [--workers N] [--cap S]

Exit status: 1 if a witness disagrees with its case's declared truth (or a case id is unknown),
else 0 — the engine's outcomes are a measurement, not a pass/fail here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from derivations.redteam.cases import Case

CAP_SECONDS = 300
FALSE_ORDER = ("failed", "refused", "numeric", "timed out", "proved", "timeout", "crash")
TRUE_ORDER = ("proved", "numeric", "timed out", "failed", "refused", "timeout", "crash")
HEAD = {"failed": "failed", "refused": "refused", "numeric": "numeric", "timed out": "t/o",
        "proved": "proved", "timeout": f">{CAP_SECONDS}s", "crash": "crash"}

# runs one package case in a fresh process and prints one JSON line
_CASE_CODE = """
import json, resource, sys, time
from derivations import DerivationError, verify
from derivations.redteam.round3 import CASES
case = next(c for c in CASES if c.id == sys.argv[1])
start = time.perf_counter()
try:
    r = verify(case.build())
except DerivationError as exc:
    out = {"result": "refused", "detail": str(exc)}
else:
    if r.failed_premise:
        detail = f"premise {r.failed_premise!r} failed"
    elif r.failed_step:
        detail = f"step {r.failed_step} failed"
    else:
        detail = "; ".join(f"step {s.index}: {s.symbolic}/{s.numeric} {s.reason}".strip()
                           for s in r.steps if s.status != "proved" or s.reason)
    premises = ", ".join(f"{p.name}: {p.status}" for p in r.premise_checks)
    if premises:
        detail = f"{detail} [premises: {premises}]".strip()
    out = {"result": r.status, "detail": detail}
_use = resource.getrusage(resource.RUSAGE_SELF)
out["cpu"] = round(_use.ru_utime + _use.ru_stime, 2)
print(json.dumps(out))
"""
# the command line itself (python -m derivations verify FILE --json), reporting its CPU seconds
_CLI_CODE = """
import atexit, resource, runpy, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    print(f"CPU-SECONDS {r.ru_utime + r.ru_stime:.2f}", file=sys.stderr)
atexit.register(cpu)
sys.argv = ["derivations", "verify", sys.argv[1], "--json"]
runpy.run_module("derivations", run_name="__main__", alter_sys=True)
"""


@dataclass(frozen=True)
class Outcome:
    case: Case
    result: str
    detail: str
    seconds: float  # wall time of the case's process
    cpu: float | None = None  # its CPU time (None when it was killed at the cap)

    @property
    def wrong(self) -> bool:
        if self.case.true:
            return self.result != "proved"
        return self.result not in ("failed", "refused")


def check_witnesses(cases: list[Case], out=print) -> int:
    """Every witness against its declared truth; returns the number that disagree."""
    bad = 0
    for case in cases:
        start = time.perf_counter()
        try:
            got = case.witness()
        except Exception as exc:  # a witness that cannot decide disagrees
            got = f"error: {type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - start
        if got is not case.true:
            bad += 1
            out(f"WITNESS MISMATCH {case.id}: declared {case.true}, witness {got} "
                f"({seconds:.2f} s)")
    counts: dict[str, list[int]] = {}
    for case in cases:
        counts.setdefault(case.cls, [0, 0])[case.true] += 1
    for cls, (false, true) in counts.items():
        out(f"{cls:20s} false {false:3d} true {true:3d}")
    out(f"{len(cases)} cases ({sum(not c.true for c in cases)} false, "
        f"{sum(c.true for c in cases)} true, {sum(c.id.startswith('cli_') for c in cases)} "
        f"on the command line); witness mismatches: {bad}")
    return bad


def _proc_cpu(pid: int) -> float | None:
    """CPU seconds a live process has used so far (Linux /proc), read before it is killed."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _run(argv: list[str], cap: float):
    """(completed process or None if killed at the cap, wall seconds, CPU seconds at the kill)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = proc.communicate(timeout=cap)
    except subprocess.TimeoutExpired:
        cpu = _proc_cpu(proc.pid)
        proc.kill()
        proc.communicate()
        return None, time.perf_counter() - start, cpu
    done = subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)
    return done, time.perf_counter() - start, None


def _killed(case: Case, cap: float, seconds: float, cpu: float | None) -> Outcome:
    used = "" if cpu is None else f" ({cpu:.0f} s of CPU by then)"
    return Outcome(case, "timeout", f"killed after {cap:.0f} s of wall time{used}", seconds, cpu)


def engine_one(case: Case, cap: float = CAP_SECONDS) -> Outcome:
    from derivations.redteam.round3.cli_cases import path_of

    path = path_of(case.id)
    if path is None:
        proc, seconds, cpu = _run([sys.executable, "-c", _CASE_CODE, case.id], cap)
        if proc is None:
            return _killed(case, cap, seconds, cpu)
        try:
            data = json.loads(proc.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return Outcome(case, "crash", tail, seconds)
        return Outcome(case, data["result"], data["detail"], seconds, data.get("cpu"))
    proc, seconds, cpu = _run([sys.executable, "-c", _CLI_CODE, str(path)], cap)
    if proc is None:
        return _killed(case, cap, seconds, cpu)
    lines = proc.stderr.strip().splitlines()
    cpu = next((float(li.split()[1]) for li in lines if li.startswith("CPU-SECONDS")), None)
    lines = [li for li in lines if not li.startswith("CPU-SECONDS")]
    if proc.returncode == 2:
        return Outcome(case, "refused", (lines or ["exit status 2"])[-1], seconds, cpu)
    try:
        claim = json.loads(proc.stdout)["claims"][-1]
    except (json.JSONDecodeError, KeyError, IndexError):
        return Outcome(case, "crash", (lines or ["no output"])[-1], seconds, cpu)
    detail = "; ".join(claim.get("explanation") or [])
    if claim.get("failed_step"):
        detail = f"step {claim['failed_step']} failed; {detail}"
    return Outcome(case, claim["status"], f"[command line] {detail}".strip(), seconds, cpu)


def run_engine(cases: list[Case], workers: int = 2, cap: float = CAP_SECONDS,
               progress=None) -> list[Outcome]:
    with ThreadPoolExecutor(max(1, workers)) as pool:
        futures = [pool.submit(engine_one, c, cap) for c in cases]
        outcomes = []
        for f in futures:
            o = f.result()
            if progress:
                progress(f"{o.case.id}: {o.result} ({o.seconds:.1f} s wall, {_cpu(o)} CPU)")
            outcomes.append(o)
    return outcomes


def _cpu(o: Outcome) -> str:
    return "-" if o.cpu is None else f"{o.cpu:.1f} s"


def table(outcomes: list[Outcome]) -> list[str]:
    classes = list(dict.fromkeys(o.case.cls for o in outcomes))
    width = max(len(c) for c in [*classes, "total"])
    heads = " ".join(f"{HEAD[r]:>7s}" for r in FALSE_ORDER)
    theads = " ".join(f"{HEAD[r]:>7s}" for r in TRUE_ORDER)
    lines = [f"{'':{width}s} | FALSE cases{'':{len(heads) - 5}s} | TRUE cases",
             f"{'class':{width}s} | {'n':>3s} {heads} | {'n':>3s} {theads}"]
    for cls in [*classes, None]:
        rows = [o for o in outcomes if cls is None or o.case.cls == cls]
        false = [o for o in rows if not o.case.true]
        true = [o for o in rows if o.case.true]
        lines.append(
            f"{cls or 'total':{width}s} | {len(false):3d} "
            + " ".join(f"{sum(o.result == r for o in false):7d}" for r in FALSE_ORDER)
            + f" | {len(true):3d} "
            + " ".join(f"{sum(o.result == r for o in true):7d}" for r in TRUE_ORDER))
    return lines


def report(outcomes: list[Outcome], out=print) -> None:
    for line in table(outcomes):
        out(line)
    wrong = [o for o in outcomes if o.wrong]
    caught = sum(not o.case.true and not o.wrong for o in outcomes)
    proved = sum(o.case.true and not o.wrong for o in outcomes)
    nfalse = sum(not o.case.true for o in outcomes)
    out(f"false cases caught (failed or refused): {caught} of {nfalse}; "
        f"true cases proved: {proved} of {len(outcomes) - nfalse}")
    out(f"wrong outcomes: {len(wrong)}")
    for o in wrong:
        kind = "TRUE " if o.case.true else "FALSE"
        out(f"  {kind} {o.case.cls:20s} {o.case.id:48s} {o.result:9s} {o.seconds:6.1f} s wall "
            f"{_cpu(o):>8s} CPU  {' '.join(o.detail.split())[:220]}")
    out("time per case (seconds; wall, and CPU of the case's process):")
    for o in outcomes:
        out(f"  {o.case.id:56s} {o.result:9s} {o.seconds:7.1f} {_cpu(o):>8s}")
    slow = sorted(outcomes, key=lambda o: -o.seconds)[:5]
    out("slowest: " + ", ".join(f"{o.case.id} {o.seconds:.1f} s" for o in slow))


def main(argv: list[str] | None = None) -> int:
    from derivations.redteam.round3 import CASES

    parser = argparse.ArgumentParser(prog="python -m derivations.redteam.round3")
    parser.add_argument("--engine", action="store_true", help="run every case through the engine")
    parser.add_argument("--only", nargs="+", metavar="ID", help="these cases only")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cap", type=float, default=CAP_SECONDS, help="wall seconds per case")
    args = parser.parse_args(argv)
    cases = CASES
    if args.only:
        known = {c.id for c in CASES}
        unknown = [i for i in args.only if i not in known]
        if unknown:
            print(f"unknown case id(s): {', '.join(unknown)}", file=sys.stderr)
            return 1
        cases = [c for c in CASES if c.id in args.only]
    bad = check_witnesses(cases)
    if args.engine:
        start, load = time.perf_counter(), os.getloadavg()[0]
        outcomes = run_engine(cases, args.workers, args.cap,
                              progress=lambda line: print(line, file=sys.stderr, flush=True))
        report(outcomes)
        print(f"{len(outcomes)} cases through the engine in {time.perf_counter() - start:.0f} s "
              f"of wall time ({args.workers} workers, cap {args.cap:.0f} s per case; load average "
              f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)")
    return 1 if bad else 0
