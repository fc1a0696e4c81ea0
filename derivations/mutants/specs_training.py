"""The mutants of the training-step claims (LayerNorm, GELU, positions, embedding, mask,
multi-head, ignore_index, AdamW and clipping, the Hessian): realistic mistakes, one step each.

Same format as derivations/mutant_specs.py: claim id -> [(name, replaced step, lazy wrong expr)].
"""

from __future__ import annotations

import sympy as sp

_M = sp.ImmutableMatrix


def _layernorm(M) -> dict:
    x, d, i, j, k, g = M.x, M.d, M.i, M.j, M.k, M.g
    MU, VAR, SIG, xh = M.MU, M.VAR, M.SIGMA, M.xhat
    dl = sp.KroneckerDelta
    o, r, s, gam, xr = M.o, M.r, M.s, M.gamma, M.xh
    N = M.N
    return {
        "layernorm_centered_sum": [
            ("d μ dropped", 1, lambda: sp.Sum(x[k], (k, 1, d))),
            ("sign flip", 1, lambda: sp.Sum(x[k], (k, 1, d)) + d * MU),
            ("the sum of deviations taken as d μ", 2, lambda: d * MU),
        ],
        "layernorm_forward_moments": [
            ("σ_ε not squared", 1, lambda: _M([sp.Sum(x[i] - MU, (i, 1, d)) / (d * SIG),
                                               sp.Sum((x[i] - MU) ** 2, (i, 1, d)) / (d * SIG)])),
            ("mean of x̂ taken as μ/σ_ε", 3, lambda: _M([MU / SIG, VAR / SIG**2])),
            ("ε ignored: unit mean square", 3, lambda: _M([0, 1])),
        ],
        "layernorm_mean_derivative": [
            ("missing 1/d", 1, lambda: sp.Sum(dl(k, j), (k, 1, d))),
            ("∂μ/∂x_j = 1", 2, lambda: sp.Integer(1)),
            ("∂μ/∂x_j = 1/d²", 2, lambda: 1 / d**2),
        ],
        "layernorm_sigma_derivative": [
            ("σ_ε² for σ_ε in the chain rule", 1, lambda: sp.Sum(
                2 * (x[k] - MU) * (dl(k, j) - sp.Derivative(MU, x[j])), (k, 1, d))
             / (2 * d * SIG**2)),
            ("x̂_j without 1/d", 5, lambda: xh(j)),
            ("sign flip", 5, lambda: -xh(j) / d),
        ],
        "layernorm_xhat_derivative": [
            ("σ_ε squared in the first term", 2, lambda: (dl(i, j) - 1 / d) / SIG**2
             - (x[i] - MU) * xh(j) / (d * SIG**2)),
            ("mean term dropped", 3, lambda: (dl(i, j) - xh(i) * xh(j) / d) / SIG),
            ("x̂ projection dropped", 3, lambda: (dl(i, j) - 1 / d) / SIG),
        ],
        "layernorm_grad_input": [
            ("mean(g) dropped", 5, lambda: (g[j] - xh(j) * M.MEAN_GX) / SIG),
            ("x̂ projection dropped", 5, lambda: (g[j] - M.MEAN_G) / SIG),
            ("missing 1/σ_ε", 5, lambda: g[j] - M.MEAN_G - xh(j) * M.MEAN_GX),
        ],
        "layernorm_grad_affine": [
            ("β gradient not summed over rows", 2, lambda: _M([
                sp.Sum(o[r, j] * xr[r, j], (r, 1, N)), o[s, j], o[s, j] * gam[j]])),
            ("γ gradient without x̂", 2, lambda: _M([
                sp.Sum(o[r, j], (r, 1, N)), sp.Sum(o[r, j], (r, 1, N)), o[s, j] * gam[j]])),
            ("x̂ gradient without γ", 2, lambda: _M([
                sp.Sum(o[r, j] * xr[r, j], (r, 1, N)), sp.Sum(o[r, j], (r, 1, N)), o[s, j]])),
        ],
    }


