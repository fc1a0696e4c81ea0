"""The producers of report data, one function per stage.

Each imports its producer lazily, so rendering from a JSON file (``--data``) needs none of
them, and a producer that does not exist yet fails with a message naming it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from reports.view.model import ReportDataError


class ProducerMissing(RuntimeError):
    """A stage's producer function cannot be imported."""


def _producer(stage: str, module: str, name: str):
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise ProducerMissing(
            f"stage {stage!r} needs {module}.{name}(), but {module} cannot be imported: {exc}"
        ) from exc
    func = getattr(mod, name, None)
    if not callable(func):
        raise ProducerMissing(f"stage {stage!r} needs {module}.{name}(), which {module} lacks")
    return func


def _plain(obj: Any) -> Any:
    return obj.to_dict() if hasattr(obj, "to_dict") else obj


# The modules each stage's producer imports.  The build imports those of the stages it runs before
# it forks their worker processes, which then start with them loaded: importing the claims
# (SymPy, and every claim checked as it is built) costs about a second in each process otherwise.
MODULES = {
    "derive": ("derivations",), "crosscheck": ("numeric.crosscheck",),
    "training": ("numeric.train",), "evidence": ("reports.audit.errata.view",),
    "errata": ("reports.audit.errata.view",),
}


def preload(stages) -> None:
    """Import the producers' modules of ``stages`` and build every shipped claim, in this
    process, so that processes forked from it start with them."""
    for name in stages:
        for module in MODULES.get(name, ()):
            importlib.import_module(module)
    if any(MODULES.get(name) for name in stages):
        importlib.import_module("derivations").claims()


# Processes that verify the claims (one per core of the 2-core build machine).
DERIVE_WORKERS = 2


def derive() -> list[dict]:
    """Every derivation chain, as ``ChainResult.to_dict()``: printed as written, with its
    definitions (the engine checked it with them unfolded)."""
    verify_all = _producer("derive", "derivations", "verify_all")
    return [_plain(result) for result in verify_all(workers=DERIVE_WORKERS)]


def crosscheck() -> dict:
    """Numeric cross-check records and the plot series: {"crosschecks", "plot_data"}."""
    run_all = _producer("crosscheck", "numeric.crosscheck", "run_all")
    plot_data = _producer("crosscheck", "numeric.crosscheck", "plot_data")
    curves: dict = {}  # the scaling curves run_all samples are the ones the plot shows
    records = [_plain(r) for r in run_all(curves)]
    return {"crosschecks": records, "plot_data": _plain(plot_data(curves))}


def training() -> dict:
    """The NumPy model's training curve: {"steps", "loss", "accuracy"}."""
    run = _producer("training", "numeric.train", "run")
    return training_curve(_plain(run()))


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


def evidence() -> list[dict]:
    """The audit's evidence computations, all that needs no derivation (run beside derive)."""
    read = _producer("evidence", "reports.audit.errata", "read")
    runs = _producer("evidence", "reports.audit.errata.view", "evidence_runs")
    return runs(read())


def errata(derive: list[dict], evidence: list[dict]) -> dict:
    """The errata registry's audit of the lecture notes: {"records", "summary", "notes"}, from
    the evidence already run and the derive stage's statuses (no claim is verified again)."""
    load = _producer("errata", "reports.audit.errata.view", "load")
    return _plain(load(statuses={c["id"]: c["status"] for c in derive}, runs=evidence))


# Which cross-checks compute the quantity another way (independent) and which confirm that
# the model evaluates the same formula (identity). numeric/ may state it as "kind"; older
# records do not, so it is read from how the record describes its comparison.
CHECK_KINDS = ("finite-difference", "monte-carlo", "pytorch", "closed-form", "identity")


def crosscheck_kind(rec: dict) -> str:
    kind = rec.get("kind")
    if kind is not None:
        if kind not in CHECK_KINDS:
            raise ReportDataError(f"crosscheck {rec.get('id')!r}.kind: expected one of "
                                  f"{list(CHECK_KINDS)}, got {kind!r}")
        return kind
    compared, ident = rec.get("compared", ""), rec.get("id", "")
    if compared.startswith("Monte Carlo"):
        return "monte-carlo"
    if "torch" in compared.lower() or "torch" in ident.lower():
        return "pytorch"
    if "FD" in compared or ident.endswith(("fd", ".fd")) or "finite diff" in compared:
        return "finite-difference"
    if "closed-form" in compared or ("Σ" in compared and "optimiser" in compared):
        return "closed-form"  # a sum over the history against the optimiser's recursion
    return "identity"


def with_kinds(data: dict) -> dict:
    """``data`` with every cross-check record carrying its kind."""
    return {**data, "crosschecks": [{**r, "kind": crosscheck_kind(r)}
                                    for r in data["crosschecks"]]}


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
