"""Adam: the moment estimates in closed form, why bias correction divides by 1 − βᵗ, and where ε
goes (Kingma & Ba, Algorithm 1 and the "efficient" variant of Section 2).

Recursion: m_t = β₁ m_{t−1} + (1 − β₁) g_t, v_t = β₂ v_{t−1} + (1 − β₂) g_t², m_0 = v_0 = 0;
m̂_t = m_t / (1 − β₁ᵗ), v̂_t = v_t / (1 − β₂ᵗ); θ_t = θ_{t−1} − α m̂_t / (√v̂_t + ε).

Final results (SymPy expressions; ``g`` is an IndexedBase, sums run over i = 1..t):

* ``M_CLOSED``  = (1−β₁) Σ β₁^{t−i} g_i,   ``V_CLOSED`` = (1−β₂) Σ β₂^{t−i} g_i²
* ``BIAS_CORRECTION1`` = 1 − β₁ᵗ,   ``BIAS_CORRECTION2`` = 1 − β₂ᵗ
* ``E_M`` = (1 − β₁ᵗ) μ,   ``E_V`` = (1 − β₂ᵗ)(μ² + σ²)   (E[g_i] = μ, Var g_i = σ²)
* ``STEP_ALG1`` = θ − α m̂/(√v̂ + ε),   ``STEP_EPS_INSIDE`` = θ − α m̂/√(v̂ + ε)   (θ, α, m̂, v̂, ε)
* ``EPS_GAP`` = STEP_ALG1 − STEP_EPS_INSIDE in closed form; it vanishes (for m̂ ≠ 0) exactly when
  ε (ε + 2√v̂ − 1) = 0: at ε = 0, and otherwise only on the curve √v̂ = (1 − ε)/2.
* ``ALPHA_T`` = α √(1−β₂ᵗ)/(1−β₁ᵗ),  ``STEP_EFFICIENT`` = θ − α_t m/(√v + ε̂)   (raw m, v)
* ``EPS_HAT`` = ε √(1−β₂ᵗ): the only ε̂ for which STEP_EFFICIENT equals Algorithm 1.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Step, lemma
from derivations.engine.core.stochastic import E
from derivations.library import notation as nt

t, i, g = nt.t, nt.ti, nt.ga
beta_1, beta_2 = nt.beta_1, nt.beta_2
rho_1, rho_2 = sp.symbols("rho_1 rho_2", positive=True)
mu = sp.Symbol("mu", real=True)
sigma = sp.Symbol("sigma", positive=True)
theta = sp.Symbol("theta", real=True)
m_hat, v_hat = nt.mh, nt.vh  # any values of m̂_t and v̂_t (ε's placement)
m, v = nt.m_t, nt.v_t  # the raw moments at step t (the efficient form)
alpha, epsilon = nt.alpha, nt.epsilon
eps_hat = sp.Symbol("epsilonhat", nonnegative=True)
c_1, c_2 = sp.symbols("c_1 c_2", positive=True)
mt, vt, mht, vht = nt.m, nt.v, nt.mhat, nt.vhat  # the defined m_t, v_t, m̂_t, v̂_t


def ema_closed(beta, x, upto):
    """(1−β) Σ_{i=1}^{upto} β^{upto−i} x_i — the EMA started at 0, unrolled."""
    return (1 - beta) * sp.Sum(beta ** (upto - i) * x, (i, 1, upto))


M_CLOSED = ema_closed(beta_1, g[i], t)
V_CLOSED = ema_closed(beta_2, g[i] ** 2, t)
BIAS_CORRECTION1 = 1 - beta_1**t
BIAS_CORRECTION2 = 1 - beta_2**t
E_M = BIAS_CORRECTION1 * mu
E_V = BIAS_CORRECTION2 * (mu**2 + sigma**2)

STEP_ALG1 = theta - alpha * m_hat / (sp.sqrt(v_hat) + epsilon)
STEP_EPS_INSIDE = theta - alpha * m_hat / sp.sqrt(v_hat + epsilon)
_a, _b = sp.sqrt(v_hat) + epsilon, sp.sqrt(v_hat + epsilon)  # the two denominators
EPS_GAP = alpha * m_hat * epsilon * (epsilon + 2 * sp.sqrt(v_hat) - 1) / (_a * _b * (_a + _b))

ALPHA_T = alpha * sp.sqrt(BIAS_CORRECTION2) / BIAS_CORRECTION1
EPS_HAT = epsilon * sp.sqrt(BIAS_CORRECTION2)
STEP_EFFICIENT = theta - ALPHA_T * m / (sp.sqrt(v) + eps_hat)
STEP_ALG1_RAW = STEP_ALG1.xreplace({m_hat: m / BIAS_CORRECTION1, v_hat: v / BIAS_CORRECTION2})

_w = sp.Wild("w")
_M = sp.ImmutableMatrix


def _minus(a, b):
    """a − (b), as written: SymPy would cancel what a and b share (θ) on the spot."""
    return sp.Add(a, sp.Mul(-1, b, evaluate=False), evaluate=False)


# Every β in (0, 1) is 1/(1 + ρ) for a ρ > 0; in that form SymPy knows β ≠ 1, which removes the
# β = 1 branch of the geometric series.
BETA1_RANGE = Assumption(
    "0 < beta_1 < 1", "β₁ lies strictly between 0 and 1", r"0<\beta_1<1",
    rewrites=((beta_1, 1 / (1 + rho_1)),))
BETA2_RANGE = Assumption(
    "0 < beta_2 < 1", "β₂ lies strictly between 0 and 1", r"0<\beta_2<1",
    rewrites=((beta_2, 1 / (1 + rho_2)),))
# SymPy's simplify does not split off the last term of a Sum with a symbolic upper limit, so the
# peeling that t ≥ 1 allows is spelled out; the numeric route expands every sum at t = 1..5.
T_POSITIVE = Assumption(
    "t >= 1", "t ≥ 1, so a sum over i = 1..t is the sum over i = 1..t−1 plus its term i = t",
    r"t\geq 1",
    rewrites=((sp.Sum(_w, (i, 1, t)), sp.Sum(_w, (i, 1, t - 1)) + sp.Sum(_w, (i, t, t))),))
STATIONARY = Assumption(
    "stationarity", "every g_i has the same mean μ and variance σ²: E[g_i] = μ, E[g_i²] = μ² + σ²",
    r"\mathbb{E}[g_i]=\mu,\ \operatorname{Var}(g_i)=\sigma^2",
    rewrites=((E(g[_w] ** 2), mu**2 + sigma**2), (E(g[_w]), mu)))
# the first moment needs the mean alone
SAME_MEAN = Assumption(
    "same mean", "every g_i has the same mean μ: E[g_i] = μ", r"\mathbb{E}[g_i]=\mu",
    rewrites=((E(g[_w]), mu),))
CORRECTIONS_POSITIVE = Assumption(
    "bias corrections positive", "0 < β₁, β₂ < 1 and t ≥ 1, so 1 − β₁ᵗ and 1 − β₂ᵗ are positive",
    r"1-\beta_1^t>0,\ 1-\beta_2^t>0",
    rewrites=((BIAS_CORRECTION1, c_1), (BIAS_CORRECTION2, c_2)))

_BETAS = {beta_1: (0.05, 0.95), beta_2: (0.05, 0.95)}
# t = 1..5: up to five unrolled steps of the recursion at each numeric point (the tests go to 6).
_T_DOMAIN = Domain(dims=(t,), ranges=_BETAS, random={g: (mu, sigma**2)}, max_dim=5)


def _closed_form(claim_id, title, beta, x, beta_range, moment, name):
    """The moment x̄_t := (1−β) Σ β^{t−i} x_i solves x̄_t = β x̄_{t−1} + (1−β) x_t."""
    tail = sp.Sum(beta ** (t - i) * x, (i, 1, t - 1))
    x_t = x.xreplace({i: t})
    symbol = moment.symbol
    return Derivation(
        id=claim_id, title=title,
        statement=sp.Eq(symbol[t], beta * symbol[t - 1] + (1 - beta) * x_t, evaluate=False),
        assumptions=(beta_range, T_POSITIVE),
        steps=(
            Step((1 - beta) * (tail + x_t),
                 f"the definition of {name}_t; t ≥ 1, so the term i = t splits off the sum",
                 (name, "t >= 1")),
            Step((1 - beta) * beta * sp.Sum(beta ** (t - 1 - i) * x, (i, 1, t - 1))
                 + (1 - beta) * x_t, f"factor one {sp.pretty(beta)} out of every remaining term"),
            Step(beta * symbol[t - 1] + (1 - beta) * x_t, f"the definition of {name}_(t−1)",
                 (name,)),
        ),
        domain=_T_DOMAIN,
        definitions=(moment,),
    )


adam_first_moment_closed_form = _closed_form(
    "adam_first_moment_closed_form",
    "Adam: m_t = (1−β₁) Σ β₁^(t−i) g_i solves m_t = β₁ m_(t−1) + (1−β₁) g_t",
    beta_1, g[i], BETA1_RANGE, nt.M_DEF, "m")
adam_second_moment_closed_form = _closed_form(
    "adam_second_moment_closed_form",
    "Adam: v_t = (1−β₂) Σ β₂^(t−i) g_i² solves v_t = β₂ v_(t−1) + (1−β₂) g_t²",
    beta_2, g[i] ** 2, BETA2_RANGE, nt.V_DEF, "v")

adam_moments_start_at_zero = Derivation(
    id="adam_moments_start_at_zero",
    title="Adam: the moments start at zero, m_0 = v_0 = 0",
    statement=sp.Eq(_M([mt[0], vt[0]]), _M([0, 0]), evaluate=False),
    assumptions=(),
    steps=(Step(_M([0, 0]), "the definitions of m_t and v_t: at t = 0 the sum over "
                "i = 1, …, t has no terms", ("m", "v")),),
    domain=Domain(ranges=_BETAS),
    definitions=(nt.M_DEF, nt.V_DEF),
)


def _moment_bias(claim_id, title, beta, power, rng, moments, expected, raw, name):
    """E[x̄_t] = (1 − βᵗ) E[x]: one result, the raw moment's expectation (its correction is
    :func:`_unbiased`, a claim of its own)."""
    x = g[i] ** power
    weighted = sp.Sum(beta ** (t - i) * E(x), (i, 1, t))
    weighted_const = sp.Sum(beta ** (t - i) * expected, (i, 1, t))
    return Derivation(
        id=claim_id, title=title,
        statement=sp.Eq(E(raw.symbol[t]), (1 - beta**t) * expected, evaluate=False),
        assumptions=(rng, moments),
        steps=(
            Step((1 - beta) * weighted,
                 f"the definition of {name}_t; linearity of expectation", (name,)),
            Step((1 - beta) * weighted_const, moments.name, (moments.name,)),
            Step((1 - beta**t) * expected,
                 f"geometric series (1 − {sp.pretty(beta)}) Σ_i {sp.pretty(beta)}^(t−i) = "
                 f"1 − {sp.pretty(beta)}ᵗ", (rng.name,)),
        ),
        domain=_T_DOMAIN,
        definitions=(raw,),
    )


def _unbiased(claim_id, title, beta, rng, moments, raw_bias, expected, raw, corrected, names,
              shown):
    """E[x̂_t] = E[x̄_t]/(1 − βᵗ) = E[x]: the division by 1 − βᵗ comes last, after E[x̄_t].
    The cited E[x̄_t] holds under ``moments`` only, so ``moments`` is this claim's premise too:
    without it the result's μ (and σ) would name nothing."""
    corr = 1 - beta**t
    return Derivation(
        id=claim_id, title=title,
        statement=sp.Eq(E(corrected.symbol[t]), expected, evaluate=False),
        assumptions=(lemma(raw_bias), rng, moments),
        steps=(
            Step(E(raw.symbol[t]) / corr,
                 f"the definition of {names[1]}_t; 1 − {sp.pretty(beta)}ᵗ is a constant",
                 (names[1],)),
            Step(expected, f"E[{names[0]}_t] = (1 − {sp.pretty(beta)}ᵗ)({shown}), the previous "
                 f"claim; 1 − {sp.pretty(beta)}ᵗ ≠ 0 cancels",
                 (raw_bias.id, rng.name, moments.name)),
        ),
        domain=_T_DOMAIN,
        definitions=(raw, corrected),
    )


