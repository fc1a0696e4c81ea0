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

from derivations.engine import Assumption, Derivation, Domain, Notation, Step, lemma
from derivations.engine.core.definitions import ordered, unfold
from derivations.library import notation as nt

n, z, T = nt.n, nt.z, nt.T
i, j = nt.i, nt.j
# bound summation indices: k in the normalizer, l in the weighted mean
k, l = nt.k, nt.l
x = nt.vx
c = sp.Symbol("c", real=True)
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

S_, Zs, XB = nt.s, nt.Z, nt.xbar  # the defined s_i, Z and x̄
ST, ZT = nt.st, nt.Zt  # and s̃_i, Z̃ at temperature T
DEFS = ordered((nt.S_DEF, nt.XBAR_DEF, nt.ST_DEF))


def _full(expr):
    """``expr`` with the softmax definitions written out: what the claims are checked as."""
    return unfold(expr, DEFS)


JACOBIAN_FOLDED = S_[i] * (delta(i, j) - S_[j])
JVP_FOLDED = S_[i] * (x[i] - XB)
QUADRATIC_FOLDED = sp.Sum(S_[i] * (x[i] - XB) ** 2, (i, 1, n))
TEMPERATURE_FOLDED = ST[i] * (delta(i, j) - ST[j]) / T

# the final results, written out (the cross-checks evaluate them as they are)
JACOBIAN = _full(JACOBIAN_FOLDED)
MEAN_X = _full(XB)
JACOBIAN_VECTOR_PRODUCT = _full(JVP_FOLDED)
QUADRATIC_FORM = _full(QUADRATIC_FOLDED)
LOG_SUM_EXP = c + sp.log(normalizer(shift=-c))
TEMPERATURE_JACOBIAN = _full(TEMPERATURE_FOLDED)

# An index bound by a Sum must not be drawn as a free index as well.
LOGITS = Domain(dims=(n,), indices={i: (1, n), j: (1, n)})
ROW = Domain(dims=(n,), indices={i: (1, n)})

softmax_jacobian = Derivation(
    "softmax_jacobian",
    "The softmax Jacobian is diag(s) − s sᵀ",
    sp.Eq(sp.Derivative(S_[i], z[j]), JACOBIAN_FOLDED, evaluate=False),
    (),
    (
        Step((delta(i, j) * sp.exp(z[i]) * Zs - sp.exp(z[i]) * sp.exp(z[j])) / Zs**2,
             "the definition of s_i; quotient rule, with ∂e^{z_i}/∂z_j = δ_ij e^{z_i} and "
             "∂Z/∂z_j = e^{z_j}", ("s",)),
        Step(S_[i] * delta(i, j) - S_[i] * S_[j], "split the fraction; the definition of s",
             ("s",)),
        Step(JACOBIAN_FOLDED, "factor s_i"),
    ),
    LOGITS,
    (nt.S_DEF,),
    # δ_ij e^{z_i} Z, and s_i (δ_ij − s_j) with the factor before its bracket
    order=("KroneckerDelta", "exp", "s", "Add"),
)


def _entry(a, b):
    return S_[a] * (delta(a, b) - S_[b])


softmax_jacobian_symmetric = Derivation(
    "softmax_jacobian_symmetric",
    "The softmax Jacobian is symmetric",
    sp.Eq(_entry(i, j), _entry(j, i), evaluate=False),
    (SIFTING,),
    (
        Step(delta(i, j) * S_[i] - S_[i] * S_[j], "expand"),
        Step(delta(i, j) * S_[j] - S_[j] * S_[i], "δ_ij s_i = δ_ij s_j",
             ("Kronecker sifting",)),
        Step(_entry(j, i), "δ_ij = δ_ji; factor s_j"),
    ),
    LOGITS,
    (nt.S_DEF,),
)

_SUM_S = sp.Sum(S_[j], (j, 1, n))
_SUM_EJ = sp.Sum(sp.exp(z[j]), (j, 1, n))


def _times(*factors):
    return sp.Mul(*factors, evaluate=False)


