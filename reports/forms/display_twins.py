r"""Every display form of the report with its SymPy twin: ``claims.toml`` writes a form by hand
only where SymPy cannot print it the way people write it (\operatorname{diag}(s)-ss^\top,
\mathbb{E}[\hat{m}_t], \mathbb{I}); such a :class:`Pinned` form must be exactly the TeX its
twin vouches for. Step forms (reports.forms.display_steps) and legends (:class:`Generated`) are
printed from their twins and not written by hand at all. Every twin is checked against the
engine two ways (reports.forms.display_checks); :func:`dropped` is the report data of the build's
"forms" stage (the report leaves out a form whose check fails and says so), and
:func:`unchecked` names any hand-written form without a twin, which the test suite refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from reports.forms.display_checks import (
    adam_bias,
    batch_entry,
    batch_matrix,
    cross_entropy_entry,
    cross_entropy_vector,
    multihead_statement,
    residual_step,
    softmax_definition,
    softmax_entry,
    softmax_matrix,
)
from reports.forms.display_steps import STEP_TWINS, StepTwin, attention_legend


@dataclass(frozen=True)
class Pinned:
    """A hand-written display form: claims.toml must show exactly ``tex``; ``checks`` cover
    every part of it (the ",\\qquad"-separated formulas of a result, say)."""

    claim: str
    field: str
    tex: str
    checks: tuple[Callable[[], str | None], ...]


@dataclass(frozen=True)
class Generated:
    """A legend whose TeX is printed from the engine's own definition by ``make``."""

    claim: str
    field: str
    make: Callable[[], str]
    checks: tuple[Callable[[], str | None], ...]

    @property
    def tex(self) -> str:
        return self.make()


def _softmax_where(scale_name: str | None) -> Callable[[], str]:
    def make() -> str:
        from derivations.library import softmax as sm

        scale = sp.S.One if scale_name is None else sm.T
        return f"s_i = {sp.latex(sm.softmax(sm.i, scale=scale))}"

    return make


def _ce_where() -> str:
    from derivations.library import cross_entropy as ce

    return (f"p_j = {sp.latex(ce.probability(ce.j))},\\quad "
            f"y_j = {sp.latex(sp.KroneckerDelta(ce.j, ce.k))}")


def _batch_where() -> str:
    from derivations.library import cross_entropy as ce

    return f"P_{{a,j}} = {sp.latex(ce.batch_probability(ce.a, ce.j))}"


def _adam_where(moment: int) -> Callable[[], str]:
    def make() -> str:
        from derivations.library import adam

        beta, raw, name = ((adam.beta_1, adam.M_CLOSED, "m") if moment == 1
                           else (adam.beta_2, adam.V_CLOSED, "v"))
        plain = sp.Symbol(f"{name}_t")
        return (f"{name}_t = {sp.latex(raw)},\\quad \\hat{{{name}}}_t = "
                f"{sp.latex(plain / (1 - beta ** adam.t))}")

    return make


