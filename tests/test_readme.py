"""The README's example is the public API's contract: it must run and say what it claims."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "the README has exactly one Python example"
    return blocks[0]


def test_readme_example_runs_and_proves():
    out = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(_example(), "README.md", "exec"), namespace)  # noqa: S102 - our own README
    assert out.getvalue().splitlines() == ["proved", "['proved', 'proved', 'proved']"]


def test_readme_example_fails_when_the_last_step_is_wrong():
    import sympy as sp

    from derivations import Derivation, Step, verify

    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(_example(), "README.md", "exec"), namespace)  # noqa: S102 - our own README
    good = namespace["mean_of_sum"]
    n, mu = namespace["n"], namespace["mu"]
    wrong = Derivation(good.id, good.title, sp.Eq(good.lhs, n**2 * mu), good.assumptions,
                       (*good.steps[:-1], Step(n**2 * mu, "sum of a constant")), good.domain)
    result = verify(wrong)
    assert result.status == "failed" and result.failed_step == 3
    assert result.steps[2].counterexample["point"]["n"] != "1"
