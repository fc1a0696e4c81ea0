"""The audit's evidence: small computations, each returning a typed result.

An evidence function computes *facts* — the same whichever version it is asked about — and
judges one *version* of the claim against them:

    note        what the lecture note states
    correction  the corrected statement of an erratum
    source      the formula of the note's source, which the note itself reports as wrong
    foil        a plausible wrong statement that the same computation rejects, so that the
                evidence of a claim judged correct can fail too

A check is a function of one input, the statement's number, formula or reading, and judges
the statement that input makes. The input of the version the note's words state (``note``, or
``source`` for a slip the note reports) is read from the record's quote — a :class:`Said`:
the exact words and what they give — and the other version's input is declared beside it:

    @check(right="correction", wrong="note", said=Said("至少为1", 1), other=0)
    def residual_at_least_one(bound): ...

so the note's version and its alternative run the same code and differ only in their input,
and the note's version fails exactly when what the note wrote is wrong. A :class:`Judged`
carries fields, not prose: its facts and the version's statement are :class:`Fact` values — a
phrase id of ``checks/phrases.toml`` and the values it takes (numbers, formulas, yes/no,
terms). The sentences are rendered from those fields in each language (:func:`render`), so both
languages show the same numbers and formulas by construction.
"""

from __future__ import annotations

import functools
import math
import re
import string
import tomllib
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from numeric import finite_diff
from reports.audit.formula import letters

VERSIONS = ("note", "correction", "source", "foil")
LANGS = ("en", "zh")
PHRASES = Path(__file__).with_name("checks") / "phrases.toml"


class EvidenceError(ValueError):
    """An evidence function or phrase does not have the documented shape."""


# ----------------------------------------------------------------------------- values
@dataclass(frozen=True)
class Math:
    """A formula, shown as inline ``$…$`` in both languages."""
    tex: str


@dataclass(frozen=True)
class Nums:
    """Numbers listed in prose: ``a, b, c`` in English, ``a、b、c`` in Chinese."""
    values: tuple
    spec: str = ".4g"

    def __init__(self, values, spec: str = ".4g"):
        object.__setattr__(self, "values", tuple(float(v) for v in values))
        object.__setattr__(self, "spec", spec)


@dataclass(frozen=True)
class Term:
    """A word or phrase of ``phrases.toml``'s [term] table, translated."""
    key: str


@dataclass(frozen=True)
class Text:
    """Text shown as is in both languages (a quotation of the note, a name)."""
    text: str


Value = int | float | Fraction | bool | Math | Nums | Term | Text


def _plain(value):
    """A value in its stored form: numpy scalars become Python numbers."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (int, float, Fraction, Math, Nums, Term, Text)):
        return value
    raise EvidenceError(f"fact value: expected a number, bool, Math, Nums, Term or Text, got "
                        f"{type(value).__name__} {value!r:.40}")


@dataclass(frozen=True)
class Fact:
    """One sentence of evidence: the phrase ``say`` with its ``values``."""
    say: str
    values: Mapping[str, Value] = field(default_factory=dict)

    def __init__(self, say: str, **values):
        object.__setattr__(self, "say", say)
        object.__setattr__(self, "values", {k: _plain(v) for k, v in values.items()})

    def to_json(self) -> dict:
        return {"say": self.say, "values": {k: _encode(v) for k, v in self.values.items()}}


def _encode(v):
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, Fraction):
        return {"fraction": [v.numerator, v.denominator]}
    if isinstance(v, (int, float)):
        return {"number": v} if math.isfinite(v) else {"number": repr(v)}
    if isinstance(v, Math):
        return {"math": v.tex}
    if isinstance(v, Nums):
        return {"nums": [x if math.isfinite(x) else repr(x) for x in v.values], "spec": v.spec}
    if isinstance(v, Term):
        return {"term": v.key}
    return {"text": v.text}


def _decode(v: dict):
    (kind, data), *rest = v.items()
    if kind == "bool":
        return data
    if kind == "fraction":
        return Fraction(*data)
    if kind == "number":
        return float(data) if isinstance(data, str) else data
    if kind == "math":
        return Math(data)
    if kind == "nums":
        return Nums([float(x) for x in data], v["spec"])
    if kind == "term":
        return Term(data)
    return Text(data)


@dataclass(frozen=True)
class Result:
    """What one version of a claim gives: ``passed``, the computed ``facts`` (independent of the
    version) and the version's ``claim`` judged against them."""
    passed: bool
    version: str
    facts: tuple[Fact, ...]
    claim: Fact

    def __post_init__(self):
        # numpy comparisons yield numpy.bool_, which JSON and the report schema reject
        object.__setattr__(self, "passed", bool(self.passed))
        object.__setattr__(self, "facts", tuple(self.facts))

    def to_json(self) -> dict:
        return {"passed": self.passed, "version": self.version,
                "facts": [f.to_json() for f in self.facts], "claim": self.claim.to_json()}

    @property
    def detail(self) -> str:
        return render_result(self.to_json(), "en")

    @property
    def detail_zh(self) -> str:
        return render_result(self.to_json(), "zh")


