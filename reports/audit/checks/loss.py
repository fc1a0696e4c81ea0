"""Evidence on the cross-entropy loss: its one-hot form, log-sum-exp, the gradient p − y and
what its signs do, the link to likelihood, and its numerical stability."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reports.audit.evidence import Fact, Math, Said, check, num_grad, softmax, vec, verdict
from reports.audit.formula import equation

_Z = np.array([0.3, -1.2, 2.0, 0.5])
_K = 2


def _env() -> dict:
    """The true values the notes' equations name, at z = _Z with target class _K."""
    p = softmax(_Z)
    return {"z_j": _Z, "z_k": float(_Z[_K]), "e": math.e, "p_k": float(p[_K]), "p_i": p,
            "y_i": np.eye(len(_Z))[_K], "L": float(-np.log(p[_K]))}


def _as_written(eq: str, tol: float) -> tuple[Fact, bool]:
    """The note's equation ``name = formula`` evaluated as written, against the true ``name``."""
    lhs, rhs = equation(eq)
    left, right = float(lhs(_env())), float(rhs(_env()))
    return Fact("equation_vs_truth", eq=Math(eq), lhs=left, rhs=right), abs(left - right) < tol


@check(right="note", wrong="foil", other=r"L=-\sum_i\log p_i", said=(
    Said("L=−∑yilogpi", r"L=-\sum y_i\log p_i"),
    Said("L=−logpk", r"L=-\log p_k"),
))
def ce_onehot(eq):
    """With a one-hot y, −Σ y_i log p_i keeps only −log p_k; summing −log p_i over every class
    is another number."""
    full = float(-np.sum(np.eye(4)[_K] * np.log(softmax(_Z))))
    claim, ok = _as_written(eq, 1e-15)
    return verdict([Fact("ce_terms", full=full)], claim, ok)


@check(right="note", wrong="foil", other=r"L=-z_k", said=(
    Said("pk=∑jezjezk", r"p_k=\frac{e^{z_k}}{\sum_j e^{z_j}}"),
    Said("L=−zk+log(j∑ezj)", r"L=-z_k+\log\left(\sum_j e^{z_j}\right)"),
))
def ce_logsumexp(eq):
    """p_k = e^{z_k}/Σ_j e^{z_j}, and so −log p_k = −z_k + log Σ_j e^{z_j}; dropping the
    log-sum-exp term leaves −z_k, another number."""
    claim, ok = _as_written(eq, 1e-12)
    return verdict([Fact("ce_value", lhs=_env()["L"])], claim, ok)


_GRAD_READS = ("the gradient of the loss by the logits is $p - y$",
               "损失对 logit 的梯度为 $p - y$")


@check(right="note", wrong="foil", other="y-p", said=(
    Said("∂z∂L=p−y", "p-y"),
    Said("分 i=k 和 i", "p-y", ("the two cases $i = k$ and $i \\ne k$ together give $p - y$",
                              "$i = k$ 与 $i \\ne k$ 两种情形合起来就是 $p - y$")),
    Said("预测概率减去真实标签", "p-y", _GRAD_READS),
    Said("终极梯度公式", "p-y", _GRAD_READS),
))
def ce_grad(form):
    """The central-difference gradient of −log softmax(z)_k is p − y, not y − p."""
    fd = num_grad(lambda z: float(-np.log(softmax(z)[_K])), _Z.copy())
    p, y = softmax(_Z), np.eye(4)[_K]
    got = {"p-y": p - y, "y-p": y - p}[form]
    gap = float(np.max(np.abs(fd - got)))
    claim = Fact("grad_p_minus_y" if form == "p-y" else "grad_y_minus_p", gap=gap)
    return verdict([Fact("ce_grad_fd", fd=vec(fd, ".4f"))], claim, gap < 1e-8)


@check(right="note", wrong="foil", other=r"P=1-L",
       said=Said("最小化交叉熵等价于最大化正确 token 的似然概率", r"P=e^{-L}",
                 ("the likelihood $P$ of the correct tokens is $e^{-L}$ for the total "
                  "cross-entropy $L$, so one falls as the other rises",
                  "正确词元的似然 $P$ 等于 $e^{-L}$（$L$ 为总交叉熵），一个减小另一个就增大")))
def ce_mle(eq):
    """The total cross-entropy of a sequence is minus its log-likelihood: e^{−CE} is the
    likelihood, so minimising one maximises the other."""
    rng = np.random.default_rng(36)
    logits, targets = rng.normal(size=(6, 5)), rng.integers(0, 5, size=6)
    probs = softmax(logits)[np.arange(6), targets]
    ce, lik = float(-np.sum(np.log(probs))), float(np.prod(probs))
    lhs, rhs = equation(eq)
    env = {"P": lik, "L": ce, "e": math.e}
    facts = [Fact("ce_likelihood", ce=ce, back=math.exp(-ce), lik=lik)]
    claim = Fact("ce_is_minus_log_lik" if "e" in eq else "ce_is_one_minus_lik")
    return verdict(facts, claim, abs(lhs(env) - rhs(env)) < 1e-9 * max(1.0, lik))


_P, _Y = np.array([0.2, 0.5, 0.3]), np.array([1.0, 0.0, 0.0])


