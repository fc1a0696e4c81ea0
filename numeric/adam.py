"""Adam / AdamW with bias correction, ε outside the root, and global gradient-norm clipping.

State is public (``m``, ``v`` per parameter name, step count ``t``) so the cross-checks can compare
it with the closed forms from ``derivations``:
    m_t = (1−β₁) Σ_{i≤t} β₁^{t−i} g_i,   v_t = (1−β₂) Σ_{i≤t} β₂^{t−i} g_i²,
    m̂_t = m_t / (1−β₁ᵗ),   v̂_t = v_t / (1−β₂ᵗ),   θ_t = θ_{t−1}(1 − ηλ) − η m̂_t / (√v̂_t + ε).
The decay factor (1 − ηλ) is applied before the Adam step, as torch.optim.AdamW does.

Parameter groups (as nanoGPT's ``configure_optimizers``): with ``decay="matrices"`` (the default)
only parameters of two or more dimensions decay — the weight matrices and the embedding — while
biases and LayerNorm gains/shifts (1-D) are left alone, since shrinking them towards 0 is no
regularisation of the function's complexity (a LayerNorm gain of 0 switches its channel off);
``decay="all"`` decays every parameter.
"""

from __future__ import annotations

import numpy as np

# torch.nn.utils.clip_grad_norm_ divides by (norm + 1e-6); the same guard keeps the two in step.
CLIP_GUARD = 1e-6
DECAY_RULES = ("matrices", "all")
# Closed form and recursion differ only by float64 rounding accumulated over tens of steps.
ADAM_RTOL = 1e-12


def bias_correction(moment: np.ndarray, beta: float, t: int) -> np.ndarray:
    """adam_first_moment_bias / adam_second_moment_bias: the EMA started at 0 is scaled by
    1/(1 − βᵗ) so that a constant gradient g gives m̂_t = g for every t."""
    return moment / (1.0 - beta**t)


def adam_direction(m_hat: np.ndarray, v_hat: np.ndarray, eps: float) -> np.ndarray:
    """adam_epsilon_placement: m̂ / (√v̂ + ε), with ε outside the square root."""
    return m_hat / (np.sqrt(v_hat) + eps)


def decays(p: np.ndarray, rule: str) -> bool:
    """Whether weight decay applies to ``p`` under ``rule`` (see the module docstring)."""
    return rule == "all" or p.ndim >= 2


def global_norm(grads: dict[str, np.ndarray]) -> float:
    """√(Σ over all tensors of Σ g²)."""
    return float(np.sqrt(sum(float(np.vdot(g, g)) for g in grads.values())))


