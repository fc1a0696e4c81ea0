"""The note as Markdown: every formula found, at the characters it occupies in the file."""

from __future__ import annotations

import re

import pytest

from derivations.notes.markdown import parse

NOTE = r"""---
title: x
tags: [a]
---
# Title

Text $a+b$ and $$ c = d $$ and \(e\) and \[f = g\] money $5 and $10.

> [!note] callout
> $$
> x = y
> $$
> inline $p
> = q$ end

\begin{align}
a &= b \\
  &= c
\end{align}

\[
h = i
\]

## Sub [[wiki link]]

- item $u = v$
  more $w$

```
$not math$
```

# Other

中文 $\sqrt{d_k}$ 和 $ T $。
"""

EXPECTED = ["a+b", "c = d", "e", "f = g", "x = y", "p\n= q",
            "\\begin{align}\na &= b \\\\\n  &= c\n\\end{align}", "h = i", "u = v", "w",
            "\\sqrt{d_k}", "T"]


def _as_written(text: str, f) -> str:
    """The formula's span in the file with container prefixes of later lines removed."""
    return re.sub(r"\n[ \t>]*", "\n", text[f.start:f.end])


def test_every_formula_found_in_order_at_its_offsets():
    parsed = parse(NOTE)
    assert [f.latex for f in parsed.formulas] == EXPECTED
    for f in parsed.formulas:
        assert _as_written(NOTE, f) == f.latex.replace("\n  ", "\n")
        assert NOTE.count("\n", 0, f.start) + 1 == f.line


def test_display_and_sections():
    parsed = parse(NOTE)
    display = {f.latex: f.display for f in parsed.formulas}
    assert display["a+b"] is False and display["c = d"] is True and display["f = g"] is True
    assert [h.title for h in parsed.headings] == ["Title", "Sub [[wiki link]]", "Other"]
    by = {f.latex: f.section for f in parsed.formulas}
    assert by["a+b"] == (0,) and by["u = v"] == (0, 1) and by["T"] == (2,)


def test_code_money_and_front_matter_are_not_math():
    latex = [f.latex for f in parse(NOTE).formulas]
    assert "not math" not in latex and not any("5 and" in t for t in latex)
    assert not any("title" in t for t in latex)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_offsets_index_the_text_python_reads(tmp_path, newline):
    path = tmp_path / "n.md"
    path.write_bytes(("# T" + newline + newline + "so $x = 1$ and" + newline + "$$y$$"
                      + newline).encode())
    text = open(path, encoding="utf-8").read()  # noqa: SIM115 - as the reader reads it
    got = parse(text).formulas
    assert [text[f.start:f.end] for f in got] == ["x = 1", "y"]


def test_offset_checker_rejects_a_shifted_span():
    # the negative of the offset property: a span one character off is not the formula
    f = parse(NOTE).formulas[0]
    assert NOTE[f.start + 1:f.end + 1] != f.latex


def test_the_sentence_around_a_formula():
    text = "First sentence. 对任意常数 $c$，有 $f(z + c) = f(z)$。下一句。"
    got = parse(text).formulas
    assert got[1].sentence.startswith("对任意常数") and "下一句" not in got[1].sentence
