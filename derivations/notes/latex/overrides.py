"""The ``symbols`` block of a note: its lines read into declarations (READING.md §4).

It may read the lines and name the symbols as the reader names them; it may not apply them
(that is :func:`.notetable.apply_overrides`).  A line it cannot read is an :class:`OverrideError`
naming the line, what was expected and what came.
"""

from __future__ import annotations

import re

import sympy as sp

from derivations.notes.latex.reading import read
from derivations.notes.latex.table import Declaration, OverrideError, Overrides, SymbolTable

_KINDS_WRITTEN = {"index": "index", "size": "size", "matrix": "matrix", "vector": "vector",
                  "scalar": "scalar", "function": "function", "random": "random",
                  "label": "name", "name": "name", "imaginary": "imaginary"}


def reading_name(written: str) -> str:
    """The reading name of a symbol written in a symbols block (LaTeX or a reading name)."""
    w = written.strip()
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*(\^([A-Z]|\([A-Za-z0-9]+\)))?", w):
        return w
    got = read(w, SymbolTable())
    if not got.ok:
        raise OverrideError(f"{written!r} is no symbol: {got.why}")
    if isinstance(got.expr, sp.Symbol) and got.expr is not sp.E:
        return got.expr.name
    raise OverrideError(f"{written!r} is no single symbol")


def parse_overrides(text: str) -> Overrides:
    """The declarations of a symbols block (its lines, without the fence)."""
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"(\w+)\s*(.*)", line)
        kind = m.group(1) if m else ""
        if kind not in _KINDS_WRITTEN:
            raise OverrideError(f"line {number}: expected a kind ({', '.join(_KINDS_WRITTEN)}) "
                                f"first, got {line.split()[0]!r}; e.g. 'index i, j in 1..n'")
        rest, rng, shape, law = m.group(2), None, (), ""
        w = re.search(r"\s*(?:~|\\sim(?![A-Za-z]))\s*(.+)$", rest)
        if w:
            if kind != "random":
                raise OverrideError(f"line {number}: only a random variable has a law "
                                    f"'~ LAW', e.g. 'random q, k ~ N(0, 1)'")
            law, rest = w.group(1).strip(), rest[:w.start()]
        r = re.search(r"\s+in\s+(\S+)\s*\.\.\s*(\S+)\s*$", rest)
        if r:
            if kind != "index":
                raise OverrideError(f"line {number}: only an index has a range 'in LO..HI'")
            rng, rest = (r.group(1), r.group(2)), rest[:r.start()]
        s = re.search(r"\s*:\s*(.+)$", rest)
        if s:
            if kind not in ("vector", "matrix"):
                raise OverrideError(f"line {number}: only a vector or matrix has ': DIMS'")
            shape = tuple(d.strip() for d in re.split(r"\s*(?:x|\\times|×)\s*", s.group(1)))
            if len(shape) != (1 if kind == "vector" else 2) or not all(shape):
                want = "one dimension" if kind == "vector" else "ROWS x COLS"
                raise OverrideError(f"line {number}: expected {want} after ':', "
                                    f"got {s.group(1)!r}")
            rest = rest[:s.start()]
        names = tuple(reading_name(n) for n in rest.split(",") if n.strip())
        if not names:
            raise OverrideError(f"line {number}: expected symbols after {kind!r}")
        if kind == "imaginary" and names != ("i",):
            raise OverrideError(f"line {number}: 'imaginary' declares only i, the imaginary "
                                f"unit; got {', '.join(names)}")
        out.append(Declaration(number, _KINDS_WRITTEN[kind] if kind != "random" else "random",
                               names, rng, shape, law))
    return Overrides(tuple(out))