def _gelu(M) -> dict:
    x, U, C, A, SIG = M.x, M.U, M.C, M.A, M.SIG
    att = M.residual
    W_1, W_2, G = att.W_1, att.W_2, M.G
    return {
        "gelu_exact_derivative": [
            ("product rule: the x Φ′ term dropped", 1, lambda: M.PHI_CDF),
            ("φ without 1/√(2π)", 2, lambda: M.PHI_CDF + x * sp.exp(-x**2 / 2)),
            ("sign flip", 2, lambda: M.PHI_CDF - x * M.PHI_PDF),
        ],
        "gelu_tanh_sigmoid": [
            ("missing ½", 1, lambda: x * (1 + (sp.exp(U) - sp.exp(-U)) / (sp.exp(U) + sp.exp(-U)))),
            ("σ(u) for σ(2u)", 3, lambda: x * M.sigmoid(U)),
            ("σ(−2u) for σ(2u)", 3, lambda: x * M.sigmoid(-2 * U)),
        ],
        "gelu_tanh_derivative": [
            ("σ only", 4, lambda: SIG),
            ("chain rule without 3a x²", 4, lambda: SIG + x * SIG * (1 - SIG) * 2 * C),
            ("factor 2 of σ(2u) dropped", 4,
             lambda: SIG + x * SIG * (1 - SIG) * C * (1 + 3 * A * x**2)),
        ],
        "mlp_identity_grad_input": [
            ("transposes missing", 3, lambda: W_2 * W_1 * G),
            ("bias counted in the gradient", 3,
             lambda: W_1.T * W_2.T * G + W_2 * att.b_1 + att.b_2),
            ("a residual identity added", 3, lambda: G + W_1.T * W_2.T * G),
        ],
    }


def _positions(M) -> dict:
    t, k, p, m, n, j, l, theta = M.t, M.k, M.p, M.m, M.n, M.j, M.l, M.theta
    c, s = sp.cos(theta), sp.sin(theta)
    a, b = M._a, M._b
    g1, g2 = M.g1, M.g2
    cl, sl = M._cs(p, l)
    q1, q2, k1, k2 = M.q1, M.q2, M.k1, M.k2

    def score(shift):
        kr = M.rope_out(k1[j], k2[j], shift, j)
        return q1[j] * kr[0] + q2[j] * kr[1]

    return {
        "sinusoidal_relative_offset": [
            ("angle addition sign error", 1, lambda: _M([
                sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b),
                sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b)])),
            ("map depends on t", 2, lambda: M.offset_map(t + k) * M.pe_pair(t)),
            ("transposed rotation", 2, lambda: M.offset_map(k).T * M.pe_pair(t)),
        ],
        "rope_rotation_orthogonal": [
            ("R R for RᵀR", 1, lambda: _M([[c**2 - s**2, -2 * s * c], [2 * s * c, c**2 - s**2]])),
            ("cos² − sin² on the diagonal", 1, lambda: _M([[c**2 - s**2, 0], [0, c**2 - s**2]])),
            ("off-diagonal 2 sin cos kept", 1,
             lambda: _M([[c**2 + s**2, 2 * s * c], [2 * s * c, c**2 + s**2]])),
        ],
        "rope_backward_transpose": [
            ("forward rotation for the backward", 3,
             lambda: _M([g1[l] * cl - g2[l] * sl, g1[l] * sl + g2[l] * cl])),
            ("sign flip on one sine", 3,
             lambda: _M([g1[l] * cl - g2[l] * sl, -g1[l] * sl + g2[l] * cl])),
            ("cosine only", 3, lambda: _M([g1[l] * cl, g2[l] * cl])),
        ],
        "rope_pair_relative": [
            ("absolute key position n", 2, lambda: score(n)),
            ("sum m + n", 2, lambda: score(m + n)),
            ("offset m − n", 2, lambda: score(m - n)),
        ],
        "rope_relative_position": [
            ("absolute key position n", 1, lambda: sp.Sum(score(n), (j, 0, M.h - 1))),
            ("sum m + n", 1, lambda: sp.Sum(score(m + n), (j, 0, M.h - 1))),
            ("offset m − n", 1, lambda: sp.Sum(score(m - n), (j, 0, M.h - 1))),
        ],
    }


