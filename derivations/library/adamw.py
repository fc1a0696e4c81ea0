"""Weight decay and gradient clipping: decoupled decay (AdamW) against L2 in the gradient, and
global-norm clipping as a scaling that keeps the direction.

Decay with rate λ and step size η.  Decoupled (``numeric.adam``, torch.optim.AdamW):
θ' = θ(1 − ηλ) − η u(g).  L2 in the gradient: θ' = θ − η u(g + λθ).  Under SGD, u(g) = g, the two
coincide.  Under Adam they do not: at the first step m̂ = g, v̂ = g², u(g) = g/(|g| + ε), and for
g > 0, θ > 0 the L2 iterate exceeds the decoupled one by ηλθ (1 − ε/((g + ε)(g + λθ + ε))) —
Adam's normalisation divides the decay term away, nearly all of it when ε ≪ g.

Clipping to τ (``numeric.adam``, torch's clip_grad_norm_): g' = c g with c = τ/(‖g‖ + δ), δ the
small guard, when ‖g‖ > τ.  Over the P entries of all tensors together, g'/‖g'‖ = g/‖g‖ (the
direction is kept for every c > 0) and ‖g'‖ = τ‖g‖/(‖g‖ + δ).

Domain: η, λ, τ > 0, ε, δ ≥ 0; the Adam comparison at its first step with g > 0, θ > 0; the
clipping claims for g ≠ 0.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Assumption, Derivation, Domain, Notation, Step, instance

theta, g_ = sp.symbols("theta g", real=True)
gp, thp = sp.symbols("g theta", positive=True)
eta, lam, tau = sp.symbols("eta lambda tau", positive=True)
eps, guard = sp.symbols("epsilon delta", nonnegative=True)


def sgd(grad):
    return grad


def adam_first(grad):
    """Adam's first update direction: m̂₁ = g, v̂₁ = g², so m̂/(√v̂ + ε) = g/(|g| + ε)."""
    return grad / (sp.Abs(grad) + eps)


SGD_L2 = theta - eta * sgd(g_ + lam * theta)
SGD_DECOUPLED = theta * (1 - eta * lam) - eta * sgd(g_)

sgd_weight_decay_equivalence = Derivation(
    "sgd_weight_decay_equivalence",
    "Under SGD, L2 in the gradient and decoupled weight decay give the same step",
    sp.Eq(SGD_L2, SGD_DECOUPLED, evaluate=False),
    (),
    (
        Step(theta - eta * g_ - eta * lam * theta, "distribute η"),
        Step(SGD_DECOUPLED, "collect θ: θ − ηλθ = θ(1 − ηλ)"),
    ),
    Domain(),
)

ADAM_L2 = thp - eta * adam_first(gp + lam * thp)
ADAM_DECOUPLED = thp * (1 - eta * lam) - eta * adam_first(gp)
ADAM_GAP = eta * lam * thp * (1 - eps / ((gp + eps) * (gp + lam * thp + eps)))
# the two iterates side by side, as written (SymPy would merge their θ terms on the spot)
_GAP_WRITTEN = sp.Add(ADAM_L2, sp.Mul(-1, ADAM_DECOUPLED, evaluate=False), evaluate=False)

adamw_decoupled_vs_l2 = Derivation(
    "adamw_decoupled_vs_l2",
    "Under Adam (first step, g, θ > 0) L2 decay and decoupled decay differ by "
    "ηλθ(1 − ε/((g+ε)(g+λθ+ε)))",
    sp.Eq(_GAP_WRITTEN, ADAM_GAP, evaluate=False),
    (),
    (
        Step(eta * lam * thp + eta * gp / (gp + eps)
             - eta * (gp + lam * thp) / (gp + lam * thp + eps),
             "|g| = g and |g + λθ| = g + λθ for g, θ > 0; θ − θ(1 − ηλ) = ηλθ"),
        Step(eta * lam * thp - eta * lam * thp * eps / ((gp + eps) * (gp + lam * thp + eps)),
             "common denominator: g(g + λθ + ε) − (g + λθ)(g + ε) = −λθε"),
        Step(ADAM_GAP, "factor ηλθ"),
    ),
    Domain(ranges={eps: (0.0, 1.0)}),
)

P = sp.Symbol("P", integer=True, positive=True)
a, q = sp.symbols("a q", integer=True, positive=True)
gv = sp.IndexedBase("g", real=True)
c = sp.Symbol("c", positive=True)
NORM = sp.sqrt(sp.Sum(gv[q] ** 2, (q, 1, P)))
NORM_S = sp.Symbol("G", positive=True)
CLIPPED_NORM = sp.sqrt(sp.Sum((c * gv[q]) ** 2, (q, 1, P)))

# the global norm over all P entries, named as the reader writes it
CLIPPING = Notation("clipping", (P, gv))
NORM_D = sp.Symbol("norm_g", nonnegative=True)
NORM_DEF = CLIPPING.define("‖g‖", NORM_D, NORM, r"\lVert g \rVert",
                           text="the global norm of the gradient, over all P entries")

NONZERO = Assumption(
    "nonzero gradient", "‖g‖ = sqrt(sum_q g_q^2) > 0: clipping is applied to a nonzero gradient.",
    r"\lVert g\rVert > 0", rewrites=((sp.Sum(gv[q] ** 2, (q, 1, P)), NORM_S**2),))

clip_scaled_norm = Derivation(
    "clip_scaled_norm",
    "Clipping: scaling every entry by c > 0 scales the global norm by c",
    sp.Eq(CLIPPED_NORM, c * NORM_D, evaluate=False),
    (),
    (Step(c * NORM_D, "(c g_q)² = c² g_q²; c² out of the sum; √(c²) = c for c > 0; the "
          "definition of ‖g‖", ("‖g‖",)),),
    Domain(dims=(P,)),
    (NORM_DEF,),
)

clip_preserves_direction = Derivation(
    "clip_preserves_direction",
    "Clipping keeps the direction: (c g)/‖c g‖ = g/‖g‖ for c > 0",
    sp.Eq(c * gv[a] / CLIPPED_NORM, gv[a] / NORM_D, evaluate=False),
    (NONZERO,),  # g ≠ 0: both sides divide by a norm
    (Step(gv[a] / NORM_D, "‖c g‖ = c‖g‖ (claim clip_scaled_norm); cancel c > 0; the definition "
          "of ‖g‖", ("‖g‖",)),),
    Domain(dims=(P,), indices={a: (1, P)}),
    (NORM_DEF,),
)

CLIP_COEF = tau / (NORM + guard)
_COEF = tau / (NORM_D + guard)  # the same, as written
AT_COEF = instance(clip_scaled_norm, {c: _COEF}, "τ/(‖g‖ + δ) > 0 for τ > 0, δ ≥ 0.")

clip_norm_after = Derivation(
    "clip_norm_after",
    "Clipping to τ with guard δ: the clipped global norm is τ‖g‖/(‖g‖ + δ)",
    sp.Eq(CLIPPED_NORM.xreplace({c: _COEF}), tau * NORM_D / (NORM_D + guard), evaluate=False),
    (AT_COEF,),
    (Step(tau * NORM_D / (NORM_D + guard), "the norm scales by c = τ/(‖g‖ + δ)", (AT_COEF.name,)),),
    Domain(dims=(P,), ranges={guard: (0.0, 0.5)}),
    (NORM_DEF,),
)

CLAIMS = (sgd_weight_decay_equivalence, adamw_decoupled_vs_l2, clip_scaled_norm,
          clip_preserves_direction, clip_norm_after)