@dataclass(frozen=True)
class Said:
    """What the note's words state, as the input a check computes with: ``fragment`` is exact
    text of the record's quote and ``value`` what it gives — its number, its formula (LaTeX,
    evaluated as written by :mod:`reports.audit.formula`) or, for words, the value they are read
    as; ``reads`` (English, Chinese) then says how the words are read. Empty ``reads`` means the
    value is the fragment's own number or formula (a test checks that it is)."""
    fragment: str
    value: object
    reads: tuple[str, str] | None = None

    def __post_init__(self):
        if not isinstance(self.fragment, str) or not self.fragment.strip():
            raise EvidenceError(f"Said: fragment expected exact text of a quote, got "
                                f"{self.fragment!r}")
        if self.reads is not None and not (
                isinstance(self.reads, tuple) and len(self.reads) == 2
                and all(isinstance(r, str) and r.strip() for r in self.reads)):
            raise EvidenceError(f"Said {self.fragment!r}: reads expected (English, Chinese), "
                                f"got {self.reads!r}")


@dataclass(frozen=True)
class Judged:
    """What a check gives for one input: the ``facts`` it computed (independent of the input),
    the ``claim`` the input makes and whether the facts bear it out (``holds``)."""
    facts: tuple
    claim: Fact
    holds: bool


def verdict(facts, claim: Fact, holds) -> Judged:
    return Judged(tuple(facts), claim, bool(holds))


# ----------------------------------------------------------------------------- registry
CHECKS: dict[str, Callable[[str], Result]] = {}


def quoted_version(right: str, wrong: str) -> str:
    """The version a record's quote states: the source's formula for a slip the note reports
    (``wrong == "source"``), else the note's."""
    return "source" if wrong == "source" else "note"


def check(*, right: str, wrong: str, said, other) -> Callable:
    """Register an evidence function under its own name, with the version that holds and the
    one that does not (both from :data:`VERSIONS`), the note's words it reads (``said``: one
    :class:`Said`, or several when records with different quotes share the computation) and the
    other version's input (``other``). It is called as ``fn(version, said=None)``; a name is
    registered once."""
    for v in (right, wrong):
        if v not in VERSIONS:
            raise EvidenceError(f"check: version expected one of {VERSIONS}, got {v!r}")
    if right == wrong:
        raise EvidenceError(f"check: right and wrong versions must differ, got {right!r} twice")
    quoted = quoted_version(right, wrong)
    if quoted not in (right, wrong):
        raise EvidenceError(f"check: one version must be the quote's ({quoted!r}), got "
                            f"{right!r} and {wrong!r}")
    saids = (said,) if isinstance(said, Said) else tuple(said)
    if not saids or not all(isinstance(x, Said) for x in saids):
        raise EvidenceError(f"check: said expected a Said or a tuple of them, got {said!r:.60}")

    def register(fn: Callable[[object], Judged]) -> Callable[[str], Result]:
        if fn.__name__ in CHECKS:
            raise ValueError(f"evidence {fn.__name__!r}: registered twice "
                             f"({CHECKS[fn.__name__].__module__} and {fn.__module__})")

        # records whose quotes read the same input share one computation (deterministic)
        computed: dict[str, Judged] = {}

        @functools.wraps(fn)
        def run(version: str = right, said: Said | None = None) -> Result:
            if version not in (right, wrong):
                raise ValueError(f"version: expected one of {(right, wrong)}, got {version!r}")
            if said is not None and said not in saids:
                raise ValueError(f"evidence {fn.__name__!r}: said {said.fragment!r} is not "
                                 f"one of its own {[x.fragment for x in saids]}")
            value = (said or saids[0]).value if version == quoted else other
            key = f"{type(value).__name__}:{value!r}"
            out = computed[key] if key in computed else fn(value)
            computed.setdefault(key, out)
            if not isinstance(out, Judged):
                raise EvidenceError(f"evidence {fn.__name__!r}: expected a Judged for version "
                                    f"{version!r}, got {out!r:.80}")
            return Result(out.holds, version, out.facts, out.claim)

        run.right, run.wrong, run.quoted, run.saids, run.other = right, wrong, quoted, saids, other
        CHECKS[fn.__name__] = run
        return run

    return register


