"""Confirming computations for the remaining claims: RNNs, graphs, tokens, RoPE, history, and the
formulas outside the scope of Transformer math that the notes mention in passing.
"""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Result, check, softmax, stated


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
    return Result(spread < 1e-12 and abs(np.linalg.norm(rot(1.7) @ q) - np.linalg.norm(q)) < 1e-12,
                  f"positions (m, m+3), m = 0..5: score spread {spread:.2g} (depends on the "
                  "offset only); rotation preserves |q|")


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
    return Result(bool(np.all(infl > 0)) and infl[-1] < infl[1],
                  "influence of x_1 on h_t, t = 2, 6, 12: "
                  f"{infl[1]:.3g}, {infl[5]:.3g}, {infl[11]:.3g}")


@check
def path_graph_edges(version: str = "correction") -> Result:
    law = stated(version, lambda n: n - 1)
    ok = all(len([(t - 1, t) for t in range(1, n)]) == law(n) for n in range(1, 12))
    return Result(ok, "chain h_1 -> ... -> h_n built for n = 1..11 has n - 1 directed edges")


@check
def six_tokens(version: str = "correction") -> Result:
    count = stated(version, 6)
    pieces = "我 / 吃 / 了 / 一个 / 红 / 苹果".split(" / ")
    return Result(len(pieces) == count and "".join(pieces) == "我吃了一个红苹果",
                  f"{len(pieces)} pieces, concatenation restores the sentence")


@check
def tokenization_count(version: str = "correction") -> Result:
    count = stated(version, 4)
    words, chars = ["我", "有", "一个", "苹果"], list("我有一个苹果")
    return Result("".join(words) == "我有一个苹果" and len(words) == count,
                  f"word-level split {len(words)} tokens, character-level {len(chars)}: the count "
                  "depends on the tokenizer")


@check
def history_chronology(version: str = "correction") -> Result:
    """The dates in the notes are mutually consistent (the Boltzmann distribution predates the
    Boltzmann machine, which predates the name softmax)."""
    dates = stated(version, {"Boltzmann distribution": (1850, 1899), "Boltzmann machine": 1985,
                              "softmax (Bridle)": 1989})
    ok = dates["Boltzmann distribution"][1] < dates["Boltzmann machine"] < dates["softmax (Bridle)"]
    order = ", ".join(f"{k} {v if isinstance(v, int) else f'{v[0]}–{v[1]}'}"
                      for k, v in dates.items())
    return Result(ok, f"order of the notes' dates: {order}")


@check
def boltzmann_softmax(version: str = "correction") -> Result:
    stated(version, None)
    energy, temp = np.array([0.5, 1.5, -0.2]), 0.7
    boltz = np.exp(-energy / temp) / np.sum(np.exp(-energy / temp))
    gap = float(np.max(np.abs(boltz - softmax(-energy / temp))))
    return Result(gap < 1e-15, f"Boltzmann p_i ∝ exp(-E_i/T) vs softmax(-E/T): max gap {gap:.2g}")


@check
def lowrank_shapes(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(52)
    u, v = rng.normal(size=(7, 2)), rng.normal(size=(5, 2))
    r = u @ v.T
    return Result(r.shape == (7, 5) and np.linalg.matrix_rank(r) <= 2,
                  f"U (7×2) Vᵀ (2×5) = R {r.shape}, rank {np.linalg.matrix_rank(r)} <= d = 2")


@check
def markov_stationary(version: str = "correction") -> Result:
    stated(version, None)
    p = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6]])
    vals, vecs = np.linalg.eig(p.T)
    pi = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    pi = pi / pi.sum()
    return Result(np.allclose(pi @ p, pi), f"stationary π = {np.round(pi, 4).tolist()}, πP = π")


@check
def dft_fft(version: str = "correction") -> Result:
    stated(version, None)
    x = np.random.default_rng(53).normal(size=16)
    n = np.arange(16)
    direct = np.array([np.sum(x * np.exp(-2j * np.pi * k * n / 16)) for k in range(16)])
    gap = float(np.max(np.abs(direct - np.fft.fft(x))))
    return Result(gap < 1e-10, f"X_k = Σ x_n e^(-2πikn/N), N = 16, vs numpy FFT: max gap {gap:.2g}")
