"""The student edition's formulas as a lecturer writes them: ⊤ for the transpose, the
edition's letters (a simultaneous renaming), no fraction inside a fraction, a stacked result
split into its lines, the first step from the left side, and a display cut at its relations
so that it wraps on a phone."""

from __future__ import annotations

import re

from reports.render.katex import Prose, Tex
from reports.render.latex import _CLOSE, _OPEN, math_pieces
from reports.view.fractions import unnest

_TRANSPOSE = re.compile(r"\^\{?T\}?(?![A-Za-z])")


def lecturer_tex(tex: str, symbols: dict[str, str] | None = None) -> str:
    """``tex`` in the edition's notation: the transpose as ⊤ (SymPy prints ``.T`` as ``^{T}``;
    no claim of the edition writes a power T) and a claim's letters renamed to the edition's
    (``symbols``: {"\\alpha": "\\eta"}, a free symbol renamed everywhere in the claim), no
    fraction inside another's numerator (:func:`reports.view.fractions.unnest`)."""
    out = _TRANSPOSE.sub(r"^{\\top}", tex)
    if symbols:
        # one pass for all letters: a renaming is simultaneous, so {m: v, v: s} sends m to v
        # and v to s, never m on to s; the longer of two names that start alike is tried first
        names = sorted(symbols, key=len, reverse=True)
        # a letter, never the letter inside a command or a word (\\sum, \\mu, softmax)
        pattern = "|".join(("" if old.startswith("\\") else r"(?<![A-Za-z\\])")
                           + re.escape(old) for old in names)
        out = re.sub(f"(?:{pattern})(?![A-Za-z])", lambda m: symbols[m.group(0)], out)
        # a pair of indices written together, \\delta_{jk}: each is a letter of its own
        single = {o: n for o, n in symbols.items() if len(o) == len(n) == 1 and o.isalpha()}
        if single:
            out = _PAIR.sub(lambda m: "_{" + "".join(single.get(ch, ch) for ch in m.group(1))
                            + "}", out)
    # a fraction inside a fraction is set at script size: 1/σ comes out in front instead
    return unnest(out)


_PAIR = re.compile(r"_\{([A-Za-z]{2})\}")


_STACK = re.compile(r"^\\left\[\\begin\{matrix\}(.*)\\end\{matrix\}\\right\]$", re.S)


def _rows(tex: str) -> list[str] | None:
    """The entries of a column ``\\left[\\begin{matrix}a\\\\b\\end{matrix}\\right]``, else None."""
    m = _STACK.match(tex.strip())
    if not m or "&" in m.group(1):
        return None
    rows, depth, start, body = [], 0, 0, m.group(1)
    i = 0
    while i < len(body):
        if body.startswith("\\\\", i) and depth == 0:
            rows.append(body[start:i])
            start = i = i + 2
            continue
        depth += {"{": 1, "}": -1}.get(body[i], 0)
        i += 1
    rows.append(body[start:])
    return [r.strip() for r in rows]


def unstack(statement: str) -> list[str]:
    """A statement that stacks two results in column vectors, ``[a; b] = [c; d]``, as its
    lines ``a = c`` and ``b = d``; any other statement as it is."""
    left, sep, right = statement.partition(" = ")
    rows_l, rows_r = _rows(left), _rows(right)
    if sep and rows_l and rows_r and len(rows_l) == len(rows_r) > 1:
        return [f"{a} = {b}" for a, b in zip(rows_l, rows_r, strict=True)]
    return [statement]


def step_lines(tex: str, width: int) -> list[str]:
    """A step of a stacked claim as its ``width`` rows; any other step as it is."""
    rows = _rows(tex)
    return rows if rows and len(rows) == width else [tex]


def with_left_side(statement: list[str], rows: list[str]) -> list[str]:
    """The first step's ``rows`` each preceded by the left side of the statement's line they
    rewrite (``statement``: its lines ``a = b``), so that the steps read as one chain of
    equalities; a statement that is no equation, or a step that has its own, as it is."""
    left = [line.partition(" = ")[0] for line in statement]
    if len(left) != len(rows) or not all(" = " in line for line in statement):
        return rows
    return [row if " = " in row else f"{a} = {row}" for a, row in zip(left, rows, strict=True)]


_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_RELATIONS = {"le", "ge", "leq", "geq", "iff", "approx", "ne", "in", "succeq", "preceq", "lesssim"}


