"""The reading language: every construct of READING.md read as the spec says, the traps that
other readers misread, and the refusals (token and offset) of what is outside the language."""

import pytest

from derivations.notes.latex import (
    first_difference,
    infer,
    parse_expected,
    parse_overrides,
    read,
    same_reading,
)


def reading(latex, symbols=""):
    table = infer([latex], parse_overrides(symbols))
    return read(latex, table), table


# (LaTeX, symbols block, expected reading)
CONSTRUCTS = [
    # symbols, Greek, decorations, names
    (r"x + W + Q", "", "x + W + Q"),
    (r"\alpha\beta", "", "alpha*beta"),
    (r"\epsilon + \varepsilon", "", "epsilon + varepsilon"),
    (r"\hat{x} + \tilde{x} + \bar{x} + \overline{y}", "", "hat_x + tilde_x + bar_x + bar_y"),
    (r"\mathbf{x} + \boldsymbol{x} + x", "", "bf_x + bf_x + x"),
    (r"\hat x", "", "hat_x"),
    (r"x'", "", "x_prime"),
    (r"W_Q + d_k + \beta_1", "", "W_Q + d_k + beta_1"),
    (r"d_{\text{model}}", "", "d_model"),
    (r"\sigma_\varepsilon", "", "sigma_varepsilon"),
    (r"W^{Q} + W^Q", "", 'S("W^Q") + S("W^Q")'),
    (r"x^{(l)}", "", 'S("x^(l)")'),
    (r"\pi r^2", "", "pi*r**2"),
    (r"e^{x}", "", "exp(x)"),
    (r"e", "", "e"),
    (r"e_i + e", "index i in 1..n", "e[i] + e"),
    # numbers
    (r"12 + 3.14", "", "12 + 3.14"),
    (r"0.5", "", "Rational(1, 2)"),
    (r"\frac12", "", "1/2"),
    (r"\frac{1}{2}", "", "1/2"),
    (r"\dfrac{a}{b} + \tfrac{c}{d}", "", "a/b + c/d"),
    # operators
    (r"a - b", "", "a - b"),
    (r"-a", "", "-a"),
    (r"-2", "", "-2"),
    (r"a \cdot b \times c * d", "", "a*b*c*d"),
    (r"a / b", "", "a/b"),
    (r"a^{b+1}", "", "a**(b + 1)"),
    (r"x^{-1}", "", "x**(-1)"),
    (r"\sqrt{x} + \sqrt[3]{y}", "", "sqrt(x) + root(y, 3)"),
    (r"\sqrt x", "", "sqrt(x)"),
    (r"\exp(u) + \exp u", "", "exp(u) + exp(u)"),
    (r"\log x + \ln(y)", "", "log(x) + log(y)"),
    (r"\sin x \cos y", "", "sin(x)*cos(y)"),
    (r"\tanh(u) + \sinh(u) + \cosh(u)", "", "tanh(u) + sinh(u) + cosh(u)"),
    (r"\max(0, x) + \min(a, b)", "", "Max(0, x) + Min(a, b)"),
    (r"\sin^2 x", "", "sin(x)**2"),
    (r"\log(x)^2", "", "log(x)**2"),
    (r"\max_j z_j", "size n | vector z : n", "MaxOver(z[j], (j, 1, n))"),
    # sums and products
    (r"\sum_{j=1}^{n} x_j", "", "Sum(x[j], (j, 1, n))"),
    (r"\sum_{i=1}^n x_i + 1", "", "Sum(x[i], (i, 1, n)) + 1"),
    (r"\sum_{i=1}^n a_i \cdot b_i", "", "Sum(a[i]*b[i], (i, 1, n))"),
    (r"\prod_{i=1}^{t} \beta_i", "", "Product(beta[i], (i, 1, t))"),
    (r"\sum_j x_j", "index j in 1..m", "Sum(x[j], (j, 1, m))"),
    (r"\sum_{i,j} A_{ij}", "index i, j in 1..n", "Sum(Sum(A[i, j], (j, 1, n)), (i, 1, n))"),
    (r"\sum_{i=1}^{n} \sum_{j=1}^{n} x_i y_j",
     "", "Sum(Sum(x[i]*y[j], (j, 1, n)), (i, 1, n))"),
    # transposes, Hadamard, norms, absolute values
    (r"x^\top y", "", "transpose(x)*y"),
    (r"A^{\top} + B^{\mathsf T} + C^\intercal + D^{\mathsf{T}}", "",
     "transpose(A) + transpose(B) + transpose(C) + transpose(D)"),
    (r"X^T", "", "transpose(X)"),
    (r"X^T", "size T", "NotUnderstood"),
    (r"a^T", "scalar T", "NotUnderstood"),
    (r"a^T", "scalar T, a", "a**T"),
    (r"q_i^T k_j", "size T", "NotUnderstood"),  # a row transposed, or a power T?
    (r"q_i^\top k_j", "size T", "transpose(q[i])*k[j]"),
    (r"A \odot B", "size n | matrix A, B : n x n", "odot(A, B)"),
    (r"\|x\| + \lVert y \rVert + \left\| z \right\|", "", "Norm(x) + Norm(y) + Norm(z)"),
    (r"\|x\|_1 + \|x\|_2", "", "Norm(x, 1) + Norm(x, 2)"),
    (r"\|X\|_F", "", 'Norm(X, "F")'),
    (r"|x| + \lvert y \rvert + \left| z \right|", "", "Abs(x) + Abs(y) + Abs(z)"),
    (r"|a - b| \le |a| + |b|", "", "Le(Abs(a - b), Abs(a) + Abs(b))"),
    # matrices, tuples
    (r"\begin{bmatrix} a & b \\ c & d \end{bmatrix}", "", "Matrix([[a, b], [c, d]])"),
    (r"(a, b)", "", "Tuple(a, b)"),
    # expectation, variance
    (r"\mathbb{E}[X]", "random X", "E(X)"),
    (r"\mathbb{E}_{x}[f]", "", "E(f)"),
    (r"\operatorname{Var}(X) + \mathrm{Var}[Y] + \text{Var}(Z)", "", "Var(X) + Var(Y) + Var(Z)"),
    # derivatives
    (r"\frac{\partial L}{\partial z_i}", "index i in 1..n", "Derivative(L, z[i])"),
    (r"\frac{dy}{dx}", "", "Derivative(y, x)"),
    (r"\frac{\mathrm{d}y}{\mathrm{d}x}", "", "Derivative(y, x)"),
    (r"\frac{d^2 y}{dx^2}", "", "Derivative(y, (x, 2))"),
    (r"\frac{\partial^2 f}{\partial x \partial y}", "scalar f", "Derivative(f, y, x)"),
    (r"\frac{\partial}{\partial x}(a+b)", "", "Derivative(a + b, x)"),
    (r"\frac{d}{dx} f(x)", "", "Derivative(f(x), x)"),
    (r"\nabla_{W} L", "", "Derivative(L, W)"),
    # relations and chains
    (r"a = b", "", "Eq(a, b)"),
    (r"a := b", "", "Define(a, b)"),
    (r"a \coloneqq b", "", "Define(a, b)"),
    (r"a \approx b", "", "Approx(a, b)"),
    (r"a \le b \leq c", "", "Chain(Le(a, b), Le(b, c))"),
    (r"a \ge b", "", "Ge(a, b)"),
    (r"a \ne b", "", "Ne(a, b)"),
    (r"a < b > c", "", "Chain(Lt(a, b), Gt(b, c))"),
    (r"a = b = c \approx d", "", "Chain(Eq(a, b), Eq(b, c), Approx(c, d))"),
    # declarations, separators, spacing, sizes of brackets
    (r"z \in \mathbb{R}^n", "", "In(z, R(n))"),
    (r"x \in \mathbb{R}", "", "In(x, R())"),
    (r"x, y \in \mathbb{R}^d", "", "Formulas(In(x, R(d)), In(y, R(d)))"),
    (r"i \in \{1, \dots, n\}", "", "In(i, Range(1, n))"),
    (r"a = b,\quad c = d", "", "Formulas(Eq(a, b), Eq(c, d))"),
    (r"a = b \qquad c = d", "", "Formulas(Eq(a, b), Eq(c, d))"),
    (r"a = b;\ c = d", "", "Formulas(Eq(a, b), Eq(c, d))"),
    (r"a = b \text{ and } c = d", "", "Formulas(Eq(a, b), Eq(c, d))"),
    (r"a\,b\;c\!d", "", "a*b*c*d"),
    (r"\left( a + b \right) \Big( c \Big) \bigl[ d \bigr]", "", "(a + b)*c*d"),
    (r"a = b.", "", "Eq(a, b)"),
    (r"\begin{aligned} a &= b \\ &= c \end{aligned}", "", "Chain(Eq(a, b), Eq(b, c))"),
    (r"\begin{align*} a &= b \\ c &= d \end{align*}", "", "Formulas(Eq(a, b), Eq(c, d))"),
]

