"""Decoder-only Transformer in NumPy with hand-written backward passes.

Ops are called through the module (``ops.softmax_backward(...)``) so a test can monkeypatch one op
with a broken version and watch the gradient check fail.

Parameters (dict name → array, weights stored (C_in, C_out)):
    wte (V, C); per layer i: h.i.ln_1.{g,b} (C,), h.i.attn.{w_q,w_k,w_v,w_o} (C, C),
    h.i.attn.{b_q,b_k,b_v,b_o} (C,), h.i.ln_2.{g,b} (C,), h.i.mlp.w_fc (C, 4C), h.i.mlp.b_fc (4C,),
    h.i.mlp.w_proj (4C, C), h.i.mlp.b_proj (C,); ln_f.{g,b} (C,); lm_head.w (C, V).

Cache keys (a flat dict; all arrays are live tensors of the last forward/backward):
    forward:  idx (B, T), targets (B, T), x0 (B, T, C) embedding (+ sinusoidal PE) output,
              h.i.x_in (B, T, C) block input, h.i.ln_1.out (B, T, C), h.i.attn.q / .k / .v
              (B, H, T, D) per head (q, k after RoPE), h.i.attn.scores (B, H, T, T) scaled,
              unmasked, h.i.attn.probs (B, H, T, T), h.i.attn.out (B, T, C) merged heads before
              w_o, h.i.x_mid (B, T, C) after the attention residual, h.i.ln_2.out (B, T, C),
              h.i.mlp.pre / h.i.mlp.post (B, T, 4C) around the activation, h.i.x_out (B, T, C),
              ln_f.out (B, T, C), logits (B, T, V), probs (B, T, V), loss (float), mask (T, T).
    backward: dlogits (B, T, V), h.i.attn.dprobs (B, H, T, T) upstream gradient into the
              softmax, h.i.attn.dscores (B, H, T, T) the softmax backward's output,
              h.i.dx_in (B, T, C) gradient at the block input, dx0 (B, T, C) gradient at x0.
    ``_ops`` holds the per-op caches the backward needs.
"""

from __future__ import annotations

import numpy as np

from numeric import ops
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
        ops.check_same("params", name, params[name], shape, cfg.np_dtype)


def _tables(cfg: GPTConfig, t: int):
    if cfg.pos == "rope":
        return ops.rope_tables(t, cfg.head_dim, cfg.np_dtype)
    return None


# ----------------------------------------------------------------------------- one block
def block_forward(params: dict, cfg: GPTConfig, layer: int, x: np.ndarray, rope=None):
    """One pre-LN block: x + Attn(LN(x)), then + MLP(LN(·)). Returns (y, cache)."""
    ops.check_float("block_forward", "x", x, ndim=3)
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
    c[pre + "x_in"] = x
    h1, o["ln_1"] = ops.layernorm_forward(x, p["ln_1.g"], p["ln_1.b"], cfg.ln_eps)  # (B, T, C)
    qkv = []
    for n in "qkv":
        y, o[n] = ops.linear_forward(h1, p[f"attn.w_{n}"], p[f"attn.b_{n}"])  # (B, T, C)
        yh = ops.split_heads(y, cfg.n_head)  # (B, H, T, D)
        if rope is not None and n != "v":
            yh, o["rope_" + n] = ops.rope_forward(yh, *rope)  # (B, H, T, D)
        qkv.append(yh)
    q, k, v = qkv
    mask = ops.causal_mask(t)  # (T, T)
    scores, o["scores"] = ops.attention_scores_forward(q, k)  # (B, H, T, T)
    probs, o["softmax"] = ops.softmax_forward(scores, mask)  # (B, H, T, T)
    att, o["values"] = ops.attention_values_forward(probs, v)  # (B, H, T, D)
    att = ops.merge_heads(att)  # (B, T, C)
    a, o["proj"] = ops.linear_forward(att, p["attn.w_o"], p["attn.b_o"])  # (B, T, C)
    if cfg.residual:
        x1, o["res_1"] = ops.residual_forward(x, a)  # (B, T, C)
    else:
        x1 = a  # (B, T, C)
    h2, o["ln_2"] = ops.layernorm_forward(x1, p["ln_2.g"], p["ln_2.b"], cfg.ln_eps)  # (B, T, C)
    hid, o["fc"] = ops.linear_forward(h2, p["mlp.w_fc"], p["mlp.b_fc"])  # (B, T, 4C)
    if cfg.activation == "gelu":
        act, o["act"] = ops.gelu_forward(hid)  # (B, T, 4C)
    else:
        act, o["act"] = ops.identity_forward(hid)  # (B, T, 4C)
    m, o["mlp_proj"] = ops.linear_forward(act, p["mlp.w_proj"], p["mlp.b_proj"])  # (B, T, C)
    if cfg.residual:
        y, o["res_2"] = ops.residual_forward(x1, m)  # (B, T, C)
    else:
        y = m  # (B, T, C)
    c.update({pre + "ln_1.out": h1, pre + "attn.q": q, pre + "attn.k": k, pre + "attn.v": v,
              pre + "attn.scores": scores, pre + "attn.probs": probs, pre + "attn.out": att,
              pre + "x_mid": x1, pre + "ln_2.out": h2, pre + "mlp.pre": hid,
              pre + "mlp.post": act, pre + "x_out": y, "mask": mask})
    return y, c


