"""The ``make reports`` pipeline: stages, result cache, progress lines, atomic output swap.

Stages: derive, crosscheck, training, evidence, errata (collect report data; cached; errata
takes derive's statuses and the evidence run beside derive), then plots, HTML, LaTeX, PDF.
The output is built in a temporary sibling directory and swapped in only when every stage
succeeded, so a failed build leaves the previous one intact.
"""

from __future__ import annotations

import datetime
import functools
import importlib.metadata
import json
import os
import shutil
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from reports.pipeline import collect, user_claims
from reports.pipeline.cache import Cache, content_hash, source_hash
from reports.pipeline.stages import (
    NOTES_DIR,
    Beside,
    Log,
    Progress,
    collect_data,
    package_dir,
    stdout,
)
from reports.render import fonts, html, katex, latex
from reports.view import edition, measure, model, student_data
from reports.view import student as student_view

REPORTS = Path(__file__).resolve().parent.parent  # the reports package
PROJECT = REPORTS.parent
DEFAULT_OUT = Path("reports/build")
# the project's cache, whichever folder the build is started from: the shipped stages computed
# by `make reports` are found by a build of your own claims too
DEFAULT_CACHE = PROJECT / ".cache" / "reports"


def _plots_key(plot_data: dict, training: dict) -> str:
    # the figures' words (ui.toml) and the font of the Chinese ones are part of the drawing
    return content_hash("plots", [plot_data, training, importlib.metadata.version("matplotlib"),
                                  str(fonts.cjk_font())],
                        [REPORTS / "render" / "plots.py", REPORTS / "render" / "i18n" / "ui.toml",
                         # the student edition's own letters in its figures
                         student_data.STUDENT, REPORTS / "view" / "student_tex.py"])


def draw_plots(cache: Cache, crosscheck: dict, training: dict) -> str:
    """Draw the figures into the cache as soon as their data is there (a job beside the data
    stages, in a worker process): rendering then finds them drawn."""
    key = _plots_key(crosscheck["plot_data"], training)
    if cache.has_dir("plots", key):
        return "figures cached"
    with tempfile.TemporaryDirectory() as tmp:
        figures = _draw(Path(tmp) / "figures", cache, key,
                        {"plot_data": crosscheck["plot_data"], "training": training})
    return f"{len(figures)} figures"


def _draw(staged: Path, cache: Cache, key: str, data: dict) -> list[dict]:
    from reports.render import plots  # matplotlib is slow to import; only on a miss

    figures = plots.render(data, staged, staged, LANGS, fonts.cjk_font(),
                           {n: {"student": s} for n, s in student_view.figure_symbols().items()})
    (staged / "figures.json").write_text(json.dumps(figures), encoding="utf-8")
    cache.put_dir("plots", key, staged)
    return figures


def _plots(data: dict, work: Path, cache: Cache, note: list[str]) -> list[dict]:
    """Figures into work/figures (SVG and PDF), reused from the cache when data and code match."""
    key = _plots_key(data["plot_data"], data["training"])
    staged = work / "figures"
    if cache.get_dir("plots", key, staged):
        note.append("cached")
    else:
        _draw(staged, cache, key, data)
    return json.loads((staged / "figures.json").read_text(encoding="utf-8"))


def _pdf(tex: Path, pdf: Path, cache: Cache, note: list[str], stage: str = "pdf") -> None:
    """Compile ``tex`` into ``pdf`` unless the same source, figures and date settings were
    compiled before (each edition has its own cache entry, so both can run at once)."""
    figures = sorted((tex.parent / "figures").glob("*"))
    env = [os.environ.get(k) for k in ("SOURCE_DATE_EPOCH", "FORCE_SOURCE_DATE")]
    key = content_hash(stage, [env, shutil.which("xelatex")],
                       [tex, REPORTS / "render" / "latex.py", *figures])
    staged = tex.parent / "pdf-out"
    if cache.get_dir(stage, key, staged):
        note.append("cached")
    else:
        compiled = latex.compile_pdf(tex, staged / "report.pdf", edition_epoch())
        note.append(f"({compiled.passes} XeLaTeX passes)")
        if compiled.missing:
            note.append(f"warning: the fonts lack {' '.join(compiled.missing)} "
                        "(left out of the PDF)")
        if compiled.overfull:
            note.append(f"warning: {len(compiled.overfull)} overfull lines run into the "
                        f"margin, first: {compiled.overfull[0]}")
        cache.put_dir(stage, key, staged)
    pdf.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(staged / "report.pdf", pdf)
    shutil.rmtree(staged)


def load_data(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise model.ReportDataError(f"{path}: expected JSON report data, got: {exc}") from exc


LANGS = ("en", "zh")
EDITION = REPORTS / "render" / "edition.toml"


def edition_meta() -> dict:
    """Version of the package and the edition's fixed date (so rebuilds are byte-identical)."""
    try:
        version = importlib.metadata.version("transformer-derivations")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    date = tomllib.loads(EDITION.read_text(encoding="utf-8"))["date"]
    return {"version": version, "date": str(date)}


def edition_epoch() -> int:
    """The edition's date as seconds since 1970 (UTC midnight), for SOURCE_DATE_EPOCH."""
    day = datetime.date.fromisoformat(edition_meta()["date"])
    return int(datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC).timestamp())