_NUMBER = re.compile(r"[-−]?\d+(?:\.\d+)?")


def quoted_numbers(text: str) -> Counter:
    """The numbers written in ``text``, as exact fractions (``0.0000000001``, ``−1``)."""
    return Counter(Fraction(m.replace("−", "-")) for m in _NUMBER.findall(text))


def said_problem(said: Said) -> str | None:
    """Why ``said``'s value is not what its words state, or None: without a reading, every
    number of the value must be written in the fragment and every formula's letters, digits and
    symbols must be the fragment's (typesetting aside, as a web copy flattens it)."""
    if said.reads:
        return None
    items = said.value if isinstance(said.value, tuple) else (said.value,)
    numbers = quoted_numbers(said.fragment)
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | float | Fraction | str):
            return (f"said {said.fragment!r}: value {item!r} is neither a number nor a formula "
                    "of the quote; expected reads=(English, Chinese) saying how it is read")
        if isinstance(item, str):
            if letters(item) - letters(said.fragment):
                return (f"said {said.fragment!r}: formula {item!r} has "
                        f"{sorted((letters(item) - letters(said.fragment)).elements())} that the "
                        "quote does not write")
        elif Fraction(str(item)) not in numbers:
            return f"said {said.fragment!r}: number {item!r} is not written in the quote"
    return None


def said_for(fn: Callable, quote: str) -> Said | None:
    """The :class:`Said` of ``fn`` whose fragment is in ``quote``, else None."""
    return next((x for x in fn.saids if x.fragment in quote), None)


# ----------------------------------------------------------------------------- rendering
def num(x: float, spec: str = ".4g", *, math_mode: bool = False) -> str:
    """A computed number for prose: ∞ and NaN spelled as such, a true minus sign, and powers of
    ten typeset as $m\\times10^{e}$ (``math_mode``: the same without dollars, for a formula)."""
    if isinstance(x, Fraction):
        text = str(x)
        return text if math_mode else text.replace("-", "−")
    if math.isnan(x):
        return r"\mathrm{NaN}" if math_mode else "NaN"
    if math.isinf(x):
        return ("" if x > 0 else "-") + r"\infty" if math_mode else ("∞" if x > 0 else "−∞")
    text = format(x, spec)
    mant, _, exp = text.partition("e")
    if exp:
        power = f"{mant}\\times10^{{{int(exp)}}}" if mant not in ("1", "-1") else \
            f"{mant[:-1]}10^{{{int(exp)}}}"
        return power if math_mode else f"${power}$"
    return text if math_mode else text.replace("-", "−")


_SEP = {"en": ", ", "zh": "、"}
_YES = {"en": ("no", "yes"), "zh": ("否", "是")}
_CLAUSE = {"en": "; ", "zh": "；"}


@functools.cache
def phrases() -> dict:
    """``phrases.toml``, validated once (:func:`validate_phrases`)."""
    return validate_phrases(tomllib.loads(PHRASES.read_text(encoding="utf-8")))


def validate_phrases(raw: dict) -> dict:
    """{"say": {id: {en, zh}}, "term": {id: {en, zh}}}: every entry in both languages, and a
    sentence's two languages take the same values with the same formats."""
    for table in ("say", "term"):
        for key, entry in raw.get(table, {}).items():
            if not (isinstance(entry, dict) and all(isinstance(entry.get(lg), str) and entry[lg]
                                                    for lg in LANGS)):
                raise EvidenceError(f"phrases {table}.{key}: expected en and zh strings, got "
                                    f"{entry!r:.60}")
    for key, entry in raw.get("say", {}).items():
        slots = {lg: placeholders(entry[lg]) for lg in LANGS}
        if slots["en"] != slots["zh"]:
            raise EvidenceError(f"phrases say.{key}: en and zh expected the same placeholders, "
                                f"got {sorted(slots['en'])} and {sorted(slots['zh'])}")
    return raw


