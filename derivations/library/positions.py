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

from derivations.engine import Derivation, Domain, Notation, Step, lemma
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


x1, x2, g1, g2 = (sp.IndexedBase(s, real=True) for s in ("x1", "x2", "g1", "g2"))
q1, q2, k1, k2 = (sp.IndexedBase(s, real=True) for s in ("q1", "q2", "k1", "k2"))

# the frequencies ω_i and the angles θ_j(p) = p ω_j, named as the reader writes them
POSITIONS = Notation("positions", (h, p, m, n, x1, x2, g1, g2, q1, q2, k1, k2))
W = sp.IndexedBase("omega", positive=True)
W_DEF = POSITIONS.define("ω", W, omega(i), params=(i,),
                         text="the frequency of channel pair i: 10000^(−2i/C) with C = 2h")
TH = sp.Function("theta", real=True)
_pos = sp.Symbol("p", real=True)
TH_DEF = POSITIONS.define("θ", TH, _pos * W[j], r"\theta_{{{1}}}\left({0}\right)",
                          params=(_pos, j), text="the angle of channel pair j at position p")


def _named(expr):
    """``expr`` with ω_i and θ_j(p) folded: exactly the subterms their definitions write out."""
    names = {omega(idx) * pos: TH(pos, idx) for idx in (j, l) for pos in (p, m, n, n - m)}
    return expr.xreplace(names).xreplace({omega(idx): W[idx] for idx in (i, j, l)})


_a, _b = omega(i) * t, omega(i) * k

