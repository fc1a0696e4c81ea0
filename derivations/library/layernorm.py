"""Layer normalisation over d features, d symbolic: forward statistics and every gradient.

One row x ∈ ℝ^d: μ = (1/d) Σ_k x_k, σ² = (1/d) Σ_k (x_k − μ)² (biased, as the model computes it),
σ_ε = √(σ² + ε) with ε > 0, x̂_i = (x_i − μ)/σ_ε, y_i = γ_i x̂_i + β_i.  With g = ∂L/∂x̂ (the model's
ĝ = dout ⊙ γ) the input gradient is

    ∂L/∂x_j = (1/σ_ε) (g_j − mean(g) − x̂_j · mean(g ⊙ x̂)),

built from two lemmas: ∂μ/∂x_j = 1/d and ∂σ_ε/∂x_j = x̂_j/d; the latter rests on Σ_k (x_k − μ) = 0.
Over N rows y_{r,i} = γ_i x̂_{r,i} + β_i: ∂L/∂γ_j = Σ_r o_{r,j} x̂_{r,j}, ∂L/∂β_j = Σ_r o_{r,j} and
∂L/∂x̂_{r,j} = o_{r,j} γ_j for upstream o = ∂L/∂y.

Domain: ε > 0 keeps σ_ε > 0 for every x, constant rows included; every other value is any real.

Final results: ``MU``, ``VAR``, ``SIGMA``, ``xhat(a)``, ``GRAD_INPUT`` (in ``j``, ``d``, ``x``,
``g``), ``XHAT_DERIVATIVE``, ``GRAD_AFFINE``.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Step, lemma
from derivations.library.rules import DIFF_UNDER_SUM

d = sp.Symbol("d", integer=True, positive=True)
N = sp.Symbol("N", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True, positive=True)
r, s = sp.symbols("r s", integer=True, positive=True)
x = sp.IndexedBase("x", real=True)
g = sp.IndexedBase("g", real=True)  # ∂L/∂x̂ for one row
o = sp.IndexedBase("o", real=True)  # ∂L/∂y over N rows
xh = sp.IndexedBase("xhat", real=True)  # x̂ over N rows, an input of the affine map
gamma = sp.IndexedBase("gamma", real=True)
beta = sp.IndexedBase("beta", real=True)
eps = sp.Symbol("epsilon", positive=True)
delta = sp.KroneckerDelta

MU = sp.Sum(x[k], (k, 1, d)) / d
VAR = sp.Sum((x[k] - MU) ** 2, (k, 1, d)) / d
SIGMA = sp.sqrt(VAR + eps)


def xhat(a):
    return (x[a] - MU) / SIGMA


MEAN_G = sp.Sum(g[i], (i, 1, d)) / d
MEAN_GX = sp.Sum(g[i] * xhat(i), (i, 1, d)) / d
GRAD_INPUT = (g[j] - MEAN_G - xhat(j) * MEAN_GX) / SIGMA

ROW = Domain(dims=(d,), indices={j: (1, d)})

# names for the row statistics: none depends on a summation index, and the steps that use them
# take no derivative
MU_S, SIG_S = sp.Symbol("mu", real=True), sp.Symbol("sigma_epsilon", positive=True)
STATS = Assumption(
    "names for the row statistics",
    "mu = (1/d) sum_k x_k and sigma_epsilon = sqrt(sigma^2 + epsilon) > 0 are constants of the "
    "row; no summation index appears in them.",
    r"\mu = \tfrac1d\sum_k x_k,\ \sigma_\varepsilon = \sqrt{\sigma^2+\varepsilon} > 0",
    # the sums themselves are named: μ and σ_ε occur inside sums and powers, not as subterms
    rewrites=((sp.Sum((x[k] - MU) ** 2, (k, 1, d)), d * (SIG_S**2 - eps)),
              (sp.Sum(x[k], (k, 1, d)), d * MU_S)), kind="lemma")

layernorm_centered_sum = Derivation(
    "layernorm_centered_sum",
    "LayerNorm: the deviations from the mean sum to zero, Σ_k (x_k − μ) = 0",
    sp.Eq(sp.Sum(x[k] - MU, (k, 1, d)), 0, evaluate=False),
    (),
    (
        Step(sp.Add(sp.Sum(x[k], (k, 1, d)), -sp.Mul(d, MU, evaluate=False), evaluate=False),
             "linearity of the sum; μ is constant in k"),
        Step(sp.Integer(0), "d μ = Σ_k x_k"),
    ),
    Domain(dims=(d,)),
)

_RENAME = Assumption(
    "bound index renaming",
    "A summation index is a bound name: sum_i (x_i - mu) = sum_k (x_k - mu), and likewise for "
    "the squares.",
    r"\sum_i (x_i-\mu) = \sum_k (x_k-\mu)",
    rewrites=((sp.Sum(x[i] - MU, (i, 1, d)), sp.Sum(x[k] - MU, (k, 1, d))),
              (sp.Sum((x[i] - MU) ** 2, (i, 1, d)), d * VAR)),
    kind="lemma")

layernorm_forward_moments = Derivation(
    "layernorm_forward_moments",
    "LayerNorm forward: x̂ has mean 0 and mean square σ²/(σ² + ε)",
    sp.Eq(sp.ImmutableMatrix([sp.Sum(xhat(i), (i, 1, d)) / d, sp.Sum(xhat(i) ** 2, (i, 1, d)) / d]),
          sp.ImmutableMatrix([0, VAR / (VAR + eps)]), evaluate=False),
    (lemma(layernorm_centered_sum), STATS, _RENAME),
    (
        Step(sp.ImmutableMatrix([sp.Sum(x[i] - MU, (i, 1, d)) / (d * SIGMA),
                                 sp.Sum((x[i] - MU) ** 2, (i, 1, d)) / (d * SIGMA**2)]),
             "σ_ε is constant in i", ("names for the row statistics",)),
        Step(sp.ImmutableMatrix([sp.Sum(x[k] - MU, (k, 1, d)) / (d * SIGMA), VAR / SIGMA**2]),
             "rename the bound index i to k; definition of σ²", ("bound index renaming",)),
        Step(sp.ImmutableMatrix([0, VAR / (VAR + eps)]), "Σ_k (x_k − μ) = 0; σ_ε² = σ² + ε",
             ("layernorm_centered_sum",)),
    ),
    ROW,
)

layernorm_mean_derivative = Derivation(
    "layernorm_mean_derivative",
    "LayerNorm: ∂μ/∂x_j = 1/d",
    sp.Eq(sp.Derivative(MU, x[j]), 1 / d, evaluate=False),
    (),
    (
        Step(sp.Sum(delta(k, j), (k, 1, d)) / d, "linearity; ∂x_k/∂x_j = δ_kj"),
        Step(1 / d, "Σ_k δ_kj = 1 for 1 ≤ j ≤ d"),
    ),
    ROW,
)

_DEV_SUM = sp.Sum(x[k] - MU, (k, 1, d))

layernorm_sigma_derivative = Derivation(
    "layernorm_sigma_derivative",
    "LayerNorm: ∂σ_ε/∂x_j = x̂_j/d",
    sp.Eq(sp.Derivative(SIGMA, x[j]), xhat(j) / d, evaluate=False),
    (lemma(layernorm_centered_sum), lemma(layernorm_mean_derivative)),
    (
        Step(sp.Sum(2 * (x[k] - MU) * (delta(k, j) - sp.Derivative(MU, x[j])), (k, 1, d))
             / (2 * d * SIGMA), "chain rule: ∂√u = ∂u/(2√u); ∂(x_k − μ)² = 2(x_k − μ)∂(x_k − μ)"),
        Step(sp.Sum(2 * (x[k] - MU) * (delta(k, j) - 1 / d), (k, 1, d)) / (2 * d * SIGMA),
             "∂μ/∂x_j = 1/d", ("layernorm_mean_derivative",)),
        Step((sp.Sum((x[k] - MU) * delta(k, j), (k, 1, d)) - _DEV_SUM / d) / (d * SIGMA),
             "linearity of the sum"),
        Step((x[j] - MU - _DEV_SUM / d) / (d * SIGMA), "Σ_k δ_kj f(k) = f(j) for 1 ≤ j ≤ d"),
        Step(xhat(j) / d, "Σ_k (x_k − μ) = 0; x̂_j = (x_j − μ)/σ_ε", ("layernorm_centered_sum",)),
    ),
    ROW,
)

_dmu, _dsig = sp.Derivative(MU, x[j]), sp.Derivative(SIGMA, x[j])
XHAT_DERIVATIVE = (delta(i, j) - 1 / d - xhat(i) * xhat(j) / d) / SIGMA

layernorm_xhat_derivative = Derivation(
    "layernorm_xhat_derivative",
    "LayerNorm: ∂x̂_i/∂x_j = (δ_ij − 1/d − x̂_i x̂_j/d)/σ_ε",
    sp.Eq(sp.Derivative(xhat(i), x[j]), XHAT_DERIVATIVE, evaluate=False),
    (lemma(layernorm_mean_derivative), lemma(layernorm_sigma_derivative)),
    (
        Step((delta(i, j) - _dmu) / SIGMA - (x[i] - MU) * _dsig / SIGMA**2,
             "quotient rule on (x_i − μ)/σ_ε; ∂x_i/∂x_j = δ_ij"),
        Step((delta(i, j) - 1 / d) / SIGMA - (x[i] - MU) * xhat(j) / (d * SIGMA**2),
             "∂μ/∂x_j = 1/d and ∂σ_ε/∂x_j = x̂_j/d",
             ("layernorm_mean_derivative", "layernorm_sigma_derivative")),
        Step(XHAT_DERIVATIVE, "(x_i − μ)/σ_ε = x̂_i"),
    ),
    Domain(dims=(d,), indices={i: (1, d), j: (1, d)}),
)

_LOSS = sp.Sum(g[i] * xhat(i), (i, 1, d))

layernorm_grad_input = Derivation(
    "layernorm_grad_input",
    "LayerNorm backward: ∂L/∂x = (1/σ_ε)(g − mean(g) − x̂·mean(g⊙x̂)) for g = ∂L/∂x̂",
    sp.Eq(sp.Derivative(_LOSS, x[j]), GRAD_INPUT, evaluate=False),
    (DIFF_UNDER_SUM, lemma(layernorm_xhat_derivative), STATS),
    (
        Step(sp.Sum(g[i] * sp.Derivative(xhat(i), x[j]), (i, 1, d)),
             "differentiation under a finite sum; g does not depend on x",
             ("differentiation under a finite sum",)),
        Step(sp.Sum(g[i] * XHAT_DERIVATIVE, (i, 1, d)), "∂x̂_i/∂x_j",
             ("layernorm_xhat_derivative",)),
        Step((sp.Sum(g[i] * delta(i, j), (i, 1, d)) - sp.Sum(g[i], (i, 1, d)) / d
              - sp.Sum(g[i] * xhat(i) * xhat(j), (i, 1, d)) / d) / SIGMA,
             "linearity of the sum; σ_ε is constant in i", ("names for the row statistics",)),
        Step((sp.Sum(g[i] * delta(i, j), (i, 1, d)) - sp.Sum(g[i], (i, 1, d)) / d
              - xhat(j) * sp.Sum(g[i] * xhat(i), (i, 1, d)) / d) / SIGMA,
             "x̂_j is constant in i", ("names for the row statistics",)),
        Step(GRAD_INPUT, "Σ_i g_i δ_ij = g_j for 1 ≤ j ≤ d", ("names for the row statistics",)),
    ),
    ROW,
)

_AFFINE_LOSS = sp.Sum(sp.Sum(o[r, i] * (gamma[i] * xh[r, i] + beta[i]), (i, 1, d)), (r, 1, N))
GRAD_AFFINE = sp.ImmutableMatrix([sp.Sum(o[r, j] * xh[r, j], (r, 1, N)), sp.Sum(o[r, j], (r, 1, N)),
                                  o[s, j] * gamma[j]])

layernorm_grad_affine = Derivation(
    "layernorm_grad_affine",
    "LayerNorm backward over N rows: ∂L/∂γ = Σ_r o_r ⊙ x̂_r, ∂L/∂β = Σ_r o_r, ∂L/∂x̂ = o ⊙ γ",
    sp.Eq(sp.ImmutableMatrix([sp.Derivative(_AFFINE_LOSS, gamma[j]),
                              sp.Derivative(_AFFINE_LOSS, beta[j]),
                              sp.Derivative(_AFFINE_LOSS, xh[s, j])]), GRAD_AFFINE, evaluate=False),
    (),
    (
        Step(sp.ImmutableMatrix([
            sp.Sum(sp.Sum(o[r, i] * xh[r, i] * delta(i, j), (i, 1, d)), (r, 1, N)),
            sp.Sum(sp.Sum(o[r, i] * delta(i, j), (i, 1, d)), (r, 1, N)),
            sp.Sum(sp.Sum(o[r, i] * gamma[i] * delta(r, s) * delta(i, j), (i, 1, d)), (r, 1, N))]),
            "linearity; ∂γ_i/∂γ_j = δ_ij, ∂x̂_{r,i}/∂x̂_{s,j} = δ_rs δ_ij"),
        Step(GRAD_AFFINE, "Σ_i δ_ij f(i) = f(j) for 1 ≤ j ≤ d; Σ_r δ_rs f(r) = f(s) for 1 ≤ s ≤ N"),
    ),
    Domain(dims=(d, N), indices={j: (1, d), s: (1, N)}, max_dim=3),
)

CLAIMS = (layernorm_centered_sum, layernorm_forward_moments, layernorm_mean_derivative,
          layernorm_sigma_derivative, layernorm_xhat_derivative, layernorm_grad_input,
          layernorm_grad_affine)
