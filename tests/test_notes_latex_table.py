"""The symbol table: what it infers from a note's formulas, what a symbols block corrects, the
conflicts it refuses to settle, and its printed form."""

import pytest
import sympy as sp

from derivations.notes import check_text
from derivations.notes.latex import NotUnderstood, OverrideError, infer, parse_overrides, read


def kinds(formulas, block=""):
    table = infer(formulas, parse_overrides(block))
    return {name: info.describe() for name, info in table.entries.items()}, table


@pytest.mark.parametrize(("formulas", "name", "kind"), [
    ([r"X \in \mathbb{R}^{n \times d}"], "X", "matrix n×d"),
    ([r"X \in \mathbb{R}^{n \times d}"], "n", "size"),
    ([r"z \in \mathbb{R}^n"], "z", "vector n"),
    ([r"x, y \in \mathbb{R}^d"], "x", "vector d"),
    ([r"a \in \mathbb{R}"], "a", "scalar"),
    ([r"W \in \mathbb{R}^{d_{\text{in}} \times d_{\text{out}}}"], "W", "matrix d_in×d_out"),
    ([r"W \in \mathbb{R}^{d_{\text{in}} \times d_{\text{out}}}"], "d_out", "size"),
    ([r"AV \in \mathbb{R}^{n \times d}"], "n", "size"),
    ([r"i = 1, \dots, n"], "i", "index in 1..n"),
    ([r"i \in \{1, \dots, n\}"], "i", "index in 1..n"),
    ([r"\sum_{j=1}^{n} x_j"], "n", "size"),
    ([r"\sum_{j=1}^{n} x_j"], "x", "vector"),
    ([r"m_t = m_{t-1} + g_t"], "t", "index"),
    ([r"m_t = m_{t-1} + g_t"], "g", "vector"),
    ([r"\text{softmax}(z)_i"], "i", "index"),
    ([r"K^\top"], "K", "matrix"),
    ([r"q^\top k"], "q", "vector"),
    ([r"f(x) = x^2"], "f", "function"),
    ([r"\sigma(x)"], "sigma", "function"),
    ([r"\sigma^2"], "sigma", "scalar"),
    ([r"\sigma'(x)"], "sigma", "function"),
    ([r"\Phi", r"\Phi(x)"], "Phi", "function"),
    ([r"f, g", r"f(x) = g(x)^2"], "f", "function"),
    ([r"\sigma'", r"\sigma(x)"], "sigma", "function"),
    ([r"\frac{d\sigma}{dx}", r"\sigma(x)"], "sigma", "function"),
    ([r"e_i = 1", r"i = 1, \dots, n"], "e", "vector"),
    ([r"x = (1, 2)"], "x", "vector"),
    ([r"R(m\theta) = \begin{bmatrix} a & b \\ c & d \end{bmatrix}"], "R", "function"),
    ([r"z \in \mathbb{R}^K", r"s := \operatorname{softmax}(z)"], "s", "vector K"),
    ([r"\mathbf{x} \in \mathbb{R}^{d}", r"x_i"], "x", "vector d"),
])
def test_inferred(formulas, name, kind):
    found, _ = kinds(formulas)
    assert found.get(name) == kind, found


@pytest.mark.parametrize(("formulas", "absent"), [
    ([r"\sum_{k=1}^{n} e^{z_k}", r"\sqrt{d_k}"], "k"),  # a sum's index is local to its sum
    ([r"\sqrt{d_k}"], "d"),
    ([r"W_Q"], "Q"),
    ([r"\beta_1 + \beta_2"], "beta"),
    ([r"\frac{QK^\top}{\sqrt{d_k}}"], "QK"),  # a run is no name
    ([r"AV \in \mathbb{R}^{n \times d}"], "AV"),  # the shape of a product declares no symbol
    ([r"W_Q", r"W_{ij}"], "Q"),  # a capital letter is never inferred as an index
    ([r"x = (1 + 2)"], "x"),  # one value in parentheses is no tuple
    ([r"a(b + c) = ab + ac"], "a"),  # a on the right: a product, no definition
    ([r"p(1 - p) = 0.21"], "p"),  # p in its own argument
    ([r"s := \operatorname{softmax}(z)"], "s"),  # z of no known size
    ([r"PE_{(pos, 2i)}"], "p"),  # pos is one name, its letters no indices
])
def test_not_inferred(formulas, absent):
    found, _ = kinds(formulas)
    assert absent not in found, found


def test_a_sum_index_does_not_make_d_k_an_entry():
    formulas = [r"Z = \sum_{k=1}^{n} e^{z_k}", r"s = \frac{q \cdot k}{\sqrt{d_k}}"]
    table = infer(formulas)
    got = read(formulas[1], table)
    assert got.ok and sp.Symbol("d_k", real=True) in got.expr.free_symbols


