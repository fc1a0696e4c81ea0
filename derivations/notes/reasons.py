"""The reasons the notes reader gives, as keyed messages with parameters: one catalogue
(``reasons.toml``, each key in English and Chinese) and a :class:`Reason` that is its English
text (so the terminal, ``--json`` and every caller that reads a reason as text are unchanged)
and also carries its key and parameters, from which the annotated page writes it in Chinese.

A parameter is written as it came (a symbol, a formula's LaTeX, a number), or is a reason of its
own (a refusal inside a chain's term, the reason of a link inside a formula's), which each
language writes in turn.  Text that does not come from this catalogue (an error raised by SymPy
or by the engine) is a parameter the Chinese template places in code font, named as such.
"""

from __future__ import annotations

import re
import string
import tomllib
from functools import cache
from pathlib import Path

CATALOGUE = Path(__file__).resolve().parent / "reasons.toml"
LANGS = ("en", "zh")
JOIN = "join"  # the parts of one reason, one after another
_SEP = {"en": "; ", "zh": "；"}
_LIST = {"en": ", ", "zh": "、"}


@cache
def catalogue() -> dict[str, dict[str, str]]:
    """key -> {"en": template, "zh": template}."""
    data = tomllib.loads(CATALOGUE.read_text(encoding="utf-8"))
    out = {}
    for section, entries in data.items():
        for key, langs in entries.items():
            out[f"{section}.{key}"] = langs
    return out


class Reason(str):
    """A reason's English text, with the key and parameters it was made from."""

    key: str
    params: dict

    def __new__(cls, key: str, params: dict):
        self = super().__new__(cls, _render(key, params, "en"))
        self.key, self.params = key, params
        return self

    def data(self) -> dict:
        """The reason as JSON data: {"key", "params"}, nested reasons as data too."""
        return {"key": self.key, "params": {k: _data(v) for k, v in self.params.items()}}

    def __reduce__(self):  # pickled (a process pool) as what it is made from
        return (Reason, (self.key, self.params))


def say(key: str, **params) -> Reason:
    """The reason ``key`` of the catalogue with ``params`` (a KeyError names a missing key)."""
    if key not in catalogue():
        raise KeyError(f"reasons.toml has no message {key!r}: add it in both languages")
    return Reason(key, {k: _plain(v) for k, v in params.items()})


def kind_word(kind: str) -> str:
    """A kind of the symbol table as a word of the catalogue (as it is when it has none)."""
    return say(f"kind.{kind}") if f"kind.{kind}" in catalogue() else kind


def join(*parts, sep: bool = True) -> str:
    """Reasons one after another, separated as each language separates clauses (``sep=False``:
    simply one after the other, the first ending in its own separator)."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return ""
    return Reason(JOIN, {"parts": list(parts), "sep": sep})


def of_error(exc: BaseException) -> str:
    """An exception's message: the reason it was raised with, else its text."""
    first = exc.args[0] if exc.args else None
    return first if isinstance(first, Reason) else str(exc)


def from_data(data) -> str:
    """A reason from its :meth:`Reason.data` (plain text stays text)."""
    if isinstance(data, dict) and "key" in data:
        return Reason(data["key"], {k: _undata(v) for k, v in data["params"].items()})
    return data


def data_of(reason) -> dict | None:
    return reason.data() if isinstance(reason, Reason) else None


def text(reason, lang: str, evidence=None) -> str:
    """``reason`` written in ``lang`` (a plain string as it is).  ``evidence``: how the symbol
    table's evidence (a parameter named ``*_evidence``) reads in ``lang``, or None where it
    cannot (it then stays as the table words it, in code font)."""
    if not isinstance(reason, Reason):
        return str(reason)
    return _render(reason.key, reason.params, lang, evidence)


def code_spans(reason, lang: str, evidence=None) -> list[tuple[bool, str]]:
    """``reason`` in ``lang`` as pieces (in code font?, text): what the Chinese template marks
    with backticks — a formula's source, an error's own words — is set in code font."""
    written = text(reason, lang, evidence)
    if lang == "en":
        return [(False, written)]
    pieces = []
    for part in re.split(r"(\x00[^\x00]*\x00)", written):
        if part.startswith("\x00"):
            pieces.append((True, part.strip("\x00")))
        elif part:
            pieces.append((False, part))
    return pieces


def _plain(value):
    """A parameter as data: a reason or a list as it is, anything else (a SymPy object, a
    number) as the text it prints as."""
    if isinstance(value, Reason):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value)


def _data(value):
    if isinstance(value, Reason):
        return value.data()
    if isinstance(value, list | tuple):
        return [_data(v) for v in value]
    return value


def _undata(value):
    if isinstance(value, dict) and "key" in value:
        return from_data(value)
    if isinstance(value, list):
        return [_undata(v) for v in value]
    return value


def _value(value, lang: str, evidence=None) -> str:
    if isinstance(value, Reason):
        return _render(value.key, value.params, lang, evidence)
    if isinstance(value, list | tuple):
        return _LIST[lang].join(_value(v, lang, evidence) for v in value)
    return str(value)


def _render(key: str, params: dict, lang: str, evidence=None) -> str:
    if key == JOIN:
        parts = [_value(p, lang, evidence) for p in params["parts"]]
        return (_SEP[lang] if params.get("sep", True) else "").join(parts)
    template = catalogue()[key][lang]
    out = []
    # in Chinese, `…` marks code font: kept as \x00…\x00 for code_spans (plain text drops it)
    for literal, field, _, _ in string.Formatter().parse(template):
        out.append(literal.replace("`", "\x00") if lang == "zh" else literal)
        if field is None:
            continue
        said = evidence(params[field]) if evidence and field.endswith("_evidence") else None
        if said is not None:
            out.append(said)
        elif field.endswith("_evidence") and lang == "zh":
            out.append(f"\x00{params[field]}\x00")
        else:
            out.append(_value(params[field], lang, evidence))
    written = "".join(out)
    return written


def plain(reason, lang: str) -> str:
    """``reason`` in ``lang`` as one line of text, code font dropped."""
    return text(reason, lang).replace("\x00", "")
