"""Evidence on depth: products of layer Jacobians, residual connections I + ∂F/∂X, what they
guarantee and what they do not, and layer normalisation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reports.audit.evidence import Fact, Math, Nums, Term, check, judge, num_jac


def _sv(m: np.ndarray) -> np.ndarray:
    return np.linalg.svd(m, compute_uv=False)


def _random_jacobian(rng, d: int, norm: float) -> np.ndarray:
    g = rng.normal(size=(d, d))
    return norm * g / np.linalg.norm(g, 2)


@check(right="note", wrong="foil")
def chain_rule_product(version):
    """The Jacobian of six tanh layers is the product of the layer Jacobians, and it shrinks."""
    rng = np.random.default_rng(32)
    ws = [0.25 * rng.normal(size=(4, 4)) for _ in range(6)]
    x0 = rng.normal(size=4)

    def net(x):
        for w in ws:
            x = np.tanh(w @ x)
        return x

    prod, total, x, norms = np.eye(4), np.zeros((4, 4)), x0, []
    for w in ws:
        layer = np.diag(1 - np.tanh(w @ x) ** 2) @ w
        prod, total, x = layer @ prod, total + layer, np.tanh(w @ x)
        norms.append(float(np.linalg.norm(prod, 2)))
    fd = num_jac(net, x0)
    gaps = {"note": float(np.max(np.abs(fd - prod))), "foil": float(np.max(np.abs(fd - total)))}
    facts = [Fact("chain_norms", norms=Nums(norms, ".2g"))]
    return judge(version, facts,
                 note=(Fact("chain_is_product", gap=gaps["note"]), gaps["note"] < 1e-8),
                 foil=(Fact("chain_is_sum", gap=gaps["foil"]), gaps["foil"] < 1e-8))


@check(right="note", wrong="foil")
def residual_jacobian(version):
    """∂(X + F(X))/∂X = I + ∂F/∂X, by central differences on Y = X + tanh(WX)."""
    rng = np.random.default_rng(33)
    w, x = rng.normal(size=(4, 4)), rng.normal(size=4)
    jf = np.diag(1 - np.tanh(w @ x) ** 2) @ w
    fd = num_jac(lambda v: v + np.tanh(w @ v), x)
    gaps = {"note": float(np.max(np.abs(fd - (np.eye(4) + jf)))),
            "foil": float(np.max(np.abs(fd - jf)))}
    return judge(version, [Fact("residual_block")],
                 note=(Fact("jacobian_plus_identity", gap=gaps["note"]), gaps["note"] < 1e-8),
                 foil=(Fact("jacobian_branch_only", gap=gaps["foil"]), gaps["foil"] < 1e-8))


def _small_jacobians():
    """The note's toy 0.1·I and three other Jacobians of norm about 0.1 or more."""
    rng = np.random.default_rng(5)
    w1, w2 = 0.15 * rng.normal(size=(6, 6)), 0.15 * rng.normal(size=(6, 6))
    x = rng.normal(size=6)
    a = 0.1
    rotation = np.array([[math.cos(a) - 1, -math.sin(a)], [math.sin(a), math.cos(a) - 1]])
    return (("toy", 0.1 * np.eye(2)), ("diag", np.diag([-0.1, 0.05])),
            ("mlp", w2 @ np.diag(1 - np.tanh(w1 @ x) ** 2) @ w1), ("rotation", rotation))


@check(right="correction", wrong="note")
def residual_at_least_one(version):
    """σ_min(I + J) ≥ 1 holds exactly when J + Jᵀ + JᵀJ is positive semidefinite — for the note's
    own toy, not for every small J. The SVD and the criterion are computed independently."""
    facts, ok, wrong = [], True, 0
    for name, j in _small_jacobians():
        smin = float(_sv(np.eye(len(j)) + j)[-1])
        lam = float(np.linalg.eigvalsh(j + j.T + j.T @ j).min())
        predicted = {"note": True, "correction": lam >= -1e-12}[version]
        ok &= predicted == (smin >= 1 - 1e-12)
        wrong += predicted != (smin >= 1 - 1e-12)
        facts.append(Fact("gain_case", case=Term(f"jacobian_{name}"), norm=float(_sv(j)[0]),
                          smin=smin, lam=lam))
    return judge(version, facts,
                 note=(Fact("identity_at_least_one", wrong=wrong), ok),
                 correction=(Fact("at_least_one_criterion", wrong=wrong), ok))