TRAPS = [
    # the subscript belongs to the result, not to z
    (r"\text{softmax}(z)_i", "size n | vector z : n | index i in 1..n", "softmax(z)[i]"),
    # \hat{x}_i is entry i of hat_x
    (r"\hat{x}_i", "index i in 1..d", "hat_x[i]"),
    # Adam: g_1 is a name; decimals exact; nothing evaluated
    (r"g_1=0.5+0.1\times2=0.7", "", "Chain(Eq(g_1, 0.5 + 0.1*2), Eq(0.5 + 0.1*2, 0.7))"),
    # gamma is no function
    (r"\gamma_i x", "index i in 1..d", "gamma[i]*x"),
    (r"\gamma(x)", "", "NotUnderstood"),  # one factor: a function applied, or a product?
    # a tuple, not an interval
    (r"(3,4)", "", "Tuple(3, 4)"),
    # a product, not an application
    (r"a(b+c)", "", "a*(b + c)"),
    # a name with two capital letters, not V_{A*B}
    (r"V_{AB}", "", "V_AB"),
    # the two roots
    (r"\sqrt{1/n}", "", "sqrt(1/n)"),
    (r"1/\sqrt n", "", "1/sqrt(n)"),
    # e as Euler's number, and e as a symbol when declared
    (r"e^{x}", "scalar e", "e**x"),
    # Leibniz
    (r"\frac{dy}{dx}", "", "Derivative(y, x)"),
    (r"\frac{d}{d_k}", "", "d/d_k"),
    # tan(a) - b, never tan(a - b)
    (r"\tan(a) - b", "", "tan(a) - b"),
    # d_k stays a name although k is a sum's index elsewhere in the same formula
    (r"\sqrt{d_k} \sum_k x_k", "index k in 1..n", "sqrt(d[k])*Sum(x[k], (k, 1, n))"),
    (r"\sqrt{d_k} + \sum_{k=1}^{n} x_k", "", "sqrt(d_k) + Sum(x[k], (k, 1, n))"),
    # QK^T is Q times the transpose of K
    (r"QK^T", "", "Q*transpose(K)"),
    # XW_Q is X times W_Q
    (r"XW_Q", "", "X*W_Q"),
    # sigma applied is the sigmoid; sigma^2 is a symbol squared
    (r"\sigma(z)", "", "sigmoid(z)"),
    (r"\sigma^2", "", "sigma**2"),
]


