"""The adversarial suite: every false claim is caught, ≥ 95 % of the true ones are proved.

The Matrix Cookbook pairs are first confirmed independently of the engine: NumPy central finite
differences of f must match the true derivative and miss the wrong twin.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from derivations.redteam import CASES, Outcome, bars, reasoned, run_all, table
from derivations.redteam.cases import COOKBOOK_PAIRS

FD_STEP = 1e-6
FD_RTOL = 1e-5  # central differences in float64 at step 1e-6: error ~1e-9 relative
SIZE = 3


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return {o.id: o for o in run_all(workers=2)}


def test_the_suite_is_large_enough():
    false = [c for c in CASES if not c.true]
    true = [c for c in CASES if c.true]
    assert len(CASES) >= 400 and len(false) >= 250 and len(true) >= 150
    assert len({c.id for c in CASES}) == len(CASES)
    classes = {c.cls for c in CASES}
    assert {"derivative order", "tolerance and scale", "sampling", "randomness", "premises",
            "matrix entry", "layout", "limits and mistakes", "matrix cookbook",
            "shared integration", "shared limits", "summation convention", "distributions",
            "noncommutative", "sampling gaps", "floats", "evaluation errors",
            "undeclared"} <= classes
    # the second round: cases whose truth a witness confirms without the engine
    witnessed = [c for c in CASES if c.witness is not None]
    assert len(witnessed) >= 150 and sum(not c.true for c in witnessed) >= 90


def test_every_false_claim_is_caught(outcomes):
    missed = [(o.id, o.result, o.detail) for o in outcomes.values() if not o.true and not o.ok]
    assert missed == []
    # its concrete form with symbolic 3×3 entries is over budget at every point: decided at each
    # point's numbers instead (it ended `timed out` before)
    assert outcomes["cookbook_inverse_by_scalar_wrong"].result == "failed"


def test_true_claims_are_proved_or_say_why(outcomes):
    # the earlier classes keep their bar of 95 %, the second round's (with witnesses) one of 90 %
    assert [bar for bar, _ in bars(outcomes.values())] == [0.95, 0.90]
    for bar, true in bars(outcomes.values()):
        proved = [o for o in true if o.result == "proved"]
        assert len(proved) >= bar * len(true), [(o.id, o.result) for o in true
                                                if o not in proved]
    unexplained = [(o.id, o.result, o.detail) for o in outcomes.values()
                   if o.true and not reasoned(o)]
    assert unexplained == []


def test_refusals_name_the_cause(outcomes):
    refused = {o.id: o.detail for o in outcomes.values() if o.result == "refused"}
    assert "not supported" in refused["hessian_by_matrix_as_gradient"]
    assert "max_dim" in refused["max_dim_zero"] and "max_dim" in refused["max_dim_two"]
    assert "y inside E or Var" in refused["undeclared_in_variance"]
    assert "indices={j: (1, n)}" in refused["undeclared_index"]
    assert "evaluate=False" in refused["evaluated_eq"]
    assert "Python int" in refused["python_int_step"]
    assert "empty" in refused["empty_index_range"]
    assert "two different objects are named 'X'" in refused["two_matrices_named_x"]
    assert "two different objects are named 'y'" in refused["two_symbols_named_y"]
    assert "'X[0,0]' is reserved" in refused["symbol_named_like_a_matrix_entry"]


def test_a_false_premise_is_named(outcomes):
    assert outcomes["premise_self_independence"].detail.startswith("premise")
    assert outcomes["gaussian_kurtosis_premise_any"].detail == \
        "premise 'normal fourth moment' failed"


def test_the_table_counts_every_case(outcomes):
    lines = table(list(outcomes.values()))
    total = lines[-1].split()
    assert total[0] == "total" and int(total[1]) + int(total[3]) == len(CASES)


# --- independent confirmation of the cookbook pairs -------------------------------------------

def _numeric(expr, env):
    """A SymPy matrix expression evaluated with NumPy at explicit 3×3 and 3×1 matrices, node by
    node — no SymPy calculus, no lambdify."""
    if isinstance(expr, sp.MatrixSymbol):
        return env[expr.name]
    if isinstance(expr, sp.Identity):
        return np.eye(SIZE)
    if isinstance(expr, sp.ZeroMatrix):
        return np.zeros((SIZE, SIZE))
    if expr.is_Number:
        return float(expr)
    args = [_numeric(x, env) for x in expr.args]
    ops = {
        sp.MatMul: lambda *xs: _product(xs), sp.MatAdd: lambda *xs: sum(xs),
        sp.Mul: lambda *xs: _product(xs), sp.Add: lambda *xs: sum(xs),
        sp.Transpose: lambda m: np.transpose(m), sp.Inverse: lambda m, *_: np.linalg.inv(m),
        sp.MatPow: lambda m, e: np.linalg.matrix_power(m, int(e)),
        sp.Trace: np.trace, sp.Determinant: np.linalg.det, sp.log: np.log, sp.Abs: np.abs,
        sp.Pow: lambda base, e: np.linalg.matrix_power(base, int(e)) if np.ndim(base) == 2
        else base**e,
    }
    for kind, op in ops.items():
        if isinstance(expr, kind):
            return op(*args)
    raise TypeError(f"no NumPy meaning for {type(expr).__name__}")


def _product(xs):
    out = xs[0]
    for x in xs[1:]:
        out = out @ x if np.ndim(out) == 2 and np.ndim(x) == 2 else out * x
    return out


def _finite_difference(f, var, env):
    grad = np.zeros(env[var].shape)
    for idx in np.ndindex(*env[var].shape):
        up, down = {k: v.copy() for k, v in env.items()}, {k: v.copy() for k, v in env.items()}
        up[var][idx] += FD_STEP
        down[var][idx] -= FD_STEP
        grad[idx] = (float(np.sum(_numeric(f, up))) - float(np.sum(_numeric(f, down)))) \
            / (2 * FD_STEP)
    return grad


@pytest.mark.parametrize("cid, f, var, good, bad", COOKBOOK_PAIRS,
                         ids=[p[0] for p in COOKBOOK_PAIRS])
def test_cookbook_pair_confirmed_by_finite_differences(cid, f, var, good, bad):
    rng = np.random.default_rng(0)
    env = {s.name: rng.normal(size=(SIZE, int(s.shape[1]) if s.shape[1] == 1 else SIZE))
           for s in (f.atoms(sp.MatrixSymbol) | good.atoms(sp.MatrixSymbol)
                     | bad.atoms(sp.MatrixSymbol))}
    env["X"] = env.get("X", rng.normal(size=(SIZE, SIZE))) + 3 * np.eye(SIZE)  # invertible
    f = f.xreplace({sp.Symbol("n", integer=True, positive=True): SIZE})
    good, bad = (e.xreplace({sp.Symbol("n", integer=True, positive=True): SIZE})
                 for e in (good, bad))
    fd = _finite_difference(f, var.name, env)
    scale = np.abs(fd).max()
    good_v = np.broadcast_to(_numeric(good, env), fd.shape)
    bad_v = np.broadcast_to(_numeric(bad, env), fd.shape)
    assert np.allclose(good_v, fd, rtol=FD_RTOL, atol=FD_RTOL * scale), cid
    assert not np.allclose(bad_v, fd, rtol=1e-2, atol=1e-2 * scale), cid
