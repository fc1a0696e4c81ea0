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

from derivations.engine import Assumption, Derivation, Domain, Notation, Step, lemma
from derivations.engine.core.definitions import ordered, unfold
from derivations.library import notation as nt
from derivations.library.notation import d, eps, g, i, j, k, x
from derivations.library.rules import DIFF_UNDER_SUM

N = sp.Symbol("N", integer=True, positive=True)
r, s = sp.symbols("r s", integer=True, positive=True)
o = sp.IndexedBase("o", real=True)  # ∂L/∂y over N rows
xh = sp.IndexedBase("xhat", real=True)  # x̂ over N rows, an input of the affine map
gamma = sp.IndexedBase("gamma", real=True)
beta = sp.IndexedBase("beta", real=True)
delta = sp.KroneckerDelta
mu, sig, xhs = nt.mu, nt.sigma, nt.xhat  # the defined symbols μ, σ_ε and x̂
ROW_DEFS = ordered((nt.MU, nt.VAR, nt.SIGMA, nt.XHAT, nt.GBAR, nt.GXBAR))


def _full(expr):
    """``expr`` with the row's definitions written out: what the claims are checked as."""
    return unfold(expr, ROW_DEFS)


# the final results, written out (the cross-checks evaluate them as they are)
MU, VAR, SIGMA = _full(mu), _full(nt.var), _full(sig)


def xhat(a):
    return _full(xhs[a])


XHAT_FOLDED = (delta(i, j) - 1 / d - xhs[i] * xhs[j] / d) / sig
GRAD_FOLDED = (g[j] - nt.gbar - xhs[j] * nt.gxbar) / sig
MEAN_G = _full(nt.gbar)
MEAN_GX = _full(nt.gxbar)
GRAD_INPUT = _full(GRAD_FOLDED)
XHAT_DERIVATIVE = _full(XHAT_FOLDED)

ROW = Domain(dims=(d,), indices={j: (1, d)})

# In a sum over i, μ and σ_ε are constants; SymPy's simplification sees that only once their
# sums are named by plain symbols (fresh ones, so the identity is only generalised).
_MU_C, _SIG_C = sp.Symbol("m_row", real=True), sp.Symbol("s_row", positive=True)
STATS = Assumption(
    "μ and σ_ε are constants of the row",
    "mu and sigma_epsilon are numbers fixed by the row: no summation index occurs in them, so "
    "a sum over i treats them as constants.",
    r"\sum_{i} \frac{\mu\, f_i}{\sigma_\varepsilon} = \frac{\mu}{\sigma_\varepsilon}\sum_i f_i",
    rewrites=((sp.Sum((x[k] - MU) ** 2, (k, 1, d)), d * (_SIG_C**2 - eps)),
              (sp.Sum(x[k], (k, 1, d)), d * _MU_C)), kind="lemma")

layernorm_centered_sum = Derivation(
    "layernorm_centered_sum",
    "LayerNorm: the deviations from the mean sum to zero, Σ_k (x_k − μ) = 0",
    sp.Eq(sp.Sum(x[k] - mu, (k, 1, d)), 0, evaluate=False),
    (),
    (
        Step(sp.Add(sp.Sum(x[k], (k, 1, d)), -sp.Mul(d, mu, evaluate=False), evaluate=False),
             "linearity of the sum; μ does not depend on k"),
        Step(sp.Integer(0), "the definition of μ: dμ = Σ_k x_k", ("μ",)),
    ),
    Domain(dims=(d,)),
    (nt.MU,),
)

_RENAME = Assumption(
    "bound index renaming",
    "A summation index is a bound name: sum_i (x_i - mu) = sum_k (x_k - mu), and likewise for "
    "the squares.",
    r"\sum_i (x_i-\mu) = \sum_k (x_k-\mu)",
    rewrites=((sp.Sum(x[i] - mu, (i, 1, d)), sp.Sum(x[k] - mu, (k, 1, d))),
              (sp.Sum((x[i] - mu) ** 2, (i, 1, d)), d * nt.var)),
    kind="lemma")

layernorm_forward_moments = Derivation(
    "layernorm_forward_moments",
    "LayerNorm forward: x̂ has mean 0 and mean square σ²/(σ² + ε)",
    sp.Eq(sp.ImmutableMatrix([sp.Sum(xhs[i], (i, 1, d)) / d, sp.Sum(xhs[i] ** 2, (i, 1, d)) / d]),
          sp.ImmutableMatrix([0, nt.var / (nt.var + eps)]), evaluate=False),
    (lemma(layernorm_centered_sum), STATS, _RENAME),
    (
        Step(sp.ImmutableMatrix([sp.Sum(x[i] - mu, (i, 1, d)) / (d * sig),
                                 sp.Sum((x[i] - mu) ** 2, (i, 1, d)) / (d * sig**2)]),
             "the definition of x̂; σ_ε does not depend on i",
             ("x̂", "μ and σ_ε are constants of the row")),
        Step(sp.ImmutableMatrix([sp.Sum(x[k] - mu, (k, 1, d)) / (d * sig), nt.var / sig**2]),
             "rename the bound index i to k; the definition of σ²",
             ("bound index renaming", "σ²")),
        Step(sp.ImmutableMatrix([0, nt.var / (nt.var + eps)]),
             "Σ_k (x_k − μ) = 0; the definition of σ_ε", ("layernorm_centered_sum", "σ_ε")),
    ),
    ROW,
    (nt.XHAT,),
)

