"""The student edition's view: chapters in teaching order, each with its derivations written as
a lecturer writes them, the 「常见误区」 boxes beside the derivation they concern, its figure,
a 小结 and exercises whose answers stand at the back.

The chapters and their derivations are data (``reports/render/student.toml``), their words
too (``reports/render/i18n/student.toml``, and ``ui.toml`` [student]). A derivation is shown
as verified: one mark, linked to its evidence in the full report. Formulas keep one notation
across the edition (:func:`lecturer_tex`): ⊤ for the transpose, one letter per quantity, a
stacked result split into its lines. Nothing visible names a claim id, a module or a record id.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

from reports.render import i18n
from reports.render.katex import Prose, Tex, prose
from reports.render.latex import math_pieces
from reports.view import edition, model
from reports.view.figures import caption as figure_caption
from reports.view.fractions import unnest

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
            if not box.get("correct"):
                raise StudentError(f"{where}: expected the correct formula, got none")
    for cid, lead in raw.get("lead", {}).items():
        if cid not in shown or not ({"formula", "text"} & set(lead)):
            raise StudentError(f"lead {cid!r}: expected a claim the edition shows, with a "
                               f"formula or a text, got {sorted(lead)}")
        if "text" in lead:
            _bilingual(lead["text"], f"lead {cid} text")
    for cid, entry in raw.get("title", {}).items():
        _bilingual(entry, f"title {cid}")
    for cid, steps in raw.get("rule", {}).items():
        for n, entry in steps.items():
            _bilingual(entry, f"rule {cid} step {n}")
    return raw


# ----------------------------------------------------------------------------- formulas
_TRANSPOSE = re.compile(r"\^\{?T\}?(?![A-Za-z])")


def lecturer_tex(tex: str, symbols: dict[str, str] | None = None) -> str:
    """``tex`` in the edition's notation: the transpose as ⊤ (SymPy prints ``.T`` as ``^{T}``;
    no claim of the edition writes a power T) and a claim's letters renamed to the edition's
    (``symbols``: {"\\alpha": "\\eta"}, a free symbol renamed everywhere in the claim), no
    fraction inside another's numerator (:func:`reports.view.fractions.unnest`)."""
    out = _TRANSPOSE.sub(r"^{\\top}", tex)
    if symbols:
        # one pass for all letters: a renaming is simultaneous, so {m: v, v: s} sends m to v
        # and v to s, never m on to s; the longer of two names that start alike is tried first
        names = sorted(symbols, key=len, reverse=True)
        # a letter, never the letter inside a command or a word (\\sum, \\mu, softmax)
        pattern = "|".join(("" if old.startswith("\\") else r"(?<![A-Za-z\\])")
                           + re.escape(old) for old in names)
        out = re.sub(f"(?:{pattern})(?![A-Za-z])", lambda m: symbols[m.group(0)], out)
        # a pair of indices written together, \\delta_{jk}: each is a letter of its own
        single = {o: n for o, n in symbols.items() if len(o) == len(n) == 1 and o.isalpha()}
        if single:
            out = _PAIR.sub(lambda m: "_{" + "".join(single.get(ch, ch) for ch in m.group(1))
                            + "}", out)
    # a fraction inside a fraction is set at script size: 1/σ comes out in front instead
    return unnest(out)


_PAIR = re.compile(r"_\{([A-Za-z]{2})\}")


_STACK = re.compile(r"^\\left\[\\begin\{matrix\}(.*)\\end\{matrix\}\\right\]$", re.S)


def _rows(tex: str) -> list[str] | None:
    """The entries of a column ``\\left[\\begin{matrix}a\\\\b\\end{matrix}\\right]``, else None."""
    m = _STACK.match(tex.strip())
    if not m or "&" in m.group(1):
        return None
    rows, depth, start, body = [], 0, 0, m.group(1)
    i = 0
    while i < len(body):
        if body.startswith("\\\\", i) and depth == 0:
            rows.append(body[start:i])
            start = i = i + 2
            continue
        depth += {"{": 1, "}": -1}.get(body[i], 0)
        i += 1
    rows.append(body[start:])
    return [r.strip() for r in rows]


