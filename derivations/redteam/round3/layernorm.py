"""Class 8, continued — LayerNorm identities for a symbolic width d, and softmax's shift.

With μ = (1/d) Σ x_l, v = (1/d) Σ (x_k − μ)², σ = √(v + ε), x̂_i = (x_i − μ)/σ, ḡ = (1/d) Σ g_i and
m = (1/d) Σ g_i x̂_i, the input gradient is (g_j − ḡ − x̂_j m)/σ. Each claim is written out with
Sums, no definitions. Witnesses evaluate with mpmath at seeded vectors of sizes 1..6 (mp.diff
for the gradients, coordinate by coordinate).
"""

from __future__ import annotations

import random

import mpmath as mp
import sympy as sp

from derivations import Domain
from derivations.redteam.round3.common import add_to, claim

CLS = "incompleteness"
CASES: list = []
add = add_to(CASES, CLS)

d = sp.Symbol("d", integer=True, positive=True)
i, j, k, l = sp.symbols("i j k l", integer=True, positive=True)
x = sp.IndexedBase("x", real=True)
g = sp.IndexedBase("g", real=True)
gam = sp.IndexedBase("gamma", real=True)
bet = sp.IndexedBase("b", real=True)
z = sp.IndexedBase("z", real=True)
eps = sp.Symbol("epsilon", positive=True)
c = sp.Symbol("c", positive=True)
cz = sp.Symbol("c", real=True)
D = Domain(dims=(d,))
DJ = Domain(dims=(d,), indices={j: (1, d)})


def parts(xv, e):
    mu = sp.Sum(xv(l), (l, 1, d)) / d
    var = sp.Sum((xv(k) - mu) ** 2, (k, 1, d)) / d
    sig = sp.sqrt(var + e)
    return mu, var, sig, (lambda a: (xv(a) - mu) / sig)


MU, VAR, SIG, XHAT = parts(lambda a: x[a], eps)
_, VAR0, SIG0, XHAT0 = parts(lambda a: x[a], 0)
GBAR = sp.Sum(g[i], (i, 1, d)) / d


def grad(a, xhat=XHAT, sig=SIG):
    gx = sp.Sum(g[i] * xhat(i), (i, 1, d)) / d
    return (g[a] - GBAR - xhat(a) * gx) / sig


# --- witnesses -----------------------------------------------------------------------------------

def mp_parts(xs, e):
    size = len(xs)
    mu = mp.fsum(xs) / size
    var = mp.fsum((v - mu) ** 2 for v in xs) / size
    sig = mp.sqrt(var + e)
    return mu, var, sig, [(v - mu) / sig for v in xs]


def mp_grad(xs, gs, e):
    size = len(xs)
    _, _, sig, xh = mp_parts(xs, e)
    gbar = mp.fsum(gs) / size
    gx = mp.fsum(a * b for a, b in zip(gs, xh, strict=True)) / size
    return [(gs[a] - gbar - xh[a] * gx) / sig for a in range(size)]


def samples(seed, sizes=range(1, 7), per=2):
    rng = random.Random(seed)
    out = []
    for size in sizes:
        for _ in range(per):
            out.append(([mp.mpf(rng.uniform(-3, 3)) for _ in range(size)],
                        [mp.mpf(rng.uniform(-2, 2)) for _ in range(size)],
                        mp.mpf(rng.uniform(1e-3, 1)), mp.mpf(rng.uniform(0.1, 5))))
    return out


def check(pred, seed, sizes=range(1, 7), dps=60) -> bool:
    """pred(xs, gs, eps, c) -> (lhs, rhs) for every sample; True iff all agree."""
    with mp.workdps(dps):
        tol = mp.mpf(10) ** (20 - dps)
        for xs, gs, e, cc in samples(seed, sizes):
            for lhs, rhs in pred(xs, gs, e, cc):
                if abs(lhs - rhs) > tol * max(1, abs(lhs), abs(rhs)):
                    return False
    return True


def numeric_input_grad(xs, gs, e):
    """∂/∂x_j Σ_i g_i x̂_i by mp.diff, coordinate by coordinate."""
    def loss(*vals):
        return mp.fsum(a * b for a, b in zip(gs, mp_parts(list(vals), e)[3], strict=True))
    out = []
    for a in range(len(xs)):
        order = [0] * len(xs)
        order[a] = 1
        out.append(mp.diff(loss, tuple(xs), tuple(order)))
    return out


# --- claims --------------------------------------------------------------------------------------
add("inc_layernorm_xhat_sums_to_zero", True,
    lambda: claim("inc_layernorm_xhat_sums_to_zero", sp.Sum(XHAT(i), (i, 1, d)), 0, D),
    lambda: check(lambda xs, gs, e, cc: [(mp.fsum(mp_parts(xs, e)[3]), 0)], 1))

add("inc_layernorm_xhat_square_sum", True,
    lambda: claim("inc_layernorm_xhat_square_sum", sp.Sum(XHAT(i) ** 2, (i, 1, d)),
                  d * VAR / (VAR + eps), D),
    lambda: check(lambda xs, gs, e, cc: [(mp.fsum(v**2 for v in mp_parts(xs, e)[3]),
                                          len(xs) * mp_parts(xs, e)[1]
                                          / (mp_parts(xs, e)[1] + e))], 2))

# Σ_j ∂L/∂x_j = (Σ g − d ḡ − m Σ x̂)/σ = 0: the gradient is orthogonal to the ones vector
add("inc_layernorm_gradient_sums_to_zero", True,
    lambda: claim("inc_layernorm_gradient_sums_to_zero", sp.Sum(grad(j), (j, 1, d)), 0, D),
    lambda: check(lambda xs, gs, e, cc: [(mp.fsum(mp_grad(xs, gs, e)), 0)], 3))