layernorm_mean_derivative = Derivation(
    "layernorm_mean_derivative",
    "LayerNorm: ∂μ/∂x_j = 1/d",
    sp.Eq(sp.Derivative(mu, x[j]), 1 / d, evaluate=False),
    (),
    (
        Step(sp.Sum(delta(k, j), (k, 1, d)) / d, "the definition of μ; ∂x_k/∂x_j = δ_kj",
             ("μ",)),
        Step(1 / d, "Σ_k δ_kj = 1 for 1 ≤ j ≤ d"),
    ),
    ROW,
    (nt.MU,),
)

_DEV_SUM = sp.Sum(x[k] - mu, (k, 1, d))
_dmu = sp.Derivative(mu, x[j])

layernorm_sigma_derivative = Derivation(
    "layernorm_sigma_derivative",
    "LayerNorm: ∂σ_ε/∂x_j = x̂_j/d",
    sp.Eq(sp.Derivative(sig, x[j]), xhs[j] / d, evaluate=False),
    (lemma(layernorm_centered_sum), lemma(layernorm_mean_derivative)),
    (
        Step(sp.Sum((x[k] - mu) * (delta(k, j) - _dmu), (k, 1, d)) / (d * sig),
             "chain rule through σ_ε = √(σ² + ε): ∂σ_ε/∂x_j = (∂σ²/∂x_j)/(2σ_ε), and "
             "∂σ²/∂x_j = (2/d) Σ_k (x_k − μ)(δ_kj − ∂μ/∂x_j)"),
        Step(sp.Sum((x[k] - mu) * (delta(k, j) - 1 / d), (k, 1, d)) / (d * sig),
             "∂μ/∂x_j = 1/d", ("layernorm_mean_derivative",)),
        Step((sp.Sum((x[k] - mu) * delta(k, j), (k, 1, d)) - _DEV_SUM / d) / (d * sig),
             "linearity of the sum"),
        Step((x[j] - mu - _DEV_SUM / d) / (d * sig), "δ_kj keeps the term k = j, for 1 ≤ j ≤ d"),
        Step(xhs[j] / d, "Σ_k (x_k − μ) = 0; the definition of x̂",
             ("layernorm_centered_sum", "x̂")),
    ),
    ROW,
    (nt.XHAT,),
)

_dsig = sp.Derivative(sig, x[j])

layernorm_xhat_derivative = Derivation(
    "layernorm_xhat_derivative",
    "LayerNorm: ∂x̂_i/∂x_j = (δ_ij − 1/d − x̂_i x̂_j/d)/σ_ε",
    sp.Eq(sp.Derivative(xhs[i], x[j]), XHAT_FOLDED, evaluate=False),
    (lemma(layernorm_mean_derivative), lemma(layernorm_sigma_derivative)),
    (
        Step((delta(i, j) - _dmu) / sig - (x[i] - mu) * _dsig / sig**2,
             "the definition of x̂; quotient rule, ∂x_i/∂x_j = δ_ij", ("x̂",)),
        Step((delta(i, j) - 1 / d) / sig - (x[i] - mu) * xhs[j] / (d * sig**2),
             "∂μ/∂x_j = 1/d and ∂σ_ε/∂x_j = x̂_j/d",
             ("layernorm_mean_derivative", "layernorm_sigma_derivative")),
        Step(XHAT_FOLDED, "the definition of x̂: (x_i − μ)/σ_ε = x̂_i", ("x̂",)),
    ),
    Domain(dims=(d,), indices={i: (1, d), j: (1, d)}),
    (nt.XHAT,),
)

_LOSS = sp.Sum(g[i] * xhs[i], (i, 1, d))

