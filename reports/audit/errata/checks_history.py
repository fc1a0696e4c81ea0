"""History claims of the notes, checked against a small table of publications.

This is not computation: the table is the audit's record of the literature (authors, year,
title), and each check compares the note's statement and the correction with it. A wrong
table entry would make a check wrong, which is why every entry names its source.
"""

from __future__ import annotations

from reports.audit.evidence import Result, check, pick

# (year, authors, what) — the publications the notes' history sentences refer to.
PUBLICATIONS = (
    (1860, ("Maxwell",), "Illustrations of the dynamical theory of gases (velocity distribution)"),
    (1868, ("Boltzmann",), "Studien über das Gleichgewicht der lebendigen Kraft"),
    (1877, ("Boltzmann",), "Über die Beziehung zwischen dem zweiten Hauptsatze … und der "
                           "Wahrscheinlichkeitsrechnung"),
    (1902, ("Gibbs",), "Elementary Principles in Statistical Mechanics (canonical ensemble)"),
    (1959, ("Luce",), "Individual Choice Behavior (normalised exponential choice rule)"),
    (1983, ("Hinton", "Sejnowski"), "Optimal perceptual inference (the Boltzmann machine)"),
    (1985, ("Ackley", "Hinton", "Sejnowski"), "A learning algorithm for Boltzmann machines"),
    (1989, ("Bridle",), "Probabilistic interpretation of feedforward classification network "
                        "outputs (names the 'softmax'; printed 1990)"),
    (2017, ("Vaswani", "et al."), "Attention is all you need (the Transformer)"),
    (2018, ("Radford", "et al."), "GPT: generative pre-training of a Transformer decoder"),
    (2018, ("Devlin", "et al."), "BERT: a Transformer encoder"),
    (2020, ("Dosovitskiy", "et al."), "ViT: a Transformer on image patches"),
)


def _by(author: str) -> list[tuple]:
    return [p for p in PUBLICATIONS if author in p[1]]


def _cite(pubs) -> str:
    return "; ".join(f"{', '.join(a)} {y}" for y, a, _ in pubs)


@check
def history_boltzmann_joint(version: str = "correction") -> Result:
    """Maxwell and Boltzmann contributed separately; no joint publication."""
    claims_joint = pick(version, note=True, correction=False)
    joint = [p for p in PUBLICATIONS if {"Maxwell", "Boltzmann"} <= set(p[1])]
    span = sorted({p[0] for p in _by("Maxwell") + _by("Boltzmann")})
    ok = bool(joint) == claims_joint and 1850 <= span[0] and span[-1] < 1900
    said_en = "a joint work" if claims_joint else "separate works"
    said_zh = "二人合作的成果" if claims_joint else "二人各自的成果"
    return Result(ok,
                  f"Maxwell: {_cite(_by('Maxwell'))}; Boltzmann: {_cite(_by('Boltzmann'))}; "
                  f"joint publications: {len(joint)}; claimed: {said_en}",
                  f"Maxwell：{_cite(_by('Maxwell'))}；Boltzmann：{_cite(_by('Boltzmann'))}；"
                  f"二人合著的文献：{len(joint)} 篇；该说法：{said_zh}")


@check
def history_boltzmann_machine(version: str = "correction") -> Result:
    """The Boltzmann machine is Hinton's with Sejnowski (1983) and Ackley (1985)."""
    inventors = pick(version, note={"Hinton"}, correction={"Hinton", "Sejnowski"})
    papers = [p for p in PUBLICATIONS if "Boltzmann machine" in p[2]]
    first = min(papers)
    return Result(set(first[1]) == inventors,
                  f"papers on the Boltzmann machine: {_cite(papers)}; the first ({first[0]}) is by "
                  f"{' and '.join(first[1])}; claimed: {' and '.join(sorted(inventors))}",
                  f"关于玻尔兹曼机的论文：{_cite(papers)}；最早的一篇（{first[0]}）作者是 "
                  f"{' 和 '.join(first[1])}；该说法：{' 和 '.join(sorted(inventors))}")


@check
def history_softmax_name(version: str = "correction") -> Result:
    """Bridle (1989) named the softmax; the normalised exponential is older."""
    first_year = pick(version, note=1989, correction=1868)
    older = [p for p in PUBLICATIONS if p[0] < 1989 and ("Boltzmann" in p[1] or "Luce" in p[1]
                                                         or "Gibbs" in p[1])]
    earliest = min(p[0] for p in older)
    form = r"$e^{-E_i/kT}/\sum_j e^{-E_j/kT}$"
    return Result(earliest == first_year,
                  f"the normalised exponential {form} appears in {_cite(older)}; Bridle 1989 "
                  f"names it “softmax”; earliest {earliest}, claimed {first_year}",
                  f"归一化指数 {form} 见于 {_cite(older)}；Bridle 1989 才给它取名 “softmax”；"
                  f"最早见于 {earliest} 年，该说法为 {first_year} 年")


@check
def history_transformer_models(version: str = "correction") -> Result:
    """GPT, BERT and ViT are Transformers and come after 2017."""
    stated_models = pick(version, note=("GPT", "BERT", "ViT"), correction=("GPT", "BERT", "ViT"))
    rows = [p for p in PUBLICATIONS if any(p[2].startswith(m) for m in stated_models)]
    ok = len(rows) == 3 and all(p[0] >= 2017 and "Transformer" in p[2] for p in rows)
    listed = "; ".join(f"{p[2].split(':')[0]} {p[0]}" for p in rows)
    return Result(ok, listed + "; the Transformer 2017",
                  listed.replace("; ", "；") + "；Transformer 2017")


@check
def history_rnn_before(version: str = "correction") -> Result:
    """Before 2017 sequence models were recurrent; the Transformer replaced recurrence."""
    year = pick(version, note=2017, correction=2017)
    first = min(p[0] for p in PUBLICATIONS if "Transformer" in p[2])
    return Result(first == year,
                  f"first Transformer publication {first}: Vaswani et al. replace recurrence by "
                  "attention",
                  f"第一篇 Transformer 论文发表于 {first} 年：Vaswani 等人用注意力取代了循环结构")
