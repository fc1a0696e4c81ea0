"""tr(ABCD) = tr(DABC) for square MatrixSymbols of a symbolic size.

Expected: TRUE — the trace is invariant under cyclic permutations.
Witness: NumPy at sizes 1, 2, 3, 5, 7 with seeded normal matrices.
"""
import numpy as np
import sympy as sp

from derivations import Derivation, Domain, Step

CLASS = "incompleteness"
TRUTH = True
n = sp.Symbol("n", integer=True, positive=True)
A, B, C, D = (sp.MatrixSymbol(s, n, n) for s in "ABCD")
CLAIMS = [Derivation(
    "cli_inc_trace_cyclic_four", "tr(ABCD) = tr(DABC)",
    sp.Eq(sp.Trace(A * B * C * D), sp.Trace(D * A * B * C), evaluate=False), (),
    (Step(sp.Trace(D * A * B * C), "cyclic trace"),), Domain(dims=(n,)))]


def witness() -> bool:
    rng = np.random.default_rng(12)
    for size in (1, 2, 3, 5, 7):
        a, b, c, d = (rng.normal(size=(size, size)) for _ in range(4))
        if not np.isclose(np.trace(a @ b @ c @ d), np.trace(d @ a @ b @ c), rtol=1e-10):
            return False
    return True
