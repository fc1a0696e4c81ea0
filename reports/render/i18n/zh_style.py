"""Chinese text against the glossary (``glossary.toml``, one term a table, its source noted).

For each Chinese string it finds
  halfwidth_punct        half-width , : ; ( ) ? ! . next to a Han character or full-width mark
  halfwidth_in_sentence  half-width "; " or ", " inside a Chinese sentence (number lists exempt)
  avoid_variant          a variant the glossary lists under ``avoid`` / ``avoid_regex``
  english_word           a Latin-script word not in the glossary's ``allow_english`` list
  code_identifier        a code identifier shown as text (snake_case, dotted paths)
  english_in_formula     English words inside \\text{…} of a formula shown in Chinese
  space_fullwidth        a space next to full-width punctuation
  repeated_word          a word of two or more Han characters written twice in a row (核验核验)

Never checked: inline math $…$ and \\(…\\), code `…`, format placeholders {n} / <p> / <tensor>,
the student edition's references {{chapter:key}}, and, for english_word only, text in quotation
marks “…” 「…」 《…》. An avoided word is accepted as a first-mention gloss right after the
preferred term: 层规范化（LayerNorm）, 超时（timed out）.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
GLOSSARY = HERE / "glossary.toml"
ROOT = HERE.parent.parent.parent  # the project (reports/render/i18n/..)
MASK = "\ue000"  # stands for masked text (math, code, placeholders): neither CJK nor Latin

KINDS = ("halfwidth_punct", "halfwidth_in_sentence", "avoid_variant", "english_word",
         "code_identifier", "english_in_formula", "space_fullwidth", "repeated_word")


@dataclass
class Finding:
    kind: str
    match: str
    pos: int
    context: str
    hint: str = ""
    where: str = ""


# ─────────────────────────────── character classes ───────────────────────────────

def is_han(ch: str) -> bool:
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x20000 <= o <= 0x2A6DF
            or 0xF900 <= o <= 0xFAFF)


def is_cjk_punct(ch: str) -> bool:
    o = ord(ch)
    return 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFF60 or ch in "“”‘’…—·"


def is_cjk(ch: str) -> bool:
    return is_han(ch) or (is_cjk_punct(ch) and ch not in "·")


def has_han(text: str) -> bool:
    return any(is_han(c) for c in text)


# ─────────────────────────────── masking ───────────────────────────────

MATH_RE = re.compile(r"(?<!\\)\$(?:\\.|[^$\\])+\$|\\\((?:.|\n)*?\\\)")
CODE_RE = re.compile(r"`[^`]*`")
PLACEHOLDER_RE = re.compile(r"\{\{[a-z]+:[A-Za-z_0-9]+\}\}|\{[A-Za-z_0-9]*\}|<[a-z][a-z_]*>")
NUMBER_RE = re.compile(r"(?<![A-Za-z_0-9.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
QUOTE_RE = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|‘[^’]*’|《[^》]*》|\"[^\"]*\"")
TEXT_CMD_RE = re.compile(r"\\(?:text|textrm|textit|textbf|mbox)\s*\{([^{}]*)\}")


def _blank(text: str, spans) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            chars[i] = MASK
    return "".join(chars)


def masked(text: str, quotes: bool = False) -> str:
    """``text`` with math, code and placeholders (and, with ``quotes``, quoted text) replaced by
    MASK characters of the same length, so positions still match the original."""
    spans = [m.span() for r in (MATH_RE, CODE_RE, PLACEHOLDER_RE) for m in r.finditer(text)]
    out = _blank(text, spans)
    if quotes:
        out = _blank(out, [(m.start() + 1, m.end() - 1) for m in QUOTE_RE.finditer(out)])
    return out


def math_segments(text: str) -> list[str]:
    return [m.group(0) for m in MATH_RE.finditer(text)]


# ─────────────────────────────── glossary ───────────────────────────────

class Glossary:
    def __init__(self, path: Path = GLOSSARY):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        self.terms = data["term"]
        self.allow = {a["word"] for a in data.get("allow_english", [])}
        # notation that may stay English inside \text{} / \mathrm{} of formulas
        self.notation = {"model", "ff", "out", "head", "FD", "LN", "tok", "in", "attn", "CE",
                         "Attention", "softmax", "Concat", "diag", "tr", "Var", "sign", "sd",
                         "LSE", "GELU", "MLP", "BIS", "min", "max", "argmax", "exp", "log",
                         "d", "i", "e", "sgn", "Cov", "Adam", "AdamW", "GPT", "BERT", "ViT",
                         "RNN", "Transformer", "LayerNorm", "RoPE", "SGD", "L2", "PE", "erf",
                         "T", "mod", "Attn"}
        self.avoid: list[tuple[re.Pattern, str, str, list[str]]] = []
        for slug, t in self.terms.items():
            preferred = [z.strip() for z in re.split(r"[；;]", t["zh"]) if z.strip()]
            for v in t.get("avoid", []):
                if re.fullmatch(r"[A-Za-z][A-Za-z0-9 _.\-]*", v):
                    pat = re.compile(rf"(?<![A-Za-z0-9_\-]){re.escape(v)}(?![A-Za-z0-9_])")
                else:
                    pat = re.compile(re.escape(v))
                self.avoid.append((pat, slug, t["zh"], preferred))
            for rx in t.get("avoid_regex", []):
                self.avoid.append((re.compile(rx), slug, t["zh"], preferred))


# ─────────────────────────────── the checks ───────────────────────────────

HALF = ",:;()?!."
SPACE_FULLWIDTH = re.compile(
    r" [，。；：、）」』”！？]|[（「『“，。；：、）」』”] |(?<=[^\s\ue000]) [“「『（]")


def _ctx(text: str, a: int, b: int, width: int = 12) -> str:
    return text[max(0, a - width):b + width].replace("\n", " ")


def _neighbour(m: str, i: int, step: int) -> str:
    """The character next to position i in direction step, skipping one space."""
    j = i + step
    if 0 <= j < len(m) and m[j] == " ":
        j += step
    return m[j] if 0 <= j < len(m) else ""


def check_punct(text: str) -> list[Finding]:
    m = masked(text)
    out = []
    chinese = has_han(m)
    for i, ch in enumerate(m):
        if ch not in HALF:
            continue
        left, right = _neighbour(m, i, -1), _neighbour(m, i, +1)
        full = {",": "，", ":": "：", ";": "；", "(": "（", ")": "）", "?": "？", "!": "！",
                ".": "。"}[ch]
        if ch == "." and (left.isdigit() and right.isdigit()
                          or re.fullmatch(r"[A-Za-z]", left or "_")
                          and re.fullmatch(r"[A-Za-z]", right or "_")):
            continue  # 0.5, e.g.
        if (left and is_cjk(left)) or (right and is_cjk(right)):
            out.append(Finding("halfwidth_punct", ch, i, _ctx(text, i, i + 1),
                               f"use {full}"))
        elif chinese and ch in ",;" and i + 1 < len(m) and m[i + 1] == " ":
            after = m[i + 2:i + 4]
            number_right = right.isdigit() or (right in "+-" and after[1:2].isdigit())
            if not (left.isdigit() and number_right):
                out.append(Finding("halfwidth_in_sentence", ch, i, _ctx(text, i, i + 1),
                                   f"Chinese sentence: use {full} (or 、 in a list)"))
    for mm in SPACE_FULLWIDTH.finditer(m):
        out.append(Finding("space_fullwidth", mm.group(0), mm.start(),
                           _ctx(text, mm.start(), mm.end()),
                           "no space next to full-width punctuation"))
    return out


def check_avoid(text: str, g: Glossary, glossed: list | None = None) -> list[Finding]:
    """Avoided variants; spans accepted as first-mention glosses are added to ``glossed``."""
    m = masked(text)
    out = []
    for pat, slug, zh, preferred in g.avoid:
        for mm in pat.finditer(m):
            a = mm.start()
            # first-mention gloss: 层规范化（LayerNorm）
            if a > 0 and m[a - 1] == "（" and any(m[:a - 1].endswith(p) for p in preferred):
                if glossed is not None:
                    glossed.append((a, mm.end()))
                continue
            # the avoided word is part of the preferred term at this place
            if any(p in m[max(0, a - len(p)):a + len(p) + len(mm.group(0))] and mm.group(0) in p
                   for p in preferred):
                continue
            out.append(Finding("avoid_variant", mm.group(0), a, _ctx(text, a, mm.end()),
                               f"{slug}: write {zh}"))
    return out


WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*")
GLOSS_RE = re.compile(r"（([A-Za-z][A-Za-z -]*)）")


def check_english(text: str, g: Glossary, avoided: list[Finding],
                  glossed: list | None = None) -> list[Finding]:
    m = masked(text, quotes=True)
    m = NUMBER_RE.sub(lambda x: MASK * len(x.group(0)), m)
    taken = {(f.pos, f.pos + len(f.match)) for f in avoided} | set(glossed or [])
    glosses = [g.span(1) for g in GLOSS_RE.finditer(m)
               if g.start() > 0 and is_han(m[g.start() - 1])]
    out = []
    for mm in WORD_RE.finditer(m):
        w = mm.group(0).rstrip(".")
        a, b = mm.start(), mm.start() + len(w)
        if len(w) < 2 or w in g.allow:
            continue
        # a first mention glossed in full-width parentheses right after its Chinese term:
        # 查询（Query）, 超时（timed out）
        if any(x <= a < y for x, y in glosses):
            continue
        if any(x <= a < y for x, y in taken):
            continue
        if "_" in w or re.search(r"[a-z0-9]\.[a-z]", w):
            out.append(Finding("code_identifier", w, a, _ctx(text, a, b),
                               "describe it in words; keep identifiers for code font or a tooltip"))
        else:
            out.append(Finding("english_word", w, a, _ctx(text, a, b),
                               "translate, or add to allow_english with a reason"))
    return out


def check_formula_text(text: str, g: Glossary, whole_is_math: bool = False) -> list[Finding]:
    segments = [text] if whole_is_math else math_segments(text)
    out = []
    for seg in segments:
        for mm in TEXT_CMD_RE.finditer(seg):
            inner = mm.group(1)
            words = [w for w in re.findall(r"[A-Za-z]{2,}", inner)
                     if w not in g.notation and w not in g.allow]
            if words:
                out.append(Finding("english_in_formula", inner, text.find(inner), inner[:60],
                                   "the Chinese edition needs a Chinese \\text{} (a *_zh twin)"))
    return out


# two to four Han characters twice (a reduplicated single character, 常常, is a word)
REPEAT_RE = re.compile(r"([\u4e00-\u9fff]{2,4})\1")


def check_repeat(text: str) -> list[Finding]:
    """A word written twice in a row, left by an edit: 仅数值核验核验."""
    m = masked(text)
    return [Finding("repeated_word", mm.group(0), mm.start(), _ctx(text, mm.start(), mm.end()),
                    f"write {mm.group(1)} once")
            for mm in REPEAT_RE.finditer(m)]


def check(text: str, g: Glossary, *, latex: bool = False) -> list[Finding]:
    """All findings for one Chinese string; ``latex``: the whole string is a formula."""
    if latex:
        return check_formula_text(text, g, whole_is_math=True)
    glossed: list = []
    avoided = check_avoid(text, g, glossed)
    return (check_punct(text) + avoided + check_english(text, g, avoided, glossed)
            + check_formula_text(text, g) + check_repeat(text))


LATEX_KEYS = re.compile(r"(^|\.)(latex|where|display)(\.|$)")
SKIP_KEYS = {"reports/render/i18n/ui.toml": {"meta.lang"},
             "reports/render/i18n/notes.toml": {"meta.lang"}}  # language codes
# the notes' own titles are quoted verbatim (like the registry's `quote`), never corrected
SKIP_PREFIX = {"reports/render/i18n/ui.toml": ("notes.",)}


def _walk(file: str, node, path: list[str], out: list[dict]) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("zh"), str):
            out.append({"file": file, "key": ".".join(path), "zh": node["zh"]})
        for k, v in node.items():
            if k not in ("zh", "en"):
                _walk(file, v, path + [k], out)
    elif isinstance(node, list):  # an array of tables ([[evidence]])
        for k, v in enumerate(node):
            _walk(file, v, path + [str(k)], out)


def project_strings(root: Path, nonclaims: bool = True) -> list[dict]:
    """Every Chinese string of the i18n TOML files, the registry's zh fields and (optionally)
    the nonclaims kinds, as {file, key, zh, group, latex}."""
    out: list[dict] = []
    # the notes reader's reasons, shown on the Chinese annotated page, are Chinese text too
    for p in [*sorted((root / "reports/render/i18n").glob("*.toml")),
              root / "derivations/notes/reasons.toml"]:
        if p.name == GLOSSARY.name:  # the glossary lists the variants it forbids
            continue
        rel = str(p.relative_to(root))
        rows: list[dict] = []
        _walk(rel, tomllib.loads(p.read_text(encoding="utf-8")), [], rows)
        for r in rows:
            if (r["key"] in SKIP_KEYS.get(rel, set())
                    or r["key"].startswith(SKIP_PREFIX.get(rel, ("\0",)))):
                continue
            r["group"] = "i18n"
            r["latex"] = bool(LATEX_KEYS.search(r["key"]))
            out.append(r)
    reg_path = root / "reports/audit/errata/registry.toml"
    reg = tomllib.loads(reg_path.read_text(encoding="utf-8"))
    rel = str(reg_path.relative_to(root))
    for rec in reg.get("record", []):
        for k in ("reason_zh", "correction_text_zh", "missing_condition_zh", "reading_zh"):
            if rec.get(k):
                out.append({"file": rel, "key": f"{rec['id']}.{k}", "zh": rec[k],
                            "group": "registry", "latex": False})
        # a formula is shown as its Chinese twin where it has one, else unchanged: (d) applies
        # to it, and the twin's words inside \text{} are Chinese text like any other
        for k in ("claim_latex", "correction_latex", "source_latex"):
            shown = rec.get(f"{k}_zh") or rec.get(k)
            if shown:
                out.append({"file": rel, "key": f"{rec['id']}.{k}", "zh": shown,
                            "group": "registry-formula", "latex": True})
            for n, words in enumerate(TEXT_CMD_RE.findall(rec.get(f"{k}_zh") or "")):
                out.append({"file": rel, "key": f"{rec['id']}.{k}_zh.text[{n}]", "zh": words,
                            "group": "registry-formula-words", "latex": False})
    if nonclaims:
        nc_path = root / "reports/audit/errata/nonclaims.toml"
        if nc_path.exists():
            nc = tomllib.loads(nc_path.read_text(encoding="utf-8"))
            for k, v in nc.get("kinds", {}).items():
                out.append({"file": str(nc_path.relative_to(root)), "key": f"kinds.{k}",
                            "zh": v["zh"], "group": "nonclaims", "latex": False})
    return out


