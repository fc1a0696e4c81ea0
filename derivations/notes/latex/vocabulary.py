"""The meaning of the vocabulary: named functions written out in plain SymPy for the engine.

``lower`` may replace a named function, an entry of one, a norm, an entrywise product or a dot
product ``xᵀy`` by its definition in READING.md §3, with sums over the sizes the table declares.
It may not guess a size, an ε or a meaning: where one is missing it raises :class:`NotLowered`
naming the construct and what is needed.  Each meaning is checked against a NumPy implementation
by ``tests/test_notes_latex_vocabulary.py``.
"""

from __future__ import annotations

import sympy as sp

import derivations.notes.latex.nodes as N
from derivations.notes.latex.table import SymbolTable
from derivations.notes.reasons import say

_ENTRYWISE = {"sigmoid", "ReLU", "GELU", "GELU_tanh", "exp", "log", "tanh"}
_NO_MEANING = {"Attention", "MultiHead", "FFN", "Concat", "head", "diag", "tr", "CE", "Adam"}


class NotLowered(Exception):
    """A construct ``lower`` cannot write out, and why."""

    def __init__(self, construct, why: str):
        super().__init__(f"{construct}: {why}")
        self.construct, self.why = construct, why


def scalar_meaning(name: str, x):
    """The meaning of an entrywise named function at one scalar x."""
    if name == "sigmoid":
        return 1 / (1 + sp.exp(-x))
    if name == "ReLU":
        return sp.Max(0, x)
    if name == "GELU":
        return x * (1 + sp.erf(x / sp.sqrt(2))) / 2
    if name == "GELU_tanh":
        inner = sp.sqrt(2 / sp.pi) * (x + sp.Rational(44715, 10 ** 6) * x ** 3)
        return x / 2 * (1 + sp.tanh(inner))
    if name == "Phi":
        return (1 + sp.erf(x / sp.sqrt(2))) / 2
    if name == "phi":
        return sp.exp(-x ** 2 / 2) / sp.sqrt(2 * sp.pi)
    return getattr(sp, name)(x)