@pytest.mark.parametrize(("latex", "symbols", "want"), CONSTRUCTS + TRAPS,
                         ids=[c[0] for c in CONSTRUCTS + TRAPS])
def test_reading(latex, symbols, want):
    got, table = reading(latex, symbols.replace(" | ", "\n"))
    if want == "NotUnderstood":
        assert not got.ok, f"read as {got.text}"
        return
    assert got.ok, str(got)
    expected = parse_expected(want, table)
    assert same_reading(got.expr, expected), first_difference(got.expr, expected)
    assert got.latex and got.text


# (LaTeX, symbols, the token refused, its offset, a word of why)
REFUSED = [
    (r"\lim_{x \to 0} x", "", r"\lim", 0, "macro"),
    (r"\int_0^1 x", "", r"\int", 0, "no differential"),
    (r"\foo x", "", r"\foo", 0, "macro"),
    (r"a + {b", "", "{", 4, "unbalanced"),
    (r"a + b}", "", "}", 5, "unbalanced"),
    (r"(a + b", "", "", 6, "ends too early"),
    (r"\log 2x", "", "x", 6, "ambiguous"),
    (r"\sin xy", "", "xy", 5, "ambiguous"),
    (r"x 2", "", "2", 2, "number after a factor"),
    (r"x^12", "", "12", 2, "first digit"),
    (r"x_ij", "", "ij", 2, "only 'i'"),
    (r"loss = 1", "", "loss", 0, "no name"),
    (r"\sum_j x_j", "", "j", 5, "range of j"),
    (r"x'(t)", "", "x", 0, "no function"),
    (r"\sigma(x) + \sigma^2", "", r"\sigma", 0, "declare"),
    (r"a(b, c)", "", "(", 1, "no function"),
    (r"h^{(l+1)}", "", "(", 3, "label"),
    (r"\sum_{j \ne i} x_j", "", "j", 6, "conditions"),
    (r"\text{softmax} z", "", r"\text{softmax}", 0, "parentheses"),
    (r"\nabla L", "", "L", 7, "expected"),
    (r"a = \text{softmax(相似度)} \times b", "", r"\text{softmax(相似度)}", 4, "prose"),
    (r"\log_2 x", "", r"\log", 0, "\\log_b"),
    (r"p(y \mid x)", "", r"\mid", 4, "macro"),
    (r"x \in y", "", "y", 6, "after ∈"),
    (r"1{,}5", "", ",", 2, "not expected"),
]


