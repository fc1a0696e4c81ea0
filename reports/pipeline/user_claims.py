"""The report's section "Your derivations": claims from files named on the command line.

``python -m reports build --claims my_claims.py other.py`` (``make reports CLAIMS="..."``) verifies
the claims of each file (see :mod:`derivations.claimfiles`) and adds them to the report data as
``user_claims``, a list of ``ChainResult.to_dict()`` exactly like ``claims``; the view renders them
with the shipped claims' layout under their own heading.  Without files the data has no
``user_claims`` key and the report is as before.  The results are cached under a key over the
files' bytes and the derivations package, so editing a file recomputes them.
"""

from __future__ import annotations

from pathlib import Path

from reports.view.model import YOURS as STAGE


class UserClaimsError(ValueError):
    """A file named with --claims cannot be turned into claims; one line naming it."""


def check(paths: list[Path]) -> None:
    """Refuse, before anything is built, a file that is missing, does not import, holds no
    Derivation, or a claim whose id a shipped claim already has (ids are the report's anchors)."""
    if not paths:  # nothing to check, and nothing to import: the engine loads SymPy
        return
    import derivations
    from derivations import claimfiles

    try:
        loaded = claimfiles.load_all([str(p) for p in paths])
    except claimfiles.ClaimFileError as exc:
        raise UserClaimsError(str(exc)) from exc
    shipped = {d.id: d for d in derivations.claims()}
    for d in loaded:
        if d.id in shipped:
            raise UserClaimsError(f"claim {d.id!r} has the id of a shipped claim; give yours "
                                  f"another id")


def derive(paths: list[Path]) -> list[dict]:
    """Verify every claim of ``paths``, in order: their report data."""
    from derivations import claimfiles
    from derivations.engine import DerivationError

    try:
        claims = claimfiles.load_all([str(p) for p in paths])
        return [r.to_dict() for r in claimfiles.verify_many(claims)]
    except (claimfiles.ClaimFileError, DerivationError) as exc:  # e.g. an empty index range
        raise UserClaimsError(" ".join(str(exc).split())) from exc


def collect(paths: list[Path], cache, key: str, note: list[str]) -> list[dict]:
    """``derive(paths)``, or its cached value for ``key``."""
    value = cache.get(STAGE, key)
    how = "cached"
    if value is None:
        value, how = derive(paths), "computed"
        cache.put(STAGE, key, value)
    note.append(f"{_count(len(value), 'claim')} from {_count(len(paths), 'file')} {how} "
                f"(key {key[:12]})")
    return value


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
