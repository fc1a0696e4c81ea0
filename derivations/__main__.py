"""python -m derivations [list] | verify [--json | --budget] [TARGET ...] | report FILE.py ...
| notes PATH ...

A TARGET is a shipped claim id, a path to a ``.py`` file of your own claims, or an importable module
name (see :mod:`derivations.claimfiles`).  A line per verified claim goes to stderr as it finishes,
always, so that stdout holds only the table or the JSON.  Exit 0 if every claim is proved, 1 if any
is not, 2 for bad usage or a target that cannot be loaded (one line, no traceback). ``--budget``
prints, per claim, what each kind of budgeted computation used against its limit (SymPy operations,
see :mod:`derivations.engine.core.budget`) and the CPU seconds it took against the backstop.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import derivations
from derivations.cli import Parser

# the engine and the claim files load on first use: ``python -m derivations notes`` with its
# notes cached needs neither


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="python -m derivations",
                description="List or verify the machine-checked derivations.")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("list", help="list the claims (the default)")
    v = sub.add_parser("verify", help="check every step of the named claims (all by default)")
    shown = v.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true",
                       help="print one JSON object instead of a table")
    shown.add_argument("--budget", action="store_true",
                       help="print each claim's use of its budgets (SymPy operations) instead")
    v.add_argument("--workers", type=int, default=2, metavar="N",
                   help="check shipped claims in N processes (default 2; results do not depend "
                        "on it); claims from files are checked in this process")
    sub.add_parser("report", add_help=False,
                   help="render your claims to HTML and PDF (python -m derivations report -h)")
    sub.add_parser("notes", add_help=False,
                   help="check every formula of your Markdown + LaTeX notes "
                        "(python -m derivations notes -h)")
    v.add_argument("names", nargs="*", metavar="TARGET",
                   help="a claim id, a .py file of claims, or a module name (default: every "
                        "shipped claim)")
    return p


def _list() -> int:
    for d in derivations.claims():
        print(f"{d.id:34s} {d.title}")
    return 0


BUDGET_KINDS = ("symbolic", "numeric", "premises", "probe", "work", "digits")


def _budget_table(results) -> list[str]:
    """Each claim's use of each kind of budget: the SymPy operations of the computation nearest
    its limit and how many times that use fits in the limit; the most CPU seconds one
    computation took; and the smallest headroom of all."""
    from derivations.engine.core.budget import BACKSTOP_SECONDS
    from derivations.engine.numeric.pointwise import MAX_DIGITS, NUMERIC_OPS
    from derivations.engine.numeric.scales import WORK
    from derivations.engine.premises import PREMISE_OPS
    from derivations.engine.symbolic.check import SYMBOLIC_OPS

    # a probe point's evaluation has the numeric budget; running out skips the point; work is
    # the numeric route's own count (operations weighted by their digits), digits the highest
    # precision a value was evaluated at
    defaults = dict(zip(BUDGET_KINDS, (SYMBOLIC_OPS, NUMERIC_OPS, PREMISE_OPS, NUMERIC_OPS, WORK,
                                       MAX_DIGITS), strict=True))
    # a probe value's digits are capped lower (PROBE_MAX_DIGITS): the cap shown is the points'
    limits = {k: defaults[k] if k == "digits" else next(
        (r.usage[k].limit for r in results if k in r.usage), defaults[k]) for k in BUDGET_KINDS}
    lines = [f"{'':44s}" + "".join(f"{k:>18s}" for k in BUDGET_KINDS) + f"{'cpu':>8s}",
             f"{'claim':34s}{'status':10s}" + "".join(f"{'of ' + format(v, ','):>18s}"
                                                      for v in limits.values()) + f"{'s':>8s}"]
    smallest = None
    for r in results:
        cells = []
        for kind in BUDGET_KINDS:
            use = r.usage.get(kind)
            if use is None:
                cells.append(f"{'-':>18s}")
                continue
            cells.append(f"{use.ops:>11,} {min(use.headroom, 9999):>5.0f}x")
            if smallest is None or use.headroom < smallest[0]:
                smallest = (use.headroom, r.id, kind, use)
        cpu = max((u.cpu for u in r.usage.values()), default=0.0)
        lines.append(f"{r.id:34s}{r.status:10s}{''.join(cells)}{cpu:8.2f}")
    if smallest:
        headroom, claim, kind, use = smallest
        cpu = max((u.cpu for r in results for u in r.usage.values()), default=0.0)
        unit = {"work": "units of work", "digits": "digits"}.get(kind, "SymPy operations")
        lines.append(f"smallest headroom: {headroom:.1f}x ({claim}, {kind}: {use.ops:,} of "
                     f"{use.limit:,} {unit}); the most CPU one computation took: "
                     f"{cpu:.2f} s of the {BACKSTOP_SECONDS:g} s backstop")
    return lines


def _verify(targets: list[str], as_json: bool, workers: int = 2, budget: bool = False) -> int:
    from derivations import claimfiles
    from derivations.engine.core.status import PROVED

    try:
        chosen = claimfiles.load_all(targets) if targets else derivations.claims()
    except claimfiles.ClaimFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    progress = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    # worker processes look claims up by id; a file's claims are verified here
    files = any(map(claimfiles.path_like, targets))
    if not files and set(targets) <= {d.id for d in derivations.claims()}:
        results = derivations.verify_all(targets or None, workers=max(1, workers),
                                         progress=progress)
    else:
        results = claimfiles.verify_many(chosen, progress=progress)
    total = time.perf_counter() - start
    if as_json:
        print(json.dumps({"claims": [
            {"id": r.id, "status": r.status, "steps": len(r.steps),
             "step_status": [s.status for s in r.steps],  # every step's, in order
             "hypotheses": [str(h) for h in r.derivation.hypotheses],
             "seconds": round(r.seconds, 3), "failed_step": r.failed_step,
             "failed_premise": r.failed_premise, "unchecked": r.unchecked,
             "counterexample": r.steps[r.failed_step - 1].counterexample
             if r.failed_step else None,
             # what stopped a timed-out step: a budget of SymPy operations, the numeric
             # route's work, or the digits at which its sides could not be separated
             "timed_out": [s.timed_out for s in r.steps],
             "explanation": claimfiles.explain(r)} for r in results]},
            indent=2, ensure_ascii=False))
    elif budget:
        for line in _budget_table(results):
            print(line)
    else:
        print(f"{'claim':34s} {'steps':>5s} {'status':9s} {'seconds':>8s}")
        for r in results:
            print(f"{r.id:34s} {len(r.steps):5d} {r.status:9s} {r.seconds:8.2f}")
            for line in claimfiles.explain(r):
                print(f"  {line}")
        print(f"{len(results)} claim{'' if len(results) == 1 else 's'} in {total:.1f} s")
    return 0 if all(r.status == PROVED for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["report"]:  # the report of your own claims: reports.pipeline.mine
        from reports.pipeline import mine

        return mine.main(argv[1:])
    if argv[:1] == ["notes"]:  # your Markdown + LaTeX notes: derivations.notes
        from derivations.notes import cli

        return cli.main(argv[1:])
    args = _parser().parse_args(argv)
    from derivations.engine import DerivationError

    try:
        if args.command == "verify":
            return _verify(args.names, args.json, args.workers, args.budget)
        return _list()
    except DerivationError as exc:  # a malformed claim is refused when its module loads
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