def unstack(statement: str) -> list[str]:
    """A statement that stacks two results in column vectors, ``[a; b] = [c; d]``, as its
    lines ``a = c`` and ``b = d``; any other statement as it is."""
    left, sep, right = statement.partition(" = ")
    rows_l, rows_r = _rows(left), _rows(right)
    if sep and rows_l and rows_r and len(rows_l) == len(rows_r) > 1:
        return [f"{a} = {b}" for a, b in zip(rows_l, rows_r, strict=True)]
    return [statement]


def step_lines(tex: str, width: int) -> list[str]:
    """A step of a stacked claim as its ``width`` rows; any other step as it is."""
    rows = _rows(tex)
    return rows if rows and len(rows) == width else [tex]


def with_left_side(statement: list[str], rows: list[str]) -> list[str]:
    """The first step's ``rows`` each preceded by the left side of the statement's line they
    rewrite (``statement``: its lines ``a = b``), so that the steps read as one chain of
    equalities; a statement that is no equation, or a step that has its own, as it is."""
    left = [line.partition(" = ")[0] for line in statement]
    if len(left) != len(rows) or not all(" = " in line for line in statement):
        return rows
    return [row if " = " in row else f"{a} = {row}" for a, row in zip(left, rows, strict=True)]


_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_RELATIONS = {"le", "ge", "leq", "geq", "iff", "approx", "ne", "in", "succeq", "preceq", "lesssim"}


def _cut_relations(tex: str) -> list[str]:
    """``tex`` cut before each top-level relation (≤, ≥, ⟺, <, >), which math_pieces keeps
    whole: a chain of bounds wraps on a phone instead of running past the box."""
    pieces, depth, start, i = [], 0, 0, 0
    while i < len(tex):
        m = _COMMAND.match(tex, i)
        rel = False
        if m:
            rel = m.group(1) in _RELATIONS
            step = len(m.group(0))
        else:
            depth += {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}.get(tex[i], 0)
            rel = tex[i] in "<>"
            step = 1
        if depth < 0:
            return [tex]
        if rel and depth == 0 and tex[start:i].strip():
            pieces.append(tex[start:i].strip())
            start = i
        i += step
    pieces.append(tex[start:].strip())
    return [tex] if depth else [p for p in pieces if p]


def _list_items(tex: str) -> list[str]:
    """The items of a list written ``a,\\ b,\\ c`` at the top level of ``tex``: [a, b, c]."""
    items, depth, start = [], 0, 0
    for k, ch in enumerate(tex):
        depth += {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}.get(ch, 0)
        if depth == 0 and tex.startswith(",\\ ", k):
            items.append(tex[start:k])
            start = k + 3
    return [x.strip() for x in [*items, tex[start:]] if x.strip()]


def shown(tex: Tex) -> dict:
    """A display formula as the edition shows it: whole in the PDF (which wraps it itself), and
    for the page also cut at its top-level relations and operators, so that on a phone its
    pieces wrap like words instead of scrolling."""
    pieces = [q for p in math_pieces(tex.tex) for q in _cut_relations(p)]
    if len(pieces) < 2:
        return {"tex": tex, "pieces": [], "groups": []}
    # the formulas a display sets side by side (「A,\quad B」) are groups, and a group's sides
    # between relations (= ≤ ⟺ …) are its parts: on a narrow page a group moves to the next
    # line whole, wraps at a relation only when it alone is wider than the line, and at a
    # + or − only when one side alone is
    groups: list[list[list[Tex]]] = []
    for p in pieces:
        head = _QUAD.match(p)
        if head or not groups:
            groups.append([])
        p = p[head.end():].strip() if head else p
        if not p:
            continue
        if _RELATION.match(p) or not groups[-1]:
            groups[-1].append([])
        groups[-1][-1].append(Tex("\\displaystyle " + p, False, tex.label))
    groups = [g for g in groups if g]
    return {"tex": tex, "pieces": [x for g in groups for side in g for x in side],
            "groups": groups}


