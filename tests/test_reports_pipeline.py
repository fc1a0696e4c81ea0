"""The build pipeline: determinism, atomic swap, error naming, cache, missing tools, CLI."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import re
import shutil
import sys
import types
from collections import Counter
from pathlib import Path

import pytest

from reports.__main__ import main
from reports.pipeline import build, collect, stages
from reports.render import i18n, latex
from reports.render.katex import FormulaError
from reports.view import model

needs_node = pytest.mark.skipif(shutil.which("node") is None,
                                reason="Node.js is needed to typeset the HTML report")


def tree(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``root``."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def first_build(tmp_path_factory, data):
    out = tmp_path_factory.mktemp("pipe") / "build"
    lines: list[str] = []
    build.build(out, data=data, pdf=False, log=lines.append, cache=build.Cache(out.parent / "c"))
    return out, lines


def no_cache(tmp: Path) -> build.Cache:
    return build.Cache(tmp / "cache", enabled=False)


@needs_node
def test_two_builds_are_byte_identical(first_build, data, tmp_path):
    out, _ = first_build
    second = tmp_path / "build"
    build.build(second, data=data, pdf=False, log=lambda line: None, cache=no_cache(tmp_path))
    a, b = tree(out), tree(second)
    assert any(k.startswith("html/") for k in a) and "latex/en/report.tex" in a
    assert "html/index.zh.html" in a and "latex/zh/report.tex" in a
    assert a == b


@needs_node
def test_rebuild_reuses_cached_figures_with_identical_output(first_build, data, tmp_path,
                                                             monkeypatch):
    out, first_lines = first_build
    lines: list[str] = []
    again = tmp_path / "again"
    build.build(again, data=data, pdf=False, log=lines.append, cache=build.Cache(out.parent / "c"))
    render_line = next(line for line in lines if line.split()[1] == "render")
    assert "cached" in render_line
    assert not [line for line in lines if line.split()[1] in ("plots", "html", "pdf")]
    assert "cached" not in next(line for line in first_lines if line.split()[1] == "plots")
    assert tree(again) == tree(out)
    # a renderer change misses the whole-render cache but still reuses the figures
    lines.clear()
    monkeypatch.setattr(build, "_render_sources", lambda: [])
    build.build(tmp_path / "third", data=data, pdf=False, log=lines.append,
                cache=build.Cache(out.parent / "c"))
    assert "cached" in next(line for line in lines if line.split()[1] == "plots")
    assert tree(tmp_path / "third") == tree(out)


@needs_node
def test_progress_has_one_timed_line_per_stage(first_build):
    _, lines = first_build
    stages = [line.split()[1] for line in lines]
    assert stages == ["data", "measure", "plots", "latex", "html", "pdf", "total"]
    assert all(line.split()[3] == "s" and float(line.split()[2]) >= 0 for line in lines)
    # how heavy the formulas read, for each edition
    measured = next(line for line in lines if line.split()[1] == "measure")
    assert "en: " in measured and "zh: " in measured and "max nesting" in measured


@needs_node
def test_failed_build_leaves_previous_output_intact(first_build, data):
    out, _ = first_build
    before = tree(out)
    bad = copy.deepcopy(data)
    bad["errata"]["records"][2]["correction_latex"] = r"\prod_{l=1}^{L} \left(I + F"
    with pytest.raises(FormulaError, match="erratum 'note3-residual' correction"):
        build.build(out, data=bad, pdf=False, log=lambda line: None, cache=no_cache(out.parent))
    assert tree(out) == before
    leftovers = [p.name for p in out.parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []


@needs_node
def test_cli_malformed_formula_exits_1_naming_it(data, tmp_path, capsys):
    bad = copy.deepcopy(data)
    bad["claims"][0]["statement"] = r"\frac{\partial s_i}{\partial z_j"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    code = main(["build", "--data", str(path), "--out", str(tmp_path / "out"), "--no-pdf",
                 "--no-cache"])
    err = capsys.readouterr().err
    assert code == 1
    assert "claim 'softmax_jacobian' statement" in err
    assert r"\frac{\partial s_i}{\partial z_j" in err
    assert not (tmp_path / "out").exists()


@needs_node
def test_failed_claim_is_prominent_in_html_and_tex(first_build):
    out, _ = first_build
    page = (out / "html" / "index.html").read_text(encoding="utf-8")
    tex = (out / "latex" / "en" / "report.tex").read_text(encoding="utf-8")
    # Near the top (before the first claim section) and on the claim's own section.
    top = page[: page.index("<main>")]
    assert 'href="#claim-scaled_variance_wrong">' in top and "FAILED at step 2" in top
    assert 'class="claim claim-failed" id="claim-scaled_variance_wrong"' in page
    assert 'class="failed-banner"' in page
    assert '<li class="step step-failed"' in page
    head = tex[: tex.index(r"\tableofcontents")]
    assert "FAILED at step 2" in head
    assert r"\failbox{FAILED: a step does not follow" in tex
    assert "Scaling by 1/d" in tex[tex.index(r"\label{claim-scaled_variance_wrong}") - 400:]


def test_missing_node_and_tex_still_write_tex_and_say_how(data, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    lines: list[str] = []
    out = tmp_path / "build"
    build.build(out, data=data, log=lines.append, cache=no_cache(tmp_path))
    for lang in ("en", "zh"):
        assert (out / "latex" / lang / "report.tex").is_file()
        assert (out / "latex" / lang / "figures" / f"{model.figure_stem('variance_vs_dk', lang)}"
                ".pdf").is_file()
    assert not (out / "html").exists() and not (out / "pdf").exists()
    html_line = next(line for line in lines if line.split()[1] == "html")
    pdf_line = next(line for line in lines if line.split()[1] == "pdf")
    assert "skipped" in html_line and "apt-get install nodejs npm" in html_line
    assert "skipped" in pdf_line and "texlive-xetex" in pdf_line


def test_source_hash_follows_source_bytes_only(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    key = build.source_hash("derive", [pkg])
    (pkg / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"junk")
    assert build.source_hash("derive", [pkg]) == key
    assert build.source_hash("crosscheck", [pkg]) != key
    (pkg / "a.py").write_text("x = 2\n")
    assert build.source_hash("derive", [pkg]) != key


def test_stages_are_cached_by_source_hash(data, tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    (src / "mod.py").write_text("v = 1\n")
    calls: list[str] = []
    given: list[dict] = []

    def producer(name, value):
        def run(**inputs):
            calls.append(name)
            given.append(inputs)
            return value
        return run

    runs = [{"name": "e", "version": "note", "passed": True}]
    stages_ = {
        "derive": stages.Stage(producer("derive", data["claims"]), lambda: [src]),
        "crosscheck": stages.Stage(producer("crosscheck", {"crosschecks": data["crosschecks"],
                                                           "plot_data": data["plot_data"]}),
                                   lambda: [src]),
        "training": stages.Stage(producer("training", data["training"]), lambda: [src]),
        "evidence": stages.Stage(producer("evidence", runs), lambda: [tmp_path / "nothing"]),
        "errata": stages.Stage(producer("errata", data["errata"]),
                               lambda: [tmp_path / "nothing"], needs=("derive", "evidence")),
    }
    monkeypatch.setattr(stages, "STAGES", stages_)
    cache = build.Cache(tmp_path / "cache")
    lines: list[str] = []
    # one worker: the producers here are closures that record calls in this process
    cold = build.collect_data(cache, build.Progress(lines.append), workers=1)
    assert calls == ["derive", "crosscheck", "training", "evidence", "errata"]
    assert given[-1] == {"derive": data["claims"], "evidence": runs}  # errata gets both
    assert cold == data
    warm = build.collect_data(cache, build.Progress(lines.append), workers=1)
    assert warm == cold and len(calls) == 5
    assert all("cached" in line for line in lines[5:])
    # a changed source misses its stages; a stage that needs them is keyed by their values, and
    # these are the same here, so errata comes from the cache
    (src / "mod.py").write_text("v = 2\n")
    build.collect_data(cache, build.Progress(lines.append), workers=1)
    assert calls[5:] == ["derive", "crosscheck", "training"]
    assert len(list((tmp_path / "cache").glob("derive-*.json"))) == 1
    disabled = build.Cache(tmp_path / "cache", enabled=False)
    build.collect_data(disabled, build.Progress(lines.append), workers=1)
    assert len(calls) == 13
    # the same stages in two worker processes give the same data, each timed in the log
    lines.clear()
    parallel = build.collect_data(disabled, build.Progress(lines.append), workers=2)
    assert parallel == cold
    assert sorted(line.split()[1] for line in lines) == sorted(stages_)
    assert all("computed in parallel" in line for line in lines)


def test_errata_never_shows_statuses_of_an_earlier_derive(data, tmp_path, monkeypatch):
    # derive's result changes (a claim's status) while its sources do not, as when its cache
    # entry alone was recomputed: errata, which takes derive's statuses, is computed again
    statuses: list[str] = ["proved"]
    seen: list[str] = []

    def derive():
        return [{**data["claims"][0], "status": statuses[0]}]

    def errata(derive, evidence):
        seen.append(derive[0]["status"])
        return data["errata"]

    stages_ = {name: stages.Stage(lambda value=value: value, lambda: [])
               for name, value in (("crosscheck", {"crosschecks": [], "plot_data": {}}),
                                   ("training", data["training"]), ("evidence", []))}
    stages_["derive"] = stages.Stage(derive, lambda: [])
    stages_["errata"] = stages.Stage(errata, lambda: [], needs=("derive", "evidence"))
    stages_["notes"] = stages.Stage(dict, lambda: [])
    monkeypatch.setattr(stages, "STAGES", {k: stages_[k] for k in stages.STAGES})
    cache = build.Cache(tmp_path / "cache")
    build.collect_data(cache, build.Progress(lambda s: None), workers=1)
    build.collect_data(cache, build.Progress(lambda s: None), workers=1)
    for old in (tmp_path / "cache").glob("derive-*.json"):
        old.unlink()
    statuses[0] = "numeric"
    again = build.collect_data(cache, build.Progress(lambda s: None), workers=1)
    assert seen == ["proved", "numeric"]
    assert again["claims"][0]["status"] == "numeric"


def test_a_stage_keyed_by_values_is_taken_from_the_cache_when_they_are_unchanged(
        data, tmp_path, monkeypatch):
    # errata's key holds the values of derive and evidence: a lost evidence entry is computed
    # again, and errata, whose inputs are then the same, comes from the cache
    calls: list[str] = []

    def producer(name, value):
        def run(**inputs):
            calls.append(name)
            return value
        return run

    stages_ = {name: stages.Stage(producer(name, value), lambda: [])
               for name, value in (("derive", data["claims"]),
                                   ("crosscheck", {"crosschecks": data["crosschecks"],
                                                   "plot_data": data["plot_data"]}),
                                   ("training", data["training"]), ("evidence", []))}
    stages_["errata"] = stages.Stage(producer("errata", data["errata"]), lambda: [],
                                     needs=("derive", "evidence"))
    monkeypatch.setattr(stages, "STAGES", stages_)
    cache = build.Cache(tmp_path / "cache")
    build.collect_data(cache, build.Progress(lambda s: None), workers=1)
    for old in (tmp_path / "cache").glob("evidence-*.json"):
        old.unlink()
    calls.clear()
    assert build.collect_data(cache, build.Progress(lambda s: None), workers=1) == data
    assert calls == ["evidence"]


def _record(path: str, crosscheck: dict, training: dict) -> str:
    """A job beside the stages (module level: it is pickled into a worker process)."""
    if training.get("fail"):
        raise RuntimeError("the job beside failed")
    Path(path).write_text(json.dumps([sorted(crosscheck), sorted(training)]), encoding="utf-8")
    return "recorded"


def _stub_stages(data: dict, training: dict) -> dict:
    def value(v):
        return lambda **_: v
    return {"derive": stages.Stage(value(data["claims"]), lambda: []),
            "crosscheck": stages.Stage(value({"crosschecks": data["crosschecks"],
                                              "plot_data": data["plot_data"]}), lambda: []),
            "training": stages.Stage(value(training), lambda: []),
            "evidence": stages.Stage(value([]), lambda: []),
            "errata": stages.Stage(value(data["errata"]), lambda: [],
                                   needs=("derive", "evidence"))}


def test_a_job_beside_the_stages_gets_their_results_once_they_are_computed(
        data, tmp_path, monkeypatch):
    out = tmp_path / "beside.json"
    job = stages.Beside("plots", functools.partial(_record, str(out)),
                        ("crosscheck", "training"))
    monkeypatch.setattr(stages, "STAGES", _stub_stages(data, data["training"]))
    cache = build.Cache(tmp_path / "cache")
    lines: list[str] = []
    build.collect_data(cache, build.Progress(lines.append), workers=2, beside=(job,))
    assert json.loads(out.read_text()) == [["crosschecks", "plot_data"], sorted(data["training"])]
    assert any(line.split()[1] == "plots" and "recorded (beside the data stages)" in line
               for line in lines)
    out.unlink()  # every stage cached: nothing to run beside
    build.collect_data(cache, build.Progress(lines.append), workers=2, beside=(job,))
    assert not out.exists()
    # a failing job fails the build, named
    monkeypatch.setattr(stages, "STAGES", _stub_stages(data, {**data["training"], "fail": 1}))
    lines.clear()
    with pytest.raises(RuntimeError, match="the job beside failed"):
        build.collect_data(build.Cache(tmp_path / "c2"), build.Progress(lines.append),
                           workers=2, beside=(job,))
    assert any("plots" in line and "FAILED" in line for line in lines)


def test_a_job_runs_when_its_stages_are_the_last_to_finish(data, tmp_path, monkeypatch):
    out = tmp_path / "beside.json"
    job = stages.Beside("plots", functools.partial(_record, str(out)),
                        ("crosscheck", "training"))
    monkeypatch.setattr(stages, "STAGES", _stub_stages(data, data["training"]))
    cache = build.Cache(tmp_path / "cache")
    build.collect_data(cache, build.Progress(lambda s: None), workers=1)
    for name in ("crosscheck", "training"):  # the only misses: nothing runs after them
        for old in (tmp_path / "cache").glob(f"{name}-*.json"):
            old.unlink()
    build.collect_data(cache, build.Progress(lambda s: None), workers=2, beside=(job,))
    assert out.is_file()


def test_figures_drawn_beside_the_stages_are_the_ones_rendered(data, tmp_path):
    cache = build.Cache(tmp_path / "cache")
    drawn = build.draw_plots(cache, {"plot_data": data["plot_data"]}, data["training"])
    assert drawn == "5 figures"  # the four of the full report and Adam's moments
    assert build.draw_plots(cache, {"plot_data": data["plot_data"]}, data["training"]) \
        == "figures cached"
    lines: list[str] = []
    build.build(tmp_path / "out", data=data, cache=cache, log=lines.append, pdf=False)
    assert [line for line in lines if line.split()[1] == "plots"][0].endswith("cached")


def test_crosscheck_stage_shape_is_checked(data, tmp_path, monkeypatch):
    monkeypatch.setattr(stages, "STAGES", {
        name: stages.Stage(lambda **_: [1], lambda: [])
        for name in ("derive", "crosscheck", "errata", "training")})
    with pytest.raises(build.model.ReportDataError, match="'crosschecks' and 'plot_data'"):
        build.collect_data(build.Cache(tmp_path, enabled=False), build.Progress(lambda s: None))


def test_a_stage_whose_module_is_missing_is_named(monkeypatch):
    import numeric

    monkeypatch.delattr(numeric, "train", raising=False)
    monkeypatch.setitem(sys.modules, "numeric.train", None)  # as if it could not be imported
    with pytest.raises(collect.ProducerMissing,
                       match=r"stage 'training' needs the module numeric\.train, which cannot "
                             r"be imported"):
        collect.training()
    with pytest.raises(collect.ProducerMissing, match="stage 'derive' needs the module no_such"):
        with collect._needs("derive"):
            import no_such_pkg_xyz  # noqa: F401


def test_an_error_inside_a_producer_is_not_called_a_missing_module(monkeypatch):
    from numeric import train

    def broken():
        raise ImportError("raised while training, not by an import")
    monkeypatch.setattr(train, "run", broken)
    with pytest.raises(ImportError, match="while training"):
        collect.training()


def test_every_stage_preloads_the_modules_its_producer_imports():
    """The preload calls the functions the producers import through, one per stage."""
    assert set(collect.MODULES) == set(stages.STAGES)
    for name, load in collect.MODULES.items():
        loaded = load()
        modules = loaded if isinstance(loaded, tuple) else (loaded,)
        assert all(isinstance(m, types.ModuleType) for m in modules), name


def test_cli_rejects_bad_json(tmp_path, capsys):
    path = tmp_path / "data.json"
    path.write_text("{not json", encoding="utf-8")
    assert main(["build", "--data", str(path), "--out", str(tmp_path / "o"), "--no-cache"]) == 2
    assert "expected JSON report data" in capsys.readouterr().err


def test_training_curve_accepts_both_shapes():
    own = {"loss_curve": [2.0, 1.5, 1.0], "test_accuracy": 0.97, "steps": 3}
    assert collect.training_curve(own) == {"steps": [1, 2, 3], "loss": [2.0, 1.5, 1.0],
                                           "accuracy": 0.97}
    report = {"steps": [0, 10], "loss": [2.0, 1.0], "accuracy": 0.5}
    assert collect.training_curve(report) == report
    with pytest.raises(build.model.ReportDataError, match="expected"):
        collect.training_curve({"steps": 3})


@pytest.mark.parametrize(
    ("section", "key", "value", "expected"),
    [
        ("depth_gradnorm", "with_residual", [1.0, 0.9], "expected equal, non-zero lengths"),
        ("saturation", "grad_norm_scaled", ["0.3"] * 4, "expected list of numbers"),
    ],
)
def test_bad_plot_series_is_named(data, section, key, value, expected):
    from reports.render import plots

    bad = copy.deepcopy(data)
    bad["plot_data"][section][key] = value
    with pytest.raises(build.model.ReportDataError, match=expected) as err:
        plots.render(bad, None, None)
    assert f"plot_data.{section}" in str(err.value)


def _with_every_status(data: dict) -> dict:
    """The fixture's claims and one more that timed out: every claim status occurs."""
    out = copy.deepcopy(data)
    claim = copy.deepcopy(out["claims"][0])
    claim.update(id="softmax_jacobian_timed_out", status="timed out")
    claim["steps"][-1].update(status="timed out", symbolic="timeout",
                              timed_out={"route": "symbolic", "by": "operations",
                                         "limit": 1000000, "points": 0})
    out["claims"].append(claim)
    return out


