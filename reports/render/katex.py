"""Build-time KaTeX: typeset every formula of a report in one Node process.

The page then carries static markup plus KaTeX's CSS and woff2 fonts, so it displays
with no JavaScript and no network. KaTeX is pinned by ``katex/package-lock.json`` and
installed with ``npm ci`` on first use.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

KATEX_DIR = Path(__file__).resolve().parent / "katex"
RENDER_JS = KATEX_DIR / "render.js"
DIST = KATEX_DIR / "node_modules" / "katex" / "dist"

NODE_HINT = (
    "Node.js 20+ and npm are needed for the HTML report "
    "(Debian: apt-get install nodejs npm), then rerun `make reports`"
)

# Chromium reads woff2; the woff/ttf fallbacks in KaTeX's CSS would point at files we do not ship.
_FALLBACK_SRC = re.compile(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)')


class FormulaError(ValueError):
    """KaTeX rejected a formula; the message names which one and shows its TeX."""


class NodeMissing(RuntimeError):
    """Node.js or npm is not on PATH."""


# TeX primitives and commands that do I/O, run code or redefine things; math never needs them.
UNSAFE_TEX = re.compile(
    r"\\(input|include|openin|openout|read|readline|write|immediate|catcode|def|edef|gdef|"
    r"xdef|let|futurelet|csname|newcommand|renewcommand|providecommand|usepackage|"
    r"RequirePackage|special|directlua|write18|ShellEscape|newwrite|newread|jobname|"
    r"endinput|errmessage|message|typeout|makeatletter)(?![A-Za-z])")


class UnsafeFormula(ValueError):
    """A formula contains a command that reads or writes files or redefines TeX."""


@dataclass(frozen=True)
class Tex:
    """A formula to typeset. ``label`` says where it comes from, for error messages.

    Formulas reach the LaTeX source untouched, so a formula that could read or write files or
    redefine TeX (from a ``--data`` file, say) is refused here rather than trusted.
    """

    tex: str
    display: bool = False
    label: str = ""

    def __post_init__(self) -> None:
        found = UNSAFE_TEX.search(self.tex)
        if found:
            raise UnsafeFormula(f"{self.label or 'formula'}: expected math only, got the "
                                f"command {found.group(0)} in {self.tex[:60]!r}")


@dataclass(frozen=True)
class Code:
    """A code identifier inside prose (a tensor's name, a file's field): set in code font, never
    translated, and not read as words by the Chinese style checks."""

    text: str


@dataclass(frozen=True)
class Prose:
    """Text with inline math: ``parts`` alternate plain text (str), :class:`Tex` and
    :class:`Code`.

    ``missing`` marks English shown for want of a translation, so renderers flag it.
    """

    parts: tuple[str | Tex | Code, ...]
    missing: bool = False

    @property
    def plain(self) -> str:
        """The text with its math as TeX source (for PDF bookmarks and alt texts)."""
        return "".join(p if isinstance(p, str) else p.text if isinstance(p, Code) else p.tex
                       for p in self.parts)


def prose(text: str, label: str = "", missing: bool = False) -> Prose:
    """Split ``text`` at ``$...$`` into text and inline formulas (``\\$`` is a literal $), and
    outside formulas at ```...``` into code."""
    parts: list[str | Tex | Code] = []
    buf: list[str] = []
    mode, i = "text", 0  # or "math", "code"
    while i < len(text):
        ch = text[i]
        if ch == "\\" and text[i + 1 : i + 2] == "$" and mode != "code":
            buf.append("$")
            i += 2
            continue
        delim = {"$": "math", "`": "code"}.get(ch)
        if delim and mode in ("text", delim):
            chunk = "".join(buf)
            if mode == "math":
                parts.append(Tex(chunk, False, label))
            elif mode == "code":
                parts.append(Code(chunk))
            elif chunk:
                parts.append(chunk)
            buf, mode = [], "text" if mode == delim else delim
        else:
            buf.append(ch)
        i += 1
    if mode != "text":
        mark = "$" if mode == "math" else "`"
        raise FormulaError(f"{label or 'text'}: unclosed {mark} in {text[:60]!r}")
    if buf:
        parts.append("".join(buf))
    return Prose(tuple(parts), missing)


def node_available() -> bool:
    return shutil.which("node") is not None


def ensure_installed() -> None:
    """Install the pinned KaTeX with ``npm ci`` when ``node_modules`` is missing."""
    if not node_available():
        raise NodeMissing(NODE_HINT)
    if (DIST / "katex.js").is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise NodeMissing(NODE_HINT)
    proc = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=KATEX_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not (DIST / "katex.js").is_file():
        raise RuntimeError(f"`npm ci` in {KATEX_DIR} failed:\n{proc.stderr.strip()}")


def _run(formulas: list[Tex], *flags: str) -> tuple[int, str, str]:
    ensure_installed()
    payload = [
        {"tex": f.tex, "display": f.display, "label": f.label or f"formula #{i}"}
        for i, f in enumerate(formulas)
    ]
    proc = subprocess.run(
        [shutil.which("node") or "node", str(RENDER_JS), *flags],
        input=json.dumps(payload, ensure_ascii=False),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr.strip()


def _parsed(stdout: str, n: int) -> list:
    out = json.loads(stdout)
    if len(out) != n:
        raise RuntimeError(f"render.js returned {len(out)} formulas, expected {n}")
    return out


def render_all(formulas: list[Tex]) -> list[str]:
    """Typeset ``formulas`` in order; raise FormulaError naming the first malformed one."""
    if not formulas:
        return []
    code, stdout, stderr = _run(formulas)
    if code == 2:
        raise FormulaError(stderr)
    if code != 0:
        raise RuntimeError(f"render.js exited with {code}:\n{stderr}")
    return _parsed(stdout, len(formulas))


def problems(formulas: list[Tex]) -> list[str | None]:
    """KaTeX's message for each formula it cannot typeset, None for the others — every one
    checked, so that a build can name all of them before it starts; all None without Node.js
    (no HTML is typeset then)."""
    if not formulas or not node_available():
        return [None] * len(formulas)
    code, stdout, stderr = _run(formulas, "--check")
    if code != 0:
        raise RuntimeError(f"render.js --check exited with {code}:\n{stderr}")
    # KaTeX underlines the place with combining low lines; a message of one line keeps the text
    return [m if m is None else m.replace("\u0332", "") for m in _parsed(stdout, len(formulas))]


def render_source(formulas: list[Tex]) -> list[str | None]:
    """Typeset formulas as a user's note writes them: one KaTeX cannot typeset is None (the
    page shows its TeX), never an error that loses the page."""
    if not formulas:
        return []
    ensure_installed()
    payload = [{"tex": f.tex, "display": f.display, "source": True} for f in formulas]
    proc = subprocess.run([shutil.which("node") or "node", str(RENDER_JS)],
                          input=json.dumps(payload, ensure_ascii=False), capture_output=True,
                          text=True, encoding="utf-8", check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"render.js exited with {proc.returncode}:\n{proc.stderr.strip()}")
    html = json.loads(proc.stdout)
    if len(html) != len(formulas):
        raise RuntimeError(f"render.js returned {len(html)} formulas, expected {len(formulas)}")
    return html


def copy_assets(dest: Path) -> None:
    """Copy KaTeX's CSS (woff2 sources only) and woff2 fonts into ``dest``."""
    ensure_installed()
    fonts = dest / "fonts"
    fonts.mkdir(parents=True, exist_ok=True)
    css = (DIST / "katex.min.css").read_text(encoding="utf-8")
    (dest / "katex.min.css").write_text(_FALLBACK_SRC.sub("", css), encoding="utf-8")
    for font in sorted((DIST / "fonts").glob("*.woff2")):
        shutil.copyfile(font, fonts / font.name)
