"""Class 7 — time: claims whose checking may run long or without bound.

Adam's bias correction at step 10^6 (a power with a million in the exponent, symbolic and as an
exact rational of three million digits), a concrete 100×100 trace identity, finite sums and
products of 10^5 .. 10^6 terms, a 30th derivative, an 8×8 symbolic determinant. The runner
records each case's wall time; the engine's budgets are counted in operations, so a case should
end (proved, failed or timed out) long before the 300 s cap. Witnesses: mpmath (the product and
the power at hundreds of digits), exact fractions (the telescoping sum), NumPy (matrices).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp

from derivations import Domain
from derivations.redteam.round3.common import add_to, claim, holds, pairs, pts

CLS = "time"
CASES: list = []
add = add_to(CASES, CLS)

x = sp.Symbol("x", real=True)
v = sp.Symbol("v", positive=True)
beta = sp.Symbol("beta2", positive=True)
k = sp.Symbol("k", integer=True, positive=True)
N6 = 10**6
A100, B100 = sp.MatrixSymbol("A", 100, 100), sp.MatrixSymbol("B", 100, 100)
A8 = sp.MatrixSymbol("A", 8, 8)
ADAM = Domain(ranges={beta: (sp.Rational(9, 10), sp.Rational(999, 1000)), v: (1, 2)})


def beta_points():
    return pairs("0.9", "0.999", 1, 2, 6, 1)


# v/(1 − β^(10^6)) = v: β^(10^6) <= 0.999^(10^6) ~ 10^-435, so the relative gap is that
add("time_adam_correction_at_1e6", False,
    lambda: claim("time_adam_correction_at_1e6", v / (1 - beta**N6), v, ADAM),
    lambda: holds(lambda b, u: u / (1 - b**N6), lambda b, u: u, beta_points(), dps=600))

# the same with β = 999/1000 exactly: SymPy builds the rational 999^(10^6)/1000^(10^6)
add("time_adam_correction_exact_rational", False,
    lambda: claim("time_adam_correction_exact_rational",
                  v / (1 - sp.Rational(999, 1000) ** N6), v, Domain(ranges={v: (1, 2)})),
    lambda: holds(lambda u: u / (1 - (mp.mpf(999) / 1000) ** N6), lambda u: u, pts(1, 2, 4, 2),
                  dps=600))

# v/(1 − β^N) = v + v β^N/(1 − β^N): exact algebra
add("time_adam_correction_identity_true", True,
    lambda: claim("time_adam_correction_identity_true", v / (1 - beta**N6),
                  v + v * beta**N6 / (1 - beta**N6), ADAM),
    lambda: holds(lambda b, u: u / (1 - b**N6), lambda b, u: u + u * b**N6 / (1 - b**N6),
                  beta_points(), dps=600))


def _numpy_trace(identity: bool, size: int = 100) -> bool:
    rng = np.random.default_rng(7)
    A, B = rng.normal(size=(size, size)), rng.normal(size=(size, size))
    lhs = np.trace(A @ B)
    rhs = np.trace(B @ A) if identity else np.trace(A) * np.trace(B)
    return bool(np.isclose(lhs, rhs, rtol=1e-10, atol=1e-8))


add("time_trace_cyclic_100_true", True,
    lambda: claim("time_trace_cyclic_100_true", sp.Trace(A100 * B100), sp.Trace(B100 * A100)),
    lambda: _numpy_trace(True))

add("time_trace_product_100", False,
    lambda: claim("time_trace_product_100", sp.Trace(A100 * B100),
                  sp.Trace(A100) * sp.Trace(B100)),
    lambda: _numpy_trace(False))

def _telescoping(closed) -> bool:
    """The sum of 10^6 terms in floats (math.fsum: correctly rounded) against the claimed value;
    the two candidate values differ by 10^-6, far above float rounding. Exactly: each term is
    1/k − 1/(k+1), so the partial sum to m is 1 − 1/(m+1) (checked in Fractions to m = 2000)."""
    exact = all(sum(Fraction(1, q * (q + 1)) for q in range(1, m + 1)) == 1 - Fraction(1, m + 1)
                for m in (1, 2, 10, 100, 2000))
    total = math.fsum(1 / (q * (q + 1)) for q in range(1, N6 + 1))
    return exact and abs(total - closed()) < 1e-12


# Σ_{k=1}^{10^6} 1/(k(k+1)) telescopes to 1 − 1/(10^6 + 1), not 1
add("time_telescoping_sum_1e6", False,
    lambda: claim("time_telescoping_sum_1e6", sp.Sum(1 / (k * (k + 1)), (k, 1, N6)), 1),
    lambda: _telescoping(lambda: 1.0))

add("time_telescoping_sum_1e6_true", True,
    lambda: claim("time_telescoping_sum_1e6_true", sp.Sum(1 / (k * (k + 1)), (k, 1, N6)),
                  1 - sp.Rational(1, N6 + 1)),
    lambda: _telescoping(lambda: 1 - 1 / (N6 + 1)))

# the 30th derivative of tanh on (200, 300) is ~ 2^31 · 30^30 e^-2x-ish, tiny but not 0
add("time_tanh_30th_derivative_is_zero", False,
    lambda: claim("time_tanh_30th_derivative_is_zero", sp.Derivative(sp.tanh(x), (x, 30)), 0,
                  Domain(ranges={x: (200, 300)})),
    lambda: holds(lambda u: mp.diff(mp.tanh, u, 30), lambda u: 0, pts(200, 300, 2, 3), dps=900))

# (x^N)' = N x^(N−1) for N = 10^6, and its wrong twin without the − 1
add("time_power_derivative_1e6_true", True,
    lambda: claim("time_power_derivative_1e6_true", sp.Derivative(x**N6, x),
                  N6 * x ** (N6 - 1), Domain(ranges={x: (1, 2)})),
    lambda: holds(lambda u: mp.diff(lambda t: t**N6, u), lambda u: N6 * u ** (N6 - 1),
                  pts(1, 2, 4, 4), dps=60))

add("time_power_derivative_1e6_wrong", False,
    lambda: claim("time_power_derivative_1e6_wrong", sp.Derivative(x**N6, x), N6 * x**N6,
                  Domain(ranges={x: (1, 2)})),
    lambda: holds(lambda u: mp.diff(lambda t: t**N6, u), lambda u: N6 * u**N6,
                  pts(1, 2, 4, 5), dps=60))


def _wallis(terms: int) -> bool:
    with mp.workdps(30):
        prod = mp.fprod(1 - mp.mpf(1) / (4 * q * q) for q in range(1, terms + 1))
        return bool(abs(prod - 2 / mp.pi) < mp.mpf(10) ** -25)


# Wallis: Π (1 − 1/4k²) → 2/π, but the 10^5-th partial product is 2/π (1 + ~1/(8·10^5)) off
add("time_wallis_partial_product_1e5", False,
    lambda: claim("time_wallis_partial_product_1e5",
                  sp.Product(1 - 1 / (4 * k**2), (k, 1, 10**5)), 2 / sp.pi),
    lambda: _wallis(10**5))


def _det(scale: int, exponent: int) -> bool:
    rng = np.random.default_rng(8)
    A = rng.normal(size=(8, 8))
    return bool(np.isclose(np.linalg.det(scale * A), scale**exponent * np.linalg.det(A),
                           rtol=1e-9))


add("time_det_transpose_8_true", True,
    lambda: claim("time_det_transpose_8_true", sp.Determinant(A8.T), sp.Determinant(A8)),
    lambda: bool(np.isclose(np.linalg.det(np.random.default_rng(9).normal(size=(8, 8)).T),
                            np.linalg.det(np.random.default_rng(9).normal(size=(8, 8))),
                            rtol=1e-12)))

# det(2A) = 2^8 det A for 8×8, not 2 det A
add("time_det_scale_8", False,
    lambda: claim("time_det_scale_8", sp.Determinant(2 * A8), 2 * sp.Determinant(A8)),
    lambda: _det(2, 1))

add("time_det_scale_8_true", True,
    lambda: claim("time_det_scale_8_true", sp.Determinant(2 * A8), 256 * sp.Determinant(A8)),
    lambda: _det(2, 8))
