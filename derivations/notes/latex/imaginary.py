"""The imaginary unit (READING.md §2, "The imaginary unit").

READING.md identifies ``i`` leading a product of two factors or more (outside scripts, unbound),
and the upright ``\\mathrm{i}``, as the imaginary unit.  It reads as ``I`` there only when the
note writes ``i`` nowhere else — no ``x_i``, no ``\\sum_i``, no ``i = 0, …, n``, no ``2i`` — or its
symbols block says ``imaginary i``; otherwise the identification stays a refusal: ``i`` could be
the note's index.  It may not read ``i`` anywhere else.
"""

from __future__ import annotations

import re

from lark import Token

# the letter i standing alone in a source no parse tree came from (a refused formula)
_LETTER_I = re.compile(r"(?<![A-Za-z\\])i(?![A-Za-z])")


def _uses(node, leading_ok: bool, out: list):
    """Appends True to ``out`` for every ``i`` of ``node`` that is not a product's head."""
    if isinstance(node, Token):
        if node.type == "LETTER" and str(node) == "i" and not leading_ok or \
                node.type == "WORD" and "i" in str(node):
            out.append(True)
        return
    if node.data == "product" and len(node.children) > 1:
        head, *rest = node.children
        _uses(head, True, out)
        for c in rest:
            _uses(c, False, out)
        return
    if node.data in ("subscript", "superscript"):
        _uses(node.children[0], leading_ok, out)
        _uses(node.children[2], False, out)
        return
    for c in node.children:
        _uses(c, False, out)


def other_uses(tree) -> bool:
    """Whether a formula writes ``i`` other than leading a product (an index, a value …)."""
    out: list = []
    _uses(tree, False, out)
    return bool(out)


def other_uses_in_source(src: str) -> bool:
    """The same for a formula that does not parse: any ``i`` standing alone counts."""
    return bool(_LETTER_I.search(src))


def imaginary_allowed(b) -> bool:
    """Whether the builder ``b`` may read the identified ``i`` as the imaginary unit."""
    if b.t.imaginary:
        return True
    return not (b.t.i_elsewhere or b.i_elsewhere or "i" in b.t.entries or "i" in b.bound)
