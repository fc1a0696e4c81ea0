"""The LayerNorm input gradient, for a symbolic width d.

With μ = (1/d) Σ_l x_l, v = (1/d) Σ_k (x_k − μ)², σ = √(v + ε) and x̂_i = (x_i − μ)/σ, the gradient
of a loss through x̂ (g_i = ∂L/∂x̂_i, i.e. after the gain) is

    ∂L/∂x_j = Σ_i g_i ∂x̂_i/∂x_j = (1/σ) (g_j − mean(g) − x̂_j · mean(g · x̂)).

SymPy alone times out on the whole expression, so the proof is a chain of small claims, each cited
as a lemma: ∂μ/∂x_j = 1/d; Σ_k (x_k − μ) = 0; ∂v/∂x_j = 2(x_j − μ)/d; ∂σ/∂x_j = (x_j − μ)/(dσ);
the Jacobian ∂x̂_i/∂x_j = (δ_ij − 1/d − x̂_i x̂_j/d)/σ; and the rearrangement of the sum, proved
for a plain positive s and a plain sequence y and then used with s = σ, y_i = x̂_i (an instance of
an identity that holds for every positive s and real y; the numeric check tests that step at
d = 1..4 on its own).
"""

import sympy as sp

from derivations import Assumption, Derivation, Domain, Notation, Step, lemma
from derivations.engine.core.definitions import ordered, unfold

d = sp.Symbol("d", integer=True, positive=True)
i, j, k, l = sp.symbols("i j k l", integer=True, positive=True)
x = sp.IndexedBase("x", real=True)
g = sp.IndexedBase("g", real=True)
eps = sp.Symbol("epsilon", positive=True)
delta = sp.KroneckerDelta

# the row's mean, variance, standard deviation and normalised entries, as definitions: the claims
# are written with them and checked with them written out
NOTATION = Notation("LayerNorm", (d, x, eps))
mu = sp.Symbol("mu", real=True)
MU = NOTATION.define("μ", mu, sp.Sum(x[l], (l, 1, d)) / d, text="the mean of the row")
var = sp.Symbol("v", nonnegative=True)
VAR = NOTATION.define("v", var, sp.Sum((x[k] - mu) ** 2, (k, 1, d)) / d, text="its variance")
sigma = sp.Symbol("sigma", positive=True)
SIGMA = NOTATION.define("σ", sigma, sp.sqrt(var + eps), text="its standard deviation")
xh = sp.IndexedBase("xhat", real=True)
XHAT = NOTATION.define("x̂", xh, (x[i] - mu) / sigma, params=(i,), text="the normalised row")


def xhat(a):
    return xh[a]


ONE_INDEX = Domain(dims=(d,), indices={j: (1, d)})

MEAN_GRAD = Derivation(
    "layernorm_mean_gradient", "∂μ/∂x_j = 1/d",
    sp.Eq(sp.Derivative(mu, x[j]), 1 / d, evaluate=False), (),
    (Step(sp.Sum(delta(l, j), (l, 1, d)) / d, "the definition of μ, term by term", ("μ",)),
     Step(1 / d, "exactly one term has l = j")),
    ONE_INDEX, (MU,))

RENAME = Assumption(
    "bound index renaming", "A summation index is a bound name: Σ_k x_k = Σ_l x_l.",
    r"\sum_{k=1}^{d} x_k = \sum_{l=1}^{d} x_l",
    rewrites=((sp.Sum(x[k], (k, 1, d)), sp.Sum(x[l], (l, 1, d))),), kind="lemma")

CENTRED = Derivation(
    "layernorm_centred_sum", "Deviations from the mean sum to zero",
    sp.Eq(sp.Sum(x[k] - mu, (k, 1, d)), 0, evaluate=False), (RENAME,),
    (Step(sp.Sum(x[k], (k, 1, d)) - d * mu, "split the sum"),
     Step(sp.Integer(0), "the definition of μ: d μ = Σ_l x_l", ("bound index renaming", "μ"))),
    ONE_INDEX, (MU,))

VAR_GRAD = Derivation(
    "layernorm_variance_gradient", "∂v/∂x_j = 2(x_j − μ)/d",
    sp.Eq(sp.Derivative(var, x[j]), 2 * (x[j] - mu) / d, evaluate=False),
    (lemma(MEAN_GRAD), lemma(CENTRED)),
    (Step(sp.Sum(2 * (x[k] - mu) * (delta(k, j) - sp.Derivative(mu, x[j])), (k, 1, d)) / d,
          "the definition of v; chain rule", ("v",)),
     Step(sp.Sum(2 * (x[k] - mu) * (delta(k, j) - 1 / d), (k, 1, d)) / d,
          "gradient of the mean", ("layernorm_mean_gradient",)),
     Step(2 * (x[j] - mu) / d - 2 * sp.Sum(x[k] - mu, (k, 1, d)) / d**2,
          "split the sum; the delta picks k = j"),
     Step(2 * (x[j] - mu) / d, "deviations sum to zero", ("layernorm_centred_sum",))),
    ONE_INDEX, (VAR,))

