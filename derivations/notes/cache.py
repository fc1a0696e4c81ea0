"""A cache on disk of formula verdicts, so that checking a note again is quick.

A verdict is kept under a key made of everything it depends on: the reader's and the engine's
source (so a new version checks again), the formula's LaTeX and reading, the relations, the
symbol table's text, and the definitions the formula uses, each by its full SymPy form.  Editing
a definition changes the key of every formula that uses it and of no other; editing a formula
changes its own key and, if it is a definition, those of the formulas that use it.
Each entry is one small JSON file named by its key; a damaged one is ignored and recomputed.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path

import derivations

DEFAULT = Path(".cache") / "notes"


@cache
def code_version() -> str:
    """A digest of the notes reader's and the engine's source files (and the catalogue of the
    reasons they give, reasons.toml)."""
    root = Path(derivations.__file__).resolve().parent
    h = hashlib.sha256()
    for folder in ("notes", "engine"):
        for path in sorted([*(root / folder).rglob("*.py"), *(root / folder).rglob("*.toml")]):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def key(*parts: str) -> str:
    h = hashlib.sha256(code_version().encode())
    for p in parts:
        h.update(b"\x00")
        h.update(p.encode("utf-8"))
    return h.hexdigest()


class Cache:
    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def get(self, k: str) -> dict | None:
        if self.folder is None:
            return None
        path = self.folder / k[:2] / f"{k}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, k: str, value: dict) -> None:
        if self.folder is None:
            return
        path = self.folder / k[:2] / f"{k}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(value, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        tmp.replace(path)  # atomic: two runs at once never read half a file
