"""Decoder-only Transformer in NumPy with hand-written backward passes.

Ops are called through the module (``ops.softmax_backward(...)``) so a test can monkeypatch one op
with a broken version and watch the gradient check fail.

Parameters (dict name → array, weights stored (C_in, C_out)):
    wte (V, C); per layer i: h.i.ln_1.{g,b} (C,), h.i.attn.{w_q,w_k,w_v,w_o} (C, C),
    h.i.attn.{b_q,b_k,b_v,b_o} (C,), h.i.ln_2.{g,b} (C,), h.i.mlp.w_fc (C, 4C), h.i.mlp.b_fc (4C,),
    h.i.mlp.w_proj (4C, C), h.i.mlp.b_proj (C,); ln_f.{g,b} (C,); lm_head.w (C, V).

Named tensors (one scheme, like llm.c's ActivationTensors / grads_acts). ``forward`` records every
activation under its name in the returned cache, in evaluation order (:func:`activation_names`);
``backward`` records the gradient of the mean loss by each of them under :func:`grad_name`
(``d`` before the last part: ``h.0.attn.w_q.in`` → ``h.0.attn.w_q.din``, ``logits`` →
``dlogits``). Per layer i (B batch, T time, C channels, H heads, D head dim, V vocabulary):
    emb.out (B, T, C)            token embedding (+ sinusoidal encoding)
    h.i.in (B, T, C)             block input
    h.i.ln_1.in / .out           layer norm 1
    h.i.attn.w_{q,k,v}.in / .out (B, T, C) the three projections
    h.i.attn.{q,k,v} (B, H, T, D) per head (q, k after RoPE)
    h.i.attn.scores (B, H, T, T) scaled, unmasked;  h.i.attn.probs (B, H, T, T)
    h.i.attn.y (B, T, C)         heads merged, before w_o
    h.i.attn.w_o.in / .out
    h.i.mid (B, T, C)            after the attention residual
    h.i.ln_2.in / .out
    h.i.mlp.w_fc.in / .out (B, T, C) / (B, T, 4C);  h.i.mlp.act (B, T, 4C) after the activation
    h.i.mlp.w_proj.in / .out
    h.i.out (B, T, C)            block output
    ln_f.in / .out, logits (B, T, V)
An op's input is its own name, downstream of the tensor it reads: ``h.i.attn.w_q.in`` is what
w_q sees, so its gradient is w_q's share alone, while ``h.i.ln_1.dout`` sums all three shares.
``forward(..., perturb={name: offset})`` adds ``offset`` to the named tensor where it is made (and
records the shifted tensor), so finite differences address tensors by name only. Besides the
names the cache holds ``idx``, ``targets``, ``loss``, ``mask`` (T, T); ``_``-keys are the per-op
caches the backward needs.
"""

from __future__ import annotations

import numpy as np

from numeric import buffers, ops
from numeric.checks import check_float, check_same
from numeric.config import GPTConfig

LAYER_PARAMS = (
    "ln_1.g", "ln_1.b", "attn.w_q", "attn.b_q", "attn.w_k", "attn.b_k", "attn.w_v", "attn.b_v",
    "attn.w_o", "attn.b_o", "ln_2.g", "ln_2.b", "mlp.w_fc", "mlp.b_fc", "mlp.w_proj",
    "mlp.b_proj",
)


def param_shapes(cfg: GPTConfig) -> dict[str, tuple[int, ...]]:
    """Name → shape, in the fixed order used for seeded initialisation."""
    c, v = cfg.n_embd, cfg.vocab_size
    per = {"ln_1.g": (c,), "ln_1.b": (c,), "ln_2.g": (c,), "ln_2.b": (c,),
           "mlp.w_fc": (c, 4 * c), "mlp.b_fc": (4 * c,), "mlp.w_proj": (4 * c, c),
           "mlp.b_proj": (c,)}
    for n in "qkvo":
        per[f"attn.w_{n}"], per[f"attn.b_{n}"] = (c, c), (c,)
    shapes = {"wte": (v, c)}
    for i in range(cfg.n_layer):
        shapes.update({f"h.{i}.{k}": per[k] for k in LAYER_PARAMS})
    shapes.update({"ln_f.g": (c,), "ln_f.b": (c,), "lm_head.w": (c, v)})
    return shapes


