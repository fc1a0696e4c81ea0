"""The producers of report data, one function per stage.

Each imports its producer lazily, so rendering from a JSON file (``--data``) needs none of
them, and a producer that does not exist yet fails with a message naming it.
"""

from __future__ import annotations

import importlib
from typing import Any

from reports.model import ReportDataError


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


def derive() -> list[dict]:
    """Every derivation chain, as ``ChainResult.to_dict()``."""
    verify_all = _producer("derive", "derivations", "verify_all")
    return [_plain(result) for result in verify_all()]


def crosscheck() -> dict:
    """Numeric cross-check records and the plot series: {"crosschecks", "plot_data"}."""
    run_all = _producer("crosscheck", "numeric.crosscheck", "run_all")
    plot_data = _producer("crosscheck", "numeric.crosscheck", "plot_data")
    return {"crosschecks": [_plain(r) for r in run_all()], "plot_data": _plain(plot_data())}


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


def errata() -> dict:
    """The errata registry's audit of the lecture notes: {"records", "summary"}."""
    load = _producer("errata", "reports.audit.errata", "load")
    return _plain(load())