TWINS: tuple[Pinned | Generated, ...] = (
    Pinned("softmax_jacobian", "result",
           r"\frac{\partial s_i}{\partial z_j} = s_i(\delta_{ij}-s_j),\qquad "
           r"J = \operatorname{diag}(s)-ss^{\top}", (softmax_entry(), softmax_matrix(-1))),
    Generated("softmax_jacobian", "where", _softmax_where(None), (softmax_definition(),)),
    Pinned("softmax_temperature", "result", r"\frac{\partial s_i}{\partial z_j} = "
           r"\frac{1}{T}\,s_i(\delta_{ij}-s_j)", (lambda: softmax_entry(_temperature())(),)),
    Generated("softmax_temperature", "where", _softmax_where("T"), (softmax_definition("T"),)),
    Pinned("cross_entropy_gradient", "result",
           r"\frac{\partial(-\log p_k)}{\partial z_j} = p_j - y_j,\qquad \nabla_z = p - y",
           (cross_entropy_entry, cross_entropy_vector)),
    Generated("cross_entropy_gradient", "where", _ce_where, (cross_entropy_entry,)),
    Pinned("cross_entropy_batch_mean", "result",
           r"\frac{\partial L}{\partial Z_{a,j}} = \frac{P_{a,j}-Y_{a,j}}{B},\qquad "
           r"\nabla_Z L = \frac{P-Y}{B}", (batch_entry, batch_matrix)),
    Generated("cross_entropy_batch_mean", "where", _batch_where, (batch_entry,)),
    Pinned("adam_first_moment_bias", "result",
           r"\mathbb{E}[m_t] = (1-\beta_1^{t})\,\mu,\qquad \mathbb{E}[\hat{m}_t] = \mu",
           (lambda: adam_bias(1)(),)),
    Generated("adam_first_moment_bias", "where", _adam_where(1), (lambda: adam_bias(1)(),)),
    Pinned("adam_second_moment_bias", "result",
           r"\mathbb{E}[v_t] = (1-\beta_2^{t})(\mu^2+\sigma^2),\qquad "
           r"\mathbb{E}[\hat{v}_t] = \mu^2+\sigma^2", (lambda: adam_bias(2)(),)),
    Generated("adam_second_moment_bias", "where", _adam_where(2), (lambda: adam_bias(2)(),)),
    Pinned("attention_shapes", "where",
           r"s_{ij} = \frac{e^{q_i\cdot k_j/\sqrt{d_k}}}{\sum_{l=0}^{m-1} "
           r"e^{q_i\cdot k_l/\sqrt{d_k}}},\quad q_i\cdot k_j = \sum_{t=0}^{d_k-1} Q_{it}K_{jt}",
           (attention_legend,)),
    Pinned("multihead_shapes", "statement",
           r"\left(\operatorname{Concat}(H_0,\dots,H_{h-1})\,W_O\right)_{ic} = "
           r"\sum_{e=0}^{h-1} \left(H_e W_O^{(e)}\right)_{ic}", (multihead_statement,)),
    *(Pinned("residual_jacobian", f"steps.{k}", tex, (residual_step(k),)) for k, tex in (
        (1, r"\frac{\partial x}{\partial x} + \frac{\partial \left(W_{2} \tanh\left(W_{1} x"
            r" + b_{1}\right)\right)}{\partial x}"),
        (2, r"\mathbb{I} + \frac{\partial \left(W_{2} \tanh\left(W_{1} x + b_{1}\right)"
            r"\right)}{\partial x}"),
        (3, r"\mathbb{I} + W_{2} \frac{\partial \tanh\left(W_{1} x + b_{1}\right)}"
            r"{\partial x}"),
        (4, r"\mathbb{I} + W_{2} \operatorname{diag}\left(1 - \tanh^{2}\left(W_{1} x + "
            r"b_{1}\right)\right) \frac{\partial \left(W_{1} x + b_{1}\right)}{\partial x}"),
        (5, r"\mathbb{I} + W_{2} \operatorname{diag}\left(1 - \tanh^{2}\left(W_{1} x + "
            r"b_{1}\right)\right) W_{1}"))),
)


def _temperature() -> sp.Symbol:
    from derivations.library import softmax as sm

    return sm.T


def _from_toml(display: dict, field: str) -> str | None:
    key, _, index = field.partition(".")
    return display.get("steps", {}).get(int(index)) if key == "steps" else display.get(key)


def forms(claim: str, display: dict) -> dict:
    """``display`` (claims.toml) with every generated form in place: steps printed from their
    twins and legends printed from the engine's definitions."""
    out = {**display, "steps": dict(display.get("steps", {}))}
    for twin in STEP_TWINS:
        if twin.claim == claim:
            out["steps"][twin.index] = twin.tex
    for twin in TWINS:
        if twin.claim == claim and isinstance(twin, Generated):
            out[twin.field] = twin.tex
    return out


def verify(display_of: Callable[[str], dict]) -> list[str]:
    """Every twin's problem: a hand-written form that is not what claims.toml shows, a form
    claims.toml still writes by hand although it is generated, or a failed check."""
    problems = []
    for twin in (*TWINS, *STEP_TWINS):
        written = _from_toml(display_of(twin.claim), twin.field)
        if isinstance(twin, Pinned) and written != twin.tex:
            problems.append(f"{twin.claim} {twin.field}: claims.toml shows {written!r}, "
                            f"the twin vouches for {twin.tex!r}")
            continue
        if not isinstance(twin, Pinned) and written is not None:
            problems.append(f"{twin.claim} {twin.field}: generated from its twin, but "
                            f"claims.toml also writes it by hand: {written!r}")
            continue
        checks = twin.checks if not isinstance(twin, StepTwin) else (twin.check,)
        for check in checks:
            reason = check()
            if reason:
                problems.append(f"{twin.claim} {twin.field}: {reason}")
    return problems


def dropped(display_of: Callable[[str], dict]) -> dict:
    """The "display_forms" section of report data: {"dropped": {claim id: [field, ...]},
    "problems": [...]}, each field one whose twin failed (:func:`verify`)."""
    out: dict[str, list[str]] = {}
    problems = verify(display_of)
    for problem in problems:
        cid, field = problem.split(" ", 2)[:2]
        out.setdefault(cid, []).append(field.rstrip(":"))
    return {"dropped": out, "problems": problems}


def unchecked(display_of: Callable[[str], dict], claim_ids) -> list[str]:
    """Hand-written display forms of claims.toml that no twin vouches for."""
    twinned = {(t.claim, t.field) for t in (*TWINS, *STEP_TWINS)}
    out = []
    for cid in claim_ids:
        shown = display_of(cid)
        fields = [k for k in ("statement", "result", "where") if shown.get(k)]
        fields += [f"steps.{k}" for k in sorted(shown.get("steps", {}))]
        out += [f"{cid} {f}" for f in fields if (cid, f) not in twinned]
    return out
