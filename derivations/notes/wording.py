"""What the words before a formula say of it: a value the note *supposes* ("设 η_3 = 0.2",
"if p_c = 0.25") or one it *concludes* ("所以 η_3 = 0.2", "hence x_4 = 4") — or neither.

A stated value that the note's definitions contradict is blamed only when it is concluded; a
supposed one is what an example assumes, and one the words say nothing of is not guessed at
(READING.md, "Stated values: supposed or concluded").  The words read are those between the
formula before it (or the heading above it) and this one, within its sentence; of those, the
last clause (cut at a comma, a colon or a semicolon) that has words, and in it the marker
nearest the formula.  With no words at all between them (``$a = 1$，$b = 2$``), a formula
continues a conclusion: after "所以 a = 1", b is concluded too; after "设 a = 1" it is left
unsaid, since "若 p = 0.9，L = …" writes the consequence of a supposition just so.
"""

from __future__ import annotations

import re

SUPPOSED, CONCLUDED = "supposed", "concluded"

# longest first where one holds another; "使得"/"such that" state a condition
_SUPPOSING = ("假设", "假定", "假如", "倘若", "如果", "要是", "即使", "使得", "不妨", "设", "若",
              "令", "取", "当")
_CONCLUDING = ("所以", "因此", "因而", "于是", "从而", "可得", "可知", "可见", "得到", "得出",
               "求得", "算得", "解得", "故", "即", "则", "那么")
_SUPPOSING_EN = ("if", "suppose", "supposing", "assume", "assuming", "let", "say", "take",
                 "when", "given", "such that", "so that", "whenever")
_CONCLUDING_EN = ("so", "hence", "thus", "therefore", "then", "we get", "which gives",
                  "this gives", "gives", "giving", "i.e.", "that is", "we obtain", "obtain")
# words that hold a marker's characters and mean neither (取值: "takes the value")
_NEUTRAL = ("取值", "设置", "设定", "则为", "当前", "即将", "立即")

_SENTENCE_END = re.compile(r"[。！？!?]|\.(?=\s|$)")
_CLAUSE = re.compile(r"[，,；;：:、]")
_DELIMITERS = re.compile(r"^\s*(?:\$\$?|\\\)|\\\]|\\end\{[^}]*\})|(?:\$\$?|\\\(|\\\[)\s*$")
_ABBREVIATIONS = re.compile(r"\b(i\.e\.|e\.g\.)", re.IGNORECASE)


def _clauses(words: str) -> list[str]:
    words = _DELIMITERS.sub("", _DELIMITERS.sub("", words))
    words = _ABBREVIATIONS.sub(lambda m: m.group(1).replace(".", "\u2024"), words)
    sentence = _SENTENCE_END.split(words)[-1]
    return [c.strip() for c in _CLAUSE.split(sentence)]


def _marker(clause: str) -> str | None:
    """The stance of the marker nearest the end of ``clause``, None when it has none."""
    text = clause.replace("\u2024", ".").lower()
    for word in _NEUTRAL:
        text = text.replace(word, "\0" * len(word))
    found: list[tuple[int, str, int]] = []
    for words, stance in ((_SUPPOSING, SUPPOSED), (_CONCLUDING, CONCLUDED)):
        for w in words:
            found += [(m.end(), stance, len(w)) for m in re.finditer(re.escape(w), text)]
    for words, stance in ((_SUPPOSING_EN, SUPPOSED), (_CONCLUDING_EN, CONCLUDED)):
        for w in words:
            found += [(m.end(), stance, len(w)) for m in re.finditer(
                r"(?<![a-z])" + re.escape(w) + r"(?![a-z])", text)]
    if not found:
        return None
    # the marker nearest the formula; of two ending at one place, the longer ("so that")
    return max(found, key=lambda f: (f[0], f[2]))[1]


# words that only join two formulas: "所以 a = 1 且 b = 2" concludes b as it does a
_JOINING = {"和", "与", "且", "并且", "以及", "及", "and", "as well as", "also"}


def stance(before: str, previous: str | None = None) -> str | None:
    """SUPPOSED, CONCLUDED or None for a formula whose preceding words are ``before``;
    ``previous``: the stance of the formula before it, which a formula with no words between
    them continues when it was a conclusion."""
    said = [c for c in _clauses(before) if c]
    if said and said[-1].lower() in _JOINING and len(said) == 1:
        said = []
    if said:
        return _marker(said[-1])
    # only punctuation between the two, in one sentence and one paragraph: a conclusion goes on
    apart = _SENTENCE_END.search(_DELIMITERS.sub("", before)) or re.search(r"\n\s*\n", before)
    return CONCLUDED if previous == CONCLUDED and not apart else None
