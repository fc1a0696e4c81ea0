"""Checking notes: files or folders in, one :class:`NotesResult` out."""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from derivations.notes import cache as cache_mod
from derivations.notes.markdown import parse
from derivations.notes.model import FormulaResult, NoteResult, NotesResult
from derivations.notes.reasons import join, say
from derivations.notes.verdicts import NOT_CHECKABLE

if TYPE_CHECKING:
    from derivations.notes.reading import Reader

SUFFIXES = (".md", ".markdown", ".txt")
# a formula that names one letter, or an entry of it, first: "A = …", "A := …", "m_i \sim …",
# "m_i \in \{0, 1\}": unread, it still says what the letter is
_NAMED = re.compile(r"\s*([A-Za-z])(_(?:\{[^{}=]*\}|\w))?\s*"
                    r"(?::=|=|\\sim(?![A-Za-z])|\\in(?![A-Za-z]))")


class NotesError(ValueError):
    """A path that is not a note: one line naming it, what was expected and what to do."""


def note_files(paths) -> list[Path]:
    """The notes named by ``paths``: files as given, folders searched for .md, .markdown and
    .txt files (sorted, hidden folders and files skipped)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES
                           and p.is_file() and not any(part.startswith(".")
                                                       for part in p.relative_to(path).parts))
            if not found:
                raise NotesError(f"{path}: a folder with no notes in it (expected .md, "
                                 f".markdown or .txt files)")
            out.extend(found)
        elif path.is_file():
            if path.suffix.lower() not in SUFFIXES:
                raise NotesError(f"{path}: expected a note (.md, .markdown or .txt), got a "
                                 f"{path.suffix or 'file without suffix'}; rename it if it is "
                                 f"Markdown")
            out.append(path)
        else:
            raise NotesError(f"{path}: no such file or folder")
    return list(dict.fromkeys(out))


def read_text(path: Path) -> str:
    try:
        with open(path, encoding="utf-8") as fh:  # universal newlines: offsets index this
            return fh.read()
    except UnicodeDecodeError as exc:
        raise NotesError(f"{path}: expected UTF-8 text, got a byte {exc.object[exc.start]:#04x} "
                         f"at byte {exc.start} that is not; save the note as UTF-8") from None


def _top_level_commas(latex: str) -> list[str]:
    """The pieces of ``latex`` between commas outside braces and parentheses."""
    pieces, depth, start = [], 0, 0
    for k, c in enumerate(latex):
        depth += (c in "{([") - (c in "})]")
        if c == "," and depth == 0:
            pieces.append(latex[start:k])
            start = k + 1
    return [*pieces, latex[start:]]


def _title(parsed, path: Path) -> str:
    first = next((h for h in parsed.headings if h.level == 1), None)
    if first:
        return first.title
    line = next((ln.strip() for ln in parsed.text.splitlines() if ln.strip()), "")
    return line[:80] if line and not line.startswith("---") else path.stem


def check_text(text: str, path: str = "<note>", reader: Reader | None = None,
               store: cache_mod.Cache | None = None) -> NoteResult:
    """One note's text, checked formula by formula in order."""
    import sympy as sp  # here: a note found whole in the cache needs neither SymPy nor the engine

    from derivations.notes import sequences
    from derivations.notes.context import Context
    from derivations.notes.reading import OverridesError

    started = time.perf_counter()
    reader = reader or default_reader()
    parsed = parse(text)
    try:
        symbols = reader.symbols(text, parsed.formulas, Path(path))
    except OverridesError as exc:
        raise NotesError(f"{path}: {exc}") from None
    readings = [reader.read(f.latex, symbols) for f in parsed.formulas]
    # a symbol the note names on its own ("for any constant $c$") is one it introduces
    symbols.known |= {r.parts[0] for r in readings if r.understood and not r.relations
                      and len(r.parts) == 1 and isinstance(r.parts[0], sp.Symbol)}
    # and so does a list of names ("for two scores $z_1, z_2$"), refused as a formula
    for f, r in zip(parsed.formulas, readings, strict=True):
        if not r.understood and "list of names" in (r.not_understood or ""):
            names = [reader.read(piece, symbols) for piece in _top_level_commas(f.latex)]
            if all(n.understood and not n.relations and len(n.parts) == 1
                   and isinstance(n.parts[0], sp.Symbol) for n in names):
                symbols.known |= {n.parts[0] for n in names}
    context = Context()
    context.indexed_at = sequences.letters_of(zip(parsed.formulas, readings, strict=True))
    context.sequence_at = sequences.sections_of(zip(parsed.formulas, readings, strict=True))
    declared = {row.name for row in symbols.rows if "declared" in row.rests_on}
    results = []
    for f, r in zip(parsed.formulas, readings, strict=True):
        named = _NAMED.match(f.latex)
        if not r.understood and named and named.group(1) not in declared:
            # "A = …", "m_i ~ …" unread: from here on what A is is unknown, not a free symbol
            # (of an entry m_i: the entries only, not a scalar m written beside them)
            key = named.group(1) + ("[]" if named.group(2) else "")
            context.opaque[key] = f"{f.latex.strip()} (line {f.line}, not read)"
        results.append(_checked(f, r, context, symbols, store))
    results = _cross_reference(results)
    return NoteResult(path, text, results, list(symbols.rows), _title(parsed, Path(path)),
                      time.perf_counter() - started)


