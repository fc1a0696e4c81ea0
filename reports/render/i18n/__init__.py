"""The report's words in two languages, as data: ``ui.toml`` (interface, reading guide,
captions, topics, note titles) and ``claims.toml`` (claim titles, step reasons, assumption
texts, keyed by claim id). Math is never translated; prose may carry inline ``$...$`` math.

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
def claims_data() -> dict:
    return tomllib.loads((HERE / "claims.toml").read_text(encoding="utf-8"))


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
    return _pick(record.get("name"), name, lang), _pick(record.get("text"), text, lang)


def assumption_latex(claim_id: str, name: str, latex: str, lang: str) -> str:
    """The formula of an assumption; a translated one when its ``\\text{}`` carries words."""
    record = _claim(claim_id).get("assumptions", {}).get(name) \
        or _shared("assumptions").get(name, {})
    return record.get("latex", {}).get(lang, latex)


def family_where(module: str) -> str | None:
    """The legend of a family's abbreviations (LaTeX), e.g. s_i = e^{z_i}/Σ_k e^{z_k}."""
    return claims_data().get("_families", {}).get(module, {}).get("where")


def display(claim_id: str) -> dict:
    """Display forms of one claim: {"statement", "result", "where", "steps": {index: tex}}."""
    record = _claim(claim_id).get("display", {})
    return {"statement": record.get("statement"), "result": record.get("result"),
            "where": record.get("where"),
            "steps": {int(k): v for k, v in record.get("steps", {}).items()}}


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
            if a.get("kind") == "lemma" and a["name"] in {p for p in c.get("premises", {})}:
                continue  # a cited claim: its text is generated from the claim id
            name, text = assumption(cid, a["name"], a["text"], "zh")
            if name.missing:
                gaps.append(f"claim {cid}: assumption name {a['name']!r} has no zh")
            if text.missing:
                gaps.append(f"claim {cid}: assumption text of {a['name']!r} has no zh")
    return gaps
