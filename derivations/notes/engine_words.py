"""The engine's own words (a step's reason, a refusal), keyed so that the Chinese page writes
them in Chinese: each clause of what the engine said is matched against the sentences the engine
is known to write, and a clause no pattern knows leaves the whole text as the engine wrote it
(the Chinese page then shows it in code font, named as the engine's).  The English of every key
is the engine's own text, so the terminal, ``--json`` and the English page do not change."""

from __future__ import annotations

import re

from derivations.notes.reasons import join, say

# the route's own methods, as the engine names them (derivations/engine/symbolic/check.py)
METHODS = {
    "the algebra of square matrices (a noncommutative polynomial)": "square_matrices",
    "the signs its ranges and hypotheses give its symbols": "signs",
    "a size that may be 0 taken apart: 0 and positive": "size_zero",
    "powers of a base in (0, 1) taken as values in (0, 1)": "powers",
    "the limits of the sequence's residue classes": "residue_classes",
    "rational terms summed by ψ and multiplied by Γ": "psi_gamma",
    "the limit of its partial sums or products, closed by induction": "partial_sums",
    "the bounds its hypotheses and ranges give its symbols": "bounds",
    "its equality hypotheses": "equalities",
    "sums split over their terms and held as symbols": "sums_held",
}

_SHAPE = r"(?:a scalar|an? \S+×\S+ matrix)"
# (pattern of one clause, key of the catalogue); the named groups are the key's parameters
CLAUSES = (
    (r"symbolic route: by (?P<method>.+)", "engine.symbolic_by"),
    (r"symbolic route: inconclusive \(the difference did not simplify to zero\)",
     "engine.symbolic_inconclusive"),
    (r"symbolic route: timeout \((?P<why>.+)\)", "engine.symbolic_timeout"),
    (r"found by the wider probe \((?P<probe>.+)\)", "engine.wider_probe"),
    (r"the two sides could be evaluated at only (?P<defined>\d+) of (?P<tried>\d+) points tried "
     r"\((?P<error>.+)\)", "engine.evaluated_at_few"),
    (r"the claim is undefined on most of its domain", "engine.undefined_mostly"),
    (r"declare where it holds \(ranges, a positive symbol, a hypothesis\)", "engine.declare_where"),
    (r"cannot separate the two sides at (?P<n>\d+) of the points tried \((?P<error>.+)\)",
     "engine.unseparated"),
    (r"undefined at (?P<bad>\d+) of (?P<points>\d+) points \((?P<error>.+)\)",
     "engine.undefined_at"),
    (r"(?P<found>\d+) of (?P<bad>\d+) replaced by other points", "engine.replaced_of"),
    (r"(?P<found>\d+) replaced by other points", "engine.replaced"),
    (r"shape mismatch, expected (?P<expected>\(.*\)) \(shape of the left-hand side\), "
     r"got (?P<got>\(.*\))", "engine.shape_mismatch"),
    (r"definition '(?P<name>[^']+)': (?P<symbol>\S+) is (?P<want>" + _SHAPE + r"), but its body "
     r"(?P<body>.+) is (?P<came>" + _SHAPE + r")", "engine.definition_shape"),
    (r"a definition keeps its symbol's shape", "engine.keeps_shape"),
)


def _clauses(text: str) -> list[str]:
    """``text`` cut at its "; " outside parentheses (an error inside them stays whole)."""
    out, depth, start = [], 0, 0
    for k, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0 and text.startswith("; ", k):
            out.append(text[start:k])
            start = k + 2
    return [*out, text[start:]]


def _shape(words: str):
    """"a 2×2 matrix", "an n×d_v matrix", "a scalar" as a keyed word."""
    m = re.fullmatch(r"an? (\S+)×(\S+) matrix", words)
    if m:
        return say("engine.a_matrix", rows=m.group(1), cols=m.group(2), article=words.split()[0])
    return say("engine.a_scalar")


def _clause(text: str):
    for pattern, key in CLAUSES:
        m = re.fullmatch(pattern, text)
        if m is None:
            continue
        params = dict(m.groupdict())
        if key == "engine.symbolic_by":
            if params["method"] not in METHODS:
                return None
            params["method"] = say("engine.method_" + METHODS[params["method"]])
        if key == "engine.definition_shape":
            params["want"], params["came"] = _shape(params["want"]), _shape(params["came"])
        return say(key, **params)
    return None


def said(text: str):
    """The engine's ``text`` as a keyed reason when every clause of it is one the catalogue
    words; None otherwise."""
    text = " ".join(str(text).split())
    if not text:
        return None
    parts = [_clause(c) for c in _clauses(text)]
    if any(p is None for p in parts):
        return None
    return join(*parts, sep=True)