def init_params(cfg: GPTConfig) -> dict[str, np.ndarray]:
    """GPT-2 style: N(0, std²) weights, output projections scaled by 1/√(2L), zero biases, γ=1."""
    rng = np.random.default_rng(cfg.seed)
    params = {}
    for name, shape in param_shapes(cfg).items():
        leaf = name.rsplit(".", 1)[-1]
        if leaf == "g":
            arr = np.ones(shape)
        elif leaf.startswith("b"):
            arr = np.zeros(shape)
        else:
            std = cfg.init_std
            if leaf in ("w_o", "w_proj"):
                std /= np.sqrt(2 * cfg.n_layer)
            arr = rng.normal(0.0, std, size=shape)
        params[name] = arr.astype(cfg.np_dtype)
    return params


def check_params(params: dict, cfg: GPTConfig) -> None:
    """Raise ValueError naming the first missing or mis-shaped/mistyped parameter."""
    for name, shape in param_shapes(cfg).items():
        if name not in params:
            raise ValueError(f"params: expected key {name!r}, got keys {sorted(params)[:5]}...")
        check_same("params", name, params[name], shape, cfg.np_dtype)


def _tables(cfg: GPTConfig, t: int):
    if cfg.pos == "rope":
        return ops.rope_tables(t, cfg.head_dim, cfg.np_dtype)
    return None


# ----------------------------------------------------------------------------- names
BLOCK_NAMES = (
    "in", "ln_1.in", "ln_1.out",
    "attn.w_q.in", "attn.w_q.out", "attn.q", "attn.w_k.in", "attn.w_k.out", "attn.k",
    "attn.w_v.in", "attn.w_v.out", "attn.v", "attn.scores", "attn.probs", "attn.y", "attn.w_o.in",
    "attn.w_o.out", "mid", "ln_2.in", "ln_2.out", "mlp.w_fc.in", "mlp.w_fc.out", "mlp.act",
    "mlp.w_proj.in", "mlp.w_proj.out", "out",
)


def activation_names(cfg: GPTConfig) -> tuple[str, ...]:
    """Every named activation of ``forward``, in evaluation order."""
    blocks = [f"h.{i}.{n}" for i in range(cfg.n_layer) for n in BLOCK_NAMES]
    return ("emb.out", *blocks, "ln_f.in", "ln_f.out", "logits")


def grad_name(name: str) -> str:
    """Name of the gradient of the mean loss by the activation ``name``: ``d`` + its last part."""
    head, _, last = name.rpartition(".")
    return f"{head}.d{last}" if head else f"d{last}"


def _named(cache: dict, perturb: dict, name: str, x: np.ndarray) -> np.ndarray:
    """Record ``x`` as ``name``, shifted first by ``perturb[name]`` if given (consumed)."""
    offset = perturb.pop(name, None)
    if offset is not None:
        offset = np.asarray(offset)  # (broadcastable to x)
        try:
            fits = np.broadcast_shapes(offset.shape, x.shape) == x.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"perturb[{name!r}]: expected an offset broadcastable to {x.shape}, "
                             f"got shape {offset.shape}")
        x = x + offset  # (same shape as x)
    cache[name] = x
    return x


def _unused(perturb: dict) -> None:
    if perturb:
        raise ValueError(f"perturb: expected activation names (model.activation_names), got "
                         f"unknown {sorted(perturb)}")


# ----------------------------------------------------------------------------- one block
def _add(a, b: np.ndarray) -> np.ndarray:
    """a + b into a pooled array (numeric.buffers); ``a`` may be the scalar 0 of a block
    without residual."""
    return np.add(a, b, out=buffers.empty_like(b))  # (same shape as b)


def _linear(nm, o: dict, key: str, name: str, x: np.ndarray, p: dict) -> np.ndarray:
    """ops.linear_forward between the names <name>.in and <name>.out (weight p[leaf of name],
    bias p[its b_ twin]); its cache goes to o[key]."""
    y, o[key] = ops.linear_forward(nm(name + ".in", x), p[name],
                                   p[name.replace(".w_", ".b_")])  # (..., C_out)
    return nm(name + ".out", y)


def _residual(cfg: GPTConfig, o: dict, key: str, x: np.ndarray, fx: np.ndarray) -> np.ndarray:
    """x + F(x) through ops.residual_forward, or F(x) alone when cfg.residual is off."""
    if not cfg.residual:
        return fx
    y, o[key] = ops.residual_forward(x, fx)  # (B, T, C)
    return y


