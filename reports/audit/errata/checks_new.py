"""Evidence for the claims found in the sentence-by-sentence re-reading of the notes.

Same contract as :mod:`reports.audit.evidence`: ``version`` picks the note's statement or the
correction; the facts are computed independently of both.
"""

from __future__ import annotations

import math

import numpy as np

from reports.audit.evidence import Result, check, num_jac, pick, softmax, stated


def _attention(x: np.ndarray, wq, wk, wv) -> np.ndarray:
    q, k, v = x @ wq, x @ wk, x @ wv
    return softmax(q @ k.T / math.sqrt(q.shape[1])) @ v


def _weights(rng, d_in: int = 6, d_k: int = 3):
    return tuple(rng.normal(size=(d_in, d_k)) for _ in range(3))


# ----------------------------------------------------------------------------- scores and softmax
@check
def uniform_equal_scores(version: str = "correction") -> Result:
    """The note's own example: q = k_j = (0.5, …, 0.5) at d_k = 4096, so every score is 1024 and
    the softmax row is uniform, with a Jacobian far from zero — not 0/1 weights, no vanishing."""
    n = 4
    claimed_max, claimed_jac = pick(version, note=(1.0, 0.0), correction=(1 / n, 1 / n))
    q, keys = np.full(4096, 0.5), np.full((n, 4096), 0.5)
    scores = keys @ q
    p = softmax(scores)
    jac = float(np.linalg.norm(np.diag(p) - np.outer(p, p), 2))
    return Result(abs(p.max() - claimed_max) < 1e-3 and abs(jac - claimed_jac) < 1e-3,
                  f"scores {scores.tolist()}; softmax = {np.round(p, 4).tolist()}; "
                  f"spectral norm of diag(p) - ppᵀ = {jac:.4f}; claimed max weight "
                  f"{claimed_max:.2f}, Jacobian norm {claimed_jac:.2f}")


@check
def softmax_large_inputs(version: str = "correction") -> Result:
    """Softmax saturates when the scores are spread out, not when they are large."""
    saturates = pick(version, note=lambda z: float(np.max(np.abs(z))) > 100,
                     correction=lambda z: float(np.ptp(z)) > 20)
    cases = [np.array([1000.0, 1000.1, 999.9]), np.array([64.0, 0.0, -64.0]),
             np.array([0.5, 0.4, 0.6])]
    rows, ok = [], True
    for z in cases:
        p = softmax(z)
        really = bool(p.max() > 0.99)
        ok &= saturates(z) == really
        rows.append(f"z = {z.tolist()}: max weight {p.max():.4f}, saturated: "
                    f"{'yes' if really else 'no'}, predicted: {'yes' if saturates(z) else 'no'}")
    return Result(ok, "; ".join(rows))


@check
def scaled_variance_scale(version: str = "correction") -> Result:
    """Var(qᵀk/√d_k) = σ_q²σ_k²: 1 only while the components keep unit variance."""
    rng = np.random.default_rng(60)
    d, rows, ok = 256, [], True
    for sd in (1.0, 3.0):
        target = pick(version, note=1.0, correction=sd**4)
        s = np.sum(rng.normal(0, sd, (20000, d)) * rng.normal(0, sd, (20000, d)), axis=1)
        var = float(np.var(s / math.sqrt(d)))
        ok &= abs(var / target - 1) < 0.1
        rows.append(f"σ_q = σ_k = {sd:g}: Var(qᵀk/√d_k) = {var:.2f} (Monte Carlo, 20000 draws, "
                    f"d_k = {d}), exact σ_q²σ_k² = {sd**4:g}, claimed {target:g}")
    return Result(ok, "; ".join(rows))


@check
def example_not_zero_mean(version: str = "correction") -> Result:
    """The 'random' example q = k = (0.5, 0.5) has mean 0.5 and variance 0, not mean 0, var 1."""
    mean_claim, var_claim = pick(version, note=(0.0, 1.0), correction=(0.5, 0.0))
    comps = np.array([0.5, 0.5])
    return Result(float(comps.mean()) == mean_claim and float(comps.var()) == var_claim,
                  f"components (0.5, 0.5): mean {comps.mean():g}, variance {comps.var():g}; "
                  f"the derivation assumed mean 0, variance 1; claimed mean {mean_claim:g}, "
                  f"variance {var_claim:g}")


@check
def scaled_constant_grows(version: str = "correction") -> Result:
    """With every component 0.5 the scaled score is 0.25·√d_k: it keeps growing."""
    law = pick(version, note=lambda d: 16.0, correction=lambda d: 0.25 * math.sqrt(d))
    rows, ok = [], True
    for d in (4096, 16384, 65536):
        got = float(np.full(d, 0.5) @ np.full(d, 0.5)) / math.sqrt(d)
        ok &= abs(got - law(d)) < 1e-9
        rows.append(f"d_k = {d}: {got:g} (claimed {law(d):g})")
    return Result(ok, "scaled score qᵀk/√d_k for q = k = (0.5, …): " + ", ".join(rows))


