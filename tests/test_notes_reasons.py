"""The reasons of the notes reader, keyed in two languages (derivations/notes/reasons.toml): every
key has both, the code names only keys the catalogue holds, the English is what the terminal and
``--json`` show, and the Chinese annotated page of every note of the labelled corpus gives every
reason in Chinese — no run of three English words outside formulas and code — while the English
page keeps the English.  The checker has a failing case."""

from __future__ import annotations

import ast
import re
import string
from html.parser import HTMLParser
from pathlib import Path

import pytest

from derivations.notes import check_notes, reasons
from derivations.notes.model import FormulaResult, Link, NoteResult, NotesResult
from reports.render import notes as notes_page
from reports.render.i18n import zh_style
from tests.page_lines import PageLines

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "notes_corpus" / "notes"
# three English words in a row: what a reason left in English shows (a symbol's name, a
# formula or a code identifier is one word, and stands in code font or math anyway)
GLOSSARY = zh_style.Glossary()
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[\s,;:()]+[A-Za-z][A-Za-z'’-]*){2,}")


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}


def test_every_message_has_both_languages_and_the_same_slots():
    cat = reasons.catalogue()
    assert len(cat) >= 150
    for key, langs in cat.items():
        assert set(langs) == {"en", "zh"}, key
        assert langs["en"].strip() and langs["zh"].strip(), key
        en, zh = _fields(langs["en"]), _fields(langs["zh"])
        assert all(f.isidentifier() for f in en | zh), (key, en | zh)
        # the Chinese may leave out a slot the English names (a count written another way) or
        # use one the caller gives for it (a 1-based position), never one of its own
        assert zh <= en | {"position"}, (key, zh - en)
        if any("\u4e00" <= c <= "\u9fff" for c in langs["en"]):
            pytest.fail(f"{key}: Chinese in the English message")


def test_the_chinese_messages_are_chinese():
    for key, langs in reasons.catalogue().items():
        if key.startswith(("parse.name", "parse.more", "parse.token")):
            continue  # a token of the grammar, shown in code font
        written = re.sub(r"`[^`]*`|\{[^{}]*\}", "", langs["zh"])
        # words of its own in Chinese (some are only slots and punctuation: "（{why}）")
        assert re.search(r"[\u4e00-\u9fff]", written) or not re.search(r"[A-Za-z]", written), key
        assert not ENGLISH_RUN.search(written), (key, ENGLISH_RUN.search(written).group(0))


def _said_keys() -> set[str]:
    """The literal keys ``say("…")`` is called with in the package."""
    found = set()
    for path in (ROOT / "derivations" / "notes").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "say":
                for arg in node.args[:1]:
                    if isinstance(arg, ast.Constant):
                        found.add(arg.value)
                    elif isinstance(arg, ast.IfExp):
                        found |= {x.value for x in (arg.body, arg.orelse)
                                  if isinstance(x, ast.Constant)}
    return found


def test_every_key_the_code_says_is_in_the_catalogue():
    said = _said_keys()
    assert len(said) >= 150, len(said)
    missing = said - set(reasons.catalogue())
    assert not missing, sorted(missing)
    with pytest.raises(KeyError, match="no message"):
        reasons.say("check.no_such_message")


def test_a_reason_is_its_english_text_and_keeps_its_key_through_json():
    why = reasons.say("link.twice", name="s", lines="3, 7")
    assert why == ("s is defined twice (lines 3, 7): which meaning this line uses is not said, "
                   "so it is not checked")
    nested = reasons.say("link.link_unchecked", n=2, why=why)
    back = reasons.from_data(nested.data())
    assert back == nested and isinstance(back, reasons.Reason)
    assert reasons.plain(back, "zh") == ("第 2 个环节无法核验：s 被定义了两次（第 3, 7 行）："
                                         "这一行用的是哪一个含义没有说明，所以不作核验")
    link = Link(1, "=", "a", "b", "not checkable", nested)
    f = FormulaResult(0, 0, 3, 1, "a=b", False, "a = b", "not checkable", nested, (link,))
    data = f.to_dict()
    assert data["reason"] == str(nested) and data["reason_said"]["key"] == "link.link_unchecked"
    again = NoteResult.from_dict({"path": "n.md", "title": "", "symbols": [],
                                  "formulas": [data]}, "$a=b$")
    assert reasons.text(again.formulas[0].reason, "zh") == reasons.text(nested, "zh")
    assert reasons.text(again.formulas[0].links[0].reason, "zh") == reasons.text(nested, "zh")


