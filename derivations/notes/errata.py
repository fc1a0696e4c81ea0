"""A drafted errata registry: one record per failed link, in the format ``python -m reports
audit`` reads (README, "Audit your own notes"; :mod:`reports.audit.own`).

Each record quotes the note (verbatim, one line, at most 60 characters), proposes the verdict
``error``, gives the reason the check found (the point where the two sides differ) and cites as
its evidence the note's own version, a claim that fails, written to a claims file beside the
registry (``claims.py``).  The correction is left for the author to write: the reader knows the
link is false, not what was meant.  The record's shape lives in :func:`record` alone, so that a
change of the registry's format is a change here.
"""

from __future__ import annotations

import re
from pathlib import Path

from derivations.notes.model import FormulaResult, Link, NoteResult, NotesResult

MAX_QUOTE = 60
CLAIMS_FILE = "claims.py"
# the registry's field for the claim that fails as the note states it (the evidence until the
# author writes a correction of their own)
NOTE_CLAIM_FIELD = "evidence"
_ID_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def quote(text: str, formula: FormulaResult) -> str:
    """The longest verbatim piece of the formula's first line, at most MAX_QUOTE characters,
    without outer spaces: a substring of the note by construction."""
    first = text[formula.start:formula.end].split("\n")[0]
    piece = first[:MAX_QUOTE].strip()
    if not piece:  # a formula starting with a line break: quote its line instead
        line = text.splitlines()[formula.line - 1]
        piece = line.strip()[:MAX_QUOTE].strip()
    return piece


def _toml(value: str) -> str:
    """A TOML basic string."""
    out = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{out}"'


def _point(link: Link) -> str:
    ce = link.counterexample or {}
    point = ce.get("point")
    where = ("at " + ", ".join(f"{k} = {v}" for k, v in point.items())) if point else \
        "with the numbers as written"
    if "previous" in ce:
        return f"{where} the left side is {ce['previous']} and the right side {ce['current']}"
    if "exact" in ce:
        return f"the exact value {ce['exact']} does not round to the digits shown"
    return where


def record(note: NoteResult, formula: FormulaResult, link: Link, rid: str, claim_id: str
           ) -> dict[str, str]:
    """One drafted record (the registry's fields, in order)."""
    used = ""
    if link.definitions:
        used = " It was checked with the note's definition" + \
            ("s " if len(link.definitions) > 1 else " ") + \
            "; ".join(f"{name} ({where})" for name, where in link.definitions.items()) + \
            ": one of the two is wrong."
    rel = link.relation
    return {
        "id": rid,
        "note": Path(note.path).name,
        "quote": quote(note.text, formula),
        "verdict": "error",
        "scope": "transformer-math",
        "reason": f"As written, ${link.lhs} {rel} {link.rhs}$ does not hold: {_point(link)}."
                  + used,
        "correction_text": "To be written: the check shows the link is false, not what was "
                           "meant.",
        NOTE_CLAIM_FIELD: f"claim:{claim_id}",
    }


def drafted(result: NotesResult) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The records and the claims they cite (claim id -> Python source)."""
    records, claims, seen = [], {}, set()
    for note, formula in result.failed:
        stem = _ID_CHARS.sub("-", Path(note.path).stem).strip("-") or "note"
        for link in formula.failed_links:
            rid = f"{stem}-line{formula.line}-link{link.index}"
            while rid in seen:
                rid += "b"
            seen.add(rid)
            claim_id = re.search(r"Derivation\('([^']+)'", link.claim or "")
            if claim_id is None:  # a number or ≈ judged without a claim: cite the link's id
                cid = f"note-{rid}"
                claims[cid] = ""
            else:
                cid = claim_id.group(1)
                claims[cid] = link.claim
            records.append(record(note, formula, link, rid, cid))
    return records, claims


def _claims_file(claims: dict[str, str]) -> str:
    lines = ['"""The claims the drafted errata cite: each failed link of the notes as the note',
             'states it (python -m derivations notes wrote this file)."""', "",
             "from sympy import *  # noqa: F403 - SymPy's srepr names every object it prints",
             "", "from derivations import Definition, Derivation, Domain, Step, E, Var  # noqa",
             "", "CLAIMS = ["]
    for cid, source in claims.items():
        if source:
            lines.append(f"    {source},")
        else:
            lines.append(f"    # {cid}: a number judged exactly; no symbolic claim")
    lines.append("]")
    checks = [cid for cid, source in claims.items() if not source]
    for cid in checks:
        name = cid.replace("-", "_").replace(".", "_")
        lines += ["", "", f"def {name}():",
                  "    return False, 'the note\\'s number, recomputed exactly, differs'"]
    return "\n".join(lines) + "\n"


def write(result: NotesResult, path: Path) -> Path | None:
    """Write the drafted registry and its claims file; None when nothing failed."""
    records, claims = drafted(result)
    if not records:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    out = ["# Errata drafted by python -m derivations notes: one record per failed link.",
           "# Check each record, write its correction, then:",
           f"#   python -m reports audit NOTES_DIR --registry {path.name} --claims "
           f"{CLAIMS_FILE}", ""]
    for rec in records:
        kind, ref = rec[NOTE_CLAIM_FIELD].split(":", 1)
        if not claims.get(ref):
            rec = {**rec, NOTE_CLAIM_FIELD: f"check:{ref.replace('-', '_').replace('.', '_')}"}
        out.append("[[record]]")
        out += [f"{k} = {_toml(v)}" for k, v in rec.items()]
        out.append("")
    path.write_text("\n".join(out), encoding="utf-8")
    (path.parent / CLAIMS_FILE).write_text(_claims_file(claims), encoding="utf-8")
    return path
