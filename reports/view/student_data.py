"""The student edition's data: its chapters and symbols (``reports/render/student.toml``), its
words (``reports/render/i18n/student.toml``) checked in both languages, and the references
({{chapter:key}}, {{claim:id}}, {{figure:name}}) and uses ([uses], [facts]) that tie the
words to the chapters' order."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "render"
STUDENT = HERE / "student.toml"
WORDS = HERE / "i18n" / "student.toml"
FILES = {"en": "student.html", "zh": "student.zh.html"}
PDFS = {"en": "report.en.pdf", "zh": "report.zh.pdf"}
LANGS = ("en", "zh")
# what a 「常见误区」 box takes from the audit: the notes' errata, each in exactly one box
BOXED_VERDICTS = ("error", "imprecise")


class StudentError(ValueError):
    """The student edition's data does not have the documented shape."""


@cache
def structure() -> dict:
    return tomllib.loads(STUDENT.read_text(encoding="utf-8"))


@cache
def words() -> dict:
    return validate_words(tomllib.loads(WORDS.read_text(encoding="utf-8")))


def topics_data() -> list[dict]:
    return structure()["topic"]


def _bilingual(entry, where: str) -> None:
    if not (isinstance(entry, dict) and all(isinstance(entry.get(lg), str) and entry[lg].strip()
                                            for lg in LANGS)):
        raise StudentError(f"{where}: expected {{en, zh}} text, got {entry!r:.60}")


def validate_words(raw: dict) -> dict:
    """Every chapter and box word in both languages; a box names records and the claim after
    which it stands; an exercise has a question, an answer and an id."""
    for key in [t["key"] for t in topics_data()]:
        ch = raw.get("chapter", {}).get(key)
        if ch is None:
            raise StudentError(f"student words: chapter {key!r} expected in {WORDS.name}, got none")
        for field in ("d2l", "intro"):
            _bilingual(ch.get(field), f"chapter {key} {field}")
        for i, line in enumerate(ch.get("summary", [])):
            _bilingual(line, f"chapter {key} summary {i + 1}")
        if not ch.get("summary"):
            raise StudentError(f"chapter {key}: expected a summary (小结), got none")
        exercises = ch.get("exercise", [])
        if not 2 <= len(exercises) <= 3:
            raise StudentError(f"chapter {key}: expected 2 or 3 exercises, got {len(exercises)}")
        for ex in exercises:
            _bilingual(ex.get("question"), f"chapter {key} exercise {ex.get('id')} question")
            _bilingual(ex.get("answer"), f"chapter {key} exercise {ex.get('id')} answer")
    if not raw.get("notation_map"):
        raise StudentError("student words: expected a [[notation_map]] (this edition's symbols "
                           "against d2l's), got none")
    for i, line in enumerate(raw["notation_map"]):
        _bilingual(line, f"notation_map line {i + 1}")
    shown = {c for t in topics_data() for c in t["claims"]}
    for key, group in raw.get("group", {}).items():
        _bilingual(group.get("title"), f"group {key} title")
    for box in raw.get("box", []):
        where = f"box {box.get('id')!r}"
        if box.get("group") is not None and box["group"] not in raw.get("group", {}):
            raise StudentError(f"{where}: group expected one of [group] "
                               f"{sorted(raw.get('group', {}))}, got {box['group']!r}")
        if box.get("after") not in shown:
            raise StudentError(f"{where}: after expected a claim the edition shows, got "
                               f"{box.get('after')!r}")
        if not box.get("records"):
            raise StudentError(f"{where}: expected the audit's records it answers, got none")
        _bilingual(box.get("title"), f"{where} title")
        if box.get("kind") == "history":
            for i, line in enumerate(box.get("lines", [])):
                _bilingual(line, f"{where} line {i + 1}")
        else:
            for field in ("wrong", "counter"):
                _bilingual(box.get(field), f"{where} {field}")
            if "footnote" in box:
                _bilingual(box["footnote"], f"{where} footnote")
            if not box.get("correct"):
                raise StudentError(f"{where}: expected the correct formula, got none")
    for cid, lead in raw.get("lead", {}).items():
        if cid not in shown or not ({"formula", "text"} & set(lead)):
            raise StudentError(f"lead {cid!r}: expected a claim the edition shows, with a "
                               f"formula or a text, got {sorted(lead)}")
        if "text" in lead:
            _bilingual(lead["text"], f"lead {cid} text")
    for cid, said in raw.get("definition", {}).items():
        if cid not in shown:
            raise StudentError(f"definition {cid!r}: expected a claim the edition shows, got "
                               f"none of that id")
        for name, entry in said.items():
            _bilingual(entry, f"definition {cid} {name}")
    for cid, entry in raw.get("title", {}).items():
        _bilingual(entry, f"title {cid}")
    for cid, steps in raw.get("rule", {}).items():
        for n, entry in steps.items():
            _bilingual(entry, f"rule {cid} step {n}")
    return raw


