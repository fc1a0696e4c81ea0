"""The mutants of every claim: (name, replaced step, wrong expression) per claim id.

Each function takes a derivation module and builds its mistakes from the module's own objects,
lazily (a lambda), because a mistake that breaks a shape raises while being built; see
derivations/mutants.py for how they are run and judged.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine.core.stochastic import E, Var
from derivations.mutants.specs_training import SPECS as TRAINING_SPECS


def _attention_scaling(M) -> dict:
    q, k, m, d_k = M.q, M.k, M.m, M.d_k
    mu_q, mu_k, s_q, s_k = M.mu_q, M.mu_k, M.sigma_q, M.sigma_k

    def total(f):  # a sum over the d_k entries
        return sp.Sum(f, (m, 1, d_k))

    return {
        "dot_product_mean": [
            ("sign flip", 3, lambda: total(-mu_q * mu_k)),
            ("second moment used for the mean", 3, lambda: total((s_q**2 + mu_q**2) * mu_k)),
            ("squared factor d_k", 4, lambda: d_k**2 * mu_q * mu_k),
        ],
        "dot_product_variance": [
            ("sign flip in Var = E[X²] − E[X]²", 2,
             lambda: total(E(q[m] ** 2 * k[m] ** 2) + E(q[m] * k[m]) ** 2)),
            ("missing square on the means", 3,
             lambda: total(E(q[m] ** 2) * E(k[m] ** 2) - E(q[m]) * E(k[m]))),
            ("mean terms dropped", 5, lambda: d_k * s_q**2 * s_k**2),
        ],
        "unit_dot_product_variance": [
            ("variance of a product as a sum of variances", 1,
             lambda: total(Var(q[m]) + Var(k[m]))),
            ("zero means taken to kill every term", 3, lambda: total(sp.Integer(0))),
            ("squared factor d_k", 4, lambda: d_k**2),
        ],
        "scaled_dot_product_variance": [
            ("scale not squared: Var(cX) = c Var(X)", 1, lambda: Var(M.DOT) / sp.sqrt(d_k)),
            ("1/d_k instead of 1/√d_k", 1, lambda: (1 / d_k) ** 2 * Var(M.DOT)),
            ("per-entry variance for the sum's", 3, lambda: 1 / d_k),
        ],
        "nonzero_mean_growth": [
            ("1/d_k instead of 1/√d_k", 1, lambda: E(M.DOT) / d_k),
            ("dropped factor d_k", 2, lambda: mu_q * mu_k / sp.sqrt(d_k)),
            ("scaling believed to remove the mean", 3, lambda: mu_q * mu_k),
        ],
        "scaled_dot_product_second_moment": [
            ("sign flip", 1, lambda: Var(M.SCALED) - E(M.SCALED) ** 2),
            ("scale not squared in the variance", 2,
             lambda: Var(M.DOT) / sp.sqrt(d_k) + E(M.DOT) ** 2 / d_k),
            ("dropped factor d_k", 4, lambda: M.TERM_VARIANCE + mu_q**2 * mu_k**2),
        ],
    }


def _softmax(M) -> dict:
    s, z, x, Z, delta = M.softmax, M.z, M.x, M.Z, M.delta
    i, j, k, l, n, c, T = M.i, M.j, M.k, M.l, M.n, M.c, M.T
    ei, ej = sp.exp(z[i]), sp.exp(z[j])
    sjx = sp.Sum(s(j) * x[j], (j, 1, n))
    shifted = M.normalizer(shift=-c)
    return {
        "softmax_jacobian": [
            ("sign flip in the quotient rule", 1, lambda: (delta(i, j) * ei * Z + ei * ej) / Z**2),
            ("dropped square of the normalizer", 1, lambda: (delta(i, j) * ei * Z - ei * ej) / Z),
            ("wrong index s_i s_i", 2, lambda: s(i) * delta(i, j) - s(i) * s(i)),
            ("missing Kronecker delta", 3, lambda: s(i) * (1 - s(j))),
        ],
        "softmax_jacobian_symmetric": [
            ("sign flip", 1, lambda: delta(i, j) * s(i) + s(i) * s(j)),
            ("missing Kronecker delta", 2, lambda: s(j) - s(j) * s(i)),
            ("wrong index s_j s_j", 2, lambda: delta(i, j) * s(j) - s(j) * s(j)),
        ],
        "softmax_jacobian_rows_sum_zero": [
            ("sign flip", 1, lambda: s(i) * sp.Sum(delta(i, j), (j, 1, n)) + s(i) * sp.Sum(
                s(j), (j, 1, n))),
            ("Σ_j δ_ij taken as n", 2, lambda: n * s(i) - s(i) * sp.Sum(s(j), (j, 1, n))),
            ("squared normalizer", 3,
             lambda: s(i) - s(i) * sp.Sum(sp.exp(z[j]), (j, 1, n)) / Z**2),
        ],
        "softmax_jacobian_vector_product": [
            ("sign flip", 1, lambda: s(i) * sp.Sum(delta(i, j) * x[j], (j, 1, n)) + s(i) * sjx),
            ("unweighted mean for the s-weighted one", 3,
             lambda: s(i) * x[i] - s(i) * sp.Sum(x[l], (l, 1, n)) / n),
            ("dropped ⟨g, s⟩ term", 4, lambda: s(i) * x[i]),
        ],
        "softmax_jacobian_psd": [
            ("dropped ⟨g, s⟩ term", 1, lambda: sp.Sum(x[i] * s(i) * x[i], (i, 1, n))),
            ("dropped weight s_i", 2, lambda: M.QUADRATIC_FORM + M.MEAN_X * sp.Sum(
                x[i] - M.MEAN_X, (i, 1, n))),
            ("missing square", 5, lambda: sp.Sum(s(i) * (x[i] - M.MEAN_X), (i, 1, n))),
        ],
        "softmax_shift_invariance": [
            ("sign flip of the shift", 1,
             lambda: sp.exp(-c) * ei / sp.Sum(sp.exp(c) * sp.exp(z[k]), (k, 1, n))),
            ("shift applied to the numerator only", 1, lambda: sp.exp(c) * ei / Z),
            ("constant factored out n times", 2, lambda: sp.exp(c) * ei / (n * sp.exp(c) * Z)),
        ],
        "log_sum_exp": [
            ("sign flip of the shift", 1,
             lambda: sp.log(sp.Sum(sp.exp(c) * sp.exp(z[k] + c), (k, 1, n)))),
            ("log of a product as a product of logs", 3,
             lambda: sp.log(sp.exp(c)) * sp.log(shifted)),
            ("sign flip of c", 4, lambda: -c + sp.log(shifted)),
        ],
        "softmax_temperature": [
            ("missing chain-rule factor 1/T", 1,
             lambda: (delta(i, j) * sp.exp(z[i] / T) * M.normalizer(T)
                      - sp.exp(z[i] / T) * sp.exp(z[j] / T)) / M.normalizer(T) ** 2),
            ("T instead of 1/T", 2, lambda: T * s(i, T) * (delta(i, j) - s(j, T))),
            ("missing Kronecker delta", 2, lambda: s(i, T) * (1 - s(j, T)) / T),
        ],
    }


def _cross_entropy(M) -> dict:
    z, n, j, k, l, a, b, c, B = M.z, M.n, M.j, M.k, M.l, M.a, M.b, M.c, M.B
    delta, p, P, y = M.delta, M.probability, M.batch_probability, M.Target
    return {
        "cross_entropy_log_softmax": [
            ("sign flip", 1, lambda: -(sp.log(sp.exp(z[k])) + M.LOG_NORMALIZER)),
            ("log of a quotient as a quotient of logs", 1,
             lambda: -sp.log(sp.exp(z[k])) / M.LOG_NORMALIZER),
            ("log-probability for the loss", 2, lambda: z[k] - M.LOG_NORMALIZER),
        ],
        "cross_entropy_gradient": [
            ("sign flip", 2, lambda: delta(j, k) + sp.exp(z[j]) / sp.Sum(sp.exp(z[l]), (l, 1, n))),
            ("wrong index p_k", 2, lambda: -delta(j, k) + p(k)),
            ("missing Kronecker delta", 3, lambda: p(j) - 1),
        ],
        "cross_entropy_batch_mean": [
            ("missing Kronecker delta δ_ab", 1, lambda: -sp.Sum(sp.Sum(
                y(b, c) * (delta(c, j) - P(b, j)), (c, 1, n)), (b, 1, B)) / B),
            ("sign flip", 3, lambda: (-P(a, j) * sp.Sum(y(a, c), (c, 1, n)) + y(a, j)) / B),
            ("CE gradient without 1/N", 4, lambda: P(a, j) - y(a, j)),
        ],
    }


def _linear(M) -> dict:
    X, W, G, b, ONES, n = M.X, M.W, M.G, M.b, M.ONES, M.n
    return {
        "linear_upstream_gradient": [
            ("sign flip", 1, lambda: -G),
            ("a square's factor 2", 1, lambda: 2 * G),
            ("spurious batch mean 1/n", 1, lambda: G / n),
        ],
        "linear_grad_weight": [
            ("sign flip", 2, lambda: -X.T * G),
            ("order swap XᵀG ↔ GᵀX", 2, lambda: G.T * X),
            ("bias leaked into the weight gradient", 2, lambda: X.T * (G + ONES * b.T)),
        ],
        "linear_grad_input": [
            ("sign flip", 3, lambda: -(W * G.T).T),
            ("∂tr(AX)/∂X = A without the transpose", 3, lambda: W * G.T),
            ("spurious batch mean 1/n", 4, lambda: G * W.T / n),
        ],
        "linear_grad_bias": [
            ("sign flip", 3, lambda: -G.T * ONES),
            ("mean over rows instead of the sum", 3, lambda: G.T * ONES / n),
            ("sum over the wrong axis G·1", 3, lambda: G * sp.OneMatrix(M.m, 1)),
        ],
        "qkv_accumulation": [
            ("sign flip on one term", 1, lambda: sp.Derivative(
                sp.Trace(M.W_Q * M.G_Q.T * X) - sp.Trace(M.W_K * M.G_K.T * X)
                + sp.Trace(M.W_V * M.G_V.T * X), X)),
            ("gradients paired with the wrong weights", 3,
             lambda: (M.W_Q * M.G_K.T + M.W_K * M.G_Q.T + M.W_V * M.G_V.T).T),
            ("overwritten instead of accumulated", 4, lambda: M.G_V * M.W_V.T),
        ],
    }


def _adam(M) -> dict:
    t, i, g, b1, b2 = M.t, M.i, M.g, M.beta_1, M.beta_2
    mu, sigma, m, v, alpha = M.mu, M.sigma, M.m, M.v, M.alpha
    a_, b_, eps, m_hat, theta = M._a, M._b, M.epsilon, M.m_hat, M.theta
    Mx, ema = sp.ImmutableMatrix, M.ema_closed

    def bias(beta, expected):
        w = sp.Sum(beta ** (t - i) * expected, (i, 1, t))
        return [
            ("(1 + β) instead of (1 − β)", 2, lambda: (1 + beta) * w),
            ("dropped factor (1 − β)", 2, lambda: w),
            ("the expectation taken as already unbiased", 3, lambda: expected),
        ]

    def unbiased(beta, expected, raw):
        corr = 1 - beta**t
        return [
            ("skipped bias correction", 2, lambda: corr * expected),
            ("divided by (1 − βᵗ)²", 1, lambda: E(raw[t]) / corr**2),
            ("divided by 1 + βᵗ", 1, lambda: E(raw[t]) / (1 + beta**t)),
        ]

    second = bias(b2, mu**2 + sigma**2)
    second[1] = ("E[g²] taken as μ²", 2,
                 lambda: (1 - b2) * sp.Sum(b2 ** (t - i) * mu**2, (i, 1, t)))
    def closed_form(beta, x):
        tail, x_t = sp.Sum(beta ** (t - i) * x, (i, 1, t - 1)), x.xreplace({i: t})
        return [
            ("newest term weighted by β", 1, lambda: (1 - beta) * (tail + beta * x_t)),
            ("exponent not lowered after factoring β", 2,
             lambda: (1 - beta) * beta * tail + (1 - beta) * x_t),
            ("dropped factor (1 − β)", 3, lambda: beta * ema(beta, x, t - 1) + x_t),
        ]

    return {
        "adam_first_moment_closed_form": closed_form(b1, g[i]),
        "adam_second_moment_closed_form": closed_form(b2, g[i] ** 2),
        "adam_moments_start_at_zero": [
            ("the first gradient counted at t = 0", 1, lambda: Mx([(1 - b1) * g[1], 0])),
            ("v_0 = 1", 1, lambda: Mx([0, 1])),
            ("the factors (1 − β) kept without their empty sums", 1,
             lambda: Mx([1 - b1, 1 - b2])),
        ],
        "adam_first_moment_bias": bias(b1, mu),
        "adam_second_moment_bias": second,
        "adam_first_moment_unbiased": unbiased(b1, mu, M.mt),
        "adam_second_moment_unbiased": unbiased(b2, mu**2 + sigma**2, M.vt),
        "adam_epsilon_placement": [
            ("sign flip", 1, lambda: alpha * m_hat * (1 / a_ - 1 / b_)),
            ("wrong conjugate a − b", 3,
             lambda: alpha * m_hat * (a_**2 - b_**2) / (a_ * b_ * (a_ - b_))),
            ("ε² dropped from (√v̂ + ε)²", 4,
             lambda: alpha * m_hat * eps * (2 * sp.sqrt(M.v_hat) - 1) / (a_ * b_ * (a_ + b_))),
        ],
        "adam_efficient_step": [
            ("ε̂ = ε without √(1 − β₂ᵗ)", 1,
             lambda: M.STEP_EFFICIENT - (theta - M.ALPHA_T * m / (sp.sqrt(v) + eps))),
            ("α_t without the 1/(1 − β₁ᵗ) bias correction", 1,
             lambda: M.STEP_EFFICIENT - (theta - alpha * sp.sqrt(M.BIAS_CORRECTION2) * m
                                         / (sp.sqrt(v) + M.EPS_HAT))),
            ("ε moved inside the root", 2, lambda: M.ALPHA_T * m * (
                1 / sp.sqrt(v + M.EPS_HAT) - 1 / sp.sqrt(v + M.eps_hat))),
        ],
    }


def _attention(M) -> dict:
    i, j, c, m, n, d_k, d_v, V, col = M.i, M.j, M.c, M.m, M.n, M.d_k, M.d_v, M.V, M._col
    softmax_of = M.sm.softmax_of

    def attention(logit):
        """Σ_j softmax_j(logit(i, ·)) V_jc over the m keys."""
        return sp.Sum(softmax_of(lambda u: logit(i, u), j, col, 0, m - 1) * V[j, c],
                      (j, 0, m - 1))

    top, bottom = M._MISPLACED_TOP, M._MISPLACED_BOTTOM
    s, a, ii, jj, N = M.s, M.a, M.i_key, M.j_key, M.N
    weighted = sp.Sum(a[ii] * s(ii), (ii, 1, N))
    return {
        "attention_shapes": [
            ("1/d_k instead of 1/√d_k", 1, lambda: attention(
                lambda r, u: M.score(r, u) / sp.sqrt(d_k))),
            ("dropped scale 1/√d_k", 1, lambda: attention(
                lambda r, u: M.score(r, u) * sp.sqrt(d_k))),
            ("softmax over the queries", 1, lambda: sp.Sum(
                sp.exp(M.score(i, j)) / sp.Sum(sp.exp(M.score(col, j)), (col, 0, n - 1))
                * V[j, c], (j, 0, m - 1))),
        ],
        "attention_weights_sum_to_one": [
            ("m ones counted", 2, lambda: m),
            ("normaliser squared", 1, lambda: M._ROW_TOTAL / M.weight(i, j).as_numer_denom()[1]
             ** 2),
            ("rows sum to zero, as the Jacobian's do", 2, lambda: sp.Integer(0)),
        ],
        "misplaced_bracket": [
            ("d_v ones counted", 2, lambda: d_v),
            ("exponent doubled", 1, lambda: sp.Sum(top ** 2, (c, 0, d_v - 1)) / bottom),
            ("normaliser squared", 1, lambda: sp.Sum(top, (c, 0, d_v - 1)) / bottom ** 2),
        ],
        "attention_softmax_backward": [
            ("missing Kronecker delta", 1, lambda: sp.Sum(a[ii] * s(ii) * (1 - s(jj)),
                                                          (ii, 1, N))),
            ("sign flip", 2, lambda: sp.Sum(a[ii] * s(ii) * sp.KroneckerDelta(ii, jj), (ii, 1, N))
             + s(jj) * weighted),
            ("wrong index s_j for s_i", 3, lambda: a[jj] * s(jj) - s(jj) * sp.Sum(
                a[ii] * s(jj), (ii, 1, N))),
            ("dropped ⟨g, s⟩ term", 4, lambda: s(jj) * a[jj]),
        ],
    }


def _residual(M) -> dict:
    x, W_1, W_2, b_2, I = M.x, M.W_1, M.W_2, M.b_2, sp.Identity(M.d)
    u = sp.Symbol("v")  # the claim's u is the pre-activation, a matrix of its own
    return {
        "residual_jacobian": [
            ("forgot the residual identity", 5, lambda: M.JACOBIAN_F),
            ("sign flip", 2, lambda: sp.MatAdd(I, -M.Jacobian(M.F, x))),
            # the block's weights are W₁ (d×h) and W₂ (h×d), a column's layer being Wᵀx
            ("tanh' taken as 1 + tanh²", 4, lambda: sp.MatAdd(I, sp.MatMul(
                M.W_OUT.T, M.Diag(M.PRE.applyfunc(sp.Lambda(u, 1 + sp.tanh(u) ** 2))),
                M.Jacobian(M.PRE, x)))),
            ("untransposed order W₁ diag W₂", 5, lambda: sp.MatAdd(
                I, sp.MatMul(M.W_IN, M.SLOPE, M.W_OUT))),
        ],
        "mlp_collapse": [
            ("dropped bias b₂", 1, lambda: W_2 * W_1 * x + W_2 * M.b_1),
            ("b₁ not passed through W₂", 1, lambda: W_2 * W_1 * x + b_2),
            ("order swap W₂W₁ ↔ W₁ᵀW₂ᵀ", 2, lambda: (W_1.T * W_2.T) * x + (W_2 * M.b_1 + b_2)),
        ],
    }


def _heads_shapes(M) -> dict:
    H, W_O, h, d_v, i, c, e, t = M.H, M.W_O, M.h, M.d_v, M.i, M.c, M.e, M.t
    return {
        "multihead_shapes": [
            ("only the first head", 2, lambda: sp.Sum(H[0, i, t] * W_O[t, c], (t, 0, d_v - 1))),
            ("heads paired with the wrong W_O blocks", 2, lambda: sp.Sum(
                H[e, i, t] * W_O[(h - 1 - e) * d_v + t, c], (t, 0, d_v - 1), (e, 0, h - 1))),
            ("mean of the heads", 2, lambda: M.PER_HEAD / h),
        ],
    }


SPECS = {"attention_scaling": _attention_scaling, "softmax": _softmax,
         "cross_entropy": _cross_entropy, "linear": _linear, "adam": _adam,
         "attention": _attention, "residual": _residual, "heads_shapes": _heads_shapes,
         **TRAINING_SPECS}


