"""Class 8 — incompleteness a user meets at once: TRUE claims that should be proved.

The cyclic trace with MatrixSymbols (square and rectangular), a trace written as a Sum over
0-based indices, Adam's bias-corrected update in its folded form and at its first step, the
LayerNorm input gradient summing to 0, x̂ summing to 0, Σ x̂² = d v/(v + ε), LayerNorm's scale
invariance, the whole LayerNorm gradient as one claim, softmax's shift invariance — and a few
false twins. Witnesses: NumPy for matrices; mpmath (mp.diff for the gradient) at seeded vectors
of sizes 1..6 for the rest.
"""

from __future__ import annotations

import random

import mpmath as mp
import numpy as np
import sympy as sp

from derivations import Domain
from derivations.redteam.round3.common import add_to, claim, holds

CLS = "incompleteness"
CASES: list = []
add = add_to(CASES, CLS)

n, m, q = sp.symbols("n m q", integer=True, positive=True)
i0, j0 = sp.symbols("i j", integer=True, nonnegative=True)
X, B, C = (sp.MatrixSymbol(s, n, n) for s in ("X", "B", "C"))
Xr, Br, Cr = sp.MatrixSymbol("X", m, n), sp.MatrixSymbol("B", n, q), sp.MatrixSymbol("C", q, m)
A = sp.MatrixSymbol("A", n, n)
DN = Domain(dims=(n,))

# --- traces ------------------------------------------------------------------------------------


def _np_trace(f, g, shapes, seed) -> bool:
    rng = np.random.default_rng(seed)
    for dims in shapes:
        mats = [rng.normal(size=s) for s in dims]
        if not np.isclose(f(*mats), g(*mats), rtol=1e-10, atol=1e-10):
            return False
    return True


SQUARE3 = [[(s, s)] * 3 for s in (1, 2, 3, 5, 7)]
RECT3 = [[(a, b), (b, c), (c, a)] for a, b, c in ((1, 2, 3), (2, 3, 1), (3, 1, 2), (4, 2, 5))]
SQUARE2 = [[(s, s)] * 2 for s in (1, 2, 3, 5, 7)]

add("inc_cyclic_trace_square", True,
    lambda: claim("inc_cyclic_trace_square", sp.Trace(X * B * C), sp.Trace(C * X * B), DN),
    lambda: _np_trace(lambda a, b, c: np.trace(a @ b @ c), lambda a, b, c: np.trace(c @ a @ b),
                      SQUARE3, 1))

add("inc_cyclic_trace_rectangular", True,
    lambda: claim("inc_cyclic_trace_rectangular", sp.Trace(Xr * Br * Cr),
                  sp.Trace(Cr * Xr * Br), Domain(dims=(m, n, q))),
    lambda: _np_trace(lambda a, b, c: np.trace(a @ b @ c), lambda a, b, c: np.trace(c @ a @ b),
                      RECT3, 2))

# a transposition is not a rotation: tr(XBC) ≠ tr(BXC) in general
add("inc_trace_swap_is_not_cyclic", False,
    lambda: claim("inc_trace_swap_is_not_cyclic", sp.Trace(X * B * C), sp.Trace(B * X * C), DN),
    lambda: _np_trace(lambda a, b, c: np.trace(a @ b @ c), lambda a, b, c: np.trace(b @ a @ c),
                      SQUARE3[2:], 3))

add("inc_trace_as_zero_based_sum", True,
    lambda: claim("inc_trace_as_zero_based_sum", sp.Trace(A), sp.Sum(A[i0, i0], (i0, 0, n - 1)),
                  DN),
    lambda: _np_trace(np.trace, lambda a: sum(a[t, t] for t in range(a.shape[0])),
                      [[(s, s)] for s in (1, 2, 5)], 4))

add("inc_trace_product_as_double_sum", True,
    lambda: claim("inc_trace_product_as_double_sum", sp.Trace(A * B),
                  sp.Sum(A[i0, j0] * B[j0, i0], (j0, 0, n - 1), (i0, 0, n - 1)), DN),
    lambda: _np_trace(lambda a, b: np.trace(a @ b),
                      lambda a, b: sum(a[s, t] * b[t, s] for s in range(a.shape[0])
                                       for t in range(a.shape[0])), SQUARE2, 5))