class _Reasons(HTMLParser):
    """The reasons of an annotated page: each check's 'why', each link's line and what is said
    under it (the counterexample, the definitions used), their text outside formulas (KaTeX)
    and code."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.hidden = 0
        self.current: list[str] | None = None
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        hide = tag == "code" or "katex" in cls
        self.stack.append((tag, hide))
        self.hidden += hide
        if tag in ("p", "li") and not self.hidden:
            if self.current is not None:  # a link's list follows its line
                self.found.append("".join(self.current))
            self.current = []

    def handle_endtag(self, tag):
        while self.stack:
            t, hide = self.stack.pop()
            self.hidden -= hide
            if t == tag:
                break
        if tag in ("p", "li") and self.current is not None:
            self.found.append("".join(self.current))
            self.current = None

    def handle_data(self, data):
        if self.current is not None and not self.hidden:
            self.current.append(data)


def page_reasons(html: str) -> list[str]:
    """The reasons of a page (its checks, after the note's text)."""
    parser = _Reasons()
    for check in re.findall(r'<details class="check.*?</details>', html, flags=re.S):
        parser.feed(check)
    return [r for r in parser.found if r.strip()]


def english_left(html: str) -> list[str]:
    return [f"{m.group(0)!r} in {r[:120]!r}" for r in page_reasons(html)
            for m in [ENGLISH_RUN.search(r)] if m]


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, str]:
    result = check_notes([CORPUS], cache=tmp_path_factory.mktemp("cache"))
    out = tmp_path_factory.mktemp("pages")
    return {p.name: p.read_text(encoding="utf-8") for p in notes_page.write(result, out)}


def test_every_reason_on_the_chinese_pages_is_chinese(pages):
    zh = {name: html for name, html in pages.items() if name.endswith(".zh.html")}
    assert len(zh) == len(list(CORPUS.glob("*.md")))
    seen = sum(len(page_reasons(html)) for html in zh.values())
    assert seen >= 1000, seen  # every formula's reason, its links' and what they say
    left = [f"{name}: {x}" for name, html in zh.items() for x in english_left(html)]
    assert not left, left[:10]
    assert not any("（理由为英文原文）" in html for html in zh.values())


def test_the_english_pages_keep_the_english_reasons(pages):
    en = {name: html for name, html in pages.items() if not name.endswith(".zh.html")}
    whole = "".join(en.values())
    assert "a declaration: it says what a symbol is" in whole
    assert "这是一条说明" not in whole
    # the same checker finds English on every English page that gives a reason in words
    assert all(english_left(html) for html in en.values() if page_reasons(html))


def test_an_english_reason_on_the_chinese_page_is_found(tmp_path):
    """The checker's failing case: a reason that came as plain English text (not from the
    catalogue) is shown marked as English on the Chinese page, and found."""
    text = "$a = b$\n"
    plain = FormulaResult(0, 0, 7, 1, "a = b", False, "a = b", "not checkable",
                          "the reader said this in English only")
    keyed = FormulaResult(0, 0, 7, 1, "a = b", False, "a = b", "not checkable",
                          reasons.say("check.declaration"))
    for formula, english in ((plain, True), (keyed, False)):
        written = notes_page.write(NotesResult([NoteResult("n.md", text, [formula])]),
                                   tmp_path / str(english))
        html = next(p for p in written if p.name.endswith(".zh.html")).read_text("utf-8")
        assert bool(english_left(html)) is english, html