_QUAD = re.compile(r"\\q?quad(?![A-Za-z])")
_RELATION = re.compile(r"(?:\{\}\s*)?(?:[=<>]|\\(?:" + "|".join(sorted(_RELATIONS)) + r"|"
                       r"gtrsim|Longleftrightarrow|Rightarrow|to)(?![A-Za-z]))")


# ----------------------------------------------------------------------------- claims
def _claim(claim: dict, lang: str, t: dict, full: str, number: str, section: str,
           w: dict) -> dict:
    """A derivation as the edition shows it; ``w``: the edition's words, references resolved."""
    cid = claim["id"]
    c = edition._claim(claim, [], [], lang, t)
    symbols = structure().get("symbols", {}).get(cid, {})
    rules = w.get("rule", {}).get(cid, {})

    def tx(x: Tex) -> Tex:
        return Tex(lecturer_tex(x.tex, symbols), x.display, x.label)

    def px(p: Prose) -> Prose:
        return Prose(tuple(tx(x) if isinstance(x, Tex) else x for x in p.parts), p.missing)

    lines = unstack(c["statement"].tex)
    steps = []
    for n, st in enumerate(c["steps"], start=1):
        rule = rules.get(str(n))
        rows = step_lines(st["tex"].tex, len(lines))
        if n == 1:  # the chain starts from the result's left side: 「左边 = 第 1 步 = …」
            rows = with_left_side(lines, rows)
        steps.append({
            "number": n,
            "rule": prose(rule[lang], f"student rule {cid} {n}") if rule else px(st["rule"]),
            "lines": [shown(tx(Tex(x, True, st["tex"].label))) for x in rows],
            "failed": st["status"] == "failed"})
    # the hypotheses a result rests on belong to its statement: 「若 …，则」
    hypotheses = [tx(Tex(a["tex"].tex, False, a["tex"].label)) for a in c["assumptions"]
                  if a["kind"] == "hypothesis"]
    title = w.get("title", {}).get(cid)
    lead = w.get("lead", {}).get(cid)
    return {"id": cid, "number": number, "status": claim["status"],
            # what a lecturer writes before the result: its matrix form, its symbols' meaning
            # (written in the edition's letters already: no renaming)
            "lead": None if lead is None else {
                "formula": shown(Tex(lead["formula"], True, f"student lead {cid}"))
                if "formula" in lead else None,
                "text": prose(lead["text"][lang], f"student lead {cid}")
                if "text" in lead else None},
            "title": prose(title[lang], f"student title {cid}") if title else px(c["title"]),
            "proved": claim["status"] == "proved",
            "hypotheses": hypotheses,
            # on the page a premise that lists several facts wraps between them, so that its
            # last fact, not the whole list, stays with 「，则」
            "hypothesis_pieces": [[Tex(x, False, h.label) for x in _list_items(h.tex)]
                                  for h in hypotheses],
            "statement": [shown(tx(Tex(x, True, c["statement"].label))) for x in lines],
            "definitions": [{**d, "tex": tx(d["tex"]), "text": px(d["text"]),
                             "symbol": tx(d["symbol"]) if d.get("symbol") else None,
                             # on the page in display style, its fractions full size, as
                             # in the PDF (math(True))
                             "shown": Tex("\\displaystyle " + tx(d["tex"]).tex, False,
                                          d["tex"].label)}
                            for d in c["definitions"]],
            "steps": steps, "href": f"{full}#{c['anchor']}",
            # the mark links to the evidence in the full report's PDF, handed out beside this
            # one (a relative link); its text names no section a student would look up
            "section": section,
            "pdf_dest": f"subsection.{section}"}


# ----------------------------------------------------------------------------- boxes
_INNER = str.maketrans({"“": "‘", "”": "’"})
_ITEM = re.compile(r"^\d+\.\s*")


