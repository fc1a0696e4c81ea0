"""A rendered page's text as lines, one per block element, for the tests that read a page as its
reader does (the Chinese style checks of the reports and of the notes pages)."""

from __future__ import annotations

import re
from html.parser import HTMLParser


class PageLines(HTMLParser):
    """Collects ``lines``: the text between block tags (``BLOCKS``), whitespace folded; a
    subclass says what ``hidden()`` leaves out and calls ``flush()`` at its block tags."""

    BLOCKS: frozenset[str] = frozenset()

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.buf: list[str] = []

    def hidden(self) -> bool:
        return False

    def handle_data(self, data):
        if not self.hidden():
            self.buf.append(data)

    def flush(self):
        line = re.sub(r"\s+", " ", "".join(self.buf)).strip()
        if line:
            self.lines.append(line)
        self.buf = []
