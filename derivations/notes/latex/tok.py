"""A token of the tokenizer and its refusal, apart from :mod:`.tokens` so that the passes it
runs (:mod:`.integrals`) can build on them without importing it back."""

from __future__ import annotations

from dataclasses import dataclass


class TokenError(Exception):
    """A token outside the language: ``token`` at ``offset``, and why."""

    def __init__(self, token: str, offset: int, why: str):
        super().__init__(f"{token!r} at {offset}: {why}")
        self.token, self.offset, self.why = token, offset, why


@dataclass(frozen=True)
class Tok:
    type: str
    value: str
    offset: int
    text: str  # the source it came from