def _embedding(M) -> dict:
    w, G, i, c, v, e, a, b, V = M.w, M.G, M.i, M.c, M.v, M.e, M.a, M.b, M.V
    dl = sp.KroneckerDelta
    return {
        "embedding_lookup": [
            ("transposed lookup E_ci", 3, lambda: w[c, i]),
            ("δ dropped: column sum", 2, lambda: sp.Sum(w[v, c], (v, 1, V))),
            ("off by one row", 3, lambda: w[i + 1, c]),
        ],
        "embedding_grad_one_hot": [
            ("GᵀX for XᵀG", 2, lambda: M.GM.T * M.X),
            ("mean over positions", 2, lambda: M.X.T * M.GM / M.T),
            ("sign flip", 2, lambda: -M.X.T * M.GM),
        ],
        "embedding_grad_scatter_add": [
            ("overwrite: the last position wins", 4,
             lambda: dl(a, v) * G[2, e] + dl(b, v) * G[3, e]),
            ("the first position wins", 4, lambda: dl(a, v) * G[1, e] + dl(b, v) * G[3, e]),
            ("mean over the repeats", 4,
             lambda: dl(a, v) * (G[1, e] + G[2, e]) / 2 + dl(b, v) * G[3, e]),
        ],
    }


def _mask(M) -> dict:
    z, i, j, Z, ZM, lim = M.z, M.i, M.j, M.Z, M.Z_MASKED, M._lim
    SH, DEN = M._SHIFTED, M._DENOM
    wi, wj = M.weight(i, False), M.weight(j, True)
    return {
        "causal_mask_weight_zero": [
            ("e^M dropped from the numerator", 1, lambda: lim(sp.exp(z[j]) / DEN)),
            ("masked weight normalised over all keys", 2, lambda: sp.exp(z[j]) / (Z + ZM)),
            ("masked weight normalised over the kept keys", 2, lambda: sp.exp(z[j]) / Z),
        ],
        "causal_mask_kept_softmax": [
            ("e^M dropped in the normaliser", 1, lambda: lim(sp.exp(z[i]) / (Z + ZM))),
            ("masked keys kept in the normaliser", 2, lambda: sp.exp(z[i]) / (Z + ZM)),
            ("no normaliser", 2, lambda: sp.exp(z[i])),
        ],
        "causal_mask_weight_derivative": [
            ("e^M of the masked score forgotten", 2,
             lambda: -sp.exp(z[i]) * sp.exp(z[j]) / (Z + SH) ** 2),
            ("δ_ij taken as 1", 2, lambda: wi * (1 - wj)),
            ("sign flip", 2, lambda: wi * wj),
        ],
        "causal_mask_zero_gradient": [
            ("masked weight without e^M", 1, lambda: lim(-wi * sp.exp(z[j]) / (Z + SH))),
            ("e^M dropped", 2, lambda: lim(-sp.exp(z[i]) * sp.exp(z[j]) / DEN**2)),
            ("gradient of the unmasked softmax", 3,
             lambda: -sp.exp(z[i]) * sp.exp(z[j]) / (Z + ZM) ** 2),
        ],
    }


def _multihead(M) -> dict:
    G, e, u, f, s, h = M.G, M.e, M.u, M.f, M.s, M.h
    P, V, dO, dS, Q, K, d_k, m = M.P, M.Vm, M.dO, M.dS, M.Q, M.K, M.d_k, M.m
    return {
        "split_heads_backward": [
            ("head and position swapped", 4, lambda: G[u, f, s]),
            ("head and width swapped", 4, lambda: G[s, u, f]),
            ("summed over the heads", 4, lambda: sp.Sum(G[e, u, s], (e, 1, h))),
        ],
        "attention_grad_values": [
            ("P dO for Pᵀ dO", 1, lambda: P * dO),
            ("sign flip", 1, lambda: -P.T * dO),
            ("mean over the keys", 1, lambda: P.T * dO / m),
        ],
        "attention_grad_probs": [
            ("dO V for dO Vᵀ", 2, lambda: dO * V),
            ("sign flip", 2, lambda: -dO * V.T),
            ("scaled by 1/√d_v", 2, lambda: dO * V.T / sp.sqrt(M.d_v)),
        ],
        "attention_grad_query": [
            ("scale dropped", 2, lambda: dS * K),
            ("1/d_k for 1/√d_k", 2, lambda: dS * K / d_k),
            ("dSᵀ K for dS K", 2, lambda: dS.T * K / sp.sqrt(d_k)),
        ],
        "attention_grad_key": [
            ("scale dropped", 2, lambda: dS.T * Q),
            ("1/d_k for 1/√d_k", 2, lambda: dS.T * Q / d_k),
            ("dS Q for dSᵀ Q", 2, lambda: dS * Q / sp.sqrt(d_k)),
        ],
    }


