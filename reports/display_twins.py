"""SymPy twins of the hand-written display forms in ``reports/render/i18n/claims.toml``.

A display form is TeX a reader sees next to the engine's expanded form. Each twin here holds
the exact TeX it vouches for and a check against the engine, made two ways: a structural or
simplification check of the twin after its abbreviations are substituted back, and a numeric
one (50-digit random points, or explicit matrices at sizes 1..6 for matrix forms). The build
shows a twinned form only when the TeX in claims.toml is the twin's TeX and the twin matches;
:func:`unchecked` names the forms that still have no twin (reported, not hidden).

Only the public API of ``derivations`` is used: claim statements and module-level functions.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import sympy as sp

DIGITS = 50
SIZES = range(1, 7)


@dataclass(frozen=True)
class Twin:
    """``claim``'s display ``field`` (statement, result, where or steps.N) shown as ``tex``;
    ``check()`` returns None when the twin matches the engine, else the reason it does not."""

    claim: str
    field: str
    tex: str
    check: Callable[[], str | None]


def _point(symbols, seed: int, low: float = -2.0, high: float = 2.0) -> dict:
    rng = random.Random(seed)
    return {s: sp.Float(mpmath.mpf(rng.uniform(low, high)), DIGITS) for s in symbols}


def _numerically_equal(a: sp.Basic, b: sp.Basic, fixed: dict, free, seed: int,
                       points: int = 4, low: float = -2.0, high: float = 2.0) -> bool:
    for p in range(points):
        at = {**fixed, **_point(free, seed + p, low, high)}
        gap = sp.N((a - b).subs(at).doit(), DIGITS)
        if not gap.is_number or abs(complex(gap)) > sp.Float(10) ** (10 - DIGITS):
            return False
    return True


# ----------------------------------------------------------------------------- softmax
def softmax_entry(scale: sp.Basic = sp.S.One) -> Callable[[], str | None]:
    """s_i(δ_ij − s_j)/scale with s_a = the engine's softmax(z/scale)_a, against the claim."""
    import derivations
    from derivations import softmax as sm

    claim = "softmax_jacobian" if scale == 1 else "softmax_temperature"

    def check() -> str | None:
        s = sp.IndexedBase("s")
        twin = s[sm.i] * (sp.KroneckerDelta(sm.i, sm.j) - s[sm.j]) / scale
        back = twin.subs({s[a]: sm.softmax(a, scale=scale) for a in (sm.i, sm.j)})
        rhs = derivations.get(claim).statement.rhs
        if sp.simplify(back - rhs) != 0:
            return f"{claim}: s_i(δ_ij − s_j) does not simplify to the claim's right side"
        for size in (1, 3, 5):  # explicit logits: both sides and the derivative itself
            zs = sp.symbols(f"w1:{size + 1}", real=True)
            unroll = {sm.z[a]: zs[a - 1] for a in range(1, size + 1)}
            for ii in range(1, size + 1):
                for jj in range(1, size + 1):
                    at = {sm.i: ii, sm.j: jj, sm.n: size}
                    got = back.subs(at).doit().subs(unroll)
                    want = sp.diff(sm.softmax(ii, scale=scale).subs(sm.n, size).doit()
                                   .subs(unroll), zs[jj - 1])
                    fixed = {} if scale == 1 else {scale: sp.Rational(7, 5)}
                    if not _numerically_equal(got.subs(fixed), want.subs(fixed), {}, zs,
                                              seed=31 * size + ii):
                        return f"{claim}: s_i(δ_ij − s_j) differs from ∂s_{ii}/∂z_{jj} at n={size}"
        return None

    return check


def softmax_matrix(sign: int = -1) -> Callable[[], str | None]:
    """diag(s) + sign·s sᵀ as explicit matrices at sizes 1..6 against the Jacobian of the
    engine's softmax, entry by entry at 50-digit random logits (sign −1 is the true form)."""
    from derivations import softmax as sm

    def check() -> str | None:
        for size in SIZES:
            zs = sp.symbols(f"w1:{size + 1}", real=True)
            unroll = {sm.z[a]: zs[a - 1] for a in range(1, size + 1)}
            s_vec = [sm.softmax(a).subs(sm.n, size).doit().subs(unroll)
                     for a in range(1, size + 1)]
            col = sp.Matrix(s_vec)
            twin = sp.diag(*s_vec) + sign * col * col.T
            engine = sp.Matrix([[sp.diff(sr, zc) for zc in zs] for sr in s_vec])
            for p in range(3):
                at = _point(zs, 97 * size + p)
                gap = (twin - engine).subs(at).evalf(DIGITS)
                worst = max((abs(v) for v in gap), default=sp.S.Zero)
                if worst > sp.Float(10) ** (10 - DIGITS):
                    return (f"softmax_jacobian: the matrix form differs from the Jacobian of "
                            f"softmax at n={size} by {sp.N(worst, 3)}")
        return None

    return check


def cross_entropy_entry() -> str | None:
    """p_j − y_j with p_j the engine's probability and y_j = δ_jk, against the claim."""
    import derivations
    from derivations import cross_entropy as ce

    p = sp.IndexedBase("p")
    twin = p[ce.j] - sp.KroneckerDelta(ce.j, ce.k)
    back = twin.subs(p[ce.j], ce.probability(ce.j))
    rhs = derivations.get("cross_entropy_gradient").statement.rhs
    if sp.simplify(back - rhs) != 0:
        return "cross_entropy_gradient: p_j − y_j does not simplify to the claim's right side"
    return None


