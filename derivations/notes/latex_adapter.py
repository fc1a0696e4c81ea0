"""The LaTeX reader (:mod:`derivations.notes.latex`, spec ``reading-spec.md``) seen from the note
level: a symbol table for the note (with the user's ``symbols`` block) and a :class:`Reading`
of each formula, its terms lowered to the plain SymPy the engine checks."""

from __future__ import annotations

import re
from pathlib import Path

import sympy as sp

from derivations.notes import latex as lx
from derivations.notes import opaque
from derivations.notes.latex.lexicon import ALIGN_ENVS
from derivations.notes.markdown import parse
from derivations.notes.model import SymbolRow
from derivations.notes.reading import NoteSymbols, OverridesError, Reading
from derivations.notes.reasons import say

# the reader's API as reading-spec.md §5 names it; missing names make this module unusable
API = ("read", "infer", "parse_overrides", "lower", "to_latex", "NotUnderstood", "NotLowered",
       "OverrideError", "EntryOf")
if not all(hasattr(lx, name) for name in API):
    raise ImportError("derivations.notes.latex does not have the reading API yet")

# the reader's relation classes -> the note level's words
RELATIONS = {"Equality": "=", "Define": ":=", "Approx": "≈", "LessThan": "≤",
             "GreaterThan": "≥", "StrictLessThan": "<", "StrictGreaterThan": ">",
             "Unequality": "≠", "In": "∈"}
# the entry at which a property of a whole vector (softmax(z + c) = softmax(z)) is checked
ENTRY = sp.Symbol("entry", integer=True)
# a relation at the top level of a formula's source, to cut it into its terms as written
_SOURCE_RELATION = re.compile(r"\\approx(?![A-Za-z])|\\coloneqq(?![A-Za-z])|"
                              r"\\triangleq(?![A-Za-z])|\\leq?(?![A-Za-z])|\\geq?(?![A-Za-z])|"
                              r"\\neq?(?![A-Za-z])|:=|=|<|>")


def overrides_text(text: str, path: Path | None) -> list[str]:
    """The lines of the note's symbols block: a fenced block ```symbols, a file NOTE.symbols
    beside the note, or the front matter's ``symbols:`` key (a block of lines below it)."""
    lines: list[str] = []
    for tok in parse(text).tokens:
        if tok.type == "fence" and tok.info.strip() == "symbols":
            lines += tok.content.splitlines()
        if tok.type == "front_matter":
            lines += _front_matter_symbols(tok.content)
    if path is not None:
        beside = path.with_suffix(".symbols")
        if beside.is_file():
            lines += beside.read_text(encoding="utf-8").splitlines()
    return lines


def _front_matter_symbols(content: str) -> list[str]:
    out, inside = [], False
    for line in content.splitlines():
        if re.match(r"^symbols:\s*\|?\s*$", line):
            inside = True
            continue
        if inside:
            if line.startswith((" ", "\t", "-")):
                out.append(line.strip().removeprefix("- ").strip())
            elif line.strip():
                break
    return out


def source_terms(latex: str, count: int) -> tuple[str, ...] | None:
    """The formula's terms as written, cut at its top-level relations (outside braces and
    brackets); None when the cuts are not ``count`` terms (then the printer's forms are used)."""
    depth, cuts, i = 0, [], 0
    while i < len(latex):
        ch = latex[i]
        if ch == "\\" and i + 1 < len(latex) and latex[i + 1] in "{}[]()":
            i += 2
            continue
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif depth == 0:
            m = _SOURCE_RELATION.match(latex, i)
            if m:
                cuts.append((m.start(), m.end()))
                i = m.end()
                continue
        i += 1
    pieces, last = [], 0
    for a, b in cuts:
        pieces.append(latex[last:a])
        last = b
    pieces.append(latex[last:])
    pieces = [_ENV_EDGE.sub("", p.replace("&", "")).strip().rstrip("\\").strip()
              for p in pieces]
    return tuple(pieces) if len(pieces) == count and all(pieces) else None


# the wrapper of an aligned block around its first and last terms: layout, never a term's
_ENV_EDGE = re.compile(r"^\s*\\begin\{(?:%s)\}(?:\{\d+\})?|\\end\{(?:%s)\}\s*$" % (
    ("|".join(map(re.escape, sorted(ALIGN_ENVS))),) * 2))


