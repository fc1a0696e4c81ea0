"""The notes reader's symbol table as the Chinese page shows it: its kinds in Chinese, and each
part of what an inference rests on through the patterns of ``i18n/notes_symbols.toml`` (the
reader words its evidence in English; this is display only, nothing is inferred here)."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

from markupsafe import Markup

TABLE = Path(__file__).resolve().parent / "i18n" / "notes_symbols.toml"
# parts that are the note's own notation (a symbol, a shape, a range), set in code font on the
# Chinese page as a reason's formula is: \x00…\x00, as reasons.code_spans reads it
NOTATION = ("x", "name", "shape", "range", "base", "f")


@cache
def _data() -> tuple[dict[str, str], list[tuple[re.Pattern, str]]]:
    data = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    kinds = {k: v["zh"] for k, v in data["kinds"].items()}
    return kinds, [(re.compile(e["en"]), e["zh"]) for e in data["evidence"]]


def kind_zh(kind: str) -> str:
    return _data()[0].get(kind, kind)


def part_zh(part: str) -> str | None:
    """One part of "rests on" in Chinese, its inner parts too; None when no pattern reads it."""
    kinds, patterns = _data()
    for pattern, zh in patterns:
        m = pattern.match(part)
        if m is None:
            continue
        groups = {}
        for name, value in m.groupdict(default="").items():
            if name in ("what", "why", "why_a", "why_b"):
                inner = rests_on_zh(value)
                if inner is None:
                    return None
                value = inner
            elif name in ("kind", "a", "b"):
                value = kinds.get(value, value)
            elif name in NOTATION or name == "n" and value and not value.isdigit():
                value = f"\x00{value}\x00"
            groups[name] = value
        return zh.format(**groups)
    return None


def rests_on_zh(text: str) -> str | None:
    """``rests on`` (parts joined by "; ") in Chinese; None when a part is not read."""
    parts = [part_zh(p) for p in text.split("; ")] if text else []
    return None if None in parts else "；".join(parts)


def _marked(text: str) -> Markup:
    """Text with its \x00…\x00 parts in ``<code>``, the rest escaped."""
    return Markup("").join(Markup('<code class="tex">{}</code>').format(p) if k % 2
                           else Markup("{}").format(p) for k, p in enumerate(text.split("\x00")))


def row_zh(row: dict) -> dict:
    """A symbol-table row for the Chinese page: its notation (a shape, a symbol named in what
    it rests on) in code font; a part no pattern reads keeps its English."""
    said = rests_on_zh(row["rests_on"])
    return {**row, "kind": kind_zh(row["kind"]),
            "shape": _marked(f"\x00{row['shape']}\x00") if row["shape"] else row["shape"],
            "rests_on": _marked(said) if said else row["rests_on"]}