@check(right="correction", wrong="note")
def residual_lossless(version):
    """Fifty layers of random Jacobians of norm 0.02 scale the signal by 0.91 to 1.11; a rotation
    step, nonzero, is exactly lossless: smallness is not the criterion, orthogonality is."""
    d, depth, eps = 16, 50, 0.02
    rng = np.random.default_rng(8)
    a = eps
    rotation = np.array([[math.cos(a) - 1, -math.sin(a)], [math.sin(a), math.cos(a) - 1]])
    steps = {"random": [_random_jacobian(rng, d, eps) for _ in range(depth)],
             "rotation": [rotation] * depth}
    facts, ok = [], True
    for name, js in steps.items():
        n = len(js[0])
        prod = np.eye(n)
        for j in js:
            prod = (np.eye(n) + j) @ prod
        sv = _sv(prod)
        lossless = bool(np.allclose(sv, 1, atol=1e-9))
        orthogonal = all(np.allclose(j + j.T + j.T @ j, 0, atol=1e-12) for j in js)
        predicted = {"note": True, "correction": orthogonal}[version]
        ok &= predicted == lossless
        facts.append(Fact("lossless_stack", stack=Term(f"stack_{name}"), low=float(sv[-1]),
                          high=float(sv[0]), lossless=lossless))
    return judge(version, facts,
                 note=(Fact("small_is_lossless", depth=depth, eps=eps), ok),
                 correction=(Fact("orthogonal_is_lossless"), ok))


@check(right="correction", wrong="note")
def residual_foundation(version):
    """100 layers, random branch Jacobians of norm 0.05: the identity path keeps ∏(I + J_l) far
    from the vanishing ∏J_l, but its singular values fall below 1 in some directions."""
    d, depth, eps = 16, 100, 0.05
    rng = np.random.default_rng(7)
    res, plain = np.eye(d), np.eye(d)
    for _ in range(depth):
        j = _random_jacobian(rng, d, eps)
        res, plain = (np.eye(d) + j) @ res, j @ plain
    sv, bare = _sv(res), float(np.linalg.norm(plain, 2))
    facts = [Fact("foundation_product", low=float(sv[-1]), high=float(sv[0]), bare=bare,
                  lo_bound=(1 - eps) ** depth, hi_bound=(1 + eps) ** depth)]
    return judge(version, facts,
                 note=(Fact("foundation_at_least_one"), sv[-1] >= 1),
                 correction=(Fact("foundation_identity_path"),
                             sv[-1] > 1e6 * bare and (1 - eps) ** depth <= sv[-1]
                             and sv[0] <= (1 + eps) ** depth))


@check(right="correction", wrong="note")
def residual_depth(version):
    """300 layers: with branch Jacobians of norm 0.0003 the gradient is guaranteed to flow; with
    norm 0.02 it can vanish (0.98³⁰⁰ when every branch damps a little), though random branches
    happen to keep it."""
    d, depth = 8, 300
    rng = np.random.default_rng(70)
    facts, ok = [], True
    for eps in (0.0003, 0.02):
        mins = {}
        for kind in ("random", "damping"):
            prod = np.eye(d)
            for _ in range(depth):
                j = _random_jacobian(rng, d, eps) if kind == "random" else -eps * np.eye(d)
                prod = (np.eye(d) + j) @ prod
            mins[kind] = float(_sv(prod)[-1])
        guaranteed = (1 - eps) ** depth >= 0.1
        flows = min(mins.values()) >= 0.1
        predicted = {"note": True, "correction": guaranteed}[version]
        ok &= predicted == flows
        facts.append(Fact("depth_case", eps=eps, random=mins["random"], damping=mins["damping"],
                          bound=(1 - eps) ** depth))
    return judge(version, facts,
                 note=(Fact("identity_guarantees_flow", depth=depth), ok),
                 correction=(Fact("flow_needs_small_branches", depth=depth), ok))


@check(right="correction", wrong="note")
def residual_can_cancel(version):
    """A branch with F(X) = −X cancels the skip: I + J is singular and no gradient passes;
    σ_min(I + J) ≥ 1 − ‖J‖ keeps it positive only while ‖J‖ < 1."""
    facts, mins = [], []
    for norm in (0.5, 0.99, 1.0):
        smin = float(_sv(np.eye(3) - norm * np.eye(3))[-1])
        mins.append((norm, smin))
        facts.append(Fact("cancel_case", j=Math(f"J = -{norm:g}I" if norm != 1 else "J = -I"),
                          smin=smin))
    never_singular = all(s > 0 for _, s in mins)
    bounded = all(s >= 1 - n - 1e-12 for n, s in mins)
    return judge(version, facts,
                 note=(Fact("never_singular"), never_singular),
                 correction=(Fact("singular_possible"), bounded and not never_singular))


@check(right="correction", wrong="note")
def residual_toy_sign(version):
    """The scalar toy 1 + 0.1 assumes F′ > 0; with F′ = −0.1 ten layers give 0.9¹⁰ ≈ 0.35."""
    up, down = Fraction(11, 10) ** 10, Fraction(9, 10) ** 10
    facts = [Fact("toy_powers", up=float(up), down=float(down))]
    return judge(version, facts,
                 note=(Fact("toy_never_decays"), down >= 1),
                 correction=(Fact("toy_decays_if_negative"), down < 1 < up))


