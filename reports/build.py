"""The ``make reports`` pipeline: stages, result cache, progress lines, atomic output swap.

Stages: derive, crosscheck, errata, training (collect report data; cached), then plots,
HTML, LaTeX, PDF. The output is built in a temporary sibling directory and swapped in
only when every stage succeeded, so a failed build leaves the previous one intact.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from reports import collect, html, katex, latex, model

CACHE_VERSION = "1"
DEFAULT_OUT = Path("reports/build")
DEFAULT_CACHE = Path(".cache/reports")

Log = Callable[[str], None]


def _stdout(line: str) -> None:
    print(line, flush=True)


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin) if spec.origin else None


RENDERING = {"__init__.py", "__main__.py", "build.py", "collect.py", "html.py", "katex.py",
             "latex.py", "model.py", "plots.py"}


def _errata_inputs() -> list[Path]:
    """The audit's code (reports/audit) and the notes it audits."""
    reports_dir = Path(__file__).resolve().parent
    notes = reports_dir.parent.parent / "shared" / "notes"
    return [reports_dir / "audit", notes]


# Which sources a stage's result depends on: its cache key is their hash.
STAGES: dict[str, tuple[Callable[[], object], Callable[[], list[Path | None]]]] = {
    "derive": (collect.derive, lambda: [_package_dir("derivations")]),
    "crosscheck": (collect.crosscheck,
                   lambda: [_package_dir("derivations"), _package_dir("numeric")]),
    "errata": (collect.errata,
               lambda: [_package_dir("derivations"), _package_dir("numeric"), *_errata_inputs()]),
    "training": (collect.training,
                 lambda: [_package_dir("derivations"), _package_dir("numeric")]),
}


def source_hash(stage: str, paths: list[Path | None]) -> str:
    """sha256 over every source file under ``paths`` (relative name and bytes)."""
    h = hashlib.sha256(f"{CACHE_VERSION}\0{stage}\0{sys.version_info[:2]}\0".encode())
    for root in paths:
        if root is None or not root.exists():
            h.update(b"missing\0")
            continue
        files = [root] if root.is_file() else sorted(
            p for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
        )
        for path in files:
            name = path.relative_to(root.parent).as_posix()
            h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


@dataclass
class Cache:
    """JSON results keyed by source hash; one file per stage and key."""

    root: Path
    enabled: bool = True

    def path(self, stage: str, key: str) -> Path:
        return self.root / f"{stage}-{key[:32]}.json"

    def get(self, stage: str, key: str) -> object | None:
        p = self.path(stage, key)
        if not self.enabled or not p.is_file():
            return None
        try:
            return json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # a torn or foreign file is a miss, not an error

    def put(self, stage: str, key: str, value: object) -> None:
        if not self.enabled:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        for old in self.root.glob(f"{stage}-*.json"):
            old.unlink(missing_ok=True)
        target = self.path(stage, key)
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(value, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        os.replace(tmp, target)


    def get_dir(self, stage: str, key: str, dest: Path) -> bool:
        """Copy a cached directory of files to ``dest``; False on a miss."""
        src = self.root / f"{stage}-{key[:32]}.d"
        if not self.enabled or not (src / ".complete").is_file():
            return False
        shutil.copytree(src, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".complete"))
        return True

    def put_dir(self, stage: str, key: str, src: Path) -> None:
        if not self.enabled:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        for old in self.root.glob(f"{stage}-*.d"):
            shutil.rmtree(old, ignore_errors=True)
        target = self.root / f"{stage}-{key[:32]}.d"
        shutil.copytree(src, target)
        (target / ".complete").touch()  # written last: a half-copied entry is a miss


def content_hash(stage: str, values: list[object], files: list[Path]) -> str:
    """sha256 of JSON ``values`` and the bytes of ``files``: the key of a rendering cache."""
    h = hashlib.sha256(f"{CACHE_VERSION}\0{stage}\0".encode())
    h.update(json.dumps(values, sort_keys=True, ensure_ascii=False).encode())
    for path in files:
        h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _plots(data: dict, work: Path, cache: Cache, note: list[str]) -> list[dict]:
    """Figures into work/figures (SVG and PDF), reused from the cache when data and code match."""
    here = Path(__file__).resolve().parent
    key = content_hash(
        "plots",
        [data["plot_data"], data["training"], importlib.metadata.version("matplotlib")],
        [here / "plots.py"],
    )
    staged = work / "figures"
    if cache.get_dir("plots", key, staged):
        note.append("cached")
    else:
        from reports import plots  # matplotlib is slow to import; only on a miss

        figures = plots.render(data, staged, staged)
        (staged / "figures.json").write_text(json.dumps(figures), encoding="utf-8")
        cache.put_dir("plots", key, staged)
    return json.loads((staged / "figures.json").read_text(encoding="utf-8"))