class Adam:
    """Adam (weight_decay=0) or AdamW (weight_decay>0); ``clip_norm`` clips the global norm.

    ``decay``: "matrices" decays only parameters with ≥ 2 dimensions (weights, embedding), "all"
    decays every parameter (biases and LayerNorm gains included).
    """

    def __init__(self, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, clip_norm: float | None = None,
                 decay: str = "matrices"):
        b1, b2 = betas
        if not (lr > 0 and 0 <= b1 < 1 and 0 <= b2 < 1 and eps >= 0 and weight_decay >= 0):
            raise ValueError(
                "Adam: expected lr>0, 0≤β<1, ε≥0, weight_decay≥0, got "
                f"lr={lr}, betas={betas}, eps={eps}, weight_decay={weight_decay}"
            )
        if clip_norm is not None and not clip_norm > 0:
            raise ValueError(f"Adam: clip_norm expected > 0 or None, got {clip_norm}")
        if decay not in DECAY_RULES:
            raise ValueError(f"Adam: decay expected one of {DECAY_RULES}, got {decay!r}")
        self.decay = decay
        self.lr, self.beta1, self.beta2, self.eps = lr, b1, b2, eps
        self.weight_decay, self.clip_norm = weight_decay, clip_norm
        self.t = 0
        self.m: dict[str, np.ndarray] = {}
        self.v: dict[str, np.ndarray] = {}
        self.last_grad_norm: float | None = None
        self.last_clip_coef = 1.0

    def corrected(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(m̂_t, v̂_t) for one parameter at the current step."""
        return (bias_correction(self.m[name], self.beta1, self.t),
                bias_correction(self.v[name], self.beta2, self.t))

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        """Update every array in ``params`` in place from ``grads`` (same keys, shapes, dtypes)."""
        if set(grads) != set(params):
            raise ValueError(
                f"Adam.step: grads keys expected {sorted(params)[:4]}..., "
                f"got {sorted(grads)[:4]}..."
            )
        for name, p in params.items():
            g = grads[name]
            if not isinstance(g, np.ndarray) or g.shape != p.shape or g.dtype != p.dtype:
                got = (g.shape, g.dtype) if isinstance(g, np.ndarray) else type(g).__name__
                raise ValueError(
                    f"Adam.step: grad {name!r} expected {(p.shape, p.dtype)}, got {got}"
                )
        self.last_grad_norm = global_norm(grads)
        coef = 1.0
        if self.clip_norm is not None:
            coef = min(1.0, self.clip_norm / (self.last_grad_norm + CLIP_GUARD))
        self.last_clip_coef = coef
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        for name, p in params.items():
            g = grads[name] * coef if coef != 1.0 else grads[name]
            if name not in self.m:
                self.m[name], self.v[name] = np.zeros_like(p), np.zeros_like(p)
            m, v = self.m[name], self.v[name]
            m *= b1
            m += (1.0 - b1) * g
            v *= b2
            v += (1.0 - b2) * (g * g)
            if self.weight_decay and decays(p, self.decay):
                p *= 1.0 - self.lr * self.weight_decay
            m_hat, v_hat = self.corrected(name)
            p -= self.lr * adam_direction(m_hat, v_hat, self.eps)


def closed_form_moments(grads: list[np.ndarray], beta: float, power: int = 1) -> np.ndarray:
    """(1−β) Σ_i β^{t−i} g_i^power for the recorded gradients g_1..g_t (no recursion)."""
    t = len(grads)
    return (1.0 - beta) * sum(beta ** (t - i) * g**power for i, g in enumerate(grads, start=1))


def check_against_closed_form(lr: float, betas: tuple[float, float], eps: float,
                              theta0: np.ndarray, grads: list[np.ndarray],
                              weight_decay: float = 0.0) -> dict:
    """Run Adam on recorded gradients and compare m, v and θ with the closed forms step by step.

    Returns {"max_rel_m", "max_rel_v", "max_rel_theta", "pass"} (relative to each array's scale).
    """
    b1, b2 = betas
    opt = Adam(lr, betas, eps, weight_decay, decay="all")  # the closed form decays any θ
    params = {"theta": theta0.copy()}
    theta = theta0.copy()
    errs = {"m": 0.0, "v": 0.0, "theta": 0.0}
    for t in range(1, len(grads) + 1):
        opt.step(params, {"theta": grads[t - 1]})
        m = closed_form_moments(grads[:t], b1)
        v = closed_form_moments(grads[:t], b2, power=2)
        m_hat, v_hat = m / (1.0 - b1**t), v / (1.0 - b2**t)
        theta = theta * (1.0 - lr * weight_decay) - lr * m_hat / (np.sqrt(v_hat) + eps)
        for key, got, want in (("m", opt.m["theta"], m), ("v", opt.v["theta"], v),
                               ("theta", params["theta"], theta)):
            scale = max(float(np.max(np.abs(want))), np.finfo(float).tiny)
            errs[key] = max(errs[key], float(np.max(np.abs(got - want))) / scale)
    result = {f"max_rel_{k}": e for k, e in errs.items()}
    result["pass"] = all(e <= ADAM_RTOL for e in errs.values())
    return result

