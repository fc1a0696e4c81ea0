"""Check an errata registry against its notes: quotes, titles and coverage.

    python -m reports.audit.notes check NOTES_DIR [--registry FILE] [--min-coverage PERCENT]

Every quote (of a record or of a sentence marked as containing no checkable claim) must occur
verbatim; every title the registry gives must match its note's first line; every mark that
cites a record must cite one that exists (a recap one judged correct).  The project's registry
(the default) must also cover at least ``MIN_COVERAGE`` of each note's sentences
(:func:`sentences`: a note flattened to one line is split into its real sentences) with a record
or a no-claim mark; for a registry of yours (``--registry``, read by the same loader as
``python -m reports audit``, :mod:`reports.audit.registry`) coverage is printed, and required
only with ``--min-coverage``.  Quotes that run over several sentences are listed.  Exit 0 when
all hold; 1 naming each stale quote, wrong title, bad citation or short coverage; 2 with a
one-line message when the directory, a note file or the registry cannot be used.  Nothing is
written.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from derivations.cli import Parser
from reports.audit import errata, registry


class NotesError(Exception):
    """A note or the registry cannot be read; the message is one line."""



def read_note(directory: Path, name: str) -> str:
    path = directory / name
    if not path.is_file():
        raise NotesError(f"note {name}: expected a file in {directory}, got none")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise NotesError(f"note {name}: cannot read ({exc.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotesError(f"note {name}: expected UTF-8, got byte 0x{data[exc.start]:02x} "
                         f"at offset {exc.start}") from None


MIN_COVERAGE = 0.95
CONTEXT = 12

# Sentence boundaries. All offsets refer to the note's own text; nothing is rewritten.
#  - after 。！？； (closing quotes and brackets that follow stay with the sentence) and at every
#    line break; an ASCII '.' is no boundary (0.5, 1. **…**), nor are ASCII '?' and ';';
#  - before Markdown block markers outside math: a heading (#… ), a rule (--- not followed by an
#    identifier, so that a diagram edge a1 --- a2 is none), a block quote (> ) and its chain
#    items (> →), a list item (- or N. with N of at most two digits);
#  - around a formula block: $$…$$, or a $…$ span of at least 40 characters or holding \begin or
#    \\ that stands between spaces or colons; a multi-line display (gathered, aligned, …) is cut
#    after every row separator \\, one sentence per formula;
#  - a flattened diagram source (flowchart … end) is one piece;
#  - only in single-line notes (an outline whose line breaks the web copy flattened to spaces, so
#    that one line holds at least half of the text): at a space between two CJK characters, and
#    before a mixed outline label such as 「Norm作用：」 or 「Linear 线性：」 that follows a space.
# No boundary falls inside a math span. A piece without a letter, digit or CJK character (a rule,
# bare markup) is not a sentence.
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
_END = re.compile(r"[。！？；][”’」』）)]*")
_MARKER = re.compile(r"(?:(?<=\s)|^)(?:#{1,6}(?=\s)|---+(?=\s+[^\sA-Za-z0-9]|\s*$)|>\s*→|>(?=\s)"
                     r"|-(?=\s+\S)|(?<![\d.])\d{1,2}\.(?=[ \t]+\D))")
_CJK = "\u3400-\u9fff\uf900-\ufaff"
_OUTLINE_SPACE = re.compile(rf"(?<=[{_CJK}，、：；。！？”’」』）]) +(?=[{_CJK}])")
_LABEL = re.compile(r"(?<=[^\s$*] )(?=[A-Za-z][A-Za-z\-]* ?[\u4e00-\u9fff]{1,6}：)")
_DIAGRAM = re.compile(r"\b(?:flowchart|graph)\s+(?:LR|RL|TD|TB|BT)\b.*?\bend(?=\s+[\u4e00-\u9fff])",
                      re.S)
_DISPLAY = re.compile(r"\\begin\{(?:gathered|aligned|align\*?|gather\*?|array)\}")
_WORD = re.compile(r"\w")
_MARKUP_ONLY = re.compile(r"[\s\-#>→*]*")


SINGLE_LINE = 150  # characters: the shortest line that counts as a flattened outline


def single_line(text: str) -> bool:
    """Whether one line holds at least half of ``text`` and is long: an outline flattened to
    one line (a short note whose lines are short is split at its line breaks)."""
    longest = max((len(line) for line in text.split("\n")), default=0)
    return longest >= SINGLE_LINE and longest >= 0.5 * len(text)


def _inside(spans: list[tuple[int, int]], i: int) -> bool:
    return any(a < i < b for a, b in spans)


def _boundaries(text: str) -> set[int]:
    maths = [(m.start(), m.end()) for m in _MATH.finditer(text)]
    cuts = {0, len(text)}
    cuts.update(m.end() for m in _END.finditer(text) if not _inside(maths, m.start()))
    for m in re.finditer(r"\n", text):
        cuts.update((m.start(), m.end()))
    cuts.update(m.start() for m in _MARKER.finditer(text) if not _inside(maths, m.start()))
    for a, b in maths:
        body = text[a:b]
        left = text[a - 1] if a else " "
        right = text[b] if b < len(text) else " "
        block = len(body) >= 40 or "\\begin" in body or "\\\\" in body
        if body.startswith("$$") or (block and left in " \n：:" and right in " \n：:，。$"):
            cuts.update((a, b))
        if _DISPLAY.search(body):
            cuts.update(a + r.end() for r in re.finditer(r"\\\\", body))
    for m in _DIAGRAM.finditer(text):
        cuts = {c for c in cuts if not m.start() < c < m.end()} | {m.start(), m.end()}
        maths.append((m.start(), m.end()))
    if single_line(text):
        for rx in (_OUTLINE_SPACE, _LABEL):
            cuts.update(m.start() for m in rx.finditer(text) if not _inside(maths, m.start()))
    return cuts


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text`` (rules above), closing punctuation
    included, outer spaces excluded."""
    out = []
    points = sorted(_boundaries(text))
    for a, b in zip(points, points[1:], strict=False):
        piece = text[a:b]
        start, end = a + len(piece) - len(piece.lstrip()), a + len(piece.rstrip())
        body = text[start:end]
        if body and not _MARKUP_ONLY.fullmatch(body) and _WORD.search(body):
            out.append((start, end))
    return out