SIGMA_GRAD = Derivation(
    "layernorm_sigma_gradient", "∂σ/∂x_j = (x_j − μ)/(dσ)",
    sp.Eq(sp.Derivative(sigma, x[j]), (x[j] - mu) / (d * sigma), evaluate=False),
    (lemma(VAR_GRAD),),
    (Step(sp.Derivative(var, x[j]) / (2 * sigma),
          "the definition of σ: chain rule through the square root", ("σ",)),
     Step((x[j] - mu) / (d * sigma), "gradient of the variance",
          ("layernorm_variance_gradient",))),
    ONE_INDEX, (SIGMA,))

JACOBIAN = (delta(i, j) - 1 / d - xhat(i) * xhat(j) / d) / sigma

XHAT_GRAD = Derivation(
    "layernorm_xhat_jacobian", "∂x̂_i/∂x_j = (δ_ij − 1/d − x̂_i x̂_j/d)/σ",
    sp.Eq(sp.Derivative(xhat(i), x[j]), JACOBIAN, evaluate=False),
    (lemma(MEAN_GRAD), lemma(SIGMA_GRAD)),
    (Step((delta(i, j) - sp.Derivative(mu, x[j])) / sigma
          - (x[i] - mu) * sp.Derivative(sigma, x[j]) / sigma**2,
          "the definition of x̂; quotient rule", ("x̂",)),
     Step((delta(i, j) - 1 / d) / sigma - (x[i] - mu) * sp.Derivative(sigma, x[j]) / sigma**2,
          "gradient of the mean", ("layernorm_mean_gradient",)),
     Step((delta(i, j) - 1 / d) / sigma - (x[i] - mu) * (x[j] - mu) / (d * sigma**3),
          "gradient of σ", ("layernorm_sigma_gradient",)),
     Step(JACOBIAN, "the definition of x̂: x̂ = (x − μ)/σ", ("x̂",))),
    Domain(dims=(d,), indices={i: (1, d), j: (1, d)}), (XHAT,))

# The rearrangement for a plain positive s and a plain sequence y, then used with s = σ, y = x̂.
s = sp.Symbol("s", positive=True)
y = sp.IndexedBase("y", real=True)


def _gradient(yi, yj, scale):
    return (g[j] - sp.Sum(g[i], (i, 1, d)) / d - yj * sp.Sum(g[i] * yi, (i, 1, d)) / d) / scale


REARRANGE = Derivation(
    "layernorm_rearrange", "Σ_i g_i (δ_ij − 1/d − y_i y_j/d)/s = (g_j − mean g − y_j mean(g y))/s",
    sp.Eq(sp.Sum(g[i] * (delta(i, j) - 1 / d - y[i] * y[j] / d) / s, (i, 1, d)),
          _gradient(y[i], y[j], s), evaluate=False), (),
    (Step(sp.Sum(g[i] * (delta(i, j) - 1 / d - y[i] * y[j] / d), (i, 1, d)) / s,
          "1/s does not depend on i"),
     Step((sp.Sum(g[i] * delta(i, j), (i, 1, d)) - sp.Sum(g[i], (i, 1, d)) / d
           - y[j] * sp.Sum(g[i] * y[i], (i, 1, d)) / d) / s, "split the sum"),
     Step(_gradient(y[i], y[j], s), "the delta picks i = j")),
    ONE_INDEX)


_ROW = ordered((XHAT,))


def _as_layernorm(expr):
    """REARRANGE's expression with y_a = x̂_a and s = σ, written out as the claims are checked."""
    return unfold(expr.replace(lambda t: isinstance(t, sp.Indexed) and t.base == y,
                               lambda t: xhat(t.indices[0])).xreplace({s: sigma}), _ROW)


REARRANGE_AT_XHAT = Assumption(
    "layernorm_rearrange", "Claim layernorm_rearrange with s = σ and y_i = x̂_i.",
    sp.latex(REARRANGE.statement),
    rewrites=((_as_layernorm(REARRANGE.lhs), _as_layernorm(REARRANGE.rhs)),),
    kind="lemma", source=REARRANGE)

GRADIENT = _gradient(xhat(i), xhat(j), sigma)

LAYERNORM_INPUT_GRADIENT = Derivation(
    "layernorm_input_gradient",
    "LayerNorm input gradient: (1/σ)(g − mean(g) − x̂·mean(g·x̂))",
    sp.Eq(sp.Sum(g[i] * sp.Derivative(xhat(i), x[j]), (i, 1, d)), GRADIENT, evaluate=False),
    (lemma(XHAT_GRAD), REARRANGE_AT_XHAT),
    (Step(sp.Sum(g[i] * JACOBIAN, (i, 1, d)), "the Jacobian of x̂", ("layernorm_xhat_jacobian",)),
     Step(GRADIENT, "rearrange the sum", ("layernorm_rearrange",))),
    ONE_INDEX, (XHAT,))

CLAIMS = [MEAN_GRAD, CENTRED, VAR_GRAD, SIGMA_GRAD, XHAT_GRAD, REARRANGE, LAYERNORM_INPUT_GRADIENT]