@check(right="correction", wrong="note")
def slight_amplification(version):
    """A per-layer factor 1.1 compounds: mild at the toy's 10 layers, 117 at 50, 1.4·10⁴ at 100."""
    depths = (10, 50, 100, 200)
    gains = [float(Fraction(11, 10) ** depth) for depth in depths]
    facts = [Fact("compounding", depths=Nums(depths, "g"), gains=Nums(gains, ".3g"))]
    return judge(version, facts,
                 note=(Fact("amplification_slight"), all(g <= 10 for g in gains)),
                 correction=(Fact("amplification_compounds"), gains[0] < 10 < gains[1]))


@check(right="note", wrong="foil")
def powers_of_ten_layers(version):
    """The note's 0.1¹⁰ = 0.0000000001 and 1.1¹⁰ ≈ 2.59, in exact arithmetic."""
    tenth, grow = Fraction(1, 10) ** 10, Fraction(11, 10) ** 10
    facts = [Fact("toy_exact", tenth=float(tenth), grow=float(grow))]
    return judge(version, facts,
                 note=(Fact("toy_note_values"), tenth == Fraction(1, 10**10)
                       and round(float(grow), 2) == 2.59),
                 foil=(Fact("toy_factors_add"), round(float(grow), 2) == 2.0))


def _stack(s: float, kind: str, d: int = 64, depth: int = 50, trials: int = 5) -> float:
    """Median backward gain ‖Jᵀg‖/‖g‖ over ``depth`` random layers of gain ``s``: plain, with
    skips ("res"), with LayerNorm after each layer ("ln"), or both."""
    gains = []
    for t in range(trials):
        rng = np.random.default_rng(t)
        x, jac = rng.normal(size=d), np.eye(d)
        for _ in range(depth):
            w = s * rng.normal(size=(d, d)) / math.sqrt(d)
            y, jl = (x + w @ x, np.eye(d) + w) if "res" in kind else (w @ x, w)
            if "ln" in kind:
                sd = math.sqrt(y.var() + 1e-5)
                yh = (y - y.mean()) / sd
                jl = (np.eye(d) - 1 / d - np.outer(yh, yh) / d) / sd @ jl
                y = yh
            x, jac = y, jl @ jac
        g = np.random.default_rng(99 + t).normal(size=d)
        gains.append(np.linalg.norm(jac.T @ g) / np.linalg.norm(g))
    return float(np.median(gains))


def _usable(gain: float) -> bool:
    return 1e-2 <= gain <= 1e3


@check(right="correction", wrong="note")
def residual_vanishing_not_explosion(version):
    """Over 50 random layers skips lift the vanishing case (gain 0.5 per layer) but not the
    exploding one (gain 2); with LayerNorm after each block both stay usable."""
    facts, fixes = [], {}
    for s in (0.5, 2.0):
        plain, res, both = (_stack(s, k) for k in ("plain", "res", "res+ln"))
        fixes[s] = _usable(res) and not _usable(plain)
        facts.append(Fact("stack_gains", s=s, plain=plain, res=res, both=both))
    return judge(version, facts,
                 note=(Fact("skips_fix_both"), fixes[0.5] and fixes[2.0]),
                 correction=(Fact("skips_fix_vanishing"), fixes[0.5] and not fixes[2.0]
                             and all(_usable(f.values["both"]) for f in facts)))


@check(right="note", wrong="foil")
def layernorm_gradient_scale(version):
    """With LayerNorm after each layer the backward gain over 50 layers no longer depends on the
    weight scale: LN(sWx) = LN(Wx)."""
    facts, ln = [], {}
    for s in (0.5, 2.0):
        plain, ln[s] = _stack(s, "plain"), _stack(s, "ln")
        facts.append(Fact("ln_gains", s=s, plain=plain, ln=ln[s]))
    return judge(version, facts,
                 note=(Fact("ln_steadies"), all(_usable(v) for v in ln.values())),
                 foil=(Fact("ln_no_effect"), max(ln.values()) / min(ln.values()) > 1e3))


@check(right="note", wrong="foil")
def layernorm_bounded(version):
    """Rows of any scale come out of LayerNorm with mean 0, variance 1 and |x̂| ≤ √(d − 1)."""
    d = 8
    x = np.vstack([np.random.default_rng(39).normal(size=(5, d)) * 100, np.eye(d)[0] * 1e6])
    xh = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    top = float(np.max(np.abs(xh)))
    facts = [Fact("ln_rows", var=Nums(xh.var(axis=1), ".4f"), top=top, bound=math.sqrt(d - 1))]
    return judge(version, facts,
                 note=(Fact("ln_in_range"), bool(np.allclose(xh.mean(axis=1), 0))
                       and top <= math.sqrt(d - 1) + 1e-9),
                 foil=(Fact("ln_keeps_scale"), top > 1e3))

