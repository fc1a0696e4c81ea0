"""Property-based tests of the numeric ops over random shapes, seeds and extreme values.

Inputs come from hypothesis (shapes, dtypes, arrays with entries up to ±1e4, masks); the profile
is derandomized, so every run draws the same examples.  Properties: softmax, cross-entropy,
attention and layer norm stay finite forward and backward in float32 and float64; softmax rows
sum to 1 within the dtype's rounding; masked positions get exactly zero weight and gradient; on
moderate float64 inputs the backward passes the finite-difference check of numeric.gradcheck.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from numeric import finite_diff as fd
from numeric import ops
from numeric.gradcheck import RTOL

settings.register_profile(
    "properties", derandomize=True, deadline=None, max_examples=200, database=None,
    suppress_health_check=[HealthCheck.too_slow])
PROFILE = settings.get_profile("properties")

# Largest magnitude of logits, scores and activations drawn.
EXTREME = 1e4
# Moderate range for finite differences: the 4-point stencil's truncation error grows with the
# fifth derivative, which saturating softmax rows and near-constant layer-norm rows make large.
MODERATE = 3.0
# A row of n probabilities sums to 1 up to n roundings of the dtype, plus the division's.
SUM_ULPS = 4
DTYPES = [np.float32, np.float64]
# As gradcheck.ZERO_ATOL: a hundredfold above the stencil's estimated rounding noise.
NOISE_SAFETY = 100


def sum_tol(dtype, n: int) -> float:
    return SUM_ULPS * (n + 1) * float(np.finfo(dtype).eps)


def values(dtype, shape, bound=EXTREME):
    width = 32 if dtype == np.float32 else 64
    return arrays(dtype, shape, elements=st.floats(-bound, bound, allow_nan=False,
                                                   allow_infinity=False, width=width))


@st.composite
def logits_case(draw, bound=EXTREME, dtypes=DTYPES):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(st.tuples(st.integers(1, 3), st.integers(1, 6)))
    return draw(values(dtype, shape, bound))


@st.composite
def masks(draw, shape):
    """A bool mask with at least one kept position per row (softmax_forward requires one)."""
    mask = draw(arrays(np.bool_, shape))
    keep = draw(arrays(np.int64, shape[:-1], elements=st.integers(0, shape[-1] - 1)))
    np.put_along_axis(mask, keep[..., None], True, axis=-1)
    return mask


def fd_error(forward, arr, analytic, dout) -> tuple[float, float]:
    """(max |analytic − FD|, the bound it must meet) for FD of f = ⟨forward(), dout⟩ by arr.

    The bound is gradcheck's RTOL relative to the gradient's scale, but never below the
    stencil's rounding noise 1.5·ε·|f|/h (times NOISE_SAFETY): a gradient far smaller than f
    itself (a layer norm of two entries, a saturated softmax) is resolved only down to that.
    """
    def f():
        return float(np.sum(forward() * dout))

    num = fd.derivative_inplace(f, arr, np.arange(arr.size))
    max_abs = float(np.max(np.abs(analytic.reshape(-1) - num)))
    noise = NOISE_SAFETY * 1.5 * float(np.finfo(np.float64).eps) * max(abs(f()), 1.0) / fd.STEP_4
    return max_abs, max(RTOL * float(np.max(np.abs(num))), noise)


def fd_check(name, forward, arr, analytic, dout):
    max_abs, bound = fd_error(forward, arr, analytic, dout)
    assert max_abs <= bound, f"{name}: max |analytic − FD| = {max_abs:.3g} > {bound:.3g}"


# --- softmax ----------------------------------------------------------------------------------

@PROFILE
@given(data=st.data(), x=logits_case())
def test_softmax_finite_rows_sum_to_one_masked_exactly_zero(data, x):
    mask = data.draw(masks(x.shape))
    s, cache = ops.softmax_forward(x, mask)
    assert s.dtype == x.dtype and np.all(np.isfinite(s)) and np.all(s >= 0)
    assert np.all(np.abs(s.sum(axis=-1) - 1) <= sum_tol(x.dtype, x.shape[-1]))
    assert np.all(s[~mask] == 0.0)
    dout = data.draw(values(x.dtype, x.shape))
    ds = ops.softmax_backward(dout, cache)
    assert ds.dtype == x.dtype and np.all(np.isfinite(ds))
    assert np.all(ds[~mask] == 0.0)


@PROFILE
@given(data=st.data(), x=logits_case(MODERATE, [np.float64]))
def test_softmax_backward_passes_finite_differences(data, x):
    mask = data.draw(masks(x.shape))
    dout = data.draw(values(np.float64, x.shape, MODERATE))
    s, cache = ops.softmax_forward(x, mask)
    ds = ops.softmax_backward(dout, cache)
    fd_check("softmax", lambda: ops.softmax_forward(x, mask)[0], x, ds, dout)


# --- cross-entropy ----------------------------------------------------------------------------

@PROFILE
@given(data=st.data(), logits=logits_case())
def test_cross_entropy_finite_and_gradient_rows_sum_to_zero(data, logits):
    rows, v = logits.shape
    targets = data.draw(arrays(np.int64, (rows,), elements=st.integers(0, v - 1)))
    loss, cache = ops.cross_entropy_forward(logits, targets)
    assert np.isfinite(loss) and loss >= 0
    grad = ops.cross_entropy_backward(1.0, cache)
    assert grad.dtype == logits.dtype and np.all(np.isfinite(grad))
    # p − y sums to 0 over the classes; each entry is at most 1/N in size
    assert np.all(np.abs(grad.sum(axis=-1)) <= sum_tol(logits.dtype, v) / rows)
    assert np.all(np.abs(grad) <= (1 + sum_tol(logits.dtype, v)) / rows)


@PROFILE
@given(data=st.data(), logits=logits_case(MODERATE, [np.float64]))
def test_cross_entropy_gradient_passes_finite_differences(data, logits):
    rows, v = logits.shape
    targets = data.draw(arrays(np.int64, (rows,), elements=st.integers(0, v - 1)))
    ignored = data.draw(st.booleans()) and rows > 1
    if ignored:
        targets[0] = -100  # an ignored row: zero gradient, and N counts the others only
    index = -100 if ignored else None
    _, cache = ops.cross_entropy_forward(logits, targets, index)
    grad = ops.cross_entropy_backward(1.0, cache)
    if ignored:
        assert np.all(grad[0] == 0.0)
    fd_check("cross_entropy", lambda: np.array(ops.cross_entropy_forward(
        logits, targets, index)[0]), logits, grad, np.array(1.0))


# --- attention: scores, causal softmax, values ------------------------------------------------

@st.composite
def qkv_case(draw, bound, dtypes=DTYPES):
    dtype = draw(st.sampled_from(dtypes))
    t, d = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    shape = (1, draw(st.integers(1, 2)), t, d)
    return [draw(values(dtype, shape, bound)) for _ in range(3)]


def attention(q, k, v):
    scores, c_scores = ops.attention_scores_forward(q, k)
    probs, c_soft = ops.softmax_forward(scores, ops.causal_mask(q.shape[2]))
    out, c_values = ops.attention_values_forward(probs, v)
    return out, probs, (c_scores, c_soft, c_values)


def attention_backward(dout, caches):
    c_scores, c_soft, c_values = caches
    dprobs, dv = ops.attention_values_backward(dout, c_values)
    dscores = ops.softmax_backward(dprobs, c_soft)
    dq, dk = ops.attention_scores_backward(dscores, c_scores)
    return dq, dk, dv, dscores


@PROFILE
@given(data=st.data(), qkv=qkv_case(np.sqrt(EXTREME)))
def test_attention_finite_for_extreme_scores_and_causal(data, qkv):
    # entries up to 1e2 give scores q·k/√D up to about 1e4
    q, k, v = qkv
    out, probs, caches = attention(q, k, v)
    future = ~ops.causal_mask(q.shape[2])
    assert np.all(np.isfinite(out)) and np.all(probs[..., future] == 0.0)
    assert np.all(np.abs(probs.sum(axis=-1) - 1) <= sum_tol(q.dtype, q.shape[2]))
    dout = data.draw(values(q.dtype, out.shape, MODERATE))
    dq, dk, dv, dscores = attention_backward(dout, caches)
    assert all(np.all(np.isfinite(g)) for g in (dq, dk, dv))
    assert np.all(dscores[..., future] == 0.0)


@PROFILE
@given(data=st.data(), qkv=qkv_case(MODERATE, [np.float64]))
def test_attention_backward_passes_finite_differences(data, qkv):
    q, k, v = qkv
    out, _, caches = attention(q, k, v)
    dout = data.draw(values(np.float64, out.shape, MODERATE))
    grads = attention_backward(dout, caches)[:3]
    for name, arr, g in zip("qkv", (q, k, v), grads, strict=True):
        fd_check(f"attention d{name}", lambda: attention(q, k, v)[0], arr, g, dout)


# --- layer norm -------------------------------------------------------------------------------

@PROFILE
@given(data=st.data(), x=logits_case())
def test_layernorm_finite_normalised_rows(data, x):
    c = x.shape[-1]
    g = data.draw(values(x.dtype, (c,), MODERATE))
    b = data.draw(values(x.dtype, (c,), MODERATE))
    out, cache = ops.layernorm_forward(x, g, b)
    assert out.dtype == x.dtype and np.all(np.isfinite(out))
    xhat = cache[0]
    # x̂ has mean 0 and mean square var/(var + eps) ≤ 1 in every row
    assert np.all(np.abs(xhat.mean(axis=-1)) <= 1e3 * float(np.finfo(x.dtype).eps))
    assert np.all((xhat**2).mean(axis=-1) <= 1 + 1e3 * float(np.finfo(x.dtype).eps))
    dout = data.draw(values(x.dtype, x.shape, MODERATE))
    assert all(np.all(np.isfinite(a)) for a in ops.layernorm_backward(dout, cache))


@PROFILE
@given(data=st.data(), x=logits_case(MODERATE, [np.float64]))
def test_layernorm_backward_passes_finite_differences(data, x):
    # near-constant rows have 1/σ ~ 1/√eps and derivatives the stencil cannot resolve
    assume(x.shape[-1] == 1 or np.min(x.std(axis=-1)) > 0.1)
    c = x.shape[-1]
    g, b = data.draw(values(np.float64, (c,), MODERATE)), data.draw(values(np.float64, (c,)))
    dout = data.draw(values(np.float64, x.shape, MODERATE))
    out, cache = ops.layernorm_forward(x, g, b)
    dx, dg, db = ops.layernorm_backward(dout, cache)
    for name, arr, grad in (("x", x, dx), ("g", g, dg), ("b", b, db)):
        fd_check(f"layernorm d{name}", lambda: ops.layernorm_forward(x, g, b)[0], arr, grad, dout)


def test_the_finite_difference_check_fails_on_a_wrong_gradient():
    # the property above can fail: the same check rejects a softmax backward without ⟨g, s⟩
    x = np.linspace(-1.0, 1.0, 5)[None, :]
    dout = np.linspace(2.0, -1.0, 5)[None, :]
    s, _ = ops.softmax_forward(x)
    max_abs, bound = fd_error(lambda: ops.softmax_forward(x)[0], x, s * dout, dout)
    assert max_abs > 1e3 * bound
