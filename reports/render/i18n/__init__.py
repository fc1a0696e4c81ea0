"""The report's words in two languages, as data: ``ui.toml`` (interface, reading guide,
captions, topics, note titles), ``claims.toml`` (claim titles, step reasons, assumption
texts, keyed by claim id, and what each definition names, keyed by its English text) and
``crosschecks.toml`` (what each numeric cross-check compares,
keyed by its English text). Math is never translated; prose may carry inline ``$...$`` math.

A lookup that finds no translation returns the English text marked ``missing`` so the page
shows it visibly as untranslated; :func:`missing_claim_fields` lists every such gap for tests.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGS = ("en", "zh")


class TranslationError(ValueError):
    """A translation file does not have the documented shape."""


@cache
def ui_data() -> dict:
    return tomllib.loads((HERE / "ui.toml").read_text(encoding="utf-8"))


@cache
def claims_data() -> dict:
    return tomllib.loads((HERE / "claims.toml").read_text(encoding="utf-8"))


@cache
def crosschecks_data() -> dict:
    return tomllib.loads((HERE / "crosschecks.toml").read_text(encoding="utf-8"))


# placeholders of crosschecks.toml [patterns]: a model parameter path, a whole number
# (written <name>: braces belong to the LaTeX of the values)
PLACEHOLDERS = {"p": r"[A-Za-z0-9_.]+?", "n": r"[0-9]+"}
PLACEHOLDER = re.compile(r"<([a-z]+)>")


def _pattern(key: str) -> re.Pattern:
    """The regex of a [patterns] key: literal text, each <name> a group (repeats must agree)."""
    out, seen, pos = [], set(), 0
    for m in re.finditer(PLACEHOLDER, key):
        name = m.group(1)
        if name not in PLACEHOLDERS:
            raise TranslationError(f"crosschecks.toml pattern {key!r}: expected placeholders "
                                   f"{sorted(PLACEHOLDERS)}, got <{name}>")
        out.append(re.escape(key[pos:m.start()]))
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>{PLACEHOLDERS[name]})")
        seen.add(name)
        pos = m.end()
    out.append(re.escape(key[pos:]))
    return re.compile("".join(out))


@cache
def _patterns() -> tuple[tuple[re.Pattern, dict], ...]:
    return tuple((_pattern(k), v) for k, v in crosschecks_data().get("patterns", {}).items())


def _fill(entry: dict, values: dict[str, str]) -> dict:
    return {k: PLACEHOLDER.sub(lambda m: values[m.group(1)], v) for k, v in entry.items()}


def crosscheck(english: str, lang: str) -> Text:
    """What a cross-check compares, in ``lang``: its exact English text in [texts], else the
    first [patterns] entry it matches with the placeholders filled in; else the English
    text marked missing (shown as written, never parsed for math)."""
    record = crosschecks_data().get("texts", {}).get(english)
    if record is None:
        for pattern, entry in _patterns():
            found = pattern.fullmatch(english)
            if found:
                record = _fill(entry, found.groupdict())
                break
    return _pick(record, english, lang)


def missing_crosscheck_texts(texts: list[str]) -> list[str]:
    """Every cross-check text without both an English display form and a Chinese text."""
    gaps = []
    for english in dict.fromkeys(texts):
        if crosscheck(english, "en").engine or crosscheck(english, "zh").missing:
            gaps.append(f"cross-check text {english!r} has no en/zh entry in crosschecks.toml")
    return gaps


def ui(lang: str) -> dict:
    """Every interface string of ``lang``: ``[section] key = {en, zh}`` -> {section: {key: str}}."""
    if lang not in LANGS:
        raise TranslationError(f"language: expected one of {list(LANGS)}, got {lang!r}")
    out: dict = {}
    for section, entries in ui_data().items():
        out[section] = {}
        for key, record in entries.items():
            if not isinstance(record, dict) or lang not in record:
                raise TranslationError(f"ui.toml [{section}] {key}: expected {{en, zh}}, "
                                       f"got {record!r:.60}")
            out[section][key] = record[lang]
    return out


@dataclass(frozen=True)
class Text:
    """A translated string; ``missing`` when it is the English fallback for want of ``lang``;
    ``engine`` when it is the engine's own text (plain: never parsed for ``$...$`` math)."""

    text: str
    missing: bool = False
    engine: bool = False


