"""What a claim takes for granted about its symbols, as the reader should see it beside the proof.

A claim's statement holds under the assumptions its symbols are declared with (ε positive, t a
positive integer) and the index ranges of its domain (1 ≤ j ≤ n): SymPy's algebra uses both, so a
`proved` claim is proved under them, and a report that did not print them would assume them
silently.  The shapes of its matrices are given the same way (G ∈ ℝ^{n×m}).  The value ranges
of the domain only say where the numeric route draws its values, and its random variables give
E and Var their meaning; both are listed too, each with its kind.  A claim's conditions are
those of the claim as checked, its definitions unfolded: what they abbreviate is given too.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.core.claim import Derivation
from derivations.engine.core.domain import SIGNS


def _symbols(d: Derivation, found: set) -> list:
    """The claim's symbols and indexed bases among ``found`` (an index's bounds are its
    domain's, listed as a range)."""
    # an IndexedBase's label is a free symbol of its own (without the base's assumptions)
    labels = {b.label for b in found if isinstance(b, sp.IndexedBase)}
    return sorted((s for s in found if isinstance(s, sp.Symbol | sp.IndexedBase)
                   and s not in labels and s not in d.domain.indices), key=sp.default_sort_key)


def _name(s) -> str:
    return sp.latex(s[sp.Symbol("i")] if isinstance(s, sp.IndexedBase) else s)


def _tex(value) -> str:
    return sp.latex(sp.sympify(value, strict=True))


def _sign(s) -> str | None:
    for sign in SIGNS:
        if all(getattr(s, f"is_{n}", None) is True for n in sign.names):
            return f"{_name(s)} {sign.tex}"
    return None


def _shape(m: sp.MatrixSymbol) -> str:
    rows, cols = (sp.latex(sp.sympify(k, strict=True)) for k in m.shape)
    return rf"{sp.latex(m)} \in \mathbb{{R}}^{{{rows} \times {cols}}}"


def conditions(d: Derivation) -> list[dict]:
    """[{"kind": "symbol" | "hypothesis" | "index" | "sampled" | "random", "latex": ...}] for
    ``d`` as checked: symbol assumptions, matrix shapes, the claim's hypotheses (the numeric route
    draws only where they hold) and index ranges (used by the proof), value ranges (where
    the numeric route draws), random variables with their moments (what E and Var are taken
    over; these also carry the claim's "distribution": "any" or "normal", see Domain)."""
    d = d.checked
    found = d.symbols
    out = [{"kind": "symbol", "latex": tex} for tex in map(_sign, _symbols(d, found)) if tex]
    out += [{"kind": "symbol", "latex": _shape(m)}
            for m in sorted((s for s in found if isinstance(s, sp.MatrixSymbol)),
                            key=sp.default_sort_key)]
    out += [{"kind": "hypothesis", "latex": sp.latex(h)} for h in d.hypotheses]
    for idx, (lo, hi) in d.domain.indices.items():
        out.append({"kind": "index",
                    "latex": rf"{_tex(lo)} \leq {sp.latex(idx)} \leq {_tex(hi)}"})
    # a domain shared by a family of claims may name symbols this claim does not use
    names = {getattr(s, "name", None) for s in found}
    for key, (lo, hi) in d.domain.ranges.items():
        if getattr(key, "name", None) not in names:
            continue
        out.append({"kind": "sampled",
                    "latex": rf"{_name(key)} \in [{_tex(lo)}, {_tex(hi)}]"})
    for key, (mean, variance) in d.domain.random.items():
        if getattr(key, "name", None) not in names:
            continue
        name = _name(key)
        out.append({"kind": "random", "distribution": d.domain.distribution,
                    "latex": rf"\mathbb{{E}}[{name}] = {_tex(mean)},\ "
                             rf"\operatorname{{Var}}({name}) = {_tex(variance)}"})
    return out