softmax_jacobian_rows_sum_zero = Derivation(
    "softmax_jacobian_rows_sum_zero",
    "Each row of the softmax Jacobian sums to zero: J·1 = 0",
    sp.Eq(sp.Sum(_entry(i, j), (j, 1, n)), 0, evaluate=False),
    (_dummy_index((sp.Sum(sp.exp(z[j]), (j, 1, n)), k)),),
    (
        Step(S_[i] * sp.Sum(delta(i, j), (j, 1, n)) - S_[i] * _SUM_S, "linearity of the sum"),
        Step(S_[i] - S_[i] * _SUM_S, "Σ_j δ_ij = 1 for 1 ≤ i ≤ n"),
        Step(S_[i] - S_[i] * _SUM_EJ / Zs, "the definition of s_j; Z does not depend on j",
             ("s",)),
        Step(sp.Add(S_[i], -_times(S_[i], Zs, 1 / Zs), evaluate=False),
             "Σ_j e^{z_j} = Σ_k e^{z_k} = Z", ("bound index renaming", "Z")),
        Step(sp.Integer(0), "cancel"),
    ),
    ROW,
    (nt.S_DEF,),
)

_DEV = x[i] - XB
_CONST_X, _CONST_Z = sp.Symbol("xbar_c", real=True), sp.Symbol("Z_c", positive=True)

# Sums with a symbolic bound make SymPy try closed forms (Gosper) for every Sum in sight; naming
# the weighted mean and the normaliser by fresh symbols keeps each step's check well inside its
# budget.  Replacing a subterm by a fresh symbol on both sides only generalises the identity.
NAMES = Assumption(
    "x̄ and Z are constants of the sum",
    "xbar = sum_l s_l x_l and Z = sum_k e^{z_k} > 0 do not depend on the summation index i: a "
    "sum over i treats them as constants.",
    r"\sum_{i=1}^{n} \bar{x}\, f_i = \bar{x} \sum_{i=1}^{n} f_i,\quad "
    r"\sum_{i=1}^{n} \frac{f_i}{Z} = \frac{1}{Z}\sum_{i=1}^{n} f_i",
    rewrites=((MEAN_X, _CONST_X), (Z, _CONST_Z)),
    kind="lemma",
)

_SJX = sp.Sum(S_[j] * x[j], (j, 1, n))

softmax_jacobian_vector_product = Derivation(
    "softmax_jacobian_vector_product",
    "Softmax backward: (Jx)_i = s_i(x_i − x̄) with x̄ = Σ_l s_l x_l",
    sp.Eq(sp.Sum(_entry(i, j) * x[j], (j, 1, n)), JVP_FOLDED, evaluate=False),
    (NAMES, _dummy_index((_SJX, l))),
    (
        Step(S_[i] * sp.Sum(delta(i, j) * x[j], (j, 1, n)) - S_[i] * _SJX,
             "linearity of the sum", ("x̄ and Z are constants of the sum",)),
        Step(S_[i] * x[i] - S_[i] * _SJX, "Σ_j δ_ij x_j = x_i for 1 ≤ i ≤ n"),
        Step(S_[i] * x[i] - S_[i] * XB, "Σ_j s_j x_j = Σ_l s_l x_l = x̄",
             ("bound index renaming", "x̄")),
        Step(JVP_FOLDED, "factor s_i"),
    ),
    ROW,
    (nt.S_DEF, nt.XBAR_DEF),
)

_Q = QUADRATIC_FOLDED