def _cut_relations(tex: str) -> list[str]:
    """``tex`` cut before each top-level relation (≤, ≥, ⟺, <, >), which math_pieces keeps
    whole: a chain of bounds wraps on a phone instead of running past the box."""
    pieces, depth, start, i = [], 0, 0, 0
    while i < len(tex):
        m = _COMMAND.match(tex, i)
        rel = False
        if m:
            rel = m.group(1) in _RELATIONS
            step = len(m.group(0))
        else:
            depth += {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}.get(tex[i], 0)
            rel = tex[i] in "<>"
            step = 1
        if depth < 0:
            return [tex]
        if rel and depth == 0 and tex[start:i].strip():
            pieces.append(tex[start:i].strip())
            start = i
        i += step
    pieces.append(tex[start:].strip())
    return [tex] if depth else [p for p in pieces if p]


def _list_items(tex: str) -> list[str]:
    """The items of a list written ``a,\\ b,\\ c`` at the top level of ``tex``: [a, b, c]."""
    items, depth, start = [], 0, 0
    for k, ch in enumerate(tex):
        depth += {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}.get(ch, 0)
        if depth == 0 and tex.startswith(",\\ ", k):
            items.append(tex[start:k])
            start = k + 3
    return [x.strip() for x in [*items, tex[start:]] if x.strip()]


_TRAILING_WORDS = re.compile(r"^(.*\S)\s*\\ \\text\{([^{}]+)\}$", re.S)


def trailing_words(tex: str) -> tuple[str, str]:
    """``tex`` without the words it ends with (``q_1,\\dots,k_{d_k}\\ \\text{are mutually
    independent}``) and those words: on a page they wrap as words, which inside a formula
    they cannot; a formula that ends in none, with ``""``."""
    m = _TRAILING_WORDS.match(tex)
    return (m.group(1), m.group(2).strip()) if m else (tex, "")


# a piece of a display longer than this (TeX source) that is one \left(…\right) group with
# a factor may wrap inside the group on a phone (6.3's steps, 336 px in a 334 px column)
OPEN_GROUP = 80


def _opened(piece: str) -> list[str]:
    """``piece`` cut inside its top-level ``\\left(…\\right)`` group at the group's own
    pieces, when it is long and the group can be cut: the first piece opens the bracket and the
    last closes it, each with a phantom of the whole group, so that the brackets keep the size
    they had around the whole (``\\left( \\mathllap{\\phantom{…}} a \\right.`` …
    ``\\left. c \\mathllap{\\phantom{…}} \\right)``); any other piece as it is."""
    if len(piece) < OPEN_GROUP:
        return [piece]
    # the first \\left( at the top level (never one inside a fraction's braces) and its \\right
    depth, i, m = 0, 0, None
    while i < len(piece):
        if piece.startswith("\\\\", i):
            i += 2
            continue
        opened, closed = _OPEN.match(piece, i), _CLOSE.match(piece, i)
        if opened:
            if depth == 0 and m is None:
                m = _BRACKET.match(piece, i)
                if m is None:  # a brace or another group at the top: not ours, skip it
                    depth += 1
                    i += len(opened.group(0))
                    continue
            depth += 1
            i += len(opened.group(0))
        elif closed:
            depth -= 1
            if depth == 0 and m is not None:
                break
            i += len(closed.group(0))
        else:
            i += 2 if piece[i] == "\\" else 1
    if m is None or depth != 0 or not piece.startswith("\\right", i):
        return [piece]
    inner, closing = piece[m.end():i], _RIGHT.match(piece, i).group(0)
    parts = math_pieces(inner)
    if len(parts) < 2:
        return [piece]
    # the phantom stands out to the left of where it is (\\mathllap), never past the right end
    # of its piece: a phone's column would scroll to show it
    phantom = f"\\mathllap{{\\phantom{{{inner}}}}}"
    # \\right. and \\left. each take KaTeX's null delimiter space (0.12 em), which the whole
    # group has not: kerned away, so that 「(1 −β₁)」 is spaced as it is whole
    return ([f"{piece[:m.start()]}{m.group(0)} {phantom} {parts[0]} \\right.{NULL_KERN}"]
            + parts[1:-1]
            + [f"{NULL_KERN}\\left. {parts[-1]} {phantom} {closing}{piece[i + len(closing):]}"])


NULL_KERN = "\\kern-0.12em "
_BRACKET = re.compile(r"\\left\s*(\(|\[|\\\{)")
_RIGHT = re.compile(r"\\right\s*(?:\\[A-Za-z]+|\\.|\S)")
# a relation and a right side this short (「⪰ 0」, 「= 1」) stays on the line of what it follows
SHORT_SIDE = 8


def _short_side(side: list[Tex]) -> bool:
    if len(side) != 1:
        return False
    rest = _RELATION.sub("", side[0].tex.removeprefix("\\displaystyle ").strip(), count=1)
    return len(rest.strip()) <= SHORT_SIDE


