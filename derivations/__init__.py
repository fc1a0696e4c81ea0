"""Machine-checked derivations of the math behind Transformers.

Three rooms: :mod:`derivations.engine` checks claims (where soundness lives),
:mod:`derivations.library` holds the shipped claims, one module per result, and the tools beside
them — the command line (``python -m derivations``), claim files of your own
(:mod:`~derivations.claimfiles`), pytest assertions (:mod:`~derivations.testing`), realistic
wrong variants (:mod:`~derivations.mutants`) and adversarial claims (:mod:`~derivations.redteam`).

This module is the public face of the first two: ``from derivations import Derivation, verify``
gives the engine's names, ``from derivations import softmax`` a shipped module with its results as
SymPy objects and its ``CLAIMS``, :func:`claims` every claim and :func:`verify_all` checks them.
Everything loads on first use: the command line imports this module, and ``make reports`` with
everything cached needs no SymPy.
"""

from __future__ import annotations

import importlib
import os

# SymPy's cache keeps 1000 results by default; the numeric route rebuilds the same subexpressions
# at every size and point, and a larger cache cuts verification time by about a sixth.  It takes
# effect only if SymPy is not imported yet; the engine gives every cached function this size
# anyway (derivations.engine.core.budget), so that what a check counts does not depend on it.
os.environ.setdefault("SYMPY_CACHE_SIZE", "20000")

ENGINE_NAMES = (
    "Assumption", "ChainResult", "Definition", "Derivation", "DerivationError", "Domain", "E",
    "Notation", "Step", "Var", "cite", "instance", "latex", "lemma", "verify", "with_step")
LIBRARY_NAMES = ("MODULES", "claims", "get", "module_of", "modules", "unknown_names",
                 "verify_all")
MODULES = ("attention_scaling", "softmax", "cross_entropy", "linear", "adam", "attention",
           "residual", "heads_shapes", "layernorm", "gelu", "positions", "embedding", "mask",
           "multihead", "ignore_index", "adamw", "hessian")

__all__ = [*ENGINE_NAMES, *LIBRARY_NAMES]


def __getattr__(name: str):
    if name in ENGINE_NAMES:
        value = getattr(importlib.import_module("derivations.engine"), name)
    elif name in LIBRARY_NAMES:
        value = getattr(importlib.import_module("derivations.library"), name)
    elif name in MODULES:
        value = importlib.import_module(f"derivations.library.{name}")
    else:
        raise AttributeError(f"module 'derivations' has no attribute {name!r}")
    globals()[name] = value
    return value
