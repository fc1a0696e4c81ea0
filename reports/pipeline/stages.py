"""The data stages of the ``make reports`` pipeline: what each computes, what it needs, its
cache key, and the scheduler that runs the misses in worker processes.

derive verifies every claim (in processes of its own); crosscheck, training and the audit's
evidence run beside it; errata then joins the evidence
with derive's statuses, so no claim is verified twice in one build, and its cache key holds
derive's results, so it never shows statuses of an earlier build.  Jobs that are not report data
(:class:`Beside`: the figures) run in the same workers as soon as the stages they need are done.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import multiprocessing
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from reports.pipeline import collect
from reports.pipeline.cache import Cache, source_hash
from reports.view import model

Log = Callable[[str], None]


def stdout(line: str) -> None:
    print(line, flush=True)


def package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin) if spec.origin else None


HERE = Path(__file__).resolve().parent
REPORTS = HERE.parent  # the reports package
NOTES_DIR = collect.NOTES_DIR


def _errata_inputs() -> list[Path]:
    """The audit's code (reports/audit) and the notes it audits."""
    return [REPORTS / "audit", NOTES_DIR]


@dataclass
class Progress:
    log: Log = stdout
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[list[str]]:
        """Time a stage; the body appends a note to the yielded list for the progress line."""
        note: list[str] = []
        start = time.perf_counter()
        try:
            yield note
        except BaseException:
            self.log(f"reports: {name:<10} {time.perf_counter() - start:7.2f} s  FAILED")
            raise
        seconds = time.perf_counter() - start
        self.timings[name] = seconds
        self.log(f"reports: {name:<10} {seconds:7.2f} s  {' '.join(note)}".rstrip())


@dataclass(frozen=True)
class Stage:
    """A data stage: ``run`` gets the results of the stages it ``needs`` as keyword arguments;
    its cache key is the hash of its ``sources`` and of those stages' keys."""

    run: Callable[..., object]
    sources: Callable[[], list[Path | None]]
    needs: tuple[str, ...] = ()


STAGES: dict[str, Stage] = {
    "derive": Stage(collect.derive, lambda: [package_dir("derivations"), HERE / "collect.py"]),
    "crosscheck": Stage(collect.crosscheck,
                        lambda: [package_dir("derivations"), package_dir("numeric")]),
    "training": Stage(collect.training,
                      lambda: [package_dir("derivations"), package_dir("numeric")]),
    # the audit's evidence runs beside derive; its report data then takes derive's statuses
    "evidence": Stage(collect.evidence, lambda: [package_dir("derivations"),
                                                 package_dir("numeric"), *_errata_inputs()]),
    "errata": Stage(collect.errata, lambda: [HERE / "collect.py", *_errata_inputs()],
                    needs=("derive", "evidence")),
    # the shipped LaTeX note read by the notes reader, shown beside its hand audit
    "notes": Stage(collect.notes_reading, lambda: [package_dir("derivations"), NOTES_DIR]),
}
# The stages whose results are the report's data (the others feed them).
REPORTED = ("derive", "crosscheck", "training", "errata", "notes")


def _timed(name: str, inputs: dict) -> tuple[object, float]:
    """Run one producer (in a worker process) and return its JSON-ready value and seconds."""
    start = time.perf_counter()
    value = STAGES[name].run(**inputs)
    # Round-trip now so a fresh result and a cached one are the same JSON data.
    value = json.loads(json.dumps(value, ensure_ascii=False))
    return value, time.perf_counter() - start


def _timed_beside(job: Beside, inputs: dict) -> tuple[object, float]:
    start = time.perf_counter()
    value = job.run(**inputs)
    return value, time.perf_counter() - start


def _keys() -> dict[str, str]:
    """The cache key of each stage that needs no other: the hash of its sources."""
    return {name: source_hash(name, stage.sources()) for name, stage in STAGES.items()
            if not stage.needs}


def _key_after(name: str, results: dict[str, object]) -> str:
    """The cache key of a stage that needs others: its sources and the *values* of the stages it
    needs, so that it is recomputed whenever one of them changed — a claim's status reaches the
    errata from this build's derive, never from an earlier one's."""
    values = json.dumps([results[d] for d in STAGES[name].needs], sort_keys=True,
                        ensure_ascii=False)
    return hashlib.sha256("\0".join([source_hash(name, STAGES[name].sources()), values])
                          .encode()).hexdigest()