@check
def divisor_is_sqrt_dk(version: str = "correction") -> Result:
    """The divisor that restores unit variance is √d_k; 64 only when d_k = 4096."""
    divisor = pick(version, note=lambda d: 64.0, correction=lambda d: math.sqrt(d))
    rows, ok = [], True
    for d in (64, 512, 4096):
        var = d / divisor(d) ** 2  # Var(qᵀk) = d_k for unit-variance zero-mean components
        ok &= abs(var - 1) < 1e-12
        rows.append(f"d_k = {d}: divisor {divisor(d):g}, variance {var:.4g}")
    return Result(ok, "; ".join(rows))


# ----------------------------------------------------------------------------- dot products
def _alignment_vs_length(version: str) -> Result:
    """q = (1, 0); k₁ = (1, 0) is perfectly aligned, k₂ = (3, 3) is 45° off but longer."""
    rank = pick(version, note=lambda q, k: float(q @ k / (np.linalg.norm(q) * np.linalg.norm(k))),
                correction=lambda q, k: float(q @ k))
    q, keys = np.array([1.0, 0.0]), [np.array([1.0, 0.0]), np.array([3.0, 3.0])]
    w = softmax(np.array([q @ k for k in keys]))
    predicted = int(np.argmax([rank(q, k) for k in keys]))
    cosines = [float(q @ k / np.linalg.norm(k)) for k in keys]
    return Result(predicted == int(np.argmax(w)),
                  f"cos θ = {cosines[0]:.3f}, {cosines[1]:.3f}; scores qᵀk = 1, 3; weights "
                  f"{w[0]:.3f}, {w[1]:.3f}: the longer, less aligned key wins; predicted winner "
                  f"k{predicted + 1}")


@check
def dot_asks_alignment(version: str = "correction") -> Result:
    return _alignment_vs_length(version)


@check
def dot_ruler_direction(version: str = "correction") -> Result:
    return _alignment_vs_length(version)


@check
def aligned_more_attention(version: str = "correction") -> Result:
    return _alignment_vs_length(version)