def typeset_source(text: str) -> str:
    """A typeset quote (:data:`words` [typeset]) as the flattened text a web copy of it
    gives, its characters sorted: ``利用 $I+\\partial F/\\partial X$`` and ``利用 I+∂X∂F`` both
    read the same, so a typeset quote is the note's words and nothing else."""
    for tex, char in (("\\partial", "∂"), ("\\sqrt", ""), ("$", ""), ("/", ""), ("{", ""),
                      ("}", ""), (" ", "")):
        text = text.replace(tex, char)
    return "".join(sorted(text))


def _quote(rec: dict) -> Prose:
    """The note's words as typeset text: a quote in LaTeX (the notes copy some formulas as
    source) is shown as the formula; one with $…$ inside as prose; any other as written, its
    own quotation marks nested as ‘…’ inside the edition's “…”."""
    label = f"quote {rec['id']}"
    # the notes lost their typesetting when copied from the web (∂F/∂X became ∂X∂F)
    typeset = words().get("typeset", {}).get(rec["id"])
    if typeset:
        return _full_size(prose(typeset.translate(_INNER), label))
    # a saying stands alone: the item number it had in a list (「3. 添加……」) goes
    text = _ITEM.sub("", rec["quote"]).translate(_INNER)
    if "$" in text:
        return _full_size(prose(text, label))
    if "\\" in text:
        return _full_size(Prose((Tex(text, False, label),)))
    return Prose((text,))


def _renamed(p: Prose, symbols: dict[str, str] | None) -> Prose:
    """``p`` with its formulas in the edition's letters (``symbols``, as :func:`lecturer_tex`)."""
    return p if not symbols else Prose(tuple(
        Tex(lecturer_tex(x.tex, symbols), x.display, x.label) if isinstance(x, Tex) else x
        for x in p.parts), p.missing)


def _full_size(p: Prose) -> Prose:
    """A quote's fractions in display style: inline, TeX sets a fraction's terms at two thirds
    of the text's size, too small to read in print (the formula is the note's, unchanged)."""
    return Prose(tuple(Tex("\\displaystyle " + x.tex, x.display, x.label)
                       if isinstance(x, Tex) and "\\frac" in x.tex else x for x in p.parts),
                 p.missing)


def _box(box: dict, number: str, records: dict[str, dict], lang: str, t: dict) -> dict:
    """One 「常见误区」 box: the saying it answers as a quote, with no source a student would
    look up (the notes are not handed out)."""
    recs = [records[r] for r in box["records"]]
    s = t["student"]
    kind = box.get("kind") or ("error" if any(r["verdict"] == "error" for r in recs)
                               else "imprecise")
    label = f"box {box['id']}"
    correct = (lang == "zh" and box.get("correct_zh")) or box.get("correct")
    return {"id": box["id"], "number": number, "kind": kind,
            "kind_label": s[f"box_{kind}"], "title": prose(box["title"][lang], label),
            "quotes": [{"quote": _renamed(_quote(r), box.get("symbols"))} for r in recs],
            "says": s["note_says_many"] if len(recs) > 1 else s["note_says"],
            # the sayings are Chinese: the English edition says what their words mean
            "gloss": prose(box["gloss"][lang], label) if lang in box.get("gloss", {}) else None,
            "wrong": prose(box["wrong"][lang], label) if "wrong" in box else None,
            "counter": prose(box["counter"][lang], label) if "counter" in box else None,
            "correct": shown(Tex(correct, True, label)) if correct else None,
            "lines": [prose(x[lang], label) for x in box.get("lines", [])]}


# ----------------------------------------------------------------------------- the edition
def figure_symbols() -> dict[str, dict[str, str]]:
    """{figure: symbols}: the figures this edition shows in its own letters (student.toml
    ``figure`` ``symbols``), drawn once more for it (reports/render/plots.py ``variants``)."""
    return {f["name"]: f["symbols"] for tp in topics_data() for f in tp.get("figure", [])
            if f.get("symbols")}


_MATH = re.compile(r"\$([^$]*)\$")


def rename_math(text: str, symbols: dict[str, str]) -> str:
    """``text`` with the letters of its ``$…$`` formulas renamed (:func:`lecturer_tex`)."""
    return _MATH.sub(lambda m: f"${lecturer_tex(m.group(1), symbols)}$", text)


