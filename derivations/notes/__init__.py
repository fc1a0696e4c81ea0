"""The notes reader: a lecture note in Markdown with LaTeX, checked formula by formula.

Its one public face is this module::

    from derivations.notes import check_notes
    result = check_notes(["notes/"])          # files or folders of .md, .markdown, .txt
    result.counts()                           # formulas per verdict
    result.to_dict()                          # what ``--json`` prints

Each formula gets a verdict in one vocabulary (:data:`VERDICTS`): the engine's statuses for what
was checked, or ``definition``, ``not checkable``, ``not understood`` with the reason.  From the
command line: ``python -m derivations notes PATH… [--json] [--out DIR]``.
"""

from __future__ import annotations

from derivations.notes.model import (
    MARKS,
    VERDICTS,
    FormulaResult,
    Link,
    NoteResult,
    NotesResult,
    SymbolRow,
)
from derivations.notes.run import NotesError, check_notes, check_text, note_files

__all__ = ["MARKS", "VERDICTS", "FormulaResult", "Link", "NoteResult", "NotesError",
           "NotesResult", "SymbolRow", "check_notes", "check_text", "note_files"]
