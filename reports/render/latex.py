r"""LaTeX renderer: the report view -> ``report.tex``, and ``latexmk -xelatex`` -> PDF.

Templates use TeX-safe delimiters (``\BLOCK{...}``, ``\VAR{...}``, ``\#{...}``). Every
``\VAR{}`` is escaped for TeX unless it is a :class:`LatexSafe` string; SymPy's LaTeX
reaches the page only through the ``math`` filter, which returns LatexSafe.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, NamedTuple

from jinja2 import Environment, PackageLoader, StrictUndefined

from reports.render.katex import Code, Prose, Tex

TEMPLATE = "report.tex.j2"
STUDENT_TEMPLATE = "student.tex.j2"
WORK_DIR = ".texwork"
TEX_HINT = (
    "PDF needs XeLaTeX (Debian: apt-get install --no-install-recommends texlive-xetex "
    "texlive-lang-chinese texlive-fonts-recommended fonts-noto-cjk latexmk), "
    "then rerun `make reports`"
)

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # braced, so text starting with "[" after \\ or \item is not read as an optional argument
    "[": "{[}",
    "]": "{]}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))


class LatexSafe(str):
    """Text that is already TeX and must reach the output untouched."""


class LatexMissing(RuntimeError):
    """latexmk or xelatex is not on PATH."""


class LatexError(RuntimeError):
    """latexmk failed; the message carries the error lines of the log."""


def tex_escape(text: Any) -> LatexSafe:
    """Escape TeX's special characters in plain ``text`` (idempotent for LatexSafe)."""
    if isinstance(text, LatexSafe):
        return text
    return LatexSafe(_SPECIAL_RE.sub(lambda m: _SPECIAL[m.group(0)], str(text)))


def math(tex: Tex, displaystyle: bool = False, keep_numbers: bool = False) -> LatexSafe:
    """A formula as TeX: ``\\[...\\]`` for display, ``$...$`` inline (``$\\displaystyle ...$``
    with ``displaystyle``, for table cells); the formula itself passes untouched, except that
    inline a line may end after a comma and its space (TeX breaks inline math only after a
    relation or an operator, and a tuple such as (0.333, 0.333, 0.333) ran into the margin);
    ``keep_numbers`` (the student edition): no line ends in a relation or × before a number."""
    if not isinstance(tex, Tex):
        raise TypeError(f"math filter: expected Tex, got {type(tex).__name__} {tex!r:.60}")
    if tex.display:
        # \fitdisplay (report.tex.j2) sets the whole formula when it fits the line, shrinks it
        # a little when it is barely wider, and otherwise lets the pieces wrap like words
        pieces = "\\fitbreak".join(f"\\fitpiece{{{p}}}" for p in math_pieces(tex.tex))
        return LatexSafe(f"\\fitdisplay{{{tex.tex}}}{{{pieces}}}")
    inline = tex.tex.replace(", ", ",\\allowbreak ")
    inline = _keep_numbers(inline) if keep_numbers else inline
    return LatexSafe("$" + ("\\displaystyle " if displaystyle else "") + inline + "$")


# a number never starts a line after the relation or the × before it (「= / 1.462」, 「−9.95 × /
# 10⁻⁵」): TeX may break inline math after a relation or an operator, unless a penalty follows
_KEEP_NUMBER = re.compile(r"(?:([=<>])|\\(?:(approx|le|ge|leq|geq|ne|neq|sim|lesssim|gtrsim|ll|"
                          r"gg|succeq|preceq)|times|cdot)(?![A-Za-z]))(?=\s*-?\s*\d)")


# a number that ends the formula (「… + σ_q²σ_k² = 1」): its relation never breaks before it when
# the formula may break elsewhere (a + or − or another relation), so 「= 1」 never starts a line
_LAST_NUMBER = re.compile(r"\s*-?\s*[\d.]+\s*[,.]?\s*$")
_OTHER_BREAK = re.compile(r"[+=<>]|\w\s*-|\\(?:le|ge|approx)(?![A-Za-z])")


def _top(tex: str) -> str:
    """``tex`` without what its braces hold (a script or an argument never breaks)."""
    while True:
        inner = re.sub(r"\{[^{}]*\}", "", tex)
        if inner == tex:
            return tex
        tex = inner


