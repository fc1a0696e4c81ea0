"""How long single SymPy calls take in a full verification run.

    python -m derivations.sympy_timing [CLAIM ...]

Wraps the engine's two SymPy entry points while ``verify_all`` runs: every symbolic check (run
under the ``SYMBOLIC_SECONDS`` limit) and every numeric evaluation of a step at one point (the
first point of each size assignment builds the explicit form; no limit).  Prints the slowest
calls of each kind in wall time, which is at least the CPU time the limit counts; on a shared
machine it varies, so rerun to compare.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

import derivations
from derivations import chain, core

SHOWN = 5


@contextmanager
def timed_engine():
    """Yield {"symbolic": [...], "numeric": [...]} of (seconds, claim, step, outcome)."""
    calls: dict[str, list] = {"symbolic": [], "numeric": []}
    where = {"claim": "", "step": 0}
    real_symbolic, real_eval = chain.symbolic_check_detail, chain.safe_eval

    def symbolic(prev, cur, *args, **kwargs):
        start = time.perf_counter()
        out = real_symbolic(prev, cur, *args, **kwargs)
        where["step"] += 1
        calls["symbolic"].append((time.perf_counter() - start, where["claim"], where["step"],
                                  out[0]))
        return out

    def numeric(d, expr, point, structure):
        if d.id != where["claim"]:
            where.update(claim=d.id, step=0)
        start = time.perf_counter()
        out = real_eval(d, expr, point, structure)
        calls["numeric"].append((time.perf_counter() - start, d.id, where["step"] + 1,
                                 f"point {point}"))
        return out

    chain.symbolic_check_detail, chain.safe_eval = symbolic, numeric
    try:
        yield calls
    finally:
        chain.symbolic_check_detail, chain.safe_eval = real_symbolic, real_eval


def main(argv: list[str] | None = None) -> int:
    names = sys.argv[1:] if argv is None else argv
    problem = derivations.unknown_names(names)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    with timed_engine() as calls:
        results = derivations.verify_all(names or None, workers=1)
    total = time.perf_counter() - start
    print(f"{len(results)} claims in {total:.1f} s; symbolic limit {core.SYMBOLIC_SECONDS} s")
    for kind, rows in calls.items():
        print(f"slowest {kind} calls ({len(rows)} calls, {sum(r[0] for r in rows):.1f} s in all):")
        for seconds, claim, step, outcome in sorted(rows, reverse=True)[:SHOWN]:
            print(f"  {seconds:7.3f} s  {claim} step {step}  {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
