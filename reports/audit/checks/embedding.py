"""Evidence on tokens and embeddings: one-hot vectors, the lookup Eᵀeᵢ, the embedding's
dimension, and how many tokens a sentence has."""

from __future__ import annotations

import numpy as np

from reports.audit.evidence import Fact, Nums, Text, check, judge


@check(right="note", wrong="foil")
def onehot_orthogonal(version):
    """Distinct one-hot vectors are orthogonal, so every pair of words looks equally unrelated."""
    gram = np.eye(5) @ np.eye(5).T
    off = float(np.max(np.abs(gram - np.diag(np.diag(gram)))))
    return judge(version, [Fact("onehot_gram", n=5, off=off)],
                 note=(Fact("onehot_orthogonal"), off == 0),
                 foil=(Fact("onehot_overlap"), off > 0))


@check(right="note", wrong="foil")
def embedding_lookup(version):
    """Eᵀeᵢ is row i of E: a vector of d entries, not of V."""
    v, d = 6, 4
    emb = np.random.default_rng(10).normal(size=(v, d))
    rows = all(np.array_equal(emb.T @ np.eye(v)[i], emb[i]) for i in range(v))
    size = (emb.T @ np.eye(v)[2]).shape[0]
    return judge(version, [Fact("lookup_rows", v=v, d=d, rows=rows)],
                 note=(Fact("lookup_d", size=d), rows and size == d),
                 foil=(Fact("lookup_v", size=v), rows and size == v))


@check(right="correction", wrong="note")
def embedding_dimension(version):
    """Compared with the one-hot vector the embedding lowers the dimension, from V to d ≪ V; what
    it adds is geometry: embedded words can be similar, one-hot words cannot."""
    v, d = 1000, 16
    emb = np.random.default_rng(10).normal(size=(v, d))
    image = np.eye(v) @ emb  # every one-hot vector, embedded
    rank = int(np.linalg.matrix_rank(image))
    unit = image / np.linalg.norm(image, axis=1, keepdims=True)
    cos = unit[:50] @ unit[:50].T
    top = float(np.max(np.abs(cos - np.eye(50))))
    return judge(version, [Fact("embedding_rank", v=v, d=d, rank=rank),
                           Fact("embedding_cosine", top=top)],
                 note=(Fact("embedding_raises", v=v), rank > v),
                 correction=(Fact("embedding_lowers", v=v),
                             rank == d < v and top > 0))


# The words each note splits its example into; the sentences are the notes' own.
SENTENCES = ("我有一个苹果", "我吃了一个红苹果")
WORDS = ("我", "有", "吃", "了", "一个", "红", "苹果")


def _max_match(text: str, vocab) -> list[str]:
    """Forward maximum matching: at each place the longest vocabulary word, else one character."""
    out, i, longest = [], 0, max(map(len, vocab))
    while i < len(text):
        size = next((n for n in range(longest, 0, -1) if text[i:i + n] in vocab), 1)
        out.append(text[i:i + size])
        i += size
    return out


@check(right="note", wrong="foil")
def token_counts(version):
    """How many tokens a sentence has depends on the tokenizer: words, characters or bytes."""
    words = [_max_match(s, set(WORDS)) for s in SENTENCES]
    joined = all("".join(w) == s for w, s in zip(words, SENTENCES, strict=True))
    counts = {"words": [len(w) for w in words], "chars": [len(s) for s in SENTENCES],
              "bytes": [len(s.encode("utf-8")) for s in SENTENCES]}
    facts = [Fact("token_split", first=Text(" / ".join(words[0])),
                  second=Text(" / ".join(words[1])), joined=joined),
             Fact("token_levels", words=Nums(counts["words"], "g"),
                  chars=Nums(counts["chars"], "g"), bytes=Nums(counts["bytes"], "g"))]
    same = len({tuple(c) for c in counts.values()}) == 1
    return judge(version, facts,
                 note=(Fact("tokens_by_words", counts=Nums((4, 6), "g")),
                       joined and counts["words"] == [4, 6]),
                 foil=(Fact("tokens_fixed"), same))