def _render_sources() -> list[Path]:
    render = REPORTS / "render"
    files = sorted(p for p in render.rglob("*") if p.is_file() and "node_modules" not in p.parts
                   and "__pycache__" not in p.parts)
    return [*files, *sorted((REPORTS / "view").glob("*.py"))]


def render_all(data: dict, work: Path, progress: Progress, cache: Cache,
               *, pdf: bool = True, student: bool = True) -> None:
    """Both editions (en, zh) of ``data``: html/index.html + index.zh.html, latex/<lang>/,
    pdf/report.<lang>.pdf, and with ``student`` the student edition of each (its topics are
    the shipped claims': a report of your own claims or notes has none). The whole output is
    cached by the hash of data and renderer."""
    model.validate(data)
    meta = edition_meta()
    have_node = katex.node_available()
    have_tex = pdf and latex.tex_available()
    env = [os.environ.get(k) for k in ("SOURCE_DATE_EPOCH", "FORCE_SOURCE_DATE")]
    key = content_hash("render", [data, meta, have_node, have_tex, env, student,
                                  importlib.metadata.version("matplotlib"),
                                  str(fonts.cjk_font())], _render_sources())
    with progress.stage("measure") as note:
        # how heavy the formulas read: every build says so, cached or not
        shipped = {c["id"] for c in data["claims"]}
        for lang in LANGS:
            view = edition.build_view(data, [], lang, meta)
            note.append(f"{lang}: {measure.summary(edition.formulas(view), shipped).line};")
    start = time.perf_counter()
    if cache.get_dir("render", key, work):
        progress.log(f"reports: {'render':<10} {time.perf_counter() - start:7.2f} s  cached "
                     f"(key {key[:12]}): html, latex, pdf of {', '.join(LANGS)}")
        return
    with progress.stage("plots") as note:
        # a report of the reader's claims only has no figures to draw
        figures = _plots(data, work, cache, note) if data["plot_data"] else []
        (work / "figures").mkdir(exist_ok=True)
        note.insert(0, f"{len(figures)} figures in {len(LANGS)} languages")
        if figures and fonts.cjk_font() is None:
            note.append(f"({fonts.HINT})")
        # the page of either language links its own drawings from the one html/figures folder;
        # each LaTeX edition gets its language's
        dests = [(work / "html" / "figures", "svg", LANGS)] if have_node else []
        dests += [(work / "latex" / folder / "figures", "pdf", (lang,))
                  for lang in LANGS for folder in (lang, f"student-{lang}")[:1 + student]]
        for f in figures:
            for dest, ext, langs in dests:
                dest.mkdir(parents=True, exist_ok=True)
                for lang in langs:
                    # a page also shows each figure's narrow drawing, on a phone
                    for variant, narrow in [(v, n) for v in ["", *f.get("variants", [])]
                                            for n in (False, True)[:1 + (ext == "svg")]]:
                        name = f"{model.figure_stem(f['name'], lang, variant, narrow)}.{ext}"
                        shutil.copyfile(work / "figures" / name, dest / name)
        shutil.rmtree(work / "figures")
    # XeLaTeX (one process per edition) starts as soon as its edition's source is written and
    # runs while the next edition is laid out and KaTeX typesets the pages
    with ThreadPoolExecutor(max_workers=len(LANGS)) as pool:
        pdf_notes: dict[str, list[str]] = {lang: [] for lang in LANGS}
        pdf_start = time.perf_counter()
        pdf_notes.update({f"student-{lang}": [] for lang in LANGS})
        views, students, jobs = {}, {}, []
        with progress.stage("latex") as note:
            for lang in LANGS:
                views[lang] = edition.build_view(data, figures, lang, meta)
                editions = [(f"report.{lang}", views[lang], lang, latex.TEMPLATE, "report.tex")]
                if student:  # the student edition: its own folder, so both compile at once
                    students[lang] = student_view.build_view(data, figures, lang, meta)
                    editions.append((f"student.{lang}", students[lang], f"student-{lang}",
                                     latex.STUDENT_TEMPLATE, "student.tex"))
                for name, view, folder, template, tex_name in editions:
                    tex = latex.render(view, work / "latex" / folder, template=template,
                                       name=tex_name)
                    note.append(str(tex.relative_to(work)))
                    if pdf and have_tex:
                        edition_key = lang if folder == lang else folder
                        jobs.append(pool.submit(_pdf, tex, work / "pdf" / f"{name}.pdf", cache,
                                                pdf_notes[edition_key], f"pdf-{edition_key}"))
        with progress.stage("html") as note:
            if have_node:
                # every edition in one KaTeX run
                typeset = html.typeset(*views.values(), *students.values())
                for view in views.values():
                    index = html.render(view, work / "html", rendered=typeset)
                    note.append(f"{index.relative_to(work)} "
                                f"({len(edition.formulas(view))} formulas)")
                for view in students.values():
                    page = html.render(view, work / "html", rendered=typeset,
                                       template=html.STUDENT_TEMPLATE)
                    note.append(f"{page.relative_to(work)} "
                                f"({len(edition.formulas(view))} formulas)")
                note.append(f"{len(typeset)} distinct formulas typeset")
                if data.get("notes_reading"):  # the LaTeX notes, annotated formula by formula
                    from reports.pipeline.stages import NOTES_DIR
                    from reports.render import notes as notes_page

                    pages = notes_page.write_shipped(data["notes_reading"], work / "html" / "notes",
                                                     NOTES_DIR)
                    note += [str(p.relative_to(work)) for p in pages]
            else:
                note.append(f"skipped: {katex.NODE_HINT}")
        with progress.stage("pdf") as note:
            for job in jobs:
                job.result()
            if not pdf:
                note.append("skipped (--no-pdf)")
            elif not have_tex:
                note.append(f"skipped: {latex.TEX_HINT}")
            else:
                note.append(f"({time.perf_counter() - pdf_start:.2f} s since start, "
                            "alongside html)")
                note += [f"pdf/report.{lang}.pdf {' '.join(pdf_notes[lang])}".rstrip()
                         for lang in LANGS]
                note += [f"pdf/student.{lang}.pdf "
                         f"{' '.join(pdf_notes[f'student-{lang}'])}".rstrip()
                         for lang in LANGS if student]
    cache.put_dir("render", key, work)