# ----------------------------------------------------------------------------- architecture
@check
def positions_needed(version: str = "correction") -> Result:
    """Without positions self-attention is permutation-equivariant: reordering the other tokens
    leaves a token's output unchanged, so word order is invisible."""
    with_positions = pick(version, note=False, correction=True)
    rng = np.random.default_rng(61)
    emb, w = rng.normal(size=(3, 6)), _weights(rng)
    pos = np.array([[math.sin(p / 10 ** (2 * (i // 2) / 6) + (i % 2) * math.pi / 2)
                     for i in range(6)] for p in range(3)])

    def out(order):
        x = emb[order] + (pos if with_positions else 0)
        return _attention(x, *w)[0]  # the first token stays first

    gap = float(np.max(np.abs(out([0, 1, 2]) - out([0, 2, 1]))))
    return Result(gap > 1e-6, f"first token's output for orders (A, B, C) and (A, C, B): max "
                              f"difference {gap:.3g} ({'with' if with_positions else 'without'} "
                              "positional encodings)")


@check
def attention_output_needs_wv(version: str = "correction") -> Result:
    """The attention output is A·V = A·X·W_V, not A·X."""
    rng = np.random.default_rng(62)
    x, (wq, wk, wv) = rng.normal(size=(4, 6)), _weights(rng)
    a = softmax((x @ wq) @ (x @ wk).T / math.sqrt(3))
    candidate = pick(version, note=a @ x, correction=a @ x @ wv)
    ref = _attention(x, wq, wk, wv)
    same = candidate.shape == ref.shape and bool(np.allclose(candidate, ref, atol=1e-12))
    return Result(same, f"candidate shape {candidate.shape}, attention output shape {ref.shape}; "
                        f"equal: {'yes' if same else 'no'}")


@check
def attention_stack_nonlinear(version: str = "correction") -> Result:
    """Two attention layers with residuals and no MLP are still nonlinear in X (the softmax)."""
    claims_linear = pick(version, note=True, correction=False)
    rng = np.random.default_rng(63)
    x = rng.normal(size=(4, 6))
    w1 = (*_weights(rng, 6, 6),)
    w2 = (*_weights(rng, 6, 6),)

    def net(x):
        h = x + _attention(x, *w1)
        return h + _attention(h, *w2)

    gap = float(np.max(np.abs(net(2 * x) - 2 * net(x))))
    return Result((gap < 1e-9) == claims_linear,
                  f"two attention layers, no activation: max |f(2X) - 2f(X)| = {gap:.3g}; "
                  f"claimed linear: {'yes' if claims_linear else 'no'}")


@check
def rnn_gpu_parallel(version: str = "correction") -> Result:
    """One RNN step over a batch of B sequences is one matrix product of B·H independent dot
    products, and the input projections of all T steps are one product: parallel work the
    recurrence does not forbid."""
    rng = np.random.default_rng(64)
    b, t, d, hdim = 8, 5, 3, 4
    xs, u, w = rng.normal(size=(t, b, d)), rng.normal(size=(d, hdim)), rng.normal(size=(hdim, hdim))
    proj_all = (xs.reshape(t * b, d) @ u).reshape(t, b, hdim)  # all steps at once
    h, h_loop = np.zeros((b, hdim)), np.zeros((b, hdim))
    for step in range(t):
        h = np.tanh(h @ (0.5 * w) + proj_all[step])
        h_loop = np.array([np.tanh(h_loop[i] @ (0.5 * w) + xs[step, i] @ u) for i in range(b)])
    same = bool(np.allclose(h, h_loop, atol=1e-12))
    claimed = pick(version, note=1, correction=b * hdim)
    return Result(same and claimed == b * hdim,
                  f"B = {b} sequences, H = {hdim}: one step is {b * hdim} independent dot products "
                  f"(batched equals per-sequence: {'yes' if same else 'no'}); input projections of "
                  f"all {t} steps in one product; claimed parallel work per step {claimed}")


# ----------------------------------------------------------------------------- second checks
@check
def attention_jacobian_varies(version: str = "correction") -> Result:
    """A linear map has one Jacobian everywhere; self-attention's Jacobian (finite differences)
    changes with X."""
    claims_linear = stated(version, False)
    rng = np.random.default_rng(65)
    x, w = rng.normal(size=(3, 4)), _weights(rng, 4, 2)

    def f(v):
        return _attention(v.reshape(3, 4), *w).ravel()

    j1, j2 = num_jac(f, x.ravel()), num_jac(f, 2 * x.ravel())
    gap = float(np.max(np.abs(j1 - j2)))
    return Result((gap < 1e-6) == claims_linear,
                  f"max |J(X) - J(2X)| = {gap:.3g} by central differences (0 for a linear map)")


@check
def softmax_weights_positive(version: str = "correction") -> Result:
    """1000 random score vectors with entries in [-30, 30]: every weight is positive, and a score
    of 0 gets exactly 1/Σ e^{s_l}."""
    stated(version, None)
    rng = np.random.default_rng(66)
    z = rng.uniform(-30, 30, size=(1000, 6))
    z[:, 0] = 0.0
    p = softmax(z)
    exact = 1 / np.exp(z).sum(axis=1)
    gap = float(np.max(np.abs(p[:, 0] - exact)))
    return Result(bool(np.all(p > 0)) and gap < 1e-15,
                  f"smallest weight {p.min():.3g} > 0; weight of the zero score vs 1/Σe^s: "
                  f"max gap {gap:.2g}")


@check
def adam_diagonal_preconditioner(version: str = "correction") -> Result:
    """On a quadratic with a non-diagonal Hessian Newton's first step points at the minimum;
    Adam's first step is -η·sign(g), at an angle to it: no curvature information."""
    stated(version, None)
    h = np.array([[2.0, 1.5], [1.5, 2.0]])
    x0 = np.array([1.0, -0.2])
    g = h @ x0
    newton = -np.linalg.solve(h, g)
    adam = -0.1 * g / (np.abs(g) + 1e-8)
    cos = float(newton @ adam / (np.linalg.norm(newton) * np.linalg.norm(adam)))
    return Result(np.allclose(x0 + newton, 0) and cos < 0.99,
                  f"Newton step {np.round(newton, 4).tolist()} lands on 0; Adam step "
                  f"{np.round(adam, 4).tolist()}; cosine between them {cos:.3f}")


@check
def attention_edges_per_query(version: str = "correction") -> Result:
    """Weights computed one query at a time: n² positive weights, a_ij ≠ a_ji, self-weights > 0."""
    stated(version, None)
    rng = np.random.default_rng(67)
    n, q, k = 5, rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    a = np.array([softmax(np.array([q[i] @ k[j] for j in range(n)]) / 1.0) for i in range(n)])
    positive = int(np.sum(a > 0))
    asym = float(np.max(np.abs(a - a.T)))
    return Result(positive == n * n and asym > 1e-3 and bool(np.all(np.diag(a) > 0)),
                  f"n = {n}: {positive} positive weights, max |a_ij - a_ji| = {asym:.3f}, "
                  f"smallest self-weight {np.min(np.diag(a)):.3f}")