def title(text: str) -> str:
    """The note's own title: its first non-empty line, without a Markdown '#' and without the
    wiki links that follow it in the web copy."""
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line.split(" [[")[0].strip()
    raise NotesError("note: expected a first non-empty line to read the title from, got none")


def locate(text: str, quote: str) -> dict | None:
    """Where the first occurrence of ``quote`` stands: line and column (1-based), the number of
    its sentence (1-based, :func:`sentences`), ``unit`` — "sentence" for a single-line note,
    where a line number says nothing, else "line" — and a short context."""
    at = text.find(quote)
    if at < 0:
        return None
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    sents = sentences(text)
    sentence = next((i for i, (a, b) in enumerate(sents, 1) if at < b), len(sents))
    before = text[max(0, at - CONTEXT):at].split("\n")[-1]
    after = text[at + len(quote):at + len(quote) + CONTEXT].split("\n")[0]
    return {"line": line, "column": column, "offset": at, "sentence": sentence,
            "unit": "sentence" if single_line(text) else "line",
            "context": f"…{before}【{quote}】{after}…"}


# the math of a note written in LaTeX or Markdown: $$…$$, $…$, \[…\], \(…\) and the display
# environments; each as (start, end, inner start, inner end)
_MATH_SPANS = re.compile(r"\$\$(.+?)\$\$|(?<!\\)\$([^$\n]+?)\$|\\\[(.+?)\\\]|\\\((.+?)\\\)"
                         r"|\\begin\{(equation|align|gather|multline)(\*?)\}(.+?)"
                         r"\\end\{\5\6\}", re.S)