def test_a_declaration_wins_and_says_so():
    found, table = kinds([r"\sigma(x) + \sigma^2"], "scalar sigma")
    assert found["sigma"] == "scalar"
    assert not table.conflicts
    assert "declared (symbols block, line 1)" in str(table)
    assert read(r"\sigma(x)", table).text == "sigma·x"


def test_a_conflict_is_listed_and_refused():
    _, table = kinds([r"\sigma(x)", r"\sigma^2"])
    assert "sigma" in table.conflicts
    # σ(1 - σ) as shorthand for σ(x)(1 - σ(x)) uses σ as a value: σ applied to 1 - σ, or σ·(…)?
    assert "sigma" in kinds([r"\sigma(1 - \sigma)", r"\sigma(x)"])[1].conflicts
    assert "CONFLICT" in str(table)
    assert not read(r"\sigma^2", table).ok


def test_rests_on_names_the_formula():
    _, table = kinds([r"a = 1", r"X \in \mathbb{R}^{n \times d}"])
    (ev,) = table["X"].rests_on
    assert (ev.formula, ev.offset) == (1, 0) and "formula 2" in str(ev)


def test_printed_table_has_a_row_per_symbol():
    _, table = kinds([r"X \in \mathbb{R}^{n \times d}", r"i = 1, \dots, n"])
    lines = str(table).splitlines()
    assert lines[0].split() == ["symbol", "kind", "rests", "on"]
    assert {row[0] for row in table.rows()} == {"X", "n", "d", "i"}
    assert len(lines) == 5


def test_symbols_block_syntax():
    block = """
    # a comment
    index    i, j    in 1..n
    size     n, d_k
    matrix   Q, K    : n x d_k
    vector   z       : n
    scalar   \\sigma, e
    function f
    random   X
    label    W^{Q}, x^{(l)}
    name     PE, d_{\\text{model}}
    """
    found, table = kinds([], block)
    assert found["i"] == "index in 1..n" and found["Q"] == "matrix n×d_k"
    assert found["sigma"] == "scalar" and "W^Q" in found and "x^(l)" in found
    assert "d_model" in found and found["X"] == "scalar (random)"
    assert not table.euler()
    assert table.symbol("Q") == sp.MatrixSymbol("Q", sp.Symbol("n", integer=True, positive=True),
                                                sp.Symbol("d_k", integer=True, positive=True))


@pytest.mark.parametrize(("block", "words"), [
    ("vectr z : n", "expected a kind"),
    ("scalar x in 1..n", "only an index has a range"),
    ("index i : n", "only a vector or matrix"),
    ("matrix Q : n", "ROWS x COLS"),
    ("size", "expected symbols"),
    ("scalar \\foo", "no symbol"),
])
def test_symbols_block_errors(block, words):
    with pytest.raises(OverrideError) as exc:
        parse_overrides(block)
    assert words in str(exc.value)
    assert "line 1" in str(exc.value) or "no symbol" in str(exc.value)


def test_what_the_new_inferences_rest_on_is_shown():
    table = infer([r"z \in \mathbb{R}^K", r"s := \operatorname{softmax}(z)", r"x = (1, 2)",
                   r"\mathbf{y} \in \mathbb{R}^{d}", r"y_i"])
    text = str(table)
    assert "softmax of z, a vector of size K" in text
    assert "given a tuple of values" in text
    assert "the entries of \\mathbf{y}, of size d" in text


ATTENTION = [r"Q, K \in \mathbb{R}^{n \times d_k}", r"V \in \mathbb{R}^{n \times d_v}",
             r"S = \frac{QK^\top}{\sqrt{d_k}}, \qquad A = \operatorname{softmax}(S), \qquad O = AV"]