def block_forward(params: dict, cfg: GPTConfig, layer: int, x: np.ndarray, rope=None,
                  perturb: dict | None = None):
    """One pre-LN block: x + Attn(LN(x)), then + MLP(LN(·)). Returns (y, cache).

    ``perturb`` maps names of this block (``h.<layer>.…``) to offsets; any other name is refused.
    """
    pending = dict(perturb or {})
    y, cache = _block_forward(params, cfg, layer, x, rope, pending)
    _unused(pending)
    return y, cache


def _block_forward(params: dict, cfg: GPTConfig, layer: int, x: np.ndarray, rope,
                   perturb: dict):
    """block_forward, consuming the names it shifts from ``perturb`` (the whole model's
    pending perturbations, checked once by the caller)."""
    check_float("block_forward", "x", x, ndim=3)
    if x.shape[-1] != cfg.n_embd or x.dtype != cfg.np_dtype:
        raise ValueError(
            f"block_forward: x expected (B, T, {cfg.n_embd}) {cfg.dtype}, got {x.shape} {x.dtype}"
        )
    p = {k: params[f"h.{layer}.{k}"] for k in LAYER_PARAMS}
    t = x.shape[1]
    if rope is None:
        rope = _tables(cfg, t)
    pre = f"h.{layer}."
    c: dict = {"_ops": {}, "_layer": layer, "_cfg": cfg}
    o = c["_ops"]

    def nm(name, arr):
        return _named(c, perturb, pre + name, arr)

    x = nm("in", x)  # (B, T, C)
    h1, o["ln_1"] = ops.layernorm_forward(nm("ln_1.in", x), p["ln_1.g"], p["ln_1.b"],
                                          cfg.ln_eps)  # (B, T, C)
    h1 = nm("ln_1.out", h1)  # (B, T, C)
    heads = {}
    for n in "qkv":
        y = _linear(nm, o, n, f"attn.w_{n}", h1, p)  # (B, T, C)
        yh = ops.split_heads(y, cfg.n_head)  # (B, H, T, D)
        if rope is not None and n != "v":
            yh, o["rope_" + n] = ops.rope_forward(yh, *rope)  # (B, H, T, D)
        heads[n] = nm(f"attn.{n}", yh)  # (B, H, T, D)
    mask = ops.causal_mask(t)  # (T, T)
    scores, o["scores"] = ops.attention_scores_forward(heads["q"], heads["k"])  # (B, H, T, T)
    probs, o["softmax"] = ops.softmax_forward(nm("attn.scores", scores), mask)  # (B, H, T, T)
    att, o["values"] = ops.attention_values_forward(nm("attn.probs", probs),
                                                    heads["v"])  # (B, H, T, D)
    att = nm("attn.y", ops.merge_heads(att))  # (B, T, C)
    a = _linear(nm, o, "proj", "attn.w_o", att, p)  # (B, T, C)
    x1 = nm("mid", _residual(cfg, o, "res_1", x, a))  # (B, T, C)
    h2, o["ln_2"] = ops.layernorm_forward(nm("ln_2.in", x1), p["ln_2.g"], p["ln_2.b"],
                                          cfg.ln_eps)  # (B, T, C)
    h2 = nm("ln_2.out", h2)  # (B, T, C)
    hid = _linear(nm, o, "fc", "mlp.w_fc", h2, p)  # (B, T, 4C)
    if cfg.activation == "gelu":
        act, o["act"] = ops.gelu_forward(hid)  # (B, T, 4C)
    else:
        act, o["act"] = ops.identity_forward(hid)  # (B, T, 4C)
    act = nm("mlp.act", act)  # (B, T, 4C)
    m = _linear(nm, o, "mlp_proj", "mlp.w_proj", act, p)  # (B, T, C)
    y = nm("out", _residual(cfg, o, "res_2", x1, m))  # (B, T, C)
    c["mask"] = mask
    return y, c


