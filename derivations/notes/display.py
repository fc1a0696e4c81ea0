"""A checked note in Jupyter: ``_repr_html_`` of a note or of the notes — each formula with its
mark, verdict and reason, the LaTeX between ``\\(…\\)`` for the notebook's own MathJax.  No
Node.js needed (the annotated page of ``--out`` is typeset by KaTeX instead)."""

from __future__ import annotations

from html import escape

from derivations.notes.verdicts import MARKS, VERDICTS

_COLOURS = {"proved": "#1a7f37", "numeric": "#9a6700", "timed out": "#9a6700",
            "failed": "#c62828", "not understood": "#9a6700"}


def _counts(counts: dict) -> str:
    return ", ".join(f"{counts[v]} {MARKS[v]} {v}" for v in VERDICTS if counts[v]) or "none"


def _rows(note) -> str:
    out = []
    for f in note.formulas:
        colour = _COLOURS.get(f.verdict, "#57606a")
        reason = escape(f.reason)
        ce = f.failed_links[0].counterexample if f.failed_links else None
        if ce and ce.get("point"):
            reason += "<br><small>at " + escape(", ".join(
                f"{k} = {v}" for k, v in ce["point"].items())) + "</small>"
        out.append(f'<tr><td>{f.line}</td><td style="color:{colour};font-weight:bold">'
                   f'{f.mark}</td><td>\\({escape(f.latex)}\\)</td><td>{escape(f.verdict)}</td>'
                   f"<td>{reason}</td></tr>")
    return "".join(out)


def note_html(note) -> str:
    head = (f"<p><strong>{escape(note.title or note.path)}</strong>: {len(note.formulas)} "
            f"formulas: {escape(_counts(note.counts()))}</p>")
    return (head + '<table><thead><tr><th>line</th><th></th><th>formula</th><th>verdict</th>'
            f"<th>why</th></tr></thead><tbody>{_rows(note)}</tbody></table>")


def notes_html(result) -> str:
    head = (f"<p>{len(result.formulas)} formulas in {len(result.notes)} notes: "
            f"{escape(_counts(result.counts()))}</p>")
    return head + "".join(note_html(n) for n in result.notes)
