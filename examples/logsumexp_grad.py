"""The gradient of log-sum-exp is softmax, for a symbolic number n of logits."""

import sympy as sp

from derivations import Derivation, Domain, Step

n = sp.Symbol("n", integer=True, positive=True)
j, k = sp.symbols("j k", integer=True, positive=True)
z = sp.IndexedBase("z", real=True)

Z = sp.Sum(sp.exp(z[k]), (k, 1, n))

LSE_GRADIENT = Derivation(
    id="logsumexp_gradient",
    title="The gradient of log-sum-exp is softmax",
    statement=sp.Eq(sp.Derivative(sp.log(Z), z[j]), sp.exp(z[j]) / Z, evaluate=False),
    assumptions=(),
    steps=(
        Step(sp.Derivative(Z, z[j]) / Z, "chain rule: (log u)' = u'/u"),
        Step(sp.Sum(sp.KroneckerDelta(j, k) * sp.exp(z[k]), (k, 1, n)) / Z,
             "differentiate term by term: dz_k/dz_j = delta_jk"),
        Step(sp.exp(z[j]) / Z, "the delta picks k = j"),
    ),
    domain=Domain(dims=(n,), indices={j: (1, n)}),
)

CLAIMS = [LSE_GRADIENT]
