"""CPU of ``python -m derivations verify`` (every shipped claim, one worker) in this tree and in
another, side by side in one run, alternating, so that the machine's load falls on both alike.

    python -m derivations.bench OTHER_TREE [--rounds N]

OTHER_TREE is a checkout of another commit (``git worktree add`` or ``git archive``); each run
is a fresh process started in that tree's folder, with this interpreter.  Prints each run's
CPU seconds (user + system of the child), the median of each tree and their ratio, and whether
the two trees gave every claim the same status.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def _run(tree: Path) -> tuple[float, dict]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "derivations", "verify", "--json"], cwd=tree,
                          capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    statuses = {c["id"]: c["status"] for c in json.loads(proc.stdout)["claims"]}
    return cpu, statuses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m derivations.bench")
    parser.add_argument("other", type=Path, help="the other tree")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    trees = {"this": HERE, "other": args.other.resolve()}
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    seen: dict[str, dict] = {}
    for k in range(args.rounds):
        for name in (("this", "other") if k % 2 == 0 else ("other", "this")):
            seconds, statuses = _run(trees[name])
            cpu[name].append(seconds)
            seen[name] = statuses
            print(f"round {k + 1} {name:5s} ({trees[name]}): {seconds:.1f} CPU s, "
                  f"{sum(s == 'proved' for s in statuses.values())}/{len(statuses)} proved",
                  flush=True)
    this, other = (statistics.median(cpu[n]) for n in ("this", "other"))
    print(f"median CPU: this {this:.1f} s, other {other:.1f} s, ratio {this / other:.3f}")
    same = seen["this"] == seen["other"]
    differ = sorted(k for k in seen["this"] if seen["this"][k] != seen["other"].get(k))
    print("every claim the same status in both trees" if same else f"statuses differ: {differ}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
