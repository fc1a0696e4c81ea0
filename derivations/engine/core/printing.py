"""Printing a claim the way its author wrote it: definitions folded, in the author's notation.

Both routes check a claim with its definitions unfolded
(:mod:`derivations.engine.core.definitions`); what is printed is the claim as written — the checked
expressions with the definitions folded as the author folded them, so that a step that unfolds a
definition shows it unfolded.  The printer is SymPy's LaTeX printer with these changes:

* a defined symbol prints as its definition's TeX (``\\hat{m}_t``, ``\\sigma_\\varepsilon``), a
  defined function by its template (``\\lVert AX - B \\rVert_F^2``);
* a sum keeps the order of its terms: the author's, when it was built unevaluated
  (``sp.Add(..., evaluate=False)``), else SymPy's, numbers first (1 + tanh u) — and it starts
  with a term without a minus sign (x_i − μ rather than −μ + x_i);
* ∂L/∂W is printed as a fraction when what is differentiated is a single symbol, an entry or a
  defined function's value (∂x̂_i/∂x_j rather than ∂/∂x_j x̂_i);
* (1/d) Σ_k x_k rather than a sum over a fraction bar, and ½(1 + erf(x/√2)) rather than a
  fraction inside a fraction: a product whose fraction would nest more than two deep is
  printed with its denominator as a leading factor;
* 0.044715 rather than 8943/200000 (a number whose denominator
  is a power of ten's divisor, ≥ 1000, as the model's float constant reads);
* d/dx when the variable is the only thing the expression depends on, the defined symbols
  aside (they depend on it through their bodies);
* s_{ij} rather than s_{i,j} when every index is a single letter;
* a product's factors in the order the claim states (``Derivation.order``: P_ij V_jc, g_l ∂p_l/∂z_j,
  p_i (δ_ij − p_j) rather than SymPy's V_jc P_ij): a factor is named by its base (an entry's
  matrix, a power's base), else by its kind (``KroneckerDelta``, ``exp``, ``Derivative``, ``Add``
  for a bracket), else by the first base inside it (never a sum's); a number leads, unnamed
  factors keep SymPy's order after the named ones; only the printing changes, never the
  expression;
* a sum's terms in that order too (μ_q²σ_k² + σ_q²μ_k² + σ_q²σ_k², ε + 2√ŝ_t − 1): a term is
  ranked by the names anywhere inside it, each term's ranks sorted and compared as words, a
  number last; a sum with a term that no stated name ranks keeps its order (θ − η v̂/ρ);
* everything else as SymPy prints it.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef, UndefinedFunction
from sympy.matrices.expressions.matexpr import MatrixElement
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.simplify.radsimp import fraction

from derivations.engine.core.definitions import Definition
from derivations.tex import depth

__all__ = ["latex", "legend", "order_unused", "same_sum"]


class _Printer(LatexPrinter):
    def __init__(self, definitions: tuple[Definition, ...] = (),
                 order: tuple[str, ...] = ()) -> None:
        names, self._functions = {}, {}
        self._order, self.used = tuple(order), set()
        self._defined = {d.symbol for d in definitions}
        self._defined |= {d.symbol.label for d in definitions
                          if isinstance(d.symbol, sp.IndexedBase)}
        for d in definitions:
            if isinstance(d.symbol, UndefinedFunction):
                self._functions[d.symbol] = d.tex
            elif d.tex:
                names[d.symbol.label if isinstance(d.symbol, sp.IndexedBase) else d.symbol] = d.tex
        super().__init__({"symbol_names": names})

    def _print_Function(self, expr, exp=None):
        tex = self._functions.get(expr.func) if isinstance(expr, AppliedUndef) else None
        if not tex:
            return super()._print_Function(expr, exp)
        args = [self._print(a) for a in expr.args]
        if "{0}" in tex:
            out = tex.format(*args)
            return rf"\left({out}\right)^{{{exp}}}" if exp is not None else out
        head = tex if exp is None else rf"{tex}^{{{exp}}}"
        return rf"{head}\left({', '.join(args)}\right)"

    def _as_ordered_terms(self, expr, order=None):
        terms = super()._as_ordered_terms(expr, order=order)
        if not isinstance(expr, sp.Add):
            return terms
        if self._order:
            terms = self._terms_in_order(expr, terms)
        # n + 1 and t − 1, as an index is written: a number after plain symbols
        numbers = [t for t in terms if t.is_Number]
        if len(numbers) == 1 and all(isinstance(t, sp.Symbol | sp.Indexed)
                                     for t in terms if t is not numbers[0]):
            return [*(t for t in terms if t is not numbers[0]), numbers[0]]
        # x_i − μ rather than −μ + x_i: a sum starts with a term that carries no minus sign
        first = next((t for t in terms if not t.could_extract_minus_sign()), None)
        if first is None or first is terms[0]:
            return terms
        return [first, *(t for t in terms if t is not first)]

    def _print_Add(self, expr, order=None):
        # the terms in the order they are stored: as the author wrote an unevaluated sum, and
        # numbers first in an evaluated one (1 + tanh u, 1 − β₁ᵗ)
        return super()._print_Add(expr, order="none")

    def _print_Mul(self, expr):
        # (1/d) Σ_k x_k rather than a sum over a fraction bar: the sum's own fractions then
        # stand one level higher; likewise for any fraction that would nest too deep
        num, den = fraction(expr, exact=True)
        if den == 1:
            return self._in_order(expr) or super()._print_Mul(expr)
        if not _has_sum_factor(num) or den.has(sp.Sum):
            top = None if num.could_extract_minus_sign() else self._in_order(num)
            plain = (rf"\frac{{{top}}}{{{self._print(den)}}}" if top
                     else super()._print_Mul(expr))
            if depth(plain) <= 2:
                return plain
        sign = ""
        if num.could_extract_minus_sign():
            sign, num = "- ", -num
        lead = rf"{sign}\frac{{1}}{{{self._print(den)}}}"
        if num == 1:
            return lead
        body = self._print(num)
        if isinstance(num, sp.Add):
            body = rf"\left({body}\right)"
        return f"{lead} {body}"

    def _in_order(self, expr) -> str | None:
        """``expr``, a product without a denominator, with its factors in the stated order;
        None when that order is SymPy's own."""
        if not self._order or not isinstance(expr, sp.Mul) or sp.Mul(*expr.args) != expr:
            return None  # a product built unevaluated prints as its author built it
        sign = ""
        if expr.could_extract_minus_sign():
            sign, expr = "- ", -expr
            if not isinstance(expr, sp.Mul):
                return None
        factors = list(expr.as_ordered_factors())
        ranks = [self._rank(f) for f in factors]
        ordered = [f for _, _, f in sorted(zip(ranks, range(len(factors)), factors,
                                               strict=True), key=lambda x: x[:2])]
        if ordered == factors:
            return None
        if sp.Mul(*ordered) != expr:  # a reordering, never another product
            raise AssertionError(f"printing reordered {expr} into another product")
        out = ""
        for k, f in enumerate(ordered):
            tex = self._print(f)
            if self._needs_mul_brackets(f, first=k == 0, last=k == len(ordered) - 1):
                tex = rf"\left({tex}\right)"
            out += (self._settings["mul_symbol_latex"] if out else "") + tex
        return sign + out

    def _terms_in_order(self, expr, terms: list) -> list:
        """The terms of the sum ``expr`` in the stated order: each term by the sorted ranks
        of the names inside it, numbers last; as SymPy orders them when a term has no name of
        the order."""
        numbers = [t for t in terms if t.is_Number]
        rest = [t for t in terms if not t.is_Number]
        keys = [sorted({self._order.index(n) for n in _all_names(t) if n in self._order})
                for t in rest]
        if not rest or not all(keys):
            return terms
        ordered = [t for _, _, t in sorted(zip(keys, range(len(rest)), rest, strict=True),
                                           key=lambda x: x[:2])] + numbers
        if ordered == terms:
            return terms
        self.used |= {n for t in rest for n in _all_names(t) if n in self._order}
        return same_sum(expr, ordered)

    def _rank(self, factor) -> int:
        if factor.is_Number:
            return -1
        for name in _names(factor):
            if name in self._order:
                self.used.add(name)
                return self._order.index(name)
        return len(self._order)

    def _print_Indexed(self, expr):
        # s_{ij}, V_{jc}: indices that are single letters need no commas between them
        if len(expr.indices) > 1 and all(isinstance(i, sp.Symbol) and len(i.name) == 1
                                         for i in expr.indices):
            return "{" + self._print(expr.base) + "}_{" + "".join(
                self._print(i) for i in expr.indices) + "}"
        return super()._print_Indexed(expr)

    def _print_Sum(self, expr):
        # Σ_e Σ_t f, as written, rather than one Σ over a stack of inequalities
        if len(expr.limits) == 1:
            return super()._print_Sum(expr)
        signs = "".join(rf"\sum_{{{self._print(v)}={self._print(lo)}}}^{{{self._print(hi)}}} "
                        for v, lo, hi in reversed(expr.limits))
        body = self._print(expr.function)
        return signs + (rf"\left({body}\right)" if isinstance(expr.function, sp.Add) else body)

    def _print_OneMatrix(self, expr):
        return r"\mathbf{1}"

    def _print_Identity(self, expr):
        return "I"

    def _print_DiagMatrix(self, expr):
        return rf"\operatorname{{diag}}\left({self._print(expr.args[0])}\right)"

    def _print_ElementwiseApplyFunction(self, expr):
        # tanh(W₁x + b₁) for the function applied entry by entry, not (u ↦ tanh u)_∘(W₁x + b₁)
        fn = expr.function
        if not isinstance(fn, sp.Lambda) or len(fn.variables) != 1:
            return super()._print_ElementwiseApplyFunction(expr)
        hole = sp.Dummy("entry")
        names = self._settings["symbol_names"]
        names[hole] = self._print(expr.expr)
        try:
            return self._print(fn.expr.xreplace({fn.variables[0]: hole}))
        finally:
            del names[hole]

    def _print_Rational(self, expr):
        q = int(expr.q)
        while q % 2 == 0:
            q //= 2
        while q % 5 == 0:
            q //= 5
        if q == 1 and expr.q >= 1000:  # 0.044715, as the model's constant reads
            digits = len(str(expr.q))
            return format(sp.Float(expr, digits + 5), f".{digits}f").rstrip("0")
        return super()._print_Rational(expr)

    def _print_Derivative(self, expr):
        inner, variables = expr.expr, expr.variables
        if len(variables) != 1:
            return super()._print_Derivative(expr)
        var = variables[0]
        others = {s for s in inner.free_symbols if s not in self._defined and s != var
                  and not isinstance(s, sp.Indexed)}
        others |= {a.base for a in inner.atoms(sp.Indexed)} - self._defined
        op = "d" if isinstance(var, sp.Symbol) and not others else r"\partial"
        single = isinstance(inner, sp.Symbol | sp.Indexed | sp.MatrixSymbol | AppliedUndef)
        head = rf"\frac{{{op} {self._print(inner)}}}" if single else rf"\frac{{{op}}}"
        tail = "" if single else " " + self.parenthesize(inner, PRECEDENCE["Mul"], strict=True)
        return rf"{head}{{{op} {self._print(var)}}}{tail}"