def block_backward(dy: np.ndarray, cache: dict):
    """Backward of one block. Returns (dx, grads keyed h.<layer>.<name>).

    residual_jacobian: each skip contributes dout itself (the I in I + ∂F/∂X) next to the
    branch's (∂F/∂X)ᵀdout. qkv_accumulation: LN₁'s output feeds W_Q, W_K and W_V, so its
    gradient is the sum dQ·W_Qᵀ + dK·W_Kᵀ + dV·W_Vᵀ. attention_softmax_backward: dS = Jᵀ dP row by
    row through ops.softmax_backward.
    """
    o, cfg, layer = cache["_ops"], cache["_cfg"], cache["_layer"]
    pre = f"h.{layer}."
    ops.check_same("block_backward", "dy", dy, cache[pre + "x_in"].shape, cfg.np_dtype)
    g: dict = {}
    if cfg.residual:
        dx1, dm = ops.residual_backward(dy, o["res_2"])  # (B, T, C) x2
    else:
        dx1, dm = 0.0, dy
    dact, g["mlp.w_proj"], g["mlp.b_proj"] = ops.linear_backward(dm, o["mlp_proj"])  # (B, T, 4C)
    if cfg.activation == "gelu":
        dhid = ops.gelu_backward(dact, o["act"])  # (B, T, 4C)
    else:
        dhid = ops.identity_backward(dact, o["act"])  # (B, T, 4C)
    dh2, g["mlp.w_fc"], g["mlp.b_fc"] = ops.linear_backward(dhid, o["fc"])  # (B, T, C)
    dln2, g["ln_2.g"], g["ln_2.b"] = ops.layernorm_backward(dh2, o["ln_2"])  # (B, T, C)
    dx1 = dx1 + dln2  # (B, T, C)
    if cfg.residual:
        dx, da = ops.residual_backward(dx1, o["res_1"])  # (B, T, C) x2
    else:
        dx, da = 0.0, dx1
    datt, g["attn.w_o"], g["attn.b_o"] = ops.linear_backward(da, o["proj"])  # (B, T, C)
    datt = ops.split_heads(datt, cfg.n_head)  # (B, H, T, D)
    dprobs, dv = ops.attention_values_backward(datt, o["values"])  # (B,H,T,T), (B,H,T,D)
    dscores = ops.softmax_backward(dprobs, o["softmax"])  # (B, H, T, T)
    dq, dk = ops.attention_scores_backward(dscores, o["scores"])  # (B, H, T, D) x2
    dh1 = None
    for n, dn in zip("qkv", (dq, dk, dv), strict=True):
        if "rope_" + n in o:
            dn = ops.rope_backward(dn, o["rope_" + n])  # (B, H, T, D)
        dn = ops.merge_heads(dn)  # (B, T, C)
        dxn, g[f"attn.w_{n}"], g[f"attn.b_{n}"] = ops.linear_backward(dn, o[n])  # (B, T, C)
        dh1 = dxn if dh1 is None else dh1 + dxn  # (B, T, C)
    dln1, g["ln_1.g"], g["ln_1.b"] = ops.layernorm_backward(dh1, o["ln_1"])  # (B, T, C)
    dx = dx + dln1  # (B, T, C)
    cache[pre + "attn.dprobs"], cache[pre + "attn.dscores"] = dprobs, dscores
    cache[pre + "dx_in"] = dx
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


