"""The worked examples of a ``reading-examples`` block (READING.md §7, or a corpus file).

A block holds records separated by blank lines: ``latex:``, ``symbols:`` (declarations of a
symbols block, lines separated by ``|``) and ``reading:`` (an expected reading, or
``NotUnderstood``); ``#`` lines are titles.  This module only reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Example:
    title: str
    latex: str
    symbols: str
    reading: str
    line: int


def examples(text: str) -> list[Example]:
    """The examples of every ``reading-examples`` block of ``text`` (a whole file if none)."""
    blocks = re.findall(r"```reading-examples\n(.*?)```", text, re.S) or [text]
    out = []
    for block in blocks:
        base = text.find(block)
        line0 = text.count("\n", 0, base) + 1
        title, rec, start = "", {}, 0
        for k, line in enumerate(block.splitlines() + [""]):
            if not line.strip():
                if rec:
                    out.append(Example(title, rec.get("latex", ""), rec.get("symbols", ""),
                                       rec.get("reading", ""), line0 + start))
                rec = {}
                continue
            if line.startswith("#"):
                title = line.lstrip("# ").strip()
                continue
            m = re.match(r"(latex|symbols|reading):\s?(.*)", line)
            if m:
                if not rec:
                    start = k
                rec[m.group(1)] = m.group(2).strip()
    return out


def load(path: str | Path) -> list[Example]:
    return examples(Path(path).read_text(encoding="utf-8"))


def symbols_block(example: Example) -> str:
    return "\n".join(part.strip() for part in example.symbols.split("|"))