class _Lower:
    def __init__(self, table: SymbolTable, root):
        self.t = table
        self.used = {s.name for s in root.free_symbols if hasattr(s, "name")} | {
            str(s) for s in root.atoms(sp.Symbol)}

    def fresh(self, hint="j"):
        for name in (hint, "k", "l", "m_", "r", "s_", "u", "w"):
            if name not in self.used:
                self.used.add(name)
                return sp.Symbol(name, integer=True)
        raise NotLowered(hint, say("lower.no_index"))

    def size(self, v, construct):
        """The declared length of a vector expression v."""
        if isinstance(v, sp.IndexedBase):
            shape = self.t.size_of(str(v.label))
            if shape and len(shape) == 1:
                return shape[0]
        sizes = {self.size(a, construct) for a in v.args
                 if isinstance(a, sp.IndexedBase) or a.has(sp.IndexedBase)
                 and not isinstance(a, sp.Indexed)}
        if len(sizes) == 1:
            return sizes.pop()
        raise NotLowered(construct, say("lower.no_size", v=v))

    def entry(self, v, i, construct):
        """Entry i of a vector expression (a vector, entrywise functions, ⊙, sums, scalings)."""
        if isinstance(v, sp.IndexedBase):
            return v[i]
        name = type(v).__name__
        if name == "odot":
            return N.mul(self.entry(v.args[0], i, construct), self.entry(v.args[1], i, construct))
        if name in _ENTRYWISE and len(v.args) == 1:
            return scalar_meaning(name, self.entry(v.args[0], i, construct))
        if name == "softmax":
            return self.go(N.EntryOf(v, i))
        if name in ("Add", "Mul"):
            parts = [self.entry(a, i, construct) if a.has(sp.IndexedBase)
                     and not isinstance(a, sp.Indexed) else self.go(a) for a in v.args]
            return sp.Add(*parts) if name == "Add" else sp.Mul(*parts)
        raise NotLowered(construct, say("lower.no_entrywise", v=v))

    def go(self, x):
        if not isinstance(x, sp.Basic) or not x.args:
            return x
        name = type(x).__name__
        if name == "EntryOf":
            return self.entry_of(x)
        if name in _NO_MEANING:
            raise NotLowered(x, say("lower.no_meaning", name=name))
        if name == "MaxOver":
            raise NotLowered(x, say("lower.max_over"))
        if name == "Norm":
            return self.norm(x)
        if name == "odot":
            a, b = (self.go(a) for a in x.args)
            if a.has(sp.IndexedBase) and not isinstance(a, sp.Indexed):
                raise NotLowered(x, say("lower.odot"))
            return a * b
        if name in ("sigmoid", "ReLU", "GELU", "GELU_tanh") or (
                isinstance(x, sp.core.function.AppliedUndef) and str(x.func) in ("Phi", "phi")):
            arg = self.go(x.args[0])
            if isinstance(arg, sp.IndexedBase):
                raise NotLowered(x, say("lower.whole_take", name=name))
            return scalar_meaning(str(x.func), arg)
        if name == "softmax" and isinstance(x.args[0], sp.Tuple):
            return self.softmax_of_tuple(x)
        if name in ("softmax", "LayerNorm", "RMSNorm"):
            if x.args and isinstance(x.args[0], sp.Basic) and (
                    x.args[0].atoms(sp.MatrixSymbol) or any(
                        not o.is_commutative for o in x.args[0].atoms(sp.Symbol))):
                # row by row, as attention takes it: its shape is judged, its values are not
                # written out (READING.md §3, "Softmax of a matrix")
                raise NotLowered(x, say("lower.of_matrix", name=name))
            raise NotLowered(x, say("lower.whole_write", name=name))
        if name in ("Mul",) and any(type(a).__name__ == "transpose" for a in x.args):
            return self.dot(x)
        if name == "transpose":
            raise NotLowered(x, say("lower.transpose_outside"))
        if name in N.RELATION_OPS or name in ("Chain", "Formulas", "Approx", "Define"):
            return x.func(*[self.go(a) for a in x.args])
        args = [self.go(a) for a in x.args]
        if name in ("Sum", "Product", "Derivative"):
            return x.func(*args, evaluate=False) if name == "Derivative" else x.func(*args)
        return x.func(*args)

    def softmax_of_tuple(self, x):
        """softmax(a_1, …, a_n) written out, a column of n entries; a masked logit -∞ gives
        exp(-∞), left for each route to evaluate (+∞, or every logit -∞, has no value)."""
        items = [self.go(a) for a in x.args[0]]
        if any(a.has(sp.oo, sp.zoo, sp.nan) for a in items) or all(a == -sp.oo for a in items):
            raise NotLowered(x, say("lower.softmax_infinite"))
        if any(a.has(-sp.oo) and a != -sp.oo for a in items):
            raise NotLowered(x, say("lower.softmax_minus_infinity"))
        if any(a.has(sp.IndexedBase) and not a.has(sp.Indexed) for a in items):
            raise NotLowered(x, say("lower.softmax_tuple"))
        exps = [sp.exp(a, evaluate=False) for a in items]
        total = sp.Add(*exps, evaluate=False)
        return sp.ImmutableMatrix([[e / total] for e in exps])

    def entry_of(self, x):
        f, idx = x.args[0], x.args[1:]
        name = type(f).__name__
        if len(idx) != 1:
            raise NotLowered(x, say("lower.entry_indices"))
        i = idx[0]
        if name in _ENTRYWISE or name == "odot":
            return self.entry(f, i, x)
        if name not in ("softmax", "LayerNorm", "RMSNorm"):
            raise NotLowered(x, say("lower.entry_meaning", f=f))
        v = f.args[0]
        n = self.size(v, x)
        j = self.fresh()
        vi, vj = self.entry(v, i, x), self.entry(v, j, x)
        if name == "softmax":
            return sp.exp(vi) / sp.Sum(sp.exp(vj), (j, 1, n))
        eps = self.epsilon(x)
        if name == "RMSNorm":
            return vi / sp.sqrt(sp.Sum(vj ** 2, (j, 1, n)) / n + eps)
        mu = sp.Sum(vj, (j, 1, n)) / n
        k = self.fresh("k")
        vk = self.entry(v, k, x)
        var = sp.Sum((vk - sp.Sum(vj, (j, 1, n)) / n) ** 2, (k, 1, n)) / n
        return (vi - mu) / sp.sqrt(var + eps)

    def epsilon(self, x):
        found = [n for n in ("varepsilon", "epsilon") if n in self.t]
        if len(found) != 1:
            raise NotLowered(x, say("lower.epsilon"))
        return self.t.symbol(found[0])

    def norm(self, x):
        v = x.args[0]
        p = x.args[1] if len(x.args) > 1 else 2
        if str(p) == "F":
            if not isinstance(v, sp.MatrixSymbol):
                raise NotLowered(x, say("lower.frobenius"))
            i, j = self.fresh("i"), self.fresh("j")
            return sp.sqrt(sp.Sum(sp.Sum(v[i - 1, j - 1] ** 2, (j, 1, v.shape[1])),
                                  (i, 1, v.shape[0])))
        n = self.size(v, x)
        i = self.fresh("i")
        e = self.entry(v, i, x)
        if p == 1:
            return sp.Sum(sp.Abs(e), (i, 1, n))
        if p == 2:
            return sp.sqrt(sp.Sum(e ** 2, (i, 1, n)))
        raise NotLowered(x, say("lower.norm_p", p=p))

    def dot(self, x):
        ts = [a for a in x.args if type(a).__name__ == "transpose"]
        others = [a for a in x.args if type(a).__name__ != "transpose"]
        vecs = [a for a in others if isinstance(a, sp.IndexedBase)]
        if len(ts) != 1 or len(vecs) != 1 or not isinstance(ts[0].args[0], sp.IndexedBase):
            raise NotLowered(x, say("lower.transpose_dot"))
        a, b = ts[0].args[0], vecs[0]
        n = self.size(a, x)
        if self.size(b, x) != n:
            raise NotLowered(x, say("lower.sizes", a=a, b=b))
        i = self.fresh("i")
        rest = [self.go(o) for o in others if o is not b]
        return sp.Mul(*rest) * sp.Sum(a[i] * b[i], (i, 1, n))


def lower(expr, table: SymbolTable):
    """``expr`` with its vocabulary written out in plain SymPy; :class:`NotLowered` if it cannot."""
    return _Lower(table, expr).go(expr)