class _Said(PageLines):
    """What a page says in its own words, a line per block: its header, summary, symbol table
    and checks — not the note's text (the note's own words, quoted), nor formulas (KaTeX) or
    code, each left as one masked character."""

    BLOCKS = {"p", "li", "h1", "h2", "h3", "td", "th", "summary", "div"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.body = self.checks = 0

    def hidden(self) -> bool:
        return any(h for _, h in self.stack) or (self.body > 0 and self.checks == 0)

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        self.body += tag == "article"
        self.checks += tag == "details"
        hide = tag in ("code", "style", "title", "script") or "katex" in cls
        if hide and not self.hidden():
            self.buf.append(zh_style.MASK)
        self.stack.append((tag, hide))
        if tag in self.BLOCKS:
            self.flush()

    def handle_endtag(self, tag):
        self.body -= tag == "article"
        self.checks -= tag == "details"
        while self.stack and self.stack.pop()[0] != tag:
            pass
        if tag in self.BLOCKS:
            self.flush()



def english_words(html: str) -> list[str]:
    """The English words and code identifiers a Chinese page says outside formulas, code and
    quotes (the reports' Chinese style checker, reports/render/i18n/zh_style.py)."""
    said = _Said()
    said.feed(html)
    said.flush()
    return [f"{f.match!r} in {line[:100]!r}" for line in said.lines
            for f in zh_style.check_english(line, GLOSSARY, zh_style.check_avoid(line, GLOSSARY))]


def test_no_chinese_page_says_an_english_word(pages):
    zh = {name: html for name, html in pages.items() if name.endswith(".zh.html")}
    assert len(zh) == len(list(CORPUS.glob("*.md")))
    found = [f"{name}: {w}" for name, html in zh.items() for w in english_words(html)]
    assert found == [], found[:10]


def test_the_engines_own_sentences_are_said_in_chinese(pages):
    zh = "".join(html for name, html in pages.items() if name.endswith(".zh.html"))
    en = "".join(html for name, html in pages.items() if not name.endswith(".zh.html"))
    # as the engine writes them on the English page, in Chinese on the Chinese one
    for english, chinese in (("symbolic route: inconclusive", "符号途径：未能判定"),
                             ("a definition keeps its symbol", "定义必须保持所定义符号的形状")):
        assert english in en and english not in zh and chinese in zh


def test_an_english_word_on_the_chinese_page_is_found(tmp_path):
    text = "$a = b$\n"
    for reason, english in (("symbolic route: inconclusive", True),
                            (reasons.say("check.declaration"), False)):
        formula = FormulaResult(0, 0, 7, 1, "a = b", False, "a = b", "not checkable", reason)
        written = notes_page.write(NotesResult([NoteResult("n.md", text, [formula])]),
                                   tmp_path / str(english))
        html = next(p for p in written if p.name.endswith(".zh.html")).read_text("utf-8")
        assert bool(english_words(html)) is english
    assert english_words("<table><tr><td>n×d_k</td></tr></table>")
    assert not english_words("<table><tr><td><code>n×d_k</code></td></tr></table>")
    assert not english_words('<article class="note-body"><p>the note says so</p></article>')


def test_the_engines_sentences_keep_their_english_and_an_unknown_one_is_kept_whole():
    from derivations.notes import engine_words

    text = ("the two sides could be evaluated at only 0 of 40 points tried (TypeError: x); "
            "the claim is undefined on most of its domain; declare where it holds (ranges, a "
            "positive symbol, a hypothesis)")
    said = engine_words.said(text)
    assert str(said) == text and "在试过的 40 个点中" in reasons.plain(said, "zh")
    assert engine_words.said("symbolic route: by a method not in the table") is None
    assert engine_words.said(text + "; something new") is None
