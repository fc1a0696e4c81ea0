"""A quoted formula, evaluated as written: the small LaTeX a note uses for an update rule, a
count or a matrix product, read into a function of named values.

An evidence check that judges a note's formula evaluates the formula's own text, so that the
note's version and the corrected one differ only in the text given. The grammar is small on
purpose and refuses what it does not know (a clear error naming the rest of the input):

    sum      product (('+' | '-') product)*
    product  ['-'] power ((implicit | '\\cdot' | '\\times' | '/') power)*
    power    atom ['^' (group | digit | '\\top' | 'T')]          x^\\top and X^T transpose
    atom     number | name | '(' sum ')' | '\\left(' sum '\\right)' | '{' sum '}'
             | '\\frac' group group | '\\sqrt' group | function '(' sum ')'
    name     a letter or a Greek command, optionally under \\hat{…}, with a subscript
             _x or _{…}: W_V, d_k, \\hat{v}_t, \\beta_1

A name is looked up in the environment as written without its braces and backslashes
(``\\hat{v}_t`` -> ``hat v_t``, ``W_V`` -> ``W_V``, ``\\varepsilon`` and ``\\epsilon`` ->
``epsilon``). Products of two matrices are matrix products; anything else multiplies
elementwise. ``softmax`` works along the last axis (over the keys of each query).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping

import numpy as np
import sympy as sp


class FormulaError(ValueError):
    """A formula outside the grammar, or a name the environment lacks."""


_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "eta", "theta", "lambda",
          "mu", "pi", "sigma", "tau", "omega"}
_TOKEN = re.compile(r"\s*(\\[A-Za-z]+|\d+(?:\.\d+)?|[A-Za-z]|[-+*/^_(){}=]|\\[,;!]|.)")
_FUNCTIONS = {"softmax", "exp", "log", "cos", "diag"}


_UNICODE = {"×": "\\times ", "−": "-", "⋅": "\\cdot ", "θ": "\\theta "}


def _tokens(tex: str) -> list[str]:
    for ch, cmd in _UNICODE.items():
        tex = tex.replace(ch, cmd)
    out = []
    for tok in _TOKEN.findall(tex):
        if tok in ("\\,", "\\;", "\\!", "") or tok.isspace():
            continue
        out.append(tok)
    return out


def _softmax(z):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sqrt(x):
    """√x, exact for a SymPy number (an enumeration that must give exactly 1)."""
    return sp.sqrt(x) if isinstance(x, sp.Basic) else np.sqrt(x)


def _dot(a, b):
    if np.ndim(a) == 1 and np.ndim(b) == 1:
        return float(np.dot(a, b))
    return _mul(a, b)


def _mul(a, b):
    """A matrix product when both sides are arrays and one is a matrix (πP, AX, XᵀG); else
    elementwise (a scalar times anything, or two vectors term by term inside a sum)."""
    if callable(a):  # a function given as a name applies to what follows: \\sigma(W_1x + b_1)
        return a(b)
    if callable(b):  # W_2\\sigma(…): the product waits for the function's argument
        return lambda y: _mul(a, b(y))
    if np.ndim(a) >= 1 and np.ndim(b) >= 1 and max(np.ndim(a), np.ndim(b)) >= 2:
        return np.asarray(a) @ np.asarray(b)
    return a * b


class _Reader:
    def __init__(self, tex: str, exact: bool = False):
        self.tex, self.toks, self.i, self.exact = tex, _tokens(tex), 0, exact

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            rest = " ".join(self.toks[self.i:]) or "the end"
            raise FormulaError(f"formula {self.tex!r}: expected {want or 'more'}, got {rest!r}")
        self.i += 1
        return tok

    def skip(self) -> None:
        """Pass over one token or one braced group, unread."""
        if self.take() != "{":
            return
        depth = 1
        while depth:
            tok = self.take()
            depth += {"{": 1, "}": -1}.get(tok, 0)

    def group(self) -> Callable:
        if self.peek() == "{":
            self.take("{")
            node = self.sum()
            self.take("}")
            return node
        return self.atom()

    def sum(self) -> Callable:
        node = self.product()
        while self.peek() in ("+", "-"):
            op, right = self.take(), self.product()
            node = (lambda a, b: lambda env: a(env) + b(env))(node, right) if op == "+" else \
                (lambda a, b: lambda env: a(env) - b(env))(node, right)
        return node

    def product(self) -> Callable:
        if self.peek() == "-":
            self.take()
            inner = self.product()
            return lambda env: -inner(env)
        node = self.power()
        while True:
            tok = self.peek()
            if tok == "\\cdot":  # a dot product of two vectors, else a product
                self.take()
                right = self.power()
                node = (lambda a, b: lambda env: _dot(a(env), b(env)))(node, right)
            elif tok in ("\\times", "*"):
                self.take()
                right = self.power()
                node = (lambda a, b: lambda env: _mul(a(env), b(env)))(node, right)
            elif tok == "/":
                self.take()
                right = self.power()
                node = (lambda a, b: lambda env: a(env) / b(env))(node, right)
            elif tok is not None and tok not in ("+", "-", ")", "}", "\\right", "=", "\\rVert"):
                right = self.power()
                node = (lambda a, b: lambda env: _mul(a(env), b(env)))(node, right)
            else:
                return node

    def power(self) -> Callable:
        base = self.atom()
        if self.peek() != "^":
            return base
        self.take("^")
        if self.peek() in ("\\top", "T"):
            self.take()
            return lambda env: np.asarray(base(env)).T
        if self.peek() == "{" and self.toks[self.i + 1:self.i + 3] in (["\\top", "}"],
                                                                      ["T", "}"]):
            self.i += 3
            return lambda env: np.asarray(base(env)).T
        expo = self.group()
        return lambda env: base(env) ** expo(env)

    def atom(self) -> Callable:
        tok = self.take()
        if re.fullmatch(r"\d+(?:\.\d+)?", tok):
            value = sp.Rational(tok) if self.exact else float(tok)
            return lambda env: value
        if tok in ("(", "\\left"):
            if tok == "\\left":
                self.take("(")
            node = self.sum()
            if self.peek() == "\\right":
                self.take("\\right")
            self.take(")")
            return node
        if tok == "{":
            node = self.sum()
            self.take("}")
            return node
        if tok == "\\sum":  # \sum_j f(z_j): the names under j are vectors, summed over
            for mark in ("_", "^"):  # the index and its range, named by the vectors' subscripts
                if self.peek() == mark:
                    self.take(mark)
                    self.skip()
            inner = self.product()
            return lambda env: np.sum(inner(env))
        if tok == "\\lVert":
            inner = self.sum()
            self.take("\\rVert")
            # a matrix's norm is its spectral norm, a vector's its length
            return lambda env: float(np.linalg.norm(inner(env), 2 if np.ndim(inner(env)) == 2
                                                    else None))
        if tok == "\\frac":
            toks = self.toks[self.i:self.i + 8]
            if len(toks) == 8 and toks[0] == toks[4] == "{" and toks[1] == toks[5] == "\\partial" \
                    and toks[3] == toks[7] == "}":  # a derivative ∂A/∂B is a name
                self.i += 8
                return self.name(f"∂{toks[2]}/∂{toks[6]}")
            num, den = self.group(), self.group()
            return lambda env: num(env) / den(env)
        if tok == "\\sqrt":
            inner = self.group()
            return lambda env: _sqrt(inner(env))
        if tok == "\\operatorname":
            self.take("{")
            name = ""
            while self.peek() != "}":
                name += self.take()
            self.take("}")
            return self.function(name)
        if tok.lstrip("\\") in _FUNCTIONS:
            return self.function(tok.lstrip("\\"))
        if tok == "\\hat":
            self.take("{")
            letter = self.take()
            self.take("}")
            return self.name("hat " + letter.lstrip("\\"))
        if re.fullmatch(r"[A-Za-z]", tok) or tok.lstrip("\\") in _GREEK:
            # a run of letters spelling a function name is that function (softmax(…))
            for fname in _FUNCTIONS:
                span = list(fname)
                if [tok, *self.toks[self.i:self.i + len(span) - 1]] == span \
                        and self.toks[self.i + len(span) - 1:self.i + len(span)] in (["("],
                                                                                    ["\\left"]):
                    self.i += len(span) - 1
                    return self.function(fname)
            letter = tok.lstrip("\\")
            return self.name("epsilon" if letter == "varepsilon" else letter)
        raise FormulaError(f"formula {self.tex!r}: unexpected {tok!r} (expected a number, a "
                           "name, a bracket, \\frac, \\sqrt or softmax)")

    def name(self, base: str) -> Callable:
        if self.peek() == "_":
            self.take("_")
            if self.peek() == "{":
                self.take("{")
                sub = ""
                while self.peek() != "}":
                    sub += self.take().lstrip("\\")
                self.take("}")
            else:
                sub = self.take().lstrip("\\")
            base = f"{base}_{sub}"

        def look(env, key=base):
            if key not in env:
                raise FormulaError(f"formula {self.tex!r}: no value for {key!r} (given "
                                   f"{sorted(env)})")
            return env[key]

        return look

    def function(self, name: str) -> Callable:
        fn = {"softmax": _softmax, "exp": np.exp, "log": np.log, "cos": np.cos,
              "diag": lambda v: np.diag(np.ravel(v))}.get(name)
        if fn is None:
            raise FormulaError(f"formula {self.tex!r}: unknown function {name!r} (expected one "
                               f"of {sorted(_FUNCTIONS)})")
        inner = self.power() if name == "cos" else self.atom()  # \cos\theta takes no bracket
        return lambda env: fn(inner(env))


def _sides(tex: str) -> list[str]:
    """``tex`` cut at its ``=`` signs outside braces (``\\sum_{n=0}`` is not a side)."""
    sides, depth, start = [], 0, 0
    for i, ch in enumerate(tex):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "=" and depth == 0:
            sides.append(tex[start:i])
            start = i + 1
    return [*sides, tex[start:]]


def compile_formula(tex: str, exact: bool = False) -> Callable[[Mapping[str, object]], object]:
    """``tex`` as a function of an environment {name: value}; its right-hand side when it is an
    equation (``y = …``: the value the formula gives). ``exact``: numbers as rationals."""
    tex = _sides(tex)[-1]
    reader = _Reader(tex, exact)
    node = reader.sum()
    if reader.peek() is not None:
        raise FormulaError(f"formula {tex!r}: unexpected {' '.join(reader.toks[reader.i:])!r} "
                           "after a complete expression")
    return node


def evaluate(tex: str, **env) -> object:
    return compile_formula(tex)(env)


def chain(tex: str) -> list[float]:
    """The values of every side of ``a = b = c`` (arithmetic written out, no names)."""
    return [float(compile_formula(side)({})) for side in _sides(tex)]


_RELATIONS = ("≈", ">", "<", "=")


def relation(tex: str) -> tuple[str, sp.Rational, sp.Rational, bool]:
    """Arithmetic a note wrote with one relation, ``0.1^{10}=0.0000000001``, ``1.1^{10}≈2.59``
    or ``1.1^{10}>1``, in exact rational arithmetic: (relation, left, right, whether it holds).
    ``≈`` holds when the left side rounds to the right side's decimals."""
    rel = next((r for r in _RELATIONS if r in tex), None)
    if rel is None:
        raise FormulaError(f"formula {tex!r}: expected one of {_RELATIONS} between two sides")
    left_tex, right_tex = tex.split(rel, 1)
    left = sp.nsimplify(compile_formula(left_tex, exact=True)({}))
    right = sp.nsimplify(compile_formula(right_tex, exact=True)({}))
    if rel == "≈":
        decimals = len(right_tex.strip().partition(".")[2])
        holds = abs(left - right) <= sp.Rational(1, 2) / sp.Integer(10) ** decimals
    else:
        holds = {"=": left == right, ">": left > right, "<": left < right}[rel]
    return rel, left, right, bool(holds)