def _figure(name: str, number: int, anchor: str, lang: str, t: dict, data: dict) -> dict:
    """Figure ``number`` of the edition, ``name``, in chapter ``anchor``: in the edition's
    letters where it names its own (its drawing is then the "student" variant)."""
    symbols = figure_symbols().get(name)
    words = (lambda x: rename_math(x, symbols)) if symbols else (lambda x: x)
    return {"type": "figure", "anchor": f"{anchor}-fig-{name}", "number": number, "name": name,
            "file": model.figure_stem(name, lang, "student" if symbols else ""),
            "label": t["student"]["figure_label"].format(n=number),
            "title": prose(words(t["figure"][f"{name}_title"]), f"figure {name}"),
            "caption": prose(words(figure_caption(name, t["figure"][f"{name}_caption"], t,
                                                  data.get("plot_data") or {})),
                             f"figure {name} caption")}


_REF = re.compile(r"\{\{(chapter|claim):([A-Za-z0-9_]+)\}\}")


def numbers(chosen: list[dict], claims: dict) -> dict[str, str]:
    """What a reference in the words stands for: ``chapter:<key>`` its number, ``claim:<id>``
    its "chapter.k"; one the data lacks keeps its place in the whole edition."""
    out = {}
    for n, topic in enumerate(topics_data(), start=1):
        out[f"chapter:{topic['key']}"] = str(n)
        out.update({f"claim:{c}": f"{n}.{k}" for k, c in enumerate(topic["claims"], start=1)})
    for n, topic in enumerate(chosen, start=1):
        out[f"chapter:{topic['key']}"] = str(n)
        present = [c for c in topic["claims"] if c in claims]
        out.update({f"claim:{c}": f"{n}.{k}" for k, c in enumerate(present, start=1)})
    return out


def resolve(node, refs: dict[str, str]):
    """``node`` (the words) with each reference {{chapter:key}} or {{claim:id}} replaced by its
    number: the text never hard-codes a number that the chapters' order decides."""
    if isinstance(node, str):
        def one(m: re.Match) -> str:
            key = f"{m.group(1)}:{m.group(2)}"
            if key not in refs:
                raise StudentError(f"student words: reference {m.group(0)} expected a chapter "
                                   f"key or a shown claim id, got {m.group(2)!r}")
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