adam_first_moment_bias = _moment_bias(
    "adam_first_moment_bias", "Adam: E[m_t] = (1−β₁ᵗ) E[g], so m̂_t = m_t/(1−β₁ᵗ) is unbiased",
    beta_1, 1, BETA1_RANGE, SAME_MEAN, mu, nt.M_DEF, "m")
adam_second_moment_bias = _moment_bias(
    "adam_second_moment_bias", "Adam: E[v_t] = (1−β₂ᵗ) E[g²], so v̂_t = v_t/(1−β₂ᵗ) is unbiased",
    beta_2, 2, BETA2_RANGE, STATIONARY, mu**2 + sigma**2, nt.V_DEF, "v")
adam_first_moment_unbiased = _unbiased(
    "adam_first_moment_unbiased", "Adam: E[m̂_t] = E[g], the corrected first moment is unbiased",
    beta_1, BETA1_RANGE, SAME_MEAN, adam_first_moment_bias, mu, nt.M_DEF, nt.MHAT_DEF,
    ("m", "m̂"), "μ")
adam_second_moment_unbiased = _unbiased(
    "adam_second_moment_unbiased",
    "Adam: E[v̂_t] = E[g²], the corrected second moment is unbiased",
    beta_2, BETA2_RANGE, STATIONARY, adam_second_moment_bias, mu**2 + sigma**2, nt.V_DEF,
    nt.VHAT_DEF, ("v", "v̂"), "μ² + σ²")

