"""Class 4 — complex symbols evaluated at real values only.

A symbol declared complex=True, or with no assumption at all, ranges over the complex plane; a
claim true on the real line and false off it (conjugate, Abs, arg, re/im, e^(iθ) rotations) is
false. Witnesses evaluate with mpmath's complex numbers at seeded points off the real axis; the
true twins hold at every complex point.
"""

from __future__ import annotations

import random

import mpmath as mp
import numpy as np
import sympy as sp

from derivations import Assumption, Domain, Step
from derivations.redteam.round3.common import add_to, claim, cpoints, holds

CLS = "complex symbols"
CASES: list = []
add = add_to(CASES, CLS)

w = sp.Symbol("w", complex=True)
wnz = sp.Symbol("w", complex=True, nonzero=True)
t = sp.Symbol("t")  # no assumption: complex
u, v = sp.symbols("u v", complex=True)
k, q = sp.symbols("k q", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True)
c = sp.IndexedBase("c")  # complex entries
X = sp.MatrixSymbol("X", n, n)
I = sp.I
CP = cpoints(12, 1)


def one_var(lhs, rhs, points=CP, dps=60) -> bool:
    return holds(lhs, rhs, points, dps=dps)


def two_var(lhs, rhs, dps=60) -> bool:
    return holds(lhs, rhs, list(zip(cpoints(10, 2), cpoints(10, 3), strict=True)), dps=dps)


add("cx_conjugate_is_identity", False,
    lambda: claim("cx_conjugate_is_identity", sp.conjugate(w), w),
    lambda: one_var(mp.conj, lambda a: a))

add("cx_abs_square_is_square", False,
    lambda: claim("cx_abs_square_is_square", sp.Abs(w) ** 2, w**2),
    lambda: one_var(lambda a: abs(a) ** 2, lambda a: a**2))

add("cx_imaginary_part_is_zero", False,
    lambda: claim("cx_imaginary_part_is_zero", sp.im(w), 0),
    lambda: one_var(mp.im, lambda a: 0))

# no assumption at all: t is complex
add("cx_real_part_is_identity", False,
    lambda: claim("cx_real_part_is_identity", sp.re(t), t),
    lambda: one_var(mp.re, lambda a: a))

# arg of a real number is 0 or π, so sin(arg) = 0 — not off the axis
add("cx_sin_arg_is_zero", False,
    lambda: claim("cx_sin_arg_is_zero", sp.sin(sp.arg(w)), 0),
    lambda: one_var(lambda a: mp.sin(mp.arg(a)), lambda a: 0))

# |e^(it)| = e^(−Im t): 1 only for real t
add("cx_rotation_has_unit_modulus", False,
    lambda: claim("cx_rotation_has_unit_modulus", sp.Abs(sp.exp(I * t)), 1),
    lambda: one_var(lambda a: abs(mp.exp(1j * a)), lambda a: 1))

# rotary positions: e^(ikt) conj(e^(iqt)) = e^(i(k−q)t) needs a real frequency t
add("cx_rotary_relative_position", False,
    lambda: claim("cx_rotary_relative_position",
                  sp.exp(I * k * t) * sp.conjugate(sp.exp(I * q * t)),
                  sp.exp(I * (k - q) * t), Domain(dims=(k, q))),
    lambda: holds(lambda a, kk, qq: mp.exp(1j * kk * a) * mp.conj(mp.exp(1j * qq * a)),
                  lambda a, kk, qq: mp.exp(1j * (kk - qq) * a),
                  [(a, kk, qq) for a in cpoints(4, 4) for kk in (1, 2, 3) for qq in (1, 2)],
                  dps=60))

_REAL = Assumption("w is real", "w is a real number, so conj(w) = w",
                   rewrites=((sp.conjugate(w), w),))
# the premise conj(w) = w, cited: |w|² = w conj(w) = w²
add("cx_premise_conjugate_real", False,
    lambda: claim("cx_premise_conjugate_real", w * sp.conjugate(w), w**2, None, (_REAL,),
                  (Step(w**2, "w is real", ("w is real",)),)),
    lambda: one_var(lambda a: a * mp.conj(a), lambda a: a**2))

# log(e^w) = w only for −π < Im w <= π
add("cx_log_of_exp", False,
    lambda: claim("cx_log_of_exp", sp.log(sp.exp(w)), w),
    lambda: one_var(lambda a: mp.log(mp.exp(a)), lambda a: a,
                    [mp.mpc(r, s) for r in (-1, 0.5, 2) for s in (3.5, 5, -4, -6)]))