sinusoidal_relative_offset = Derivation(
    "sinusoidal_relative_offset",
    "Sinusoidal positions: a fixed rotation M(k), independent of t, maps PE(t) to PE(t + k)",
    sp.Eq(_named(pe_pair(t + k)), _named(sp.MatMul(offset_map(k), pe_pair(t), evaluate=False)),
          evaluate=False),
    (),
    (
        Step(_named(_M([sp.sin(_a) * sp.cos(_b) + sp.cos(_a) * sp.sin(_b),
                        sp.cos(_a) * sp.cos(_b) - sp.sin(_a) * sp.sin(_b)])),
             "angle addition: sin(a + b), cos(a + b) with a = ω_i t, b = ω_i k"),
        Step(_named(sp.MatMul(offset_map(k), pe_pair(t), evaluate=False)), "read off the matrix "
             "acting on (sin ω_i t, cos ω_i t); it depends on k and ω_i only"),
    ),
    Domain(dims=(h,), indices={i: (0, h - 1)}),
    (W_DEF,),
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

# the rotated pair o = R(θ_j(p)) x and the loss through it, L = ⟨g, o⟩
O1, O2 = sp.IndexedBase("o1", real=True), sp.IndexedBase("o2", real=True)
O1_DEF = POSITIONS.define("o₁", O1, _named(_o1), params=(j,),
                          text="the first entry of pair j rotated, channel j")
O2_DEF = POSITIONS.define("o₂", O2, _named(_o2), params=(j,),
                          text="the second entry of pair j rotated, channel j + h")
L = sp.Symbol("L", real=True)
L_DEF = POSITIONS.define("L", L, sp.Sum(g1[j] * O1[j] + g2[j] * O2[j], (j, 0, h - 1)),
                         text="the loss through the rotated pairs, for the upstream g = ∂L/∂o")


def _by(var):
    return sp.Sum(g1[j] * sp.Derivative(O1[j], var) + g2[j] * sp.Derivative(O2[j], var),
                  (j, 0, h - 1))


def _cos_sin(pos, idx):
    return sp.cos(TH(pos, idx)), sp.sin(TH(pos, idx))


_cj, _sj = _cos_sin(p, j)
_cl, _sl = _cos_sin(p, l)

rope_backward_transpose = Derivation(
    "rope_backward_transpose",
    "RoPE backward: the gradient of ⟨g, R x⟩ by x is Rᵀg, pair by pair",
    sp.Eq(_M([sp.Derivative(L, x1[l]), sp.Derivative(L, x2[l])]),
          _M([g1[l] * _cl + g2[l] * _sl, -g1[l] * _sl + g2[l] * _cl]), evaluate=False),
    (DIFF_UNDER_SUM,),
    (
        Step(_M([_by(x1[l]), _by(x2[l])]),
             "the definition of L; differentiation under a finite sum, g does not depend on x",
             ("L", "differentiation under a finite sum")),
        Step(_M([sp.Sum(delta(j, l) * (g1[j] * _cj + g2[j] * _sj), (j, 0, h - 1)),
                 sp.Sum(delta(j, l) * (-g1[j] * _sj + g2[j] * _cj), (j, 0, h - 1))]),
             "the definitions of o₁ and o₂: ∂x1_j/∂x1_l = ∂x2_j/∂x2_l = δ_jl, and the pairs do "
             "not mix", ("o₁", "o₂")),
        Step(_M([g1[l] * _cl + g2[l] * _sl, -g1[l] * _sl + g2[l] * _cl]),
             "δ_jl keeps the term j = l, for 0 ≤ l ≤ h − 1: the transposed rotation"),
    ),
    Domain(dims=(h,), indices={l: (0, h - 1)}),
    (L_DEF,),
)

# --- relative positions -------------------------------------------------------------------------

_qm = rope_out(q1[j], q2[j], m, j)
_kn = rope_out(k1[j], k2[j], n, j)
_krel = rope_out(k1[j], k2[j], n - m, j)
PAIR_SCORE = _qm[0] * _kn[0] + _qm[1] * _kn[1]
PAIR_RELATIVE = q1[j] * _krel[0] + q2[j] * _krel[1]

# the score of pair j for query position m and key position n, and the same pair's score for
# a key rotated by an offset δ alone
SCORE = sp.Function("s", real=True)
SCORE_DEF = POSITIONS.define("s", SCORE, _named(PAIR_SCORE), r"s_{{{2}}}\left({0}, {1}\right)",
                             params=(m, n, j),
                             text="the score of pair j: ⟨R(θ_j(m)) q_j, R(θ_j(n)) k_j⟩")
_offset = sp.Symbol("delta", real=True)
RHO = sp.Function("rho", real=True)
_co, _so = _cos_sin(_offset, j)
RHO_DEF = POSITIONS.define(
    "ρ", RHO, q1[j] * (k1[j] * _co - k2[j] * _so) + q2[j] * (k1[j] * _so + k2[j] * _co),
    r"\rho_{{{1}}}\left({0}\right)", params=(_offset, j),
    text="the score of pair j with the key alone rotated, by δ: ⟨q_j, R(θ_j(δ)) k_j⟩")
_cm, _sm = _cos_sin(m, j)
_cn, _sn = _cos_sin(n, j)

rope_pair_relative = Derivation(
    "rope_pair_relative",
    "RoPE, one pair: ⟨R(θ_m) q, R(θ_n) k⟩ = ⟨q, R(θ_{n−m}) k⟩",
    sp.Eq(SCORE(m, n, j), RHO(n - m, j), evaluate=False),
    (),
    (
        Step(q1[j] * (k1[j] * (_cm * _cn + _sm * _sn) - k2[j] * (_sn * _cm - _cn * _sm))
             + q2[j] * (k1[j] * (_sn * _cm - _cn * _sm) + k2[j] * (_cm * _cn + _sm * _sn)),
             "the definition of s_j, multiplied out", ("s",)),
        Step(RHO(n - m, j), "cos a cos b + sin a sin b = cos(b − a) and sin b cos a − cos b sin a "
             "= sin(b − a) with a = θ_j(m), b = θ_j(n); θ_j(n) − θ_j(m) = θ_j(n − m); the "
             "definition of ρ_j", ("ρ",)),
    ),
    Domain(dims=(h,), indices={j: (0, h - 1)}),
    (SCORE_DEF, RHO_DEF),
)

rope_relative_position = Derivation(
    "rope_relative_position",
    "RoPE: the score of query position m and key position n depends on n − m only",
    sp.Eq(sp.Sum(SCORE(m, n, j), (j, 0, h - 1)), sp.Sum(RHO(n - m, j), (j, 0, h - 1)),
          evaluate=False),
    (lemma(rope_pair_relative),),
    (Step(sp.Sum(RHO(n - m, j), (j, 0, h - 1)), "pair by pair", ("rope_pair_relative",)),),
    Domain(dims=(h,)),
    (SCORE_DEF, RHO_DEF),
)

CLAIMS = (sinusoidal_relative_offset, rope_rotation_orthogonal, rope_backward_transpose,
          rope_pair_relative, rope_relative_position)
