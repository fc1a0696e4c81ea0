"""Evidence for the formulas outside Transformer mathematics that the notes mention in passing:
low rank, Markov chains, the Fourier transform, the DFT and the FFT's cost, attention as a
normalised kernel, and the Boltzmann distribution as a softmax. The formulas are the note's
own, evaluated as written."""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import (
    Fact,
    Math,
    Said,
    attention_loop,
    check,
    dims,
    softmax,
    vec,
    verdict,
)
from reports.audit.formula import equation, evaluate


@check(right="note", wrong="foil", other=r"VU^{T}", said=Said(r"R\approx UV^{T}", r"UV^{T}"))
def lowrank_shapes(form):
    """R ≈ UVᵀ with U of |U|×d and V of |I|×d: R is |U|×|I| of rank at most d."""
    rng = np.random.default_rng(52)
    u, v = rng.normal(size=(7, 2)), rng.normal(size=(5, 2))
    r = u @ v.T
    rank = int(np.linalg.matrix_rank(r))
    got = np.asarray(evaluate(form, U=u, V=v))
    same = got.shape == r.shape and bool(np.allclose(got, r))
    return verdict([Fact("lowrank", r=dims(r.shape), rank=rank)],
                   Fact("lowrank_as_written", form=Math(form), shape=dims(got.shape)),
                   same and rank <= 2)


@check(right="note", wrong="foil", other=r"P\pi=1\cdot\pi", said=Said(r"\pi P=1\cdot\pi",
                                                                     r"\pi P=1\cdot\pi"))
def markov_stationary(eq):
    """The stationary distribution is a left eigenvector: πP = π, not Pπ = π."""
    p = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6]])
    vals, vecs = np.linalg.eig(p.T)
    pi = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    pi = pi / pi.sum()
    lhs, rhs = equation(eq)
    gap = float(np.max(np.abs(np.asarray(lhs({"pi": pi, "P": p}))
                              - np.asarray(rhs({"pi": pi, "P": p})))))
    return verdict([Fact("stationary", pi=vec(pi, ".4f"))],
                   Fact("eigen_as_written", form=Math(eq), gap=gap), gap < 1e-12)


_DFT = r"X_k=\sum_{n=0}^{N-1}x_ne^{-2\pi ikn/N}"


@check(right="note", wrong="foil", other=_DFT.replace("{-2", "{2"), said=Said(_DFT, _DFT))
def dft_fft(eq):
    """X_k = Σ x_n e^{−2πikn/N} is what the FFT computes; the kernel e^{+2πikn/N} is not."""
    x = np.random.default_rng(53).normal(size=16)
    big = np.fft.fft(x)
    lhs, rhs = equation(eq)
    gap = max(abs(complex(lhs({"X_k": big[k]})) - complex(rhs(
        {"x_n": x, "n": np.arange(16), "k": k, "N": 16, "i": 1j, "pi": math.pi, "e": math.e})))
        for k in range(16))
    claim = Fact("dft_kernel_minus" if "{-2" in eq else "dft_kernel_plus", gap=gap)
    return verdict([Fact("dft_setup")], claim, gap < 1e-10)


@check(right="note", wrong="foil", other=1.0,
       said=Said(r"\hat{f}(\omega)=\int_{-\infty}^{\infty}f(t)", 2 * math.pi,
                 ("the transform's kernel, $e^{-2\\pi i\\omega t}$ in the note's next symbols, "
                  "has $2\\pi$ in the exponent",
                  "变换的核（讲义紧接着写的 $e^{-2\\pi i\\omega t}$）"
                  "的指数中有 $2\\pi$")))
def fourier_gaussian(k):
    """With f̂(ω) = ∫ f(t) e^{−2πiωt} dt the Gaussian e^{−πt²} is its own transform; with the
    kernel e^{−iωt} (no 2π) it is not."""
    t = np.linspace(-12, 12, 24001)
    f = np.exp(-math.pi * t**2)
    gap = max(abs(float(np.real(np.sum(f * np.exp(-1j * k * w * t)) * (t[1] - t[0])))
                  - math.exp(-math.pi * w**2)) for w in (0.0, 0.5, 1.0, 1.7))
    claim = Fact("fourier_2pi" if abs(k - 2 * math.pi) < 1e-12 else "fourier_no_2pi", gap=gap)
    return verdict([Fact("fourier_setup")], claim, gap < 1e-9)