def block_backward(dy: np.ndarray, cache: dict):
    """Backward of one block. Returns (dx, grads keyed h.<layer>.<name>); records the gradient
    of every named activation of the block in ``cache`` (see :func:`grad_name`).

    residual_jacobian: each skip contributes dout itself (the I in I + ∂F/∂X) next to the
    branch's (∂F/∂X)ᵀdout. qkv_accumulation: LN₁'s output feeds W_Q, W_K and W_V, so its
    gradient is the sum dQ·W_Qᵀ + dK·W_Kᵀ + dV·W_Vᵀ. attention_softmax_backward: dS = Jᵀ dP row by
    row through ops.softmax_backward.
    """
    o, cfg, layer = cache["_ops"], cache["_cfg"], cache["_layer"]
    pre = f"h.{layer}."
    check_same("block_backward", "dy", dy, cache[pre + "in"].shape, cfg.np_dtype)

    def rec(name, arr):
        cache[grad_name(pre + name)] = arr
        return arr

    g: dict = {}
    rec("out", dy)  # (B, T, C)
    if cfg.residual:
        dx1, dm = ops.residual_backward(dy, o["res_2"])  # (B, T, C) x2
    else:
        dx1, dm = 0.0, dy
    rec("mlp.w_proj.out", dm)  # (B, T, C)
    dact, g["mlp.w_proj"], g["mlp.b_proj"] = ops.linear_backward(dm, o["mlp_proj"])  # (B, T, 4C)
    rec("mlp.act", rec("mlp.w_proj.in", dact))  # (B, T, 4C)
    if cfg.activation == "gelu":
        dhid = ops.gelu_backward(dact, o["act"])  # (B, T, 4C)
    else:
        dhid = ops.identity_backward(dact, o["act"])  # (B, T, 4C)
    rec("mlp.w_fc.out", dhid)  # (B, T, 4C)
    dh2, g["mlp.w_fc"], g["mlp.b_fc"] = ops.linear_backward(dhid, o["fc"])  # (B, T, C)
    rec("ln_2.out", rec("mlp.w_fc.in", dh2))  # (B, T, C)
    dln2, g["ln_2.g"], g["ln_2.b"] = ops.layernorm_backward(dh2, o["ln_2"])  # (B, T, C)
    rec("ln_2.in", dln2)  # (B, T, C)
    dx1 = rec("mid", _add(dx1, dln2))  # (B, T, C)
    if cfg.residual:
        dx, da = ops.residual_backward(dx1, o["res_1"])  # (B, T, C) x2
    else:
        dx, da = 0.0, dx1
    rec("attn.w_o.out", da)  # (B, T, C)
    datt, g["attn.w_o"], g["attn.b_o"] = ops.linear_backward(da, o["proj"])  # (B, T, C)
    rec("attn.y", rec("attn.w_o.in", datt))  # (B, T, C)
    datt = ops.split_heads(datt, cfg.n_head)  # (B, H, T, D)
    dprobs, dv = ops.attention_values_backward(datt, o["values"])  # (B,H,T,T), (B,H,T,D)
    rec("attn.probs", dprobs)  # (B, H, T, T)
    dscores = rec("attn.scores", ops.softmax_backward(dprobs, o["softmax"]))  # (B, H, T, T)
    dq, dk = ops.attention_scores_backward(dscores, o["scores"])  # (B, H, T, D) x2
    dh1 = None
    for n, dn in zip("qkv", (dq, dk, dv), strict=True):
        rec(f"attn.{n}", dn)  # (B, H, T, D)
        if "rope_" + n in o:
            dn = ops.rope_backward(dn, o["rope_" + n])  # (B, H, T, D)
        dn = rec(f"attn.w_{n}.out", ops.merge_heads(dn))  # (B, T, C)
        dxn, g[f"attn.w_{n}"], g[f"attn.b_{n}"] = ops.linear_backward(dn, o[n])  # (B, T, C)
        rec(f"attn.w_{n}.in", dxn)  # (B, T, C)
        if dh1 is None:
            dh1 = dxn  # (B, T, C)
        elif n == "k":
            dh1 = _add(dh1, dxn)  # (B, T, C)   new: dxq is recorded as w_q.din
        else:
            dh1 += dxn  # (B, T, C)
    rec("ln_1.out", dh1)  # (B, T, C)
    dln1, g["ln_1.g"], g["ln_1.b"] = ops.layernorm_backward(dh1, o["ln_1"])  # (B, T, C)
    rec("ln_1.in", dln1)  # (B, T, C)
    dx = rec("in", _add(dx, dln1))  # (B, T, C)
    return dx, {pre + k: val for k, val in g.items()}


# ----------------------------------------------------------------------------- whole model
def embed(params: dict, cfg: GPTConfig, idx: np.ndarray):
    """Token embedding plus (for pos="sinusoidal") the encoding. Returns (x0, cache)."""
    if not isinstance(idx, np.ndarray) or idx.ndim != 2 or not 1 <= idx.shape[1] <= cfg.block_size:
        got = idx.shape if isinstance(idx, np.ndarray) else type(idx).__name__
        raise ValueError(f"embed: idx expected shape (B, T≤{cfg.block_size}), got {got}")
    x0, ec = ops.embedding_forward(idx, params["wte"])  # (B, T, C)
    if cfg.pos == "sinusoidal":
        x0 += ops.sinusoidal_encoding(idx.shape[1], cfg.n_embd, cfg.np_dtype)
    return x0, ec


