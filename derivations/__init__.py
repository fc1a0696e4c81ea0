"""Machine-checked derivations of the math behind Transformers.

``from derivations import softmax`` gives a module with its final results as SymPy objects and its
claims (``CLAIMS``); :func:`claims` lists every claim; :func:`verify_all` checks them.
"""

from __future__ import annotations

import importlib

from derivations.core import (
    Assumption,
    ChainResult,
    Derivation,
    DerivationError,
    Domain,
    Step,
    lemma,
    verify,
    with_step,
)
from derivations.stochastic import E, Var

MODULES = ("attention_scaling", "softmax", "cross_entropy", "linear", "adam", "attention",
           "layernorm", "gelu", "positions", "embedding", "mask", "multihead", "ignore_index",
           "adamw", "hessian")

__all__ = [
    "Assumption", "ChainResult", "Derivation", "DerivationError", "Domain", "E", "Step", "Var",
    "MODULES", "claims", "get", "lemma", "modules", "unknown_names", "verify", "verify_all",
    "with_step",
]


def modules():
    """(name, module) for every module of MODULES that is present, in order."""
    for name in MODULES:
        try:
            yield name, importlib.import_module(f"derivations.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"derivations.{name}":
                raise


def claims() -> list[Derivation]:
    """Every claim of every module, in a fixed order."""
    out = []
    for name, module in modules():
        for d in module.CLAIMS:
            object.__setattr__(d, "_module", name)
            out.append(d)
    return out


def unknown_names(names) -> str | None:
    """None if every name is a claim id, else a one-line message listing the known ones."""
    known = [d.id for d in claims()]
    unknown = [n for n in names if n not in known]
    if not unknown:
        return None
    return f"unknown claim(s) {', '.join(unknown)}; known claims: {', '.join(known)}"


def get(name: str) -> Derivation:
    known = {d.id: d for d in claims()}
    if name not in known:
        raise KeyError(f"unknown claim {name!r}; known claims: {', '.join(known)}")
    return known[name]


def verify_all(names=None, progress=None) -> list[ChainResult]:
    chosen = [get(n) for n in names] if names else claims()
    done: dict[str, ChainResult] = {}  # a claim cited as a lemma is verified once
    return [done[d.id] if d.id in done else verify(d, progress=progress, done=done)
            for d in chosen]
