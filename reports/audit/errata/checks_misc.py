"""Confirming computations for the remaining claims: RNNs, graphs, tokens, RoPE, history, and the
formulas outside the scope of Transformer math that the notes mention in passing.
"""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Result, check, nums, shi, softmax, stated, yes


@check
def rope_relative(version: str = "correction") -> Result:
    """RoPE: <R(mθ)q, R(nθ)k> depends only on n - m, and rotations keep norms."""
    stated(version, None)

    def rot(a):
        return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

    rng = np.random.default_rng(50)
    q, k, theta = rng.normal(size=2), rng.normal(size=2), 0.3
    scores = [float((rot(m * theta) @ q) @ (rot((m + 3) * theta) @ k)) for m in range(6)]
    spread = max(scores) - min(scores)
    keeps = abs(np.linalg.norm(rot(1.7) @ q) - np.linalg.norm(q)) < 1e-12
    return Result(spread < 1e-12 and keeps,
                  "positions $(m, m+3)$, $m = 0, \\dots, 5$: "
                  f"the scores spread by {spread:.2g} (they "
                  "depend on the offset only); the rotation "
                  f"preserves $\\lVert q\\rVert$: {yes(keeps)}",
                  "位置 $(m, m+3)$，$m = 0, \\dots, "
                  f"5$：各分数的极差为 {spread:.2g}（只取决于位置之差）；"
                  f"旋转保持 $\\lVert q\\rVert$ 不变：{shi(keeps)}")


@check
def rnn_sequential(version: str = "correction") -> Result:
    """h_t = tanh(W h_{t-1} + U x_t): h_t needs h_{t-1}, and the influence of x_1 fades."""
    stated(version, None)
    rng = np.random.default_rng(51)
    w, u = 0.4 * rng.normal(size=(4, 4)), rng.normal(size=(4, 3))
    xs = rng.normal(size=(12, 3))

    def run(xs):
        h, hs = np.zeros(4), []
        for x in xs:
            h = np.tanh(w @ h + u @ x)
            hs.append(h)
        return np.array(hs)

    bumped = xs.copy()
    bumped[0] += 1e-6
    infl = np.linalg.norm(run(bumped) - run(xs), axis=1) / 1e-6
    shown = f"{infl[1]:.3g}, {infl[5]:.3g}, {infl[11]:.3g}"
    return Result(bool(np.all(infl > 0)) and infl[-1] < infl[1],
                  f"influence of $x_1$ on $h_t$ for $t = 2, 6, 12$: {shown}",
                  f"$x_1$ 对 $h_t$ 的影响（$t = 2, 6, 12$）：{shown}")


@check
def path_graph_edges(version: str = "correction") -> Result:
    law = stated(version, lambda n: n - 1)
    ok = all(len([(t - 1, t) for t in range(1, n)]) == law(n) for n in range(1, 12))
    return Result(ok, r"the chain $h_1 \to \dots \to h_n$ built for $n = 1, \dots, 11$ has $n - 1$ "
                      "directed edges",
                  r"对 $n = 1, \dots, 11$ 逐一构造链 $h_1 \to \dots \to h_n$，每条链都有 $n - 1$ "
                  "条有向边")


@check
def six_tokens(version: str = "correction") -> Result:
    count = stated(version, 6)
    pieces = "我 / 吃 / 了 / 一个 / 红 / 苹果".split(" / ")
    return Result(len(pieces) == count and "".join(pieces) == "我吃了一个红苹果",
                  f"{len(pieces)} pieces; joined together they restore the sentence",
                  f"共 {len(pieces)} 段，拼接起来恰好还原原句")


@check
def tokenization_count(version: str = "correction") -> Result:
    count = stated(version, 4)
    words, chars = ["我", "有", "一个", "苹果"], list("我有一个苹果")
    return Result("".join(words) == "我有一个苹果" and len(words) == count,
                  f"split into words: {len(words)} tokens; "
                  f"into characters: {len(chars)}; the count "
                  "depends on the tokenizer",
                  f"按词切分得到 {len(words)} 个 token，"
                  f"按字切分得到 {len(chars)} 个：数目取决于分词器")


@check
def history_chronology(version: str = "correction") -> Result:
    """The dates in the notes are mutually consistent (the Boltzmann distribution predates the
    Boltzmann machine, which predates the name softmax)."""
    dates = stated(version, {"Boltzmann distribution": (1850, 1899), "Boltzmann machine": 1985,
                              "softmax (Bridle)": 1989})
    ok = dates["Boltzmann distribution"][1] < dates["Boltzmann machine"] < dates["softmax (Bridle)"]
    zh_names = {"Boltzmann distribution": "玻尔兹曼分布", "Boltzmann machine": "玻尔兹曼机",
                "softmax (Bridle)": "softmax（Bridle）"}

    def when(v):
        return str(v) if isinstance(v, int) else f"{v[0]}–{v[1]}"

    order = ", ".join(f"{k} {when(v)}" for k, v in dates.items())
    order_zh = "，".join(f"{zh_names[k]} {when(v)}" for k, v in dates.items())
    return Result(ok, f"the notes' dates in order: {order}", f"讲义中的年代依次为：{order_zh}")


@check
def boltzmann_softmax(version: str = "correction") -> Result:
    stated(version, None)
    energy, temp = np.array([0.5, 1.5, -0.2]), 0.7
    boltz = np.exp(-energy / temp) / np.sum(np.exp(-energy / temp))
    gap = float(np.max(np.abs(boltz - softmax(-energy / temp))))
    forms = r"$p_i \propto \exp(-E_i/T)$", r"$\operatorname{softmax}(-E/T)$"
    return Result(gap < 1e-15,
                  f"Boltzmann {forms[0]} vs {forms[1]}: largest gap {gap:.2g}",
                  f"玻尔兹曼分布 {forms[0]} 与 {forms[1]} 相比，最大差距为 {gap:.2g}")


@check
def lowrank_shapes(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(52)
    u, v = rng.normal(size=(7, 2)), rng.normal(size=(5, 2))
    r = u @ v.T
    rank = int(np.linalg.matrix_rank(r))
    shown = (rf"$U_{{7\times 2}}V^\top_{{2\times 5}} = R_{{{r.shape[0]}\times{r.shape[1]}}}$",
             rf"${rank} \le d = 2$")
    return Result(r.shape == (7, 5) and rank <= 2,
                  f"{shown[0]}, rank {shown[1]}", f"{shown[0]}，秩为 {shown[1]}")


@check
def markov_stationary(version: str = "correction") -> Result:
    stated(version, None)
    p = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6]])
    vals, vecs = np.linalg.eig(p.T)
    pi = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    pi = pi / pi.sum()
    shown = f"$\\pi = ({nums(np.round(pi, 4), 'g')})$"
    return Result(np.allclose(pi @ p, pi), f"stationary {shown}, $\\pi P = \\pi$",
                  f"平稳分布 {shown}，$\\pi P = \\pi$")


@check
def dft_fft(version: str = "correction") -> Result:
    stated(version, None)
    x = np.random.default_rng(53).normal(size=16)
    n = np.arange(16)
    direct = np.array([np.sum(x * np.exp(-2j * np.pi * k * n / 16)) for k in range(16)])
    gap = float(np.max(np.abs(direct - np.fft.fft(x))))
    form = r"$X_k = \sum_n x_n e^{-2\pi i k n/N}$, $N = 16$"
    return Result(gap < 1e-10, f"{form}, vs numpy's FFT: largest gap {gap:.2g}",
                  f"{form}，与 numpy 的 FFT 相比，最大差距为 {gap:.2g}")