_REF = re.compile(r"\{\{(chapter|claim|figure):([A-Za-z0-9_]+)\}\}")


def numbers(chosen: list[dict], claims: dict, figures: set[str] | frozenset = frozenset()
            ) -> dict[str, str]:
    """What a reference in the words stands for: ``chapter:<key>`` its number, ``claim:<id>``
    its "chapter.k", ``figure:<name>`` its number among the figures drawn (``figures``), which
    are numbered in the order student.toml lists them; one the data lacks keeps its place in
    the whole edition."""
    out = {}
    everywhere = [f["name"] for t in topics_data() for f in t.get("figure", [])]
    out.update({f"figure:{name}": str(n) for n, name in enumerate(everywhere, start=1)})
    for n, topic in enumerate(topics_data(), start=1):
        out[f"chapter:{topic['key']}"] = str(n)
        out.update({f"claim:{c}": f"{n}.{k}" for k, c in enumerate(topic["claims"], start=1)})
    drawn = [f["name"] for t in chosen for f in t.get("figure", []) if f["name"] in figures]
    out.update({f"figure:{name}": str(n) for n, name in enumerate(drawn, start=1)})
    for n, topic in enumerate(chosen, start=1):
        out[f"chapter:{topic['key']}"] = str(n)
        present = [c for c in topic["claims"] if c in claims]
        out.update({f"claim:{c}": f"{n}.{k}" for k, c in enumerate(present, start=1)})
    return out


def resolve(node, refs: dict[str, str]):
    """``node`` (the words) with each reference {{chapter:key}}, {{claim:id}} or
    {{figure:name}} replaced by its number: the text never hard-codes a number that the
    chapters' order decides."""
    if isinstance(node, str):
        def one(m: re.Match) -> str:
            key = f"{m.group(1)}:{m.group(2)}"
            if key not in refs:
                raise StudentError(f"student words: reference {m.group(0)} expected a chapter "
                                   f"key, a shown claim id or a figure of student.toml, got "
                                   f"{m.group(2)!r}")
            return refs[key]
        return _REF.sub(one, node)
    if isinstance(node, dict):
        return {k: resolve(v, refs) for k, v in node.items()}
    if isinstance(node, list):
        return [resolve(v, refs) for v in node]
    return node


def order_problems(sequence: list[str], uses: dict[str, list[str]],
                   facts: dict[str, str]) -> list[str]:
    """The uses ``uses`` ({user: [claim or fact]}) whose source stands after its user in
    ``sequence`` (the ids of the edition's derivations, boxes and figures in reading order); a
    fact stands where ``facts`` says it is explained. A user or source absent from the
    sequence is not judged (data of other claims)."""
    place = {}
    for k, item in enumerate(sequence):
        place.setdefault(item, k)
    out = []
    for user, used in uses.items():
        for source in used:
            where = facts.get(source, source)
            if user in place and where in place and place[where] > place[user]:
                out.append(f"{user} uses {source}, shown only later ({where})")
    return out


def reading_order(topics: list[dict]) -> list[str]:
    """The ids of the derivations, boxes and figures of ``topics`` in reading order."""
    return [it.get("id") or it.get("name") for tp in topics for it in tp["parts"]
            if it["type"] in ("claim", "box", "figure")]
