"""Checks behind the display forms: each compares a form as a reader sees it with the
engine, structurally or by simplification and again numerically (50-digit random points, explicit
sizes), using only the public API of ``derivations``. Registered in reports.forms.display_twins."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

import mpmath
import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement

DIGITS = 50
SIZES = range(1, 7)


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
    from derivations.library import softmax as sm

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
    from derivations.library import softmax as sm

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
                gap = (twin - engine).xreplace(at).evalf(DIGITS)
                worst = max((abs(v) for v in gap), default=sp.S.Zero)
                if worst > sp.Float(10) ** (10 - DIGITS):
                    return (f"softmax_jacobian: the matrix form differs from the Jacobian of "
                            f"softmax at n={size} by {sp.N(worst, 3)}")
        return None

    return check


def cross_entropy_entry() -> str | None:
    """p_j − y_j with p_j the engine's probability and y_j = δ_jk, against the claim."""
    import derivations
    from derivations.library import cross_entropy as ce

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
    from derivations.library import adam

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


# ----------------------------------------------------------------------------- steps
def claim_names(claim_id: str) -> dict:
    """The engine's symbols of one claim by name (statement and every step)."""
    import derivations

    d = derivations.get(claim_id)
    out: dict = {}
    for expr in (d.statement, *(st.expr for st in d.steps)):
        for a in sp.preorder_traversal(expr):
            if isinstance(a, sp.Indexed):
                out[str(a.base)] = a.base
            elif isinstance(a, (sp.Symbol, sp.IndexedBase, sp.MatrixSymbol)):
                out.setdefault(str(a), a)
    return out


def engine_step(claim_id: str, index: int) -> sp.Basic:
    import derivations

    return derivations.get(claim_id).steps[index - 1].expr

DIMS = ("n", "d_k", "t", "m", "B", "d", "h", "d_v")


def _explicit(expr: sp.Basic, size: int, seed: int) -> sp.Basic:
    """``expr`` with its dimensions set to ``size``, sums unrolled, indices in range and every
    remaining symbol, indexed entry or matrix replaced by a 50-digit random value."""
    rng = random.Random(seed)

    def value() -> sp.Float:
        return sp.Float(mpmath.mpf(rng.uniform(-1.5, 1.5)), DIGITS)

    subs: dict = {}
    for sym in sorted(expr.free_symbols, key=str):
        if isinstance(sym, sp.Symbol) and str(sym) in DIMS:
            subs[sym] = size
        elif isinstance(sym, sp.Symbol) and sym.is_integer:
            subs[sym] = rng.randint(1, size)
    for mat in sorted(expr.atoms(sp.MatrixSymbol), key=str):
        rows, cols = (int(d.subs(subs)) if not isinstance(d, int) else d for d in mat.shape)
        subs[mat] = sp.Matrix(rows, cols, lambda r, c: value())
    out = expr.subs(subs).doit()
    if isinstance(out, sp.MatrixBase) or hasattr(out, "as_explicit"):
        out = sp.Matrix(out.as_explicit() if hasattr(out, "as_explicit") else out)
    entries: dict = {}
    out = out.replace(lambda e: isinstance(e, sp.Indexed),
                      lambda e: entries.setdefault(e, value()))
    rest = {sym: value() for sym in out.free_symbols}
    return out.subs(rest)


def _gap(a: sp.Basic, b: sp.Basic) -> sp.Basic:
    diff = sp.Matrix(a) - sp.Matrix(b) if isinstance(a, sp.MatrixBase) else a - b
    values = list(diff) if isinstance(diff, sp.MatrixBase) else [diff]
    return max(abs(sp.N(v, DIGITS)) for v in values) if values else sp.S.Zero


def same_as_engine(twin: sp.Basic, abbreviations: dict, engine: sp.Basic, where: str
                   ) -> str | None:
    """``twin`` (an unevaluated display form) with its abbreviations substituted back equals
    ``engine``: structurally after ``doit``, else by simplification and at random points."""
    back = twin.xreplace(abbreviations).doit()  # xreplace: also inside sums over the index
    structural = back == engine
    if not structural:
        diff = back - engine
        cells = list(diff) if isinstance(diff, sp.MatrixBase) else [diff]
        if any(sp.simplify(e) != 0 for e in cells):
            return f"{where}: the display form does not equal the engine's step"
    for size in (1, 2, 3):  # the second, independent check: explicit sizes, random values
        seed = 7 * size + len(where)
        try:
            gap = _gap(_explicit(back, size, seed), _explicit(engine, size, seed))
        except (TypeError, ValueError, AttributeError):
            gap = None  # an operator with no explicit value (Var): structure must decide
        if gap is None or not gap.is_number:
            if not structural:
                return f"{where}: equal only by simplification, and not evaluable at n={size}"
            continue
        if gap > sp.Float(10) ** (10 - DIGITS):
            return f"{where}: the display form differs from the engine's step by {gap}"
    return None