def build_view(data: dict, figures: list[dict], lang: str = "en",
               meta: dict | None = None) -> dict:
    """The student edition ``lang`` of ``data``."""
    model.validate(data)
    t = i18n.ui(lang)
    s = t["student"]
    full = edition.FILES[lang]
    claims = {c["id"]: c for c in data["claims"]}
    records = {r["id"]: r for r in data["errata"]["records"]}
    pictures = {f["name"]: f for f in figures}
    # a chapter shows the derivations the data holds (a report of other claims holds none)
    chosen = [tp for tp in topics_data() if any(c in claims for c in tp["claims"])]
    w = resolve(words(), numbers(chosen, claims))
    boxes_after: dict[str, list[dict]] = {}
    for box in w.get("box", []):
        boxes_after.setdefault(box["after"], []).append(box)
    sections = edition.section_numbers(data["claims"])
    topics, answers, figure_no = [], [], 0
    for n, topic in enumerate(chosen, start=1):
        key, anchor = topic["key"], f"t{n}"
        ch = w["chapter"][key]
        items, box_no = [], 0
        present = [c for c in topic["claims"] if c in claims]
        shown_boxes = {b["id"] for c in present for b in boxes_after.get(c, [])
                       if all(r in records for r in b["records"])}
        # a figure follows the derivation or box it illustrates, else the chapter's last
        # derivation shown (data without the audit has no boxes)
        figures_after: dict[str, list[str]] = {}
        for f in topic.get("figure", []):
            where = f["after"] if f["after"] in present or f["after"] in shown_boxes \
                else present[-1]
            if f["name"] in pictures:
                figures_after.setdefault(where, []).append(f["name"])

        for k, cid in enumerate(present, start=1):
            items.append({"type": "claim", "anchor": f"{anchor}-{k}",
                          **_claim(claims[cid], lang, t, full, f"{n}.{k}",
                                   sections[cid], w)})
            for name in figures_after.get(cid, []):
                figure_no += 1
                items.append(_figure(name, figure_no, anchor, lang, t, data))
            # a group of boxes stands after the claim's other boxes, under its heading
            ordered = sorted(boxes_after.get(cid, []), key=lambda b: "group" in b)
            group = None
            for box in ordered:
                if box["id"] not in shown_boxes:
                    continue
                if box.get("group") and box["group"] != group:
                    group = box["group"]
                    items.append({"type": "heading", "anchor": f"{anchor}-{group}",
                                  "title": prose(w["group"][group]["title"][lang],
                                                 f"group {group}")})
                history = box.get("kind") == "history"  # a story, not a numbered misconception
                box_no += not history
                number = "" if history else f"{n}.{box_no}"
                items.append({"type": "box", "anchor": f"{anchor}-{box['id']}",
                              **_box(box, number, records, lang, t)})
                for name in figures_after.get(box["id"], []):
                    figure_no += 1
                    items.append(_figure(name, figure_no, anchor, lang, t, data))
        exercises = []
        for j, ex in enumerate(ch.get("exercise", []), start=1):
            number = f"{n}.{j}"
            exercises.append({"number": number, "anchor": f"x{n}-{j}",
                              "question": prose(ex["question"][lang], f"exercise {number}")})
            answers.append({"number": number, "anchor": f"a{n}-{j}",
                            "answer": prose(ex["answer"][lang], f"answer {number}")})
        topics.append({
            "key": key, "anchor": anchor, "number": n,
            "number_label": s["section_number"].format(n=n),
            "name": prose(s[f"topic_{key}"], f"student topic {key}"),
            "d2l": prose(ch["d2l"][lang], f"chapter {key} d2l"),
            "intro": prose(ch["intro"][lang], f"chapter {key} intro"),
            "notation": prose(ch["notation"][lang], f"chapter {key} notation")
            if "notation" in ch else None,
            "parts": items,
            "summary": [prose(x[lang], f"chapter {key} summary") for x in ch["summary"]],
            "exercises": exercises,
        })
    problems = order_problems(reading_order(topics), structure().get("uses", {}),
                              structure().get("facts", {}))
    if problems:
        raise StudentError("student.toml: a chapter uses what a later one proves: "
                           + "; ".join(problems) + ". Reorder [[topic]] or the claims.")
    meta = meta or {}
    return {
        "lang": lang, "t": t, "s": s, "title": s["title"],
        "file": FILES[lang], "other_file": FILES["zh" if lang == "en" else "en"],
        "full_file": full, "full_pdf": PDFS[lang],
        "date": meta.get("date", ""), "version": meta.get("version", ""),
        "topics": topics, "answers": answers,
        "notation_map": [prose(x[lang], f"notation_map line {i + 1}")
                         for i, x in enumerate(w["notation_map"])],
        "subtitle": s["subtitle"].format(chapters=d2l_chapters(
            [w["chapter"][tp["key"]]["d2l"]["en"] for tp in chosen], t)),
        # where the evidence stands: the full report beside this edition, as a PDF and a page
        "evidence": _evidence(s["evidence"], {"pdf": PDFS[lang], "page": full}),
    }


def _evidence(sentence: str, files: dict[str, str]) -> list[dict]:
    """``sentence`` cut at its placeholders {pdf} and {page}: text pieces, and the file names,
    each with the relative link a template makes of it."""
    out = []
    for k, piece in enumerate(re.split(r"\{(pdf|page)\}", sentence)):
        if k % 2:
            out.append({"text": files[piece], "file": files[piece]})
        elif piece:
            out.append({"text": piece, "file": None})
    if [p["file"] for p in out if p["file"]] != list(files.values()):
        raise StudentError(f"ui [student] evidence: expected the placeholders {{pdf}} then "
                           f"{{page}} once each, got {sentence!r:.80}")
    return out


