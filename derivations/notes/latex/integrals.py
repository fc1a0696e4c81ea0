"""Definite integrals and ∞ (READING.md §2, "Integrals and infinity").

A pass over the tokens finds the differential that ends each ``\\int``'s integrand (``dx``,
``d x``, ``\\mathrm{d}x``) and marks it, so that the grammar sees ``INT scripts term DIFF
variable``.  It may mark a differential only where nothing else could be meant: the first one at
the integral's own level, with no sum, relation or second integral before it and nothing but the
end of the term after its variable.  Anything else raises :class:`TokenError` with what to write.

The builder reads the marked integral as ``Integral(f, (x, a, b))`` (both limits required) and
``\\infty`` as ``oo`` only where it is a whole value: an argument, an item of a tuple, a limit.
"""

from __future__ import annotations

import sympy as sp
from lark import Token, Tree

from derivations.notes.latex.tok import Tok, TokenError
from derivations.notes.reasons import say

_OPEN = {"LPAR", "LBRACK", "LBRACE", "LSET", "LBAR", "LNORM", "BEGINMAT"}
_CLOSE = {"RPAR", "RBRACK", "RBRACE", "RSET", "RBAR", "RNORM", "ENDMAT"}
# what may follow an integral's variable: the end of the term it closes
_AFTER = {"REL", "PLUS", "MINUS", "COMMA", "SEMI", "SEP", "NEWLINE", "PROSE"} | _CLOSE
_VARIABLE = ("LETTER", "SYMBOL")


def _skip_scripts(toks, k):
    """The index past the scripts ``_{a}^{b}`` that follow position ``k``."""
    while k < len(toks) and toks[k].type in ("SUB", "SUP"):
        k += 1
        if k < len(toks) and toks[k].type == "LBRACE":
            depth = 0
            while k < len(toks):
                depth += (toks[k].type == "LBRACE") - (toks[k].type == "RBRACE")
                k += 1
                if depth == 0:
                    break
        else:
            k += 1
    return k


def _differential(toks, k):
    """(width, variable token) if a differential starts at ``k``: ``dx`` (one run), ``d x`` or
    ``\\mathrm{d} x`` (two tokens), else None."""
    t = toks[k]
    if t.type == "WORD" and len(t.value) == 2 and t.value[0] == "d":
        return 1, Tok("LETTER", t.value[1], t.offset + 1, t.value[1])
    if t.type in ("LETTER", "TEXTWORD") and t.value == "d" and k + 1 < len(toks) and \
            toks[k + 1].type in _VARIABLE:
        return 2, toks[k + 1]
    return None


def mark_integrals(toks: list[Tok]) -> list[Tok]:
    """The tokens with each ``\\int``'s differential marked (``DIFF`` then its variable)."""
    out, k = list(toks), 0
    while k < len(out):
        if out[k].type != "INT":
            k += 1
            continue
        start = _skip_scripts(out, k + 1)
        if start == k + 1:
            raise TokenError("\\int", out[k].offset, say("read.indefinite"))
        depth, j = 0, start
        while j < len(out):
            t = out[j]
            if depth == 0 and (t.type in _CLOSE or t.type in ("REL", "COMMA", "SEMI", "SEP",
                                                                "NEWLINE", "PROSE")):
                break
            if depth == 0 and t.type in ("PLUS", "MINUS") and j > start:
                raise TokenError(t.text or t.value, t.offset, say("read.integrand_sum"))
            if t.type == "INT":
                raise TokenError("\\int", t.offset, say("read.integral_inside"))
            if depth == 0:
                found = _differential(out, j)
                if found is not None:
                    width, var = found
                    after = j + width
                    nxt = out[after] if after < len(out) else None
                    if nxt is not None and nxt.type not in _AFTER:
                        raise TokenError(nxt.text or nxt.value, nxt.offset,
                                         say("read.after_differential", var=var.value))
                    out[j:after] = [Tok("DIFF", "d", t.offset, "d"), var]
                    break
            depth += (t.type in _OPEN) - (t.type in _CLOSE)
            j += 1
        else:
            j = len(out)
        if j >= len(out) or out[j].type != "DIFF":
            raise TokenError("\\int", out[k].offset, say("read.no_differential"))
        k += 1
    return out


def _whole(node):
    while isinstance(node, Tree) and node.data in ("product", "list", "group", "brace") and \
            len([c for c in node.children if isinstance(c, Tree) or c.type not in (
                "LBRACE", "RBRACE")]) == 1:
        node = next(c for c in node.children if isinstance(c, Tree) or c.type not in (
            "LBRACE", "RBRACE"))
    return node


def infinity(node):
    """``oo`` or ``-oo`` if ``node`` is ``\\infty`` or ``-\\infty`` alone, else None."""
    node = _whole(node)
    sign = 1
    while isinstance(node, Tree) and node.data in ("neg", "pos"):
        sign *= -1 if node.data == "neg" else 1
        node = _whole(node.children[1])
    if isinstance(node, Token) and node.type == "SYMBOL" and str(node) == "infty":
        return sp.oo if sign > 0 else -sp.oo
    return None


def integral(b, node):
    """``\\int_{a}^{b} f\\,dx`` as ``Integral(f, (x, a, b))``; ``b`` is the builder."""
    op, scripts, body, _, var = node.children
    pairs = list(zip(scripts.children[::2], scripts.children[1::2], strict=True))
    subs = [s for k, s in pairs if k.type == "SUB"]
    sups = [s for k, s in pairs if k.type == "SUP"]
    if len(subs) != 1 or len(sups) != 1:
        b.refuse(op, say("read.integral_limits"))
    name = str(var)
    # a vector's letter is free to be the integral's own variable (x_i elsewhere, ∫ x² dx):
    # bound inside, it is a real number there; an entry of it inside is refused below
    vector = b.t.kind(name) == "vector" or name in b.t.indexed
    if name in b.bound or b.t.kind(name) not in (None, "scalar", "vector") or \
            b.t.is_index(name) or name == "infty" or name in b.t.conflicts:
        b.refuse(var, say("read.integration_variable", name=name))
    x = sp.Symbol(name, real=True)
    lo, hi = (b.limit_value(s) for s in (subs[0], sups[0]))
    if lo.has(x) or hi.has(x):
        b.refuse(var, say("read.limit_variable", name=name))
    b.bound_real.append(name)
    try:
        f = b.ex(body)
    finally:
        b.bound_real.pop()
    if vector and any(getattr(o, "name", str(o)) == name
                      for o in f.atoms(sp.Indexed, sp.IndexedBase, sp.MatrixSymbol)):
        b.refuse(var, say("read.integration_vector", name=name))
    return sp.Integral(f, (x, lo, hi))