# ----------------------------------------------------------------------------- explicit checks
def _close(a, b) -> bool:
    return _gap(a, b) <= sp.Float(10) ** (10 - DIGITS)


def cross_entropy_vector() -> str | None:
    """∇_z(−log p_k) = p − y at n = 1..6 for every target k, with the engine's probability
    unrolled, differentiated explicitly and compared at 50-digit random logits."""
    from derivations.library import cross_entropy as ce

    for size in SIZES:
        zs = sp.symbols(f"w1:{size + 1}", real=True)
        unroll = {ce.z[a]: zs[a - 1] for a in range(1, size + 1)}
        p = [ce.probability(a).subs(ce.n, size).doit().subs(unroll) for a in range(1, size + 1)]
        for k in range(1, size + 1):
            y = [1 if a == k else 0 for a in range(1, size + 1)]
            grad = sp.Matrix([sp.diff(-sp.log(p[k - 1]), w) for w in zs])
            twin = sp.Matrix(p) - sp.Matrix(y)
            at = _point(zs, 13 * size + k)
            if not _close(twin.xreplace(at), grad.xreplace(at)):
                return f"cross_entropy_gradient: p − y differs from the gradient at n={size}"
    return None


def batch_entry() -> str | None:
    """(P_{a,j} − Y_{a,j})/B with P the engine's batch probability equals the claim's side."""
    import derivations
    from derivations.library import cross_entropy as ce

    rhs = derivations.get("cross_entropy_batch_mean").statement.rhs
    target = next(a for a in sp.preorder_traversal(rhs) if type(a).__name__ == "_Target")
    p_, y_ = sp.IndexedBase("P"), sp.IndexedBase("Y")
    twin = (p_[ce.a, ce.j] - y_[ce.a, ce.j]) / ce.B
    back = twin.subs({p_[ce.a, ce.j]: ce.batch_probability(ce.a, ce.j), y_[ce.a, ce.j]: target})
    if back != rhs and sp.simplify(back - rhs) != 0:
        return "cross_entropy_batch_mean: (P − Y)/B does not equal the claim's right side"
    return None


def batch_matrix() -> str | None:
    """∇_Z L = (P − Y)/B for explicit batches B, n = 1..3 with random targets on the simplex:
    the mean cross-entropy differentiated entry by entry at 50-digit random logits."""
    rng = random.Random(5)
    for rows in (1, 2, 3):
        for cols in (1, 2, 3):
            zs = sp.Matrix(rows, cols, lambda r, c: sp.Symbol(f"w{r}_{c}", real=True))
            weights = [[sp.Rational(rng.randint(1, 9)) for _ in range(cols)] for _ in range(rows)]
            y = sp.Matrix([[w / sum(row) for w in row] for row in weights])
            norm = [sum(sp.exp(zs[r, c]) for c in range(cols)) for r in range(rows)]
            p = sp.Matrix([[sp.exp(zs[r, c]) / norm[r] for c in range(cols)]
                           for r in range(rows)])
            loss = -sum(y[r, c] * sp.log(p[r, c]) for r in range(rows) for c in range(cols)) / rows
            grad = sp.Matrix([[sp.diff(loss, zs[r, c]) for c in range(cols)]
                              for r in range(rows)])
            at = _point(list(zs), 17 * rows + cols)
            if not _close(((p - y) / rows).xreplace(at), grad.xreplace(at)):
                return f"cross_entropy_batch_mean: (P − Y)/B differs at B={rows}, n={cols}"
    return None


def softmax_definition(scale_name: str | None = None) -> Callable[[], str | None]:
    """The legend's s_i is the very softmax the claim differentiates."""
    def check() -> str | None:
        import derivations
        from derivations.library import softmax as sm

        claim = "softmax_jacobian" if scale_name is None else "softmax_temperature"
        scale = sp.S.One if scale_name is None else sm.T
        if derivations.get(claim).statement.lhs.expr != sm.softmax(sm.i, scale=scale):
            return f"{claim}: the legend's s_i is not the softmax the claim differentiates"
        return None

    return check

