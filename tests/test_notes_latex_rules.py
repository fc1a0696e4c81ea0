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
    # near misses of the two refusals below: an entry with a comma, a declared vector's
    # entry twelve, the absolute value of an entry, the norm of the whole vector
    ([r"dS_{ij} = A_{ij}", r"dS_{1,2} = 3"], "", "Eq(dS[1, 2], 3)"),
    ([r"x \in \mathbb{R}^{n}", r"x_1 = 2", r"x_{12} = 3"], "", "Eq(x[12], 3)"),
    ([r"g \in \mathbb{R}^n", r"|g_1| = 3"], "", "Eq(Abs(g[1]), 3)"),
    ([r"g \in \mathbb{R}^n", r"\|g\| = 7"], "", "Eq(Norm(g), 7)"),
    # a derivative by a vector or matrix with entries taken as a whole
    ([r"z \in \mathbb{R}^K", r"z_i", r"\nabla_z L = p - y"], "",
     "Eq(Derivative(L, z), p - y)"),
    ([r"s_i", r"z_j", r"J = \frac{\partial s}{\partial z}"], "",
     "Eq(J, Derivative(s, z))"),
    ([r"g_t = \nabla_\theta L"], "", "Eq(g_t, Derivative(L, theta))"),
    # near miss: a product in parentheses after the operator stays a product
    ([r"\frac{\partial}{\partial x} a(b + c)"], "", "Derivative(a*(b + c), x)"),
    # gradients named d + the forward name are one name, never d times a matrix
    ([r"O = AV", r"dA = dO\, V^\top"], "", "Eq(dA, dO*V.T)"),
    ([r"dV = A^\top dO"], "", "Eq(dV, A.T*dO)"),
    ([r"dW_Q = X^\top dQ"], "", "Eq(dW_Q, X.T*dQ)"),
    # d + a lowercase letter too
    ([r"dW = X^\top dY", r"db = \sum_{i=1}^{n} dY_i"], "", "Eq(db, Sum(dY[i], (i, 1, n)))"),
    ([r"dz = s \odot (ds - (ds \cdot s))"], "", "Eq(dz, odot(s, ds - ds*s))"),
    # near misses: two sizes side by side, a lowercase run, a Leibniz fraction
    ([r"W_E \in \mathbb{R}^{V \times d}", r"dV = 38597376"], "", "Eq(d*V, 38597376)"),
    ([r"d x + d\, y"], "", "d*x + d*y"),
    ([r"X \in \mathbb{R}^{n \times d}", r"d\sigma^2"], "", "d*sigma**2"),
    ([r"\frac{dO}{dX}"], "", "Derivative(O, X)"),
    # pos and PE, the names of the sinusoidal encoding
    ([r"PE_{(pos, 2i)} = \sin(pos / 10000^{2i/d})"], "",
     "Eq(PE[pos, 2*i], sin(pos/10000**(2*i/d)))"),
    ([r"PE_{(pos, 2i)}", r"PE_{(1,0)} = \sin 1 \approx 0.841"], "",
     "Chain(Eq(PE[1, 0], sin(1)), Approx(sin(1), 0.841))"),
    # near misses: a spaced product, and the letters of pos inferred as no indices
    ([r"P E"], "", "P*S('E')"),
    ([r"PE_{(pos, 2i)}", r"p + o + s"], "", "p + o + s"),
    # R(m theta) = [matrix] defines R: R occurs neither in its argument nor on the right
    ([r"R(m\theta) = \begin{bmatrix} a & b \\ c & d \end{bmatrix}",
      r"R(\alpha)R(\beta) = R(\alpha + \beta)"], "",
     'Eq(S("R")(alpha)*S("R")(beta), S("R")(alpha + beta))'),
    ([r"R(m\theta) = \begin{bmatrix} a & b \\ c & d \end{bmatrix}",
      r"R(\alpha)^\top R(\alpha) = I"], "", 'Eq(S("R")(alpha).T*S("R")(alpha), I)'),
    # near misses: the letter on the right side, or in its own argument, keeps a product
    ([r"a(b + c) = ab + ac", r"a(b + c)"], "", "a*(b + c)"),
    ([r"p(1 - p) = 0.21", r"p(1 - p)"], "", "p*(1 - p)"),
    ([r"k(x - 1) = 0", r"k(x + 1)"], "", "k*(x + 1)"),
    ([r"R(m\theta) = R m \theta", r"R(\alpha + \beta)"], "", "S('R')*(alpha + beta)"),
    # x = (1, 2) gives x entries: x_1 is then its first entry
    ([r"x = (1, 2)", r"(x_1, x_2)"], "", "Tuple(x[1], x[2])"),
    # near misses: one value in parentheses is no tuple; without it, x_1 is a name
    ([r"x = (1 + 2)", r"(x_1, x_2)"], "", "Tuple(x_1, x_2)"),
    ([r"(x_1, x_2)"], "", "Tuple(x_1, x_2)"),
    # s := softmax(z) with z of size K is of size K: an unbounded sum over s runs to K
    ([r"z \in \mathbb{R}^K", r"s := \operatorname{softmax}(z)", r"\sum_i s_i = 1"], "",
     "Eq(Sum(s[i], (i, 1, K)), 1)"),
    ([r"x \in \mathbb{R}^d", r"y = \mathrm{ReLU}(x)", r"\sum_j y_j"], "",
     "Sum(y[j], (j, 1, d))"),
    # the entries of a bold vector are written in plain type
    ([r"\mathbf{x} \in \mathbb{R}^{d}", r"\mu = x_1", r"\sum_i (x_i - \mu) = 0"], "",
     "Eq(Sum(x[i] - mu, (i, 1, d)), 0)"),
    # near miss: a plain vector declared with its own size keeps it
    ([r"\mathbf{x} \in \mathbb{R}^{d}", r"x \in \mathbb{R}^{n}", r"\sum_i x_i"], "",
     "Sum(x[i], (i, 1, n))"),
    # near misses of one factor in parentheses: a declared matrix, a declared function, a sum
    ([r"W \in \mathbb{R}^{d \times d}", r"W(x)"], "", "W*x"),
    ([r"x_{l+1} = x_l + F(x_l)"], "function F", "Eq(x[l + 1], x[l] + F(x[l]))"),
    ([r"\gamma(x + 1)"], "", "gamma*(x + 1)"),
    ([r"\gamma(x)"], "scalar gamma", "gamma*x"),
    # near misses of the code-style numbers: e after a number as Euler's number
    ([r"2e^{x}"], "", "2*exp(x)"),
    ([r"10^{-5}"], "", "10**(-5)"),
    # near miss of the conflicting subscript: declared, y is an index
    ([r"y_i = 1", r"p_i = 0.5", r"L = -\log p_y"], "index y in 1..K", "Eq(L, -log(p[y]))"),
    # near misses of the subscripted function: an entry of its result, a named entry
    ([r"\alpha_{ij} = \mathrm{softmax}(e_i)_j"], "index i, j in 1..n",
     "Eq(alpha[i, j], softmax(e[i])[j])"),
    ([r"\text{head}_i = \text{Attention}(Q, K, V)"], "", 'Eq(S("head")[i], Attention(Q, K, V))'),
    ([r"\text{lr}_t (1 - \beta)"], "", "lr_t*(1 - beta)"),
    # near misses of the lowercase runs: both letters alone elsewhere, or declared
    ([r"w = 0.5", r"F(x) = wx"], "", "Eq(F(x), w*x)"),
    ([r"lr = 0.001"], "name lr", "Eq(lr, 0.001)"),
    # near misses of the comma rule: relations separated by commas
    ([r"\beta_1 = 0.9, \beta_2 = 0.999"], "", "Formulas(Eq(beta_1, 0.9), Eq(beta_2, 0.999))"),
    ([r"V = 50257"], "", "Eq(V, 50257)"),
    # near misses of the divisor: one factor, an application, a fraction
    ([r"\eta \hat{m}_t / \sqrt{\hat{v}_t}"], "", "eta*hat_m_t/sqrt(hat_v_t)"),
    ([r"x / \mathrm{RMS}(x)"], "", "x/RMS(x)"),
    ([r"\frac{1}{2} x^2"], "", "1/2*x**2"),
    # near misses of the change: a subscripted Delta, the Kronecker delta
    ([r"\Delta_t = 1"], "", "Eq(Delta_t, 1)"),
    ([r"\delta_{ij} x"], "", "KroneckerDelta(i, j)*x"),
    # near misses of the unit letters: a product of symbols, a spaced factor, a known symbol
    ([r"C \approx 6ND"], "", "Approx(C, 6*N*D)"),
    ([r"M \in \mathbb{R}^{n \times n}", r"2M"], "", "2*M"),
    # near misses of the superscript runs: spaced factors, an upright label, e's exponent
    ([r"x^{a b}"], "", "x**(a*b)"),
    ([r"y^{\text{LS}}"], "", 'S("y^LS")'),
    ([r"x + y", r"e^{xy}"], "", "exp(x*y)"),
    # a labelled name in a Leibniz denominator is the variable
    ([r"\frac{\partial L}{\partial x^{(l)}} = g"], "", 'Eq(Derivative(L, S("x^(l)")), g)'),
    ([r"\frac{\partial L}{\partial W^{Q}}"], "", 'Derivative(L, S("W^Q"))'),
    # near miss: a power in the denominator is still an order
    ([r"\frac{\partial^2 y}{\partial x^2}"], "", "Derivative(y, (x, 2))"),
    # near misses: a number or a declared scalar takes the power; a letter no symbol is a label
    ([r"n \in \mathbb{R}^{N}", r"2^N"], "", "2**N"),
    ([r"n \in \mathbb{R}^{N}", r"x^N"], "scalar x", "x**N"),
    ([r"W^Q"], "", 'S("W^Q")'),
    ([r"e_{ij} = q_i^\top k_j", r"\alpha = \exp(x)"], "", "Eq(alpha, exp(x))"),
    # an equation's number or label is layout
    ([r"L = -\log p \tag{1}"], "", "Eq(L, -log(p))"),
    ([r"a = b \label{eq:ab} \nonumber"], "", "Eq(a, b)"),
    # near misses of the shapes: × with a number, or in a relation, is a product
    ([r"X \in \mathbb{R}^{n \times d}", r"4 \times d"], "", "4*d"),
    ([r"X \in \mathbb{R}^{n \times d}", r"n \times d = 6"], "", "Eq(n*d, 6)"),
    ([r"(2 \times 3) + 1"], "", "2*3 + 1"),
    ([r"(2 \times 3) \times (4 \times 5)"], "", "2*3*(4*5)"),
    # near misses of the units: an upright name applied after a number
    ([r"2\,\mathrm{Var}(x)"], "", "2*Var(x)"),
    ([r"2\,\mathrm{Std}(x)"], "", "2*Std(x)"),
    # near misses of indexing: brackets around a sum group it
    ([r"\eta[g + \lambda\theta]"], "", "eta*(g + S('lambda')*theta)"),
    ([r"\mathbb{E}[X]"], "", "E(X)"),
    # near misses of the imaginary unit: i as an index
    ([r"PE_{(pos, 2i)} = \sin(pos / 10000^{2i/d})"], "name PE, pos",
     "Eq(PE[pos, 2*i], sin(pos/10000**(2*i/d)))"),
    ([r"x_{i+1} - x_i"], "", "x[i + 1] - x[i]"),
    ([r"i x_2"], "index i in 1..n", "i*x_2"),
    ([r"\sum_{i=1}^{n} i x_i"], "", "Sum(i*x[i], (i, 1, n))"),
    # near miss of the bare lists: relations separated by commas are separate formulas
    ([r"Q = XW_Q, K = XW_K"], "", "Formulas(Eq(Q, X*W_Q), Eq(K, X*W_K))"),
    ([r"pos = 1, i = 0"], "name pos", "Formulas(Eq(pos, 1), Eq(i, 0))"),
    # a prime on a function applied to one plain variable is its derivative by that variable
    ([r"\sigma'(x) = \sigma(x)(1 - \sigma(x))"], "",
     "Eq(Derivative(sigmoid(x), x), sigmoid(x)*(1 - sigmoid(x)))"),
    ([r"f''(x) = 2"], "", "Eq(Derivative(f(x), (x, 2)), 2)"),
    ([r"\tanh'(x) = 1 - \tanh^2(x)"], "", "Eq(Derivative(tanh(x), x), 1 - tanh(x)**2)"),
    ([r"\mathrm{GELU}'(x) = \Phi(x) + x\,\phi(x)"], "",
     "Eq(Derivative(GELU(x), x), Phi(x) + x*phi(x))"),
    ([r"g(x) = x^2", r"g'(u)^2"], "", "Derivative(g(u), u)**2"),
    # near misses: a prime on a symbol is a name; a declared function takes the prime
    ([r"y' = 2x"], "", "Eq(y_prime, 2*x)"),
    ([r"L'(\theta)"], "function L", "Derivative(L(theta), theta)"),
    # a default function letter only named ($\Phi$ is the normal CDF) stays a function
    ([r"\Phi", r"\operatorname{GELU}(x) = x\,\Phi(x)"], "", "Eq(GELU(x), x*Phi(x))"),
    ([r"\Phi(x)", r"\Phi"], "", "Phi"),
    ([r"\sigma", r"\sigma'(x)", r"x\,\sigma(1.702x)"], "", "x*sigmoid(1.702*x)"),
    ([r"\Phi^{-1}(p)", r"\Phi(x)"], "", "Phi(x)"),
    # a matrix with entries defined by matrices of known shapes takes the shape: sums over its
    # entries take their range from it
    ([r"Q, K \in \mathbb{R}^{n \times d_k}", r"S = QK^\top / \sqrt{d_k}",
      r"A = \mathrm{softmax}(S)", r"D_i = \sum_j dA_{ij} A_{ij}"], "",
     "Eq(D[i], Sum(dA[i, j]*A[i, j], (j, 1, n)))"),
    # near misses of a function with a superscript: an operator name, a power of a product
    ([r"\tanh^2(x)"], "", "tanh(x)**2"),
    ([r"x^2(1 - x)"], "", "x**2*(1 - x)"),
    ([r"\mathrm{sech}(x)^2"], "", "sech(x)**2"),
    ([r"\frac{d\sigma}{dx}", r"\sigma(x) = \frac{1}{1 + e^{-x}}"], "",
     "Eq(sigmoid(x), 1/(1 + exp(-x)))"),
    # near miss: the function written with its argument in the numerator is read
    ([r"\sigma(z)", r"\frac{d\sigma(x)}{dx}"], "", "Derivative(sigmoid(x), x)"),
    # near miss of an entry beside a tuple: the vector itself given a tuple gives entries
    ([r"g = (3, 4)", r"g_1 = 3"], "", "Eq(g[1], 3)"),
    ([r"\sum_{k=1}^{K} g_k^2", r"g_1 = (3, 4)"], "vector g_1", "Eq(g_1, Tuple(3, 4))"),
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
    # a subscript of two digits on a matrix: entry eleven, or row 1 and column 1?
    ([r"dS_{ij} = A_{ij}", r"dS_{11} = 0.25"], "", "{", "row 1, column 1"),
    # the norm of an entry: a vector of its own, or |g_1|?
    ([r"g \in \mathbb{R}^n", r"\|g_1\| = 3"], "", "\\|", "an entry of g"),
    # a gradient at a point: L(θ) with L no function is no product to differentiate
    ([r"g_t = \nabla_\theta L(\theta_{t-1})"], "", "L", "gradient at a point"),
    ([r"\frac{\partial}{\partial x} L(x)"], "", "L", "gradient at a point"),
    # a letter before parentheses around one factor: a function applied, or a product?
    ([r"x_{l+1} = x_l + F(x_l)"], "", "(", "ambiguous"),
    ([r"H = -\sum_{x=1}^{n} p(x) \log q(x)"], "", "(", "ambiguous"),
    ([r"\gamma(x)"], "", "(", "ambiguous"),
    ([r"y = LN(x)"], "", "(", "ambiguous"),
    ([r"O(n^2 \cdot d)"], "", "(", "ambiguous"),
    ([r"\mathcal{O}(n^2)"], "", "(", "ambiguous"),
    # a number as code writes it would read 1·e − 5
    ([r"\epsilon = 1e-5"], "", "1e-5", "as code writes it"),
    ([r"c = 3E8"], "", "3E8", "as code writes it"),
    # a term beside a relation across a comma: a digit group, or a list of values
    ([r"V = 50,257"], "", "257", "digit group"),
    ([r"x = 1, 2"], "", "2", "digit group"),
    # argmax names an index, no value
    ([r"\hat{y} = \mathrm{argmax}_i\, p_i"], "", r"\mathrm{argmax}", "no reading"),
    # a juxtaposition after / : (a/b)c or a/(bc)?
    ([r"1/2 x^2"], "", "/", "ambiguous"),
    ([r"x / 2\sigma^2"], "", "/", "ambiguous"),
    # a change of a symbol, not a product
    ([r"\Delta\theta = -\eta g"], "", r"\Delta", "change"),
    ([r"\Delta W = BA"], "", r"\Delta", "change"),
    # K, M, B, G after a number: a unit
    ([r"12 \cdot 768^2 \approx 7M"], "", "M", "unit"),
    ([r"2.5B"], "", "B", "unit"),
    # d right before a Greek or decorated symbol: a gradient, a differential or a product?
    ([r"d\hat{x} = dy \odot \gamma"], "", "d", "gradient or differential"),
    ([r"dW = X^\top dY", r"X \in \mathbb{R}^{n \times d}", r"d\theta = 0"], "", "d",
     "gradient or differential"),
    # a bracketed superscript is a layer label as some courses write it, never a power
    ([r"W^{[l]} = W^{[l]} - \eta\, dW"], "", "[", "layer label"),
    # a run of letters as a superscript: a label or a power?
    ([r"y_k^{LS} = (1 - \alpha) y_k + \alpha / K"], "", "LS", "label"),
    ([r"W^{in}"], "", "in", "label"),
    # a label under a sum over its own letter: the bound letter does not reach into the name
    ([r"x^{(L)} = x^{(0)} + \sum_{l=0}^{L-1} G\big(x^{(l)}\big)"], "", "l", "does not reach"),
    # a capital superscript that is a size of the note, on a base of unknown kind
    ([r"W_E \in \mathbb{R}^{V \times d}", r"W^V"], "", "V", "power or the label"),
    # e subscripted elsewhere, and raised to a power
    ([r"e_{ij} = q_i^\top k_j", r"\alpha = e^{x}"], "", "{", "Euler's number"),
    # two lowercase letters, one of which the note never writes alone: a name or a product?
    ([r"lr = 0.001"], "", "lr", "stands alone nowhere"),
    ([r"x = 1", r"xy = 2"], "", "xy", "stands alone nowhere"),
    # a subscript that is a conflict of the table: an entry or a name, by that choice
    ([r"y_i = 1", r"p_i = 0.5", r"p_y = 0.5", r"L = -\log p_y"], "", "y", "declare it"),
    # a function of the vocabulary with a subscript before its argument
    ([r"\alpha_{ij} = \mathrm{softmax}_j(e_{ij})"], "", r"\mathrm{softmax}", "subscript"),
    ([r"s_i = \mathrm{score}_i(x)"], "", r"\mathrm{score}", "subscript"),
    # a run of three letters or more that is no name is still refused
    ([r"pose = 1"], "", "pose", "no name"),
    # near misses of the sizes: no size to take, or a function with no single size
    ([r"s := \operatorname{softmax}(z)", r"\sum_i s_i = 1"], "", "i", "range of i"),
    ([r"z \in \mathbb{R}^K", r"s := \operatorname{Attention}(z)", r"\sum_i s_i = 1"], "",
     "i", "range of i"),
    ([r"\mathbf{x} \in \mathbb{R}^{d}", r"\sum_i y_i"], "", "i", "range of i"),
    # shapes written with × are no algebra
    ([r"Q \in \mathbb{R}^{n \times d_k}", r"(n \times d_k)(d_k \times n) = n \times n"], "",
     "(", "shapes"),
    ([r"(1024 \times 768)(768 \times 1024)"], "", "(", "shapes"),
    ([r"W \in \mathbb{R}^{d_{\text{in}} \times d_{\text{out}}}",
      r"d_{\text{in}} \times d_{\text{out}}"], "", "d", "shape"),
    ([r"h d_v \times d_{\text{model}}"], "", "h", "shape"),
    # units after numbers
    ([r"124\text{M} \approx 1.24 \times 10^8"], "", r"\text{M}", "unit"),
    ([r"2.5\text{B}"], "", r"\text{B}", "unit"),
    ([r"2 \times 2 = 4 \ \text{字节} = 0.5\ \text{KiB}"], "", "=", "after the prose"),
    # indexing with square brackets, as code writes it
    ([r"x^{(0)}_t = W_E[\text{token}_t] + W_P[t]"], "", "[", "indexing"),
    ([r"h = x[i]"], "", "[", "indexing"),
    # the imaginary unit in a note that writes i as an index too (alone, it reads as I)
    ([r"x_i = 1", r"x_1 + i x_2"], "", "i", "imaginary"),
    ([r"e^{im\theta}"], "", "im", "imaginary"),
    ([r"\sum_{i=1}^{n} x_i", r"\cos\alpha + i\sin\alpha"], "", "i", "imaginary"),
    ([r"\omega_i = 1", r"e^{\mathrm{i}\theta}"], "", r"\mathrm{i}", "imaginary"),
    # bare comma lists of terms
    ([r"Q, K, V"], "", "K", "list"),
    ([r"W_Q, W_K, W_V, W_O"], "", "W", "list"),
    # a prime: at a point, at an expression, on no function, by a vector or an entry
    ([r"\sigma'(0) = 0.25"], "", "(", "taken at a point"),
    ([r"\mathrm{GELU}'(1) \approx 1.08"], "", "(", "taken at a point"),
    ([r"\sigma'(2x)"], "", "(", "no plain scalar variable"),
    ([r"x'(t) = 1"], "", "x", "no function"),
    ([r"z \in \mathbb{R}^n", r"\sigma'(z)"], "", "(", "no plain scalar variable"),
    ([r"\tanh'(z_i)"], "", "(", "no plain scalar variable"),
    ([r"f'(x, y)"], "", "(", "several arguments"),
    # a default function letter used as a value beside its application stays a conflict
    ([r"\sigma(x)", r"\sigma^2 = 1", r"\sigma(z)"], "", r"\sigma", "declare it"),
    ([r"\Phi(x)", r"\Phi + 1"], "", r"\Phi", "declare it"),
    # an upright word or a function with a superscript before its argument: sech(x)² or sech·x?
    ([r"\tanh'(x) = \operatorname{sech}^2(x)"], "", r"\operatorname{sech}", "superscript"),
    ([r"\mathrm{GELU}^2(x)"], "", r"\mathrm{GELU}", "superscript"),
    ([r"\Phi(x)", r"\Phi^{-1}(p)"], "", r"\Phi", "superscript"),
    # the function without its argument in a Leibniz numerator: refused, no conflict made
    ([r"\sigma(x)", r"\frac{d\sigma}{dx}"], "", r"\sigma", "has no argument"),
    # an entry beside a tuple of values: a vector of its own
    ([r"\sum_{k=1}^{K} g_k^2", r"g_1 = (3, 4)"], "", "g", "tuple or matrix"),
    ([r"\sum_{k=1}^{K} g_k^2", r"g_1 \approx (0.2, 0.3)"], "", "g", "tuple or matrix"),
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


