"""Claims whose numbers were rounded before the engine saw them.

A claims file runs as Python, and ``sp.Float`` arithmetic in it is done when the file runs, at
the Float's own precision (15 digits by default): ``1 - sp.Float("0.9995") ** 10**6`` is the
Float 1.0 by the time a ``Derivation`` is built, although the exact value is 1 − 10⁻²¹⁷·⁸.
The engine then checks, correctly, a claim the user did not write.  Nothing in the built claim
tells the two apart, so the file is run a second time with every ``sp.Float`` it makes carried
at :data:`PRECISE_DIGITS` digits; a claim that comes out different depends on the precision its
numbers were computed at, and is refused with both forms and the fix (write the number exactly,
``sp.Rational("0.9995")``).  A Float written and used as it is (``sp.Float("0.1") * x``) reads
the same at both precisions and is untouched.  Python's own floats (``0.9995 ** 10**6`` without
SymPy) are computed in double precision whatever is done here: README "What `proved` means"
says so."""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import sympy as sp

PRECISE_DIGITS = 1000
SHOWN = 80  # characters of each form in the message


def makes_floats(source: str) -> bool:
    """Whether the file names SymPy's Float (``sp.Float(…)``, ``from sympy import Float``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Attribute) and n.attr == "Float"
               or isinstance(n, ast.Name) and n.id == "Float"
               or isinstance(n, ast.alias) and n.name == "Float" for n in ast.walk(tree))


class _SameAsFloat(type):
    """``isinstance(x, sp.Float)`` and ``expr.atoms(sp.Float)`` keep their meaning while
    ``sp.Float`` is the precise maker: what it makes are SymPy's own Floats."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, sp.core.numbers.Float)

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, sp.core.numbers.Float)


@contextlib.contextmanager
def precise_floats():
    """``sympy.Float`` (the name a file looks up) makes Floats of :data:`PRECISE_DIGITS` digits
    when no precision is given; every other use of the name is unchanged."""
    real = sp.core.numbers.Float

    class Precise(real, metaclass=_SameAsFloat):
        def __new__(cls, num=0, dps=None, precision=None):
            if dps is None and precision is None:
                dps = PRECISE_DIGITS
            return real(num, dps=dps, precision=precision)

    sp.Float = Precise
    try:
        yield
    finally:
        sp.Float = real


def _form(d) -> tuple[str, ...]:
    parts = [d.statement, *(getattr(s, "expr", s) for s in d.steps), *d.hypotheses]
    return tuple(sp.srepr(p) if isinstance(p, sp.Basic) else repr(p) for p in parts)


def _shown(expr) -> str:
    text = sp.sstr(expr)
    return text if len(text) <= SHOWN else text[:SHOWN - 1] + "…"


def rounded_claims(path: Path, claims: list, again) -> list[str]:
    """One line per claim of ``path`` that reads differently when the file's Floats are exact
    to :data:`PRECISE_DIGITS` digits; ``again()`` runs the file once more and returns its
    claims (under the patch)."""
    if not makes_floats(path.read_text(encoding="utf-8")):
        return []
    with precise_floats(), contextlib.redirect_stdout(io.StringIO()):
        precise = {d.id: d for d in again()}
    out = []
    for d in claims:
        other = precise.get(d.id)
        if other is None or _form(other) == _form(d):
            continue
        out.append(f"{path}: claim {d.id!r}: its numbers depend on the precision sp.Float "
                   f"computed them at when the file ran: at 15 digits {_shown(d.statement)}, at "
                   f"{PRECISE_DIGITS} digits {_shown(other.statement)}; write the numbers "
                   f"exactly (sp.Rational(\"0.9995\"), not sp.Float(\"0.9995\"))")
    return out