A, Bd = nt.a_out, nt.b_in  # the denominators a = √v̂_t + ε and b = √(v̂_t + ε)
_GAP = alpha * m_hat * epsilon * (epsilon + 2 * sp.sqrt(v_hat) - 1) / (A * Bd * (A + Bd))

adam_epsilon_placement = Derivation(
    id="adam_epsilon_placement",
    title="Adam: ε outside the root (Algorithm 1) versus inside, in closed form",
    statement=sp.Eq(_minus(STEP_ALG1, STEP_EPS_INSIDE), _GAP, evaluate=False),
    assumptions=(),
    steps=(
        Step(alpha * m_hat * (1 / Bd - 1 / A), "θ cancels; the definitions of a and b",
             ("a", "b")),
        Step(alpha * m_hat * (A - Bd) / (A * Bd), "common denominator"),
        Step(alpha * m_hat * (A**2 - Bd**2) / (A * Bd * (A + Bd)),
             "multiply the numerator and the denominator by a + b > 0"),
        Step(_GAP, "the definitions of a and b: a² − b² = (√v̂_t + ε)² − (v̂_t + ε) = "
             "ε(ε + 2√v̂_t − 1)", ("a", "b")),
    ),
    domain=Domain(),
    definitions=(nt.A_OUT_DEF, nt.B_IN_DEF),
    # ε(ε + 2√v̂_t − 1), as step 4's reason computes it
    order=("alpha", "mhat_t", "epsilon", "vhat_t"),
)

