"""python -m derivations [list] | verify [--json] [TARGET ...]

A TARGET is a shipped claim id, a path to a ``.py`` file of your own claims, or an importable module
name (see :mod:`derivations.claimfiles`).  A line per verified claim goes to stderr as it finishes,
always, so that stdout holds only the table or the JSON.  Exit 0 if every claim is proved, 1 if any
is not, 2 for bad usage or a target that cannot be loaded (one line, no traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import derivations
from derivations import claimfiles
from derivations.cli import Parser
from derivations.core import DerivationError


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="python -m derivations",
                description="List or verify the machine-checked derivations.")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("list", help="list the claims (the default)")
    v = sub.add_parser("verify", help="check every step of the named claims (all by default)")
    v.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    v.add_argument("--workers", type=int, default=2, metavar="N",
                   help="check shipped claims in N processes (default 2; results do not depend "
                        "on it); claims from files are checked in this process")
    v.add_argument("names", nargs="*", metavar="TARGET",
                   help="a claim id, a .py file of claims, or a module name (default: every "
                        "shipped claim)")
    return p


def _list() -> int:
    for d in derivations.claims():
        print(f"{d.id:34s} {d.title}")
    return 0


def _verify(targets: list[str], as_json: bool, workers: int = 2) -> int:
    try:
        chosen = claimfiles.load_all(targets) if targets else derivations.claims()
    except claimfiles.ClaimFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    progress = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    shipped = {d.id for d in derivations.claims()}
    if all(t in shipped for t in targets):  # worker processes look claims up by id
        results = derivations.verify_all(targets or None, workers=max(1, workers),
                                         progress=progress)
    else:
        results = claimfiles.verify_many(chosen, progress=progress)
    total = time.perf_counter() - start
    if as_json:
        print(json.dumps({"claims": [
            {"id": r.id, "status": r.status, "steps": len(r.steps),
             "seconds": round(r.seconds, 3), "failed_step": r.failed_step,
             "failed_premise": r.failed_premise, "unchecked": r.unchecked,
             "counterexample": r.steps[r.failed_step - 1].counterexample
             if r.failed_step else None,
             "explanation": claimfiles.explain(r)} for r in results]},
            indent=2, ensure_ascii=False))
    else:
        print(f"{'claim':34s} {'steps':>5s} {'status':8s} {'seconds':>8s}")
        for r in results:
            print(f"{r.id:34s} {len(r.steps):5d} {r.status:8s} {r.seconds:8.2f}")
            for line in claimfiles.explain(r):
                print(f"  {line}")
        print(f"{len(results)} claim{'' if len(results) == 1 else 's'} in {total:.1f} s")
    statuses = {r.status for r in results}
    return 1 if "failed" in statuses else 0 if statuses <= {"proved"} else 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "verify":
            return _verify(args.names, args.json, args.workers)
        return _list()
    except DerivationError as exc:  # a malformed claim is refused when its module loads
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