def _keep_numbers(tex: str) -> str:
    """``tex`` with no break after a relation or × that a number follows, at its top level (a
    script never breaks); a relation may break before it instead (「Var(q⊤k) = 4096×0.1875 /
    = 768」), so that a chain of them still fits a line; before a number that ends the formula
    only when the formula has no other place to break."""
    out, last = [], 0
    for m in _KEEP_NUMBER.finditer(tex):
        before = re.sub(r"\\[{}]", "", tex[:m.start()])
        if before.count("{") != before.count("}"):
            continue
        relation = m.group(1) or m.group(2)
        ends = _LAST_NUMBER.match(tex, m.end()) and _OTHER_BREAK.search(_top(tex[:m.start()]))
        before = "" if not relation else "\\nobreak " if ends else "\\penalty500 "
        out += [tex[last:m.start()], before, m.group(0), "\\nobreak "]
        last = m.end()
    return "".join(out) + tex[last:]


_OPEN = re.compile(r"\\left\s*(?:\\[A-Za-z]+|\\.|\S)|\\begin\{[^}]*\}|[{(\[]")
_CLOSE = re.compile(r"\\right\s*(?:\\[A-Za-z]+|\\.|\S)|\\end\{[^}]*\}|[})\]]")
# a + or - right after these is a sign (or an exponent's, as in 1e-05), not an operator
_BINARY_AFTER = re.compile(r"(?:[=+\-({\[,^_]|\\left\s*\S|\\cdot|\\times|\\quad|\d[eE])\s*$")
_SPACE_CUT = re.compile(r"\\q?quad\b")


def math_pieces(tex: str) -> list[str]:
    """``tex`` cut where a display may break across lines: before a top-level ``=``, a binary
    ``+`` or ``-`` (never a sign, so a number stays whole), before ``\\quad``/``\\qquad`` and
    between two top-level ``\\left…\\right`` groups; never inside braces, brackets or
    parentheses. Operators keep their spacing (``{}+``); unbalanced input stays whole."""
    pieces, depth, start, i, last_close = [], 0, 0, 0, -1
    while i < len(tex):
        if tex.startswith("\\\\", i):  # a matrix row break, not a command
            i += 2
            continue
        opened, closed = _OPEN.match(tex, i), _CLOSE.match(tex, i)
        cut = None
        if opened:
            if depth == 0 and tex.startswith("\\left", i) and last_close >= 0 \
                    and not tex[last_close:i].strip():
                cut = i
            depth += 1
            step = len(opened.group(0))
        elif closed:
            depth -= 1
            step = len(closed.group(0))
            if depth == 0 and tex.startswith("\\right", i):
                last_close = i + step
        else:
            step = 2 if tex[i] == "\\" else 1
            if depth == 0 and i > start and (
                    (tex[i] in "=+-" and not _BINARY_AFTER.search(tex[start:i]))
                    or _SPACE_CUT.match(tex, i)):
                cut = i
        if depth < 0:
            return [tex]
        if cut is not None and tex[start:cut].strip():
            pieces.append(tex[start:cut].strip())
            start = cut
        i += step
    pieces.append(tex[start:].strip())
    if depth != 0:  # unbalanced groups: no safe cut, the formula stays one piece
        return [tex]
    out = [p if p[0] not in "=+-" else "{}" + p for p in pieces if p]
    return [q for p in out for q in (_open_long_group(p) or [p])]


# a \left(…\right) group longer than this (TeX source) may wrap inside, as \Bigl( … \Bigr)
LONG_GROUP = 200
_BIG = {"(": ")", "[": "]", r"\{": r"\}"}


