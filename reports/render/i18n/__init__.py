"""The report's words in two languages, as data: ``ui.toml`` (interface, reading guide,
captions, topics, note titles), ``claims.toml`` (claim titles, step reasons, assumption
texts, keyed by claim id, and what each definition names, keyed by its English text) and
``crosschecks.toml`` (what each numeric cross-check compares, keyed by its claim and ``compared``
key, filled from the record's fields). Math is never translated; prose may carry inline ``$...$``
math.

A lookup that finds no translation returns the English text marked ``missing`` so the page
shows it visibly as untranslated; :func:`missing_claim_fields` lists every such gap for tests.
"""

from __future__ import annotations

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
def _table(name: str) -> dict:
    if name not in ("notes",):
        raise TranslationError(f"table: expected 'ui' or 'notes', got {name!r}")
    return tomllib.loads((HERE / f"{name}.toml").read_text(encoding="utf-8"))


@cache
def claims_data() -> dict:
    return tomllib.loads((HERE / "claims.toml").read_text(encoding="utf-8"))


@cache
def crosschecks_data() -> dict:
    return tomllib.loads((HERE / "crosschecks.toml").read_text(encoding="utf-8"))


# slots that hold the model's own names (h.0.attn.w_q): set as code, in either language
CODE_SLOTS = ("tensor", "layer")


def _slot(value: object) -> str:
    """A record's field as its sentence shows it: numbers as format(x, "g") writes them."""
    return format(value, "g") if isinstance(value, float) else str(value)


def crosscheck(record: dict, lang: str) -> Text:
    """What the cross-check ``record`` compares, in ``lang``: the sentence crosschecks.toml keeps
    for its claim and ``compared`` key, each slot ``<name>`` filled from the record's ``tensor``
    and ``values``; the English when ``lang`` has none, and the bare key when neither exists
    (shown as written; marked missing in the Chinese edition only, as every English fallback
    is: the English edition has nothing to translate)."""
    claim, key = record["claim"], record["compared"]
    entry = crosschecks_data().get(claim, {}).get(key)
    if not isinstance(entry, dict) or "en" not in entry:
        return Text(key, missing=lang != "en", engine=True)
    fields = {"tensor": record.get("tensor"), **record.get("values", {})}
    text = entry.get(lang, entry["en"])
    for name, value in fields.items():
        if value is not None:
            shown = f"`{value}`" if name in CODE_SLOTS else _slot(value)
            text = text.replace(f"<{name}>", shown)
    if "<" in text or ">" in text:
        given = sorted(n for n, v in fields.items() if v is not None)
        raise TranslationError(f"crosschecks.toml [{claim}] {key} ({lang}): expected slots among "
                               f"the record's fields {given}, got {text!r}")
    return Text(text, missing=lang not in entry)


def missing_crosscheck_texts(records: list[dict]) -> list[str]:
    """Every cross-check comparison without a sentence in both languages, by claim and key."""
    gaps = []
    for claim, key in dict.fromkeys((r["claim"], r["compared"]) for r in records):
        entry = crosschecks_data().get(claim, {}).get(key)
        if not isinstance(entry, dict) or not set(LANGS) <= set(entry):
            gaps.append(f"cross-check [{claim}] {key} has no en/zh entry in crosschecks.toml")
    return gaps


def ui(lang: str, table: str = "ui") -> dict:
    """Every interface string of ``lang``: ``[section] key = {en, zh}`` -> {section: {key: str}}.
    ``table``: ``ui`` (the report's) or ``notes`` (the annotated notes' page, ``notes.toml``)."""
    if lang not in LANGS:
        raise TranslationError(f"language: expected one of {list(LANGS)}, got {lang!r}")
    data = ui_data() if table == "ui" else _table(table)
    out: dict = {}
    for section, entries in data.items():
        out[section] = {}
        for key, record in entries.items():
            if not isinstance(record, dict) or lang not in record:
                raise TranslationError(f"{table}.toml [{section}] {key}: expected {{en, zh}}, "
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


def assumption(claim_id: str, name: str, text: str, lang: str,
               cited: bool = False) -> tuple[Text, Text]:
    """(name, text) of a named assumption in ``lang``.  ``cited``: the assumption is the claim
    ``name`` itself, cited as a lemma (its name is among the claim result's ``premises``)."""
    record = _claim(claim_id).get("assumptions", {}).get(name) \
        or _shared("assumptions").get(name, {})
    if not record and cited and "title" in _claim(name):
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
            name, text = assumption(cid, a["name"], a["text"], "zh",
                                    cited=a["name"] in c.get("premises", {}))
            if name.missing:
                gaps.append(f"claim {cid}: assumption name {a['name']!r} has no zh")
            if text.missing:
                gaps.append(f"claim {cid}: assumption text of {a['name']!r} has no zh")
        for x in c.get("definitions", ()):
            if x["text"] and definition(x["text"], "zh").missing:
                gaps.append(f"claim {cid}: definition {x['name']!r} ({x['text']!r}) has no zh")
    return gaps
