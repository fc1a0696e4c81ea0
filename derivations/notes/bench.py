"""``python -m derivations.notes.bench``: how long a note of 100 formulas takes to check, cold
(an empty cache, a fresh process) and again with nothing changed, and after one edit.

Each run is a fresh process (``python -m derivations notes``), as a user runs it; the figures
are printed side by side.  The note is generated: chains, definitions used later, worked
numbers and ≈ roundings, each formula different, so that no two share a cache entry.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

FORMULAS = 100


def note(count: int = FORMULAS) -> str:
    """A note of ``count`` formulas in ten sections."""
    lines = ["# A generated note", "", "Let $x \\in \\mathbb{R}$.", ""]
    made = 1
    k = 0
    while made < count:
        k += 1
        a = k + 1
        if k % 10 == 1:
            lines += [f"## Section {k // 10 + 1}", ""]
        group = [
            f"$$(x + {a})^2 = x^2 + {2 * a}x + {a * a}$$",
            f"Let $u_{{{k}}} = x^2 + {a}$. Then $u_{{{k}}} - {a} = x^2$.",
            f"$$\\frac{{1}}{{{a}}} + \\frac{{1}}{{{a + 1}}} = "
            f"\\frac{{{2 * a + 1}}}{{{a * (a + 1)}}}$$",
            f"Numerically $\\sqrt{{{a * a + 1}}} \\approx {((a * a + 1) ** 0.5):.2f}$.",
        ]
        for g in group:
            if made >= count:
                break
            lines += [g, ""]
            made += g.count("$$") // 2 + (g.count("$") - 2 * (g.count("$$"))) // 2
    return "\n".join(lines) + "\n"


def run(args: list[str], cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "derivations", "notes", *args], cwd=cwd,
                          capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"notes exited {proc.returncode}: {proc.stderr.strip()}")
    return seconds, proc.stdout.splitlines()[0] if proc.stdout else ""


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "bench.md"
        text = note()
        path.write_text(text, encoding="utf-8")
        cold, said = run([path.name], folder)
        warm, _ = run([path.name], folder)
        path.write_text(text.replace("u_{3} = x^2 + 4", "u_{3} = x^2 + 5"), encoding="utf-8")
        edited, _ = run([path.name], folder)
    print(said)
    print(f"{'cold (empty cache)':28s}{cold:8.2f} s")
    print(f"{'again, nothing changed':28s}{warm:8.2f} s")
    print(f"{'after editing a definition':28s}{edited:8.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
