"""A step's reason names only symbols of its claim: the symbols of its statement and steps, of
its definitions and of its assumptions' formulas, or a letter the reason itself introduces
("with A = GᵀX").  "θ cancels" where no θ occurs, or "multiply by a + b" where a and b are never
defined, reads as a slip to a student.

The reasons are read in every language the report shows them in: the engine's own text (its
Greek letters) and the display forms of claims.toml (the letters and Greek commands of their
``$…$`` math).
"""

from __future__ import annotations

import re

import pytest
import sympy as sp
from sympy.core.function import AppliedUndef

import derivations
from reports.render import i18n

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ",
    "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ",
    "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Phi": "Φ", "Gamma": "Γ",
    "Delta": "Δ", "Lambda": "Λ", "Omega": "Ω", "ell": "ℓ",
}
# letters a reason may use without the claim: π, and Σ and ∂ are operators, not symbols
OPERATORS = set("πΣ∂Δ")
MODIFIERS = ("hat", "bar", "tilde", "dot", "prime", "vec")
# TeX that names an operator or sets text: its letters are not symbols
WORDS = re.compile(r"\\(?:operatorname|text|mathrm|mathbf|mathbb|mathcal)\{[^}]*\}")
COMMAND = re.compile(r"\\([A-Za-z]+)")
# a letter the reason introduces: "A=G^\top X", "a = θ_j(m)" at the start of a formula
INTRODUCED = re.compile(r"^\s*([A-Za-z])\s*=")


def _letters_of_name(name: str) -> set[str]:
    """The letters a SymPy name shows: mhat_t -> m, t; sigma_varepsilon -> σ, ε; W_Q -> W, Q."""
    out = set()
    for part in re.split(r"[_\s,]+", name):
        for mod in MODIFIERS:
            if part.endswith(mod) and len(part) > len(mod):
                part = part[: -len(mod)]
        if part in GREEK:
            out.add(GREEK[part])
        elif part:
            out |= {ch for ch in part if ch.isalpha()}
    return out


def claim_letters(d) -> set[str]:
    """Every letter the claim shows: its symbols (bound ones too), indexed bases, matrices and
    functions, as written and as checked, its definitions and its assumptions' formulas."""
    names: set[str] = set()
    shown: set[str] = set()
    for claim in (d, d.checked):
        for e in claim.expressions:
            for a in sp.preorder_traversal(e):
                if isinstance(a, sp.Symbol | sp.MatrixSymbol | sp.IndexedBase):
                    names.add(str(a.name) if hasattr(a, "name") else str(a))
                elif isinstance(a, AppliedUndef):
                    names.add(a.func.__name__)
                elif isinstance(a, sp.KroneckerDelta):
                    shown.add("δ")
                elif isinstance(a, sp.Identity):
                    shown.add("I")
    for x in d.definitions_used:
        names.add(x.key)
        names |= {str(p) for p in x.params}
        names |= {str(s) for s in x.body.atoms(sp.Symbol)}
    letters = shown.union(*(_letters_of_name(n) for n in names))
    for a in d.assumptions:
        letters |= tex_letters(a.latex)
    return letters


def tex_letters(tex: str) -> set[str]:
    """The symbols a TeX formula shows: its single letters and Greek letters, leaving out
    operator names, text, the transpose ^T, and the d of d/dx."""
    tex = WORDS.sub(" ", re.sub(r"\\frac\{d\}\{d", r"\\frac{}{", tex))
    tex = re.sub(r"(?<![A-Za-z\\])d(?=[a-z]|\\[A-Za-z])", " ", tex)  # d/dx, dv, dσ
    out = {GREEK[c] for c in COMMAND.findall(tex) if c in GREEK}
    bare = COMMAND.sub(" ", tex)
    bare = re.sub(r"\^\s*T\b", " ", bare)  # a transpose
    bare = re.sub(r"(?<![A-Za-z])e\s*\^", " ^", bare)  # Euler's number
    bare = re.sub(r"\b(?:log|exp|tr|diag|erf|tanh|sin|cos|max|det|mod|Var|lim)\b", " ", bare)
    out |= set(re.findall(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])", bare))
    return out


def reason_letters(text: str) -> set[str]:
    """The symbols a reason names: Greek letters anywhere, and everything in its ``$…$`` math,
    less the letters it introduces itself."""
    segments = re.findall(r"\$([^$]*)\$", text)
    prose = re.sub(r"\$[^$]*\$", " ", text)
    found = {c for c in prose if c in GREEK.values()}
    introduced = set()
    for seg in segments:
        found |= tex_letters(seg)
        m = INTRODUCED.match(seg)
        if m:
            introduced.add(m.group(1))
    return found - introduced - OPERATORS


CLAIMS = derivations.claims()


def _forms(d, rule: str) -> list[tuple[str, str]]:
    out = [("engine", rule)]
    for lang in ("en", "zh"):
        t = i18n.rule(d.id, rule, lang)
        if not t.engine:
            out.append((lang, t.text))
    return out


@pytest.mark.parametrize("claim", CLAIMS, ids=[d.id for d in CLAIMS])
def test_every_reason_names_only_the_claims_symbols(claim):
    known = claim_letters(claim)
    stray = []
    for n, step in enumerate(claim.steps, start=1):
        for lang, text in _forms(claim, step.rule):
            extra = reason_letters(text) - known
            if extra:
                stray.append(f"step {n} ({lang}) {text!r}: {sorted(extra)}")
    assert not stray, f"claim {claim.id}: reasons name symbols it does not have (known: " \
                      f"{sorted(known)}):\n" + "\n".join(stray)


def test_a_reason_naming_a_stray_symbol_is_caught():
    adam = derivations.get("adam_epsilon_placement")
    assert "θ" in claim_letters(adam)  # written as (θ − …) − (θ − …): θ occurs
    softmax = derivations.get("softmax_jacobian")
    assert "θ" in reason_letters("θ cancels") - claim_letters(softmax)
    assert {"a", "b"} <= reason_letters(r"乘以共轭式 $a+b>0$") - claim_letters(softmax)


def test_letters_a_reason_introduces_or_an_operator_are_not_stray():
    assert reason_letters(r"$\partial\operatorname{tr}(AW)/\partial W=A^\top$ with "
                          r"$A=G^\top X$") == {"W", "G", "X"}
    assert reason_letters(r"$\log e^{z_k}=z_k$") == {"z", "k"}
    assert tex_letters(r"\frac{d}{dx} x^T") == {"x"}
