"""The numeric route's concrete forms: sums over integer bounds written out term by term, and
entries at integer indices as plain symbols — each the same value as SymPy's own evaluation."""

import random

import mpmath
import pytest
import sympy as sp

from derivations import Derivation, Domain, Step, verify
from derivations.engine.numeric.finite import entries_as_symbols, write_out

i, j, k = sp.symbols("i j k", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
x = sp.IndexedBase("x", real=True)
DIGITS = 50
AGREE = mpmath.mpf("1e-40")  # both sides are the same finite sum at 50 digits


def value(expr, seed=0):
    """``expr`` at seeded values of its entries (each entry's value seeded by its name, so two
    expressions see the same x[2]), at DIGITS digits."""
    filled = expr.xreplace({a: sp.Float(random.Random(f"{seed}:{a}").uniform(-3, 3), DIGITS)
                            for a in expr.atoms(sp.Indexed)})
    return mpmath.mpf(str(sp.N(filled.doit(), DIGITS)))


def loop_sum(body, var, lo, hi):
    """A finite sum by its definition, the textbook convention: empty when hi < lo."""
    return sp.Add(*[body.subs(var, t) for t in range(lo, hi + 1)])


CASES = {
    "plain": (sp.Sum(x[i] ** 2, (i, 1, 4)), loop_sum(x[i] ** 2, i, 1, 4)),
    "empty": (sp.Sum(x[i], (i, 3, 2)), sp.Integer(0)),
    "reversed (empty)": (sp.Sum(x[i], (i, 4, 1)), sp.Integer(0)),
    "product": (sp.Product(x[i], (i, 1, 3)), x[1] * x[2] * x[3]),
    "reversed product": (sp.Product(x[i], (i, 4, 1)), sp.Integer(1)),
    "two limits": (sp.Sum(x[i] * x[j], (i, 0, 1), (j, 0, 2)),
                   sp.Add(*[x[a] * x[b] for a in range(2) for b in range(3)])),
    "inner bound on the outer variable": (
        sp.Sum(sp.Sum(x[i] * x[j], (j, 0, i)), (i, 0, 2)),
        sp.Add(*[x[a] * x[b] for a in range(3) for b in range(a + 1)])),
    "shadowed variable": (sp.Sum(sp.Sum(x[i], (i, 0, i)), (i, 0, 2)),
                          3 * x[0] + 2 * x[1] + x[2]),
    "an integral binding the same name": (
        sp.Sum(sp.Integral(i, (i, 0, 1)) * x[i], (i, 1, 2)), (x[1] + x[2]) / 2),
    "inside a function": (sp.exp(sp.Sum(x[i], (i, 1, 3))) / sp.Sum(sp.exp(x[i]), (i, 1, 3)),
                          sp.exp(x[1] + x[2] + x[3]) / sum(sp.exp(x[t]) for t in (1, 2, 3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_written_out_sum_is_its_definition(name):
    expr, expected = CASES[name]
    written = write_out(expr)
    assert not written.has(sp.Sum, sp.Product), written
    written, expected = written.doit(), expected.doit()
    for seed in range(3):
        assert abs(value(written, seed) - value(expected, seed)) <= AGREE * (
            1 + abs(value(expected, seed))), (name, written)


@pytest.mark.parametrize("name", ["plain", "two limits", "product"])
def test_written_out_sum_agrees_with_sympys_doit(name):
    expr, _ = CASES[name]
    done = expr.doit()
    assert not done.has(sp.Sum, sp.Product)
    assert abs(value(write_out(expr)) - value(done)) <= AGREE * (1 + abs(value(done)))


def test_a_reversed_sum_is_empty_not_karrs():
    """The numeric route follows the textbook convention; SymPy's doit follows Karr's (minus
    the sum over 2..3), so the two differ here: that difference is what the numeric route
    witnesses against a claim true only under Karr's."""
    expr = sp.Sum(x[i], (i, 4, 1))
    assert write_out(expr) == 0
    assert sp.simplify(expr.doit() + x[2] + x[3]) == 0


def test_a_symbolic_bound_is_left_to_sympy():
    expr = sp.Sum(x[i], (i, 1, n))
    assert write_out(expr) == expr
    mixed = sp.Sum(x[i] * x[j], (i, 0, 1), (j, 0, n))
    assert write_out(mixed) == sp.Sum(x[0] * x[j] + x[1] * x[j], (j, 0, n))


def test_a_sum_of_very_many_terms_is_left_to_sympy():
    huge = sp.Sum(x[i], (i, 1, 10**9))
    assert write_out(huge) == huge
    closed = sp.Sum(i**2, (i, 1, 10**4))
    assert write_out(closed).doit() == sp.Integer(10**4 * (10**4 + 1) * (2 * 10**4 + 1) // 6)


def test_entries_become_symbols_and_come_back():
    expr = x[1] ** 2 + sp.exp(x[2])
    plain, back = entries_as_symbols(expr)
    assert not plain.atoms(sp.Indexed)
    assert {s.is_real for s in back} == {True}  # the base's assumptions
    assert plain.xreplace(back) == expr
    assert sp.diff(plain, next(s for s, a in back.items() if a == x[1])).xreplace(back) \
        == 2 * x[1]


def test_a_base_at_a_symbolic_index_keeps_its_entries():
    # a derivative by x[k] must still see x[1] (KroneckerDelta(1, k)); as a symbol it would not
    expr = sp.Derivative(x[1] ** 2 + x[k], x[k])
    plain, back = entries_as_symbols(expr)
    assert plain == expr and back == {}
    assert sp.diff(x[1] ** 2, x[k]) != 0
    naive = expr.xreplace({x[1]: sp.Dummy("x1", real=True)})
    assert naive.doit() != expr.doit()  # what the rule prevents: a silent zero


def test_a_base_named_on_its_own_keeps_its_entries():
    expr = x[1] * sp.Symbol("c") + sp.Function("f")(x)
    plain, back = entries_as_symbols(expr)
    assert plain == expr and back == {}


def claim(rhs):
    y = sp.IndexedBase("y", real=True)
    lhs = sp.Derivative(sp.Sum(y[i] ** 2, (i, 1, n)), y[j])
    return Derivation("test_sum_gradient", "gradient of a sum of squares",
                      sp.Eq(lhs, rhs, evaluate=False), (), (Step(rhs, "power rule"),),
                      Domain(dims=(n,), indices={j: (1, n)}))


def test_the_gradient_of_a_written_out_sum_is_proved():
    y = sp.IndexedBase("y", real=True)
    assert verify(claim(2 * y[j])).status == "proved"


@pytest.mark.parametrize("wrong", ["zero", "missing factor", "other entry"])
def test_a_wrong_gradient_of_a_sum_fails(wrong):
    y = sp.IndexedBase("y", real=True)
    rhs = {"zero": sp.Integer(0), "missing factor": y[j], "other entry": 2 * y[1]}[wrong]
    result = verify(claim(rhs))
    assert result.status == "failed" and result.failed_step == 1, result.status


@pytest.mark.parametrize("expr", [
    sp.Sum(x[i], (i, 1, n)),
    sp.Sum(x[i] * x[j], (i, 2, n), (j, 1, n)),
    sp.Sum(sp.Sum(x[j], (j, 1, i)), (i, 1, n)),  # i bounds j: i is left alone
    sp.Sum(x[i], (i, n, 1)),  # empty past n = 2 on both sides
])
def test_sums_shifted_to_start_at_zero_are_the_same_sums(expr):
    from derivations.engine.symbolic.check import _sums_from_zero

    shifted = _sums_from_zero(expr)
    for size in (1, 2, 4):
        a, b = (write_out(e.xreplace({n: size})) for e in (expr, shifted))
        assert abs(value(a) - value(b)) <= AGREE * (1 + abs(value(a))), (expr, shifted, size)


def test_a_shifted_sum_is_not_the_unshifted_one():
    # control: the comparison above sees an index shift that is not compensated
    a = write_out(sp.Sum(x[i], (i, 1, 3)))
    b = write_out(sp.Sum(x[i], (i, 0, 2)))
    assert abs(value(a) - value(b)) > AGREE
