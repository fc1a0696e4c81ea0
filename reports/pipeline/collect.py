"""The producers of report data, one function per stage.

Each imports what it needs when it runs (plain imports, in the function), so rendering from a
JSON file (``--data``) imports none of them, and a stage whose module cannot be imported fails
with a message naming the stage and the module.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reports.view.model import ReportDataError


class ProducerMissing(RuntimeError):
    """A module a stage's producer needs cannot be imported."""


@contextmanager
def _needs(stage: str) -> Iterator[None]:
    """Around a producer's imports (only them): an ImportError names the stage and the module."""
    try:
        yield
    except ImportError as exc:
        raise ProducerMissing(f"stage {stage!r} needs the module {exc.name or '?'}, which cannot "
                              f"be imported: {exc}") from exc


def _plain(obj: Any) -> Any:
    return obj.to_dict() if hasattr(obj, "to_dict") else obj


# Processes that verify the claims (one per core of the 2-core build machine).
DERIVE_WORKERS = 2


def _derive_modules():
    with _needs("derive"):
        import derivations
    return derivations


def derive() -> list[dict]:
    """Every derivation chain, as ``ChainResult.to_dict()``: printed as written, with its
    definitions (the engine checked it with them unfolded)."""
    derivations = _derive_modules()
    return [result.to_dict() for result in derivations.verify_all(workers=DERIVE_WORKERS)]


def _crosscheck_modules():
    with _needs("crosscheck"):
        # crosscheck.run_all imports its producers when it runs: here, so a preload has them
        from numeric import crosscheck
        from numeric.crosscheck import (  # noqa: F401
            layers,
            softmax,
            stats,
            training_layers,
            training_step,
        )
    return crosscheck


def crosscheck() -> dict:
    """Numeric cross-check records and the plot series: {"crosschecks", "plot_data"}."""
    numeric_crosscheck = _crosscheck_modules()
    curves: dict = {}  # the scaling curves run_all samples are the ones the plot shows
    records = [r.to_dict() for r in numeric_crosscheck.run_all(curves)]
    return {"crosschecks": records, "plot_data": numeric_crosscheck.plot_data(curves)}


def _training_modules():
    with _needs("training"):
        from numeric import train
    return train


def training() -> dict:
    """The NumPy model's training curve: {"steps", "loss", "accuracy"}."""
    return training_curve(_plain(_training_modules().run()))


def training_curve(result: dict) -> dict:
    """Accept both the report's shape and ``numeric.train.run``'s own
    ({"loss_curve": [per step], "test_accuracy": float, ...})."""
    if isinstance(result, dict) and "loss" in result and isinstance(result.get("steps"), list):
        return {"steps": result["steps"], "loss": result["loss"],
                "accuracy": result.get("accuracy")}
    if not isinstance(result, dict) or not isinstance(result.get("loss_curve"), list):
        raise ReportDataError(
            "stage 'training': expected {'steps': [...], 'loss': [...]} or "
            f"{{'loss_curve': [...], 'test_accuracy': ...}}, got {str(result)[:80]}"
        )
    losses = [float(x) for x in result["loss_curve"]]
    return {"steps": list(range(1, len(losses) + 1)), "loss": losses,
            "accuracy": result.get("test_accuracy")}


def _errata_modules():
    with _needs("errata"):
        from reports.audit import errata as registry
        from reports.audit.errata import view
    return registry, view


def evidence() -> list[dict]:
    """The audit's evidence computations, all that needs no derivation (run beside derive)."""
    registry, view = _errata_modules()
    return view.evidence_runs(registry.read())


def errata(derive: list[dict], evidence: list[dict]) -> dict:
    """The errata registry's audit of the lecture notes: {"records", "summary", "notes"}, from
    the evidence already run and the derive stage's statuses (no claim is verified again)."""
    _, view = _errata_modules()
    return _plain(view.load(statuses={c["id"]: c["status"] for c in derive}, runs=evidence))


# the audited notes, beside the project's folder
NOTES_DIR = Path(__file__).resolve().parents[3] / "shared" / "notes"
# the shipped notes written in Markdown + LaTeX, read by the notes reader beside their hand audit
LATEX_NOTES = ("003_a83e13780b5fae71.txt",)


def _notes_modules():
    with _needs("notes"):
        from derivations import notes
    return notes


def notes_reading() -> dict:
    """Each LaTeX note of the audit read by the notes reader: {file: its NoteResult.to_dict()}
    (every formula's verdict; the hand audit stays the errata's authority)."""
    check_text = _notes_modules().check_text
    out = {}
    for name in LATEX_NOTES:
        path = NOTES_DIR / name
        if path.is_file():
            out[name] = check_text(path.read_text(encoding="utf-8"), name).to_dict()
    return out


# What each stage's producer imports.  The build imports those of the stages it runs before it
# forks their worker processes, which then start with them loaded: importing the claims (SymPy,
# and every claim checked as it is built) costs seconds in each process otherwise.
MODULES = {"derive": _derive_modules, "crosscheck": _crosscheck_modules,
           "training": _training_modules, "evidence": _errata_modules,
           "errata": _errata_modules, "notes": _notes_modules}


def preload(stages) -> None:
    """Import the producers' modules of ``stages`` and build every shipped claim, in this
    process, so that processes forked from it start with them."""
    for name in stages:
        MODULES[name]()
    if stages:
        _derive_modules().claims()


def with_locations(data: dict, notes_dir: Path) -> dict:
    """Each erratum with the line of its note where its quote stands (``line``, 1-based),
    when the note is there to read; a quote not found keeps no line rather than a guess.
    The audit's own ``locator`` ({line, column, context}) wins when the record has one."""
    texts: dict[str, list[str] | None] = {}
    records = []
    for rec in data["errata"]["records"]:
        if isinstance(rec.get("locator"), dict):
            rec = {**rec, "line": rec["locator"].get("line"),
                   "context": rec["locator"].get("context")}
        if "line" not in rec:
            if rec["note"] not in texts:
                path = notes_dir / rec["note"]
                texts[rec["note"]] = (path.read_text(encoding="utf-8", errors="replace")
                                      .splitlines() if path.is_file() else None)
            lines = texts[rec["note"]] or []
            found = next((i for i, line in enumerate(lines, 1) if rec["quote"] in line), None)
            rec = {**rec, "line": found}
        records.append(rec)
    return {**data, "errata": {**data["errata"], "records": records}}