def d2l_chapters(sections: list[str], t: dict) -> str:
    """The chapters of d2l that the sections ``sections`` ("8.2 Text preprocessing; 10.7 …")
    belong to, in order: "3, 4, 8, 10 and 11"."""
    found = sorted({int(m.group(1)) for x in sections for m in re.finditer(r"\b(\d+)\.\d+", x)})
    if not found:
        raise StudentError(f"d2l sections: expected numbers such as 10.3, got {sections!r:.80}")
    names = [str(n) for n in found]
    head = t["meta"]["list_sep"].join(names[:-1])
    return head + t["student"]["chapters_last_sep"] + names[-1] if head else names[-1]


def visible_text(view: dict) -> list[str]:
    """Every string of the view a reader sees (formulas and link targets excluded)."""
    out: list[str] = []

    def walk(node: object, key: str = "") -> None:
        if isinstance(node, Prose):
            out.extend(p if isinstance(p, str) else p.text for p in node.parts
                       if not isinstance(p, Tex))
        elif isinstance(node, str):
            if key not in ("href", "anchor", "key", "file", "other_file", "full_file",
                           "full_pdf", "lang", "name", "status", "verdict", "date", "version",
                           "type", "kind", "id"):
                out.append(node)
        elif isinstance(node, dict):
            for k, v in node.items():
                if k not in ("t", "s"):
                    walk(v, k)
        elif isinstance(node, list | tuple):
            for v in node:
                walk(v, key)

    walk(view)
    return out


_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta kappa lambda mu nu xi "
          "pi rho sigma tau phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi "
          "Omega ell").split()
_NAMED = re.compile(r"\\mathcal\s*\{?([A-Z])\}?"
                    r"|(?<![A-Za-z\\])([A-Za-z])_\{?\\(?:text|mathrm)\{(\w+)\}\}?")
_WORDS = re.compile(r"\\(?:text|operatorname|mathrm|mathbb|begin|end)\{[^{}]*\}|\\mathbb ?[A-Z]"
                    r"|(?<![A-Za-z\\])e\^")  # e^x is the exponential, not the unit vector e_i
_COMMAND = re.compile(r"\\([A-Za-z]+)")


def letters(tex: str) -> set[str]:
    """The letters a formula names quantities with: each Latin or Greek letter (\\mu is μ),
    a calligraphic letter (\\mathcal{V}), and a letter with a word as its subscript
    (W_{\\text{out}}, k_{\\mathrm{B}}) as one symbol; words (\\text, \\operatorname), other
    commands (\\sum, \\log), the exponential's e and digits are not letters."""
    out = {f"\\mathcal{{{m[1]}}}" if m[1] else f"{m[2]}_{m[3]}" for m in _NAMED.finditer(tex)}
    rest = _WORDS.sub(" ", _NAMED.sub(" ", tex))
    out |= {f"\\{m[1]}" for m in _COMMAND.finditer(rest) if m[1] in _GREEK}
    return out | set(re.findall(r"[A-Za-z]", _COMMAND.sub(" ", rest)))


def misused_letters(view: dict, legend: dict | None = None) -> list[tuple[str, str, str]]:
    """(chapter, letter, formula) for each capital letter of a chapter's formulas that the
    legend (render/student.toml [legend]) does not name, and each letter it names that stands
    outside the chapters the legend gives it: one letter, one quantity across the edition."""
    legend = structure()["legend"] if legend is None else legend
    out = []
    for topic in view["topics"]:
        for f in formulas(topic):
            for letter in sorted(letters(f.tex)):
                entry = legend.get(letter)
                if entry is None and not (letter[0].isupper() or letter.startswith("\\mathcal")):
                    continue
                if entry is None or topic["key"] not in entry["chapters"]:
                    out.append((topic["key"], letter, f.tex))
    return out


def formulas(view: dict) -> list[Tex]:
    """Every formula the edition shows, prose included."""
    return edition.formulas({k: v for k, v in view.items() if k not in ("t", "s")})
