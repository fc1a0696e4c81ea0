"""Typed model configuration (the NumPy twin of nanoGPT's GPTConfig)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

POSITIONS = ("sinusoidal", "rope")
ACTIVATIONS = ("gelu", "identity")
DTYPES = ("float64", "float32")


@dataclass(frozen=True)
class GPTConfig:
    """Decoder-only Transformer hyper-parameters.

    ``activation="identity"`` gives an MLP that collapses to one affine map and
    ``residual=False`` removes both skip connections; the cross-checks need both variants.
    ``ignore_index=None`` means every target counts in the mean loss.
    """

    vocab_size: int = 16
    block_size: int = 16
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 16
    pos: str = "sinusoidal"
    dtype: str = "float64"
    seed: int = 0
    ignore_index: int | None = -100
    activation: str = "gelu"
    residual: bool = True
    init_std: float = 0.02
    ln_eps: float = 1e-5

    def __post_init__(self) -> None:
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "n_embd"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"GPTConfig.{name}: expected a positive int, got {value!r}")
        if self.pos not in POSITIONS:
            raise ValueError(f"GPTConfig.pos: expected one of {POSITIONS}, got {self.pos!r}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"GPTConfig.activation: expected one of {ACTIVATIONS}, got {self.activation!r}"
            )
        if self.dtype not in DTYPES:
            raise ValueError(f"GPTConfig.dtype: expected one of {DTYPES}, got {self.dtype!r}")
        if self.n_embd % self.n_head:
            raise ValueError(
                f"GPTConfig.n_embd: expected a multiple of n_head={self.n_head}, got {self.n_embd}"
            )
        # Sinusoidal encodings pair sin/cos channels; RoPE rotates pairs inside each head.
        if self.pos == "sinusoidal" and self.n_embd % 2:
            raise ValueError(f"GPTConfig.n_embd: expected even for sinusoidal, got {self.n_embd}")
        if self.pos == "rope" and self.head_dim % 2:
            raise ValueError(f"GPTConfig head_dim: expected even for rope, got {self.head_dim}")
        if not self.init_std > 0 or not self.ln_eps > 0:
            raise ValueError(
                f"GPTConfig.init_std/ln_eps: expected > 0, got {self.init_std}/{self.ln_eps}"
            )

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head

    @property
    def np_dtype(self) -> np.dtype:
        return np.dtype(self.dtype)


# Named configurations, one table (like nanoGPT's presets); ``preset(name, **changes)`` builds one.
# check: the gradient check and the cross-checks — tiny, float64, init_std large enough that no
#   path is negligible; test: the unit tests' tiny model; train: sequence reversal (numeric.train;
#   sinusoidal, since reversal is a lookup by absolute position); depth: the gradient-norm-
#   through-depth plot; bench-*: numeric.bench.
PRESETS: dict[str, dict] = {
    "check": dict(vocab_size=11, block_size=6, n_layer=2, n_head=2, n_embd=8, seed=1234,
                  init_std=0.3, ignore_index=-100),
    "test": dict(vocab_size=7, block_size=5, n_layer=2, n_head=2, n_embd=8, seed=3, init_std=0.3),
    "train": dict(vocab_size=11, block_size=16, n_layer=1, n_head=4, n_embd=32,
                  pos="sinusoidal", ignore_index=-100),
    "depth": dict(vocab_size=16, block_size=8, n_layer=10, n_head=2, n_embd=16, seed=7,
                  ignore_index=None),
    "bench-small": dict(vocab_size=256, block_size=32, n_layer=2, n_head=4, n_embd=64),
    "bench-medium": dict(vocab_size=256, block_size=128, n_layer=4, n_head=4, n_embd=256),
}


def preset(name: str, **changes) -> GPTConfig:
    """The preset ``name`` with ``changes`` applied (any GPTConfig field)."""
    if name not in PRESETS:
        raise ValueError(f"preset: name expected one of {sorted(PRESETS)}, got {name!r}")
    unknown = set(changes) - set(GPTConfig.__dataclass_fields__)
    if unknown:
        raise ValueError(f"preset: changes expected GPTConfig fields, got {sorted(unknown)}")
    return GPTConfig(**{**PRESETS[name], **changes})


# the benchmark's batch sizes, beside the presets bench-small and bench-medium
BENCH_CONFIGS = {"small": {"batch": 16}, "medium": {"batch": 8}}