def _misses(cache: Cache, keys: dict[str, str], results: dict[str, object]) -> list[str]:
    """The stages to compute, in STAGES order: each reported one not cached, and what those need
    that is not cached either; the cached values go into ``results``.  A stage that needs others
    is looked up once they are all known (here, when they are all cached; otherwise when they are
    computed, see :func:`collect_data`)."""
    misses: list[str] = []

    def visit(name: str) -> None:
        if name in results or name in misses:
            return
        for dep in STAGES[name].needs:
            visit(dep)
        if all(dep in results for dep in STAGES[name].needs):
            key = keys.get(name) or _key_after(name, results)
            keys[name] = key
            value = cache.get(name, key)
            if value is not None:
                results[name] = value
                return
        misses.append(name)

    for name in REPORTED:
        if name in STAGES:  # a pipeline without the optional notes stage (tests) still builds
            visit(name)
    return sorted(misses, key=list(STAGES).index)


@dataclass(frozen=True)
class Beside:
    """Work for the data stages' worker processes that is not report data: ``run`` gets the
    results of the stages it ``needs`` as keyword arguments, as soon as they are there, and
    its value is dropped (it fills a cache, say)."""

    name: str
    run: Callable[..., object]
    needs: tuple[str, ...]


def collect_data(cache: Cache, progress: Progress, workers: int = 2,
                 beside: tuple[Beside, ...] = ()) -> dict:
    """Run (or load from cache) each data stage and assemble report data.

    Stages run as soon as the stages they need are done; with ``workers`` > 1 the misses run
    in that many worker processes, derive first (it is the longest and verifies the claims in
    processes of its own), the others beside it, and so do the ``beside`` jobs whose stages
    are computed in this build (with one worker, or all stages cached, they are not run).
    """
    results: dict[str, object] = {}
    keys = _keys()
    misses = _misses(cache, keys, results)
    for name in STAGES:
        if name in results:
            progress.log(f"reports: {name:<10} {0:7.2f} s  cached (key {keys[name][:12]})")

    def ready(pending: list[str]) -> list[str]:
        out = []
        for name in [n for n in pending if all(d in results for d in STAGES[n].needs)]:
            if name not in keys:  # its inputs were computed in this build: look it up now
                keys[name] = _key_after(name, results)
                value = cache.get(name, keys[name])
                if value is not None:
                    pending.remove(name)
                    results[name] = value
                    progress.log(f"reports: {name:<10} {0:7.2f} s  cached (key "
                                 f"{keys[name][:12]})")
                    continue
            out.append(name)
        return out

    def done(name: str, value: object, seconds: float, how: str) -> None:
        results[name] = value
        progress.timings[name] = seconds
        progress.log(f"reports: {name:<10} {seconds:7.2f} s  {how} (key {keys[name][:12]})")

    pending = list(misses)  # in STAGES order: derive first
    if len(pending) > 1 and workers > 1:
        collect.preload(pending)
        fork = multiprocessing.get_context("fork")  # the workers inherit the preloaded modules
        with ProcessPoolExecutor(max_workers=min(workers, len(pending)), mp_context=fork) as pool:
            running: dict = {}
            jobs = [b for b in beside if any(n in misses for n in b.needs)]
            while True:
                for name in ready(pending):
                    inputs = {d: results[d] for d in STAGES[name].needs}
                    running[pool.submit(_timed, name, inputs)] = name
                    pending.remove(name)
                for job in [b for b in jobs if all(n in results for n in b.needs)]:
                    inputs = {d: results[d] for d in job.needs}
                    running[pool.submit(_timed_beside, job, inputs)] = job
                    jobs.remove(job)
                if not running:  # after the submissions: the last stages can make a job ready
                    break
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    name = running.pop(future)
                    try:
                        value, seconds = future.result()
                    except BaseException:
                        progress.log(f"reports: {getattr(name, 'name', name):<10}    FAILED")
                        raise
                    if isinstance(name, Beside):
                        progress.log(f"reports: {name.name:<10} {seconds:7.2f} s  {value} "
                                     "(beside the data stages)")
                    else:
                        done(name, value, seconds, "computed in parallel")
    else:
        while pending:
            runnable = ready(pending)  # may take a stage from the cache instead
            if not runnable:
                continue
            name = runnable[0]
            pending.remove(name)
            start = time.perf_counter()
            try:
                value, _ = _timed(name, {d: results[d] for d in STAGES[name].needs})
            except BaseException:
                progress.log(f"reports: {name:<10} {time.perf_counter() - start:7.2f} s  FAILED")
                raise
            done(name, value, time.perf_counter() - start, "computed")
    for name in misses:
        cache.put(name, keys[name], results[name])
    cross = results["crosscheck"]
    if not isinstance(cross, dict) or "crosschecks" not in cross or "plot_data" not in cross:
        raise model.ReportDataError(
            f"crosscheck stage: expected dict with 'crosschecks' and 'plot_data', got {cross!r:.80}"
        )
    return {
        "claims": results["derive"],
        "crosschecks": cross["crosschecks"],
        "plot_data": cross["plot_data"],
        "training": results["training"],
        "errata": results["errata"],
        # optional in report data (a --data file may leave it out): the LaTeX notes as read
        **({"notes_reading": results["notes"]} if "notes" in results else {}),
    }
