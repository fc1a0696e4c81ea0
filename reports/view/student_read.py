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
_WORDS = re.compile(r"\\(?:text|operatorname|mathrm|mathbb|begin|end)\{[^{}]*\}|\\mathbb ?[A-Z]"
                    r"|(?<![A-Za-z\\])e\^")  # e^x is the exponential, not the unit vector e_i
_COMMAND = re.compile(r"\\([A-Za-z]+)")


def letters(tex: str) -> set[str]:
    """The letters a formula names quantities with: each Latin or Greek letter (\\mu is μ),
    a calligraphic letter (\\mathcal{V}), and a letter with a word as its subscript
    (W_{\\text{out}}, k_{\\mathrm{B}}) as one symbol; words (\\text, \\operatorname), other
    commands (\\sum, \\log), the exponential's e and digits are not letters."""
    out = {f"\\mathcal{{{m[1]}}}" if m[1] else f"{m[2]}_{m[3]}" for m in _NAMED.finditer(tex)}
    rest = _WORDS.sub(" ", _NAMED.sub(" ", tex))
    out |= {f"\\{m[1]}" for m in _COMMAND.finditer(rest) if m[1] in _GREEK}
    return out | set(re.findall(r"[A-Za-z]", _COMMAND.sub(" ", rest)))


def misused_letters(view: dict, legend: dict | None = None) -> list[tuple[str, str, str]]:
    """(chapter, letter, formula) for each capital letter of a chapter's formulas that the
    legend (render/student.toml [legend]) does not name, and each letter it names that stands
    outside the chapters the legend gives it: one letter, one quantity across the edition."""
    legend = structure()["legend"] if legend is None else legend
    out = []
    for topic in view["topics"]:
        for f in formulas(topic):
            for letter in sorted(letters(f.tex)):
                entry = legend.get(letter)
                if entry is None and not (letter[0].isupper() or letter.startswith("\\mathcal")):
                    continue
                if entry is None or topic["key"] not in entry["chapters"]:
                    out.append((topic["key"], letter, f.tex))
    return out


def formulas(view: dict) -> list[Tex]:
    """Every formula the edition shows, prose included."""
    return edition.formulas({k: v for k, v in view.items() if k not in ("t", "s")})
