"""Adversarial claims: plausible wrong derivations (and their true twins) by class of blind spot.

Each case is (id, class, truth, build): ``build()`` returns a Derivation, or raises
DerivationError when the engine refuses to build it — which for a false claim counts as caught.
The Matrix Cookbook (section 2) identities come with a wrong twin each; tests/test_redteam.py
confirms every one of them independently with NumPy finite differences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from derivations.engine.chain import verify
from derivations.engine.core.claim import Assumption, Derivation, Step
from derivations.engine.core.domain import Domain
from derivations.engine.core.errors import DerivationError
from derivations.engine.core.stochastic import E, Var


@dataclass(frozen=True)
class Case:
    id: str
    cls: str
    true: bool
    build: Callable[[], Derivation]
    # confirms ``true`` without the engine (mpmath or NumPy): returns the claim's truth
    witness: Callable[[], bool] | None = None


@dataclass(frozen=True)
class Outcome:
    id: str
    cls: str
    true: bool
    result: str  # proved | numeric | failed | refused
    detail: str

    @property
    def ok(self) -> bool:
        return self.result == "proved" if self.true else self.result in ("failed", "refused")


def run_case(case: Case) -> Outcome:
    try:
        r = verify(case.build())
    except DerivationError as exc:
        return Outcome(case.id, case.cls, case.true, "refused", str(exc))
    detail = ""
    if r.failed_premise:
        detail = f"premise {r.failed_premise!r} failed"
    elif r.failed_step:
        detail = f"step {r.failed_step} failed"
    else:
        detail = "; ".join(s.reason for s in r.steps if s.reason)
    return Outcome(case.id, case.cls, case.true, r.status, detail)


def claim(cid, lhs, rhs, domain=None, assumptions=(), steps=None) -> Derivation:
    lhs, rhs = (sp.Integer(e) if isinstance(e, int) else e for e in (lhs, rhs))
    steps = steps or (Step(rhs, "claimed"),)
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), tuple(assumptions),
                      tuple(steps), domain or Domain())


x, y = sp.symbols("x y", real=True)
w = sp.Symbol("w", real=True)
pos = sp.Symbol("p", positive=True)
nonneg = sp.Symbol("q", nonnegative=True)
kint = sp.Symbol("k", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True)
z = sp.IndexedBase("z", real=True)
X = sp.MatrixSymbol("X", n, n)
W = sp.MatrixSymbol("W", n, n)
A = sp.MatrixSymbol("A", n, n)
B = sp.MatrixSymbol("B", n, n)
a = sp.MatrixSymbol("a", n, 1)
b = sp.MatrixSymbol("b", n, 1)
v = sp.MatrixSymbol("v", n, 1)
X3, A3, B3 = (sp.MatrixSymbol(s, 3, 3) for s in ("X", "A", "B"))
a3, b3 = sp.MatrixSymbol("a", 3, 1), sp.MatrixSymbol("b", 3, 1)
D = Domain(dims=(n,))
mu, s2 = sp.Symbol("mu", real=True), sp.Symbol("s2", positive=True)
g, h = sp.symbols("g h", real=True)

CASES: list[Case] = []


def add(cid, cls, true, build):
    CASES.append(Case(cid, cls, true, build))


def pair(cid, cls, true_build, false_build):
    add(f"{cid}", cls, True, true_build)
    add(f"{cid}_wrong", cls, False, false_build)


# 1. higher-order and mixed derivatives -------------------------------------------------------
ORDER = "derivative order"
pair("second_derivative", ORDER, lambda: claim("d2", sp.Derivative(x**3, x, x), 6 * x),
     lambda: claim("d2w", sp.Derivative(x**3, x, x), 3 * x**2))
pair("third_derivative", ORDER, lambda: claim("d3", sp.Derivative(sp.sin(x), (x, 3)), -sp.cos(x)),
     lambda: claim("d3w", sp.Derivative(sp.sin(x), (x, 3)), sp.cos(x)))
pair("mixed_derivative", ORDER,
     lambda: claim("dm", sp.Derivative(x**2 * y**3, x, y), 6 * x * y**2),
     lambda: claim("dmw", sp.Derivative(x**2 * y**3, x, y), 2 * x * y**3))
pair("hessian_entry", ORDER,
     lambda: claim("he", sp.Derivative(X3[0, 0] ** 2 * X3[1, 1], X3[0, 0], X3[1, 1]),
                   2 * X3[0, 0]),
     lambda: claim("hew", sp.Derivative(X3[0, 0] ** 2 * X3[1, 1], X3[0, 0], X3[1, 1]),
                   2 * X3[0, 0] * X3[1, 1]))
pair("second_by_tuple", ORDER, lambda: claim("dt", sp.Derivative(w**4, (w, 2)), 12 * w**2),
     lambda: claim("dtw", sp.Derivative(w**4, (w, 2)), 4 * w**3))
add("hessian_by_matrix_as_gradient", ORDER, False,
    lambda: claim("hm", sp.Derivative(sp.Trace(X.T * X), X, X), 2 * X, D))
add("mixed_by_matrices", ORDER, False,
    lambda: claim("mm", sp.Derivative(sp.Trace(X * W), X, W), W.T, D))
add("second_by_matrix_tuple", ORDER, False,
    lambda: claim("mt", sp.Derivative(sp.Trace(X * X), (X, 2)), 2 * X.T, D))
add("hessian_of_quadratic_as_gradient", ORDER, False,
    lambda: claim("hq", sp.Derivative(sp.Trace(v.T * A * v), v, v), (A + A.T) * v, D))

# 2. scale-aware agreement --------------------------------------------------------------------
SCALE = "tolerance and scale"
for e in (20, 31, 45, 80, 200):
    tiny = sp.Rational(1, 10**e)
    add(f"tiny_is_zero_1e-{e}", SCALE, False, lambda t=tiny, e=e: claim(f"tz{e}", t * x, 0))
    add(f"tiny_offset_1e-{e}", SCALE, False,
        lambda t=tiny, e=e: claim(f"to{e}", x + t, x))
    add(f"cancellation_1e{e}", SCALE, True,
        lambda e=e: claim(f"cc{e}", (x + sp.Integer(10) ** e) - sp.Integer(10) ** e, x))
add("exp_minus_200_is_zero", SCALE, False, lambda: claim("em", sp.exp(-200) * y, 0))
c = sp.Symbol("c", real=True)
pair("sum_of_traces_in_product", SCALE,
     lambda: claim("stp", sp.Derivative(c * (sp.Trace(A * X) + sp.Trace(B * X)), X),
                   c * (A.T + B.T), D),
     lambda: claim("stpw", sp.Derivative(c * (sp.Trace(A * X) + sp.Trace(B * X)), X),
                   sp.ZeroMatrix(n, n), D))
add("sum_of_traces_in_product_half", SCALE, False,
    lambda: claim("stph", sp.Derivative(c * (sp.Trace(A * X) + sp.Trace(B * X)), X), c * A.T, D))
pair("product_of_traces", SCALE,
     lambda: claim("pt", sp.Derivative(sp.Trace(A * X) * sp.Trace(B * X), X),
                   sp.Trace(B * X) * A.T + sp.Trace(A * X) * B.T, D),
     lambda: claim("ptw", sp.Derivative(sp.Trace(A * X) * sp.Trace(B * X), X),
                   sp.Trace(B * X) * A.T, D))
pair("square_of_trace_sum", SCALE,
     lambda: claim("sq", sp.Derivative((sp.Trace(A * X) + sp.Trace(X)) ** 2, X),
                   2 * (sp.Trace(A * X) + sp.Trace(X)) * (A.T + sp.Identity(n)), D),
     lambda: claim("sqw", sp.Derivative((sp.Trace(A * X) + sp.Trace(X)) ** 2, X),
                   2 * (sp.Trace(A * X) + sp.Trace(X)) * A.T, D))

# a SymPy silent zero (a sum of traces) under a scalar factor, typed as a matrix
pair("scaled_trace_sum_derivative", SCALE,
     lambda: claim("sts", 2 * sp.Derivative(sp.Trace(A * X) + sp.Trace(B * X), X),
                   2 * (A + B).T, D),
     lambda: claim("stsw", 2 * sp.Derivative(sp.Trace(A * X) + sp.Trace(B * X), X),
                   sp.ZeroMatrix(n, n), D))
add("matrix_plus_scalar_derivative", SCALE, False,
    lambda: claim("mps", sp.Derivative(sp.Trace(A * X), X) + x, A.T, D))

# 3. sampling: sizes, values, names --------------------------------------------------------
SAMPLING = "sampling"
for K in range(1, 6):  # n + (n-1)...(n-K) equals n exactly for n = 1..K
    poly = sp.Mul(*[(n - m) for m in range(1, K + 1)])
    add(f"true_below_size_{K + 1}", SAMPLING, False,
        lambda p=poly, K=K: claim(f"ts{K}", n + p, n, D))
add("min_of_size", SAMPLING, False, lambda: claim("mn", sp.Min(n, 5), n, D))
add("trace_identity_capped", SAMPLING, False,
    lambda: claim("tic", sp.Trace(sp.Identity(n)), sp.Min(n, 4), D))
pair("trace_identity", SAMPLING, lambda: claim("ti", sp.Trace(sp.Identity(n)), n, D),
     lambda: claim("tiw", sp.Trace(sp.Identity(n)), sp.Min(n, 3) + 0 * n, D))
add("clip_is_identity", SAMPLING, False,
    lambda: claim("clip", sp.Min(sp.Max(g, -5), 5), g))
add("clip_50_is_identity", SAMPLING, False,
    lambda: claim("clip50", sp.Min(sp.Max(g, -50), 50), g))
add("abs_is_identity", SAMPLING, False, lambda: claim("abs", sp.Abs(g), g))
add("relu_is_identity", SAMPLING, False, lambda: claim("relu", sp.Max(g, 0), g))
add("sqrt_square_real", SAMPLING, False, lambda: claim("sqr", sp.sqrt(g**2), g))
pair("sqrt_square_positive", SAMPLING, lambda: claim("sqp", sp.sqrt(pos**2), pos),
     lambda: claim("sqpw", sp.sqrt(pos**2), -pos))
pair("abs_nonnegative", SAMPLING, lambda: claim("an", sp.Abs(nonneg), nonneg),
     lambda: claim("anw", sp.Abs(nonneg - 1), nonneg - 1))
add("nonnegative_never_zero", SAMPLING, False,
    lambda: claim("nz", sp.Piecewise((1, sp.Eq(nonneg, 0)), (0, True)), 0))
add("integer_never_negative", SAMPLING, False, lambda: claim("inn", sp.Abs(kint), kint))
add("integer_parity", SAMPLING, False, lambda: claim("ip", (-1) ** kint, 1))
pair("integer_square", SAMPLING, lambda: claim("is", sp.Abs(kint) ** 2, kint**2),
     lambda: claim("isw", sp.Abs(kint) ** 3, kint**3))
add("large_value_saturates", SAMPLING, False, lambda: claim("tanh", sp.tanh(g / 10), g / 10))
for name in ("alpha", "zz_last", "mean_of_sum"):  # coverage must not depend on the id
    add(f"same_claim_named_{name}", SAMPLING, False,
        lambda name=name: claim(name, n + (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5), n,
                                D))
add("max_dim_two", SAMPLING, False,
    lambda: claim("md2", n + (n - 1) * (n - 2), n, Domain(dims=(n,), max_dim=2)))
add("max_dim_zero", SAMPLING, False, lambda: claim("md0", n, n, Domain(dims=(n,), max_dim=0)))
pair("max_dim_three_ok", SAMPLING,
     lambda: claim("md3", sp.Sum(i, (i, 1, n)), n * (n + 1) / 2, Domain(dims=(n,), max_dim=3)),
     lambda: claim("md3w", sp.Sum(i, (i, 1, n)), n * (n + 1) / 2 + (n - 1) * (n - 2) * (n - 3),
                   Domain(dims=(n,), max_dim=3)))
# past the sampled sizes and magnitudes: only the wider probe of a numeric-only step finds these
for K in (6, 7, 9):  # vanishes at every sampled size, 1..max_dim and BIG_DIM
    poly = sp.Mul(*[(n - m) for m in range(1, K + 1)])
    add(f"true_up_to_size_{K}", SAMPLING, False,
        lambda p=poly, K=K: claim(f"tu{K}", sp.Sum(i, (i, 1, n)), n * (n + 1) / 2 + p, D))
add("step_at_1000", SAMPLING, False,
    lambda: claim("st", sp.Piecewise((g, g > 1000), (0, True)), 0))
add("clip_500_is_identity", SAMPLING, False,
    lambda: claim("clip500", sp.Min(sp.Max(g, -500), 500), g))
add("tiny_below_1e4", SAMPLING, False,
    lambda: claim("tb", sp.Piecewise((0, sp.Abs(g) > sp.Rational(1, 10**4)), (g, True)), 0))
pair("matrix_sizes_are_dims", SAMPLING,
     lambda: claim("msd", sp.Derivative(sp.Trace(X.T * X), X), 2 * X),
     lambda: claim("msdw", sp.Derivative(sp.Trace(X.T * X), X), X))

# 4. randomness --------------------------------------------------------------------------------
RANDOM = "randomness"
r1, r2 = sp.symbols("r1 r2", real=True)
NORMAL01 = {r1: (0, 1), r2: (0, 1)}
add("undeclared_in_variance", RANDOM, False,
    lambda: claim("uv", Var(r1 + y), 1, Domain(random={r1: (0, 1)})))
add("unit_variance_residual", RANDOM, False,
    lambda: claim("uvr", Var(r1 + y * r1), 1, Domain(random={r1: (0, 1)})))
add("undeclared_in_mean", RANDOM, False,
    lambda: claim("um", E(r1 * y), 0, Domain(random={r1: (0, 1)})))
_M01 = Assumption("moments", "E r1 = 0, E r1^2 = 1", rewrites=((E(r1), 0), (E(r1**2), 1)))
pair("declared_constant", RANDOM,
     lambda: claim("dc", E(r1 * y + y), y, Domain(random={r1: (0, 1)}, constants=(y,)), (_M01,),
                   (Step(y * E(r1) + y, "linearity"), Step(y, "moments", ("moments",)))),
     lambda: claim("dcw", E(r1 * y + y), 2 * y, Domain(random={r1: (0, 1)}, constants=(y,)),
                   (_M01,), (Step(y * E(r1) + y, "linearity"),
                             Step(2 * y, "moments", ("moments",)))))
_vw = sp.Wild("vw")
_MV = Assumption("entry moments", "every entry of v has mean mu and variance s2",
                 rewrites=((E(v[_vw, 0] ** 2), mu**2 + s2),))
pair("matrix_random_vector", RANDOM,
     lambda: claim("mv", E(v[i, 0] ** 2), mu**2 + s2,
                   Domain(dims=(n,), indices={i: (0, n - 1)}, random={v: (mu, s2)}), (_MV,),
                   (Step(mu**2 + s2, "moments", ("entry moments",)),)),
     lambda: claim("mvw", E(v[i, 0] ** 2), mu**2,
                   Domain(dims=(n,), indices={i: (0, n - 1)}, random={v: (mu, s2)})))
add("matrix_random_vector_trace", RANDOM, False,
    lambda: claim("mvt", E(sp.Trace(v.T * v)), n * mu**2,
                  Domain(dims=(n,), random={v: (mu, s2)})))
add("matrix_random_vector_as_constant", RANDOM, False,
    lambda: claim("mvc", E(sp.Trace(v.T * v)), sp.Trace(v.T * v),
                  Domain(dims=(n,), random={v: (mu, s2)})))
_K4 = Assumption("normal fourth moment", "E r1^4 = 3 for a standard normal",
                 rewrites=((E(r1**4), 3),))
pair("gaussian_kurtosis_normal", RANDOM,
     lambda: claim("gk", E(r1**4), 3, Domain(random=NORMAL01, distribution="normal"), (_K4,),
                   (Step(sp.Integer(3), "moments", ("normal fourth moment",)),)),
     lambda: claim("gkw", E(r1**4), 1, Domain(random=NORMAL01, distribution="normal")))
add("gaussian_kurtosis_premise_any", RANDOM, False,
    lambda: claim("gkp", E(r1**4), 3, Domain(random=NORMAL01), (_K4,),
                  (Step(sp.Integer(3), "moments", ("normal fourth moment",)),)))
add("gaussian_kurtosis_any", RANDOM, False,
    lambda: claim("gka", E(r1**4), 3, Domain(random=NORMAL01, distribution="any")))
add("gaussian_sixth_moment_any", RANDOM, False,
    lambda: claim("g6", E(r1**6), 15, Domain(random=NORMAL01)))
add("variance_of_square_any", RANDOM, False,
    lambda: claim("vs", Var(r1**2), 2, Domain(random=NORMAL01)))
_M2 = Assumption("moments", "E r1 = mu, E r1^2 = mu^2 + s2",
                 rewrites=((E(r1**2), mu**2 + s2),))
pair("second_moment_any", RANDOM,
     lambda: claim("sm", E(r1**2), mu**2 + s2, Domain(random={r1: (mu, s2)}), (_M2,),
                   (Step(mu**2 + s2, "moments", ("moments",)),)),
     lambda: claim("smw", E(r1**2), mu**2, Domain(random={r1: (mu, s2)})))
add("unknown_distribution", RANDOM, False,
    lambda: claim("ud", E(r1), 0, Domain(random=NORMAL01, distribution="laplace")))
_INDEP = Assumption("independence", "r1 and r2 are independent",
                    rewrites=((E(r1 * r2), E(r1) * E(r2)),))
_MOM = Assumption("moments", "E r = 0, E r^2 = 1",
                  rewrites=((E(r1), 0), (E(r2), 0), (E(r1**2), 1), (E(r2**2), 1)))
pair("variance_of_sum", RANDOM,
     lambda: claim("vsum", Var(r1 + r2), 2, Domain(random=NORMAL01), (_INDEP, _MOM), (
         Step(E(r1**2) + 2 * E(r1 * r2) + E(r2**2) - (E(r1) + E(r2)) ** 2, "definition"),
         Step(E(r1**2) + 2 * E(r1) * E(r2) + E(r2**2) - (E(r1) + E(r2)) ** 2, "independence",
              ("independence",)),
         Step(sp.Integer(2), "moments", ("moments",)))),
     lambda: claim("vsumw", Var(r1 + r1), 2, Domain(random=NORMAL01), (_INDEP, _MOM), (
         Step(sp.Integer(2), "moments", ("moments",)),)))

# 5. premises ----------------------------------------------------------------------------------
PREMISES = "premises"
_self_indep = Assumption("self independence", "r1 is independent of itself",
                         rewrites=((E(r1 * r1), E(r1) * E(r1)),))
add("premise_self_independence", PREMISES, False,
    lambda: claim("psi", E(r1 * r1), 0, Domain(random=NORMAL01), (_self_indep, _MOM), (
        Step(E(r1) * E(r1), "independence", ("self independence",)),
        Step(sp.Integer(0), "moments", ("moments",)))))
_square_is_id = Assumption("square root", "sqrt(x^2) = x", rewrites=((sp.sqrt(x**2), x),))
add("premise_false_identity", PREMISES, False,
    lambda: claim("pfi", sp.sqrt(x**2) + 1, x + 1, None, (_square_is_id,),
                  (Step(x + 1, "assumption", ("square root",)),)))
_wrong_mean = Assumption("wrong mean", "E r1 = 1", rewrites=((E(r1), 1),))
add("premise_wrong_moment", PREMISES, False,
    lambda: claim("pwm", 2 * E(r1), 2, Domain(random=NORMAL01), (_wrong_mean,),
                  (Step(sp.Integer(2), "moments", ("wrong mean",)),)))
_wild = sp.Wild("u")
_wrong_wild = Assumption("log of product", "log(u*2) = 2 log u",
                         rewrites=((sp.log(2 * _wild), 2 * sp.log(_wild)),))
add("premise_wrong_wild_rule", PREMISES, False,
    lambda: claim("pww", sp.log(2 * pos), 2 * sp.log(pos), None, (_wrong_wild,),
                  (Step(2 * sp.log(pos), "assumption", ("log of product",)),)))
_text_only = Assumption("well posed", "the problem is well posed")
pair("text_premise_reported", PREMISES,
     lambda: claim("tpr", (x + 1) ** 2, x**2 + 2 * x + 1, None, (_text_only,)),
     lambda: claim("tprw", (x + 1) ** 2, x**2 + x + 1, None, (_text_only,)))
_good_rw = Assumption("log of product", "log(2u) = log 2 + log u for u > 0",
                      rewrites=((sp.log(2 * _wild), sp.log(2) + sp.log(_wild)),))
pair("premise_true_wild_rule", PREMISES,
     lambda: claim("ptw", sp.log(2 * pos), sp.log(2) + sp.log(pos), None, (_good_rw,),
                   (Step(sp.log(2) + sp.log(pos), "assumption", ("log of product",)),)),
     lambda: claim("ptww", sp.log(2 * pos), sp.log(2) * sp.log(pos), None, (_good_rw,),
                   (Step(sp.log(2) * sp.log(pos), "assumption", ("log of product",)),)))

# 6. derivative by a matrix entry ---------------------------------------------------------------
ENTRY = "matrix entry"
pair("entry_of_trace_square", ENTRY,
     lambda: claim("ets", sp.Derivative(sp.Trace(X * X), X[0, 0]), 2 * X[0, 0], D),
     lambda: claim("etsw", sp.Derivative(sp.Trace(X * X), X[0, 0]), sp.Integer(0), D))
pair("entry_of_trace", ENTRY,
     lambda: claim("et", sp.Derivative(sp.Trace(A * X), X[0, 0]), A[0, 0], D),
     lambda: claim("etw", sp.Derivative(sp.Trace(A * X), X[0, 0]), sp.Integer(0), D))
add("entry_of_trace_transposed", ENTRY, False,
    lambda: claim("ett", sp.Derivative(sp.Trace(A3 * X3), X3[0, 1]), A3[0, 1]))

# 7. vector-by-vector layout (the Jacobian: entry (a, b) = ∂f_a/∂x_b) ---------------------
LAYOUT = "layout"
pair("jacobian_of_linear", LAYOUT,
     lambda: claim("jl", sp.Derivative(W * v, v), W, D),
     lambda: claim("jlw", sp.Derivative(W * v, v), W.T, D))
pair("jacobian_of_affine", LAYOUT,
     lambda: claim("ja", sp.Derivative(W * v + b, v), W, D),
     lambda: claim("jaw", sp.Derivative(W * v + b, v), W + sp.Identity(n), D))
pair("jacobian_of_identity", LAYOUT,
     lambda: claim("jid", sp.Derivative(v, v), sp.Identity(n), D),
     lambda: claim("jidw", sp.Derivative(v, v), sp.ZeroMatrix(n, n), D))

# 8. limits and user mistakes --------------------------------------------------------------
LIMITS = "limits and mistakes"
add("empty_index_range", LIMITS, False,
    lambda: claim("eir", z[i], z[i] + 1, Domain(indices={i: (1, 0)})))
add("undeclared_index", LIMITS, False, lambda: claim("uix", z[j] * 0, z[j], D))
add("python_int_step", LIMITS, False,
    lambda: Derivation("pint", "pint", sp.Eq(x - y, 0, evaluate=False), (), (Step(0, "same"),)))
add("evaluated_eq", LIMITS, False,
    lambda: Derivation("eq", "eq", sp.Eq(x, x), (), (Step(x, "same"),)))
pair("index_below_size", LIMITS,
     lambda: claim("ibs", z[i + 1] - z[i] + z[i], z[i + 1],
                   Domain(dims=(n,), indices={i: (1, n - 1)})),
     lambda: claim("ibsw", z[i + 1] - z[i], z[i + 1],
                   Domain(dims=(n,), indices={i: (1, n - 1)})))

# names that look like entries, and summation bounds -----------------------------------------
NAMES = "names and bounds"
_x00, _z1 = sp.Symbol("X[0,0]", real=True), sp.Symbol("z[1]", real=True)
# X[0,0] is the name the numeric route gives the matrix's entry: refused, not conflated
add("symbol_named_like_a_matrix_entry", NAMES, False, lambda: claim("snme", _x00, X[0, 0], D))
add("symbol_named_like_an_entry_elsewhere", NAMES, False,
    lambda: claim("snee", sp.Derivative(sp.Trace(X) * _x00, X[0, 0]), _x00 + sp.Trace(X), D))
add("symbol_named_like_an_indexed_entry", NAMES, False, lambda: claim("snie", _z1, z[1]))
pair("sum_index_shift", NAMES,
     lambda: claim("sis", sp.Sum(z[i], (i, 1, n)), sp.Sum(z[i + 1], (i, 0, n - 1)), D),
     lambda: claim("sisw", sp.Sum(z[i], (i, 1, n)), sp.Sum(z[i], (i, 0, n - 1)), D))
add("reversed_bounds", NAMES, False,
    lambda: claim("rb", sp.Sum(z[i], (i, n, 1)), sp.Sum(z[i], (i, 1, n)), D))
pair("shadowed_summation_index", NAMES,
     lambda: claim("ssi", sp.Sum(sp.Sum(z[i], (i, 1, n)), (i, 1, n)),
                   n * sp.Sum(z[i], (i, 1, n)), D),
     lambda: claim("ssiw", sp.Sum(sp.Sum(z[i], (i, 1, n)), (i, 1, n)),
                   sp.Sum(i * z[i], (i, 1, n)), D))
# two matrices named X: their entries would share names in the numeric route
add("two_matrices_named_x", NAMES, False,
    lambda: claim("tmx", X[0, 0], sp.MatrixSymbol("X", n, 1)[0, 0], D))
add("two_symbols_named_y", NAMES, False,
    lambda: claim("tsy", y, sp.Symbol("y", positive=True)))
# an undefined function printed like mpmath's sin, at a size where the concrete form is compiled
_X9 = sp.MatrixSymbol("X", 9, 9)
add("undefined_function_named_sin", NAMES, False,
    lambda: claim("ufs", sp.Function("sin")(sp.Trace(_X9**3)), sp.sin(sp.Trace(_X9**3))))
# the true form, Σ_j (n − j + 1) z_j, ends `numeric`: SymPy does not exchange dependent sums
add("triangular_sum_off_by_one", NAMES, False,
    lambda: claim("tsw", sp.Sum(sp.Sum(z[j], (j, 1, i)), (i, 1, n)),
                  sp.Sum((n - j) * z[j], (j, 1, n)), D))

# limits at infinity: the numeric route maps x → ∓∞ to t → 0+ (x = ±log 1/t) ----------------
INFINITY = "limits at infinity"
_oo = sp.oo
pair("logistic_tail", INFINITY,
     lambda: claim("lt", sp.Limit(sp.exp(x) / (1 + sp.exp(x)), x, -_oo), 0),
     lambda: claim("ltw", sp.Limit(sp.exp(x) / (1 + sp.exp(x)), x, -_oo), sp.Rational(1, 2)))
pair("masked_weight", INFINITY,
     lambda: claim("mw", sp.Limit(sp.exp(x + y) / (sp.exp(y) + sp.exp(g) + sp.exp(x + y)),
                                  x, -_oo), 0),
     lambda: claim("mww", sp.Limit(sp.exp(y) / (sp.exp(y) + sp.exp(g) + sp.exp(x + y)),
                                   x, -_oo), sp.Rational(1, 2)))
pair("polynomial_times_decay", INFINITY,
     lambda: claim("pd", sp.Limit(x**2 * sp.exp(-x), x, _oo), 0),
     lambda: claim("pdw", sp.Limit(x**2 * sp.exp(-x), x, _oo), 1))
pair("compound_interest", INFINITY,
     lambda: claim("ci", sp.Limit((1 + 1 / x) ** x, x, _oo), sp.E),
     lambda: claim("ciw", sp.Limit((1 + 1 / x) ** x, x, _oo), 1))
pair("root_difference", INFINITY,
     lambda: claim("rd", sp.Limit(x * (sp.sqrt(1 + 1 / x) - 1), x, _oo), sp.Rational(1, 2)),
     lambda: claim("rdw", sp.Limit(x * (sp.sqrt(1 + 1 / x) - 1), x, _oo), 0))
add("softmax_limit_keeps_masked", INFINITY, False,
    lambda: claim("smk", sp.Limit(sp.exp(y) / (sp.exp(y) + sp.exp(x + g)), x, -_oo),
                  sp.exp(y) / (sp.exp(y) + sp.exp(g))))

# 9. the Matrix Cookbook, section 2 -----------------------------------------------------------
COOKBOOK = "matrix cookbook"
I_n = sp.Identity(n)
COOKBOOK_PAIRS = [
    # (id, f, variable, true derivative, wrong derivative)
    ("tr_X", sp.Trace(X), X, I_n, X),
    ("tr_AX", sp.Trace(A * X), X, A.T, A),
    ("tr_XA", sp.Trace(X * A), X, A.T, A),
    ("tr_AXB", sp.Trace(A * X * B), X, A.T * B.T, B.T * A.T),
    ("tr_XtA", sp.Trace(X.T * A), X, A, A.T),
    ("tr_XX", sp.Trace(X * X), X, 2 * X.T, 2 * X),
    ("tr_XtX", sp.Trace(X.T * X), X, 2 * X, X),
    ("tr_XtBX", sp.Trace(X.T * B * X), X, B * X + B.T * X, 2 * B * X),
    ("tr_XBXt", sp.Trace(X * B * X.T), X, X * B.T + X * B, 2 * X * B),
    ("tr_AXtB", sp.Trace(A * X.T * B), X, B * A, A.T * B.T),
    ("atXb", sp.Trace(a.T * X * b), X, a * b.T, b * a.T),
    ("atXtb", sp.Trace(a.T * X.T * b), X, b * a.T, a * b.T),
    ("atXa", sp.Trace(a.T * X * a), X, a * a.T, 2 * a * a.T),
    ("xtBx", sp.Trace(v.T * B * v), v, (B + B.T) * v, 2 * B * v),
    ("btx", sp.Trace(b.T * v), v, b, v),
    ("xtx", sp.Trace(v.T * v), v, 2 * v, v),
    ("xtAtAx", sp.Trace(v.T * A.T * A * v), v, 2 * A.T * A * v, 2 * A * A.T * v),
    ("tr_AXt", sp.Trace(A * X.T), X, A, A.T),
    ("tr_XXX", sp.Trace(X * X * X), X, 3 * (X * X).T, 3 * X * X),
    ("btXtXc", sp.Trace(b.T * X.T * X * a), X, X * (b * a.T + a * b.T), 2 * X * b * a.T),
    ("quad_affine", sp.Trace((X * b + a).T * B * (X * b + a)), X, (B + B.T) * (X * b + a) * b.T,
     2 * B * (X * b + a) * b.T),
    ("logdet", sp.log(sp.Abs(sp.Determinant(X3))), X3, sp.Inverse(X3).T, sp.Inverse(X3)),
    ("det", sp.Determinant(X3), X3, sp.Determinant(X3) * sp.Inverse(X3).T,
     sp.Determinant(X3) * sp.Inverse(X3)),
    ("atXinvb", sp.Trace(a3.T * sp.Inverse(X3) * b3), X3,
     -sp.Inverse(X3).T * a3 * b3.T * sp.Inverse(X3).T,
     -sp.Inverse(X3) * a3 * b3.T * sp.Inverse(X3)),
    ("tr_AXinvB", sp.Trace(A3 * sp.Inverse(X3) * B3), X3,
     -(sp.Inverse(X3) * B3 * A3 * sp.Inverse(X3)).T,
     -sp.Inverse(X3) * B3 * A3 * sp.Inverse(X3)),
]
for cid, f, var, good, bad in COOKBOOK_PAIRS:
    dom = D if var.shape[0] == n else Domain()
    pair(f"cookbook_{cid}", COOKBOOK,
         lambda f=f, var=var, good=good, dom=dom, cid=cid: claim(cid, sp.Derivative(f, var), good,
                                                                dom),
         lambda f=f, var=var, bad=bad, dom=dom, cid=cid: claim(f"{cid}_w", sp.Derivative(f, var),
                                                              bad, dom))
Y = A3 + w * B3
pair("cookbook_inverse_by_scalar", COOKBOOK,
     lambda: claim("inv", sp.Derivative(sp.Inverse(Y), w), -sp.Inverse(Y) * B3 * sp.Inverse(Y)),
     lambda: claim("invw", sp.Derivative(sp.Inverse(Y), w),
                   -B3 * sp.Inverse(Y) * sp.Inverse(Y)))
