"""The vocabulary's meanings (``lower``) against NumPy implementations at random points, and the
constructs ``lower`` must refuse."""

import math

import numpy as np
import pytest
import sympy as sp

from derivations.notes.latex import NotLowered, infer, lower, parse_overrides, read

RNG = np.random.default_rng(20261207)
SIZE = 5
EPS = 1e-3


def np_softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def np_layernorm(x):
    return (x - x.mean()) / np.sqrt(x.var() + EPS)


def np_rmsnorm(x):
    return x / np.sqrt((x ** 2).mean() + EPS)


def np_gelu(x):
    return x * 0.5 * (1 + math.erf(x / math.sqrt(2)))


def np_gelu_tanh(x):
    return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


VECTOR = "size n | vector x, z : n | index i in 1..n | scalar varepsilon"
# (LaTeX, what NumPy says for vectors x, z at entry i (0-based))
ENTRIES = [
    (r"\text{softmax}(z)_i", lambda x, z, i: np_softmax(z)[i]),
    (r"\operatorname{LayerNorm}(x)_i", lambda x, z, i: np_layernorm(x)[i]),
    (r"\operatorname{RMSNorm}(x)_i", lambda x, z, i: np_rmsnorm(x)[i]),
    (r"\sigma(z)_i", lambda x, z, i: 1 / (1 + np.exp(-z[i]))),
    (r"\operatorname{ReLU}(z)_i", lambda x, z, i: max(0.0, z[i])),
    (r"\operatorname{GELU}(z)_i", lambda x, z, i: np_gelu(z[i])),
    (r"\operatorname{GELU}_{\tanh}(z)_i", lambda x, z, i: np_gelu_tanh(z[i])),
    (r"\|x\|", lambda x, z, i: np.linalg.norm(x)),
    (r"\|x\|_1", lambda x, z, i: np.abs(x).sum()),
    (r"\|x \odot z\|^2", lambda x, z, i: np.sum((x * z) ** 2)),
    (r"x^\top z", lambda x, z, i: x @ z),
    (r"\Phi(x_i)", lambda x, z, i: 0.5 * (1 + math.erf(x[i] / math.sqrt(2)))),
    (r"\operatorname{GELU}(x_i)", lambda x, z, i: np_gelu(x[i])),
]


def evaluate(expr, table, x, z, i, eps=EPS):
    n = table.symbol("n")
    expr = expr.subs({n: SIZE, table.symbol("i"): i + 1,
                      table.symbol("varepsilon"): sp.Float(eps, 30)}).doit()
    values = {}
    for atom in expr.atoms(sp.Indexed):
        vec = {"x": x, "z": z}[str(atom.base.label)]
        values[atom] = sp.Float(vec[int(atom.indices[0]) - 1], 30)
    return float(expr.xreplace(values).evalf(30))


@pytest.mark.parametrize(("latex", "reference"), ENTRIES, ids=[e[0] for e in ENTRIES])
def test_meaning_matches_numpy(latex, reference):
    table = infer([latex], parse_overrides(VECTOR.replace(" | ", "\n")))
    got = read(latex, table)
    assert got.ok, str(got)
    lowered = lower(got.expr, table)
    assert not lowered.has(*_vocab_classes()), lowered
    for _ in range(4):
        x, z = RNG.normal(size=SIZE) * 2, RNG.normal(size=SIZE) * 2
        i = int(RNG.integers(SIZE))
        assert evaluate(lowered, table, x, z, i) == pytest.approx(reference(x, z, i),
                                                                  rel=1e-12, abs=1e-12)


def _vocab_classes():
    from derivations.notes.latex.nodes import VOCABULARY, EntryOf, Norm, odot

    return (*VOCABULARY.values(), EntryOf, Norm, odot)


def test_a_wrong_meaning_would_be_caught():
    # the harness above must be able to fail: softmax without its normaliser differs from NumPy
    table = infer([], parse_overrides(VECTOR.replace(" | ", "\n")))
    z = RNG.normal(size=SIZE)
    wrong = sp.exp(table.base("z")[table.symbol("i")])
    assert evaluate(wrong, table, z, z, 2) != pytest.approx(np_softmax(z)[2], rel=1e-6)


def test_lowering_sums_run_over_the_declared_size():
    table = infer([], parse_overrides("size d\nvector x : d\nindex i in 1..d"))
    got = lower(read(r"\text{softmax}(x)_i", table).expr, table)
    (s,) = got.atoms(sp.Sum)
    assert s.limits[0][1:] == (1, table.symbol("d"))


@pytest.mark.parametrize(("latex", "symbols", "why"), [
    (r"\operatorname{Attention}(Q, K, V)", "", "no single meaning"),
    (r"\operatorname{LayerNorm}(x)_i", "size n | vector x : n | index i in 1..n", "ε"),
    (r"\text{softmax}(z)_i", "index i in 1..n", "size of z"),
    (r"\text{softmax}(z)", "size n | vector z : n", "entry"),
    (r"\max_j z_j", "size n | vector z : n", "max over an index"),
    (r"q^\top k", "", "two declared vectors"),
])
def test_lower_refuses(latex, symbols, why):
    table = infer([latex], parse_overrides(symbols.replace(" | ", "\n")))
    got = read(latex, table)
    assert got.ok, str(got)
    with pytest.raises(NotLowered) as exc:
        lower(got.expr, table)
    assert why in exc.value.why