def _equal_terms(latex: str) -> tuple[str, ...] | None:
    """The terms of a chain of three terms or more joined by = only, as written; None for
    anything else (another relation, an environment, alignment)."""
    if "\\begin" in latex or "&" in latex:
        return None
    cut = source_terms(latex, latex.count("=") + 1)
    if cut is None or len(cut) < 3 or any(_SOURCE_RELATION.search(t) for t in cut):
        return None
    return cut


_STATEMENT_SEP = re.compile(r"\\q?quad(?![A-Za-z])")


def statements(latex: str) -> list[str]:
    """The statements of a formula written side by side, cut at its top-level ``\\quad`` and
    ``\\qquad`` (outside braces, brackets and environments), a comma before a cut dropped;
    one piece when there is no such cut."""
    depth, cuts = 0, []
    for i, ch in enumerate(latex):
        if ch in "{[(" and (i == 0 or latex[i - 1] != "\\"):
            depth += 1
        elif ch in "}])" and (i == 0 or latex[i - 1] != "\\"):
            depth -= 1
        elif depth == 0 and ch == "\\":
            m = _STATEMENT_SEP.match(latex, i)
            if m:
                cuts.append((m.start(), m.end()))
    if "\\begin" in latex or not cuts:
        return [latex]
    pieces, last = [], 0
    for a, b in [*cuts, (len(latex), len(latex))]:
        pieces.append(latex[last:a].strip().rstrip(",").strip())
        last = b
    return [p for p in pieces if p]


def _arguments(term) -> tuple[str, ...]:
    """The names of a function applied to distinct plain symbols, f(x, y), on the left of a
    definition: its variables, not symbols the note must introduce; () for anything else."""
    args = getattr(term, "args", ())
    if not isinstance(term, sp.Function) or not args or not all(
            isinstance(a, sp.Symbol) and not a.is_integer for a in args) \
            or len(set(args)) != len(args):
        return ()
    return tuple(a.name for a in args)


def _bare_bases(expr):
    """A name with entries used also on its own (L beside L_b) is, on its own, a scalar: its
    IndexedBase outside an entry becomes the symbol of that name."""
    if not isinstance(expr, sp.Basic) or not expr.atoms(sp.IndexedBase):
        return expr

    def walk(e):
        if isinstance(e, sp.Indexed):
            return e
        if isinstance(e, sp.IndexedBase):
            return sp.Symbol(e.name, real=True)
        if not e.args:
            return e
        args = tuple(walk(a) for a in e.args)
        return e.func(*args) if args != e.args else e

    return walk(expr)


