"""What a note has said before a formula: its definitions, in order, scoped by section.

A formula ``x̂_i = (x_i − μ)/σ`` whose left-hand side is a symbol not defined yet (a Symbol, an
entry ``x̂_i`` of an indexed symbol, an applied function ``f(x)``, a matrix, or a square ``σ²``)
*defines* it; ``:=`` always does.  Later formulas are checked with it unfolded, as the engine
unfolds any claim's definitions (:class:`derivations.engine.Definition`): a substitution, never
a premise.  Definitions are scoped by section: of the definitions of one name, a formula uses the
latest made in its own section or the sections around it (a subsection's own meaning of a name
ends with the subsection), else the latest made before it anywhere (a definition of section 1
still holds in section 2 unless section 2 defines the name itself).  Values given for a worked
example (``T = 2``, ``x = (1, 2, 3, 4)``) hold in their section and enter only the example's
steps — a link with a number for a side — so a general statement is never checked at the
example's point only; a formula in the sizes alone (``p_c = 1/K``) holds in its paragraph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp
from sympy.core.function import AppliedUndef

from derivations.engine import Definition, DerivationError


@dataclass(frozen=True)
class Made:
    """A definition the note made: the engine's Definition and where it comes from."""

    definition: Definition
    formula: int
    line: int
    latex: str
    section: tuple[int, ...]
    paragraph: int | None  # a value for an example: visible only in this paragraph
    value: bool = False

    @property
    def where(self) -> str:
        return f"line {self.line}: {self.latex}"


def head_of(expr: sp.Basic) -> tuple[sp.Basic, tuple, sp.Basic | None] | None:
    """(symbol, params, transform) when ``expr`` can be defined: μ, x̂_i, f(x), W, σ².
    ``transform`` turns the body of ``expr`` into the body of ``symbol`` (σ² = v gives σ = √v),
    None for the identity."""
    if isinstance(expr, sp.Symbol | sp.MatrixSymbol):
        return expr, (), None
    if isinstance(expr, sp.Indexed) and all(isinstance(i, sp.Symbol) and i.is_integer
                                            for i in expr.indices) \
            and len(set(expr.indices)) == len(expr.indices):
        return expr.base, tuple(expr.indices), None
    if isinstance(expr, AppliedUndef) and expr.args and all(
            isinstance(a, sp.Symbol | sp.MatrixSymbol) for a in expr.args) \
            and len(set(expr.args)) == len(expr.args):
        return expr.func, tuple(expr.args), None
    if isinstance(expr, sp.Pow) and isinstance(expr.base, sp.Symbol) and expr.exp == 2:
        return expr.base, (), sp.sqrt
    return None


def _own_bound(body):
    """The body with the variables its sums bind renamed (i → i'): ∂L/∂p_i of L = Σ_i y_i log
    p_i must not read the sum's i as the derivative's."""
    if not isinstance(body, sp.Basic):
        return body
    bound = {lim[0] for e in body.atoms(sp.Sum, sp.Product) for lim in e.limits}
    if not bound:
        return body
    taken = {str(s) for s in body.atoms(sp.Symbol)}
    change = {}
    for b in sorted(bound, key=str):
        name = b.name + "'"
        while name in taken:
            name += "'"
        taken.add(name)
        change[b] = sp.Symbol(name, **b.assumptions0)
    return body.xreplace(change)


def _written_numbers(expr) -> set:
    """The rationals ``expr`` holds as numbers, not as exponents: the 1/2 of a square root is
    no decimal of an example."""
    if not isinstance(expr, sp.Basic):
        return set()
    if isinstance(expr, sp.Rational):
        return {expr}
    if isinstance(expr, sp.Pow):
        return _written_numbers(expr.base) | (
            set() if isinstance(expr.exp, sp.Rational) else _written_numbers(expr.exp))
    return set().union(*(_written_numbers(a) for a in expr.args)) if expr.args else set()


def _name(obj) -> str:
    return str(getattr(obj, "name", obj))


def is_number(expr: sp.Basic) -> bool:
    """A value for an example: a number or a matrix of numbers, no symbol left."""
    if isinstance(expr, sp.MatrixBase):
        return all(is_number(e) for e in expr)
    return isinstance(expr, sp.Basic) and not expr.free_symbols and expr.is_number is True


