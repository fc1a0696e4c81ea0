"""python -m derivations.redteam — run the adversarial claims and print class → count → results.

A false claim is caught when it ends ``failed`` or the engine refuses to build it (a
DerivationError); a true claim should end ``proved`` (``numeric`` only with a stated reason).
Exit status 0 only if every false claim is caught and :func:`passes` holds.
"""

from __future__ import annotations

import multiprocessing
import sys
import time

from derivations.redteam import battery, own, review, series
from derivations.redteam.cases import CASES as EARLIER
from derivations.redteam.cases import Case, Outcome, run_case

# the earlier classes, SymPy compared with mpmath (battery), an outside reviewer's (review), one
# of the symbolic route's own methods (own), and infinite series (series)
CASES: list[Case] = [*EARLIER, *battery.CASES, *review.CASES, *own.CASES, *series.CASES]
# classes about SymPy's own closed forms: a true claim there is one SymPy gets wrong or cannot
# close, so its symbolic route cannot show it — `numeric`, with that reason, is its best verdict
SYMPY_CLASSES = frozenset({"shared integration", "shared limits", "summation convention",
                           "products", "special functions", "closed forms"})
# classes whose true claims may be beyond the numeric route's reach, so refused with the reason:
# those above, limits that converge past the values near ∞ it evaluates (e^(−10^3000/n)), and
# series whose tails neither Richardson's extrapolation nor Levin's transform sums (log n/n²)
UNEVALUABLE = SYMPY_CLASSES | {"sequence limits", "series extrapolation"}


def _run_index(k: int) -> Outcome:
    return run_case(CASES[k])


def run_all(workers: int = 2, progress=None) -> list[Outcome]:
    out = []
    with multiprocessing.get_context("fork").Pool(max(1, workers)) as pool:
        for o in pool.imap(_run_index, range(len(CASES)), chunksize=1):
            if progress:
                progress(f"{o.id}: {o.result}")
            out.append(o)
    return out


def table(outcomes: list[Outcome]) -> list[str]:
    classes = list(dict.fromkeys(o.cls for o in outcomes))
    lines = [f"{'class':22s} {'false':>5s} {'caught':>6s} {'true':>4s} {'proved':>6s} "
             f"{'numeric':>7s} {'t/o':>4s} {'refused':>7s} {'failed':>6s}"]
    for cls in [*classes, None]:
        rows = [o for o in outcomes if cls is None or o.cls == cls]
        false = [o for o in rows if not o.true]
        true = [o for o in rows if o.true]
        lines.append(
            f"{cls or 'total':22s} {len(false):5d} {sum(o.ok for o in false):6d} {len(true):4d} "
            + " ".join(f"{sum(o.result == r for o in true):{w}d}" for r, w in (
                ("proved", 6), ("numeric", 7), ("timed out", 4), ("refused", 7),
                ("failed", 6))))
    return lines


def reasoned(o: Outcome) -> bool:
    """A true claim not proved says why: `numeric` or `timed out` with the route's reason, or
    refused — in the classes about SymPy's closed forms and about limits of sequences, because
    the numeric route could not evaluate the definition either (a pole, a complex integrand, a
    limit reached only past 10^2000), which the refusal names."""
    if o.result == "proved":
        return True
    if o.result in ("numeric", "timed out"):
        return bool(o.detail)
    return o.result == "refused" and o.cls in UNEVALUABLE


def bars(outcomes) -> list[tuple[float, list[Outcome]]]:
    """The true cases, each group with the share of it that must be proved: 95 % of the earlier
    ones, 90 % of the second round's (those with witnesses)."""
    witnessed = {c.id for c in CASES if c.witness is not None}
    return [(0.95, [o for o in outcomes if o.true and o.id not in witnessed]),
            (0.90, [o for o in outcomes if o.true and o.id in witnessed])]


def passes(outcomes: list[Outcome]) -> bool:
    """Every false claim caught; the true ones proved up to their ``bars``; every true one
    proved, or not with a reason."""
    false = [o for o in outcomes if not o.true]
    return (all(o.ok for o in false) and all(reasoned(o) for o in outcomes if o.true)
            and all(sum(o.result == "proved" for o in true) >= bar * len(true)
                    for bar, true in bars(outcomes)))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    start = time.perf_counter()
    outcomes = run_all(workers=1 if "--serial" in args else 2,
                       progress=lambda line: print(line, file=sys.stderr, flush=True))
    for line in table(outcomes):
        print(line)
    for o in outcomes:
        if not o.ok or (o.true and o.result != "proved") or "-v" in args:
            print(f"  {'TRUE ' if o.true else 'FALSE'} {o.id}: {o.result} {o.detail[:160]}")
    print(f"{len(outcomes)} cases in {time.perf_counter() - start:.1f} s")
    return 0 if passes(outcomes) else 1
