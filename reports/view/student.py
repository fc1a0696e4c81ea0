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

from reports.render import i18n
from reports.render.katex import Prose, Tex
from reports.render.katex import prose as inline_prose
from reports.render.latex import tex_text
from reports.view import edition, model
from reports.view.figures import caption as figure_caption
from reports.view.student_data import (
    FILES,
    PDFS,
    StudentError,
    numbers,
    order_problems,
    reading_order,
    resolve,
    structure,
    topics_data,
    words,
)
from reports.view.student_tex import (
    _list_items,
    displayed_matrices,
    lecturer_tex,
    rename_math,
    shown,
    step_lines,
    trailing_words,
    unstack,
    with_left_side,
)


def prose(text: str, label: str = "") -> Prose:
    """``text`` as prose, a matrix in it set as a display (:func:`displayed_matrices`)."""
    return displayed_matrices(inline_prose(text, label))


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
    # a single step that only writes the result again is no step: the edition says 「由定义即得」
    # when it reads a definition, else 「直接可得」, and gives its reason
    restated = len(steps) == 1 and [x["tex"].tex for x in steps[0]["lines"]] == [
        tx(Tex(x, True, "")).tex for x in lines]
    defined = {d["name"] for d in claim.get("definitions", ())}
    direct = t["student"]["by_definition" if set(claim["steps"][0].get("by") or ()) & defined
                          else "in_one_step"]
    # the hypotheses a result rests on belong to its statement: 「若 …，则」
    hypotheses = [tx(Tex(a["tex"].tex, False, a["tex"].label)) for a in c["assumptions"]
                  if a["kind"] == "hypothesis"]
    title = w.get("title", {}).get(cid)
    lead = w.get("lead", {}).get(cid)
    # a definition's words as this edition says them, in its letters already (L̃ is the loss's
    # linear stand-in, not the loss the full report's words call it)
    said = w.get("definition", {}).get(cid, {})
    if set(said) - {d["name"] for d in c["definitions"]}:
        raise StudentError(f"definition {cid}: expected the names of its definitions "
                           f"{sorted(d['name'] for d in c['definitions'])}, got {sorted(said)}")
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
            # (its words after the formula wrap as words: 「… are mutually independent」)
            "hypothesis_pieces": [[_premise(x, h.label) for x in _list_items(h.tex)]
                                  for h in hypotheses],
            "statement": [shown(tx(Tex(x, True, c["statement"].label))) for x in lines],
            "definitions": [{**d, "tex": tx(d["tex"]),
                             "text": prose(said[d["name"]][lang], f"student definition {cid}")
                             if d["name"] in said else px(d["text"]),
                             "symbol": tx(d["symbol"]) if d.get("symbol") else None,
                             # on the page in display style, its fractions full size, as
                             # in the PDF (math(True))
                             "shown": Tex("\\displaystyle " + tx(d["tex"]).tex, False,
                                          d["tex"].label)}
                            for d in c["definitions"]],
            "steps": [] if restated else steps,
            "by_definition": {"label": direct, "rule": steps[0]["rule"]} if restated else None,
            "href": f"{full}#{c['anchor']}",
            # the mark links to the evidence in the full report's PDF, handed out beside this
            # one (a relative link); its text names no section a student would look up
            "section": section,
            "pdf_dest": f"subsection.{section}"}


def _premise(tex: str, label: str) -> dict:
    """One fact of a premise: its formula, and the words it ends with as words, split at their
    last word, which goes with the punctuation after it (「independent, then」)."""
    formula, words = trailing_words(tex)
    head, _, last = words.rpartition(" ")
    return {"tex": Tex(formula, False, label), "words": head, "last_word": last}


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
            # what a term of the box means, where d2l has not defined it
            "footnote": prose(box["footnote"][lang], label) if "footnote" in box else None,
            "lines": [prose(x[lang], label) for x in box.get("lines", [])]}


# ----------------------------------------------------------------------------- the edition
def figure_symbols() -> dict[str, dict[str, str]]:
    """{figure: symbols}: the figures this edition shows in its own letters (student.toml
    ``figure`` ``symbols``), drawn once more for it (reports/render/plots.py ``variants``)."""
    return {f["name"]: f["symbols"] for tp in topics_data() for f in tp.get("figure", [])
            if f.get("symbols")}


