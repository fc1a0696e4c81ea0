"""A live forward/backward pass of the check model, with the tensors the cross-checks need.

Besides the cache that ``numeric.model`` fills, the upstream gradients of every linear layer and of
every layer norm are recorded while the model's own backward runs (``ops`` is wrapped, not
replaced: a test's monkeypatched op is what gets recorded).  :func:`loss_grad_at` differentiates
the loss by central differences with respect to any intermediate tensor, all entries at once, by
adding offsets to one op's output inside a batched forward.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from numeric import model, ops
from numeric.config import GPTConfig
from numeric.crosscheck.core import FD_STEP
from numeric.gradcheck import make_problem

# Entries of an intermediate tensor differentiated numerically (a seeded sample beyond this).
FD_ENTRIES = 48


def check_config(**changes) -> GPTConfig:
    """Two layers, two heads, float64; init_std large enough that no path is negligible, and
    every target counts so the batch mean divides by B·T."""
    base = dict(vocab_size=11, block_size=6, n_layer=2, n_head=2, n_embd=8, seed=1234,
                ignore_index=None, init_std=0.3)
    base.update(changes)
    return GPTConfig(**base)


@dataclass
class Live:
    cfg: GPTConfig
    params: dict
    idx: np.ndarray
    targets: np.ndarray
    cache: dict
    grads: dict
    linear: dict = field(default_factory=dict)  # param name -> (X (N, C_in), G (N, C_out), dx)
    ln_in: dict = field(default_factory=dict)  # "h.i.ln_1" -> gradient arriving at its output


@contextlib.contextmanager
def patched(name: str, wrapper):
    """Replace ``ops.<name>`` by ``wrapper(original)`` for the duration of the block."""
    original = getattr(ops, name)
    setattr(ops, name, wrapper(original))
    try:
        yield
    finally:
        setattr(ops, name, original)


def run(cfg: GPTConfig | None = None, batch: int = 2) -> Live:
    cfg = cfg or check_config()
    params, idx, targets = make_problem(cfg, batch=batch)
    names = {id(p): n for n, p in params.items()}
    _, _, cache = model.forward(params, cfg, idx, targets)
    ln_names = {id(bc["_ops"][k]): f"h.{bc['_layer']}.{k}" for bc in cache["_blocks"]
                for k in ("ln_1", "ln_2")}
    live = Live(cfg, params, idx, targets, cache, {})

    def rec_linear(orig):
        def f(dout, c):
            out = orig(dout, c)
            name = names.get(id(c[1]))
            if name is not None:
                live.linear[name] = (c[0], dout.reshape(-1, c[1].shape[1]), out[0])
            return out
        return f

    def rec_ln(orig):
        def f(dout, c):
            if id(c) in ln_names:
                live.ln_in[ln_names[id(c)]] = dout
            return orig(dout, c)
        return f

    with patched("linear_backward", rec_linear), patched("layernorm_backward", rec_ln):
        live.grads = model.backward(cache, params)
    return live


def loss_grad_at(live: Live, op: str, call: int, entries: int = FD_ENTRIES,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """∂loss/∂(output of the ``call``-th forward call of ``ops.<op>``) at a seeded sample of its
    entries, by central differences.  Returns (flat entry indices, gradient at them)."""
    cfg, b = live.cfg, live.idx.shape[0]
    probe: list = []

    def capture(orig):
        def f(*a, **k):
            out = orig(*a, **k)
            probe.append(out[0] if isinstance(out, tuple) else out)
            return out
        return f

    with patched(op, capture):
        model.forward(live.params, cfg, live.idx)
    shape = probe[call].shape
    size = int(np.prod(shape))
    rng = np.random.default_rng(seed)
    chosen = np.arange(size) if size <= entries else np.sort(rng.choice(size, entries, False))
    k = chosen.size
    offsets = np.zeros((2 * k, size))
    offsets[np.arange(k), chosen] = FD_STEP
    offsets[k + np.arange(k), chosen] = -FD_STEP
    offsets = offsets.reshape(2 * k * shape[0], *shape[1:])  # copies stacked on the batch axis
    seen = [0]

    def shift(orig):
        def f(*a, **kw):
            out = orig(*a, **kw)
            seen[0] += 1
            if seen[0] - 1 != call:
                return out
            if isinstance(out, tuple):
                return (out[0] + offsets, *out[1:])
            return out + offsets
        return f

    idx = np.tile(live.idx, (2 * k, 1))
    with patched(op, shift):
        _, logits, _ = model.forward(live.params, cfg, idx)
    logits = logits.reshape(2 * k, b, *logits.shape[1:])
    losses = np.array([ops.cross_entropy_forward(lg, live.targets, cfg.ignore_index)[0]
                       for lg in logits])
    return chosen, (losses[:k] - losses[k:]) / (2 * FD_STEP)


def loss_grad_params(live: Live, name: str, entries: int, seed: int = 0):
    """∂loss/∂params[name] at a seeded sample of entries, by central differences."""
    p = live.params[name]
    rng = np.random.default_rng(seed)
    chosen = np.arange(p.size) if p.size <= entries else np.sort(rng.choice(p.size, entries,
                                                                            False))
    flat, out = p.reshape(-1), np.empty(chosen.size)
    for n, e in enumerate(chosen):
        old, vals = flat[e], []
        for step in (FD_STEP, -FD_STEP):
            flat[e] = old + step
            vals.append(model.forward(live.params, live.cfg, live.idx, live.targets)[0])
        flat[e] = old
        out[n] = (vals[0] - vals[1]) / (2 * FD_STEP)
    return chosen, out