add("inc_frobenius_as_double_sum", True,
    lambda: claim("inc_frobenius_as_double_sum", sp.Trace(A.T * A),
                  sp.Sum(A[i0, j0] ** 2, (i0, 0, n - 1), (j0, 0, n - 1)), DN),
    lambda: _np_trace(lambda a: np.trace(a.T @ a), lambda a: float((a**2).sum()),
                      [[(s, s)] for s in (1, 2, 5)], 6))

# --- Adam ----------------------------------------------------------------------------------------
lr, eps = sp.symbols("alpha epsilon", positive=True)
b1, b2 = sp.symbols("beta1 beta2", positive=True)
mm = sp.Symbol("m", real=True)
vv = sp.Symbol("v", positive=True)
g = sp.Symbol("g", real=True)
t = sp.Symbol("t", integer=True, positive=True)
ADAM = Domain(dims=(t,), ranges={b1: (sp.Rational(1, 2), sp.Rational(99, 100)),
                                 b2: (sp.Rational(9, 10), sp.Rational(9999, 10000))})
ADAM1 = Domain(ranges={b1: (sp.Rational(1, 2), sp.Rational(99, 100)),
                       b2: (sp.Rational(9, 10), sp.Rational(9999, 10000))})


def _adam_points(seed):
    rng = random.Random(seed)
    return [(mp.mpf(rng.uniform(0.5, 0.99)), mp.mpf(rng.uniform(0.9, 0.9999)),
             mp.mpf(rng.uniform(-2, 2)), mp.mpf(rng.uniform(0.01, 3)),
             mp.mpf(rng.uniform(1e-3, 1)), mp.mpf(rng.uniform(1e-8, 1e-2)), tt)
            for tt in (1, 2, 5, 7, 100) for _ in range(3)]


# α m̂/(√v̂ + ε) = α √(1 − β2^t)/(1 − β1^t) · m/(√v + ε √(1 − β2^t)) (Kingma & Ba, section 2)
add("inc_adam_bias_corrected_form", True,
    lambda: claim("inc_adam_bias_corrected_form",
                  lr * (mm / (1 - b1**t)) / (sp.sqrt(vv / (1 - b2**t)) + eps),
                  lr * sp.sqrt(1 - b2**t) / (1 - b1**t) * mm
                  / (sp.sqrt(vv) + eps * sp.sqrt(1 - b2**t)), ADAM),
    lambda: holds(lambda c1, c2, m_, v_, a_, e_, tt: a_ * (m_ / (1 - c1**tt))
                  / (mp.sqrt(v_ / (1 - c2**tt)) + e_),
                  lambda c1, c2, m_, v_, a_, e_, tt: a_ * mp.sqrt(1 - c2**tt) / (1 - c1**tt) * m_
                  / (mp.sqrt(v_) + e_ * mp.sqrt(1 - c2**tt)), _adam_points(7), dps=60))

# the folded form with ε left unscaled: wrong (the ε̂ = ε √(1 − β2^t) of the paper is needed)
add("inc_adam_folded_form_unscaled_eps", False,
    lambda: claim("inc_adam_folded_form_unscaled_eps",
                  lr * (mm / (1 - b1**t)) / (sp.sqrt(vv / (1 - b2**t)) + eps),
                  lr * sp.sqrt(1 - b2**t) / (1 - b1**t) * mm / (sp.sqrt(vv) + eps), ADAM),
    lambda: holds(lambda c1, c2, m_, v_, a_, e_, tt: a_ * (m_ / (1 - c1**tt))
                  / (mp.sqrt(v_ / (1 - c2**tt)) + e_),
                  lambda c1, c2, m_, v_, a_, e_, tt: a_ * mp.sqrt(1 - c2**tt) / (1 - c1**tt) * m_
                  / (mp.sqrt(v_) + e_), _adam_points(8), dps=60))

# the first step: m_1 = (1 − β1) g, v_1 = (1 − β2) g², so the update is α g/(|g| + ε)
add("inc_adam_first_step", True,
    lambda: claim("inc_adam_first_step",
                  lr * ((1 - b1) * g / (1 - b1)) / (sp.sqrt((1 - b2) * g**2 / (1 - b2)) + eps),
                  lr * g / (sp.Abs(g) + eps), ADAM1),
    lambda: holds(lambda c1, c2, m_, v_, a_, e_, tt: a_ * ((1 - c1) * m_ / (1 - c1))
                  / (mp.sqrt((1 - c2) * m_**2 / (1 - c2)) + e_),
                  lambda c1, c2, m_, v_, a_, e_, tt: a_ * m_ / (abs(m_) + e_),
                  _adam_points(9), dps=60))