def _names(factor) -> list[str]:
    """What a factor may be called in a stated order: its base, its kind, the bases inside."""
    base = factor.base if isinstance(factor, sp.Pow) else factor
    if isinstance(base, sp.Indexed):
        own = [str(base.base.label)]
    elif isinstance(base, MatrixElement):
        own = [str(base.parent)]
    elif isinstance(base, sp.Symbol):
        own = [base.name]
    else:
        own = [type(base).__name__]
    if isinstance(base, sp.Sum):  # a sum stands where SymPy puts it, whatever it sums
        return own
    inside = [str(a.base.label) if isinstance(a, sp.Indexed) else
              str(a.parent) if isinstance(a, MatrixElement) else a.name
              for a in sp.preorder_traversal(base)
              if isinstance(a, sp.Indexed | MatrixElement | sp.Symbol)]
    return own + inside


def _all_names(term) -> set[str]:
    """Every name a stated order may call something inside ``term`` by: the bases of its
    entries and symbols, and the kinds of its functions (KroneckerDelta, exp)."""
    out = set()
    for a in sp.preorder_traversal(term):
        if isinstance(a, sp.Indexed):
            out.add(str(a.base.label))
        elif isinstance(a, MatrixElement):
            out.add(str(a.parent))
        elif isinstance(a, sp.Symbol):
            out.add(a.name)
        elif isinstance(a, sp.Function):
            out.add(type(a).__name__)
    return out