def _open_long_group(piece: str) -> list[str] | None:
    """``piece``'s longest top-level ``\\left…\\right`` group opened into fixed-size
    ``\\Bigl…\\Bigr`` delimiters around its own pieces, when the group is long and its
    contents can be cut; else None."""
    groups, depth, i, begin = [], 0, 0, None
    while i < len(piece):
        if piece.startswith("\\\\", i):
            i += 2
            continue
        opened, closed = _OPEN.match(piece, i), _CLOSE.match(piece, i)
        if opened:
            if depth == 0 and piece.startswith("\\left", i):
                begin = (i, opened.group(0))
            depth += 1
            i += len(opened.group(0))
        elif closed:
            depth -= 1
            if depth == 0 and begin and piece.startswith("\\right", i):
                groups.append((begin[0], begin[1], i, closed.group(0)))
            i += len(closed.group(0))
        else:
            i += 2 if piece[i] == "\\" else 1
    if not groups:
        return None
    start, left, end, right = max(groups, key=lambda g: g[2] - g[0])
    opening = left.removeprefix("\\left").strip()
    closing = right.removeprefix("\\right").strip()
    inner = piece[start + len(left):end]
    if len(inner) < LONG_GROUP or _BIG.get(opening) != closing:
        return None
    parts = math_pieces(inner)
    if len(parts) < 2:
        return None
    parts[0] = piece[:start] + "\\Bigl" + opening + parts[0]
    parts[-1] = parts[-1] + "\\Bigr" + closing + piece[end + len(right):]
    return parts


# Identifiers, dotted paths and formula-like text have no spaces to break at; a narrow table
# column would let them run into the margin. These get a zero-cost break after them.
_BREAK_AFTER = frozenset("._-/=+,;:*×·−")
_BREAK_BEFORE = frozenset("([{")
ALLOW_BREAK = r"\allowbreak{}"


def texmatrix(rows: list[list[str]]) -> LatexSafe:
    """A matrix of numbers (a counterexample's) as a bracketed array of monospaced entries."""
    body = r" \\ ".join(" & ".join(r"\texttt{" + tex_escape(x) + "}" for x in row)
                        for row in rows)
    return LatexSafe(r"$\left[\begin{array}{" + "r" * len(rows[0]) + "}" + body
                     + r"\end{array}\right]$")


def breakable(text: Any) -> LatexSafe:
    """Escape ``text`` and allow line breaks after ``._-/=+,`` and similar and before
    opening brackets, so long identifiers and references wrap inside their column."""
    if isinstance(text, LatexSafe):
        raise TypeError(f"breakable filter: expected plain text, got LatexSafe {text!r:.60}")
    out: list[str] = []
    text = str(text)
    for i, ch in enumerate(text):
        if ch in _BREAK_BEFORE and out:
            out.append(ALLOW_BREAK)
        out.append(_SPECIAL.get(ch, ch))
        # never inside a number: 0.000999, 1e-05, −0.5 stay on one line
        nxt = text[i + 1 : i + 2]
        if ch in _BREAK_AFTER and not nxt.isdigit() and not (i and text[i - 1].isdigit()
                                                               and ch in ".,"):
            out.append(ALLOW_BREAK)
    return LatexSafe("".join(out))


def prose(p: Prose, keep_numbers: bool = False) -> LatexSafe:
    """Text with inline math: text escaped (and breakable), math as ``$...$`` (``math``'s
    ``keep_numbers``); English shown for want of a translation is marked with
    ``\\untranslated``."""
    if not isinstance(p, Prose):
        raise TypeError(f"prose filter: expected Prose, got {type(p).__name__} {p!r:.60}")
    body = "".join(math(x, keep_numbers=keep_numbers) if isinstance(x, Tex)
                   else "\\texttt{" + breakable(x.text) + "}" if isinstance(x, Code)
                   else breakable(x) for x in p.parts)
    return LatexSafe("\\untranslated{" + body + "}" if p.missing else body)


_TEX_COMMAND = re.compile(r"\\[A-Za-z]+|[{}^_\\]")