softmax_jacobian_psd = Derivation(
    "softmax_jacobian_psd",
    "xᵀJx is a variance under s, so the softmax Jacobian is positive semi-definite",
    sp.Eq(sp.Sum(x[i] * sp.Sum(_entry(i, j) * x[j], (j, 1, n)), (i, 1, n)), QUADRATIC_FOLDED,
          evaluate=False),
    (lemma(softmax_jacobian_vector_product), NAMES,
     _dummy_index((sp.Sum(S_[i] * x[i], (i, 1, n)), l), (sp.Sum(sp.exp(z[i]), (i, 1, n)), k))),
    (
        Step(sp.Sum(x[i] * JVP_FOLDED, (i, 1, n)), "(Jx)_i = s_i(x_i − x̄)",
             ("softmax_jacobian_vector_product",)),
        Step(_Q + XB * sp.Sum(S_[i] * _DEV, (i, 1, n)),
             "x_i = (x_i − x̄) + x̄; linearity of the sum", ("x̄ and Z are constants of the sum",)),
        Step(_Q + XB * (sp.Sum(S_[i] * x[i], (i, 1, n))
                        - XB * sp.Sum(sp.exp(z[i]), (i, 1, n)) / Zs),
             "linearity of the sum; the definition of s_i", ("x̄ and Z are constants of the sum",
                                                              "s")),
        Step(sp.Add(_Q, _times(XB, sp.Add(XB, -XB, evaluate=False)), evaluate=False),
             "Σ_i s_i x_i = x̄ and Σ_i e^{z_i} = Z", ("bound index renaming", "Z")),
        Step(_Q, "cancel"),
    ),
    Domain(dims=(n,)),
    (nt.S_DEF, nt.XBAR_DEF),
)

softmax_shift_invariance = Derivation(
    "softmax_shift_invariance",
    "Adding a constant to every logit leaves softmax unchanged",
    sp.Eq(softmax(i, shift=c), S_[i], evaluate=False),
    (),
    (
        Step(sp.exp(c) * sp.exp(z[i]) / sp.Sum(sp.exp(c) * sp.exp(z[k]), (k, 1, n)),
             "e^{z_i + c} = e^c e^{z_i}"),
        Step(_times(sp.exp(c), sp.exp(z[i]), sp.Pow(_times(sp.exp(c), Zs), -1, evaluate=False)),
             "the constant e^c out of the sum; the definition of Z", ("Z",)),
        Step(S_[i], "cancel e^c; the definition of s_i", ("s",)),
    ),
    Domain(dims=(n,), indices={i: (1, n)}),
    (nt.S_DEF,),
)

# the normaliser of the shifted logits z_k − c
SHIFTED = Notation("log-sum-exp", (n, z, c), builds_on=(nt.SOFTMAX,))
Zc = sp.Symbol("Z_c", positive=True)
ZC_DEF = SHIFTED.define("Z_c", Zc, normalizer(shift=-c), text="the normaliser of the logits "
                        "shifted by c")

log_sum_exp = Derivation(
    "log_sum_exp",
    "log Σ exp(z_k) = c + log Σ exp(z_k − c) for every c (c = max z keeps exponents ≤ 0)",
    sp.Eq(sp.log(Zs), c + sp.log(Zc), evaluate=False),
    (),
    (
        Step(sp.log(sp.Sum(sp.exp(c) * sp.exp(z[k] - c), (k, 1, n))),
             "the definition of Z; e^{z_k} = e^c e^{z_k − c}", ("Z",)),
        Step(sp.log(sp.exp(c) * Zc), "the constant e^c out of the sum; the definition of Z_c",
             ("Z_c",)),
        Step(sp.log(sp.exp(c), evaluate=False) + sp.log(Zc),
             "the logarithm of a product of positive factors is the sum of their logarithms"),
        Step(c + sp.log(Zc), "log e^c = c"),
    ),
    Domain(dims=(n,)),
    (nt.Z_DEF, ZC_DEF),
)

softmax_temperature = Derivation(
    "softmax_temperature",
    "Softmax at temperature T has Jacobian (1/T) s̃_i(δ_ij − s̃_j), s̃ = softmax(z/T)",
    sp.Eq(sp.Derivative(ST[i], z[j]), TEMPERATURE_FOLDED, evaluate=False),
    (),
    (
        Step((delta(i, j) * sp.exp(z[i] / T) * ZT - sp.exp(z[i] / T) * sp.exp(z[j] / T))
             / (T * ZT**2),
             "the definition of s̃_i; quotient rule, with the chain rule "
             "∂e^{z_j/T}/∂z_j = e^{z_j/T}/T", ("s̃",)),
        Step(TEMPERATURE_FOLDED, "the definition of s̃; factor s̃_i/T", ("s̃",)),
    ),
    LOGITS,
    (nt.ST_DEF,),
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