def forward_from_embeddings(params: dict, cfg: GPTConfig, x0: np.ndarray, targets=None,
                            perturb: dict | None = None):
    """Blocks → ln_f → lm_head → loss from an embedded input x0 (B, T, C), recorded as emb.out.

    Returns (loss or None, logits, cache). The input-embedding gradient check perturbs x0.
    """
    perturb = dict(perturb or {})
    t = x0.shape[1]
    rope = _tables(cfg, t)
    cache: dict = {"targets": targets, "_cfg": cfg, "_blocks": []}
    x = _named(cache, perturb, "emb.out", x0)  # (B, T, C)
    for i in range(cfg.n_layer):
        x, bc = _block_forward(params, cfg, i, x, rope, perturb)  # (B, T, C)
        cache["_blocks"].append(bc)
        cache.update({k: val for k, val in bc.items() if not k.startswith("_")})
    x = _named(cache, perturb, "ln_f.in", x)  # (B, T, C)
    xf, cache["_ln_f"] = ops.layernorm_forward(x, params["ln_f.g"], params["ln_f.b"], cfg.ln_eps)
    xf = _named(cache, perturb, "ln_f.out", xf)  # (B, T, C)
    logits, cache["_head"] = ops.linear_forward(xf, params["lm_head.w"])  # (B, T, V)
    logits = _named(cache, perturb, "logits", logits)  # (B, T, V)
    _unused(perturb)
    loss = None
    if targets is not None:
        loss, cache["_ce"] = ops.cross_entropy_forward(logits, targets, cfg.ignore_index)
        cache["loss"] = loss
    return loss, logits, cache


def forward(params: dict, cfg: GPTConfig, idx: np.ndarray, targets=None,
            perturb: dict | None = None):
    """Full forward from token ids (B, T). Returns (loss or None, logits, cache).

    ``perturb``: {activation name: offset broadcastable to it}, added where the tensor is made.
    """
    x0, ec = embed(params, cfg, idx)  # (B, T, C)
    loss, logits, cache = forward_from_embeddings(params, cfg, x0, targets, perturb)
    cache.update({"idx": idx, "_emb": ec})
    return loss, logits, cache


def backward(cache: dict, params: dict) -> dict[str, np.ndarray]:
    """Gradients of the mean loss for every parameter, keyed like ``params``.

    cross_entropy_batch_mean: dlogits = (P − Y)/N; linear_grad_weight / linear_grad_input for the
    head; the blocks as in :func:`block_backward`.  Also records in ``cache`` the gradient of
    every named activation (module docstring).
    """
    if "_ce" not in cache:
        raise ValueError("backward: expected a cache from forward(..., targets), got no loss")
    grads: dict = {}
    dlogits = ops.cross_entropy_backward(1.0, cache["_ce"])  # (B, T, V)
    dxf, grads["lm_head.w"], _ = ops.linear_backward(dlogits, cache["_head"])  # (B, T, C)
    dx, grads["ln_f.g"], grads["ln_f.b"] = ops.layernorm_backward(dxf, cache["_ln_f"])  # (B, T, C)
    cache.update({"dlogits": dlogits, "ln_f.dout": dxf, "ln_f.din": dx})
    for bc in reversed(cache["_blocks"]):
        dx, g = block_backward(dx, bc)  # (B, T, C)
        grads.update(g)
        cache.update({k: val for k, val in bc.items() if not k.startswith("_")})
    cache["emb.dout"] = dx
    if "_emb" in cache:
        grads["wte"] = ops.embedding_backward(dx, cache["_emb"])  # (V, C)
    return {k: grads[k] for k in params if k in grads}


class GPT:
    """Parameters plus the forward/backward functions above, for callers that want an object."""

    def __init__(self, config: GPTConfig, params: dict | None = None):
        self.config = config
        self.params = init_params(config) if params is None else params
        check_params(self.params, config)

    def forward(self, idx: np.ndarray, targets: np.ndarray | None = None):
        return forward(self.params, self.config, idx, targets)

    def backward(self, cache: dict) -> dict[str, np.ndarray]:
        return backward(cache, self.params)

    def loss_and_grads(self, idx: np.ndarray, targets: np.ndarray):
        loss, _, cache = self.forward(idx, targets)
        return loss, self.backward(cache), cache

    def num_params(self) -> int:
        return sum(p.size for p in self.params.values())
