"""Why attention divides the logits by √d_k: mean and variance of a dot product of random vectors.

For query and key vectors q, k ∈ ℝ^{d_k} with independent entries, E[q_m] = μ_q, Var(q_m) = σ_q²,
E[k_m] = μ_k, Var(k_m) = σ_k², the logit qᵀk has mean d_k μ_q μ_k and variance
d_k(σ_q²σ_k² + σ_q²μ_k² + μ_q²σ_k²).  With standardized entries the variance is d_k, and the
scaled logit qᵀk/√d_k has variance 1 whatever the width.  The scaling does not tame non-zero
means: E[qᵀk/√d_k] = √d_k μ_q μ_k still grows with the width (entries near 0.5 give √d_k/4).

Final results (SymPy expressions in the module-level symbols ``d_k``, ``mu_q``, ``mu_k``,
``sigma_q``, ``sigma_k``):

* ``MEAN``                  E[qᵀk] = d_k μ_q μ_k
* ``VARIANCE``              Var(qᵀk) = d_k(σ_q²σ_k² + σ_q²μ_k² + μ_q²σ_k²)
* ``UNIT_VARIANCE``         Var(qᵀk) = d_k for zero-mean unit-variance entries
* ``SCALED_UNIT_VARIANCE``  Var(qᵀk/√d_k) = 1 for zero-mean unit-variance entries
* ``SCALED_MEAN``           E[qᵀk/√d_k] = √d_k μ_q μ_k
* ``SCALED_SECOND_MOMENT``  E[(qᵀk/√d_k)²] = σ_q²σ_k² + σ_q²μ_k² + μ_q²σ_k² + d_k μ_q²μ_k²

``DOT`` is qᵀk as a SymPy ``Sum`` over the entries ``q[m]``, ``k[m]`` and ``SCALED`` is DOT/√d_k.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Notation, Step, lemma
from derivations.engine.core.stochastic import E, Var

d_k = sp.Symbol("d_k", integer=True, positive=True)
m = sp.Symbol("m", integer=True, positive=True)
q = sp.IndexedBase("q", real=True)
k = sp.IndexedBase("k", real=True)
mu_q, mu_k = sp.symbols("mu_q mu_k", real=True)
sigma_q, sigma_k = sp.symbols("sigma_q sigma_k", positive=True)

DOT = sp.Sum(q[m] * k[m], (m, 1, d_k))
SCALED = DOT / sp.sqrt(d_k)

# the logit qᵀk, named as the reader writes it
SCALING = Notation("attention scaling", (d_k, q, k))
QK = sp.Symbol("qk", real=True)
QK_DEF = SCALING.define("qᵀk", QK, DOT, r"q^{\top} k", text="the dot product of q and k")
DEFS = (QK_DEF,)

MEAN = d_k * mu_q * mu_k
TERM_VARIANCE = sigma_q**2 * sigma_k**2 + sigma_q**2 * mu_k**2 + mu_q**2 * sigma_k**2
VARIANCE = d_k * TERM_VARIANCE
UNIT_VARIANCE = d_k
SCALED_UNIT_VARIANCE = sp.Integer(1)
SCALED_MEAN = sp.sqrt(d_k) * mu_q * mu_k
SCALED_SECOND_MOMENT = TERM_VARIANCE + d_k * mu_q**2 * mu_k**2

_w, _f, _a, _b = sp.Wild("w"), sp.Wild("f"), sp.Wild("a"), sp.Wild("b")
_p1, _p2 = sp.Wild("p1", exclude=[0]), sp.Wild("p2", exclude=[0])

INDEPENDENT = Assumption(
    "independent entries",
    "The 2 d_k entries q_1, ..., q_{d_k}, k_1, ..., k_{d_k} are mutually independent, so "
    "expectations of products factor and the terms q_m k_m are independent across m "
    "(the variance of their sum is the sum of their variances).",
    r"q_1,\dots,q_{d_k},k_1,\dots,k_{d_k}\ \text{mutually independent}",
    rewrites=(
        (Var(sp.Sum(_f, (m, _a, _b))), sp.Sum(Var(_f), (m, _a, _b))),
        (E(q[_w] ** _p1 * k[_w] ** _p2), E(q[_w] ** _p1) * E(k[_w] ** _p2)),
        (E(q[_w] * k[_w]), E(q[_w]) * E(k[_w])),
    ),
)

MOMENTS = Assumption(
    "entry moments",
    "Every entry has E[q_m] = mu_q, Var(q_m) = sigma_q^2, E[k_m] = mu_k, Var(k_m) = sigma_k^2; "
    "hence E[q_m^2] = sigma_q^2 + mu_q^2 and E[k_m^2] = sigma_k^2 + mu_k^2.",
    r"\mathbb{E}[q_m]=\mu_q,\ \operatorname{Var}(q_m)=\sigma_q^2,\ "
    r"\mathbb{E}[k_m]=\mu_k,\ \operatorname{Var}(k_m)=\sigma_k^2",
    rewrites=(
        (E(q[_w] ** 2), sigma_q**2 + mu_q**2),
        (E(k[_w] ** 2), sigma_k**2 + mu_k**2),
        (E(q[_w]), mu_q),
        (E(k[_w]), mu_k),
    ),
)

STANDARDIZED = Assumption(
    "standardized entries",
    "Every entry has mean 0 and variance 1: E[q_m] = E[k_m] = 0, E[q_m^2] = E[k_m^2] = 1.",
    r"\mathbb{E}[q_m]=\mathbb{E}[k_m]=0,\ \operatorname{Var}(q_m)=\operatorname{Var}(k_m)=1",
    rewrites=(
        (E(q[_w] ** 2), sp.Integer(1)),
        (E(k[_w] ** 2), sp.Integer(1)),
        (E(q[_w]), sp.Integer(0)),
        (E(k[_w]), sp.Integer(0)),
    ),
)


# Normal entries with the declared moments are one distribution satisfying the assumptions; the
# numeric check evaluates every E and Var exactly over them.
GENERAL = Domain(dims=(d_k,), random={q: (mu_q, sigma_q**2), k: (mu_k, sigma_k**2)})
UNIT = Domain(dims=(d_k,), random={q: (0, 1), k: (0, 1)})

# the first step of both variances: it already uses that the products are independent
SUM_OF_VARIANCES = ("the definition of qᵀk; its d_k products are independent, and the variance of "
                    "a sum of independent terms is the sum of their variances")

dot_product_mean = Derivation(
    "dot_product_mean",
    "The mean of a dot product of independent random vectors is d_k μ_q μ_k",
    sp.Eq(E(QK), MEAN, evaluate=False),
    (INDEPENDENT, MOMENTS),
    (
        Step(sp.Sum(E(q[m] * k[m]), (m, 1, d_k)),
             "the definition of qᵀk; linearity of expectation", ("qᵀk",)),
        Step(sp.Sum(E(q[m]) * E(k[m]), (m, 1, d_k)), "independence", ("independent entries",)),
        Step(sp.Sum(mu_q * mu_k, (m, 1, d_k)), "moments", ("entry moments",)),
        Step(MEAN, "sum of d_k equal terms"),
    ),
    GENERAL,
    DEFS,
)

dot_product_variance = Derivation(
    "dot_product_variance",
    "The variance of a dot product of independent random vectors",
    sp.Eq(Var(QK), VARIANCE, evaluate=False),
    (INDEPENDENT, MOMENTS),
    (
        Step(sp.Sum(Var(q[m] * k[m]), (m, 1, d_k)), SUM_OF_VARIANCES,
             ("qᵀk", "independent entries")),
        Step(sp.Sum(E(q[m] ** 2 * k[m] ** 2) - E(q[m] * k[m]) ** 2, (m, 1, d_k)),
             "the definition of variance: Var(X) = E[X²] − E[X]², for each product"),
        Step(sp.Sum(E(q[m] ** 2) * E(k[m] ** 2) - E(q[m]) ** 2 * E(k[m]) ** 2, (m, 1, d_k)),
             "independence", ("independent entries",)),
        Step(sp.Sum((sigma_q**2 + mu_q**2) * (sigma_k**2 + mu_k**2) - mu_q**2 * mu_k**2,
                    (m, 1, d_k)), "moments", ("entry moments",)),
        Step(VARIANCE, "sum of d_k equal terms"),
    ),
    GENERAL,
    DEFS,
    # q before k, as in qᵀk: [q]_r [k]_r, (μ_q² + σ_q²)(μ_k² + σ_k²), μ_q²σ_k² + σ_q²μ_k² + σ_q²σ_k²
    order=("d_k", "q", "mu_q", "sigma_q", "mu_k", "sigma_k"),
)

unit_dot_product_variance = Derivation(
    "unit_dot_product_variance",
    "With zero-mean unit-variance entries Var(qᵀk) = d_k",
    sp.Eq(Var(QK), UNIT_VARIANCE, evaluate=False),
    (INDEPENDENT, STANDARDIZED),
    (
        Step(sp.Sum(Var(q[m] * k[m]), (m, 1, d_k)), SUM_OF_VARIANCES,
             ("qᵀk", "independent entries")),
        Step(sp.Sum(E(q[m] ** 2) * E(k[m] ** 2) - E(q[m]) ** 2 * E(k[m]) ** 2, (m, 1, d_k)),
             "definition of variance; independence", ("independent entries",)),
        Step(sp.Sum(1, (m, 1, d_k)), "moments", ("standardized entries",)),
        Step(UNIT_VARIANCE, "sum of d_k ones"),
    ),
    UNIT,
    DEFS,
)

def _as_written(*factors):
    """A product as written: SymPy would cancel (1/√d_k)² or d_k/d_k on the spot."""
    return sp.Mul(*factors, evaluate=False)


_ROOT = sp.sqrt(d_k)
_LOGIT = QK / _ROOT  # the scaled logit qᵀk/√d_k

scaled_dot_product_variance = Derivation(
    "scaled_dot_product_variance",
    "Dividing by √d_k makes the variance of the logit 1",
    sp.Eq(Var(_LOGIT), SCALED_UNIT_VARIANCE, evaluate=False),
    (INDEPENDENT, STANDARDIZED, lemma(unit_dot_product_variance)),
    (
        Step(_as_written(sp.Pow(1 / _ROOT, 2, evaluate=False), Var(QK)),
             "1/√d_k is a constant: Var(qᵀk/√d_k) = (1/√d_k)² Var(qᵀk)"),
        Step(Var(QK) / d_k, "(1/√d_k)^2 = 1/d_k"),
        Step(_as_written(d_k, sp.Pow(d_k, -1, evaluate=False)), "Var(qᵀk) = d_k",
             ("unit_dot_product_variance",)),
        Step(SCALED_UNIT_VARIANCE, "cancel d_k"),
    ),
    UNIT,
    DEFS,
    order=("q",),
)

nonzero_mean_growth = Derivation(
    "nonzero_mean_growth",
    "With non-zero means the scaled logit's mean still grows like √d_k",
    sp.Eq(E(_LOGIT), SCALED_MEAN, evaluate=False),
    (INDEPENDENT, MOMENTS, lemma(dot_product_mean)),
    (
        Step(E(QK) / _ROOT, "1/√d_k is a constant: E[qᵀk/√d_k] = E[qᵀk]/√d_k"),
        Step(_as_written(MEAN, sp.Pow(_ROOT, -1, evaluate=False)), "E[qᵀk] = d_k μ_q μ_k",
             ("dot_product_mean",)),
        Step(SCALED_MEAN, "d_k/√d_k = √d_k"),
    ),
    GENERAL,
    DEFS,
)

scaled_dot_product_second_moment = Derivation(
    "scaled_dot_product_second_moment",
    "The scaled logit's second moment grows like d_k μ_q²μ_k² when means are non-zero",
    sp.Eq(E(_LOGIT**2), SCALED_SECOND_MOMENT, evaluate=False),
    (INDEPENDENT, MOMENTS, lemma(dot_product_mean),
     lemma(dot_product_variance)),
    (
        Step(Var(_LOGIT) + E(_LOGIT) ** 2,
             "a second moment is the variance plus the squared mean"),
        Step(Var(QK) / d_k + E(QK) ** 2 / d_k,
             "1/√d_k is a constant: its square leaves Var, and E[qᵀk/√d_k]² = E[qᵀk]²/d_k"),
        Step(sp.Add(_as_written(VARIANCE, sp.Pow(d_k, -1, evaluate=False)),
                    _as_written(MEAN**2, sp.Pow(d_k, -1, evaluate=False)), evaluate=False),
             "mean and variance of qᵀk", ("dot_product_mean", "dot_product_variance")),
        Step(SCALED_SECOND_MOMENT, "cancel d_k"),
    ),
    GENERAL,
    DEFS,
)

CLAIMS = (
    dot_product_mean,
    dot_product_variance,
    unit_dot_product_variance,
    scaled_dot_product_variance,
    nonzero_mean_growth,
    scaled_dot_product_second_moment,
)