def same_sum(expr, terms: list) -> list:
    """``terms``, the terms of ``expr`` printed in another order; an error if they are not
    its terms (a term lost, doubled or changed): a printed order never changes what is
    proved."""
    if sorted(map(sp.srepr, terms)) != sorted(map(sp.srepr, expr.args)):
        raise AssertionError(f"printing reordered {expr} into another sum: {terms}")
    return terms


def _has_sum_factor(e) -> bool:
    return isinstance(e, sp.Sum) or (isinstance(e, sp.Mul)
                                     and any(isinstance(a, sp.Sum) for a in e.args))


def latex(expr, definitions: tuple[Definition, ...] = (), order: tuple[str, ...] = ()) -> str:
    """``expr`` in TeX as written, each defined symbol printed as its definition says, each
    product's factors in ``order`` (the claim's :attr:`Derivation.order`)."""
    return _Printer(definitions, order).doprint(expr)


def order_unused(d) -> list[str]:
    """The names of the claim ``d``'s stated order that name no factor of what it prints (a
    misspelt name would leave a formula in SymPy's order without a word)."""
    printer = _Printer(d.definitions_used, d.order)
    for e in (d.statement, *(s.expr for s in d.steps), *d.hypotheses,
              *(x for df in d.definitions_used for x in (df.head, df.body))):
        printer.doprint(e)
    return [n for n in d.order if n not in printer.used]


def legend(definitions: tuple[Definition, ...], order: tuple[str, ...] = ()) -> list[dict]:
    """Each definition as the report lists it: {"name", "latex": "symbol := body", "symbol",
    "text"}, a definition after those it uses; the body printed with the others folded. A step
    that uses a definition cites it by ``symbol``."""
    printer = _Printer(definitions, order)
    out = []
    for d in definitions:
        head = printer.doprint(d.head)
        out.append({"name": d.name, "latex": rf"{head} := {printer.doprint(d.body)}",
                    "symbol": head, "text": d.text})
    return out
