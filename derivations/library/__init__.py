"""The shipped claims: one module per result (``CLAIMS`` in each), and the registry that lists,
finds and verifies them all.

A module is imported on first use (:func:`modules`), so that listing nothing imports nothing.
Verifying all of them (:func:`verify_all`) groups the claims by module — modules that cite each
other's claims as lemmas together — so that a worker process verifies a family's lemmas once.
"""

from __future__ import annotations

import importlib
import multiprocessing
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from derivations.engine import ChainResult, Derivation

from derivations import MODULES  # in the package's face: listing them imports nothing

__all__ = ["MODULES", "claims", "get", "module_of", "modules", "unknown_names", "verify_all"]


def modules():
    """(name, module) for every module of MODULES that is present, in order."""
    for name in MODULES:
        try:
            yield name, importlib.import_module(f"derivations.library.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"derivations.library.{name}":
                raise


def claims() -> list[Derivation]:
    """Every claim of every module, in a fixed order."""
    return [d for _, module in modules() for d in module.CLAIMS]


def module_of(claim: Derivation) -> str:
    """The name of the shipped module whose CLAIMS hold ``claim``; for a claim from a user's file,
    the file's stem (:mod:`derivations.claimfiles` records it); else ""."""
    for name, module in modules():
        if any(d is claim for d in module.CLAIMS):
            return name
    return getattr(claim, "_source", "")


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


# Per worker process: a claim cited as a lemma by several claims is verified once in each worker,
# not once per citing claim.
_DONE: dict[str, ChainResult] = {}


def _verify_named(names: tuple[str, ...]) -> list[ChainResult]:
    from derivations.engine import verify_many

    return verify_many([get(n) for n in names], done=_DONE, module_of=module_of)


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
    from derivations.engine import verify_many

    return verify_many(chosen, progress=progress, module_of=module_of)
