"""The worked examples of a ``reading-examples`` block (READING.md §7, or a corpus file).

A block holds records separated by blank lines: ``latex:``, ``symbols:`` (declarations of a
symbols block, lines separated by ``|``) and ``reading:`` (an expected reading, or
``NotUnderstood``), optionally ``note:`` (other formulas of the note the table is inferred from
too, separated by ``;;``) and ``printed:`` (the reading's LaTeX as it is shown back),
``verdict:`` (the note level's verdict on the formula, checked with ``text:``, Markdown
paragraphs before it separated by ``;;``, and the symbols block); ``#`` lines
are titles.  A labelled corpus's ``formulas.toml`` (records
``[[formula]]`` with ``file``, ``latex`` and ``reading``, "not understood: …" for a refusal) is
read too: each formula then comes with the other formulas of its note, in order, and the note's
``symbols`` block when it has one.  This module only reads them.
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
    note_formulas: tuple = ()  # the formulas of its note, for the symbol table
    printed: str = ""  # the reading's LaTeX, when the example says it
    verdict: str = ""  # the note level's verdict on the formula, when the example says it
    text: tuple = ()  # Markdown paragraphs of the note before the formula (for the verdict)


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
                    note = tuple(f.strip() for f in rec.get("note", "").split(";;") if f.strip())
                    out.append(Example(title, rec.get("latex", ""), rec.get("symbols", ""),
                                       rec.get("reading", ""), line0 + start,
                                       (*note, rec["latex"]) if note else (),
                                       rec.get("printed", ""), rec.get("verdict", ""),
                                       tuple(p.strip() for p in rec.get("text", "").split(";;")
                                             if p.strip())))
                rec = {}
                continue
            if line.startswith("#"):
                title = line.lstrip("# ").strip()
                continue
            m = re.match(r"(latex|symbols|reading|note|printed|verdict|text):\s?(.*)", line)
            if m:
                if not rec:
                    start = k
                rec[m.group(1)] = m.group(2).strip()
    return out


def load(path: str | Path) -> list[Example]:
    path = Path(path)
    if path.suffix == ".toml":
        return _corpus(path)
    return examples(path.read_text(encoding="utf-8"))


def _corpus(path: Path) -> list[Example]:
    import tomllib

    records = tomllib.loads(path.read_text(encoding="utf-8")).get("formula", [])
    by_note: dict[str, list[str]] = {}
    for r in records:
        by_note.setdefault(r["file"], []).append(r["latex"])
    out = []
    for k, r in enumerate(records):
        note = path.parent / "notes" / r["file"]
        block = ""
        if note.exists():
            m = re.search(r"```symbols\n(.*?)```", note.read_text(encoding="utf-8"), re.S)
            block = m.group(1).replace("\n", " | ") if m else ""
        reading = r.get("reading", "")
        if reading.lower().startswith("not understood"):
            reading = "NotUnderstood"
        out.append(Example(r["file"], r["latex"], block, reading, k + 1,
                           tuple(by_note[r["file"]])))
    return out


def symbols_block(example: Example) -> str:
    return "\n".join(part.strip() for part in example.symbols.split("|"))
