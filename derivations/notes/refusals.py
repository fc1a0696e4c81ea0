"""The engine's refusal of a link, said in the note's terms: what the note leaves unsaid and what
to write in it (its symbols block, a law, an index range) — never the engine's Python API
(``Domain(ranges=…)``, a definition's params, a claim's id), which a note cannot write.

A refusal of a known kind becomes its own message of ``reasons.toml``; any other keeps the
engine's words with its claim id and its advice to a Python author taken out.
"""

from __future__ import annotations

import re

import sympy as sp

from derivations.notes import engine_words
from derivations.notes.reasons import say

_CLAIM = re.compile(r"^claim '[^']*'(?:, step \d+ \([^)]*\))?: ")
_UNDECLARED = re.compile(r"definition '(?P<definition>[^']+)' refers to (?P<name>\S+), which is "
                         r"not declared")
_NOT_RANDOM = re.compile(r"(?P<names>[^:]+?) inside E or Var is neither random nor a constant")
_INDEX = re.compile(r"index (?P<index>\S+) is not declared in Domain")
# a clause of advice to whoever writes a claim in Python
_PYTHON = re.compile(r"Domain\s*\(|Notation|\bparams\b|claim's Domain|its Domain")


def _tex(name: str) -> str:
    from derivations.notes.latex import to_latex

    try:
        return to_latex(sp.Symbol(name))
    except Exception:  # noqa: BLE001 - a name the printer cannot write stays as it is
        return name


def engine_refusal(error: str, key: str = "link.no_claim", symbols=None):
    """The reason for a link (or a definition, ``key``) the engine refuses to state;
    ``symbols`` (the note's :class:`NoteSymbols`) tells a symbol declared in the text apart."""
    text = " ".join(str(error).split())
    m = _UNDECLARED.search(text)
    if m:
        name, bare = _tex(m.group("name")), m.group("name")
        definition = m.group("definition").replace("\\\\", "\\")
        rows = {r.name: r for r in getattr(symbols, "rows", ())}
        if bare in rows and "declared" in rows[bare].rests_on:
            # declared in the text (z ∈ ℝⁿ): a link about it only through a definition is
            # often said under a condition of the prose (a uniform guess), so not checked
            return say("refusal.through_definition", definition=definition, name=name,
                       bare=bare)
        return say("refusal.undeclared", definition=definition, name=name, bare=bare)
    m = _NOT_RANDOM.search(text)
    if m:
        names = [n.strip() for n in _CLAIM.sub("", m.group("names")).split(",")]
        return say("refusal.no_law", names=", ".join(_tex(n) for n in names),
                   first=_tex(names[0]))
    m = _INDEX.search(text)
    if m:
        return say("refusal.index_range", index=_tex(m.group("index")))
    words = engine_words.said(plain(text))
    if words is not None:  # sentences the engine is known to write: each language its own
        return say(key + "_said", error=words)
    return say(key, error=plain(text))


def plain(text: str) -> str:
    """The engine's words without its claim id and without advice to a Python author."""
    text = _CLAIM.sub("", " ".join(str(text).split()))
    parts = [p for p in re.split(r"; |—", text) if not _PYTHON.search(p)]
    return "; ".join(p.strip() for p in parts if p.strip()) or text
