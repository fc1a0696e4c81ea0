"""Whether a reading shown back is typeset as it was read: ``faults(source, shown)``.

The shown LaTeX is parsed with the reader's own grammar and looked at for what a reader of the
page would take otherwise than the reading says: two numbers side by side with no operator
(``3 10^{-4} 500`` reads as one number), a number before a fraction of numbers
(``2 \\frac{1}{3}``, a mixed number), a fraction or a root under a script without brackets
(``\\frac{1}{2}^{3}``), decimals shown with other digits than written (``0.33`` for ``0.330``: an
≈ is judged on the digits written) and a reciprocal shown as a power ``^{-1}`` the source does
not write (``64^{-2^{-1}}`` for ``64^{-1/2}``).  That the shown form reads back to the same tree
is :func:`derivations.notes.latex.same_reading` on a second reading.
"""

from __future__ import annotations

import re
from collections import Counter

from lark import Token, Tree

from derivations.notes.latex.parser import parse

_DECIMAL = re.compile(r"(?<![\d.])\d+\.\d+")
_RECIPROCAL = re.compile(r"\^\s*\{\s*-\s*1\s*\}|\^\s*-\s*1(?!\d)")
_SCRIPTED = ("subscript", "superscript", "prime")


def faults(source: str, shown: str) -> list[str]:
    """What in ``shown`` (the reading of ``source`` typeset) is typeset otherwise than read."""
    out = []
    try:
        tree = parse(shown)
    except Exception as exc:  # noqa: BLE001 - a shown form the grammar refuses is itself a fault
        return [f"the shown form does not parse: {exc}"]
    for node in tree.iter_subtrees():
        if node.data == "product":
            kids = [k for k in node.children if not _tail(k)]
            for prev, nxt in zip(kids, kids[1:], strict=False):
                if _starts_number(nxt):
                    out.append(f"a number after a factor with no operator: {_text(prev)} "
                               f"{_text(nxt)}")
                elif _is_frac(nxt) and _starts_number(nxt.children[2]) and _ends_number(prev):
                    out.append(f"a number before a fraction of numbers: {_text(prev)} "
                               f"{_text(nxt)}")
        if node.data in _SCRIPTED and isinstance(node.children[0], Tree) and \
                node.children[0].data in ("frac", "dfrac", "sqrt", "root"):
            out.append(f"a {node.children[0].data} under a script without brackets")
    written = Counter(_DECIMAL.findall(source))
    for dec, n in Counter(_DECIMAL.findall(shown)).items():
        if n > written[dec]:
            out.append(f"the decimal {dec} is shown, the source writes "
                       f"{', '.join(sorted(written)) or 'no decimal'}")
    if len(_RECIPROCAL.findall(shown)) > len(_RECIPROCAL.findall(source)):
        out.append("a reciprocal shown as a power ^{-1} that the source does not write")
    return out


def _tail(node) -> bool:
    return isinstance(node, Tree) and node.data in ("bigop", "integral", "opapp_big")


def _is_frac(node) -> bool:
    return isinstance(node, Tree) and node.data == "frac"


def _starts_number(node) -> bool:
    if isinstance(node, Token):
        return node.type == "NUMBER"
    if node.data in _SCRIPTED or node.data == "product":
        return _starts_number(node.children[0])
    return False


def _ends_number(node) -> bool:
    if isinstance(node, Token):
        return node.type == "NUMBER"
    return node.data == "superscript" and _starts_number(node.children[0])


def _text(node) -> str:
    if isinstance(node, Token):
        return str(node)
    return "".join(_text(k) for k in node.children)