def mine_only() -> dict:
    """Report data with no shipped section: the frame a report of the reader's claims fills."""
    return {"claims": [], "crosschecks": [], "plot_data": {},
            "training": {"steps": [], "loss": []}, "errata": {"records": [], "summary": {}}}


def _swap(tmp: Path, out: Path, keep_pdf: bool = False) -> bool:
    """Put the new output ``tmp`` in place of ``out``; with ``keep_pdf``, the PDFs of the
    earlier build stay (a build that wrote none must not delete them).  Whether it kept any."""
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    kept = keep_pdf and (out / "pdf").is_dir() and not (tmp / "pdf").exists()
    if kept:
        (out / "pdf").rename(tmp / "pdf")
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    if old.exists():
        shutil.rmtree(old)
    return kept


def build(
    out: Path = DEFAULT_OUT,
    *,
    data: dict | None = None,
    data_source: str = "",
    pdf: bool = True,
    cache: Cache | None = None,
    log: Log = stdout,
    claims: list[Path] = (),
    shipped: bool = True,
    student: bool = True,
    keep: dict | None = None,
) -> dict[str, float]:
    """Build the report into ``out``; return each stage's seconds.

    With ``data`` given, render it instead of running the producers.  ``claims``: files of the
    reader's own claims, verified (cached by the files' bytes) into ``user_claims``; with
    ``shipped`` False the report holds those claims only (no shipped stage runs) and, like
    ``student`` False, no student edition.  ``keep``, if given, receives the report data
    rendered (``keep["data"]``).  A build that writes no PDF (``pdf`` False, or no XeLaTeX)
    keeps the ``pdf/`` of an earlier build in ``out`` and says so.
    """
    progress = Progress(log)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    total = time.perf_counter()
    cache = cache or Cache(DEFAULT_CACHE)
    try:
        if data is None and not shipped:
            data = mine_only()
            with progress.stage("data") as note:
                note.append("your claims only (the shipped claims, cross-checks and audit "
                            "not included)")
        elif data is None:
            # with the cache on, the figures are drawn as soon as their data is there
            early = (Beside("plots", functools.partial(draw_plots, cache),
                            ("crosscheck", "training")),) if cache.enabled else ()
            data = collect_data(cache, progress, beside=early)
        else:
            with progress.stage("data") as note:
                note.append(f"from {data_source or 'caller'} (derive/crosscheck not run)")
        if claims:
            with progress.stage(user_claims.STAGE) as note:
                key = source_hash(user_claims.STAGE, [package_dir("derivations"), *claims])
                data = {**data, model.USER_CLAIMS: user_claims.collect(claims, cache, key, note)}
        data = collect.with_locations(data, NOTES_DIR)
        render_all(data, tmp, progress, cache, pdf=pdf, student=student and shipped)
        if _swap(tmp, out, keep_pdf=not (pdf and latex.tex_available())):
            log(f"reports: {'pdf':<10} {out / 'pdf'} of the earlier build kept (not rebuilt)")
        if keep is not None:
            keep["data"] = data
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    progress.timings["total"] = time.perf_counter() - total
    log(f"reports: {'total':<10} {progress.timings['total']:7.2f} s  -> {out}")
    return progress.timings
