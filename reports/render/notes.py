"""The annotated copy of a note: the note's own text, its formulas typeset by KaTeX at build
time, a mark beside each (✔ ≈ ✘ · ?), and the reading and the check one click away.

Data in, pages out: :func:`view` turns a :class:`derivations.notes.NoteResult` into plain data
(the words from ``i18n/notes.toml``), :func:`write` renders ``notes.html.j2`` for each note in
both languages.  The Markdown is rendered by the same parser that found the formulas, so each
math token knows its formula; a paragraph's checks follow it as ``<details>`` (a ``<details>``
cannot stand inside a ``<p>``), reached from the mark in one click.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from markupsafe import Markup, escape

from derivations.notes import reasons
from derivations.notes.markdown import MATH_TOKENS, parse, parser
from derivations.notes.model import MARKS, VERDICTS, NoteResult, NotesResult
from reports.render import i18n, katex, notes_symbols
from reports.render.html import environment
from reports.render.katex import Tex, UnsafeFormula

TEMPLATE = "notes.html.j2"
STYLESHEETS = ("report.css", "notes.css")
LANGS = ("en", "zh")


def _file(note: NoteResult, lang: str) -> str:
    stem = re.sub(r"[^\w.-]+", "-", Path(note.path).stem, flags=re.UNICODE) or "note"
    return f"{stem}.html" if lang == "en" else f"{stem}.zh.html"


def _tex(text: str, display: bool) -> Tex | None:
    try:
        return Tex(text, display)
    except UnsafeFormula:
        return None


def typeset(notes: list[NoteResult]) -> dict[tuple[str, bool], Markup | None]:
    """Every formula of the notes and of their readings, typeset once: None where KaTeX cannot
    (or may not) typeset it."""
    wanted: dict[tuple[str, bool], Tex | None] = {}
    for note in notes:
        for f in note.formulas:
            wanted.setdefault((f.latex, f.display), _tex(f.latex, f.display))
            if f.verdict == "failed":  # also listed inline in the summary
                wanted.setdefault((f.latex, False), _tex(f.latex, False))
            if f.reading:
                wanted.setdefault((f.reading, True), _tex(f.reading, True))
            for link in f.links:
                for side in (link.lhs, link.rhs):
                    wanted.setdefault((side, False), _tex(side, False))
    todo = [(k, t) for k, t in wanted.items() if t is not None]
    html = katex.render_source([t for _, t in todo])
    out: dict = dict.fromkeys(wanted)
    out.update({k: (Markup(h) if h is not None else None)
                for (k, _), h in zip(todo, html, strict=True)})
    return out


def _math(rendered, tex: str, display: bool, t) -> Markup:
    got = rendered.get((tex, display))
    if got is not None:
        return got
    return Markup('<code class="tex" title="{}">{}</code>').format(t["check"]["no_typeset"], tex)


def _body(note: NoteResult, rendered, t) -> Markup:
    """The note's Markdown as HTML, each formula typeset with its mark, each block followed by
    the checks of its formulas."""
    parsed = parse(note.text)
    md = _renderer(note, rendered, t)
    tokens, out, group, depth, pending = parsed.tokens, [], [], 0, []
    by_index = {f.index: f for f in note.formulas}
    for tok in tokens:
        group.append(tok)
        depth += tok.nesting
        for m in [tok, *(tok.children or ())]:
            if m.type in MATH_TOKENS and "formula" in (m.meta or {}):
                pending.append(by_index[m.meta["formula"]])
        if depth == 0:
            out.append(md.renderer.render(group, md.options, {}))
            if pending:
                out.append(str(_checks(pending, rendered, t)))
            group, pending = [], []
    return Markup("".join(out))


def _renderer(note: NoteResult, rendered, t):
    md = parser()  # raw HTML off: the note's HTML is shown as text, never run
    by_index = {f.index: f for f in note.formulas}

    def math(self, tokens, idx, options, env):
        tok = tokens[idx]
        f = by_index[tok.meta["formula"]]
        mark = Markup('<a class="mark v-{}{}" href="#f{}" title="{}">{}</a>').format(
            f.verdict.replace(" ", "-"), " display" if f.display else "", f.index,
            _label(f, t), f.mark)
        typeset_ = _math(rendered, f.latex, f.display, t)
        tag = "div" if tok.block else "span"
        # a display formula's mark comes first and floats to the right of it
        inner = (mark, typeset_) if f.display else (typeset_, mark)
        return str(Markup('<{} class="fm" id="at{}">{}{}</{}>').format(
            Markup(tag), f.index, *inner, Markup(tag)))

    for kind in MATH_TOKENS:
        md.add_render_rule(kind, math)
    return md


def _label(f, t) -> str:
    """The word beside a mark: a proved ≈ and what the note gives say so, not their verdict."""
    if f.mark == "≈" and f.verdict == "proved":
        return t["verdict"]["approx"]
    return t["verdict"]["given"] if f.given else t["verdict"][f.verdict]


def _checks(formulas, rendered, t) -> Markup:
    rows = []
    for f in formulas:
        head = Markup('<summary><span class="mark v-{}">{}</span> {} · {}</summary>').format(
            f.verdict.replace(" ", "-"), f.mark,
            t["check"]["line"].format(n=f.line), _label(f, t))
        parts = [head]
        if f.reading:
            parts.append(Markup('<p><strong>{}</strong>{}</p>{}').format(
                t["check"]["reading"], t["meta"]["colon"], _math(rendered, f.reading, True, t)))
        parts.append(Markup('<p><strong>{}</strong>{}{}</p>').format(
            t["check"]["reason"], t["meta"]["colon"], reason_html(f.reason, t)))
        for link in f.links:
            parts.append(_link(link, rendered, t))
        rows.append(Markup('<details class="check v-{}" id="f{}">{}</details>').format(
            f.verdict.replace(" ", "-"), f.index, Markup("").join(parts)))
    return Markup('<div class="checks">{}</div>').format(Markup("").join(rows))


def reason_html(reason, t) -> Markup:
    """A verdict's reason in the page's language: a keyed reason in its words (what its
    Chinese sets in code font, in ``<code>``); text the catalogue does not hold stays as it came,
    marked as English."""
    english = t["meta"]["lang"] == "en"
    if english or not isinstance(reason, reasons.Reason):
        if english or not reason:
            return Markup("{}").format(reason)
        return Markup('<span lang="en">{}</span>{}').format(reason, t["check"]["reason_en"])
    return Markup("").join(
        Markup('<code class="tex">{}</code>').format(piece) if code else Markup("{}").format(piece)
        for code, piece in reasons.code_spans(reason, "zh", notes_symbols.rests_on_zh))


def _link(link, rendered, t) -> Markup:
    said = Markup('<p class="link v-{}">{} {}{} {} {} {} {}</p>').format(
        link.status.replace(" ", "-"), MARKS.get(link.status, "·"),
        t["check"]["link"].format(n=link.index), t["meta"]["colon"],
        _math(rendered, link.lhs, False, t), link.relation, _math(rendered, link.rhs, False, t),
        reason_html(link.reason, t))
    ce = link.counterexample or {}
    lines = []
    if ce:
        point = ce.get("point")
        if point:
            at = ", ".join(f"{k} = {v}" for k, v in point.items())
            # the engine's point, in its own words: code font beside Chinese
            lines.append(Markup("{} {}").format(t["check"]["at"], at) if t["meta"]["lang"] == "en"
                         else Markup('{} <code class="tex">{}</code>').format(t["check"]["at"], at))
        elif "point" in ce:
            lines.append(Markup("{}").format(t["check"]["as_written"]))
        for key, label in (("previous", "left"), ("current", "right"), ("lhs", "left"),
                           ("rhs", "right"), ("exact", "exact"), ("shown", "shown")):
            if key in ce:
                lines.append(Markup("{}{}<code>{}</code>").format(
                    t["check"][label], t["meta"]["colon"], ce[key]))
    if link.definitions:
        lines.append(Markup("{}{}{}").format(t["check"]["definitions"], t["meta"]["colon"],
                                             Markup("; " if t["meta"]["lang"] == "en"
                                                    else "；").join(
                                                 _made(k, v, t)
                                                 for k, v in link.definitions.items())))
    if lines:
        said += Markup('<ul class="counterexample">{}</ul>').format(
            Markup("").join(Markup("<li>{}</li>").format(x) for x in lines))
    return said


def _made(name: str, where: str, t) -> Markup:
    """A definition a check unfolded and where the note made it ("line N: LaTeX")."""
    made = re.fullmatch(r"line (\d+): (.*)", where, flags=re.DOTALL)
    if t["meta"]["lang"] == "en" or made is None:
        return Markup("{} ({})").format(name, where)
    return Markup('<code class="tex">{}</code>（{}{}<code class="tex">{}</code>）').format(
        name, t["check"]["line"].format(n=made.group(1)), t["meta"]["colon"], made.group(2))


def view(note: NoteResult, lang: str, rendered) -> dict:
    t = i18n.ui(lang, "notes")
    counts = note.counts()
    rounded = sum(1 for f in note.formulas if f.verdict == "proved" and f.approx)
    given = sum(1 for f in note.formulas if f.given)
    said = {"proved": t["summary"]["rounded"].format(n=rounded)} if rounded else {}
    if given:
        said["not checkable"] = t["summary"]["given"].format(n=given)
    parts = t["meta"]["list_sep"].join(f"{counts[v]} {MARKS[v]} {t['verdict'][v]}{said.get(v, '')}"
                                        for v in VERDICTS if counts[v])
    n = len(note.formulas)
    failed = [{"line": f.line, "anchor": f"f{f.index}", "latex": f.latex, "reason": f.reason}
              for f in note.formulas if f.verdict == "failed"]
    return {
        "t": t, "lang": lang, "file": _file(note, lang),
        "other_file": _file(note, "zh" if lang == "en" else "en"),
        "title": t["meta"]["title"].format(title=note.title or Path(note.path).name),
        "path": note.path,
        "summary": t["summary"]["formulas"].format(n=n, parts=parts) if n
        else t["summary"]["none"],
        "failed": failed,
        "symbols": [s.to_dict() if lang == "en" else notes_symbols.row_zh(s.to_dict())
                    for s in note.symbols],
        "body": _body(note, rendered, t),
        "stylesheets": STYLESHEETS,
    }


def write(result: NotesResult, out_dir: Path) -> list[Path]:
    """The annotated pages of every note, English and Chinese, with their assets."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rendered = typeset(result.notes)
    env = environment()
    template = env.get_template(TEMPLATE)
    written = []
    for note in result.notes:
        for lang in LANGS:
            v = view(note, lang, rendered)
            v["failed"] = [{**x, "html": _math(rendered, x["latex"], False, v["t"])}
                           for x in v["failed"]]
            page = out_dir / v["file"]
            page.write_text(template.render(view=v), encoding="utf-8")
            written.append(page)
    katex.copy_assets(out_dir / "katex")
    templates = Path(__file__).resolve().parent / "templates"
    for sheet in STYLESHEETS:
        shutil.copyfile(templates / sheet, out_dir / sheet)
    return written


def write_shipped(reading: dict, out_dir: Path, notes_dir: Path) -> list[Path]:
    """The annotated pages of the report's LaTeX notes (``reading``: {file: to_dict()})."""
    notes = []
    for name, data in reading.items():
        path = notes_dir / name
        if path.is_file():
            notes.append(NoteResult.from_dict(data, path.read_text(encoding="utf-8")))
    return write(NotesResult(notes), out_dir) if notes else []


__all__ = ["write", "write_shipped", "view", "typeset", "escape"]