def _pick(record: object, english: str, lang: str) -> Text:
    """``record`` is {en?, zh?}: en (if given) is the English display form of ``english``."""
    if not isinstance(record, dict):
        return Text(english, missing=lang != "en", engine=True)
    engine = "en" not in record
    en = record.get("en", english)
    if lang == "en":
        return Text(en, engine=engine)
    if lang in record:
        return Text(record[lang])
    return Text(en, missing=True, engine=engine)


def _claim(claim_id: str) -> dict:
    return claims_data().get(claim_id, {})


def english_title(claim_id: str) -> str:
    import derivations  # the engine's own English title, where the table has no display form

    known = {d.id: d.title for d in derivations.claims()}
    return known.get(claim_id, claim_id)


def _shared(kind: str) -> dict:
    return claims_data().get("_shared", {}).get(kind, {})


def title(claim_id: str, english: str, lang: str) -> Text:
    return _pick(_claim(claim_id).get("title"), english, lang)


def rule(claim_id: str, english: str, lang: str) -> Text:
    """A step reason, looked up by its English text (so a changed reason shows as missing)."""
    own = _claim(claim_id).get("rules", {})
    return _pick(own.get(english, _shared("rules").get(english)), english, lang)


def assumption(claim_id: str, name: str, text: str, lang: str) -> tuple[Text, Text]:
    """(name, text) of a named assumption in ``lang``."""
    record = _claim(claim_id).get("assumptions", {}).get(name) \
        or _shared("assumptions").get(name, {})
    if not record and text == f"Proved as claim {name}." and "title" in _claim(name):
        # a lemma citing another claim (derivations.lemma): named by that claim's title
        cited = _pick(_claim(name)["title"], english_title(name), lang)
        said = {"en": f"Proved as the claim “{cited.text}”.",
                "zh": f"已作为命题「{cited.text}」证明。"}
        return cited, Text(said.get(lang, said["en"]), missing=cited.missing)
    return _pick(record.get("name"), name, lang), _pick(record.get("text"), text, lang)


def assumption_latex(claim_id: str, name: str, latex: str, lang: str) -> str:
    """The formula of an assumption; a translated one when its ``\\text{}`` carries words."""
    record = _claim(claim_id).get("assumptions", {}).get(name) \
        or _shared("assumptions").get(name, {})
    return record.get("latex", {}).get(lang, latex)


def definition(english: str, lang: str) -> Text:
    """What a definition names, in words (its ``text``), looked up in claims.toml's
    ``[_shared.definitions]`` by its English text: definitions are shared across claims."""
    return _pick(_shared("definitions").get(english), english, lang)


def missing_claim_fields(claims: list[dict]) -> list[str]:
    """Every claim field without a Chinese text, as 'claim <id>: <field> ...' lines.

    ``claims`` are ChainResult dicts (or the same fields from the Derivation objects).
    """
    gaps: list[str] = []
    for c in claims:
        cid = c["id"]
        if title(cid, c["title"], "zh").missing:
            gaps.append(f"claim {cid}: title {c['title']!r} has no zh")
        for s in c["steps"]:
            if rule(cid, s["rule"], "zh").missing:
                gaps.append(f"claim {cid}: rule of step {s['index']} {s['rule']!r} has no zh")
        for a in c["assumptions"]:
            name, text = assumption(cid, a["name"], a["text"], "zh")
            if name.missing:
                gaps.append(f"claim {cid}: assumption name {a['name']!r} has no zh")
            if text.missing:
                gaps.append(f"claim {cid}: assumption text of {a['name']!r} has no zh")
        for x in c.get("definitions", ()):
            if x["text"] and definition(x["text"], "zh").missing:
                gaps.append(f"claim {cid}: definition {x['name']!r} ({x['text']!r}) has no zh")
    return gaps