def _checked(formula, reading, context, symbols, store):
    """One formula's verdict; a failure inside the checks becomes that formula's verdict, named,
    and the rest of the note is still checked."""
    from derivations.notes.checks import check_formula

    try:
        return check_formula(formula, reading, context, symbols, store)
    except (RecursionError, MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - any other failure is reported, not hidden
        why = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        return FormulaResult(formula.index, formula.start, formula.end, formula.line,
                             formula.latex, formula.display, reading.printed, NOT_CHECKABLE,
                             say("check.checks_stopped", error=why), (), False,
                             formula.sentence)


def _cross_reference(results):
    """A definition contradicted by a later line says so beside itself: the two lines are named
    on both, and neither alone is blamed."""
    by_line: dict[str, list[int]] = {}
    for r in results:
        for link in r.failed_links:
            for where in link.definitions.values():
                by_line.setdefault(where, []).append(r.line)
    out = []
    for r in results:
        hits = [lines for where, lines in by_line.items()
                if where.startswith(f"line {r.line}: ") and r.verdict == "definition"]
        if hits:
            lines = ", ".join(str(n) for n in sorted({n for h in hits for n in h}))
            r = dataclasses.replace(r, reason=join(r.reason, say("check.contradicted",
                                                                 lines=lines), sep=False))
        out.append(r)
    return out


def check_notes(paths, reader: Reader | None = None, cache: Path | None = cache_mod.DEFAULT
                ) -> NotesResult:
    """Every formula of every note under ``paths`` (files or folders), with its verdict.
    ``cache``: a folder for verdicts kept between runs (None: no cache)."""
    started = time.perf_counter()
    store = cache_mod.Cache(cache)
    notes = []
    for path in note_files(paths):
        text = read_text(path)
        # the whole note, when neither it, a symbols file beside it nor the code changed
        beside = path.with_suffix(".symbols")
        whole = cache_mod.key("note", str(path), text, beside.read_text(encoding="utf-8")
                              if beside.is_file() else "", getattr(reader, "version", "default"))
        got = store.get(whole)
        if got is not None:
            note = NoteResult.from_dict(got, text)
            note.cached = len(note.formulas)
        else:
            reader = reader or default_reader()
            note = check_text(text, str(path), reader, store)
            store.put(whole, note.to_dict())
        notes.append(note)
    return NotesResult(notes, time.perf_counter() - started)


def default_reader() -> Reader:
    # imported here: the reader's grammar loads only when a note is read, not from the cache
    from derivations.notes import latex_adapter

    return latex_adapter.reader()
