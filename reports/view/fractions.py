r"""Fractions as a lecturer sets them: never a fraction inside a fraction's numerator or
denominator, where TeX sets it at script size (half the text's). SymPy prints
``(δ − 1/d − x̂x̂/d)/σ`` as ``\frac{\delta - \frac{1}{d} - \frac{\hat x \hat x}{d}}{\sigma}``;
the edition shows ``\frac{1}{\sigma}\left(\delta - \frac{1}{d} - \frac{\hat x \hat x}{d}\right)``,
the same value with every fraction at full size.
"""

from __future__ import annotations

import re

from reports.render.latex import math_pieces

_FRAC = re.compile(r"\\[dt]?frac(?![A-Za-z])")


def _group(tex: str, start: int) -> int | None:
    """The index after the balanced ``{…}`` opening at ``start`` (spaces before it skipped),
    or None when no group opens there."""
    while start < len(tex) and tex[start] == " ":
        start += 1
    if start >= len(tex) or tex[start] != "{":
        return None
    depth = 0
    for i in range(start, len(tex)):
        if tex[i] == "\\":
            continue
        if tex[i] in "{}" and tex[i - 1] != "\\":
            depth += 1 if tex[i] == "{" else -1
            if depth == 0:
                return i + 1
    return None


def fractions(tex: str) -> list[tuple[int, int, int, int]]:
    """Each ``\\frac{A}{B}`` of ``tex`` as (start, end of A's group, end of B's group, start of
    A's group), outermost and innermost alike, in reading order."""
    out = []
    for m in _FRAC.finditer(tex):
        a_end = _group(tex, m.end())
        b_end = _group(tex, a_end) if a_end is not None else None
        if b_end is not None:
            out.append((m.start(), a_end, b_end, tex.index("{", m.end())))
    return out


def nested(tex: str) -> list[str]:
    """The fractions of ``tex`` that hold another fraction in their numerator or denominator
    (empty when none does)."""
    return [tex[s:b] for s, a, b, _ in fractions(tex) if _FRAC.search(tex, s + 5, b)]


def unnest(tex: str) -> str:
    """``tex`` with each ``\\frac{A}{B}`` whose numerator A holds a fraction written
    ``\\frac{1}{B} A`` (``\\frac{1}{B}\\left(A\\right)`` when A is a sum), innermost first.
    A fraction in a denominator is left as it is (no formula of the edition has one)."""
    for s, a, b, a_open in reversed(fractions(tex)):
        num, den = tex[a_open + 1:a - 1], tex[tex.index("{", a):b][1:-1]
        if not _FRAC.search(num) or _FRAC.search(den):
            continue
        inner = unnest(num)
        body = f"\\left({inner}\\right)" if len(math_pieces(inner)) > 1 else inner
        return unnest(f"{tex[:s]}\\frac{{1}}{{{den}}} {body}{tex[b:]}")
    return tex