def _pdf(tex: Path, pdf: Path, cache: Cache, note: list[str]) -> None:
    """Compile ``tex`` unless the same source, figures and date settings were compiled before."""
    here = Path(__file__).resolve().parent
    figures = sorted((tex.parent / "figures").glob("*"))
    env = [os.environ.get(k) for k in ("SOURCE_DATE_EPOCH", "FORCE_SOURCE_DATE")]
    key = content_hash("pdf", [env, shutil.which("xelatex")],
                       [tex, here / "latex.py", *figures])
    if cache.get_dir("pdf", key, pdf.parent):
        note.append("cached")
        return
    compiled = latex.compile_pdf(tex, pdf)
    if compiled.missing:
        note.append(f"warning: the fonts lack {' '.join(compiled.missing)} (left out of the PDF)")
    if compiled.overfull:
        note.append(f"warning: {len(compiled.overfull)} overfull lines run into the margin, "
                    f"first: {compiled.overfull[0]}")
    cache.put_dir("pdf", key, pdf.parent)


@dataclass
class Progress:
    log: Log = _stdout
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[list[str]]:
        """Time a stage; the body appends a note to the yielded list for the progress line."""
        note: list[str] = []
        start = time.perf_counter()
        try:
            yield note
        except BaseException:
            self.log(f"reports: {name:<10} {time.perf_counter() - start:7.2f} s  FAILED")
            raise
        seconds = time.perf_counter() - start
        self.timings[name] = seconds
        self.log(f"reports: {name:<10} {seconds:7.2f} s  {' '.join(note)}".rstrip())


def collect_data(cache: Cache, progress: Progress) -> dict:
    """Run (or load from cache) each data stage and assemble report data."""
    results: dict[str, object] = {}
    for name, (producer, sources) in STAGES.items():
        with progress.stage(name) as note:
            key = source_hash(name, sources())
            value = cache.get(name, key)
            if value is None:
                value = producer()
                # Round-trip now so a fresh result and a cached one are the same JSON data.
                value = json.loads(json.dumps(value, ensure_ascii=False))
                cache.put(name, key, value)
                note.append(f"computed (key {key[:12]})")
            else:
                note.append(f"cached (key {key[:12]})")
            results[name] = value
    cross = results["crosscheck"]
    if not isinstance(cross, dict) or "crosschecks" not in cross or "plot_data" not in cross:
        raise model.ReportDataError(
            f"crosscheck stage: expected dict with 'crosschecks' and 'plot_data', got {cross!r:.80}"
        )
    return {
        "claims": results["derive"],
        "crosschecks": cross["crosschecks"],
        "plot_data": cross["plot_data"],
        "training": results["training"],
        "errata": results["errata"],
    }


def load_data(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise model.ReportDataError(f"{path}: expected JSON report data, got: {exc}") from exc


def render_all(data: dict, work: Path, progress: Progress, cache: Cache,
               *, pdf: bool = True) -> None:
    """Plots, HTML, LaTeX and PDF of ``data`` into ``work`` (html/, latex/, pdf/)."""
    model.validate(data)
    have_node = katex.node_available()
    with progress.stage("plots") as note:
        figures = _plots(data, work, cache, note)
        note.insert(0, f"{len(figures)} figures")
        for f in figures:
            for ext, sub in (("svg", "html"), ("pdf", "latex")):
                if sub == "html" and not have_node:
                    continue
                (work / sub / "figures").mkdir(parents=True, exist_ok=True)
                shutil.copyfile(work / "figures" / f"{f['name']}.{ext}",
                                work / sub / "figures" / f"{f['name']}.{ext}")
        shutil.rmtree(work / "figures")
    view = model.build_view(data, figures)
    with progress.stage("html") as note:
        if have_node:
            index = html.render(view, work / "html")
            note.append(f"{len(model.formulas(view))} formulas -> {index.relative_to(work)}")
        else:
            note.append(f"skipped: {katex.NODE_HINT}")
    with progress.stage("latex") as note:
        tex = latex.render(view, work / "latex")
        note.append(str(tex.relative_to(work)))
    with progress.stage("pdf") as note:
        if not pdf:
            note.append("skipped (--no-pdf)")
        elif not latex.tex_available():
            note.append(f"skipped: {latex.TEX_HINT}")
        else:
            _pdf(tex, work / "pdf" / "report.pdf", cache, note)
            note.insert(0, "pdf/report.pdf")


def _swap(tmp: Path, out: Path) -> None:
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    if old.exists():
        shutil.rmtree(old)


def build(
    out: Path = DEFAULT_OUT,
    *,
    data: dict | None = None,
    data_source: str = "",
    pdf: bool = True,
    cache: Cache | None = None,
    log: Log = _stdout,
) -> dict[str, float]:
    """Build the report into ``out``; return each stage's seconds.

    With ``data`` given, render it instead of running the producers.
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
        if data is None:
            data = collect_data(cache, progress)
        else:
            with progress.stage("data") as note:
                note.append(f"from {data_source or 'caller'} (derive/crosscheck not run)")
        render_all(data, tmp, progress, cache, pdf=pdf)
        _swap(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    progress.timings["total"] = time.perf_counter() - total
    log(f"reports: {'total':<10} {progress.timings['total']:7.2f} s  -> {out}")
    return progress.timings