_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "Delta": "Δ", "epsilon": "ε",
    "varepsilon": "ε", "eta": "η", "theta": "θ", "lambda": "λ", "mu": "μ", "sigma": "σ",
    "Sigma": "Σ", "tau": "τ", "pi": "π", "phi": "φ", "psi": "ψ", "omega": "ω", "rho": "ρ",
    "kappa": "κ", "xi": "ξ", "partial": "∂", "nabla": "∇", "top": "ᵀ", "cdot": "·",
    "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "neq": "≠", "ne": "≠",
    "approx": "≈", "infty": "∞", "sum": "Σ", "prod": "Π", "ell": "ℓ", "to": "→", "in": "∈",
    "propto": "∝", "ll": "≪", "gg": "≫", "odot": "⊙", "otimes": "⊗", "mid": "|", "log": "log",
    "exp": "exp", "max": "max", "min": "min", "quad": " ", "qquad": " ", "sim": "~",
    "lVert": "‖", "rVert": "‖", "Vert": "‖", "|": "‖", "langle": "⟨", "rangle": "⟩",
}
_SUB = dict(zip("0123456789+-=()aehijklmnoprstuvx",
                "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
_SUP = {**dict(zip("0123456789+-=()intT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿᵗᵀ", strict=True)), "ᵀ": "ᵀ",
        " ": ""}
_ACCENTS = {"hat": "\u0302", "bar": "\u0304", "tilde": "\u0303", "vec": "\u20d7"}
_GROUP = r"\{([^{}]*)\}"


# a script that has no Unicode form is written ^(…) or _(…); its marks are held back until the
# end, so that a later pass does not read "^(" as a superscript "("
_HELD = {"^": "\x01", "_": "\x02"}


def _script(body: str, table: dict[str, str], mark: str) -> str:
    if all(c in table for c in body):
        return "".join(table[c] for c in body)
    return _HELD[mark] + (body if len(body) == 1 else f"({body})")


def tex_text(tex: str) -> str:
    """A formula as readable Unicode text (for PDF bookmarks, which cannot hold math):
    ``\\hat{m}_t = \\frac{m_t}{1-\\beta_1^t}`` -> ``m̂ₜ = mₜ/(1-β₁ᵗ)``."""
    t = re.sub(r"\\(?:left|right|(?:big|Big|bigg|Bigg)[lrm]?)\b\s*", "", tex)
    t = re.sub(r"\\(?:operatorname|mathrm|mathbf|mathit|text|textrm|mathbb|boldsymbol|bm)"
               r"\s*" + _GROUP, r"\1", t)
    t = re.sub(r"\\[,;:! ]", " ", t)
    # symbols first (so a fraction of \\eta sees one letter), the structure after
    t = re.sub(r"\\([A-Za-z]+|\|)", lambda m: _SYMBOLS.get(m[1], m[0]), t)
    for _ in range(6):  # innermost group first: nested fractions, roots and scripts
        t = re.sub(r"_" + _GROUP, lambda m: _script(m[1], _SUB, "_"), t)
        t = re.sub(r"\^" + _GROUP, lambda m: _script(m[1], _SUP, "^"), t)
        t = re.sub(r"\\[dt]?frac\s*" + _GROUP + r"\s*" + _GROUP,
                   lambda m: (m[1] if len(m[1]) < 2 else f"({m[1]})") + "/"
                   + (m[2] if len(m[2]) < 2 else f"({m[2]})"), t)
        t = re.sub(r"\\sqrt\s*" + _GROUP,
                   lambda m: "√" + (m[1] if len(m[1]) < 2 else f"({m[1]})"), t)
        t = re.sub(r"\\(hat|bar|tilde|vec)\s*(?:" + _GROUP + r"|([A-Za-z]))",
                   lambda m: (m[2] or m[3]) + _ACCENTS[m[1]], t)
        # {x}: a group of one character, not an argument of \\frac or \\sqrt
        t = re.sub(r"(?<![A-Za-z}])\{([^{}]?)\}", r"\1", t)
    t = re.sub(r"_([^\s{\\])", lambda m: _script(m[1], _SUB, "_"), t)
    t = re.sub(r"\^([^\s{\\])", lambda m: _script(m[1], _SUP, "^"), t)
    t = re.sub(r"\\([A-Za-z]+)", r"\1", t)
    for mark, held in _HELD.items():
        t = t.replace(held, mark)
    return re.sub(r"\s+", " ", t.replace("{", "").replace("}", "")).strip()


def bookmark(p: Prose) -> LatexSafe:
    """Plain text for a PDF bookmark: math as readable Unicode (:func:`tex_text`)."""
    if not isinstance(p, Prose):
        raise TypeError(f"bookmark filter: expected Prose, got {type(p).__name__}")
    return tex_escape("".join(x if isinstance(x, str) else x.text if isinstance(x, Code)
                              else tex_text(x.tex) for x in p.parts))


_BADGES = {"proved": r"\proved", "numeric": r"\numericonly", "timed out": r"\timedout",
           "failed": r"\failed",
           "correct": r"\vcorrect", "error": r"\verror", "imprecise": r"\vimprecise",
           "reported": r"\vreported",
           "out-of-scope": r"\voutofscope"}


def badge(status: str) -> LatexSafe:
    """The coloured status macro for a claim or step status, or an erratum's verdict."""
    if status not in _BADGES:
        raise ValueError(f"badge filter: expected one of {list(_BADGES)}, got {status!r}")
    return LatexSafe(_BADGES[status])


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("reports.render", "templates"),
        undefined=StrictUndefined,
        autoescape=False,
        block_start_string=r"\BLOCK{",
        block_end_string="}",
        variable_start_string=r"\VAR{",
        variable_end_string="}",
        comment_start_string=r"\#{",
        comment_end_string="}",
        line_comment_prefix="%#",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Escaping by default: whatever is not LatexSafe is text.
        finalize=tex_escape,
    )
    env.filters["math"] = math
    env.filters["badge"] = badge
    env.filters["raw"] = LatexSafe
    env.filters["e"] = tex_escape
    env.filters["breakable"] = breakable
    env.filters["texmatrix"] = texmatrix
    env.filters["prose"] = prose
    env.filters["bookmark"] = bookmark
    return env


def render(view: dict, out_dir: Path, figure_dir: str = "figures", template: str = TEMPLATE,
           name: str = "report.tex") -> Path:
    """Write ``name`` into ``out_dir``; figures as ``out_dir/<figure_dir>/<name>.pdf``.
    ``template``: the full report's, or the student edition's (:data:`STUDENT_TEMPLATE`)."""
    env = environment()
    if template == STUDENT_TEMPLATE:  # a number never starts a line after its relation
        env.filters["math"] = lambda tex, displaystyle=False: math(tex, displaystyle, True)
        env.filters["prose"] = lambda p: prose(p, keep_numbers=True)
    text = env.get_template(template).render(view=view, figure_dir=figure_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / name
    path.write_text(text, encoding="utf-8")
    return path


def tex_available() -> bool:
    return shutil.which("latexmk") is not None and shutil.which("xelatex") is not None


def _log_errors(log: Path) -> str:
    if not log.is_file():
        return "(no log written)"
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    hits = [i for i, line in enumerate(lines) if line.startswith("!") or ":error:" in line
            or re.match(r"^\S+\.tex:\d+:", line)]
    if not hits:
        return "\n".join(lines[-20:])
    first = hits[0]
    return "\n".join(lines[first : first + 12])


class Compiled(NamedTuple):
    path: Path
    missing: list[str]  # characters the fonts lack: XeTeX drops them with only a log line
    overfull: list[str]  # lines that run into the margin, also only in the log
    passes: int = 0  # XeLaTeX runs latexmk needed


_LEVELS = ("section", "subsection", "subsubsection")
_SECTIONING = re.compile(r"\\(section|subsection|subsubsection)(\*?)\{"
                         r"|\\addcontentsline\{toc\}\{(section|subsection|subsubsection)\}\{")
_LABEL = re.compile(r"\s*\\label\{([^}]*)\}")


def _group(text: str, start: int) -> tuple[str, int]:
    """The content of the balanced {...} group opening at ``start``, and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "{}" and text[i - 1] != "\\":
            depth += 1 if text[i] == "{" else -1
            if depth == 0:
                return text[start + 1:i], i + 1
    raise LatexError(f"unbalanced braces in a sectioning command at {text[start:start + 60]!r}")


def seeds(tex: str) -> tuple[str, str]:
    """A table of contents and the section labels, read off the numbered sectioning commands
    of ``tex`` (and the ``\\addcontentsline{toc}`` of unnumbered ones) with their numbers and
    page 0, as XeLaTeX would write them.

    A first XeLaTeX pass without them typesets an empty contents and ?? for every \\ref, and
    lays out the pages differently from the second; with them the first pass already has the
    final layout (page numbers sit in boxes of fixed width), so latexmk stops after the second:
    two passes instead of three, and the same PDF.  A wrong seed only costs a pass: latexmk
    runs until the files stop changing."""
    body = tex.split(r"\begin{document}", 1)[-1]
    counters = [0] * len(_LEVELS)
    toc, aux = [], [r"\relax "]
    starred = 0
    for m in _SECTIONING.finditer(body):
        title, after = _group(body, m.end() - 1)
        if m.group(3):  # an unnumbered heading put in the contents by hand
            starred += 1
            toc.append(rf"\contentsline {{{m.group(3)}}}{{{title}}}{{0}}"
                       rf"{{{m.group(3)}*.{starred}}}%")
            continue
        if m.group(2):  # starred: not numbered, not in the contents
            continue
        level = _LEVELS.index(m.group(1))
        counters[level] += 1
        counters[level + 1:] = [0] * (len(_LEVELS) - level - 1)
        number = ".".join(map(str, counters[:level + 1]))
        anchor = f"{m.group(1)}.{number}"
        toc.append(rf"\contentsline {{{m.group(1)}}}{{\numberline {{{number}}}{title}}}{{0}}"
                   rf"{{{anchor}}}%")
        label = _LABEL.match(body, after)
        if label:
            aux.append(rf"\newlabel{{{label.group(1)}}}{{{{{number}}}{{0}}{{}}{{{anchor}}}{{}}}}")
    return "\n".join(toc) + "\n", "\n".join(aux) + "\n"


def missing_glyphs(log_text: str) -> list[str]:
    return sorted(set(re.findall(r"Missing character: There is no (\S+)", log_text)))


# TeX reports boxes from 0.1pt over; below a point nobody sees it, above it the line shows
OVERFULL_VISIBLE_PT = 1.0


def overfull_boxes(log_text: str, min_pt: float = OVERFULL_VISIBLE_PT) -> list[str]:
    """Each ``Overfull \\hbox (...pt too wide) ...`` line of the log wider than ``min_pt``."""
    found = re.finditer(r"^Overfull \\hbox \(([0-9.]+)pt too wide\) .*$", log_text, flags=re.M)
    return [m.group(0) for m in found if float(m.group(1)) > min_pt]


def compile_pdf(tex_path: Path, pdf_path: Path, date_epoch: int | None = None) -> Compiled:
    """Compile ``tex_path`` with latexmk/XeLaTeX and copy the PDF to ``pdf_path``.

    SOURCE_DATE_EPOCH and FORCE_SOURCE_DATE pass through from the environment, which makes
    the PDF byte-identical across runs when they are set; without them ``date_epoch`` (the
    edition's date) is used. The scratch directory has a fixed
    name relative to the source, because xdvipdfmx hashes the output path into the PDF's /ID.
    """
    if not tex_available():
        raise LatexMissing(TEX_HINT)
    work_dir = tex_path.parent / WORK_DIR
    work_dir.mkdir(exist_ok=True)
    toc, aux = seeds(tex_path.read_text(encoding="utf-8"))
    (work_dir / f"{tex_path.stem}.toc").write_text(toc, encoding="utf-8")
    (work_dir / f"{tex_path.stem}.aux").write_text(aux, encoding="utf-8")
    cmd = [
        shutil.which("latexmk") or "latexmk",
        "-xelatex",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "-file-line-error",
        "-quiet",
        f"-outdir={WORK_DIR}",
        tex_path.name,
    ]
    # paranoid file access: TeX may read and write only below the build folder, no shell escape
    env = {**os.environ, "openin_any": "p", "openout_any": "p", "shell_escape": "f"}
    if date_epoch is not None and "SOURCE_DATE_EPOCH" not in os.environ:
        # the edition's date stands for the build time: the same source gives the same bytes
        env.update(SOURCE_DATE_EPOCH=str(date_epoch), FORCE_SOURCE_DATE="1")
    proc = subprocess.run(cmd, cwd=tex_path.parent, capture_output=True, text=True, env=env,
                          check=False)
    built = work_dir / (tex_path.stem + ".pdf")
    if proc.returncode != 0 or not built.is_file():
        raise LatexError(
            f"latexmk failed on {tex_path} (exit {proc.returncode}):\n"
            + _log_errors(work_dir / (tex_path.stem + ".log"))
        )
    log = (work_dir / (tex_path.stem + ".log")).read_text(encoding="utf-8", errors="replace")
    pdf_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built, pdf_path)
    shutil.rmtree(work_dir)
    passes = max(map(int, re.findall(r"Run number (\d+) of rule '(?:xe)?latex'", proc.stdout)),
                 default=0)
    return Compiled(pdf_path, missing_glyphs(log), overfull_boxes(log), passes)
