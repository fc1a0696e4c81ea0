"""The notes reader: Markdown + LaTeX notes read, shown back and checked by the engine.

``derivations.notes.latex`` is the language (formulas to SymPy); the note level builds on it.
"""
