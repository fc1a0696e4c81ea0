"""The report's section "Your derivations": claims from files named on the command line.

``python -m reports build --claims my_claims.py other.py`` (``make reports CLAIMS="..."``) verifies
the claims of each file (see :mod:`derivations.claimfiles`) and adds them to the report data as
``user_claims``, a list of ``ChainResult.to_dict()`` exactly like ``claims``; the view renders them
with the shipped claims' layout under their own heading.  Without files the data has no
``user_claims`` key and the report is as before.  The results are cached under a key over the
files' bytes and the derivations package, so editing a file recomputes them.

A file may give its claims' Chinese, keyed by its own claim ids (never looked up in the shipped
claims' tables, so a name a shipped claim also uses gets no shipped translation)::

    ZH = {"my_lse_gradient": {
        "title": "对数求和指数的梯度是 softmax",
        "rules": {"chain rule: (log u)' = u'/u": "链式法则：(log u)' = u'/u"},  # by English rule
        "assumptions": {"x_pos": {"name": "x 为正", "text": "x 是正实数"}},  # by name
        "definitions": {"softmax(z)_i": "softmax(z) 的第 i 个分量"},  # by English text
    }}

Each claim's entry goes into its report data as ``zh``; a claim without one is shown in English
in the Chinese edition, marked once.
"""

from __future__ import annotations

import sys
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
        if d.id in shipped and (shipped[d.id] is d or shipped[d.id] == d):
            raise UserClaimsError(f"claim {d.id!r} is the shipped claim itself; leave it out of "
                                  "your files (--with-shipped shows the whole report, and an "
                                  f"audit of your notes cites it as claim:{d.id})")
        if d.id in shipped:
            raise UserClaimsError(f"claim {d.id!r} has the id of a shipped claim; give yours "
                                  f"another id")
    chinese(paths, loaded)


ZH_FIELDS = ("title", "rules", "assumptions", "definitions")


def _module(path: Path):
    """The module :mod:`derivations.claimfiles` loaded from ``path``."""
    resolved = str(path.resolve())
    return next((m for m in list(sys.modules.values())
                 if getattr(m, "__file__", None) == resolved), None)


def chinese(paths: list[Path], claims) -> dict[str, dict]:
    """Every file's ``ZH``, checked against its claims: {claim id: {title?, rules?, assumptions?,
    definitions?}}.  A mistake is one line naming the file, the key and what was expected."""
    by_id = {}
    for d in claims:
        by_id[d.id] = d
        for a in d.assumptions:
            if a.source is not None:
                by_id.setdefault(a.source.id, a.source)
    out: dict[str, dict] = {}
    for path in paths:
        zh = getattr(_module(path), "ZH", None)
        if zh is None:
            continue
        if not isinstance(zh, dict):
            raise UserClaimsError(f"{path}: ZH: expected a dict {{claim id: {{...}}}}, got "
                                  f"{type(zh).__name__}")
        for cid, entry in zh.items():
            where = f"{path}: ZH[{cid!r}]"
            if cid not in by_id:
                raise UserClaimsError(f"{where}: expected one of your claim ids "
                                      f"{sorted(by_id)}, got {cid!r}")
            out[cid] = _entry(entry, by_id[cid], where)
    return out


def _str(value, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise UserClaimsError(f"{where}: expected a non-empty str, got {value!r:.60}")
    return value


def _keyed(value, known: list[str], what: str, where: str) -> dict:
    if not isinstance(value, dict):
        raise UserClaimsError(f"{where}: expected a dict {{{what}: ...}}, got "
                              f"{type(value).__name__}")
    for key in value:
        if key not in known:
            raise UserClaimsError(f"{where}: expected one of the claim's {what}s {known}, got "
                                  f"{key!r}")
    return value


def _entry(entry, d, where: str) -> dict:
    if not isinstance(entry, dict):
        raise UserClaimsError(f"{where}: expected a dict with keys {list(ZH_FIELDS)}, got "
                              f"{type(entry).__name__}")
    out: dict = {}
    for key, value in entry.items():
        w = f"{where}[{key!r}]"
        if key == "title":
            out["title"] = _str(value, w)
        elif key == "rules":
            rules = _keyed(value, list(dict.fromkeys(s.rule for s in d.steps)), "rule", w)
            out["rules"] = {k: _str(v, f"{w}[{k!r}]") for k, v in rules.items()}
        elif key == "definitions":
            known = [getattr(x, "text", "") for x in getattr(d, "definitions", ())]
            texts = _keyed(value, known, "definition text", w)
            out["definitions"] = {k: _str(v, f"{w}[{k!r}]") for k, v in texts.items()}
        elif key == "assumptions":
            named = _keyed(value, [a.name for a in d.assumptions], "assumption name", w)
            out["assumptions"] = {}
            for name, record in named.items():
                aw = f"{w}[{name!r}]"
                if not isinstance(record, dict) or not record or set(record) - {"name", "text"}:
                    raise UserClaimsError(f"{aw}: expected a dict with 'name' and/or 'text', "
                                          f"got {record!r:.60}")
                out["assumptions"][name] = {k: _str(v, f"{aw}[{k!r}]")
                                            for k, v in record.items()}
        else:
            raise UserClaimsError(f"{w}: expected one of {list(ZH_FIELDS)}, got {key!r}")
    return out


def derive(paths: list[Path]) -> list[dict]:
    """Verify every claim of ``paths``, in order: their report data."""
    from derivations import claimfiles
    from derivations.engine import DerivationError

    try:
        claims = claimfiles.load_all([str(p) for p in paths])
        zh = chinese(paths, claims)
        return [{**r.to_dict(), **({"zh": zh[r.id]} if r.id in zh else {})}
                for r in claimfiles.verify_many(claims)]
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