def _ignore_index(M) -> dict:
    w, a, j, B = M.wt, M.a, M.j, M.B
    p, y = M.batch_probability(a, j), M.Target(a, j)
    return {
        "cross_entropy_ignore_index": [
            ("mean over all B positions", 4, lambda: w[a] * (p - y) / B),
            ("ignored rows not zeroed", 4, lambda: (p - y) / M.COUNT),
            ("sum, no mean", 4, lambda: w[a] * (p - y)),
        ],
    }


def _hessian(M) -> dict:
    S = M.S
    z, i, j, k, n, x = M.z, M.i, M.j, M.k, M.n, M.x
    s = S.softmax
    dl = sp.KroneckerDelta
    return {
        "lse_gradient": [
            ("δ_ik dropped", 1, lambda: S.Z / S.Z),
            ("normaliser dropped", 1, lambda: sp.Sum(dl(i, k) * sp.exp(z[k]), (k, 1, n))),
            ("exp dropped: the derivative of Σ z_k", 1,
             lambda: sp.Sum(dl(i, k) * z[k], (k, 1, n)) / S.Z),
        ],
        "lse_gradient_softmax": [
            ("uniform 1/n", 1, lambda: 1 / n),
            ("e^{z_i} without the normaliser", 1, lambda: sp.exp(z[i])),
            ("log-softmax for softmax", 1, lambda: sp.log(s(i))),
        ],
        "lse_hessian": [
            ("diag(s) only", 2, lambda: s(i) * dl(i, j)),
            ("−ssᵀ only", 2, lambda: -s(i) * s(j)),
            ("sign flip", 2, lambda: s(i) * (s(j) - dl(i, j))),
        ],
        "lse_hessian_psd": [
            ("mean not subtracted", 2, lambda: sp.Sum(s(i) * x[i] ** 2, (i, 1, n))),
            ("unweighted squares", 2, lambda: sp.Sum((x[i] - S.MEAN_X) ** 2, (i, 1, n))),
            ("sign flip", 2, lambda: -S.QUADRATIC_FORM),
        ],
    }


def _adamw(M) -> dict:
    theta, g, eta, lam, eps = M.theta, M.g_, M.eta, M.lam, M.eps
    gp, thp = M.gp, M.thp
    c, a, gv, NORM, tau = M.c, M.a, M.gv, M.NORM, M.tau
    q, P = M.q, M.P
    return {
        "sgd_weight_decay_equivalence": [
            ("λ not scaled by θ", 1, lambda: theta - eta * g - eta * lam),
            ("decay without η", 2, lambda: theta * (1 - lam) - eta * g),
            ("decay factor 1 + ηλ", 2, lambda: theta * (1 + eta * lam) - eta * g),
        ],
        "adamw_decoupled_vs_l2": [
            ("common-denominator sign: +λθε", 2, lambda: eta * lam * thp + eta * lam * thp * eps
             / ((gp + eps) * (gp + lam * thp + eps))),
            ("no difference", 3, lambda: sp.Integer(0)),
            ("difference ηλθ exactly", 3, lambda: eta * lam * thp),
        ],
        "clip_scaled_norm": [
            ("c not squared inside", 1, lambda: sp.sqrt(c * sp.Sum(gv[q] ** 2, (q, 1, P)))),
            ("√c for c", 1, lambda: sp.sqrt(c) * NORM),
            ("norm unchanged", 1, lambda: NORM),
        ],
        "clip_preserves_direction": [
            ("c² kept outside the root", 1, lambda: c * gv[a] / (c**2 * NORM)),
            ("c not cancelled", 1, lambda: c * gv[a] / NORM),
            ("normalised by ‖g‖²", 1, lambda: gv[a] / NORM**2),
        ],
        "clip_norm_after": [
            ("guard ignored: exactly τ", 1, lambda: tau),
            ("τ/‖g‖", 1, lambda: tau / NORM),
            ("τ‖g‖", 1, lambda: tau * NORM),
        ],
    }


SPECS = {"layernorm": _layernorm, "gelu": _gelu, "positions": _positions,
         "embedding": _embedding, "mask": _mask, "multihead": _multihead,
         "ignore_index": _ignore_index, "hessian": _hessian, "adamw": _adamw}