_TEX_ID = re.compile(r"\\texttt\{((?:[^{}]|\{\})*)\} \\textperiodcentered\{\}[^\n]*"
                     r"\\textperiodcentered\{\} (\\[a-z]+)\}")


@needs_node
def test_each_claim_shows_one_status_in_every_edition_and_format(data, tmp_path):
    data = _with_every_status(data)
    out = tmp_path / "build"
    build.build(out, data=data, pdf=False, log=lambda s: None, cache=no_cache(tmp_path))
    want = {c["id"]: c["status"] for c in data["claims"]}
    assert set(want.values()) == set(model.CLAIM_STATUS)
    counts = Counter(want.values())
    for lang, page in (("en", "index.html"), ("zh", "index.zh.html")):
        html = (out / "html" / page).read_text(encoding="utf-8")
        tex = (out / "latex" / lang / "report.tex").read_text(encoding="utf-8")
        shown = {cid: css for css, cid in
                 re.findall(r'<section class="claim claim-([a-z-]+)" id="claim-([\w.-]+)">', html)}
        assert shown == {cid: st.replace(" ", "-") for cid, st in want.items()}, lang
        macros = {cid.replace(r"\allowbreak{}", "").replace(r"\_", "_"): macro
                  for cid, macro in _TEX_ID.findall(tex)}
        assert macros == {cid: latex.badge(st) for cid, st in want.items()}, lang
        words = i18n.ui(lang)
        for st, n in counts.items():  # the headline counts, in both formats
            line = words["count"][st].format(n=n)
            assert line in html and line in tex, (lang, line)
        assert words["claim"]["timed_out_symbolic_operations"].format(
            limit="1,000,000", points=0) in html