def _figure(name: str, number: int, anchor: str, lang: str, t: dict, data: dict,
            refs: dict[str, str]) -> dict:
    """Figure ``number`` of the edition, ``name``, in chapter ``anchor``: in the edition's
    letters where it names its own (its drawing is then the "student" variant). The words
    cite it by the number ``refs`` gave it ({{figure:name}}), which must be this one."""
    if refs.get(f"figure:{name}") != str(number):
        raise StudentError(f"student.toml: figure {name!r} stands as figure {number}, but the "
                           f"words cite it as {refs.get(f'figure:{name}')}: list a chapter's "
                           f"figures in the order they stand")
    symbols = figure_symbols().get(name)
    words = (lambda x: rename_math(x, symbols)) if symbols else (lambda x: x)
    variant = "student" if symbols else ""
    title = prose(words(t["figure"][f"{name}_title"]), f"figure {name}")
    return {"type": "figure", "anchor": f"{anchor}-fig-{name}", "number": number, "name": name,
            "file": model.figure_stem(name, lang, variant),
            # the drawing for a phone, its panels stacked (reports/render/plots.py)
            "narrow_file": model.figure_stem(name, lang, variant, narrow=True),
            "wide": model.FIGURE_PANELS.get(name, 1) > 1,
            "label": t["student"]["figure_label"].format(n=number),
            # read aloud or shown for a missing image: its formulas as text (ε, d_k), no TeX
            "alt": "".join(x if isinstance(x, str) else tex_text(x.tex) for x in title.parts),
            "title": title,
            "caption": prose(words(figure_caption(name, t["figure"][f"{name}_caption"], t,
                                                  data.get("plot_data") or {})),
                             f"figure {name} caption")}


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
    refs = numbers(chosen, claims, set(pictures))
    w = resolve(words(), refs)
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
                items.append(_figure(name, figure_no, anchor, lang, t, data, refs))
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
                    items.append(_figure(name, figure_no, anchor, lang, t, data, refs))
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
    shown_ids = [c for tp in chosen for c in tp["claims"] if c in claims]
    return {
        "lang": lang, "t": t, "s": s, "title": s["title"],
        "file": FILES[lang], "other_file": FILES["zh" if lang == "en" else "en"],
        "full_file": full, "full_pdf": PDFS[lang],
        "date": meta.get("date", ""), "version": meta.get("version", ""),
        "topics": topics, "answers": answers,
        "notation_map": [prose(x[lang], f"notation_map line {i + 1}")
                         for i, x in enumerate(w["notation_map"])],
        "how_check": how_check(s, shown_ids, data.get("crosschecks") or []),
        "subtitle": s["subtitle"].format(chapters=d2l_chapters(
            [w["chapter"][tp["key"]]["d2l"]["en"] for tp in chosen], t)),
        # where the evidence stands: the full report beside this edition, as a PDF and a page
        "evidence": _evidence(s["evidence"], {"pdf": PDFS[lang], "page": full}),
    }


def how_check(s: dict, shown: list[str], crosschecks: list[dict]) -> str:
    """What ✓ means, with how many of the ``shown`` derivations were compared with the working
    model (a cross-check of any kind but Monte Carlo, which samples the distribution instead),
    counted from the data rather than said of all."""
    kinds: dict[str, set[str]] = {}
    for rec in crosschecks:
        kinds.setdefault(rec["claim"], set()).add(rec["kind"])
    model = sum(bool(kinds.get(c, set()) - {"monte-carlo"}) for c in shown)
    sampled = sum(kinds.get(c) == {"monte-carlo"} for c in shown)
    compared = ""
    if model:
        compared = s["how_compared"].format(model=model, total=len(shown))
        if sampled:
            compared += s["how_sampled"].format(sampled=sampled)
    return s["how_check"].format(compared=compared)


# the build writes the PDFs into pdf/ and the pages into html/ (reports/pipeline/build.py): a
# file of the other folder is reached through the parent
BUILD_DIRS = {"pdf": "pdf", "page": "html"}


def _evidence(sentence: str, files: dict[str, str]) -> list[dict]:
    """``sentence`` cut at its placeholders {pdf} and {page}: text pieces, and the files, each
    named by its folder in the build (pdf/report.zh.pdf) with the relative link from the PDF
    edition (``pdf_href``) and from the page (``html_href``), so that both links open."""
    out = []
    for k, piece in enumerate(re.split(r"\{(pdf|page)\}", sentence)):
        if k % 2:
            name, folder = files[piece], BUILD_DIRS[piece]
            out.append({"text": f"{folder}/{name}", "file": name,
                        "pdf_href": name if folder == "pdf" else f"../{folder}/{name}",
                        "html_href": name if folder == "html" else f"../{folder}/{name}"})
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