ALPHA_S, MH_S, VH_S = nt.alpha_t, nt.mhat_t, nt.vhat_t  # the defined α_t, m̂_t, v̂_t
_ROOTED = sp.sqrt(1 - beta_2**t)
_EFFICIENT = theta - ALPHA_S * m / (sp.sqrt(v) + eps_hat)
_SAME = ALPHA_S * m * (eps_hat - epsilon * _ROOTED) / ((sp.sqrt(v) + eps_hat)
                                                      * (sp.sqrt(v) + epsilon * _ROOTED))

adam_efficient_step = Derivation(
    id="adam_efficient_step",
    title="Adam: the efficient step α_t m_t/(√v_t + ε̂) equals Algorithm 1 iff ε̂ = ε√(1−β₂ᵗ)",
    statement=sp.Eq(_minus(_EFFICIENT, theta - alpha * MH_S / (sp.sqrt(VH_S) + epsilon)), _SAME,
                    evaluate=False),
    assumptions=(CORRECTIONS_POSITIVE,),
    steps=(
        Step(_minus(_EFFICIENT, theta - ALPHA_S * m / (sp.sqrt(v) + epsilon * _ROOTED)),
             "the definitions of m̂_t, v̂_t and α_t; as 1 − β₁ᵗ and 1 − β₂ᵗ are positive, "
             "α m̂_t/(√v̂_t + ε) = α_t m_t/(√v_t + ε√(1 − β₂ᵗ))",
             ("bias corrections positive", "m̂_t", "v̂_t", "α_t")),
        Step(ALPHA_S * m * (1 / (sp.sqrt(v) + epsilon * _ROOTED) - 1 / (sp.sqrt(v) + eps_hat)),
             "θ cancels"),
        Step(_SAME, "common denominator"),
    ),
    domain=Domain(dims=(t,), ranges=_BETAS, max_dim=3),
    definitions=(nt.ALPHA_T_DEF, nt.MHAT_T_DEF, nt.VHAT_T_DEF),
)

CLAIMS = (adam_first_moment_closed_form, adam_second_moment_closed_form,
          adam_moments_start_at_zero, adam_first_moment_bias, adam_first_moment_unbiased,
          adam_second_moment_bias, adam_second_moment_unbiased,
          adam_epsilon_placement, adam_efficient_step)
