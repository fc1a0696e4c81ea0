"""The gradient of log-sum-exp is softmax, for a symbolic number n of logits, written with the
normaliser Z := Σ_k e^{z_k} as a definition (checked with Z written out)."""

import sympy as sp

from derivations import Derivation, Domain, Notation, Step

n = sp.Symbol("n", integer=True, positive=True)
j, k = sp.symbols("j k", integer=True, positive=True)
z = sp.IndexedBase("z", real=True)

NOTATION = Notation("log-sum-exp", (n, z))
Z = sp.Symbol("Z", positive=True)
Z_DEF = NOTATION.define("Z", Z, sp.Sum(sp.exp(z[k]), (k, 1, n)), text="the normaliser")

LSE_GRADIENT = Derivation(
    id="logsumexp_gradient",
    title="The gradient of log-sum-exp is softmax",
    statement=sp.Eq(sp.Derivative(sp.log(Z), z[j]), sp.exp(z[j]) / Z, evaluate=False),
    assumptions=(),
    steps=(
        Step(sp.Derivative(Z, z[j]) / Z, "chain rule: (log Z)' = Z'/Z"),
        Step(sp.Sum(sp.KroneckerDelta(j, k) * sp.exp(z[k]), (k, 1, n)) / Z,
             "the definition of Z, term by term: dz_k/dz_j = delta_jk", ("Z",)),
        Step(sp.exp(z[j]) / Z, "the delta keeps the term k = j"),
    ),
    domain=Domain(dims=(n,), indices={j: (1, n)}),
    definitions=(Z_DEF,),
)

CLAIMS = [LSE_GRADIENT]