layernorm_grad_input = Derivation(
    "layernorm_grad_input",
    "LayerNorm backward: ∂L/∂x = (1/σ_ε)(g − ḡ − x̂ · mean(g x̂)) for g = ∂L/∂x̂",
    sp.Eq(sp.Derivative(_LOSS, x[j]), GRAD_FOLDED, evaluate=False),
    (DIFF_UNDER_SUM, lemma(layernorm_xhat_derivative), STATS),
    (
        Step(sp.Sum(g[i] * sp.Derivative(xhs[i], x[j]), (i, 1, d)),
             "differentiation under a finite sum; g does not depend on x",
             ("differentiation under a finite sum",)),
        Step(sp.Sum(g[i] * XHAT_FOLDED, (i, 1, d)), "∂x̂_i/∂x_j",
             ("layernorm_xhat_derivative",)),
        Step((sp.Sum(g[i] * delta(i, j), (i, 1, d)) - sp.Sum(g[i], (i, 1, d)) / d
              - sp.Sum(g[i] * xhs[i] * xhs[j], (i, 1, d)) / d) / sig,
             "linearity of the sum; σ_ε does not depend on i",
             ("μ and σ_ε are constants of the row",)),
        Step((sp.Sum(g[i] * delta(i, j), (i, 1, d)) - sp.Sum(g[i], (i, 1, d)) / d
              - xhs[j] * sp.Sum(g[i] * xhs[i], (i, 1, d)) / d) / sig,
             "x̂_j does not depend on i", ("μ and σ_ε are constants of the row",)),
        Step(GRAD_FOLDED, "δ_ij keeps the term i = j, for 1 ≤ j ≤ d; the definitions of ḡ and "
             "of the mean of g x̂", ("μ and σ_ε are constants of the row", "ḡ", "mean of g x̂")),
    ),
    ROW,
    (nt.XHAT, nt.GBAR, nt.GXBAR),
    # Σ_i g_i ∂x̂_i/∂x_j: the upstream gradient weighs the Jacobian; the sums of step 3 in the
    # order of step 2's δ_ij − 1/d − x̂_i x̂_j/d
    order=("KroneckerDelta", "g", "xhat"),
)

_AFFINE_LOSS = sp.Sum(sp.Sum(o[r, i] * (gamma[i] * xh[r, i] + beta[i]), (i, 1, d)), (r, 1, N))
GRAD_AFFINE = sp.ImmutableMatrix([sp.Sum(o[r, j] * xh[r, j], (r, 1, N)), sp.Sum(o[r, j], (r, 1, N)),
                                  o[s, j] * gamma[j]])

# over N rows the affine map y = γ ⊙ x̂ + β, with the loss as seen from its output: L = Σ o ⊙ y
# for the upstream o = ∂L/∂y (a linear loss with any o has exactly that gradient)
AFFINE = Notation("LayerNorm over N rows", (N, d, o, xh, gamma, beta))
y = sp.IndexedBase("y", real=True)
Y_DEF = AFFINE.define("y", y, gamma[i] * xh[r, i] + beta[i], params=(r, i),
                      text="the output of the affine map")
L = sp.Symbol("L", real=True)
L_DEF = AFFINE.define("L", L, sp.Sum(sp.Sum(o[r, i] * y[r, i], (i, 1, d)), (r, 1, N)),
                      text="the loss through y, for the upstream gradient o = ∂L/∂y")

layernorm_grad_affine = Derivation(
    "layernorm_grad_affine",
    "LayerNorm backward over N rows: ∂L/∂γ = Σ_r o_r ⊙ x̂_r, ∂L/∂β = Σ_r o_r, ∂L/∂x̂ = o ⊙ γ",
    sp.Eq(sp.ImmutableMatrix([sp.Derivative(L, gamma[j]), sp.Derivative(L, beta[j]),
                              sp.Derivative(L, xh[s, j])]), GRAD_AFFINE, evaluate=False),
    (),
    (
        Step(sp.ImmutableMatrix([
            sp.Sum(sp.Sum(o[r, i] * xh[r, i] * delta(i, j), (i, 1, d)), (r, 1, N)),
            sp.Sum(sp.Sum(o[r, i] * delta(i, j), (i, 1, d)), (r, 1, N)),
            sp.Sum(sp.Sum(o[r, i] * gamma[i] * delta(r, s) * delta(i, j), (i, 1, d)), (r, 1, N))]),
            "the definitions of L and y; linearity, ∂γ_i/∂γ_j = δ_ij, ∂β_i/∂β_j = δ_ij and "
            "∂x̂_{r,i}/∂x̂_{s,j} = δ_rs δ_ij", ("L",)),
        Step(GRAD_AFFINE, "δ_ij keeps the term i = j (1 ≤ j ≤ d) and δ_rs the term r = s "
             "(1 ≤ s ≤ N)"),
    ),
    Domain(dims=(d, N), indices={j: (1, d), s: (1, N)}, max_dim=3),
    (L_DEF,),
)

CLAIMS = (layernorm_centered_sum, layernorm_forward_moments, layernorm_mean_derivative,
          layernorm_sigma_derivative, layernorm_xhat_derivative, layernorm_grad_input,
          layernorm_grad_affine)