def equation(tex: str) -> tuple[Callable, Callable]:
    """The two sides of ``lhs = rhs`` as functions of an environment (arithmetic a note wrote
    out, ``1×1+0×0=1``)."""
    sides = _sides(tex)
    if len(sides) != 2:
        raise FormulaError(f"formula {tex!r}: expected one '=' between two sides, got "
                           f"{len(sides) - 1}")
    return compile_formula(sides[0]), compile_formula(sides[1])


# ----------------------------------------------------------------------------- the quote's letters
_SYMBOLS = {"\\top": "T", "\\partial": "∂", "\\sum": "∑", "\\prod": "∏", "\\in": "∈",
            "\\infty": "∞", "\\times": "×", "\\approx": "≈", "\\cdot": "⋅", "\\eta": "η",
            "\\epsilon": "ε", "\\varepsilon": "ε", "\\sigma": "σ", "\\pi": "π", "\\omega": "ω",
            "\\beta": "β", "\\theta": "θ", "\\mu": "μ", "\\alpha": "α", "\\lambda": "λ"}


def letters(text: str) -> Counter:
    """The letters, digits and mathematical symbols of ``text`` without its typesetting: what a
    formula still reads as once a web copy has flattened it (``\\frac{q^\\top k}{\\sqrt{d_k}}``
    and ``dkqTk`` have the same letters). Latin letters are compared without case."""
    for cmd, ch in _SYMBOLS.items():
        text = re.sub(re.escape(cmd) + r"(?![A-Za-z])", ch, text)
    text = re.sub(r"\\[A-Za-z]+", "", text)
    keep = [c.lower() for c in text if c.isalnum() or c in "∂∑∏ηεσπωβθμαλ"]
    return Counter(keep)
