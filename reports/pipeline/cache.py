"""The pipeline's result cache: JSON results and directories keyed by a content hash.

A stage's key is the sha256 of its sources (``source_hash``) or of its input data and the
files that render it (``content_hash``); a changed byte gives a new key, an old entry is
removed when its stage writes a new one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

CACHE_VERSION = "1"


def source_hash(stage: str, paths: list[Path | None]) -> str:
    """sha256 over every source file under ``paths`` (relative name and bytes)."""
    h = hashlib.sha256(f"{CACHE_VERSION}\0{stage}\0{sys.version_info[:2]}\0".encode())
    for root in paths:
        if root is None or not root.exists():
            h.update(b"missing\0")
            continue
        files = [root] if root.is_file() else sorted(
            p for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
        )
        for path in files:
            name = path.relative_to(root.parent).as_posix()
            h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


@dataclass
class Cache:
    """JSON results keyed by source hash; one file per stage and key."""

    root: Path
    enabled: bool = True

    def path(self, stage: str, key: str) -> Path:
        return self.root / f"{stage}-{key[:32]}.json"

    def get(self, stage: str, key: str) -> object | None:
        p = self.path(stage, key)
        if not self.enabled or not p.is_file():
            return None
        try:
            return json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # a torn or foreign file is a miss, not an error

    def put(self, stage: str, key: str, value: object) -> None:
        if not self.enabled:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        for old in self.root.glob(f"{stage}-*.json"):
            old.unlink(missing_ok=True)
        target = self.path(stage, key)
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(value, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        os.replace(tmp, target)

    def has_dir(self, stage: str, key: str) -> bool:
        """Whether a complete directory of files is cached under ``key``."""
        return self.enabled and (self.root / f"{stage}-{key[:32]}.d" / ".complete").is_file()

    def get_dir(self, stage: str, key: str, dest: Path) -> bool:
        """Copy a cached directory of files to ``dest``; False on a miss."""
        src = self.root / f"{stage}-{key[:32]}.d"
        if not self.has_dir(stage, key):
            return False
        shutil.copytree(src, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".complete"))
        return True

    def put_dir(self, stage: str, key: str, src: Path) -> None:
        if not self.enabled:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        for old in self.root.glob(f"{stage}-*.d"):
            shutil.rmtree(old, ignore_errors=True)
        target = self.root / f"{stage}-{key[:32]}.d"
        shutil.copytree(src, target)
        (target / ".complete").touch()  # written last: a half-copied entry is a miss


def content_hash(stage: str, values: list[object], files: list[Path]) -> str:
    """sha256 of JSON ``values`` and the bytes of ``files``: the key of a rendering cache."""
    h = hashlib.sha256(f"{CACHE_VERSION}\0{stage}\0".encode())
    h.update(json.dumps(values, sort_keys=True, ensure_ascii=False).encode())
    for path in files:
        h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()
