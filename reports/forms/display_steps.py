"""Step display forms printed from SymPy twins: each builds the step unevaluated, the way the
author writes it, so ``sp.latex`` prints that form, and checks it against the engine's step
(reports.forms.display_checks.same_as_engine)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from reports.forms.display_checks import claim_names, engine_step, same_as_engine


@dataclass(frozen=True)
class StepTwin:
    """A step's display form, built unevaluated; its TeX is generated from it."""

    claim: str
    index: int
    build: Callable[[dict], tuple[sp.Basic, dict]]
    order: str | None = None  # "none": print the terms in the order the author wrote them

    @property
    def field(self) -> str:
        return f"steps.{self.index}"

    def form(self) -> tuple[sp.Basic, dict]:
        return self.build(claim_names(self.claim))

    @property
    def tex(self) -> str:
        return sp.latex(self.form()[0], order=self.order)

    def check(self) -> str | None:
        twin, abbreviations = self.form()
        return same_as_engine(twin, abbreviations, engine_step(self.claim, self.index),
                              f"{self.claim} step {self.index}")


def _nomul(*args):
    return sp.Mul(*args, evaluate=False)


def _over(num, den):
    return _nomul(num, sp.Pow(den, -1, evaluate=False))


def _var_step(e):
    var = next(a for a in sp.preorder_traversal(engine_step("scaled_dot_product_variance", 1))
               if type(a).__name__ == "Var")
    return _nomul(sp.Pow(1 / sp.sqrt(e["d_k"]), 2, evaluate=False), var), {}


def _second_moment(e):
    dk, mq, mk, sq, sk = (e[n] for n in ("d_k", "mu_q", "mu_k", "sigma_q", "sigma_k"))
    var = dk * (sq**2 * sk**2 + mq**2 * sk**2 + mk**2 * sq**2)
    return sp.Add(_over(var, dk), _over(sp.Pow(dk * mq * mk, 2, evaluate=False), dk),
                  evaluate=False), {}


def _softmax_parts(e, index):
    z, k, n = e["z"], e["k"], e["n"]
    norm = sp.Sum(sp.exp(z[k]), (k, 1, n))
    return sp.exp(z[index]), norm


def _rows_sum_zero(e):
    top, norm = _softmax_parts(e, e["i"])
    s_i = _over(top, norm)
    return sp.Add(s_i, -_nomul(s_i, _over(norm, norm)), evaluate=False), {}


def _psd(e):
    z, x, i, l_, n = e["z"], e["x"], e["i"], e["l"], e["n"]
    _, norm = _softmax_parts(e, i)
    x_bar = sp.Symbol(r"\bar{x}")
    mean = sp.Sum(sp.exp(z[l_]) * x[l_] / norm, (l_, 1, n))
    spread = sp.Sum(_over(_nomul(sp.exp(z[i]), sp.Pow(sp.Add(x[i], -x_bar, evaluate=False), 2,
                                                      evaluate=False)), norm), (i, 1, n))
    rest = _nomul(x_bar, sp.Add(x_bar, -_nomul(x_bar, _over(norm, norm)), evaluate=False))
    return sp.Add(spread, rest, evaluate=False), {x_bar: mean}


def _shift(e):
    top, norm = _softmax_parts(e, e["i"])
    ec = sp.exp(e["c"])
    return _over(_nomul(ec, top), _nomul(ec, norm)), {}


def _log_sum_exp(e):
    z, k, n, c = e["z"], e["k"], e["n"], e["c"]
    return sp.Add(sp.log(sp.exp(c), evaluate=False),
                  sp.log(sp.Sum(sp.exp(z[k] - c), (k, 1, n))), evaluate=False), {}


def _log_softmax(e):
    z, k, l_, n = e["z"], e["k"], e["l"], e["n"]
    return _nomul(-1, sp.Add(sp.log(sp.exp(z[k]), evaluate=False),
                             -sp.log(sp.Sum(sp.exp(z[l_]), (l_, 1, n))), evaluate=False)), {}