def math_spans(text: str) -> list[tuple[int, int, int, int]]:
    """Where ``text`` holds math: (start, end) of each span with its delimiters, and (start,
    end) of the formula inside them."""
    out = []
    for m in _MATH_SPANS.finditer(text):
        group = next(g for g in (1, 2, 3, 4, 7) if m.group(g) is not None)
        out.append((m.start(), m.end(), m.start(group), m.end(group)))
    return out


def quote_math(text: str, quote: str) -> str | None:
    """The quote at its first place in ``text`` as prose with its math between ``$…$``: the
    parts of it that stand inside a formula of the note, as the note's own delimiters say,
    become inline formulas (a delimiter inside the quote is dropped, a literal ``$`` elsewhere
    escaped); None when none of it is math, or when its text holds a backtick (code in prose)."""
    at = text.find(quote)
    if at < 0:
        return None
    spans = math_spans(text)
    parts: list[tuple[bool, str]] = []  # (is math, characters)
    for i in range(at, at + len(quote)):
        span = next((s for s in spans if s[0] <= i < s[1]), None)
        if span is not None and not span[2] <= i < span[3]:
            continue  # a delimiter of the note's formula
        math = span is not None
        if parts and parts[-1][0] == math:
            parts[-1] = (math, parts[-1][1] + text[i])
        else:
            parts.append((math, text[i]))
    if not any(math and body.strip() for math, body in parts):
        return None
    if any("`" in body for math, body in parts if not math):
        return None
    return "".join(f"${body.strip()}$" if math else body.replace("$", "\\$")
                   for math, body in parts if not math or body.strip())


def coverage(text: str, quotes: list[str]) -> dict:
    """Which sentences of ``text`` overlap the first occurrence of one of ``quotes`` (the place
    the locator points to); a quote that is a whole sentence covers every identical sentence.
    ``straddling``: quotes whose first occurrence runs over more than one sentence (each may
    hold a claim of its own), with the number of sentences."""
    sents = sentences(text)
    spans, straddling = [], []
    for q in quotes:
        at = text.find(q)
        if at >= 0:
            spans.append((at, at + len(q)))
            n = sum(1 for a, b in sents if at < b and a < at + len(q))
            if n > 1:
                straddling.append((q, n))
        spans += [(a, b) for a, b in sents if text[a:b] == q]
    missing = [text[a:b] for a, b in sents
               if not any(qa < b and a < qb for qa, qb in spans)]
    total = len(sents)
    return {"sentences": total, "covered": total - len(missing),
            "share": (total - len(missing)) / total if total else 1.0, "missing": missing,
            "straddling": straddling}


def note_coverage(name: str, text: str, records: list[dict], marks: list[dict] = ()) -> dict:
    """:func:`coverage` of note ``name`` by the quotes of the records and no-claim marks on it,
    and its summary for the report, ``view``: {covered, sentences, marks}."""
    cov = coverage(text, [r["quote"] for r in [*records, *marks] if r["note"] == name])
    return {**cov, "view": {"covered": cov["covered"], "sentences": cov["sentences"],
                            "marks": bool(marks)}}


def stale_quotes(directory: Path, records: list[dict]) -> list[dict]:
    """Records whose quote does not occur in their note file."""
    if not directory.is_dir():
        raise NotesError(f"notes directory: expected a directory, got {str(directory)!r}")
    if not os.access(directory, os.R_OK | os.X_OK):
        raise NotesError(f"notes directory {str(directory)!r}: cannot read (permission denied)")
    texts: dict[str, str] = {}
    for rec in records:
        if rec["note"] not in texts:
            texts[rec["note"]] = read_note(directory, rec["note"])
    return [rec for rec in records if rec["quote"] not in texts[rec["note"]]]


