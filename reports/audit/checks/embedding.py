"""Evidence on tokens and embeddings: one-hot vectors, the lookup Eᵀeᵢ, and how many tokens a
sentence has."""

from __future__ import annotations

import numpy as np

from reports.audit.evidence import Fact, Nums, Said, Text, check, verdict


@check(right="note", wrong="foil", other=1.0,
       said=Said("独热向量正交", 0.0, ("distinct one-hot vectors have dot product 0",
                                     "不同的独热向量点积为 0")))
def onehot_orthogonal(dot):
    """Distinct one-hot vectors are orthogonal, so every pair of words looks equally unrelated."""
    gram = np.eye(5) @ np.eye(5).T
    off = float(np.max(np.abs(gram - np.diag(np.diag(gram)))))
    claim = Fact("onehot_orthogonal") if dot == 0 else Fact("onehot_overlap")
    return verdict([Fact("onehot_gram", n=5, off=off)], claim, off == dot)


_LOOKUP = "the one-hot vector picks row $i$ of $E$: a vector of $d$ entries"
_LOOKUP_ZH = "独热向量取出 $E$ 的第 $i$ 行：一个 $d$ 维向量"


@check(right="note", wrong="foil", other="V", said=(
    Said("Embedding=ETei∈Rd", "d"),
    Said("d 维空间中的一个点", "d"),
    Said("ei∈RV", "d", ("$e_i$ has $V$ entries; " + _LOOKUP, "$e_i$ 有 $V$ 个分量；" + _LOOKUP_ZH)),
    Said("E∈RV×d", "d", ("$E$ has $V$ rows of $d$ entries; " + _LOOKUP,
                         "$E$ 有 $V$ 行，每行 $d$ 个分量；" + _LOOKUP_ZH)),
    Said("查表操作", "d", (_LOOKUP, _LOOKUP_ZH)),
    Said("高维空间", "d", ("a token, one index, becomes a vector of $d$ entries",
                        "一个词元（一个下标）变成一个 $d$ 维向量")),
))
def embedding_lookup(size):
    """Eᵀeᵢ is row i of E: a vector of d entries, not of V."""
    sizes = {"V": 6, "d": 4}
    emb = np.random.default_rng(10).normal(size=(sizes["V"], sizes["d"]))
    rows = all(np.array_equal(emb.T @ np.eye(sizes["V"])[i], emb[i]) for i in range(sizes["V"]))
    got = (emb.T @ np.eye(sizes["V"])[2]).shape[0]
    claim = Fact("lookup_d" if size == "d" else "lookup_v", size=sizes[size])
    return verdict([Fact("lookup_rows", v=sizes["V"], d=sizes["d"], rows=rows)], claim,
                   rows and got == sizes[size])


# A word-level split of each sentence: the second is the note's own; the first splits the other
# note's sentence by the same convention (一个 and 苹果 as words).
SPLITS = {"我有一个苹果": ("我", "有", "一个", "苹果"),
          "我吃了一个红苹果": ("我", "吃", "了", "一个", "红", "苹果")}


@check(right="note", wrong="foil", other=("我有一个苹果", 6), said=(
    Said("我有一个苹果 输出：4个token", ("我有一个苹果", 4),
         ("4 tokens at word level: 我 / 有 / 一个 / 苹果",
          "按词切分为 4 个词元：我 / 有 / 一个 / 苹果")),
    Said("6 个 token：我 / 吃 / 了 / 一个 / 红 / 苹果", ("我吃了一个红苹果", 6)),
))
def token_split(said):
    """The word-level split of each sentence has the number of tokens the note gives, and its
    pieces join to the sentence; by characters or bytes the counts differ."""
    sentence, count = said
    joined = all("".join(p) == s for s, p in SPLITS.items())
    facts = [Fact("token_split", first=Text(" / ".join(SPLITS["我有一个苹果"])),
                  second=Text(" / ".join(SPLITS["我吃了一个红苹果"])), joined=joined),
             Fact("token_levels", words=Nums([len(p) for p in SPLITS.values()], "g"),
                  chars=Nums([len(s) for s in SPLITS], "g"),
                  bytes=Nums([len(s.encode("utf-8")) for s in SPLITS], "g"))]
    return verdict(facts, Fact("tokens_of_sentence", sentence=Text(sentence), count=count),
                   joined and len(SPLITS[sentence]) == count)
