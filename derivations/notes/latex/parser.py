"""The parser: tokens (:mod:`.tokens`) to a Lark parse tree, by the LALR grammar ``grammar.lark``.

The grammar is built once per process.  A parse error becomes :class:`ParseFailure` naming the
token where the formula left the grammar and what the grammar expected there.  This module may
not interpret the tree.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer

from derivations.notes.latex.tokens import Tok, tokenize
from derivations.notes.reasons import join, say

# what a user understands by the terminals a parse error lists
_WORDS = {"RBRACE": "}", "RPAR": ")", "RBRACK": "]", "RBAR": "|", "RNORM": "\\|", "RSET": "\\}",
          "LBRACE": "{", "REL": "a relation", "NUMBER": "a number", "LETTER": "a letter",
          "ENDMAT": "\\end{…matrix}", "PLUS": "+", "MINUS": "-", "MULOP": "an operator",
          # every other token as the user writes it: the grammar's names never reach a page
          "SYMBOL": "a symbol", "WORD": "a name", "TEXTWORD": "\\text{…}", "PROSE": "\\text{…}",
          "OPNAME": "\\log", "REALS": "\\mathbb{R}", "DOTS": "\\dots", "LPAR": "(",
          "LBRACK": "[", "LSET": "\\{", "LBAR": "|", "LNORM": "\\|", "FRAC": "\\frac",
          "SQRT": "\\sqrt", "BIGOP": "\\sum", "PARTIAL": "\\partial", "DIFF": "d",
          "NABLA": "\\nabla", "SUB": "_", "SUP": "^", "PRIME": "'", "TOP": "\\top",
          "BEGINMAT": "\\begin{…matrix}", "AMP": "&", "ROWSEP": "\\\\", "INT": "\\int",
          "COMMA": ",", "SEMI": ";", "SEP": "\\quad", "NEWLINE": "\\\\",
          "$END": "the end of the formula"}


# the names of _WORDS that are words, written in each language (reasons.toml)
_PHRASES = {"a relation", "a number", "a letter", "an operator", "a symbol", "a name",
            "the end of the formula"}


class ParseFailure(Exception):
    def __init__(self, token: str, offset: int, why: str):
        super().__init__(f"{token!r} at {offset}: {why}")
        self.token, self.offset, self.why = token, offset, why


class _TokensIn(Lexer):
    """Hands the grammar the tokens made by :func:`tokenize` (Lark's custom-lexer interface)."""

    __future_interface__ = 0

    def __init__(self, conf):
        pass

    def lex(self, toks: list[Tok]):
        for t in toks:
            yield Token(t.type, t.value, start_pos=t.offset,
                        end_pos=t.offset + (len(t.text) or len(t.value)))


@lru_cache(maxsize=1)
def grammar() -> Lark:
    text = resources.files("derivations.notes.latex").joinpath("grammar.lark").read_text()
    return Lark(text, parser="lalr", lexer=_TokensIn, propagate_positions=False,
                maybe_placeholders=False)


def parse(src: str) -> Tree:
    """The parse tree of one formula; :class:`ParseFailure` or ``TokenError`` if it has none."""
    toks = tokenize(src)
    if not toks:
        raise ParseFailure("", 0, say("parse.empty"))
    try:
        return grammar().parse(toks)
    except UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END":
            raise ParseFailure("", len(src), say("parse.too_early",
                                                 expected=_expected(exc.expected))) from None
        end = tok.end_pos if tok.end_pos is not None else tok.start_pos + len(str(tok))
        written = src[tok.start_pos:end] or str(tok)
        before = src[:tok.start_pos].rstrip()[-1:]
        if before in ("^", "_") and tok.type in ("MINUS", "PLUS"):  # x^-1: TeX takes one char
            m = re.match(r"[+-]\s*(?:\d+(?:\.\d+)?|\\[A-Za-z]+|[A-Za-z])?", src[tok.start_pos:])
            raise ParseFailure(written, tok.start_pos, say(
                "parse.script_braces", script=before, rest=m.group(0))) from None
        raise ParseFailure(written, tok.start_pos,
                           say("parse.unexpected", what=_what(tok, written),
                               expected=_expected(exc.expected))) from None
    except UnexpectedInput as exc:
        raise ParseFailure("", getattr(exc, "pos_in_stream", 0) or 0,
                           say("parse.input", error=str(exc))) from None


def _what(tok, written: str) -> str:
    if tok.type == "PROSE":
        return say("parse.prose", tok=tok)
    if tok.type == "PARTIAL":
        return say("parse.partial")
    return say("parse.token", tok=written)


def _expected(names):
    words = sorted({_WORDS.get(n, "?") for n in names} - {"?"})
    said = [say(f"parse.{w}") if w in _PHRASES else say("parse.name", name=w) for w in words[:8]]
    if len(words) > 8:  # the last one shown, and an ellipsis for the rest
        said[-1] = join(said[-1], say("parse.more"), sep=False)
    return said
