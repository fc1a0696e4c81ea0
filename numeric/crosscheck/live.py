"""A live forward/backward pass of the check model, with every tensor addressed by its name.

The model records its activations and their gradients under one naming scheme
(``numeric.model.activation_names`` / ``grad_name``); a cross-check reads ``live.cache[name]`` and
differentiates the loss by a named tensor with :func:`loss_grad_at`, which shifts that tensor
through the forward pass's ``perturb`` argument — nothing here counts op calls or wraps ops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from numeric import finite_diff as fd
from numeric import model, ops
from numeric.config import GPTConfig, preset
from numeric.gradcheck import make_problem

# Entries of an intermediate tensor differentiated numerically (a seeded sample beyond this).
FD_ENTRIES = 48


def check_config(**changes) -> GPTConfig:
    """The "check" preset with every target counted, so the batch mean divides by B·T."""
    return preset("check", **{"ignore_index": None, **changes})


@dataclass
class Live:
    cfg: GPTConfig
    params: dict
    idx: np.ndarray
    targets: np.ndarray
    cache: dict
    grads: dict


def run(cfg: GPTConfig | None = None, batch: int = 2) -> Live:
    cfg = cfg or check_config()
    params, idx, targets = make_problem(cfg, batch=batch)
    _, _, cache = model.forward(params, cfg, idx, targets)
    grads = model.backward(cache, params)
    return Live(cfg, params, idx, targets, cache, grads)


def loss_grad_at(live: Live, name: str, entries: int = FD_ENTRIES,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """∂loss/∂(activation ``name``) at a seeded sample of its entries, by central differences:
    one batched forward of 2K copies of the batch, copy r shifted by ``perturb={name: …}``.
    Returns (flat entry indices, gradient at them)."""
    if name not in model.activation_names(live.cfg):
        raise ValueError(f"loss_grad_at: name expected one of model.activation_names, got {name!r}")
    cfg, b = live.cfg, live.idx.shape[0]
    shape = live.cache[name].shape  # (B, ...): every activation leads with the batch axis
    chosen = fd.sample_entries(int(np.prod(shape)), entries, seed)
    offsets = fd.offsets(shape, chosen, fd.STEP_2)  # (2K, B, ...)
    copies = offsets.shape[0]
    _, logits, _ = model.forward(live.params, cfg, np.tile(live.idx, (copies, 1)),
                                 perturb={name: offsets.reshape(copies * b, *shape[1:])})
    logits = logits.reshape(copies, b, *logits.shape[1:])
    losses = np.array([ops.cross_entropy_forward(lg, live.targets, cfg.ignore_index)[0]
                       for lg in logits])
    return chosen, fd.combine(losses, fd.STEP_2)


def loss_grad_params(live: Live, name: str, entries: int, seed: int = 0):
    """∂loss/∂params[name] at a seeded sample of entries, by central differences."""
    p = live.params[name]
    chosen = fd.sample_entries(p.size, entries, seed)
    grad = fd.derivative_inplace(
        lambda: model.forward(live.params, live.cfg, live.idx, live.targets)[0], p, chosen,
        fd.STEP_2, order=2)
    return chosen, grad
