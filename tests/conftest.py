"""Fixtures the tests share.  The expensive ones are session-scoped, so a claim is verified, the
audit is run and the cross-checks are computed once per test process, whichever files use them.

``make test`` runs pytest-xdist (``-n 2 --dist loadfile``): a file's tests stay in one worker, so a
module-scoped fixture is computed once; a session result that several files share is computed by
the first worker that needs it and read by the other from the run's temporary folder (``once``).
"""

from __future__ import annotations

import fcntl
import json
import os
import pickle
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

import derivations
from derivations import ChainResult, verify
from derivations.claimfiles import summary
from numeric.crosscheck.live import Live
from numeric.crosscheck.live import run as run_live


def once(name: str, shared: Path, compute: Callable[[], object]) -> object:
    """``compute()`` once per test run: under xdist the first worker computes and stores it in
    ``shared`` (the run's folder above every worker's own), the others wait for it and load it."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return compute()
    path = shared / f"{name}.pickle"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if path.is_file():
            return pickle.loads(path.read_bytes())
        value = compute()
        path.write_bytes(pickle.dumps(value))
        return value


class Verified:
    """Claims verified at most once per process; a claim cited as a lemma by several claims is
    verified once for all of them (the memo ``derivations.verify_all`` keeps, kept for the whole
    session)."""

    def __init__(self) -> None:
        self.done: dict[str, ChainResult] = {}

    def result(self, claim_id: str) -> ChainResult:
        if claim_id not in self.done:
            claim = derivations.get(claim_id)
            verify(claim, done=self.done, module=derivations.module_of(claim))
        result = self.done[claim_id]
        result.module = result.module or derivations.module_of(result.derivation)
        return result

    def assert_proved(self, claim_id: str) -> ChainResult:
        """Like ``derivations.testing.assert_proved``: fail with the verifier's summary unless
        the claim is ``proved``."""
        __tracebackhide__ = True
        result = self.result(claim_id)
        if result.status != "proved":
            raise AssertionError(summary(result))
        return result

    def statuses(self, claim_ids) -> dict[str, str]:
        return {c: self.result(c).status for c in claim_ids}


# The files that take longest, longest first: under ``--dist loadfile`` with the scheduler's own
# reordering off (the Makefile), a worker starts each of them as soon as it is free, and the many
# short files fill both workers up to the end, so neither waits idle for the other.
LONGEST_FIRST = ("test_redteam.py", "test_mutation_derivations.py", "test_errata.py",
                 "test_budget.py", "test_reports_pipeline.py", "test_attention_derivation.py",
                 "test_user_claims.py", "test_reports_latex.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: n for n, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest in order


@pytest.fixture(scope="session")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's temporary folder, common to every xdist worker."""
    return tmp_path_factory.getbasetemp().parent


def _shipped() -> dict[str, ChainResult]:
    return {r.id: r for r in derivations.verify_all(workers=2)}


@pytest.fixture(scope="session")
def shipped(shared: Path) -> dict[str, ChainResult]:
    """Every shipped claim verified once per test run, in two processes, for every worker."""
    results = once("shipped", shared, _shipped)
    for r in results.values():
        # unpickling rebuilds Eq(lhs, rhs) with evaluation on: the claim is this process's own
        r.derivation = derivations.get(r.id)
    return results


@pytest.fixture(scope="session")
def verified(request: pytest.FixtureRequest) -> Verified:
    """Under xdist (``make test``) it starts from ``shipped``, so that the workers do not each
    verify the claims their files use again; a single file run verifies only what it asks."""
    v = Verified()
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        v.done.update(request.getfixturevalue("shipped"))
    return v


@pytest.fixture(scope="session")
def audit(verified: Verified, shared: Path) -> dict:
    """``errata.view.load()``: the audit of the notes, its ``see_also`` statuses from
    ``verified``."""
    from reports.audit import errata
    from reports.audit.errata import view

    def load() -> dict:
        ids = sorted({c for r in errata.read() for c in r["see_also"]})
        return view.load(statuses=verified.statuses(ids))

    return once("audit", shared, load)


@pytest.fixture(scope="session")
def crosscheck_records(shared: Path) -> list:
    """``numeric.crosscheck.run_all()`` on the unmodified model (a test that patches an op calls
    ``run_all()`` itself, after patching)."""
    from numeric import crosscheck

    return once("crosscheck_records", shared, crosscheck.run_all)


@pytest.fixture(scope="module")
def data() -> dict:
    """The report data of tests/fixtures/report_data.json (one copy per test file; a test that
    changes it works on a deep copy)."""
    return json.loads((Path(__file__).parent / "fixtures" / "report_data.json")
                      .read_text(encoding="utf-8"))


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A fresh generator for each test, seeded by its module's ``SEED`` (0 if it has none)."""
    return np.random.default_rng(getattr(request.module, "SEED", 0))


@pytest.fixture(scope="session")
def live() -> Live:
    """One forward/backward of the unmodified check model (tests that patch an op must call
    ``run_live()`` themselves, after patching)."""
    return run_live()


@pytest.fixture(autouse=True, scope="session")
def figures_drawn_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Each set of figures drawn once per test run: a build's figures are named by the hash of
    their data, their code and their font (``reports.pipeline.build._plots_key``), the key under
    which ``make reports`` keeps them too, so a build that finds a drawing under that key takes
    it instead of drawing it again (the report tests start most builds from an empty cache:
    their files took 116 CPU seconds drawing every time, 63 drawing once).  Drawing itself is
    tested where it happens: in tests/test_reports_figures.py (``plots.render``), and in
    tests/test_determinism.py, whose builds run in new interpreters and draw every figure, which
    must come out byte-identical."""
    from reports.pipeline import build

    # this run's folder: under xdist the one above every worker's own
    run = tmp_path_factory.getbasetemp()
    run = run if os.environ.get("PYTEST_XDIST_WORKER") is None else run.parent
    original = build._draw

    def draw(staged: Path, cache, key: str, data: dict) -> list[dict]:
        kept = run / "figures" / key
        with open(run / "figures.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker may be drawing the same ones
            if not (kept / "figures.json").is_file():
                figures = original(staged, cache, key, data)
                shutil.copytree(staged, kept)
                return figures
        shutil.copytree(kept, staged, dirs_exist_ok=True)
        cache.put_dir("plots", key, staged)
        return json.loads((staged / "figures.json").read_text(encoding="utf-8"))

    build._draw = draw
    yield
    build._draw = original
