"""Nothing read from a file or typed by a user is evaluated, and quoted text is escaped.

* Source scan (AST): no eval/exec/compile, no shell=True or os.system, no pickle or yaml loads;
  SymPy's sympify (which evaluates strings as code) and parse_expr only where every argument is a
  SymPy object built in code, each place listed below with the reason it was accepted.
* At run time, the paths that take user or file input never hand a string to sympify.
* Hostile text in every plain-text field of the report data comes out escaped in the HTML and the
  LaTeX, and the compiled PDF shows it literally instead of reading /etc/passwd.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

from reports.audit import notes
from reports.render import html, latex, plots
from reports.view import edition

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("derivations", "numeric", "reports")
FIXTURE = ROOT / "tests" / "fixtures" / "report_data.json"

# builtins called by name, and os.system / os.popen
FORBIDDEN_NAMES = {"eval", "exec", "compile", "__import__"}
FORBIDDEN_ATTRS = {"system", "popen"}
SYMPY_PARSERS = {"sympify", "parse_expr", "parse_latex", "S"}
# (file, enclosing function) -> why its sympify calls see only objects built in code.
# Every sympify in the sources passes strict=True, which refuses strings; a call without it must be
# listed here with the reason its arguments are only objects built in code.
REVIEWED_SYMPIFY: dict[tuple[str, str], str] = {
    ("derivations/notes/latex/bench_parsers.py", "_others"):
        "the parser benchmark measures SymPy's own parse_latex against the reader, on the "
        "benchmark's fixed formulas; a note's text never reaches it",
}


def sources():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "node_modules" not in path.parts:
                yield path


def calls(tree: ast.AST):
    """(call node, name of the called function, enclosing function name) for every call."""
    def walk(node, func):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) \
                else func
            if isinstance(child, ast.Call):
                f = child.func
                name = f.id if isinstance(f, ast.Name) else f.attr \
                    if isinstance(f, ast.Attribute) else ""
                yield child, name, inner
            yield from walk(child, inner)
    yield from walk(tree, "<module>")


def test_no_code_evaluation_in_the_sources():
    found = []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        for node, name, func in calls(ast.parse(path.read_text(encoding="utf-8"))):
            shell = any(k.arg == "shell" and not (isinstance(k.value, ast.Constant)
                                                  and k.value.value is False)
                        for k in node.keywords)
            by_name = isinstance(node.func, ast.Name) and name in FORBIDDEN_NAMES
            by_attr = isinstance(node.func, ast.Attribute) and name in FORBIDDEN_ATTRS
            if by_name or by_attr or shell or (name in ("load", "loads") and isinstance(
                    node.func, ast.Attribute) and getattr(node.func.value, "id", "") in (
                    "pickle", "yaml", "marshal")):
                found.append(f"{rel}:{node.lineno} {name}() in {func}")
    assert not found, found


def test_every_sympify_is_reviewed():
    found, unreviewed = set(), []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        for node, name, func in calls(ast.parse(path.read_text(encoding="utf-8"))):
            if name not in SYMPY_PARSERS:
                continue
            strict = any(k.arg == "strict" and getattr(k.value, "value", None) is True
                         for k in node.keywords)
            literal = [a for a in node.args if isinstance(a, ast.Constant)
                       and isinstance(a.value, str) or isinstance(a, ast.JoinedStr)]
            assert not literal, f"{rel}:{node.lineno}: {name}() of a string"
            if strict:  # strict=True refuses strings
                continue
            found.add((rel, func))
            if (rel, func) not in REVIEWED_SYMPIFY:
                unreviewed.append(f"{rel}:{node.lineno} {name}() in {func}")
            if not rel.startswith("derivations/") or rel.endswith(("__main__.py", "mutants.py")):
                unreviewed.append(f"{rel}:{node.lineno}: {name}() outside derivation code")
    assert not unreviewed, unreviewed
    # a reviewed place that no longer exists is removed from the list, not kept as a blank cheque
    assert set(REVIEWED_SYMPIFY) <= found, set(REVIEWED_SYMPIFY) - found


def test_the_scan_finds_what_it_forbids(tmp_path, monkeypatch):
    bad = "import sympy as sp\ndef f(s):\n    eval(s)\n    return sp.sympify(s)\n"
    names = [(name, func) for _, name, func in calls(ast.parse(bad))]
    assert ("eval", "f") in names and ("sympify", "f") in names
    path = tmp_path / "derivations" / "bad.py"
    path.parent.mkdir()
    path.write_text(bad, encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    with pytest.raises(AssertionError, match=r"eval\(\) in f"):
        test_no_code_evaluation_in_the_sources()
    with pytest.raises(AssertionError, match=r"sympify\(\) in f"):
        test_every_sympify_is_reviewed()


def test_user_and_file_input_never_reaches_sympify(monkeypatch, tmp_path):
    strings = []
    real = sympy.sympify

    def guarded(a, *args, **kwargs):
        if isinstance(a, str):
            strings.append(a)
        return real(a, *args, **kwargs)

    monkeypatch.setattr(sympy, "sympify", guarded)
    from derivations.__main__ import main

    assert main(["verify", "log_sum_exp"]) == 0
    assert main(["verify", "__import__('os').system('true')"]) == 2
    note_dir = tmp_path / "notes"
    note_dir.mkdir()
    (note_dir / "000_621967656cfd78b6.txt").write_text("1 + 1", encoding="utf-8")
    assert notes.check(note_dir)[0] in (1, 2)
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    latex.render(edition.build_view(data, figures()), tmp_path / "latex")
    assert strings == []


# --- escaping ---------------------------------------------------------------------------------

PAYLOAD = r"<script>alert(1)</script> 100% \input{/etc/passwd} } & $x$ #1 ~ ^ _"
TEX_ESCAPED = (r"100\% \textbackslash{}input\{/etc/passwd\} \} \& \$x\$ \#1 "
               r"\textasciitilde{} \textasciicircum{} \_")


def figures() -> list[dict]:
    return [{"name": n} for n, _ in plots.FIGURES]


FIELDS = ("quote", "correction_text", "detail", "title", "rule", "assumption")


def hostile_data() -> dict:
    """The fixture with PAYLOAD, tagged by field name, in every plain-text field."""
    data = copy.deepcopy(json.loads(FIXTURE.read_text(encoding="utf-8")))
    rec = data["errata"]["records"][0]
    assert rec["verdict"] == "error"  # shown in full, correction included

    def tagged(field):
        return f"[{field}] {PAYLOAD}"

    rec["quote"] = tagged("quote")
    rec["correction_text"] = tagged("correction_text")
    rec["evidence"]["detail"] = tagged("detail")
    claim = data["claims"][0]
    claim["title"] = tagged("title")
    claim["steps"][0]["rule"] = tagged("rule")
    claim["assumptions"] = [{**claim["assumptions"][0], "text": tagged("assumption")}] \
        if claim["assumptions"] else [{"name": "hostile", "text": tagged("assumption"),
                                       "latex": "x"}]
    return data


@pytest.fixture(scope="module")
def tex_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tex")
    data = hostile_data()
    drawn = plots.render(data, None, out / "figures")
    latex.render(edition.build_view(data, drawn), out)
    return out


def test_latex_escapes_quoted_text(tex_dir):
    # line-break hints between characters are layout, not content
    tex = (tex_dir / "report.tex").read_text(encoding="utf-8").replace(latex.ALLOW_BREAK, "")
    assert r"\input{/etc/passwd}" not in tex
    # every field the report shows is escaped; the errata's quote and correction are shown,
    # and their leading "[" is braced so that it cannot become an optional argument
    # everything outside $...$ is escaped in every field; the registry's prose fields
    # (correction_text) typeset their $...$ as math, which passes the formula guard
    assert tex.count("/etc/passwd") == tex.count(r"\textbackslash{}input\{/etc/passwd\}") >= 2
    assert f"{{[}}quote{{]}} <script>alert(1)</script> {TEX_ESCAPED}" in tex
    prose_payload = TEX_ESCAPED.replace(r"\$x\$", "$x$")
    assert f"{{[}}correction\\_text{{]}} <script>alert(1)</script> {prose_payload}" in tex


def test_latex_escaping_control_raw_text_would_reach_tex():
    # without the escape the payload is live TeX: the check above can fail
    assert r"\input{/etc/passwd}" in latex.LatexSafe(PAYLOAD)
    assert latex.tex_escape(PAYLOAD) == r"<script>alert(1)</script> " + TEX_ESCAPED


@pytest.mark.skipif(not latex.tex_available(), reason="XeLaTeX/latexmk not installed")
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext not installed")
def test_pdf_shows_the_payload_and_reads_no_file(tex_dir, tmp_path):
    pdf = tmp_path / "report.pdf"
    latex.compile_pdf(tex_dir / "report.tex", pdf)
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "root:" not in text  # /etc/passwd's first field
    assert re.search(r"\\input\{/etc/passwd\}", text), "payload not shown literally"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js typesets the HTML report")
def test_html_escapes_quoted_text(tmp_path):
    page = html.render(edition.build_view(hostile_data(), figures()), tmp_path).read_text(
        encoding="utf-8")
    assert "<script" not in page.lower()
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt; 100% \\input{/etc/passwd} } &amp; "
    assert page.count("/etc/passwd") == page.count(escaped) >= 2
    assert f"[quote] {escaped}$x$" in page
    # the registry's prose: $x$ is typeset as a formula, the rest escaped
    assert f"[correction_text] {escaped}<span class=\"katex\">" in page


@pytest.mark.parametrize("payload", [r"\input{/etc/passwd}", r"x \immediate\write18{ls}",
                                     r"\def\x{1} \x", r"\catcode`\@=11"])
def test_a_formula_that_does_io_or_redefines_tex_is_refused(payload):
    from reports.render.katex import Tex, UnsafeFormula

    with pytest.raises(UnsafeFormula, match=r"claim 'c' statement: expected math only"):
        Tex(payload, True, "claim 'c' statement")
    # ordinary math with look-alike names still passes
    assert Tex(r"\operatorname{Var}\left(\delta_{ij}\right) \leq \det A", True).tex


def test_report_build_refuses_a_data_file_with_a_tex_payload(tmp_path):
    data = json.loads((ROOT / "tests" / "fixtures" / "report_data.json").read_text("utf-8"))
    data["claims"][0]["statement"] = r"x = \input{/etc/hostname}"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "reports", "build", "--data", str(bad),
                           "--out", str(out), "--no-pdf", "--cache-dir", str(tmp_path / "c")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert "expected math only" in proc.stderr and "\\input" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_tex_runs_with_paranoid_file_access(monkeypatch, tmp_path):
    from reports.render import latex

    seen = {}

    def fake_run(cmd, **kwargs):
        seen.update(kwargs["env"])
        raise RuntimeError("stop before compiling")

    monkeypatch.setattr(latex, "tex_available", lambda: True)
    monkeypatch.setattr(latex.subprocess, "run", fake_run)
    (tmp_path / "r.tex").write_text("x", encoding="utf-8")
    with pytest.raises(RuntimeError, match="stop before compiling"):
        latex.compile_pdf(tmp_path / "r.tex", tmp_path / "r.pdf")
    assert (seen["openin_any"], seen["openout_any"], seen["shell_escape"]) == ("p", "p", "f")