@pytest.mark.parametrize(("latex", "symbols", "token", "offset", "why"), REFUSED,
                         ids=[r[0] for r in REFUSED])
def test_refused(latex, symbols, token, offset, why):
    got, _ = reading(latex, symbols)
    assert not got.ok, f"{latex} was read as {got.text}"
    assert (got.token, got.offset) == (token, offset), str(got)
    assert why in got.why, got.why
    assert latex[got.offset:].startswith(got.token)


# a wrong expected reading must compare unequal: (LaTeX, symbols, a near miss)
NEAR_MISSES = [
    (r"\frac{\partial L}{\partial z_i} = p_i - y_i", "index i in 1..n",
     "Eq(Derivative(L, z[i]), p[i])"),  # a dropped term
    (r"(a - b) c", "", "a - b*c"),  # a bracket moved
    (r"a - b", "", "b - a"),  # a sign
    (r"0.5 x", "", "1/2*x"),  # a number written as a quotient
    (r"g_1 = 0.5 + 0.1 \times 2", "", "Eq(g_1, 0.7)"),  # evaluated
    (r"\sqrt{1/n}", "", "1/sqrt(n)"),
    (r"QK^\top", "size n | matrix Q, K : n x n", "K.T*Q"),  # matrices do not commute
    (r"\sum_{j=1}^{n} e^{z_j}", "", "Sum(exp(z[j]), (j, 0, n))"),  # a bound
    (r"x_i", "index i in 1..n", "x_i"),  # an entry against a name
    (r"a \le b", "", "Lt(a, b)"),  # a relation
]


@pytest.mark.parametrize(("latex", "symbols", "wrong"), NEAR_MISSES,
                         ids=[n[0] for n in NEAR_MISSES])
def test_a_wrong_expected_reading_compares_unequal(latex, symbols, wrong):
    got, table = reading(latex, symbols.replace(" | ", "\n"))
    assert got.ok, str(got)
    assert not same_reading(got.expr, parse_expected(wrong, table))
    assert first_difference(got.expr, parse_expected(wrong, table))


def test_commutative_order_is_free_but_matrix_order_is_not():
    got, table = reading(r"a b + c", "")
    assert same_reading(got.expr, parse_expected("c + b*a", table))
    got, table = reading(r"2x", "")
    assert same_reading(got.expr, parse_expected("x*2", table))


@pytest.mark.parametrize("junk", [
    "", "}", "{", "^", "_", "\\", "\\frac", "\\frac{a}", "\\sqrt", "|", "\\|", "\\left(",
    "\\begin{pmatrix} a & b \\\\ c \\end{pmatrix}", "\\begin{cases} a \\end{cases}", "= a",
    "a ==", "\\sum", "\\sum_{}", "\\frac{\\partial}{\\partial}", "x_{}", "x^{}", "((a)", "a))",
    "\\hat{}", "\\mathbb{Q}", "$x$", "a \\in", "\\nabla_", "1.", "..", "x''(t)", "中文",
    "\\text{}", "W_i^Q_j", "\\log_", "\\max_{j}", "X_{ijk}^{(l)}", "\\operatorname{}(x)",
])
def test_junk_is_refused_never_raised(junk):
    got, _ = reading(junk)
    assert got.ok in (True, False)
    if not got.ok:
        assert 0 <= got.offset <= len(junk) and got.why
