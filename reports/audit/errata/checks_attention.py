"""Confirming computations for correct claims about embeddings, score variance and attention.

Same contract as :mod:`reports.audit.evidence`: each function takes ``version`` and returns a
``Result``. Since these claims are right, the note's version and the correction coincide, and a
test checks that both pass — a failure here would mean the verdict ``correct`` is wrong.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from reports.audit.evidence import (
    Result,
    attention_loop,
    check,
    softmax,
    stated,
)


# ----------------------------------------------------------------------------- embeddings
@check
def onehot_orthogonal(version: str = "correction") -> Result:
    off_diag = stated(version, 0)
    e = np.eye(5)
    gram = e @ e.T
    worst = float(np.max(np.abs(gram - np.diag(np.diag(gram)))))
    return Result(worst == off_diag, f"Gram matrix of 5 one-hot vectors is I_5; max off-diagonal "
                  f"dot product = {worst} (every pair of distinct words equally dissimilar)")


@check
def embedding_lookup(version: str = "correction") -> Result:
    shape = stated(version, (4,))
    emb = np.random.default_rng(10).normal(size=(6, 4))
    rows_ok = all(np.array_equal(emb.T @ np.eye(6)[i], emb[i]) for i in range(6))
    return Result(rows_ok and (emb.T @ np.eye(6)[2]).shape == shape,
                  f"E ∈ R^(6×4): Eᵀe_i equals row i of E for all i: {rows_ok}; "
                  f"shape (d,) = {shape}")


@check
def dot_cos_identity(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(11)
    gaps = []
    for _ in range(5):
        v, w = rng.normal(size=2), rng.normal(size=2)
        theta = math.atan2(v[1], v[0]) - math.atan2(w[1], w[0])
        gaps.append(abs(v @ w - np.linalg.norm(v) * np.linalg.norm(w) * math.cos(theta)))
    return Result(max(gaps) < 1e-12,
                  f"max |v·w - |v||w|cos θ| over 5 random pairs = {max(gaps):.2g}")


@check
def dot_examples(version: str = "correction") -> Result:
    claimed = stated(version, (1, 0, -1))
    a = np.array([1, 0])
    got = tuple(int(a @ np.array(b)) for b in ((1, 0), (0, 1), (-1, 0)))
    return Result(got == claimed, f"(1,0)·(1,0), (1,0)·(0,1), (1,0)·(-1,0) = {got}")


# ----------------------------------------------------------------------------- variance
def _pm_sqrt2():
    """Mean 0, variance 1, not ±1: P(±√2) = 1/4, P(0) = 1/2."""
    return [(-sp.sqrt(2), sp.Rational(1, 4)), (sp.Integer(0), sp.Rational(1, 2)),
            (sp.sqrt(2), sp.Rational(1, 4))]


def _exact_var_of_dot(d: int, scale) -> sp.Expr:
    """Exact Var(scale·Σ q_m k_m) with all 2d components i.i.d. from _pm_sqrt2()."""
    mean = second = sp.Integer(0)
    for combo in itertools.product(_pm_sqrt2(), repeat=2 * d):
        val = scale * sum(combo[m][0] * combo[d + m][0] for m in range(d))
        p = sp.Mul(*(c[1] for c in combo))
        mean += p * val
        second += p * val**2
    return sp.simplify(second - mean**2)


@check
def product_variance(version: str = "correction") -> Result:
    claimed = stated(version, 1)
    dist = _pm_sqrt2()
    e = sum(p * x for x, p in dist)
    e2 = sum(p * x**2 for x, p in dist)
    direct = _exact_var_of_dot(1, 1)
    return Result(sp.simplify(e2 * e2 - (e * e) ** 2) == claimed and direct == claimed,
                  f"E[q]={e}, E[q²]={e2}; E[q²]E[k²] - (E[q]E[k])² = {e2 * e2 - (e * e) ** 2}; "
                  f"Var(q·k) by enumeration = {direct}")


@check
def dot_variance(version: str = "correction") -> Result:
    law = stated(version, lambda d: d)
    got = {d: _exact_var_of_dot(d, 1) for d in (1, 2, 3)}
    return Result(all(v == law(d) for d, v in got.items()),
                  f"exact Var(qᵀk) by enumeration for d_k = 1, 2, 3: {list(got.values())}")


@check
def scaled_variance(version: str = "correction") -> Result:
    target = stated(version, 1)
    got = [_exact_var_of_dot(d, 1 / sp.sqrt(d)) for d in (1, 2, 3)]
    return Result(all(v == target for v in got),
                  f"exact Var(qᵀk/√d_k) for d_k = 1, 2, 3: {got}")


def _mc_scores(d: int, samples: int = 2000, seed: int = 12) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(samples // 500):  # chunks keep memory small at d = 4096
        out.append(np.einsum("ij,ij->i", rng.normal(size=(500, d)), rng.normal(size=(500, d))))
    return np.concatenate(out)


@check
def std_sqrt_dk(version: str = "correction") -> Result:
    std = stated(version, lambda d: math.sqrt(d))
    s = _mc_scores(64)
    return Result(abs(s.std() / std(64) - 1) < 0.06,
                  f"d_k=64, 2000 Gaussian samples: std(qᵀk) = {s.std():.2f}, √d_k = {std(64):g}")


def _scores_scale(version: str, d: int) -> Result:
    rms = stated(version, math.sqrt(d))
    s = _mc_scores(d)
    inside = float(np.mean(np.abs(s) <= rms))
    return Result(abs(np.sqrt(np.mean(s**2)) / rms - 1) < 0.06,
                  f"d_k={d}: RMS score {np.sqrt(np.mean(s**2)):.2f} (stated scale ±{rms:g}); "
                  f"{inside:.0%} of scores inside ±{rms:g}, max |score| {np.max(np.abs(s)):.1f}")


@check
def scores_scale_64(version: str = "correction") -> Result:
    return _scores_scale(version, 64)


@check
def scores_scale_4096(version: str = "correction") -> Result:
    return _scores_scale(version, 4096)


@check
def softmax_saturation(version: str = "correction") -> Result:
    """Unscaled scores at d_k = 4096 give near one-hot rows and a vanishing Jacobian."""
    stated(version, None)
    rng = np.random.default_rng(13)
    stats = {}
    for name, div in (("unscaled", 1.0), ("scaled", 64.0)):
        pmax, jn = [], []
        for _ in range(20):
            s = rng.normal(size=(16, 4096)) @ rng.normal(size=4096) / div
            p = softmax(s)
            pmax.append(p.max())
            jn.append(np.linalg.norm(np.diag(p) - np.outer(p, p), 2))
        stats[name] = (float(np.median(pmax)), float(np.median(jn)))
    u, c = stats["unscaled"], stats["scaled"]
    return Result(u[0] > 0.99 and u[1] < 1e-2 and c[1] > 0.1,
                  f"16 keys, median over 20 queries: unscaled max weight {u[0]:.6f}, ||J|| "
                  f"{u[1]:.2g}; divided by √d_k: max weight {c[0]:.3f}, ||J|| {c[1]:.3f}")


# ----------------------------------------------------------------------------- attention
@check
def attention_formula(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(14)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    gap = float(np.max(np.abs(softmax(q @ k.T / math.sqrt(3)) @ v - attention_loop(q, k, v))))
    return Result(gap < 1e-12, "all rows at once as softmax(QKᵀ/√d_k)V vs one query at a time: "
                  f"max difference {gap:.2g}")


@check
def attention_row_mixing(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(15)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    a = softmax(q @ k.T / math.sqrt(3))
    out = a @ v
    convex = bool(np.all(out >= v.min(axis=0) - 1e-12) and np.all(out <= v.max(axis=0) + 1e-12))
    ok = a.shape == (5, 5) and bool(np.all(a > 0)) and np.allclose(a.sum(axis=1), 1) and convex
    return Result(ok, f"A shape {a.shape}, min weight {a.min():.3f}, row sums "
                  f"{np.round(a.sum(axis=1), 12).tolist()}; each output column lies within the "
                  f"range of V's column: {convex}")


@check
def qk_entry(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(16)
    q, k = rng.normal(size=(4, 3)), rng.normal(size=(6, 3))
    s = q @ k.T
    ok = s.shape == (4, 6) and all(
        abs(s[i, j] - sum(q[i, m] * k[j, m] for m in range(3))) < 1e-12
        for i in range(4) for j in range(6))
    return Result(ok, f"QKᵀ shape {s.shape} (queries × keys); entry (i,j) = Σ_m q_im k_jm: {ok}; "
                  f"QKᵀ symmetric: {bool(np.allclose(q[:4] @ k[:4].T, (q[:4] @ k[:4].T).T))}")


@check
def attention_shapes(version: str = "correction") -> Result:
    n, d_model, d_k = stated(version, (5, 16, 4))
    rng = np.random.default_rng(17)
    x = rng.normal(size=(n, d_model))
    wq, wk, wv = (rng.normal(size=(d_model, d_k)) for _ in range(3))
    q, k, v = x @ wq, x @ wk, x @ wv
    out = softmax(q @ k.T / math.sqrt(d_k)) @ v
    return Result(q.shape == k.shape == (n, d_k) and out.shape == (n, d_k),
                  f"X {x.shape}, W {wq.shape}: Q, K, V {q.shape}, A {(n, n)}, output {out.shape}")


@check
def multihead_shapes(version: str = "correction") -> Result:
    h, d_model = stated(version, (8, 512))
    d_k = d_model // h
    rng = np.random.default_rng(18)
    x = rng.normal(size=(3, d_model))
    heads = []
    for _ in range(h):
        wq, wk, wv = (rng.normal(size=(d_model, d_k)) / math.sqrt(d_model) for _ in range(3))
        heads.append(softmax((x @ wq) @ (x @ wk).T / math.sqrt(d_k)) @ (x @ wv))
    concat = np.concatenate(heads, axis=1)
    out = concat @ rng.normal(size=(h * d_k, d_model))
    return Result(d_k * h == d_model and concat.shape == (3, 512) and out.shape == (3, 512),
                  f"d_k = {d_model}/{h} = {d_k}; Concat shape {concat.shape}; W_O "
                  f"({h * d_k}, {d_model}); output {out.shape}")


@check
def weighted_input_then_project(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(19)
    x, wv = rng.normal(size=(4, 6)), rng.normal(size=(6, 3))
    a = softmax(rng.normal(size=(4, 4)))
    gap = float(np.max(np.abs(a @ (x @ wv) - (a @ x) @ wv)))
    return Result(gap < 1e-12, f"max |A(XW_V) - (AX)W_V| = {gap:.2g}: weighting the raw input "
                  "then projecting equals weighting V")


@check
def naive_self_attention(version: str = "correction") -> Result:
    stated(version, None)
    x = np.random.default_rng(20).normal(size=(4, 3))
    s = x @ x.T
    out = softmax(s) @ x
    return Result(s.shape == (4, 4) and out.shape == (4, 3) and np.allclose(s, s.T),
                  f"XXᵀ {s.shape}, symmetric {bool(np.allclose(s, s.T))} (one vector plays query "
                  f"and key); softmax(XXᵀ)X {out.shape}")


@check
def scores_not_distribution(version: str = "correction") -> Result:
    stated(version, None)
    rng = np.random.default_rng(21)
    s = rng.normal(size=(4, 3)) @ rng.normal(size=(4, 3)).T
    return Result(bool(s.min() < 0) and not np.allclose(s.sum(axis=1), 1),
                  f"QKᵀ entries range {s.min():.2f}..{s.max():.2f}; row sums "
                  f"{np.round(s.sum(axis=1), 2).tolist()}")


@check
def attention_kernel_smoother(version: str = "correction") -> Result:
    """Attention is a normalised kernel sum Σ_j K(q_i,k_j) v_j / Σ_j K(q_i,k_j)."""
    stated(version, None)
    rng = np.random.default_rng(22)
    q, k, v = rng.normal(size=(3, 2)), rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    kern = np.exp(q @ k.T / math.sqrt(2))
    smoothed = kern @ v / kern.sum(axis=1, keepdims=True)
    gap = float(np.max(np.abs(smoothed - attention_loop(q, k, v))))
    return Result(gap < 1e-12, f"normalised-kernel form vs attention: max difference {gap:.2g}")
