"""The rules of READING.md that rest on a whole note (what other formulas of the note show), and
the refusals of constructs Transformer notes write that would otherwise be misread silently.
Each rule has a near miss beside it: an input one step away that must read otherwise, or be
refused."""

import pytest

from derivations.notes.latex import (
    first_difference,
    infer,
    parse_expected,
    parse_overrides,
    read,
    same_reading,
)


def read_last(formulas, symbols=""):
    """The last formula read under the table of all of them (a note, in order)."""
    table = infer(formulas, parse_overrides(symbols.replace(" | ", "\n")))
    return read(formulas[-1], table), table


# (the note's formulas, the last one read; symbols block; expected reading)
READ = [
    # a derivative by a vector or matrix with entries taken as a whole
    ([r"z \in \mathbb{R}^K", r"z_i", r"\nabla_z L = p - y"], "",
     "Eq(Derivative(L, z), p - y)"),
    ([r"s_i", r"z_j", r"J = \frac{\partial s}{\partial z}"], "",
     "Eq(J, Derivative(s, z))"),
    ([r"g_t = \nabla_\theta L"], "", "Eq(g_t, Derivative(L, theta))"),
    # near miss: a product in parentheses after the operator stays a product
    ([r"\frac{\partial}{\partial x} a(b + c)"], "", "Derivative(a*(b + c), x)"),
]


@pytest.mark.parametrize(("formulas", "symbols", "want"), READ,
                         ids=[r[0][-1] for r in READ])
def test_read_in_a_note(formulas, symbols, want):
    got, table = read_last(formulas, symbols)
    assert got.ok, str(got)
    expected = parse_expected(want, table)
    assert same_reading(got.expr, expected), first_difference(got.expr, expected)


# (the note's formulas, the last one refused; symbols; the token refused; a word of why)
REFUSED = [
    # a gradient at a point: L(θ) with L no function is no product to differentiate
    ([r"g_t = \nabla_\theta L(\theta_{t-1})"], "", "L", "gradient at a point"),
    ([r"\frac{\partial}{\partial x} L(x)"], "", "L", "gradient at a point"),
]


@pytest.mark.parametrize(("formulas", "symbols", "token", "why"), REFUSED,
                         ids=[r[0][-1] for r in REFUSED])
def test_refused_in_a_note(formulas, symbols, token, why):
    got, _ = read_last(formulas, symbols)
    assert not got.ok, f"read as {got.text}"
    assert got.token == token and why in got.why, str(got)
    assert formulas[-1][got.offset:].startswith(got.token)


def test_a_declared_function_makes_the_gradient_at_a_point_readable():
    got, table = read_last([r"g_t = \nabla_\theta L(\theta_{t-1})"], "function L")
    assert got.ok, str(got)
    want = parse_expected("Eq(g[t], Derivative(L(theta[t - 1]), theta))", table)
    assert same_reading(got.expr, want), first_difference(got.expr, want)
