"""python -m derivations [list] | verify [--json] [NAME ...]"""

from __future__ import annotations

import argparse
import json
import sys
import time

import derivations
from derivations.core import DerivationError


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line on stderr instead of usage plus message
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m derivations",
                description="List or verify the machine-checked derivations.")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("list", help="list the claims (the default)")
    v = sub.add_parser("verify", help="check every step of the named claims (all by default)")
    v.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    v.add_argument("--workers", type=int, default=2, metavar="N",
                   help="check claims in N processes (default 2; results do not depend on it)")
    v.add_argument("names", nargs="*", metavar="NAME")
    return p


def _list() -> int:
    for d in derivations.claims():
        print(f"{d.id:34s} {d.title}")
    return 0


def _verify(names: list[str], as_json: bool, workers: int = 2) -> int:
    problem = derivations.unknown_names(names)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    results = derivations.verify_all(names or None, workers=max(1, workers),
                                     progress=lambda line: print(line, file=sys.stderr, flush=True))
    total = time.perf_counter() - start
    if as_json:
        print(json.dumps({"claims": [
            {"id": r.id, "status": r.status, "steps": len(r.steps),
             "seconds": round(r.seconds, 3), "failed_step": r.failed_step,
             "failed_premise": r.failed_premise, "unchecked": r.unchecked} for r in results]},
            indent=2))
    else:
        print(f"{'claim':34s} {'steps':>5s} {'status':8s} {'seconds':>8s}")
        for r in results:
            print(f"{r.id:34s} {len(r.steps):5d} {r.status:8s} {r.seconds:8.2f}")
            for s in r.steps:
                if s.status == "failed":
                    ce = s.counterexample
                    print(f"  step {s.index} ({s.rule}) failed at {ce['point']}: "
                          f"previous {ce['previous']} vs this step {ce['current']}")
                elif s.status == "numeric" and s.reason:
                    print(f"  step {s.index} ({s.rule}) numeric only: {s.reason}")
            for p in r.premise_checks:
                if p.status in ("failed", "assumed, unchecked"):
                    print(f"  premise {p.name!r}: {p.status} — {p.detail}")
        print(f"{len(results)} claims in {total:.1f} s")
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
