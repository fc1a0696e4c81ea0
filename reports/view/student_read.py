"""The student edition read back from its view: the words a reader sees, every formula, and
the letters of each chapter against the legend (one letter, one quantity)."""

from __future__ import annotations

import re

from reports.render.katex import Prose, Tex
from reports.view import edition
from reports.view.student_data import structure


def visible_text(view: dict) -> list[str]:
    """Every string of the view a reader sees (formulas and link targets excluded)."""
    out: list[str] = []

    def walk(node: object, key: str = "") -> None:
        if isinstance(node, Prose):
            out.extend(p if isinstance(p, str) else p.text for p in node.parts
                       if not isinstance(p, Tex))
        elif isinstance(node, str):
            if key not in ("href", "anchor", "key", "file", "narrow_file", "alt", "other_file",
                           "full_file",
                           "full_pdf", "lang", "name", "status", "verdict", "date", "version",
                           "type", "kind", "id"):
                out.append(node)
        elif isinstance(node, dict):
            for k, v in node.items():
                if k not in ("t", "s"):
                    walk(v, k)
        elif isinstance(node, list | tuple):
            for v in node:
                walk(v, key)

    walk(view)
    return out


_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta kappa lambda mu nu xi "
          "pi rho sigma tau phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi "
          "Omega ell").split()
_NAMED = re.compile(r"\\mathcal\s*\{?([A-Z])\}?"
                    r"|(?<![A-Za-z\\])([A-Za-z])_\{?\\(?:text|mathrm)\{(\w+)\}\}?")
_WORDS = re.compile(r"\\(?:kern|hspace|mkern|mspace)\s*\{?-?[\d.]+(?:em|mu|pt|ex)\}?"  # spacing
                    r"|\\(?:text|operatorname|mathrm|mathbb|begin|end)\{[^{}]*\}|\\mathbb ?[A-Z]"
                    r"|(?<![A-Za-z\\])e(?![A-Za-z_])")  # Euler's e, not the unit vector e_i
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_EXAMPLE = re.compile(r"\^\{?\(([a-z])\)\}?")


# σ or λ with min or max below it is a symbol of its own (an extreme singular value or
# eigenvalue), never the standard deviation σ or the weight decay λ: read as one, it is found
# unless the legend names it
EXTREMA = ("\\sigma_min", "\\sigma_max", "\\lambda_min", "\\lambda_max")


def _symbol(name: str) -> re.Pattern:
    """The pattern of a legend symbol with a subscript, ``d_k``, ``W_xh``, ``\\sigma_min``,
    ``W_out``: its letter, braced or not, then its subscript, braced, as a word
    (``\\text{out}``) or as a command (``\\min``)."""
    base, sub = name.split("_", 1)
    head = r"\\?" if len(sub) > 1 else ""  # \min, \max
    return re.compile(r"(?<![A-Za-z\\])\{?" + re.escape(base) + r"\}?_(?:\{)?"
                      r"(?:\\(?:text|mathrm)\{)?" + head + re.escape(sub)
                      + r"\}?\}?(?![A-Za-z])")


def letters(tex: str, names: tuple[str, ...] = ()) -> set[str]:
    """The letters a formula names quantities with: each Latin or Greek letter (\\mu is μ),
    a calligraphic letter (\\mathcal{V}), a letter with a word as its subscript
    (W_{\\text{out}}, k_{\\mathrm{B}}) and each of ``names`` (symbols with a subscript that
    the legend names as one: d_k, \\sigma_{\\min}) as one symbol; words (\\text,
    \\operatorname), other commands (\\sum, \\log), Euler's number e (e^x, e/(1 + e): a
    unit vector e_i always has its index) and digits are not letters. The index of an example
    in a batch, a parenthesised superscript (\\ell^{(b)}), is the symbol ``^(b)``."""
    out: set[str] = set()
    # an example of a batch is a parenthesised superscript, ℓ^{(b)}: a symbol of its own
    tex = _EXAMPLE.sub(lambda m: out.add(f"^({m[1]})") or " ", tex)
    for name in sorted(names, key=len, reverse=True):
        tex, n = _symbol(name).subn(" ", tex)
        if n:
            out.add(name)
    out |= {f"\\mathcal{{{m[1]}}}" if m[1] else f"{m[2]}_{m[3]}" for m in _NAMED.finditer(tex)}
    rest = _WORDS.sub(" ", _NAMED.sub(" ", tex))
    out |= {f"\\{m[1]}" for m in _COMMAND.finditer(rest) if m[1] in _GREEK}
    return out | set(re.findall(r"[A-Za-z]", _COMMAND.sub(" ", rest)))


def misused_letters(view: dict, legend: dict | None = None) -> list[tuple[str, str, str]]:
    """(chapter, letter, formula) for each letter of a chapter's formulas (its derivations,
    boxes, figures' words, summary, exercises, and their answers at the back) that the legend
    (render/student.toml [legend]) does not name, or that stands outside the chapters the
    legend gives it: one letter, one quantity across the edition."""
    legend = structure()["legend"] if legend is None else legend
    names = tuple(k for k in legend if "_" in k) + EXTREMA
    key = {t.get("number"): t["key"] for t in view["topics"]}
    # an answer at the back belongs to the chapter of its number (「4.1」: chapter 4)
    pages = [(t["key"], t) for t in view["topics"]]
    pages += [(key[int(str(a["number"]).split(".")[0])], a) for a in view.get("answers", [])]
    out = []
    seen: dict[str, dict[str, str]] = {}
    for chapter, page in pages:
        for f in formulas(page):
            for letter in sorted(letters(f.tex, names)):
                seen.setdefault(chapter, {}).setdefault(letter, f.tex)
                entry = legend.get(letter)
                if entry is None or chapter not in entry["chapters"]:
                    out.append((chapter, letter, f.tex))
    # an example's index is no other quantity of its chapter: ℓ^{(i)} beside the class i
    for chapter, used in seen.items():
        out += [(chapter, x, used[x]) for x in used
                if x.startswith("^(") and x[2:-1] in used]
    return out


def formulas(view: dict) -> list[Tex]:
    """Every formula the edition shows, prose included."""
    return edition.formulas({k: v for k, v in view.items() if k not in ("t", "s")})


# a formula set as words: a Greek letter, an operator or a sub/superscript glyph in the prose
_BARE = re.compile(r"[α-ωΑ-Ωϵ∂√∑=+−·×≤≥²³ᵀ₀-₉]")


def bare_formulas(view: dict) -> list[tuple[str, int, str]]:
    """(claim, step, words) for each step reason of a derivation whose words, outside its
    formulas, hold a formula typed as text (「克罗内克 δ」, "g(g + λθ + ε)", "factor ηλθ"):
    every symbol of a reason is set as a formula."""
    out = []
    for topic in view["topics"]:
        for part in topic["parts"]:
            if part.get("type") != "claim":
                continue
            steps = list(part.get("steps") or [])
            if part.get("by_definition"):
                steps.append({"number": 1, "rule": part["by_definition"]["rule"]})
            for st in steps:
                words = "".join(p if isinstance(p, str) else getattr(p, "text", "")
                                for p in st["rule"].parts if not isinstance(p, Tex))
                if _BARE.search(words):
                    out.append((part["id"], st["number"], words))
    return out