def _p_minus_y(e):
    from derivations.library import cross_entropy as ce

    p, y = sp.IndexedBase("p"), sp.IndexedBase("y")
    j, k = e["j"], e["k"]
    return (sp.Add(p[j], -y[j], evaluate=False),
            {p[j]: ce.probability(j), y[j]: sp.KroneckerDelta(j, k)})


def _transposed(*pairs):
    return lambda e: (sp.Transpose(sp.MatAdd(*(sp.MatMul(e[w], sp.Transpose(e[g]))
                                                for w, g in pairs))), {})


def _mlp(e):
    w1, w2, x, b1, b2 = (e[n] for n in ("W_1", "W_2", "x", "b_1", "b_2"))
    return sp.MatAdd(sp.MatMul(sp.MatMul(w2, w1), x), sp.MatAdd(w2 * b1, b2),
                     evaluate=False), {}


def _ema_step(beta_name, power):
    def build(e):
        beta, g, i, t = e[beta_name], e["g"], e["i"], e["t"]
        prev = sp.Symbol(("m" if power == 1 else "v") + "_{t-1}")
        closed = (1 - beta) * sp.Sum(beta ** (t - 1 - i) * g[i] ** power, (i, 1, t - 1))
        return sp.Matrix([0, beta * prev + (1 - beta) * g[t] ** power]), {prev: closed}

    return build


STEP_TWINS: tuple[StepTwin, ...] = (
    StepTwin("scaled_dot_product_variance", 1, _var_step),
    StepTwin("scaled_dot_product_variance", 3, lambda e: (_over(e["d_k"], e["d_k"]), {})),
    StepTwin("nonzero_mean_growth", 2,
             lambda e: (_over(e["d_k"] * e["mu_k"] * e["mu_q"], sp.sqrt(e["d_k"])), {})),
    StepTwin("scaled_dot_product_second_moment", 3, _second_moment),
    StepTwin("softmax_jacobian_rows_sum_zero", 4, _rows_sum_zero, "none"),
    StepTwin("softmax_jacobian_psd", 4, _psd, "none"),
    StepTwin("softmax_shift_invariance", 2, _shift),
    StepTwin("log_sum_exp", 3, _log_sum_exp),
    StepTwin("cross_entropy_log_softmax", 1, _log_softmax),
    StepTwin("cross_entropy_gradient", 3, _p_minus_y, "none"),
    StepTwin("linear_grad_input", 3, _transposed(("W", "G"))),
    StepTwin("qkv_accumulation", 3, _transposed(("W_Q", "G_Q"), ("W_K", "G_K"),
                                                ("W_V", "G_V"))),
    StepTwin("mlp_collapse", 2, _mlp),
    StepTwin("adam_first_moment_closed_form", 3, _ema_step("beta_1", 1)),
    StepTwin("adam_second_moment_closed_form", 3, _ema_step("beta_2", 2)),
)


def _attention_weight(e: dict) -> sp.Basic:
    q, k, dk, m = e["Q"], e["K"], e["d_k"], e["m"]
    i, j, t, l_ = e["i"], e["j"], e["t"], e["l"]

    def dot(a, b):
        return sp.Sum(k[b, t] * q[a, t], (t, 0, dk - 1))

    return sp.exp(dot(i, j) / sp.sqrt(dk)) / sp.Sum(sp.exp(dot(i, l_) / sp.sqrt(dk)),
                                                     (l_, 0, m - 1))


def _attention_step(e: dict) -> tuple[sp.Basic, dict]:
    s_ = sp.IndexedBase("s")
    i, j, c, m, v = e["i"], e["j"], e["c"], e["m"], e["V"]
    return sp.Sum(s_[i, j] * v[j, c], (j, 0, m - 1)), {s_[i, j]: _attention_weight(e)}


STEP_TWINS = (*STEP_TWINS, StepTwin("attention_shapes", 1, _attention_step))


def attention_legend() -> str | None:
    """The legend's s_ij (with q_i·k_j = Σ_t Q_it K_jt) is the engine's attention weight."""
    twin, abbreviations = _attention_step(claim_names("attention_shapes"))
    return same_as_engine(twin, abbreviations, engine_step("attention_shapes", 1),
                          "attention_shapes legend")

