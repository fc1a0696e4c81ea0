"""Positions: the sinusoidal table's relative-offset property and rotary embeddings (RoPE) as
rotations, for symbolic positions and a symbolic number h of channel pairs.

Sinusoidal (``ops.sinusoidal_encoding``, C = 2h channels): pair i (i = 0..h−1) of PE(t) is
(sin ω_i t, cos ω_i t) with ω_i = 10000^(−2i/C) = 10000^(−i/h).  For every offset k one fixed
matrix M_i(k) = [[cos ω_i k, sin ω_i k], [−sin ω_i k, cos ω_i k]] — a rotation, independent of
t — carries pair i of PE(t) to pair i of PE(t + k); block-diagonal over i it maps PE(t) to PE(t+k).

RoPE (``ops.rope_forward``, head dim D = 2h): channel pair (x1_j, x2_j) = (x_j, x_{j+h}) is
rotated by θ_j(p) = p·10000^(−j/h) at position p: R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]].
R is orthogonal, so the backward of x ↦ Rx is g ↦ Rᵀg (``ops.rope_backward``), and
Σ_j ⟨R(θ_j(m)) q_j, R(θ_j(n)) k_j⟩ = Σ_j ⟨q_j, R(θ_j(n − m)) k_j⟩: the scores depend on the
positions only through n − m.

Domain: positions and offsets are any reals (integers in the model); angles any reals.
"""

from __future__ import annotations

import sympy as sp

from derivations.engine import Derivation, Domain, Step, lemma
from derivations.library.rules import DIFF_UNDER_SUM

h = sp.Symbol("h", integer=True, positive=True)
i, j, l = sp.symbols("i j l", integer=True, nonnegative=True)
t, k, p, m, n = sp.symbols("t k p m n", real=True)
theta = sp.Symbol("theta", real=True)
BASE = 10000
_M = sp.ImmutableMatrix
delta = sp.KroneckerDelta


def omega(idx):
    """The frequency of channel pair idx: 10000^(−idx/h), i.e. 10000^(−2·idx/C) with C = 2h."""
    return sp.Integer(BASE) ** (-idx / h)


def pe_pair(pos, idx=i):
    return _M([sp.sin(omega(idx) * pos), sp.cos(omega(idx) * pos)])


def offset_map(offset, idx=i):
    w = omega(idx) * offset
    return _M([[sp.cos(w), sp.sin(w)], [-sp.sin(w), sp.cos(w)]])


