"""HTML renderer: the report view -> ``index.html`` with math typeset at build time."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from reports.render import katex
from reports.render.katex import Code, Prose, Tex
from reports.view.edition import formulas

TEMPLATE = "report.html.j2"
STYLESHEET = "report.css"
STUDENT_TEMPLATE = "student.html.j2"
STUDENT_STYLESHEET = "student.css"


def environment() -> Environment:
    return Environment(
        loader=PackageLoader("reports.render", "templates"),
        undefined=StrictUndefined,
        autoescape=select_autoescape(enabled_extensions=("html", "html.j2"), default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


class Typeset(dict):
    """KaTeX markup by formula: a formula is its TeX and display mode (its label only says where
    it stands), so the same formula at many places, or in both editions, is typeset once."""

    def __getitem__(self, tex: Tex) -> Markup:
        return super().__getitem__((tex.tex, tex.display))


def typeset(*views: dict) -> Typeset:
    """Typeset every formula of ``views`` in one KaTeX call; malformed TeX raises FormulaError
    naming the first place the formula stands."""
    first: dict[tuple[str, bool], Tex] = {}
    for view in views:
        for tex in formulas(view):
            first.setdefault((tex.tex, tex.display), tex)
    unique = list(first.values())
    return Typeset({key: Markup(html)
                    for key, html in zip(first, katex.render_all(unique), strict=True)})


# Chinese punctuation that must not start a line: after a formula it goes with the formula
_CLOSING = re.compile(r"^[，。；：、？！）」』》]+")
# and an opening bracket that must not end one: before a formula it goes with the formula
_OPENING = re.compile(r"[（「『《]+$")


def _glued(parts, rendered) -> list[Markup]:
    """``parts`` as markup; a formula with the Chinese punctuation after it (「$x$，」) and the
    opening bracket before it (「（$x$」) in one ``<span class="glue">``, which the page keeps
    on one line where it fits, so that 「，」 never starts a line and 「（」 never ends one (a
    browser breaks before and after an inline formula's box)."""
    out: list[Markup | list[Markup]] = []
    for k, x in enumerate(parts):
        if isinstance(x, Tex):
            opening = out.pop() if out and isinstance(out[-1], list) else []
            out.append([*opening, rendered[x]])
        elif isinstance(x, Code):
            out.append(Markup("<code>{}</code>").format(x.text))
        else:
            m = _CLOSING.match(x) if k and isinstance(parts[k - 1], Tex) else None
            if m:
                out[-1].append(escape(m.group(0)))
                x = x[m.end():]
            o = _OPENING.search(x) if k + 1 < len(parts) and isinstance(parts[k + 1], Tex) \
                else None
            if o:
                out.append(escape(x[:o.start()]))
                out.append([escape(o.group(0))])
            else:
                out.append(escape(x))
    return [Markup('<span class="glue">{}</span>').format(Markup("").join(x))
            if isinstance(x, list) and len(x) > 1 else x[0] if isinstance(x, list) else x
            for x in out]


def prose_markup(p: Prose, rendered, untranslated: str) -> Markup:
    """Text with its formulas typeset (``rendered[tex]``), code in ``<code>``, the rest
    escaped; English shown for want of a translation is tagged ``untranslated``."""
    if not isinstance(p, Prose):
        raise TypeError(f"prose filter: expected Prose, got {type(p).__name__} {p!r:.60}")
    body = Markup("").join(_glued(p.parts, rendered))
    if p.missing:  # English for want of a translation: visible, never silent
        return Markup('<span class="untranslated" lang="en"><span class="tag">{}</span> {}'
                      '</span>').format(untranslated, body)
    return body


def render(view: dict, out_dir: Path, figure_dir: str = "figures",
           rendered: Typeset | None = None, template: str = TEMPLATE) -> Path:
    """Write ``index.html``, its stylesheet and KaTeX assets into ``out_dir``.

    Figures are expected as ``out_dir/<figure_dir>/<name>.svg`` (see reports.plots).
    ``rendered``: the view's formulas typeset already (:func:`typeset` of every edition).
    ``template``: the full report's, or the student edition's (:data:`STUDENT_TEMPLATE`).
    """
    rendered = rendered if rendered is not None else typeset(view)

    def math(tex: Tex) -> Markup:
        if not isinstance(tex, Tex):
            raise TypeError(f"math filter: expected Tex, got {type(tex).__name__} {tex!r:.60}")
        return rendered[tex]

    def prose(p: Prose) -> Markup:
        return prose_markup(p, rendered, untranslated)

    untranslated = view["t"]["meta"]["untranslated"]
    env = environment()
    env.filters["math"] = math
    env.filters["prose"] = prose
    html = env.get_template(template).render(view=view, figure_dir=figure_dir,
                                             stylesheet=STYLESHEET,
                                             student_stylesheet=STUDENT_STYLESHEET)
    out_dir.mkdir(parents=True, exist_ok=True)
    katex.copy_assets(out_dir / "katex")
    template_dir = Path(__file__).resolve().parent / "templates"
    for sheet in (STYLESHEET, STUDENT_STYLESHEET):
        shutil.copyfile(template_dir / sheet, out_dir / sheet)
    index = out_dir / view["file"]
    index.write_text(html, encoding="utf-8")
    return index
