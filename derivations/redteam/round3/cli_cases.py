"""The command-line cases: each file of `cli/` holds one claim (its `CLAIMS`), its declared
`TRUTH`, its `CLASS` and a `witness()`; it is run as ``python -m derivations verify FILE.py``.
Here each becomes a Case whose build loads the file's claim, so that its witness is checked with
the rest; the runner sends it through the command line instead of ``verify``."""

from __future__ import annotations

import runpy
from pathlib import Path

from derivations.redteam.cases import Case

CLI_DIR = Path(__file__).parent / "cli"


def _load(path: Path) -> dict:
    return runpy.run_path(str(path))


def _case(path: Path) -> Case:
    ns = _load(path)
    return Case(f"cli_{path.stem}", ns["CLASS"], ns["TRUTH"],
                lambda p=path: _load(p)["CLAIMS"][0], ns["witness"])


FILES = sorted(CLI_DIR.glob("*.py"))
CASES: list[Case] = [_case(p) for p in FILES]


def path_of(case_id: str) -> Path | None:
    for p in FILES:
        if f"cli_{p.stem}" == case_id:
            return p
    return None