# |e^w| = e^(Re w), not e^w
add("cx_abs_of_exp", False,
    lambda: claim("cx_abs_of_exp", sp.Abs(sp.exp(w)), sp.exp(w)),
    lambda: one_var(lambda a: abs(mp.exp(a)), mp.exp))

# Σ c_k conj(c_k) = Σ |c_k|², which is not Σ c_k² for complex entries
add("cx_vector_norm_without_conjugate", False,
    lambda: claim("cx_vector_norm_without_conjugate",
                  sp.Sum(c[i] * sp.conjugate(c[i]), (i, 1, n)), sp.Sum(c[i] ** 2, (i, 1, n)),
                  Domain(dims=(n,))),
    lambda: holds(lambda *cs: mp.fsum(a * mp.conj(a) for a in cs),
                  lambda *cs: mp.fsum(a**2 for a in cs), [tuple(cpoints(3, 5))], dps=60))


def _adjoint_is_transpose() -> bool:
    rng = np.random.default_rng(4)
    for size in (1, 2, 3):
        A = rng.normal(size=(size, size)) + 1j * rng.normal(size=(size, size))
        if not np.allclose(A.conj().T, A.T):
            return False
    return True


# X^H = X^T only for real matrices; a MatrixSymbol carries no realness
add("cx_adjoint_is_transpose", False,
    lambda: claim("cx_adjoint_is_transpose", sp.Adjoint(X), sp.Transpose(X), Domain(dims=(n,))),
    _adjoint_is_transpose)

# cos t is real only for real t
add("cx_cosine_is_real", False,
    lambda: claim("cx_cosine_is_real", sp.im(sp.cos(t)), 0),
    lambda: one_var(lambda a: mp.im(mp.cos(a)), lambda a: 0))

# Re(uv) = Re u Re v − Im u Im v
add("cx_real_part_of_product", False,
    lambda: claim("cx_real_part_of_product", sp.re(u * v), sp.re(u) * sp.re(v)),
    lambda: two_var(lambda a, b: mp.re(a * b), lambda a, b: mp.re(a) * mp.re(b)))

# --- true twins: identities that hold at every complex point ---------------------------------
add("cx_exp_of_log_true", True,
    lambda: claim("cx_exp_of_log_true", sp.exp(sp.log(wnz)), wnz),
    lambda: one_var(lambda a: mp.exp(mp.log(a)), lambda a: a))

add("cx_conjugate_of_product_true", True,
    lambda: claim("cx_conjugate_of_product_true", sp.conjugate(u * v),
                  sp.conjugate(u) * sp.conjugate(v)),
    lambda: two_var(lambda a, b: mp.conj(a * b), lambda a, b: mp.conj(a) * mp.conj(b)))

add("cx_pythagoras_true", True,
    lambda: claim("cx_pythagoras_true", sp.cos(w) ** 2 + sp.sin(w) ** 2, 1),
    lambda: one_var(lambda a: mp.cos(a) ** 2 + mp.sin(a) ** 2, lambda a: 1))

add("cx_modulus_square_true", True,
    lambda: claim("cx_modulus_square_true", sp.Abs(w) ** 2, w * sp.conjugate(w)),
    lambda: one_var(lambda a: abs(a) ** 2, lambda a: a * mp.conj(a)))

add("cx_square_root_squared_true", True,
    lambda: claim("cx_square_root_squared_true", sp.sqrt(w) ** 2, w),
    lambda: one_var(lambda a: mp.sqrt(a) ** 2, lambda a: a))


def _rotary_real_frequency() -> bool:
    rng = random.Random(6)
    pts = [(mp.mpf(rng.uniform(-3, 3)), kk, qq) for kk in (1, 2, 5) for qq in (1, 3)]
    return holds(lambda a, kk, qq: mp.exp(1j * kk * a) * mp.conj(mp.exp(1j * qq * a)),
                 lambda a, kk, qq: mp.exp(1j * (kk - qq) * a), pts, dps=60)


theta = sp.Symbol("theta", real=True)
add("cx_rotary_real_frequency_true", True,
    lambda: claim("cx_rotary_real_frequency_true",
                  sp.exp(I * k * theta) * sp.conjugate(sp.exp(I * q * theta)),
                  sp.exp(I * (k - q) * theta), Domain(dims=(k, q))),
    _rotary_real_frequency)
