"""The same model in PyTorch (autograd), built from the NumPy parameters.

Used only by the parity test and the benchmark; importing this module requires the optional extra
``torch``. Weights keep the NumPy layout (C_in, C_out), so both models compute x @ w + b.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from numeric.config import GPTConfig
from numeric.model import LAYER_PARAMS, param_shapes


def _rope_tables(t: int, d: int, dtype, base: float = 10000.0):
    inv = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (D/2,)
    ang = torch.arange(t, dtype=torch.float64)[:, None] * inv  # (T, D/2)
    return torch.cos(ang).to(dtype), torch.sin(ang).to(dtype)


def _sinusoidal(t: int, c: int, dtype):
    pos = torch.arange(t, dtype=torch.float64)[:, None]  # (T, 1)
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, c, 2, dtype=torch.float64) / c)
    pe = torch.empty(t, c, dtype=torch.float64)  # (T, C)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)
    return pe.to(dtype)


def _rope(x, cos, sin):
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]  # (B, H, T, D/2)
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)  # (B, H, T, D)


class TorchGPT:
    """Functional twin of numeric.model with leaf tensors ``params[name]`` (requires_grad)."""

    def __init__(self, config: GPTConfig, np_params: dict[str, np.ndarray]):
        self.config = config
        self.dtype = getattr(torch, config.dtype)
        self.params = {k: torch.tensor(np_params[k], dtype=self.dtype, requires_grad=True)
                       for k in param_shapes(config)}

    def forward(self, idx: np.ndarray, targets: np.ndarray | None = None):
        cfg, p = self.config, self.params
        idx_t = torch.as_tensor(idx, dtype=torch.long)
        b, t = idx_t.shape
        x = p["wte"][idx_t]  # (B, T, C)
        rope = None
        if cfg.pos == "sinusoidal":
            x = x + _sinusoidal(t, cfg.n_embd, self.dtype)
        else:
            rope = _rope_tables(t, cfg.head_dim, self.dtype)
        mask = torch.ones(t, t, dtype=torch.bool).tril()  # (T, T)
        for i in range(cfg.n_layer):
            x = self.block(x, {k: p[f"h.{i}.{k}"] for k in LAYER_PARAMS}, mask, rope)
        x = F.layer_norm(x, (cfg.n_embd,), p["ln_f.g"], p["ln_f.b"], cfg.ln_eps)  # (B, T, C)
        logits = x @ p["lm_head.w"]  # (B, T, V)
        loss = None
        if targets is not None:
            ignore = -100 if cfg.ignore_index is None else cfg.ignore_index
            loss = F.cross_entropy(logits.reshape(b * t, -1),
                                   torch.as_tensor(targets, dtype=torch.long).reshape(-1),
                                   ignore_index=ignore)
        return loss, logits

    def block(self, x, p, mask, rope):
        cfg = self.config
        b, t, c = x.shape
        nh, d = cfg.n_head, cfg.head_dim
        h = F.layer_norm(x, (c,), p["ln_1.g"], p["ln_1.b"], cfg.ln_eps)  # (B, T, C)
        q, k, v = ((h @ p[f"attn.w_{n}"] + p[f"attn.b_{n}"]).view(b, t, nh, d).transpose(1, 2)
                   for n in "qkv")  # (B, H, T, D) each
        if rope is not None:
            q, k = _rope(q, *rope), _rope(k, *rope)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)  # (B, H, T, T)
        probs = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)  # (B, H, T, T)
        att = (probs @ v).transpose(1, 2).reshape(b, t, c)  # (B, T, C)
        a = att @ p["attn.w_o"] + p["attn.b_o"]  # (B, T, C)
        x1 = x + a if cfg.residual else a  # (B, T, C)
        h2 = F.layer_norm(x1, (c,), p["ln_2.g"], p["ln_2.b"], cfg.ln_eps)  # (B, T, C)
        hid = h2 @ p["mlp.w_fc"] + p["mlp.b_fc"]  # (B, T, 4C)
        act = F.gelu(hid, approximate="tanh") if cfg.activation == "gelu" else hid
        m = act @ p["mlp.w_proj"] + p["mlp.b_proj"]  # (B, T, C)
        return x1 + m if cfg.residual else m

    def zero_grad(self) -> None:
        for t in self.params.values():
            t.grad = None

    def grads(self) -> dict[str, np.ndarray]:
        return {k: t.grad.detach().numpy().copy() for k, t in self.params.items()}

    def optimizer(self, lr: float, betas=(0.9, 0.999), eps: float = 1e-8,
                  weight_decay: float = 0.0, decay: str = "matrices"):
        """AdamW: decoupled decay, matching numeric.adam.Adam (which is Adam when λ = 0), with
        the same parameter groups (``decay``: "matrices" or "all", see numeric.adam)."""
        on = [t for t in self.params.values() if decay == "all" or t.dim() >= 2]
        off = [t for t in self.params.values() if not (decay == "all" or t.dim() >= 2)]
        groups = [{"params": on, "weight_decay": weight_decay},
                  {"params": off, "weight_decay": 0.0}]
        return torch.optim.AdamW([g for g in groups if g["params"]], lr=lr, betas=betas,
                                 eps=eps, foreach=False)

    def clip(self, max_norm: float) -> float:
        return float(torch.nn.utils.clip_grad_norm_(list(self.params.values()), max_norm))