# ----------------------------------------------------------------------------- Adam
def adam_bias(moment: int, correction: Callable[[sp.Basic], sp.Basic] | None = None
              ) -> Callable[[], str | None]:
    """E[m_t] and E[m̂_t] (moment 1) or E[v_t] and E[v̂_t] (moment 2): the hatted symbol's
    definition m_t/(1 − β^t) substituted back must give the claim's own left side, and the
    displayed values its right side (simplified, then at random β ∈ (0.05, 0.95), t, μ, σ)."""
    import derivations
    from derivations import adam

    claim = derivations.get(f"adam_{'first' if moment == 1 else 'second'}_moment_bias")
    beta = adam.beta_1 if moment == 1 else adam.beta_2
    raw = adam.M_CLOSED if moment == 1 else adam.V_CLOSED
    shown = adam.mu if moment == 1 else adam.mu**2 + adam.sigma**2
    fix = correction or (lambda m: m / (1 - beta**adam.t))

    def check() -> str | None:
        expect = claim.statement.lhs[0].func  # the engine's expectation operator
        m, m_hat = sp.symbols("m_t hat_m_t")
        twin_lhs = [expect(m), expect(m_hat)]
        twin_rhs = [(1 - beta**adam.t) * shown, shown]
        back = [e.subs(m_hat, fix(m)).subs(m, raw) for e in twin_lhs]
        for got, want in zip(back, claim.statement.lhs, strict=True):
            if got != want and sp.simplify(got - want) != 0:
                return f"{claim.id}: the hatted definition gives {got}, the claim says {want}"
        for got, want in zip(twin_rhs, claim.statement.rhs, strict=True):
            if sp.simplify(got - want) != 0:
                return f"{claim.id}: displayed value {got} differs from {want}"
            for tt in (1, 2, 5):
                if not _numerically_equal(got.subs(adam.t, tt), want.subs(adam.t, tt), {},
                                          sorted(got.free_symbols - {adam.t}, key=str),
                                          seed=tt, low=0.05, high=0.95):
                    return f"{claim.id}: displayed value differs numerically at t={tt}"
        return None

    return check


TWINS: tuple[Twin, ...] = (
    Twin("softmax_jacobian", "result.entry", r"\frac{\partial s_i}{\partial z_j} = "
         r"s_i(\delta_{ij}-s_j)", softmax_entry()),
    Twin("softmax_jacobian", "result.matrix", r"J = \operatorname{diag}(s)-ss^{\top}",
         softmax_matrix(-1)),
    Twin("softmax_temperature", "result", r"\frac{\partial s_i}{\partial z_j} = "
         r"\frac{1}{T}\,s_i(\delta_{ij}-s_j)", lambda: softmax_entry(_temperature())()),
    Twin("cross_entropy_gradient", "result.entry",
         r"\frac{\partial(-\log p_k)}{\partial z_j} = p_j - y_j", cross_entropy_entry),
    Twin("adam_first_moment_bias", "result",
         r"\mathbb{E}[m_t] = (1-\beta_1^{t})\,\mu,\qquad \mathbb{E}[\hat{m}_t] = \mu",
         lambda: adam_bias(1)()),
    Twin("adam_second_moment_bias", "result",
         r"\mathbb{E}[v_t] = (1-\beta_2^{t})(\mu^2+\sigma^2),\qquad "
         r"\mathbb{E}[\hat{v}_t] = \mu^2+\sigma^2", lambda: adam_bias(2)()),
)


def _temperature() -> sp.Symbol:
    from derivations import softmax as sm

    return sm.T


def shown_tex(claim: str, field: str, display: dict) -> str | None:
    """The TeX claims.toml shows for ``field`` ("result.entry": the first of the ",\\qquad"
    separated parts of the result)."""
    key, _, part = field.partition(".")
    tex = display.get(key)
    if tex is None or not part:
        return tex
    parts = [p.strip() for p in tex.split(r",\qquad")]
    index = {"entry": 0, "matrix": 1}.get(part)
    return parts[index] if index is not None and index < len(parts) else None


def verify(display_of: Callable[[str], dict]) -> list[str]:
    """Every twin's problem: its TeX is not what claims.toml shows, or it does not match."""
    problems = []
    for twin in TWINS:
        shown = shown_tex(twin.claim, twin.field, display_of(twin.claim))
        if shown != twin.tex:
            problems.append(f"{twin.claim} {twin.field}: claims.toml shows {shown!r}, "
                            f"the twin vouches for {twin.tex!r}")
            continue
        reason = twin.check()
        if reason:
            problems.append(f"{twin.claim} {twin.field}: {reason}")
    return problems


def unchecked(display_of: Callable[[str], dict], claim_ids) -> list[str]:
    """Display forms of claims.toml with no twin here: shown, but named as unchecked."""
    twinned = {(t.claim, t.field.partition(".")[0]) for t in TWINS}
    out = []
    for cid in claim_ids:
        shown = display_of(cid)
        for key in ("statement", "result", "where"):
            if shown.get(key) and (cid, key) not in twinned:
                out.append(f"{cid} {key}")
        out += [f"{cid} steps.{k}" for k in sorted(shown.get("steps", {}))]
    return out