@pytest.mark.parametrize(("formulas", "name", "kind", "rests_on"), [
    # a definition by matrices of known shapes, softmax of such a matrix, a product of them
    (ATTENTION, "S", "matrix n×n", "defined by an expression of shape n×n"),
    (ATTENTION, "A", "matrix n×n", "softmax of S"),
    (ATTENTION, "O", "matrix n×d_v", "defined by an expression of shape n×d_v"),
    # a gradient dX takes X's kind and shape, from the name, before any definition of it
    ([*ATTENTION, r"dA = dO\, V^\top"], "dA", "matrix n×n", "the gradient of A"),
    ([*ATTENTION, r"dA = dO\, V^\top"], "dO", "matrix n×d_v", "the gradient of O"),
    ([*ATTENTION, r"dV = V\, dO^\top"], "dV", "matrix n×d_v", "the gradient of V"),
    ([*ATTENTION, r"dK = dS^\top Q / \sqrt{d_k}"], "dK", "matrix n×d_k", "the gradient of K"),
    ([r"W_Q \in \mathbb{R}^{d \times d_k}", r"dW_Q = X^\top dQ"], "dW_Q", "matrix d×d_k",
     "the gradient of W_Q"),
    ([r"z \in \mathbb{R}^{K}", r"dz = p - y"], "dz", "vector K", "the gradient of z"),
    # a name defined as the derivative by a matrix
    ([r"Y \in \mathbb{R}^{n \times m}", r"G := \frac{\partial L}{\partial Y}"], "G",
     "matrix n×m", "defined as its derivative ∂/∂Y"),
    # a subscripted name declared, and a dimension that is a multiple of a size
    ([r"W_Q, W_K \in \mathbb{R}^{d \times d_k}"], "W_Q", "matrix d×d_k", "declared"),
    ([r"W_1 \in \mathbb{R}^{d \times 4d}"], "W_1", "matrix d×4*d", "declared"),
])
def test_kinds_from_definitions_and_gradients(formulas, name, kind, rests_on):
    found, table = kinds(formulas)
    assert found.get(name) == kind, found
    assert rests_on in "; ".join(str(e) for e in table[name].rests_on)


@pytest.mark.parametrize(("formulas", "name", "kind"), [
    # near misses: numbers written out are an example's value, not a shape
    ([r"A = \begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}"], "A", None),
    # a factor of no known kind (c) leaves the body's shape unknown
    ([r"Q \in \mathbb{R}^{n \times d}", r"S = cQ"], "S", None),
    # the gradient of a name the note never shows a shape for stays a scalar
    ([r"dZ = 1"], "dZ", None),
    # two sizes side by side are no gradient: dV is d·V
    ([r"W_E \in \mathbb{R}^{V \times d}", r"dV = 38597376"], "dV", None),
    # a gradient keeps its forward's shape against a definition of another shape
    ([*ATTENTION, r"dA = V^\top V"], "dA", "matrix n×n"),
    # a matrix with entries taken as a whole is a scalar factor for SymPy: no shape from it
    ([r"V \in \mathbb{R}^{n \times d}", r"A_{ij} = 1", r"O = AV"], "O", None),
    # an entry declared is no name: x_i \in \mathbb{R}
    ([r"x_i \in \mathbb{R}"], "x_i", None),
    # a declared kind wins over the gradient rule
    ([*ATTENTION, r"dO"], "dO", "scalar"),
])
def test_kinds_not_taken(formulas, name, kind):
    block = "scalar dO" if formulas[-1] == r"dO" else ""
    found, _ = kinds(formulas, block)
    assert found.get(name) == kind, found


def test_gradient_reads_as_a_matrix_of_its_forward_shape():
    table = infer([*ATTENTION, r"dA = dO\, V^\top"])
    got = read(r"dA = dO\, V^\top", table)
    assert got.ok, str(got)
    n = sp.Symbol("n", integer=True, positive=True)
    lhs, rhs = got.expr.args
    assert lhs == sp.MatrixSymbol("dA", n, n) and rhs.shape == (n, n)


@pytest.mark.parametrize("formula, reading", [
    (r"\eta_t = \eta_{\max} \cos\frac{\pi t}{T}", "eta[t]"),  # t a value on the right
    (r"\beta_t = \beta^t", "beta_t"),  # β used bare beside it: no sequence
    (r"\eta_t = \eta_{\max} \cdot 2", "eta_t"),  # t nowhere on the right: a name
])
def test_a_subscript_the_right_side_uses_as_a_value_makes_entries(formula, reading):
    got = read(formula, infer([formula]))
    assert not isinstance(got, NotUnderstood), got
    assert got.text.startswith(reading + " ="), got.text


def test_the_symbol_table_gives_each_piece_of_evidence_once():
    text = ("均值 $\\mu = \\frac{1}{d}\\sum_{i=1}^{d} x_i$。\n\n"
            "$\\frac{e^{z_i + c}}{\\sum_{j=1}^{n} e^{z_j + c}} = "
            "\\frac{e^{z_i}}{\\sum_{j=1}^{n} e^{z_j}}$\n\n另有 $z_k$，$k = 1, \\dots, n$。\n")
    rows = {r.name: r.rests_on for r in check_text(text).symbols}
    pieces = rows["z"].split("; ")
    assert len(pieces) == len(set(pieces)), rows["z"]
    # distinct evidence is all there: the formula that writes z_i four times, and the other
    assert "subscripted by an index (formula 2)" in pieces
    assert "subscripted by an index (formula 3)" in pieces