def _fft(x: np.ndarray, count: list[int]) -> np.ndarray:
    """Recursive radix-2 FFT, counting its complex multiplications in ``count[0]``."""
    n = len(x)
    if n == 1:
        return x
    even, odd = _fft(x[0::2], count), _fft(x[1::2], count)
    twiddled = np.exp(-2j * np.pi * np.arange(n // 2) / n) * odd
    count[0] += n // 2
    return np.concatenate([even + twiddled, even - twiddled])


@check(right="note", wrong="foil", other="N^2",
       said=Said(r"O(N^2)\Rightarrow O(N\log N)", r"N\log N"))
def fft_operation_count(growth):
    """The multiplications of a radix-2 FFT, counted while it runs, grow like N log N (their
    ratio to it is constant); the direct DFT needs N²."""
    ns, counts, gap = [2**p for p in range(4, 13)], [], 0.0
    for n in ns:
        x = np.random.default_rng(n).normal(size=n)
        count = [0]
        y = _fft(x.astype(complex), count)
        counts.append(count[0])
        gap = max(gap, float(np.max(np.abs(y - np.fft.fft(x)))))
    slope = float(np.polyfit(np.log(ns), np.log(np.array(counts) / np.log2(ns)), 1)[0])
    ratios = [c / float(evaluate(growth, N=n)) for c, n in zip(counts, ns, strict=True)]
    facts = [Fact("fft_counts", low=counts[0], high=counts[-1], n_low=ns[0], n_high=ns[-1],
                  slope=slope, square=ns[-1] ** 2, gap=gap)]
    claim = Fact("fft_n_log_n" if growth == r"N\log N" else "fft_n_squared")
    return verdict(facts, claim, gap < 1e-9 and max(ratios) / min(ratios) < 1.05)


@check(right="note", wrong="foil", other="plain",
       said=Said("非局部积分算子", "normalised",
                 ("attention is a normalised kernel sum, "
                  "$\\sum_j K(q_i, k_j)\\,v_j / \\sum_j K(q_i, k_j)$, the discrete form of an "
                  "integral operator", "注意力是归一化的核加权和 "
                  "$\\sum_j K(q_i, k_j)\\,v_j / \\sum_j K(q_i, k_j)$，即积分算子的离散形式")))
def attention_kernel_smoother(form):
    """Attention is a normalised kernel sum Σ_j K(q_i, k_j) v_j / Σ_j K(q_i, k_j); without the
    normalisation it is not."""
    rng = np.random.default_rng(22)
    q, k, v = rng.normal(size=(3, 2)), rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    kern = np.exp(q @ k.T / math.sqrt(2))
    forms = {"normalised": kern @ v / kern.sum(axis=1, keepdims=True), "plain": kern @ v}
    gap = float(np.max(np.abs(forms[form] - attention_loop(q, k, v))))
    claim = Fact("kernel_normalised" if form == "normalised" else "kernel_plain", gap=gap)
    return verdict([Fact("loop_setup")], claim, gap < 1e-12)


@check(right="note", wrong="foil", other=1,
       said=Said("玻尔兹曼分布", -1, ("the Boltzmann distribution, $p_i \\propto e^{-E_i/T}$: "
                                   "the softmax of $-E/T$",
                                   "玻尔兹曼分布 $p_i \\propto e^{-E_i/T}$，"
                                   "即 $-E/T$ 的 softmax")))
def boltzmann_softmax(sign):
    """The Boltzmann distribution p_i ∝ exp(−E_i/T) is softmax(−E/T), not softmax(E/T)."""
    energy, temp = np.array([0.5, 1.5, -0.2]), 0.7
    boltz = np.exp(-energy / temp) / np.sum(np.exp(-energy / temp))
    gap = float(np.max(np.abs(boltz - softmax(sign * energy / temp))))
    facts = [Fact("boltzmann", p=vec(boltz, ".4f"))]
    claim = Fact("boltzmann_minus" if sign < 0 else "boltzmann_plus", gap=gap)
    return verdict(facts, claim, gap < 1e-15)