def forward_from_embeddings(params: dict, cfg: GPTConfig, x0: np.ndarray, targets=None):
    """Blocks → ln_f → lm_head → loss from an embedded input x0 (B, T, C).

    Returns (loss or None, logits, cache). The input-embedding gradient check perturbs x0.
    """
    t = x0.shape[1]
    rope = _tables(cfg, t)
    cache: dict = {"x0": x0, "targets": targets, "_cfg": cfg, "_blocks": []}
    x = x0  # (B, T, C)
    for i in range(cfg.n_layer):
        x, bc = block_forward(params, cfg, i, x, rope)  # (B, T, C)
        cache["_blocks"].append(bc)
        cache.update({k: val for k, val in bc.items() if not k.startswith("_")})
    xf, cache["_ln_f"] = ops.layernorm_forward(x, params["ln_f.g"], params["ln_f.b"], cfg.ln_eps)
    logits, cache["_head"] = ops.linear_forward(xf, params["lm_head.w"])  # (B, T, V)
    cache.update({"ln_f.out": xf, "logits": logits})
    loss = None
    if targets is not None:
        loss, cache["_ce"] = ops.cross_entropy_forward(logits, targets, cfg.ignore_index)
        cache.update({"loss": loss, "probs": cache["_ce"][0]})
    return loss, logits, cache


def forward(params: dict, cfg: GPTConfig, idx: np.ndarray, targets=None):
    """Full forward from token ids (B, T). Returns (loss or None, logits, cache)."""
    x0, ec = embed(params, cfg, idx)  # (B, T, C)
    loss, logits, cache = forward_from_embeddings(params, cfg, x0, targets)
    cache.update({"idx": idx, "_emb": ec})
    return loss, logits, cache


def backward(cache: dict, params: dict) -> dict[str, np.ndarray]:
    """Gradients of the mean loss for every parameter, keyed like ``params``.

    Also writes the backward-time tensors listed in the module docstring into ``cache``.
    """
    if "_ce" not in cache:
        raise ValueError("backward: expected a cache from forward(..., targets), got no loss")
    grads: dict = {}
    dlogits = ops.cross_entropy_backward(1.0, cache["_ce"])  # (B, T, V)
    dxf, grads["lm_head.w"], _ = ops.linear_backward(dlogits, cache["_head"])  # (B, T, C)
    dx, grads["ln_f.g"], grads["ln_f.b"] = ops.layernorm_backward(dxf, cache["_ln_f"])
    for bc in reversed(cache["_blocks"]):
        dx, g = block_backward(dx, bc)  # (B, T, C)
        grads.update(g)
        layer = bc["_layer"]
        for key in ("dprobs", "dscores"):
            cache[f"h.{layer}.attn.{key}"] = bc[f"h.{layer}.attn.{key}"]
        cache[f"h.{layer}.dx_in"] = dx
    cache.update({"dlogits": dlogits, "dx0": dx})
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