def rotation(angle):
    return _M([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


_a, _b = omega(i) * t, omega(i) * k

sinusoidal_relative_offset = Derivation(
    "sinusoidal_relative_offset",
    "Sinusoidal positions: a fixed rotation M(k), independent of t, maps PE(t) to PE(t + k)",
    sp.Eq(pe_pair(t + k), sp.MatMul(offset_map(k), pe_pair(t), evaluate=False), evaluate=False),
    (),
    (
        Step(_M([sp.sin(_a) * sp.cos(_b) + sp.cos(_a) * sp.sin(_b),
                 sp.cos(_a) * sp.cos(_b) - sp.sin(_a) * sp.sin(_b)]),
             "angle addition: sin(a + b), cos(a + b) with a = ω_i t, b = ω_i k"),
        Step(sp.MatMul(offset_map(k), pe_pair(t), evaluate=False), "read off the matrix of "
             "(sin a, cos a); it depends on k and ω_i only"),
    ),
    Domain(dims=(h,), indices={i: (0, h - 1)}),
)

rope_rotation_orthogonal = Derivation(
    "rope_rotation_orthogonal",
    "RoPE: each pair's rotation is orthogonal, R(θ)ᵀR(θ) = I",
    sp.Eq(sp.MatMul(rotation(theta).T, rotation(theta), evaluate=False), sp.eye(2),
          evaluate=False),
    (),
    (
        Step(_M([[sp.cos(theta) ** 2 + sp.sin(theta) ** 2, 0],
                 [0, sp.sin(theta) ** 2 + sp.cos(theta) ** 2]]),
             "multiply out; the off-diagonal terms cancel"),
        Step(_M(sp.eye(2)), "cos²θ + sin²θ = 1"),
    ),
    Domain(),
)

# --- RoPE over h pairs: the backward ------------------------------------------------------------

x1, x2, g1, g2 = (sp.IndexedBase(s, real=True) for s in ("x1", "x2", "g1", "g2"))
q1, q2, k1, k2 = (sp.IndexedBase(s, real=True) for s in ("q1", "q2", "k1", "k2"))


def _cs(pos, idx):
    w = omega(idx) * pos
    return sp.cos(w), sp.sin(w)


def rope_out(a, b, pos, idx):
    """(R(θ_idx(pos)) (a, b))ᵀ as the two entries the model writes to channels idx, idx + h."""
    c, s = _cs(pos, idx)
    return a * c - b * s, a * s + b * c


_o1, _o2 = rope_out(x1[j], x2[j], p, j)
_ROPE_LOSS = sp.Sum(g1[j] * _o1 + g2[j] * _o2, (j, 0, h - 1))
_c, _s = _cs(p, l)
ROPE_GRAD = _M([g1[l] * _c + g2[l] * _s, -g1[l] * _s + g2[l] * _c])  # (Rᵀg) for pair l

rope_backward_transpose = Derivation(
    "rope_backward_transpose",
    "RoPE backward: the gradient of ⟨g, R x⟩ by x is Rᵀg, pair by pair",
    sp.Eq(_M([sp.Derivative(_ROPE_LOSS, x1[l]), sp.Derivative(_ROPE_LOSS, x2[l])]), ROPE_GRAD,
          evaluate=False),
    (DIFF_UNDER_SUM,),
    (
        Step(_M([sp.Sum(g1[j] * sp.Derivative(_o1, x1[l]) + g2[j] * sp.Derivative(_o2, x1[l]),
                        (j, 0, h - 1)),
                 sp.Sum(g1[j] * sp.Derivative(_o1, x2[l]) + g2[j] * sp.Derivative(_o2, x2[l]),
                        (j, 0, h - 1))]),
             "differentiation under a finite sum; g does not depend on x",
             ("differentiation under a finite sum",)),
        Step(_M([sp.Sum(delta(j, l) * (g1[j] * _cs(p, j)[0] + g2[j] * _cs(p, j)[1]),
                        (j, 0, h - 1)),
                 sp.Sum(delta(j, l) * (-g1[j] * _cs(p, j)[1] + g2[j] * _cs(p, j)[0]),
                        (j, 0, h - 1))]),
             "∂x1_j/∂x1_l = ∂x2_j/∂x2_l = δ_jl; the pairs do not mix"),
        Step(ROPE_GRAD, "Σ_j δ_jl f(j) = f(l) for 0 ≤ l ≤ h − 1: the transposed rotation"),
    ),
    Domain(dims=(h,), indices={l: (0, h - 1)}),
)

# --- relative positions -------------------------------------------------------------------------

_qm = rope_out(q1[j], q2[j], m, j)
_kn = rope_out(k1[j], k2[j], n, j)
_krel = rope_out(k1[j], k2[j], n - m, j)
PAIR_SCORE = _qm[0] * _kn[0] + _qm[1] * _kn[1]
PAIR_RELATIVE = q1[j] * _krel[0] + q2[j] * _krel[1]
_cm, _sm = _cs(m, j)
_cn, _sn = _cs(n, j)

rope_pair_relative = Derivation(
    "rope_pair_relative",
    "RoPE, one pair: ⟨R(θ_m) q, R(θ_n) k⟩ = ⟨q, R(θ_{n−m}) k⟩",
    sp.Eq(PAIR_SCORE, PAIR_RELATIVE, evaluate=False),
    (),
    (
        Step(q1[j] * (k1[j] * (_cm * _cn + _sm * _sn) - k2[j] * (_sn * _cm - _cn * _sm))
             + q2[j] * (k1[j] * (_sn * _cm - _cn * _sm) + k2[j] * (_cm * _cn + _sm * _sn)),
             "qᵀ R(θ_m)ᵀ R(θ_n) k, multiplied out"),
        Step(PAIR_RELATIVE, "cos a cos b + sin a sin b = cos(b − a), sin b cos a − cos b sin a = "
             "sin(b − a): R(θ_m)ᵀR(θ_n) = R(θ_n − θ_m), and θ_n − θ_m = θ_{n−m}"),
    ),
    Domain(dims=(h,), indices={j: (0, h - 1)}),
)

rope_relative_position = Derivation(
    "rope_relative_position",
    "RoPE: the score of query position m and key position n depends on n − m only",
    sp.Eq(sp.Sum(PAIR_SCORE, (j, 0, h - 1)), sp.Sum(PAIR_RELATIVE, (j, 0, h - 1)),
          evaluate=False),
    (lemma(rope_pair_relative),),
    (Step(sp.Sum(PAIR_RELATIVE, (j, 0, h - 1)), "pair by pair", ("rope_pair_relative",)),),
    Domain(dims=(h,)),
)

CLAIMS = (sinusoidal_relative_offset, rope_rotation_orthogonal, rope_backward_transpose,
          rope_pair_relative, rope_relative_position)