class Context:
    """The definitions made so far, and which of them a formula may use."""

    def __init__(self) -> None:
        self.made: list[Made] = []
        # values given for a worked example: (entry or symbol, value, section, paragraph)
        self.values: list[tuple[sp.Basic, sp.Basic, tuple[int, ...], int | None]] = []
        self.at: int | None = None  # the paragraph of the formula being checked
        # names defined twice (by =): name -> (the lines, the section where the second holds,
        # None when both are in one section); not used in checks where ambiguous
        self.twice: dict[str, tuple[tuple[int, ...], tuple[int, ...] | None]] = {}
        # the shapes of names the note defines by a matrix expression (S = QKᵀ/√d_k)
        self.shapes: dict[str, tuple] = {}
        # a case of the indices ("when i ≠ j:"): (relation, i, j, the formula it holds in)
        self.case: tuple | None = None
        # names the note defines by what cannot be written out (a whole-vector softmax): a
        # formula about them cannot be checked, and must not be checked as if they were free
        self.opaque: dict[str, str] = {}
        # sequences defined by a recursion (v_t = β v_{t−1} + g_t): name -> (v_t, body, line);
        # an example's entry v_1 is computed from it, and a second formula for v_t is no
        # definition (one name would have two meanings)
        self.recursions: dict[str, tuple[sp.Indexed, sp.Basic, int]] = {}
        # where each sequence was given: name -> (its entry's LaTeX, "line N: LaTeX")
        self.given_at: dict[str, tuple[str, str]] = {}
        # sequences given in closed form in their own start values (η_t = η_0 · 0.5^t):
        # name -> (η_t, body, line, start indices, η_t's LaTeX, "line N: LaTeX", the body's
        # LaTeX); every other entry is the body at its index
        self.closed_forms: dict[str, tuple] = {}
        # name -> the sections where a recursion or a closed form gives that sequence: there a
        # definition of the name from another section (not one around it) no longer holds
        self.sequence_at: dict[str, list[tuple[int, ...]]] = {}
        # what the words before the formula being checked say of it (wording.stance)
        self.said: str | None = None
        self.said_at: int | None = None
        # an entry supposed against the sequence's own definition: name -> (its LaTeX, the
        # paragraph); a conclusion drawn after it in that paragraph is not blamed
        self.supposed_against: dict[str, tuple[str, int | None]] = {}
        # entries defined one by one (u_1 = x² + 2): substituted wherever they occur
        self.entries: list[tuple[sp.Basic, sp.Basic, tuple[int, ...]]] = []
        # premises the note states (设 … Σ y_i = 1): (relation, LaTeX, line, section)
        self.premises: list[tuple[sp.Basic, str, int, tuple[int, ...]]] = []
        # the entries of a sequence the note writes at each index letter, with the formulas
        # that write them: (name, letter) -> formula indices (g_t in m_t = … + (1 − β) g_t)
        self.indexed_at: dict[tuple[str, str], set[int]] = {}
        # values stated at a free index (梯度恒为 g_t = 1): the value given to g_t holds for
        # every entry of g, g_1 and g_5 alike; (name, letter) of such values
        self.every: set[tuple[str, str]] = set()

    def unroll(self, expr, whole: bool = False):
        """``expr`` with each entry v_k (k a whole number ≥ 1) of a recursion written as one
        step of it (β v_{k−1} + g_k), and each entry of a closed form other than its start
        values as the closed form at k; ``whole``: the closed forms only, at any index
        (η_{t+1} too)."""
        if not isinstance(expr, sp.Basic) or not (self.recursions or self.closed_forms):
            return expr

        def step(e):
            if _name(e.base) in self.closed_forms:
                lhs, body, *_ = self.closed_forms[_name(e.base)]
            else:
                lhs, body, _ = self.recursions[_name(e.base)]
            return body.xreplace({lhs.indices[0]: e.indices[0]})

        def unrolled(e):
            if not isinstance(e, sp.Indexed) or len(e.indices) != 1:
                return False
            k, name = e.indices[0], _name(e.base)
            if name in self.closed_forms:
                return not (k.is_Integer and int(k) in self.closed_forms[name][3]) and (
                    whole or k.is_Integer)
            return not whole and name in self.recursions and k.is_Integer and k >= 1

        return expr.replace(unrolled, step)

    def sequence(self, name: str) -> tuple[str, str] | None:
        """(the LaTeX of the sequence's entry at t, "line N: LaTeX") of a closed form or a
        recursion."""
        if name in self.closed_forms:
            return self.closed_forms[name][4:6]
        return self.given_at.get(name) if name in self.recursions else None

    def entries_of(self, section: tuple[int, ...]) -> dict:
        inside = {obj: v for obj, v, where in self.entries if section[:len(where)] == where}
        return {**{obj: v for obj, v, _ in self.entries}, **inside}

    def value_of(self, section: tuple[int, ...]) -> dict:
        """The values given so far, the latest of each entry or symbol, those of ``section``
        and the sections around it first (a worked example runs over paragraphs and
        sections).  A name given two different values there (n = 512 for one example, n = 256
        for the next) has, outside the paragraphs that gave them, no value: which example a
        later step belongs to is not said."""
        out: dict = {}
        for obj in dict.fromkeys(o for o, *_ in self.values):
            given = [(v, where, par) for o, v, where, par in self.values if o == obj]
            pool = [g for g in given if section[:len(g[1])] == g[1]] or given
            if len({v for v, _, _ in pool}) > 1:
                pool = [g for g in pool if g[2] == self.at]
            if pool:
                out[obj] = pool[-1][0]
        return out

    def give(self, obj: sp.Basic, value: sp.Basic, section: tuple[int, ...],
             every: bool = False) -> None:
        """``obj`` takes ``value`` for the example; ``every``: obj is an entry at a free index
        (g_t), and the value is every entry's."""
        self.values.append((obj, value, section, self.at))
        if isinstance(obj, sp.Indexed) and len(obj.indices) == 1 \
                and isinstance(obj.indices[0], sp.Symbol):
            key = (_name(obj.base), obj.indices[0].name)
            if every:
                self.every.add(key)
            else:  # the same entry given at one index only: no longer every entry's
                self.every.discard(key)

    def valued(self, section: tuple[int, ...], here: bool = False) -> set[str]:
        """The names given a value so far (in one example or several); ``here``: in
        ``section`` or a section around it only."""
        return {_name(o.base if isinstance(o, sp.Indexed) else o)
                for o, _, where, _ in self.values if not here or section[:len(where)] == where}

    def visible(self, section: tuple[int, ...], paragraph: int) -> list[Made]:
        """The definitions a formula in ``section`` and ``paragraph`` sees, the latest of each
        name only (a definition in a subsection hides the note's own for that subsection)."""
        inside: dict[str, Made] = {}
        earlier: dict[str, Made] = {}
        for m in self.made:
            if m.paragraph is not None and m.paragraph != paragraph:
                continue
            if section[:len(m.section)] == m.section:
                inside[m.definition.key] = m
            elif not any(section[:len(s)] == s
                         for s in self.sequence_at.get(m.definition.key, ())):
                earlier[m.definition.key] = m
        return list({**earlier, **inside}.values())

    def defined(self, symbol, section, paragraph) -> Made | None:
        key = _name(symbol)
        return next((m for m in reversed(self.visible(section, paragraph))
                     if m.definition.key == key), None)

    def define(self, lhs: sp.Basic, body: sp.Basic, formula, paragraph: int, latex: str
               ) -> Made:
        """Record ``lhs := body`` made by ``formula``; DerivationError when it cannot be a
        substitution (the engine's own refusal, naming why)."""
        found = head_of(lhs)
        if found is None:
            raise DerivationError(f"{lhs} is not a symbol, an entry x_i, an applied function "
                                  f"f(x) or a square σ², so it cannot be defined")
        symbol, params, transform = found
        value = is_number(body)
        made_body = transform(body) if transform is not None else body
        made_body = _own_bound(made_body)
        name = latex.split("=")[0].strip() or _name(symbol)
        definition = Definition(name, symbol, made_body, params=params)
        # a body in the sizes alone (an example's p_c = 1/K) holds where it is said: it is what
        # the example assumes, not what the name means elsewhere
        sizes_only = not value and all(getattr(o, "is_integer", False) and o.is_positive
                                       for o in getattr(made_body, "free_symbols", ()))
        # a body with an example's decimals in it (y = m ⊙ x/(1 − 0.5)) is that example's
        # (a decimal the formula writes: the ½ of \frac{1}{2} in a cosine schedule is none)
        sizes_only = sizes_only or any(not r.is_integer for r in _written_numbers(made_body)
                                       if r.q % 2 == 0 or r.q % 5 == 0) \
            and re.search(r"\d\.\d", getattr(formula, "latex", ".0.0")) is not None
        made = Made(definition, formula.index, formula.line, latex, formula.section,
                    paragraph if value or sizes_only else None, value)
        self.made.append(made)
        return made
