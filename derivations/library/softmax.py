"""Softmax: its Jacobian and the Jacobian's structure, shift invariance, log-sum-exp, temperature.

For logits z ∈ ℝ^n, s_i = softmax(z)_i = e^{z_i} / Σ_k e^{z_k}, with n symbolic and indices
1 ≤ i, j ≤ n.  The Jacobian is ∂s_i/∂z_j = s_i(δ_ij − s_j), i.e. J = diag(s) − s sᵀ: symmetric,
rows summing to zero (J·1 = 0), and positive semi-definite because xᵀJx = Σ_i s_i (x_i − x̄)² with
x̄ = Σ_l s_l x_l is a variance under the distribution s.

Final results:

* ``softmax(i)``          s_i as a SymPy expression in ``z[1..n]``
* ``JACOBIAN``            s_i(δ_ij − s_j) in the symbols ``i``, ``j``, ``n``, ``z``
* ``jacobian(s)``         diag(s) − s sᵀ as a SymPy Matrix for an explicit vector s
* ``QUADRATIC_FORM``      Σ_i s_i (x_i − x̄)², the value of xᵀJx (``x`` an IndexedBase)
* ``LOG_SUM_EXP``         c + log Σ_k e^{z_k − c}, equal to log Σ_k e^{z_k} for every c
* ``TEMPERATURE_JACOBIAN``  (1/T) s_i(δ_ij − s_j) with s = softmax(z/T), T > 0
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Step, lemma

n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
# bound summation indices: k in the normalizer, l in the weighted mean
k, l = sp.symbols("k l", integer=True, positive=True)
z = sp.IndexedBase("z", real=True)
x = sp.IndexedBase("x", real=True)
c = sp.Symbol("c", real=True)
T = sp.Symbol("T", positive=True)
delta = sp.KroneckerDelta


def softmax_of(logit, at: sp.Basic, bound: sp.Symbol, low: sp.Basic, high: sp.Basic):
    """e^{logit(at)} / Σ_{bound=low}^{high} e^{logit(bound)}: the softmax of the logits
    logit(low), …, logit(high), taken at ``at``.  The one constructor of every softmax in the
    derivations (softmax, cross-entropy, attention); ``logit`` maps an index to its logit."""
    return sp.exp(logit(at)) / sp.Sum(sp.exp(logit(bound)), (bound, low, high))


def normalizer(scale: sp.Basic = sp.S.One, shift: sp.Basic = sp.S.Zero) -> sp.Sum:
    """Σ_k e^{(z_k + shift)/scale}.  Every normalizer binds the same index k: SymPy compares
    sums by the names of their indices, so Σ_j e^{z_j} and Σ_k e^{z_k} would look different."""
    return sp.Sum(sp.exp((z[k] + shift) / scale), (k, 1, n))


Z = normalizer()


def softmax(a: sp.Basic, scale: sp.Basic = sp.S.One, shift: sp.Basic = sp.S.Zero):
    """softmax((z + shift)/scale)_a."""
    return softmax_of(lambda t: (z[t] + shift) / scale, a, k, 1, n)


def jacobian(s) -> sp.Matrix:
    """diag(s) − s sᵀ for an explicit vector s (a list or a column Matrix)."""
    s = sp.Matrix(s)
    return sp.diag(*s) - s * s.T


def _renamed(expr: sp.Sum, new: sp.Symbol) -> sp.Sum:
    """The same sum with its bound index renamed to ``new``."""
    old = expr.variables[0]
    return sp.Sum(expr.function.xreplace({old: new}), (new, *expr.limits[0][1:]))


def _dummy_index(*sums: tuple[sp.Sum, sp.Symbol]) -> Assumption:
    """Renaming a bound summation index changes nothing; SymPy compares sums by their names."""
    pairs = tuple((s, _renamed(s, new)) for s, new in sums)
    listed = "; ".join(f"{sp.sstr(a)} = {sp.sstr(b)}" for a, b in pairs)
    return Assumption("bound index renaming", f"A summation index is a bound name: {listed}.",
                      r",\ ".join(f"{sp.latex(a)} = {sp.latex(b)}" for a, b in pairs),
                      rewrites=pairs, kind="lemma")


def _has_delta(e: sp.Basic) -> bool:
    return isinstance(e, sp.Mul) and delta(i, j) in e.args


def _sift(e: sp.Mul) -> sp.Mul:
    return sp.Mul(*(f if f == delta(i, j) else f.xreplace({i: j}) for f in e.args))


# A Wild pattern such as w·δ_ij·e^{z_i} also matches 1 (w = e^{-z_i}/δ_ij), so the rule is
# stated as a query on products that contain δ_ij.
SIFTING = Assumption(
    "Kronecker sifting",
    "delta_ij vanishes unless i = j, so in a product with delta_ij the index i may be "
    "replaced by j: delta_ij f(i) = delta_ij f(j).",
    r"\delta_{ij} f(i) = \delta_{ij} f(j)",
    rewrites=((_has_delta, _sift),),
    kind="lemma",
)

JACOBIAN = softmax(i) * (delta(i, j) - softmax(j))
MEAN_X = sp.Sum(softmax(l) * x[l], (l, 1, n))
JACOBIAN_VECTOR_PRODUCT = softmax(i) * (x[i] - MEAN_X)
QUADRATIC_FORM = sp.Sum(softmax(i) * (x[i] - MEAN_X) ** 2, (i, 1, n))
LOG_SUM_EXP = c + sp.log(normalizer(shift=-c))
TEMPERATURE_JACOBIAN = softmax(i, T) * (delta(i, j) - softmax(j, T)) / T

# An index bound by a Sum must not be drawn as a free index as well.
LOGITS = Domain(dims=(n,), indices={i: (1, n), j: (1, n)})
ROW = Domain(dims=(n,), indices={i: (1, n)})

softmax_jacobian = Derivation(
    "softmax_jacobian",
    "The softmax Jacobian is diag(s) − s sᵀ",
    sp.Eq(sp.Derivative(softmax(i), z[j]), JACOBIAN, evaluate=False),
    (),
    (
        Step((delta(i, j) * sp.exp(z[i]) * Z - sp.exp(z[i]) * sp.exp(z[j])) / Z**2,
             "quotient rule; ∂e^{z_i}/∂z_j = δ_ij e^{z_i}, ∂Σ_k e^{z_k}/∂z_j = e^{z_j}"),
        Step(softmax(i) * delta(i, j) - softmax(i) * softmax(j), "split the fraction"),
        Step(JACOBIAN, "factor s_i"),
    ),
    LOGITS,
)


def _entry(a, b):
    return softmax(a) * (delta(a, b) - softmax(b))


softmax_jacobian_symmetric = Derivation(
    "softmax_jacobian_symmetric",
    "The softmax Jacobian is symmetric",
    sp.Eq(_entry(i, j), _entry(j, i), evaluate=False),
    (SIFTING,),
    (
        Step(delta(i, j) * softmax(i) - softmax(i) * softmax(j), "expand"),
        Step(delta(i, j) * softmax(j) - softmax(j) * softmax(i), "δ_ij s_i = δ_ij s_j",
             ("Kronecker sifting",)),
        Step(_entry(j, i), "δ_ij = δ_ji; factor s_j"),
    ),
    LOGITS,
)

_SUM_S = sp.Sum(softmax(j), (j, 1, n))

softmax_jacobian_rows_sum_zero = Derivation(
    "softmax_jacobian_rows_sum_zero",
    "Each row of the softmax Jacobian sums to zero: J·1 = 0",
    sp.Eq(sp.Sum(_entry(i, j), (j, 1, n)), 0, evaluate=False),
    (_dummy_index((sp.Sum(sp.exp(z[j]), (j, 1, n)), k)),),
    (
        Step(softmax(i) * sp.Sum(delta(i, j), (j, 1, n)) - softmax(i) * _SUM_S,
             "linearity of the sum"),
        Step(softmax(i) - softmax(i) * _SUM_S, "Σ_j δ_ij = 1 for 1 ≤ i ≤ n"),
        Step(softmax(i) - softmax(i) * sp.Sum(sp.exp(z[j]), (j, 1, n)) / Z,
             "the normalizer is constant in j"),
        Step(softmax(i) - softmax(i) * Z / Z, "Σ_j e^{z_j} = Σ_k e^{z_k}",
             ("bound index renaming",)),
        Step(sp.Integer(0), "cancel"),
    ),
    ROW,
)

_DEV = x[i] - MEAN_X
XBAR = sp.Symbol("xbar", real=True)
ZSUM = sp.Symbol("Z", positive=True)

# Sums with a symbolic bound make SymPy try closed forms (Gosper) for every Sum in sight; naming
# the weighted mean and the normalizer by symbols keeps each step's check well inside its time
# limit.  Replacing a subterm by a fresh symbol on both sides only generalizes the identity.
NAMES = Assumption(
    "names for constants",
    "xbar = sum_l s_l x_l names the s-weighted mean of x and Z = sum_k e^{z_k} > 0 the "
    "normalizer; neither depends on the summation index i.",
    r"\bar x = \sum_{l=1}^{n} s_l x_l,\quad Z = \sum_{k=1}^{n} e^{z_k} > 0",
    rewrites=((MEAN_X, XBAR), (Z, ZSUM)),
    kind="lemma",
)

_SJX = sp.Sum(softmax(j) * x[j], (j, 1, n))

softmax_jacobian_vector_product = Derivation(
    "softmax_jacobian_vector_product",
    "Softmax backward: (Jx)_i = s_i(x_i − x̄) with x̄ = Σ_l s_l x_l",
    sp.Eq(sp.Sum(_entry(i, j) * x[j], (j, 1, n)), JACOBIAN_VECTOR_PRODUCT, evaluate=False),
    (NAMES, _dummy_index((_SJX, l))),
    (
        Step(softmax(i) * sp.Sum(delta(i, j) * x[j], (j, 1, n)) - softmax(i) * _SJX,
             "linearity of the sum", ("names for constants",)),
        Step(softmax(i) * x[i] - softmax(i) * _SJX, "Σ_j δ_ij x_j = x_i for 1 ≤ i ≤ n"),
        Step(softmax(i) * x[i] - softmax(i) * MEAN_X, "Σ_j s_j x_j = x̄",
             ("bound index renaming",)),
        Step(JACOBIAN_VECTOR_PRODUCT, "factor s_i"),
    ),
    ROW,
)

softmax_jacobian_psd = Derivation(
    "softmax_jacobian_psd",
    "xᵀJx is a variance under s, so the softmax Jacobian is positive semi-definite",
    sp.Eq(sp.Sum(x[i] * sp.Sum(_entry(i, j) * x[j], (j, 1, n)), (i, 1, n)), QUADRATIC_FORM,
          evaluate=False),
    (lemma(softmax_jacobian_vector_product), NAMES,
     _dummy_index((sp.Sum(softmax(i) * x[i], (i, 1, n)), l), (sp.Sum(sp.exp(z[i]), (i, 1, n)), k))),
    (
        Step(sp.Sum(x[i] * JACOBIAN_VECTOR_PRODUCT, (i, 1, n)), "(Jx)_i = s_i(x_i − x̄)",
             ("softmax_jacobian_vector_product",)),
        Step(QUADRATIC_FORM + MEAN_X * sp.Sum(softmax(i) * _DEV, (i, 1, n)),
             "x_i = (x_i − x̄) + x̄; linearity of the sum", ("names for constants",)),
        Step(QUADRATIC_FORM + MEAN_X * (sp.Sum(softmax(i) * x[i], (i, 1, n))
                                         - MEAN_X * sp.Sum(sp.exp(z[i]), (i, 1, n)) / Z),
             "linearity of the sum", ("names for constants",)),
        Step(QUADRATIC_FORM + MEAN_X * (MEAN_X - MEAN_X * Z / Z),
             "Σ_i s_i x_i = x̄ and Σ_i e^{z_i} = Σ_k e^{z_k}", ("bound index renaming",)),
        Step(QUADRATIC_FORM, "cancel"),
    ),
    Domain(dims=(n,)),
)

softmax_shift_invariance = Derivation(
    "softmax_shift_invariance",
    "Adding a constant to every logit leaves softmax unchanged",
    sp.Eq(softmax(i, shift=c), softmax(i), evaluate=False),
    (),
    (
        Step(sp.exp(c) * sp.exp(z[i]) / sp.Sum(sp.exp(c) * sp.exp(z[k]), (k, 1, n)),
             "e^{a+b} = e^a e^b"),
        Step(sp.exp(c) * sp.exp(z[i]) / (sp.exp(c) * Z), "constant factor out of the sum"),
        Step(softmax(i), "cancel e^c"),
    ),
    Domain(dims=(n,), indices={i: (1, n)}),
)

log_sum_exp = Derivation(
    "log_sum_exp",
    "log Σ exp(z_k) = c + log Σ exp(z_k − c) for every c (c = max z keeps exponents ≤ 0)",
    sp.Eq(sp.log(Z), LOG_SUM_EXP, evaluate=False),
    (),
    (
        Step(sp.log(sp.Sum(sp.exp(c) * sp.exp(z[k] - c), (k, 1, n))), "e^{z_k} = e^c e^{z_k − c}"),
        Step(sp.log(sp.exp(c) * normalizer(shift=-c)), "constant factor out of the sum"),
        Step(sp.log(sp.exp(c)) + sp.log(normalizer(shift=-c)),
             "log(ab) = log a + log b for a, b > 0"),
        Step(LOG_SUM_EXP, "log e^c = c"),
    ),
    Domain(dims=(n,)),
)

softmax_temperature = Derivation(
    "softmax_temperature",
    "Softmax at temperature T has Jacobian (1/T) s_i(δ_ij − s_j)",
    sp.Eq(sp.Derivative(softmax(i, T), z[j]), TEMPERATURE_JACOBIAN, evaluate=False),
    (),
    (
        Step((delta(i, j) * sp.exp(z[i] / T) * normalizer(T)
              - sp.exp(z[i] / T) * sp.exp(z[j] / T)) / (T * normalizer(T) ** 2),
             "quotient rule; chain rule ∂e^{z_j/T}/∂z_j = e^{z_j/T}/T"),
        Step(TEMPERATURE_JACOBIAN, "factor s_i/T"),
    ),
    LOGITS,
)

CLAIMS = (
    softmax_jacobian,
    softmax_jacobian_symmetric,
    softmax_jacobian_rows_sum_zero,
    softmax_jacobian_vector_product,
    softmax_jacobian_psd,
    softmax_shift_invariance,
    log_sum_exp,
    softmax_temperature,
)