@functools.cache
def _residual_block(d: int) -> tuple:
    """x, W₁, W₂, b₁ as explicit d-sized symbols, u = W₁x + b₁, F = W₂tanh(u) and the explicit
    Jacobian of x + F (shared by the checks of every step)."""
    xs = sp.Matrix(sp.symbols(f"x1:{d + 1}", real=True))
    w1 = sp.Matrix(d, d, lambda r, c: sp.Symbol(f"a{r}{c}", real=True))
    w2 = sp.Matrix(d, d, lambda r, c: sp.Symbol(f"c{r}{c}", real=True))
    b1 = sp.Matrix(sp.symbols(f"b1:{d + 1}", real=True))
    u = w1 * xs + b1
    f = w2 * u.applyfunc(sp.tanh)
    return xs, w1, w2, b1, u, f, (xs + f).jacobian(xs)


def residual_step(index: int, form: Callable | None = None) -> Callable[[], str | None]:
    """Step ``index`` of ∂(x + W₂tanh(W₁x + b₁))/∂x as the reader sees it, built as explicit
    matrices at d = 1..3 and compared with the explicit Jacobian at 50-digit points."""
    def check() -> str | None:
        for d in (1, 2, 3):
            xs, w1, w2, b1, u, f, truth = _residual_block(d)
            eye, diag = sp.eye(d), sp.diag(*[1 - sp.tanh(v) ** 2 for v in u])
            shown = form(eye, w1, w2, diag, xs) if form else {
                1: xs.jacobian(xs) + f.jacobian(xs),
                2: eye + f.jacobian(xs),
                3: eye + w2 * u.applyfunc(sp.tanh).jacobian(xs),
                4: eye + w2 * diag * u.jacobian(xs),
                5: eye + w2 * diag * w1,
            }[index]
            free = sorted(truth.free_symbols | shown.free_symbols, key=str)
            at = _point(free, 11 * d + index)
            # xreplace: the forms are explicit matrices of plain symbols, nothing to re-derive
            if not _close(shown.xreplace(at), truth.xreplace(at)):
                return f"residual_jacobian step {index}: differs from the Jacobian at d={d}"
        return None

    return check


def _block(w_o: sp.Matrix, e: int, dv: int) -> sp.Matrix:
    """W_O^{(e)}: the d_v rows of W_O that meet head e's columns of the concatenation."""
    return w_o[e * dv:(e + 1) * dv, :]


def multihead_statement(block: Callable = _block) -> str | None:
    """(Concat(H_0..H_{h−1}) W_O)_ic = Σ_e (H_e W_O^{(e)})_ic with explicit random heads, and
    both equal to the engine's statement evaluated at the same numbers."""
    import derivations

    statement = derivations.get("multihead_shapes").statement
    names = {str(a): a for a in statement.free_symbols}
    rng = random.Random(3)
    for heads, dv, rows, width in ((1, 1, 1, 1), (2, 2, 2, 3), (3, 2, 2, 2)):
        hs = [sp.Matrix(rows, dv, lambda *_: sp.Rational(rng.randint(-9, 9), 7))
              for _ in range(heads)]
        w_o = sp.Matrix(heads * dv, width, lambda *_: sp.Rational(rng.randint(-9, 9), 5))
        concat = sp.Matrix.hstack(*hs) * w_o
        blocks = sum((hs[e] * block(w_o, e, dv) for e in range(heads)),
                     sp.zeros(rows, width))
        if concat != blocks:
            return "multihead_shapes: Concat(H)W_O differs from Σ_e H_e W_O^(e)"
        for i in range(rows):
            for c in range(width):
                at = {names["h"]: heads, names["d_v"]: dv, names["i"]: i, names["c"]: c}
                side = statement.lhs.subs(at).doit()
                entries = {}
                for e in side.atoms(sp.Indexed, MatrixElement):
                    ix = [int(v) for v in (e.indices if isinstance(e, sp.Indexed) else e.args[1:])]
                    entries[e] = hs[ix[0]][ix[1], ix[2]] if len(ix) == 3 else w_o[ix[0], ix[1]]
                side = side.subs(entries)
                if side != concat[i, c]:
                    return f"multihead_shapes: the engine's statement differs at ({i}, {c})"
    return None

