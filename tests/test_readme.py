"""The README's tutorial is the public API's contract: every snippet runs, in order, in a fresh
folder as a newcomer would run it, and prints what the README shows.

Blocks: ```python starting with ``# file: NAME`` is saved as NAME, and so is a ```toml block
starting so or a ```markdown block starting ``<!-- file: NAME -->`` (without that line; NAME may
name a folder); any other ```python block is
run with ``python -c`` and its stdout must equal the ```text block right after it (if any);
each ``$ command`` line of a ```console block is run by bash and its output (stderr merged, as on a
terminal) must equal the lines under it, timings aside.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
TIMEOUT = 300
# What a console command must exit with; a command the README shows but does not list here fails.
EXIT = {"python -m derivations verify my_claims.py": 0,
        "python -m derivations verify my_mistake.py": 1,
        "python -m pytest -q test_my_claims.py": 0,
        "python -m derivations report my_claims.py my_mistake.py relu_claim.py mean_claim.py "
        "norm_claim.py --no-pdf": 0,
        "python -m reports audit notes --registry registry.toml --claims my_claims.py "
        "my_mistake.py my_checks.py --no-pdf": 0,
        "python -m reports.audit.notes check notes --registry registry.toml": 0,
        "python -m derivations notes softmax.md --out notes-checked": 1}
FILE_MARK = re.compile(r"\A(?:# file: (?P<py>\S+)|<!-- file: (?P<md>\S+) -->)\n")
# Wall-clock figures differ from run to run; everything else must match to the character.
TIMINGS = [(re.compile(r"\(\d+ steps?, \d+\.\d+ s\)"), "(<steps>, <t> s)"),
           (re.compile(r"(?m)^(\S+ +\d+ (?:proved|numeric|failed)) +\d+\.\d+$"), r"\1 <t>"),
           (re.compile(r"\bin \d+\.\d+ ?s\b"), "in <t> s")]


def blocks() -> list[tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    return re.findall(r"^```(\w+)\n(.*?)^```$", text, re.S | re.M)


def _normal(text: str) -> str:
    for pattern, replacement in TIMINGS:
        text = pattern.sub(replacement, text)
    return text.rstrip("\n")


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONPATH", None)
    return env


def _console(block: str) -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ `` line of a console block."""
    out, command, lines = [], None, []
    for line in block.splitlines():
        if line.startswith("$ "):
            if command:
                out.append((command, "\n".join(lines)))
            command, lines = line[2:], []
        else:
            lines.append(line)
    if command:
        out.append((command, "\n".join(lines)))
    return out


def test_the_tutorial_runs_and_shows_its_real_output(tmp_path):
    # a newcomer's own folder, outside the project: paths, cache and output must not depend on
    # being run from the project
    assert not tmp_path.resolve().is_relative_to(README.parent.resolve())
    found = blocks()
    ran = {"file": 0, "python": 0, "console": 0}
    for n, (lang, body) in enumerate(found):
        mark = FILE_MARK.match(body) if lang in ("python", "toml", "markdown") else None
        if mark:
            name = mark["py"] or mark["md"]
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            # a Python file keeps its marker (a comment); a note starts with its own title
            text = body if lang == "python" else body[mark.end():]
            (tmp_path / name).write_text(text, encoding="utf-8")
            ran["file"] += 1
        elif lang == "python":
            proc = subprocess.run([sys.executable, "-c", body], cwd=tmp_path, env=_env(),
                                  capture_output=True, text=True, timeout=TIMEOUT, check=False)
            assert proc.returncode == 0, proc.stderr
            if n + 1 < len(found) and found[n + 1][0] == "text":
                assert proc.stdout.rstrip("\n") == found[n + 1][1].rstrip("\n")
            ran["python"] += 1
        elif lang == "console":
            for command, expected in _console(body):
                assert command in EXIT, f"README runs {command!r}; list its exit status in EXIT"
                proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=_env(),
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True, timeout=TIMEOUT, check=False)
                assert proc.returncode == EXIT[command], proc.stdout
                assert _normal(proc.stdout) == _normal(expected), proc.stdout
                ran["console"] += 1
    # a note of your own; five claim files, the wrong step, the pytest file, a note, its
    # registry and checks; six snippets; seven commands
    assert ran == {"file": 10, "python": 6, "console": 7}
    # the checked note: its annotated copy and the drafted errata
    assert (tmp_path / "notes-checked" / "softmax.zh.html").is_file()
    assert (tmp_path / "notes-checked" / "registry.toml").is_file()
    # the reports of steps 6 and 7 are where their last lines say, in the folder run from
    assert (tmp_path / "derivations-report" / "html" / "index.zh.html").is_file()
    assert (tmp_path / "notes-audit" / "html" / "index.zh.html").is_file()
    _the_audit_shows_what_the_registry_says(tmp_path / "notes-audit" / "html")


def _the_audit_shows_what_the_registry_says(html: Path) -> None:
    """Step 7's report, in both editions: the LaTeX quotes typeset, the note's own claim as the
    failing version beside the correction, the shipped claim cited and shown, the user's
    Chinese, and nothing said that the registry does not say."""
    pages = {lang: (html / name).read_text(encoding="utf-8")
             for lang, name in (("en", "index.html"), ("zh", "index.zh.html"))}
    for page in pages.values():
        quote = page.split('<blockquote class="note-quote" lang="zh">', 1)[1]
        quote = quote.split("</blockquote>")[0]
        shown = re.sub(r"<annotation.*?</annotation>", "", quote)  # KaTeX keeps its source
        assert 'class="katex"' in quote and "\\frac" not in shown, quote[:200]
        assert 'id="claim-softmax_shift_invariance"' in page  # the shipped claim, shown
        assert 'href="#claim-my_lse_squared"' in page  # the note's version, linked
        assert page.count('class="erratum verdict-error"') == 2
        assert not (html / "student.html").exists()  # no student edition of your notes
    en, zh = pages["en"], pages["zh"]
    assert "The note&#39;s version — does not hold" in en and "The correction — holds" in en
    assert "讲义的说法——不成立" in zh and "更正后的说法——成立" in zh
    # a correction given in words stands as the correction; the note's version was run
    for said in ("No formula given", "was not run separately"):
        assert said not in en.split('id="erratum-lse-squared"')[1].split("</article>")[0]
    assert "未给出公式" not in zh and "没有需要更正之处" not in zh
    # the user's Chinese, unmarked; the claims' English, marked once each
    assert "链式法则只除以一次归一化因子" in zh and "100 个随机行的和都是 1" in zh
    erratum = zh.split('id="erratum-lse-squared"')[1].split("</article>")[0]
    assert "未译" not in erratum


def test_the_comparison_fails_on_output_that_differs():
    shown = "lse_gradient: proved (3 steps, 0.18 s)\n1 claim in 0.2 s"
    assert _normal(shown) == _normal("lse_gradient: proved (3 steps, 9.99 s)\n1 claim in 12.5 s")
    assert _normal(shown) != _normal("lse_gradient: failed (3 steps, 0.18 s)\n1 claim in 0.2 s")
    assert _normal("= 0.141832210359479") != _normal("= 0.141832210359478")


@pytest.mark.parametrize("needle", ["with_step(", "lemma(", "Domain(dims=", "indices=", "ranges=",
                                    "random=", "`proved`", "`numeric`", "`failed`",
                                    "assert_proved", "make reports CLAIMS=", "evaluate=False",
                                    "is not declared in Domain", "the Python int", "Notation(",
                                    "definitions=", "checked", "circular", "shadows"])
def test_the_tutorial_documents(needle):
    assert needle in README.read_text(encoding="utf-8")