@pytest.mark.parametrize(("formulas", "text", "latex"), [
    # a note's function named as a node of the reading prints as a function
    ([r"R(m\theta) = \begin{bmatrix} a & b \\ c & d \end{bmatrix}", r"R(\alpha)"],
     "R(alpha)", r"R\left(\alpha\right)"),
    ([r"\mathrm{Norm}(x)"], "Norm(x)", r"\operatorname{Norm}\left(x\right)"),
    # near misses: the space and the norm themselves
    ([r"X \in \mathbb{R}^{n \times d}"], "X ∈ ℝ^(n×d)", r"X \in \mathbb{R}^{n \times d}"),
    ([r"\|x\|"], "‖x‖", r"\left\lVert x \right\rVert"),
])
def test_shown_back_as_read(formulas, text, latex):
    got, _ = read_last(formulas)
    assert got.ok, str(got)
    assert (got.text, got.latex) == (text, latex)


@pytest.mark.parametrize("formula, refused", [
    (r"x y^\top = y x^\top", True),       # outer products: matrices, their order matters
    (r"J = \operatorname{diag}(x) - x x^\top", True),
    (r"x^\top y y^\top x = 1", True),
    (r"x^\top y = y^\top x", False),      # the near miss: inner products, numbers
    (r"2\, x^\top y = x^\top y + y^\top x", False)])
def test_a_product_of_whole_vectors_is_read_only_as_an_inner_product(formula, refused):
    got, _ = read_last([r"x, y \in \mathbb{R}^n", formula])
    if refused:
        assert got.token and "outer product" in got.why
    else:
        assert not hasattr(got, "why") and "x" in got.text


def test_a_product_of_two_letters_on_the_left_is_no_name_a_definition_shapes():
    """AB = BA with A, B declared: AB is the product A·B (two letters), never a name that the
    right side's shape would be given to; a one-letter name S = BA does take it."""
    got, table = read_last([r"A, B \in \mathbb{R}^{n \times n}", "AB = BA"])
    assert "AB" not in table and "A*B" in str(got.expr).replace(" ", "")
    _, table = read_last([r"A, B \in \mathbb{R}^{n \times n}", "S = BA"])
    assert table["S"].kind == "matrix" and table.size_of("S") is not None
