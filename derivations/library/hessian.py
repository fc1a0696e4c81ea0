"""Second derivatives: the Hessian of log-sum-exp is the softmax Jacobian diag(s) − ssᵀ, and it is
positive semi-definite.

Written without second-order ``Derivative`` objects (SymPy merges a nested Derivative into one of
order two, which the engine's numeric route reads as first order on the main branch today): the
gradient entry ∂/∂z_i log Σ_k e^{z_k} is written out as G_i = Σ_k δ_ik e^{z_k} / Σ_k e^{z_k}, and
the Hessian entry is the first derivative of G_i by z_j.

Chain: ``lse_gradient`` (∂ LSE/∂z_i = G_i = s_i), ``lse_hessian`` (∂G_i/∂z_j = s_i(δ_ij − s_j),
citing ``softmax_jacobian``), ``lse_hessian_psd`` (xᵀHx = Σ_i s_i(x_i − x̄)² ≥ 0, citing
``softmax_jacobian_psd``).

Domain: n symbolic, logits and x real.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Derivation, Domain, Notation, Step, lemma
from derivations.library import notation as nt
from derivations.library import softmax as S

z, i, j, k, n, x = S.z, S.i, S.j, S.k, S.n, S.x
LSE = sp.log(S.Z)
GRAD = sp.Sum(sp.KroneckerDelta(i, k) * sp.exp(z[k]), (k, 1, n)) / S.Z
HESSIAN_ENTRY = sp.Derivative(GRAD, z[j])

# the gradient entry, written out as the chain rule gives it, and named
LSE_NOTATION = Notation("log-sum-exp", (n, z, x), builds_on=(nt.SOFTMAX,))
Gd = sp.IndexedBase("G", real=True)
ZS, SS, XB = nt.Z, nt.s, nt.xbar
G_DEF = LSE_NOTATION.define("G", Gd, sp.Sum(sp.KroneckerDelta(i, k) * sp.exp(z[k]), (k, 1, n)) / ZS,
                            params=(i,), text="entry i of the gradient of log Z")

lse_gradient = Derivation(
    "lse_gradient",
    "Log-sum-exp: the gradient ∂/∂z_i log Σ_k e^{z_k} is softmax(z)_i",
    sp.Eq(sp.Derivative(sp.log(ZS), z[i]), Gd[i], evaluate=False),
    (),
    (Step(Gd[i], "the definitions of Z and G_i; chain rule: ∂ log Z = ∂Z/Z; "
          "∂e^{z_k}/∂z_i = δ_ik e^{z_k}", ("G",)),),
    S.LOGITS,
    (G_DEF,),
)

lse_gradient_softmax = Derivation(
    "lse_gradient_softmax",
    "Log-sum-exp: the gradient entry Σ_k δ_ik e^{z_k}/Σ_k e^{z_k} is s_i",
    sp.Eq(Gd[i], SS[i], evaluate=False),
    (),
    (Step(SS[i], "the definitions of G_i and s_i: Σ_k δ_ik e^{z_k} = e^{z_i} for 1 ≤ i ≤ n",
          ("G", "s")),),
    S.ROW,
    (G_DEF, nt.S_DEF),
)

lse_hessian = Derivation(
    "lse_hessian",
    "Log-sum-exp: the Hessian is diag(s) − ssᵀ, the softmax Jacobian",
    sp.Eq(sp.Derivative(Gd[i], z[j]), S.JACOBIAN_FOLDED, evaluate=False),
    (lemma(lse_gradient_softmax), lemma(S.softmax_jacobian)),
    (
        Step(sp.Derivative(SS[i], z[j]), "the gradient entry is s_i", ("lse_gradient_softmax",)),
        Step(S.JACOBIAN_FOLDED, "∂s_i/∂z_j = s_i(δ_ij − s_j)", ("softmax_jacobian",)),
    ),
    S.LOGITS,
    (G_DEF, nt.S_DEF),
)

_QUAD = sp.Sum(x[i] * sp.Sum(sp.Derivative(Gd[i], z[j]) * x[j], (j, 1, n)), (i, 1, n))

lse_hessian_psd = Derivation(
    "lse_hessian_psd",
    "Log-sum-exp is convex: xᵀHx = Σ_i s_i (x_i − x̄)² ≥ 0",
    sp.Eq(_QUAD, S.QUADRATIC_FOLDED, evaluate=False),
    (lemma(lse_hessian), lemma(S.softmax_jacobian_psd)),
    (
        Step(S.softmax_jacobian_psd.lhs, "∂G_i/∂z_j = s_i(δ_ij − s_j)", ("lse_hessian",)),
        Step(S.QUADRATIC_FOLDED, "xᵀJx = Σ_i s_i (x_i − x̄)², a variance under s",
             ("softmax_jacobian_psd",)),
    ),
    Domain(dims=(n,)),
    (G_DEF, nt.XBAR_DEF),
)

CLAIMS = (lse_gradient, lse_gradient_softmax, lse_hessian, lse_hessian_psd)
