"""The laws written with a letter rather than a word: ``\\mathcal{N}(\\mu, \\sigma^2)``,
``N(0, 1)``, ``\\mathcal{U}(-a, a)``, ``U(a, b)``.

A letter applied to a pair is no function of the note, so the builder refuses it; right after
``\\sim`` the grammar's own rule (``x \\sim Law(…)``) says it is a law, and these four letters are
the normal and the uniform law as notes write them.  Only there: ``N(0, 1)`` elsewhere (N a
number of layers) keeps the builder's refusal.  A law written as a word
(``\\operatorname{Uniform}(a, b)``, ``\\operatorname{Bernoulli}(q)``) is read by the builder.
"""

from __future__ import annotations

import sympy as sp
from lark import Token, Tree

import derivations.notes.latex.nodes as N
from derivations.notes.reasons import say

# the letter (as the tokenizer names it) -> the law's name and how many parameters it takes
LETTERS = {"cal_N": ("Normal", 2), "N": ("Normal", 2), "cal_U": ("Uniform", 2),
           "U": ("Uniform", 2)}


def law_after_sim(b, term):
    """The law ``term`` writes with a letter (a SymPy application), or None when it is not one
    (the builder reads it then).  A law letter with other than two parameters is refused."""
    if not (isinstance(term, Tree) and term.data == "product" and len(term.children) == 2):
        return None
    head, paren = term.children
    if not (isinstance(head, Token) and str(head) in LETTERS and isinstance(paren, Tree)
            and paren.data == "paren"):
        return None
    name, count = LETTERS[str(head)]
    args = b.arguments(paren)
    if len(args) != count:
        b.refuse(head, say("read.law_normal" if name == "Normal" else "read.law_uniform",
                           head=head, count=count, got=len(args)))
    return N.apply(sp.Function(name), *args)