def shown(tex: Tex) -> dict:
    """A display formula as the edition shows it: whole in the PDF (which wraps it itself), and
    for the page also cut at its top-level relations and operators, so that on a phone its
    pieces wrap like words instead of scrolling."""
    units = [_opened(q) for p in math_pieces(tex.tex) for q in _cut_relations(p)]
    if sum(len(u) for u in units) < 2:
        return {"tex": tex, "pieces": [], "groups": []}
    # the formulas a display sets side by side (「A,\quad B」) are groups, and a group's sides
    # between relations (= ≤ ⟺ …) are its parts: on a narrow page a group moves to the next
    # line whole, wraps at a relation only when it alone is wider than the line, and at a
    # + or − only when one side alone is
    # A side holds units: a piece, or the pieces of one opened bracket, which move to the next
    # line together and break inside the bracket only when the whole is wider than the line.
    # Pieces sit side by side with no gap: each carries the space TeX puts before it (「{}−」,
    # 「{}=」), so that a display reads as it would whole
    groups: list[list[list[list[Tex]]]] = []
    for unit in units:
        head = _QUAD.match(unit[0])
        if head or not groups:
            groups.append([])
        first = unit[0][head.end():].strip() if head else unit[0]
        unit = [first, *unit[1:]] if first else unit[1:]
        if not unit:
            continue
        if _RELATION.match(unit[0]) or not groups[-1]:
            groups[-1].append([])
        spaced = [_spaced(x) if groups[-1][-1] or len(groups[-1]) > 1 or k else x
                  for k, x in enumerate(unit)]
        groups[-1][-1].append([Tex("\\displaystyle " + x, False, tex.label) for x in spaced])
    groups = [g for g in groups if g]
    # a short right side (「⪰ 0」) joins the piece before it: never alone on a line
    for g in groups:
        for k in range(len(g) - 1, 0, -1):
            if _short_side([u for unit in g[k] for u in unit]):
                last = g[k - 1][-1]
                joined = last[-1].tex + " " + g[k][0][0].tex.removeprefix("\\displaystyle ")
                last[-1] = Tex(joined, False, tex.label)
                del g[k]
    return {"tex": tex, "pieces": [x for g in groups for side in g for u in side for x in u],
            "groups": groups}


def _spaced(piece: str) -> str:
    """``piece`` after another on its line: with an empty atom before a relation (「{}\\le」)
    or a bracket (「(a)(b)」 cut between its groups), so that it keeps the space TeX puts
    before it; one that carries it already (「{}−」) as it is."""
    if piece.startswith(("{}", "\\left.", NULL_KERN)):
        return piece
    return "{}" + piece if _RELATION.match(piece) or piece.startswith("\\left") else piece


_QUAD = re.compile(r"\\q?quad(?![A-Za-z])")
_RELATION = re.compile(r"(?:\{\}\s*)?(?:[=<>]|\\(?:" + "|".join(sorted(_RELATIONS)) + r"|"
                       r"gtrsim|Longleftrightarrow|Rightarrow|to)(?![A-Za-z]))")


_MATH = re.compile(r"\$([^$]*)\$")


def rename_math(text: str, symbols: dict[str, str]) -> str:
    """``text`` with the letters of its ``$…$`` formulas renamed (:func:`lecturer_tex`)."""
    return _MATH.sub(lambda m: f"${lecturer_tex(m.group(1), symbols)}$", text)


_MATRIX = re.compile(r"\\begin\{[pbvBV]?matrix\}")
# a formula the words set on a line of its own: a computation too long to stand in a line of
# text (justification pulled the words before it apart), written $\displaystyle …$
_DISPLAY = re.compile(r"^\\displaystyle(?![A-Za-z])\s*")
# the punctuation after a formula that a display takes in with it, at its end
_AFTER = re.compile(r"^[，。；：、,.;:]")


def displayed_matrices(p: Prose) -> Prose:
    """``p`` with each inline formula that holds a matrix, or that the words write in display
    style (:data:`_DISPLAY`), set as a display: inline, a matrix is two lines high and pulls
    its line apart from the ones around it (and justification stretched the words before
    it); the punctuation after it goes into the display."""
    parts = list(p.parts)
    out: list = []
    for k, x in enumerate(parts):
        if isinstance(x, Tex) and not x.display and (_MATRIX.search(x.tex)
                                                     or _DISPLAY.match(x.tex)):
            after = parts[k + 1] if k + 1 < len(parts) and isinstance(parts[k + 1], str) else ""
            mark = _AFTER.match(after)
            tex = _DISPLAY.sub("", x.tex) + (f"\\text{{{mark.group(0)}}}" if mark else "")
            out.append(Tex(tex, True, x.label))
            if mark:
                parts[k + 1] = after[mark.end():].lstrip()
        elif not (isinstance(x, str) and not x):
            out.append(x)
    return Prose(tuple(out), p.missing)