class LatexReader:
    version = "reading-spec v1"

    def __init__(self) -> None:
        self._table = None

    def symbols(self, text: str, formulas: list, path: Path | None = None) -> NoteSymbols:
        lines = overrides_text(text, path)
        try:
            overrides = lx.parse_overrides("\n".join(lines)) if lines else None
        except lx.OverrideError as exc:
            raise OverridesError(f"symbols block: {exc}") from None
        table = lx.infer([f.latex for f in formulas], overrides)
        self._table = table
        rows, known, dims, indices = [], set(), [], {}
        for name, kind, rests in table.rows():
            rows.append(SymbolRow(name, kind.split(" ")[0], kind.partition(" ")[2], rests))
            info = table.get(name)
            if info is None:
                continue
            # introduced: declared (∈ ℝ^…, a range, the symbols block), a size or an index;
            # a symbol that only occurs is not (a property in it is then not checked)
            if info.declared or info.kind in ("size", "index") or "declared" in rests \
                    or table.has_entries(name):  # x_i: a vector the note writes entries of
                known.add(table.symbol(name))
                if table.has_entries(name):
                    known.add(table.base(name))
            if info.kind == "size":
                dims.append(table.symbol(name))
            elif info.kind == "index" and table.range_of(name):
                lo, hi = table.range_of(name)
                indices[table.symbol(name)] = (sp.sympify(lo, strict=True),
                                                sp.sympify(hi, strict=True))
        known.add(ENTRY)
        out = NoteSymbols(rows=rows, known=known, dims=tuple(dims), indices=indices,
                          digest=str(table), notes=[f"{k}: {v}" for k, v in
                                                    dict(table.conflicts).items()],
                          reread=self._side)
        for decl in (overrides.declarations if overrides else ()):
            if decl.law:
                self._law(decl, out)
        return out

    def _law(self, decl, symbols: NoteSymbols) -> None:
        """``random q, k ~ N(0, 1)``: each name (each entry, for a vector) given that law, as a
        formula ``q \\sim \\mathcal{N}(0, 1)`` of the note would; shown in its row."""
        from derivations.notes import laws

        for name in decl.names:
            written = name if re.fullmatch(r"[A-Za-z](_\w+)?", name) else f"\\{name}"
            got = lx.read(f"{written} \\sim {decl.law}", self._table)
            if isinstance(got, lx.NotUnderstood) or type(got.expr).__name__ != "Distributed":
                raise OverridesError(f"symbols block, line {decl.line}: expected a law after "
                                     f"'~' (N(0, 1), U(a, b), Bernoulli(p)), got {decl.law!r}")
            base = self._table.base(name) if self._table.has_entries(name) else \
                self._table.symbol(name)
            said = laws.declare(base, got.expr.args[1], symbols)
            if name not in symbols.laws and getattr(base, "name", "") not in symbols.laws:
                raise OverridesError(f"symbols block, line {decl.line}: {said}")
            symbols.rows = [SymbolRow(r.name, r.kind, r.shape, f"{r.rests_on}; law "
                                      f"{symbols.laws[name]} (symbols block, line {decl.line})")
                            if r.name == name else r for r in symbols.rows]

    def _side(self, latex: str):
        """One side of a link as plain SymPy, or None when it is not read or not lowered."""
        try:
            got = lx.read(latex, self._table)
            if isinstance(got, lx.NotUnderstood) or got.kind != "expression":
                return None
            value, why = self._lower(got.expr)
        except Exception:  # noqa: BLE001 - not read: the side is then not bounded
            return None
        return None if why else value

    def read(self, latex: str, symbols: NoteSymbols) -> Reading:
        try:
            got = lx.read(latex, self._table)
            if isinstance(got, lx.NotUnderstood):
                refused = Reading(not_understood=say("read.at", token=got.token,
                                                     offset=got.offset, position=got.offset + 1,
                                                     why=got.why))
                apart = statements(latex)
                if len(apart) < 2:
                    return self._chain_apart(latex, refused)
                # statements side by side (a = b, \qquad c = d), one of them refused: the
                # others are read on their own, as the reader reads such a list
                pieces = tuple(self._piece(latex, piece, symbols) for piece in apart)
                if all(not p.understood for p in pieces):
                    return refused
                return Reading(printed=", \\qquad ".join(p.printed or "?" for p in pieces),
                               pieces=pieces)
            return self._reading(got, latex)
        except Exception as exc:  # noqa: BLE001 - SymPy refusing a reading: never a guess
            return Reading(not_understood=say("read.not_built", error=f"{type(exc).__name__}: "
                                              f"{' '.join(str(exc).split())}"))

    def _chain_apart(self, latex: str, refused: Reading) -> Reading:
        """A chain a = b = c of which one term is outside the language: each term read on its
        own, the links between two read terms checked and the others said not understood
        (their term is a placeholder never checked); ``refused`` when fewer than two adjacent
        terms read, or the chain has another relation than =."""
        terms = _equal_terms(latex)
        if terms is None:
            return refused
        lowered, unlowered, printed = [], {}, []
        for i, term in enumerate(terms):
            got = lx.read(term, self._table)
            why = (say("read.at", token=got.token, offset=latex.find(term) + got.offset,
                       position=latex.find(term) + got.offset + 1, why=got.why)
                   if isinstance(got, lx.NotUnderstood) else
                   "" if got.kind == "expression" else say("read.no_expression"))
            value = sp.Symbol(f"unread{i}")
            if not why:
                value, why = self._lower(got.expr)
            if why:
                unlowered[i] = say("read.term", n=i + 1, why=why)
            lowered.append(value)
            printed.append(r"\text{?}" if isinstance(got, lx.NotUnderstood) else got.latex)
        if not any(i not in unlowered and i + 1 not in unlowered
                   for i in range(len(terms) - 1)):
            return refused
        return Reading(tuple(lowered), ("=",) * (len(terms) - 1), " = ".join(printed),
                       tuple(terms), unlowered=unlowered,
                       notes=tuple(unlowered[i] for i in sorted(unlowered)))

    def _piece(self, latex: str, piece: str, symbols: NoteSymbols) -> Reading:
        """One statement of a formula read on its own; a refusal's offset is in the formula."""
        got = lx.read(piece, self._table)
        if isinstance(got, lx.NotUnderstood):
            at = latex.find(piece) + got.offset
            return Reading(not_understood=say("read.at", token=got.token, offset=at,
                                              position=at + 1, why=got.why))
        return self.read(piece, symbols)

    def _reading(self, got, latex: str) -> Reading:
        if got.kind == "list":
            return Reading(printed=got.latex,
                           pieces=tuple(self._reading(p, p.source) for p in got.pieces))
        if got.kind == "expression":
            return Reading((self._lower(got.expr)[0],), (), got.latex, (latex,))
        if got.kind == "declaration":  # its two sides kept as read: a shape is judged
            sides = tuple(got.expr.args[:2])
            rel = "~" if type(got.expr).__name__ == "Distributed" else "∈"
            return Reading(sides, (rel,), got.latex, tuple(lx.to_latex(t) for t in sides))
        links = list(got.links)
        relations = tuple(RELATIONS.get(type(k).__name__, type(k).__name__) for k in links)
        terms = [links[0].args[0], *(k.args[1] for k in links)]
        lowered, unlowered = [], {}
        for i, term in enumerate(terms):
            value, why = self._lower(term)
            lowered.append(value)
            if why:
                unlowered[i] = why
        lowered = _tuples_as_columns(lowered)
        if unlowered and all("whole vector" in why for why in unlowered.values()):
            # a statement about whole vectors holds entry by entry: check it at every entry
            entries = [self._lower(lx.EntryOf(term, ENTRY)) for term in terms]
            if not any(why for _, why in entries):
                lowered, unlowered = [value for value, _ in entries], {}
        if len(terms) == 2 and relations[0] in ("=", ":=") and list(unlowered) == [1] \
                and "whole vector" in unlowered[1] and isinstance(lowered[0], sp.Symbol):
            # s := softmax(z) names a vector by its entries: s_entry := softmax(z)_entry
            value, why = self._lower(lx.EntryOf(terms[1], ENTRY))
            # the base the note's entries s_i are read with (a shape, when s has the size of z)
            base = terms[0] if isinstance(terms[0], sp.IndexedBase) else sp.IndexedBase(
                lowered[0])
            if not why:
                lowered, unlowered = [base[ENTRY], value], {}
        written = source_terms(latex, len(terms)) or tuple(lx.to_latex(t) for t in terms)
        return Reading(tuple(lowered), relations, got.latex, written, unlowered=unlowered,
                       notes=tuple(getattr(got, "notes", ()) or ()),
                       defines=getattr(got, "defines", None) is not None,
                       bound=_arguments(terms[0]) if relations[0] in ("=", ":=") else ())

    def _lower(self, term):
        try:
            return _bare_bases(lx.lower(term, self._table)), ""
        except lx.NotLowered as exc:
            moments = self._opaque_moments(term)
            if moments is not None:
                return moments, ""
            return term, say("read.not_lowered", construct=str(exc.construct), why=exc.why)
        except Exception as exc:  # noqa: BLE001 - SymPy refusing to build the plain form
            return term, say("read.no_plain_form", error=f"{type(exc).__name__}: "
                                                        f"{' '.join(str(exc).split())}")

    def _opaque_moments(self, term):
        """``term`` lowered with what cannot be written out inside an E or a Var (q_iᵀk_j) taken
        as one random scalar of unknown law (:func:`opaque.moments`), or None."""
        try:
            got = opaque.moments(term, lambda t: lx.lower(t, self._table), lx.to_text)
            return None if got is None else _bare_bases(got)
        except Exception:  # noqa: BLE001 - not lowered that way either: the first reason stands
            return None


def _tuples_as_columns(terms: list) -> list:
    """A tuple beside a column of as many entries (softmax(1, 2, -∞) = (…, …, 0)) is that
    column: compared entry by entry, in both routes."""
    rows = {t.shape[0] for t in terms if isinstance(t, sp.ImmutableMatrix) and t.shape[1] == 1}
    if len(rows) != 1:
        return terms
    n = rows.pop()
    return [sp.ImmutableMatrix([[a] for a in t]) if isinstance(t, sp.Tuple) and len(t) == n
            else t for t in terms]


def reader() -> LatexReader:
    return LatexReader()