# Σ_j x̂_j ∂L/∂x_j = d m (1 − v/(v + ε))/σ = d m ε/((v + ε) σ): not 0 when ε > 0
add("inc_layernorm_gradient_orthogonal_to_xhat_eps", False,
    lambda: claim("inc_layernorm_gradient_orthogonal_to_xhat_eps",
                  sp.Sum(XHAT(j) * grad(j), (j, 1, d)), 0, D),
    lambda: check(lambda xs, gs, e, cc: [(mp.fsum(a * b for a, b in zip(
        mp_parts(xs, e)[3], mp_grad(xs, gs, e), strict=True)), 0)], 4, sizes=range(2, 7)))

# with ε = 0 (and d >= 2, so that v > 0) it is 0
add("inc_layernorm_gradient_orthogonal_to_xhat_no_eps", True,
    lambda: claim("inc_layernorm_gradient_orthogonal_to_xhat_no_eps",
                  sp.Sum(XHAT0(j) * grad(j, XHAT0, SIG0), (j, 1, d)), 0, D,
                  hypotheses=(sp.Ge(d, 2),)),
    lambda: check(lambda xs, gs, e, cc: [(mp.fsum(a * b for a, b in zip(
        mp_parts(xs, 0)[3], mp_grad(xs, gs, 0), strict=True)), 0)], 5, sizes=range(2, 7)))

# x̂ of c·x with ε c² is x̂ of x with ε, for c > 0
_, _, _, XHAT_C = parts(lambda a: c * x[a], c**2 * eps)
add("inc_layernorm_scale_invariance", True,
    lambda: claim("inc_layernorm_scale_invariance", XHAT_C(j), XHAT(j), DJ),
    lambda: check(lambda xs, gs, e, cc: list(zip(mp_parts([cc * v for v in xs], cc**2 * e)[3],
                                                 mp_parts(xs, e)[3], strict=True)), 6))

# the whole input gradient as one claim: ∂/∂x_j Σ_i g_i x̂_i = (g_j − ḡ − x̂_j m)/σ
add("inc_layernorm_input_gradient", True,
    lambda: claim("inc_layernorm_input_gradient",
                  sp.Derivative(sp.Sum(g[i] * XHAT(i), (i, 1, d)), x[j]), grad(j), DJ),
    lambda: check(lambda xs, gs, e, cc: list(zip(numeric_input_grad(xs, gs, e),
                                                 mp_grad(xs, gs, e), strict=True)), 7,
                  sizes=range(1, 5)))

# without the x̂_j m term: the mean is removed but not the projection on x̂
add("inc_layernorm_input_gradient_no_projection", False,
    lambda: claim("inc_layernorm_input_gradient_no_projection",
                  sp.Derivative(sp.Sum(g[i] * XHAT(i), (i, 1, d)), x[j]), (g[j] - GBAR) / SIG,
                  DJ),
    lambda: check(lambda xs, gs, e, cc: list(zip(
        numeric_input_grad(xs, gs, e),
        [(gs[a] - mp.fsum(gs) / len(gs)) / mp_parts(xs, e)[2] for a in range(len(xs))],
        strict=True)), 8, sizes=range(2, 5)))

def _affine_grads(xs, gs, e, by):
    """(mp.diff of Σ (γ_i x̂_i + b_i) g_i by b_a or γ_a, the claimed g_a or x̂_a g_a) per a."""
    xh = mp_parts(xs, e)[3]
    gams = [mp.mpf(1) + mp.mpf(a) / 7 for a in range(len(xs))]
    bs = [mp.mpf(a) / 5 - 1 for a in range(len(xs))]

    def out(gm, bb):
        return mp.fsum((gm[a] * xh[a] + bb[a]) * gs[a] for a in range(len(xs)))

    def by_b(t, a):
        return out(gams, [*bs[:a], t, *bs[a + 1:]])

    def by_gamma(t, a):
        return out([*gams[:a], t, *gams[a + 1:]], bs)

    if by == "b":
        return [(mp.diff(lambda t, a=a: by_b(t, a), bs[a]), gs[a]) for a in range(len(xs))]
    return [(mp.diff(lambda t, a=a: by_gamma(t, a), gams[a]), xh[a] * gs[a])
            for a in range(len(xs))]


_LN_OUT = sp.Sum((gam[i] * XHAT(i) + bet[i]) * g[i], (i, 1, d))
add("inc_layernorm_bias_gradient", True,
    lambda: claim("inc_layernorm_bias_gradient", sp.Derivative(_LN_OUT, bet[j]), g[j], DJ),
    lambda: check(lambda xs, gs, e, cc: _affine_grads(xs, gs, e, "b"), 10))

add("inc_layernorm_gain_gradient", True,
    lambda: claim("inc_layernorm_gain_gradient", sp.Derivative(_LN_OUT, gam[j]),
                  XHAT(j) * g[j], DJ),
    lambda: check(lambda xs, gs, e, cc: _affine_grads(xs, gs, e, "gamma"), 11))

# softmax is invariant to a shift of every logit
add("inc_softmax_shift_invariance", True,
    lambda: claim("inc_softmax_shift_invariance",
                  sp.exp(z[j] + cz) / sp.Sum(sp.exp(z[k] + cz), (k, 1, d)),
                  sp.exp(z[j]) / sp.Sum(sp.exp(z[k]), (k, 1, d)), DJ),
    lambda: check(lambda xs, gs, e, cc: [
        (mp.exp(xs[a] + cc) / mp.fsum(mp.exp(v + cc) for v in xs),
         mp.exp(xs[a]) / mp.fsum(mp.exp(v) for v in xs)) for a in range(len(xs))], 9))