def discrimination_problem(fn: Callable[[str], Result]) -> str | None:
    """Why a registered evidence function cannot serve as evidence, or None: for every quote it
    reads, it must hold with its right version, fail with its wrong one, and compute the same
    facts for both (only the judged statement may differ)."""
    for said in getattr(fn, "saids", (None,)):
        kw = {} if said is None else {"said": said}
        right, wrong = fn(fn.right, **kw), fn(fn.wrong, **kw)
        where = "" if said is None else f" (quote {said.fragment!r})"
        if not right.passed:
            return f"{fn.__name__}: expected to hold with {fn.right!r}{where}, it does not"
        if wrong.passed:
            return (f"{fn.__name__}: expected to fail with {fn.wrong!r}{where}, it holds: it "
                    "cannot fail")
        if right.to_json()["facts"] != wrong.to_json()["facts"]:
            return f"{fn.__name__}: its facts differ between {fn.right!r} and {fn.wrong!r}{where}"
    return None


def placeholders(template: str) -> set[tuple[str, str]]:
    """(name, format spec) of every placeholder of ``template``."""
    return {(name, spec or "") for _, name, spec, _ in string.Formatter().parse(template)
            if name is not None}


class _Formatter(string.Formatter):
    def __init__(self, lang: str):
        super().__init__()
        self.lang = lang

    def format_field(self, value, spec: str) -> str:
        if isinstance(value, bool):
            return _YES[self.lang][value]
        if isinstance(value, Fraction):
            return num(value)
        if isinstance(value, int):
            return num(float(value), spec) if spec else str(value).replace("-", "−")
        if isinstance(value, float):
            return num(value, spec or ".4g")
        if isinstance(value, Math):
            return f"${value.tex}$"
        if isinstance(value, Nums):
            return _SEP[self.lang].join(num(x, value.spec) for x in value.values)
        if isinstance(value, Term):
            terms = phrases().get("term", {})
            if value.key not in terms:
                raise EvidenceError(f"term {value.key!r}: expected a [term] entry of "
                                    f"{PHRASES.name}, got none")
            return terms[value.key][self.lang]
        if isinstance(value, Text):
            return value.text
        raise EvidenceError(f"fact value: cannot render {type(value).__name__}")


def render(fact: dict, lang: str) -> str:
    """One fact (its JSON form) as a sentence in ``lang``."""
    says = phrases().get("say", {})
    if fact["say"] not in says:
        raise EvidenceError(f"phrase {fact['say']!r}: expected a [say] entry of {PHRASES.name}, "
                            "got none")
    values = {k: _decode(v) for k, v in fact["values"].items()}
    template = says[fact["say"]][lang]
    missing = {n for n, _ in placeholders(template)} - set(values)
    if missing:
        raise EvidenceError(f"phrase {fact['say']!r}: expected values {sorted(missing)}, got "
                            f"{sorted(values)}")
    return _Formatter(lang).vformat(template, (), values)


def render_facts(facts: list[dict], lang: str) -> str:
    return _CLAUSE[lang].join(render(f, lang) for f in facts)


def render_result(result: dict, lang: str) -> str:
    """Facts, then the version's statement, in ``lang``."""
    return _CLAUSE[lang].join([render(f, lang) for f in result["facts"]]
                              + [render(result["claim"], lang)])


# ----------------------------------------------------------------------------- shared maths
def num_grad(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of a scalar function of an array (numeric.finite_diff's stencil)."""
    return finite_diff.gradient(f, x, h=h)


def num_jac(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """(out.size, x.size) central-difference Jacobian of a function of a vector."""
    return finite_diff.jacobian(finite_diff.rowwise(f), x, h=h)


def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    """Max-shifted softmax: exp never sees a positive argument, so it cannot overflow."""
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def jac_norm(p: np.ndarray) -> float:
    """Spectral norm of the softmax Jacobian diag(p) − ppᵀ at the weights ``p``."""
    return float(np.linalg.norm(np.diag(p) - np.outer(p, p), 2))


def attention_loop(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Attention spelled out per query, independent of any matrix formula under test."""
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        w = softmax(np.array([q[i] @ k[j] for j in range(k.shape[0])]) / math.sqrt(q.shape[1]))
        out[i] = sum(w[j] * v[j] for j in range(v.shape[0]))
    return out


def vec(xs, spec: str = ".4g") -> Math:
    """A tuple of numbers as a formula, (a, b, c)."""
    return Math("(" + ", ".join(num(float(x), spec, math_mode=True) for x in xs) + ")")


def dims(shape) -> Math:
    return Math(r"\times".join(str(x) for x in shape))
