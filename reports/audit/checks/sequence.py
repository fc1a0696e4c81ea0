"""Evidence on recurrent networks: the chain of hidden states, how far an early token reaches,
and what a step leaves to run in parallel."""

from __future__ import annotations

import numpy as np

from reports.audit.evidence import Fact, Math, Nums, Said, check, verdict
from reports.audit.formula import evaluate

_H, _D = 4, 3


def _rnn(seed: int):
    rng = np.random.default_rng(seed)
    return 0.4 * rng.normal(size=(_H, _H)), rng.normal(size=(_H, _D)), rng


def _run(w, u, xs) -> np.ndarray:
    h, hs = np.zeros(_H), []
    for x in xs:
        h = np.tanh(w @ h + u @ x)
        hs.append(h)
    return np.array(hs)


_FADES = ("each hidden state is computed from the one before, and the influence of the first "
          "input fades along the chain",
          "每个隐藏状态都由前一个算出，第一个输入的影响沿链条逐渐减弱")


@check(right="note", wrong="foil", other="keeps", said=(
    Said("按顺序逐个处理 token", "fades", _FADES),
    Said("第 $t$ 步的计算依赖第 $t-1$ 步的隐藏状态", "fades", _FADES),
    Said("距离越远衰减越明显", "fades", ("the influence of an input on $h_t$ shrinks as $t$ grows",
                                "一个输入对 $h_t$ 的影响随 $t$ 增大而减小")),
    Said("传不到", "fades", ("the first input's influence on the last state is small",
                          "第一个输入对最后一个状态的影响很小")),
    Said("固定大小的隐藏向量", "fades", ("the state has the same size at every step, and older "
                                  "inputs fade from it",
                                  "状态在每一步大小相同，较早的输入在其中逐渐淡去")),
))
def rnn_sequential(influence):
    """h_t = tanh(W h_{t−1} + U x_t): each state needs the previous one, the state has the same
    size at every step, and the influence of x₁ on h_t fades with t."""
    w, u, rng = _rnn(51)
    xs = rng.normal(size=(12, _D))
    bumped = xs.copy()
    bumped[0] += 1e-6
    infl = np.linalg.norm(_run(w, u, bumped) - _run(w, u, xs), axis=1) / 1e-6
    facts = [Fact("rnn_influence", size=_H, infl=Nums(infl[[1, 5, 11]], ".3g"))]
    if influence == "fades":
        return verdict(facts, Fact("rnn_fades"),
                       bool(np.all(infl > 0)) and infl[11] < 0.1 * infl[1])
    return verdict(facts, Fact("rnn_keeps"), abs(infl[11] / infl[1] - 1) < 0.1)


@check(right="note", wrong="foil", other=r"\frac{n(n-1)}{2}", said=Said("$n-1$ 条有向边", "n-1"))
def path_graph_edges(count):
    """The direct dependencies between the hidden states of an RNN, read off the derivatives of
    each step: h_{t−1} → h_t only, n − 1 edges for n states."""
    w, u, rng = _rnn(52)
    n = 6
    xs = rng.normal(size=(n, _D))
    hs = _run(w, u, xs)
    edges = 0
    for t in range(1, n):
        for s in range(t):
            def step(hprev, s=s, t=t):
                states = hs[:t].copy()
                states[s] = hprev
                return np.tanh(w @ states[t - 1] + u @ xs[t])

            moved = np.linalg.norm(step(hs[s] + 1e-6) - step(hs[s])) / 1e-6
            edges += bool(moved > 1e-9)
    facts = [Fact("rnn_edges", n=n, edges=edges)]
    said = int(round(float(evaluate(count, n=n))))
    return verdict(facts, Fact("edges_as_written", form=Math(count), count=said), edges == said)


@check(right="correction", wrong="note", other=32,
       said=Said("完全用不上", 1, ("no two operations of a step run at once: a parallel width of 1",
                              "一步之内没有任何运算可以同时进行：并行宽度为 1")))
def rnn_parallel_width(width_said):
    """One batched step h_t = tanh(h_{t−1}W + x_tU): its Jacobian by h_{t−1}, by finite
    differences, has no entry between different sequences, so the B·H dot products of a step can
    run at once; only the steps themselves wait for each other."""
    rng = np.random.default_rng(11)
    b = 8
    w, u = 0.5 * rng.normal(size=(_H, _H)), rng.normal(size=(_D, _H))
    h0, x = rng.normal(size=(b, _H)), rng.normal(size=(b, _D))

    def step(flat):
        return np.tanh(flat.reshape(b, _H) @ w + x @ u).ravel()

    base = step(h0.ravel())
    jac = np.stack([(step(h0.ravel() + 1e-6 * e) - base) / 1e-6 for e in np.eye(b * _H)], axis=1)
    owner = np.repeat(np.arange(b), _H)
    cross = bool(np.any(np.abs(jac[owner[:, None] != owner[None, :]]) > 1e-9))
    chains = 1 if cross else b
    width = chains * _H
    facts = [Fact("rnn_batch_jacobian", b=b, h=_H, cross=cross, chains=chains, width=width)]
    claim = Fact("rnn_one_at_a_time") if width_said == 1 else Fact("rnn_parallel_within_step")
    return verdict(facts, claim, width == width_said)
