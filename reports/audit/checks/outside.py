"""Evidence for the formulas outside Transformer mathematics that the notes mention in passing:
low rank, Markov chains, the Fourier transform, the DFT and the FFT's cost, attention as a
normalised kernel, and the Boltzmann distribution as a softmax."""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Fact, attention_loop, check, dims, judge, softmax, vec


@check(right="note", wrong="foil")
def lowrank_shapes(version):
    """R ≈ UVᵀ with U of |U|×d and V of |I|×d: R is |U|×|I| of rank at most d."""
    rng = np.random.default_rng(52)
    u, v = rng.normal(size=(7, 2)), rng.normal(size=(5, 2))
    r = u @ v.T
    rank = int(np.linalg.matrix_rank(r))
    facts = [Fact("lowrank", r=dims(r.shape), rank=rank)]
    return judge(version, facts,
                 note=(Fact("rank_at_most_d"), r.shape == (7, 5) and rank <= 2),
                 foil=(Fact("rank_full"), rank == 5))


@check(right="note", wrong="foil")
def markov_stationary(version):
    """The stationary distribution is a left eigenvector: πP = π, not Pπ = π."""
    p = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6]])
    vals, vecs = np.linalg.eig(p.T)
    pi = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    pi = pi / pi.sum()
    gaps = {"note": float(np.max(np.abs(pi @ p - pi))), "foil": float(np.max(np.abs(p @ pi - pi)))}
    facts = [Fact("stationary", pi=vec(pi, ".4f"))]
    return judge(version, facts,
                 note=(Fact("left_eigen", gap=gaps["note"]), gaps["note"] < 1e-12),
                 foil=(Fact("right_eigen", gap=gaps["foil"]), gaps["foil"] < 1e-12))


@check(right="note", wrong="foil")
def dft_fft(version):
    """X_k = Σ x_n e^{−2πikn/N} is what the FFT computes; the kernel e^{+2πikn/N} is not."""
    x = np.random.default_rng(53).normal(size=16)
    n = np.arange(16)
    sign = {"note": -1, "foil": 1}[version]
    direct = np.array([np.sum(x * np.exp(sign * 2j * np.pi * k * n / 16)) for k in range(16)])
    gap = float(np.max(np.abs(direct - np.fft.fft(x))))
    claim = Fact("dft_kernel_minus" if sign < 0 else "dft_kernel_plus", gap=gap)
    return judge(version, [Fact("dft_setup")], **{version: (claim, gap < 1e-10)})


@check(right="note", wrong="foil")
def fourier_gaussian(version):
    """With f̂(ω) = ∫ f(t) e^{−2πiωt} dt the Gaussian e^{−πt²} is its own transform; with the
    kernel e^{−iωt} (no 2π) it is not."""
    k = {"note": 2 * math.pi, "foil": 1.0}[version]
    t = np.linspace(-12, 12, 24001)
    f = np.exp(-math.pi * t**2)
    gap = max(abs(float(np.real(np.sum(f * np.exp(-1j * k * w * t)) * (t[1] - t[0])))
                  - math.exp(-math.pi * w**2)) for w in (0.0, 0.5, 1.0, 1.7))
    claim = Fact("fourier_2pi" if version == "note" else "fourier_no_2pi", gap=gap)
    return judge(version, [Fact("fourier_setup")], **{version: (claim, gap < 1e-9)})


def _fft(x: np.ndarray, count: list[int]) -> np.ndarray:
    """Recursive radix-2 FFT, counting its complex multiplications in ``count[0]``."""
    n = len(x)
    if n == 1:
        return x
    even, odd = _fft(x[0::2], count), _fft(x[1::2], count)
    twiddled = np.exp(-2j * np.pi * np.arange(n // 2) / n) * odd
    count[0] += n // 2
    return np.concatenate([even + twiddled, even - twiddled])


@check(right="note", wrong="foil")
def fft_operation_count(version):
    """The multiplications of a radix-2 FFT, counted while it runs, grow like N log N; the
    direct DFT needs N²."""
    ns, counts, gap = [2**p for p in range(4, 13)], [], 0.0
    for n in ns:
        x = np.random.default_rng(n).normal(size=n)
        count = [0]
        y = _fft(x.astype(complex), count)
        counts.append(count[0])
        gap = max(gap, float(np.max(np.abs(y - np.fft.fft(x)))))
    slope = float(np.polyfit(np.log(ns), np.log(np.array(counts) / np.log2(ns)), 1)[0])
    facts = [Fact("fft_counts", low=counts[0], high=counts[-1], n_low=ns[0], n_high=ns[-1],
                  slope=slope, square=ns[-1] ** 2, gap=gap)]
    return judge(version, facts,
                 note=(Fact("fft_n_log_n"), gap < 1e-9 and abs(slope - 1) < 0.05),
                 foil=(Fact("fft_n_squared"), gap < 1e-9 and abs(slope - 2) < 0.05))


@check(right="note", wrong="foil")
def attention_kernel_smoother(version):
    """Attention is a normalised kernel sum Σ_j K(q_i, k_j) v_j / Σ_j K(q_i, k_j); without the
    normalisation it is not."""
    rng = np.random.default_rng(22)
    q, k, v = rng.normal(size=(3, 2)), rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    kern = np.exp(q @ k.T / math.sqrt(2))
    forms = {"note": kern @ v / kern.sum(axis=1, keepdims=True), "foil": kern @ v}
    gap = float(np.max(np.abs(forms[version] - attention_loop(q, k, v))))
    claim = Fact("kernel_normalised" if version == "note" else "kernel_plain", gap=gap)
    return judge(version, [Fact("loop_setup")], **{version: (claim, gap < 1e-12)})


@check(right="note", wrong="foil")
def boltzmann_softmax(version):
    """The Boltzmann distribution p_i ∝ exp(−E_i/T) is softmax(−E/T), not softmax(E/T)."""
    energy, temp = np.array([0.5, 1.5, -0.2]), 0.7
    boltz = np.exp(-energy / temp) / np.sum(np.exp(-energy / temp))
    sign = {"note": -1, "foil": 1}[version]
    gap = float(np.max(np.abs(boltz - softmax(sign * energy / temp))))
    facts = [Fact("boltzmann", p=vec(boltz, ".4f"))]
    claim = Fact("boltzmann_minus" if sign < 0 else "boltzmann_plus", gap=gap)
    return judge(version, facts, **{version: (claim, gap < 1e-15)})