def _is_project(path: Path | str | None) -> bool:
    return path is None or Path(path).resolve() == errata.REGISTRY.resolve()


def check(directory: Path | str, registry_path: Path | str | None = None,
          nonclaims: Path | str | None = None,
          min_coverage: float | None = None) -> tuple[int, list[str]]:
    """Exit code and the lines to print for ``check``.  ``min_coverage`` (a share, 0..1):
    required of each note; default ``MIN_COVERAGE`` for the project's registry, none for
    another."""
    directory = Path(directory)
    project = _is_project(registry_path)
    if min_coverage is None and project:
        min_coverage = MIN_COVERAGE
    try:
        if project:
            records, titles = errata.read(registry_path), errata.read_titles(registry_path)
        else:
            found = registry.load(registry_path)
            records, titles = found.records, found.titles
        audited = {r["note"] for r in records}
        # the project's no-claim marks are about its own notes
        marks = ([m for m in errata.read_nonclaims(nonclaims) if m["note"] in audited]
                 if project or nonclaims is not None else [])
        stale = stale_quotes(directory, records + marks)
        texts = {n: read_note(directory, n) for n in sorted({r["note"] for r in records})}
    except (NotesError, registry.RegistryError) as exc:
        return 2, [f"error: {exc}"]
    problems = [f"stale quote: {r['id']} in {r['note']}: {r['quote']!r}" for r in stale]
    problems += [f"cited record: {p}" for p in errata.cited_problems(records, marks)]
    lines = []
    for name, text in texts.items():
        try:
            found = title(text)
        except NotesError as exc:
            return 2, [f"error: note {name}: {exc}"]
        # the project's registry names every note; yours may leave the title to the note
        if (project or name in titles) and titles.get(name) != found:
            problems.append(f"title: {name}: registry says {titles.get(name)!r}, "
                            f"the note says {found!r}; make them the same")
        cov = note_coverage(name, text, records, marks)
        line = (f"coverage: {name} 《{found}》: {cov['covered']}/{cov['sentences']} sentences "
                f"({100 * cov['share']:.1f} %) carry a record"
                + (" or a no-claim mark" if marks or project else ""))
        lines.append(line)
        # a quote over several sentences may hide a claim of its own: listed for the reader
        lines += [f"  spans {n} sentences: {q!r}" for q, n in cov["straddling"]]
        if min_coverage is not None and cov["share"] < min_coverage:
            problems.append(f"{line}, expected at least {100 * min_coverage:.0f} %")
            problems += [f"  uncovered: {s[:60]!r}" for s in cov["missing"]]
    if problems:
        return 1, problems
    if min_coverage is None:
        lines.append("coverage is not required of this registry; --min-coverage 95 requires it")
    return 0, [f"ok: {len(records) + len(marks)} quotes found verbatim in {len(texts)} "
               f"note{'s' if len(texts) != 1 else ''}",
               *lines]


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m reports.audit.notes", description=__doc__.split(
        "\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="verify that every registry quote occurs in its note")
    p.add_argument("notes_dir", metavar="NOTES_DIR")
    p.add_argument("--registry", default=None, help="registry file (default: the packaged one)")
    p.add_argument("--nonclaims", default=None,
                   help="no-claim marks file (default: the packaged one, with the packaged "
                        "registry)")
    p.add_argument("--min-coverage", type=float, default=None, metavar="PERCENT",
                   help=f"require this share of each note's sentences to carry a record "
                        f"(default: {100 * MIN_COVERAGE:.0f} for the packaged registry, none "
                        "for yours)")
    args = parser.parse_args(argv)
    share = None if args.min_coverage is None else args.min_coverage / 100
    code, lines = check(args.notes_dir, args.registry, args.nonclaims, share)
    stream = sys.stdout if code == 0 else sys.stderr
    for line in lines:
        print(line, file=stream)
    return code


if __name__ == "__main__":
    sys.exit(main())
