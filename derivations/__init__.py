"""Machine-checked derivations of the math behind Transformers.

``from derivations import softmax`` gives a module with its final results as SymPy objects and its
claims (``CLAIMS``); :func:`claims` lists every claim; :func:`verify_all` checks them.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
from typing import TYPE_CHECKING

# SymPy's cache keeps 1000 results by default; the numeric route rebuilds the same subexpressions
# at every size and point, and a larger cache cuts verification time by about a sixth (measured
# with ``python -m derivations verify``).  It takes effect only if SymPy is not imported yet.
os.environ.setdefault("SYMPY_CACHE_SIZE", "20000")

if TYPE_CHECKING:
    from derivations.core import ChainResult, Derivation

# The engine (and SymPy, half a second to import) loads on first use: ``derivations.cli`` is
# imported by every command line, and ``make reports`` with everything cached needs no SymPy.
_LAZY = {name: "derivations.core" for name in (
    "Assumption", "ChainResult", "Derivation", "DerivationError", "Domain", "Step", "lemma",
    "verify", "with_step")}
_LAZY.update(E="derivations.stochastic", Var="derivations.stochastic")


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'derivations' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def _engine_verify():
    from derivations.core import verify

    return verify

MODULES = ("attention_scaling", "softmax", "cross_entropy", "linear", "adam", "attention",
           "residual", "heads_shapes", "layernorm", "gelu", "positions", "embedding", "mask",
           "multihead", "ignore_index", "adamw", "hessian")

__all__ = [
    "Assumption", "ChainResult", "Derivation", "DerivationError", "Domain", "E", "Step", "Var",
    "MODULES", "claims", "get", "lemma", "module_of", "modules", "unknown_names", "verify",
    "verify_all", "with_step",
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
    return [d for _, module in modules() for d in module.CLAIMS]


def module_of(claim: Derivation) -> str:
    """The name of the shipped module whose CLAIMS hold ``claim``, or "" for any other claim."""
    for name, module in modules():
        if any(d is claim for d in module.CLAIMS):
            return name
    return ""


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


# Per process: a claim cited as a lemma by several claims is verified once in each worker, not
# once per citing claim.
_DONE: dict[str, ChainResult] = {}


def _verify_named(names: tuple[str, ...]) -> list[ChainResult]:
    out = []
    for name in names:
        d = get(name)
        if name not in _DONE:
            _engine_verify()(d, done=_DONE, module=module_of(d))
        result = _DONE[name]
        result.module = result.module or module_of(d)  # first verified as another claim's lemma
        out.append(result)
    return out


def _batches(chosen: list[Derivation]) -> list[tuple[str, ...]]:
    """The claims grouped by module, modules joined when one cites another's claim as a lemma,
    largest group first: a worker that checks a whole family verifies its lemmas once and reuses
    SymPy's cache of the family's shared subexpressions."""
    group = {d.id: module_of(d) or d.id for d in chosen}
    parent: dict[str, str] = {}

    def root(g: str) -> str:
        while parent.get(g, g) != g:
            g = parent[g]
        return g
    for d in chosen:
        for a in d.assumptions:
            if a.source is not None and a.source.id in group:
                parent[root(group[a.source.id])] = root(group[d.id])
    groups: dict[str, list[str]] = {}
    for d in chosen:
        groups.setdefault(root(group[d.id]), []).append(d.id)
    weight = {d.id: len(d.steps) + 1 for d in chosen}
    return sorted((tuple(g) for g in groups.values()),
                  key=lambda g: -sum(weight[n] for n in g))


def verify_all(names=None, progress=None, workers: int = 1) -> list[ChainResult]:
    """Verify the named claims (all by default) in order.  ``workers`` > 1 checks claims in that
    many processes; every claim is sampled by a fixed schedule, so results do not depend on it."""
    chosen = [get(n) for n in names] if names else claims()
    if workers > 1 and len(chosen) > 1:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers) as pool:
            found = {}
            for batch in pool.imap_unordered(_verify_named, _batches(chosen)):
                for r in batch:
                    if progress:
                        progress(f"{r.id}: {r.status} ({len(r.steps)} steps, {r.seconds:.2f} s)")
                    found[r.id] = r
        for d in chosen:
            # unpickling rebuilds Eq(lhs, rhs) with evaluation on, which can turn a statement
            # into False; the claim itself is this process's own object
            found[d.id].derivation = d
        return [found[d.id] for d in chosen]
    done: dict[str, ChainResult] = {}  # a claim cited as a lemma is verified once
    out = []
    for d in chosen:
        result = done[d.id] if d.id in done else _engine_verify()(
            d, progress=progress, done=done, module=module_of(d))
        result.module = result.module or module_of(d)  # first verified as another's lemma
        out.append(result)
    return out