@check(right="note", wrong="foil", other="bird_down_more", said=(
    Said("意味着要提高 猫 的分数", "cat_up", ("the cat's score goes up", "猫的分数升高")),
    Said("意味着要降低 狗 的分数", "dog_down", ("the dog's score goes down", "狗的分数降低")),
    Said("但力度比“狗”小一些", "bird_less",
         ("the bird's score goes down less than the dog's", "鸟的分数降得比狗少")),
))
def ce_descent_direction(move):
    """One descent step on the note's game raises the cat's score, lowers the dog's more than the
    bird's, and lowers the loss."""
    z = np.log(_P)
    dz = -0.5 * (softmax(z) - _Y)
    before, after = -math.log(_P[0]), -math.log(softmax(z + dz)[0])
    said = {"cat_up": dz[0] > 0, "dog_down": dz[1] < 0, "bird_less": dz[1] < dz[2] < 0,
            "bird_down_more": dz[2] < dz[1]}[move]
    facts = [Fact("descent_step", dz=vec(dz, ".3g"), before=before, after=after)]
    claim = Fact("bird_down_more" if move == "bird_down_more" else "cat_up_dog_down")
    return verdict(facts, claim, said and after < before)


_SIGN_READS = ("the sign of $p - y$ is set by the target: negative there (raise it), positive "
               "elsewhere (lower them)",
               "$p - y$ 的符号由目标类决定：目标类上为负（调高），其余类上为正（调低）")


@check(right="note", wrong="foil", other="uniform", said=(
    Said("梯度为正 →→ 往下调", "target", _SIGN_READS),
    Said("梯度为负 →→ 往上调", "target", _SIGN_READS),
    Said("高了减，低了加", "target", _SIGN_READS),
))
def ce_sign_rule(rule):
    """p − y is negative at the target and positive at every other class, however small its p;
    the sign does not follow whether p is above 1/n."""
    rng = np.random.default_rng(37)
    hits, n = {"target": 0, "uniform": 0}, 100
    for _ in range(n):
        p, k = softmax(rng.normal(size=5) * 3), int(rng.integers(5))
        g = p - np.eye(5)[k]
        hits["target"] += bool(g[k] < 0 and np.all(np.delete(g, k) > 0))
        hits["uniform"] += bool(np.all(np.sign(g) == np.sign(p - 1 / 5)))
    claim = Fact("sign_by_target" if rule == "target" else "sign_by_uniform", got=hits[rule])
    return verdict([Fact("sign_cases", n=n)], claim, hits[rule] == n)


@check(right="note", wrong="foil", other="0.2−1=0.8", said=(
    Said("y=[1,0,0]", (1, 0, 0)),
    Said("p=[0.2,0.5,0.3]", (0.2, 0.5, 0.3)),
    Said("0.2−1=−0.8", "0.2−1=−0.8"),
    Said("0.5−0=+0.5", "0.5−0=+0.5"),
    Said("0.3−0=+0.3", "0.3−0=+0.3"),
))
def ce_example(said):
    """The note's game: y = (1, 0, 0) is a one-hot label, p = (0.2, 0.5, 0.3) a distribution,
    and each written-out entry of p − y, evaluated as written, is an entry of p − y."""
    p = [Fraction(2, 10), Fraction(5, 10), Fraction(3, 10)]
    g = [pi - yi for pi, yi in zip(p, (1, 0, 0), strict=True)]
    facts = [Fact("ce_game", total=sum(p), g=vec([float(x) for x in g], "g"), gsum=sum(g))]
    if isinstance(said, tuple):
        xs = [Fraction(str(x)) for x in said]
        ok = sum(xs) == 1 and min(xs) >= 0 and (xs == [Fraction(x) for x in (1, 0, 0)]
                                                or xs == p)
        return verdict(facts, Fact("game_vector", v=vec(said, "g")), ok)
    lhs, rhs = equation(said.replace("+", ""))
    value = Fraction(str(round(float(rhs({})), 12)))
    ok = abs(float(lhs({})) - float(rhs({}))) < 1e-12 and value in g
    return verdict(facts, Fact("dot_written", sum=Math(said.replace("−", "-"))), ok)


@check(right="note", wrong="foil", other="separate",
       said=Said("梯度会变得极简且数值稳定", "fused",
                 ("with softmax and cross-entropy computed as one piece, "
                  "$-z_k + \\log\\sum_j e^{z_j}$, the value is finite and the gradient is $p - y$",
                  "把 softmax 与交叉熵合成一步计算，即 $-z_k + \\log\\sum_j e^{z_j}$，数值有限，"
                  "梯度为 $p - y$")))
def ce_stable(form):
    """z = (1000, 0), target class 1: softmax-then-log gives ∞, the fused form 1000 and a finite
    gradient."""
    z = np.array([1000.0, 0.0])
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        naive = float(-np.log(np.exp(z[1]) / np.sum(np.exp(z))))
    fused = float(-z[1] + z.max() + np.log(np.sum(np.exp(z - z.max()))))
    grad = softmax(z) - np.array([0.0, 1.0])
    facts = [Fact("ce_extreme", naive=naive, fused=fused, grad=vec(grad, "g"))]
    value = {"fused": fused, "separate": naive}[form]
    return verdict(facts, Fact("fused_stable" if form == "fused" else "separate_stable"),
                   math.isfinite(value) and abs(value - 1000) < 1e-9
                   and bool(np.all(np.isfinite(grad))))
