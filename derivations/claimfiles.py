"""Claims from outside the package: a file of your own derivations, or a module by name.

``load(target)`` turns one command-line target — a shipped claim id, a path to a ``.py`` file or
an importable module name — into the list of :class:`Derivation` it names.  A file is imported as
Python, as ``python FILE.py`` would run it, under a module name of its own (so two files both
called ``claims.py`` do not collide).  Its claims are its ``CLAIMS`` if it defines one, else every
module-level ``Derivation`` in definition order.

``explain(result)`` says in plain lines why a result is not ``proved``: for a failed step the
step and its rule, the point (sizes and indices first, then the values drawn), and both sides with
their values; for a step checked only numerically, what the symbolic route reported.  The command
line and :mod:`derivations.testing` print the same text.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
import traceback
from pathlib import Path

import sympy as sp

import derivations
from derivations import engine
from derivations.engine import ChainResult, Derivation, DerivationError
from derivations.engine.numeric.sampling import structures as _structures


class ClaimFileError(ValueError):
    """A target cannot be turned into claims; the message is one line naming the target."""


_MODULE_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def path_like(target: str) -> bool:
    """Whether ``target`` is written as a file's path: never a shipped claim's id
    (tests/test_user_claims.py), so the library need not be built to tell."""
    return target.endswith(".py") or "/" in target or "\\" in target


def load(target: str) -> list[Derivation]:
    """The claims ``target`` names: a shipped claim id, a ``.py`` file, or a module name."""
    path = Path(target)
    if path_like(target):  # a user's file: building the shipped claims first costs seconds
        return _file_claims(path, target)
    known = {d.id: d for d in derivations.claims()}
    if target in known:
        return [known[target]]
    if path.is_file():
        return _file_claims(path, target)
    if _MODULE_NAME.match(target):
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (target == exc.name or target.startswith(exc.name + ".")):
                raise ClaimFileError(f"module {target} does not import: {_one_line(exc)}") from exc
        except Exception as exc:  # noqa: BLE001 - any failure of the user's module is reported
            raise ClaimFileError(f"module {target} does not import: {_located(exc)}") from exc
        else:
            return claims_of(module, f"module {target}")
    raise ClaimFileError(f"unknown claim, file or module {target!r}: expected a claim id, a path "
                         f"to a .py file or an importable module name; known claims: "
                         f"{', '.join(known)}")


def load_all(targets: list[str]) -> list[Derivation]:
    """The claims of every target in order, each once; two different claims with one id are an
    error (results, lemmas and the report's anchors are keyed by id)."""
    out: list[Derivation] = []
    seen: dict[str, tuple[Derivation, str]] = {}
    for target in targets:
        for d in load(target):
            for claim in _with_lemmas(d):
                first = seen.setdefault(claim.id, (claim, target))
                if first[0] is not claim and first[0] != claim:
                    raise ClaimFileError(f"two different claims have the id {claim.id!r} "
                                         f"(from {first[1]} and {target}); give one a new id")
            if not any(d is o or d == o for o in out):
                out.append(d)
    return out


def _with_lemmas(d: Derivation):
    yield d
    for a in d.assumptions:
        if a.source is not None:
            yield from _with_lemmas(a.source)


def _file_claims(path: Path, target: str) -> list[Derivation]:
    """The claims of a file; refused when sp.Float arithmetic done as the file ran rounded them
    (:mod:`derivations.floatbuild`)."""
    from derivations import floatbuild

    claims = claims_of(load_file(path), target)
    rounded = floatbuild.rounded_claims(
        path, claims, lambda: claims_of(load_file(path, again=True), target))
    if rounded:
        raise ClaimFileError("; ".join(rounded))
    return claims


def load_file(path: Path, again: bool = False):
    """Import the file at ``path`` as a module of its own; its directory is importable meanwhile,
    so it may import a helper beside it.  ``again``: a second import of it, beside the first."""
    if not path.exists():
        raise ClaimFileError(f"{path}: no such file")
    if not path.is_file() or path.suffix != ".py":
        raise ClaimFileError(f"{path}: expected a Python file ending in .py")
    resolved = path.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    stem = re.sub(r"\W", "_", path.stem)
    name = f"_derivations_file_{stem}_{digest}" + ("_again" if again else "")
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ClaimFileError(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    folder = str(resolved.parent)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except DerivationError as exc:
        sys.modules.pop(name, None)
        raise ClaimFileError(f"{path}: {_one_line(exc)}") from exc
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's file, reported in one line
        sys.modules.pop(name, None)
        raise ClaimFileError(f"{path} does not import: {_located(exc, resolved)}") from exc
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    return module


def claims_of(module, where: str) -> list[Derivation]:
    """``module.CLAIMS`` if defined (checked to hold only Derivations), else every module-level
    Derivation in definition order."""
    if hasattr(module, "CLAIMS"):
        claims = module.CLAIMS
        if not isinstance(claims, list | tuple):
            raise ClaimFileError(f"{where}: CLAIMS must be a list or tuple of Derivation, "
                                 f"got {type(claims).__name__}")
        for n, d in enumerate(claims):
            if not isinstance(d, Derivation):
                raise ClaimFileError(f"{where}: CLAIMS[{n}] must be a Derivation, "
                                     f"got {type(d).__name__} {d!r:.60}")
        found = list(claims)
    else:
        found = []
        for value in vars(module).values():
            if isinstance(value, Derivation) and not any(value is f for f in found):
                found.append(value)
    if not found:
        raise ClaimFileError(f"{where}: no Derivation found; define CLAIMS = [...] or a "
                             f"module-level Derivation")
    # the report's "module" of a claim from a file is the file's stem, not the generated name
    label = Path(where).stem if where.endswith(".py") else getattr(module, "__name__", "")
    for d in found:
        if not getattr(d, "_source", ""):
            object.__setattr__(d, "_source", label)
    return found


def verify_many(claims: list[Derivation], progress=None) -> list[ChainResult]:
    """Verify each claim once (a claim cited as a lemma by several is verified once too)."""
    return engine.verify_many(claims, progress=progress, module_of=derivations.module_of)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# SymPy's own words for a mistake in building an expression, and what to do about it
SYMPY_ADVICE = {
    "Mix of Matrix and Scalar symbols": (
        "SymPy takes a Derivative (or another unevaluated operation) of a matrix for a scalar "
        "and refuses to add it to a matrix; build the sum with sp.Add(a, b, evaluate=False), "
        "whose shape the engine works out, or write that term evaluated"),
}


def _located(exc: BaseException, file: Path | None = None) -> str:
    """``Type: message (line N)``: the line of the user's file where it was raised, and what to
    do where SymPy's message says only what went wrong."""
    text = f"{type(exc).__name__}: {_one_line(exc)}"
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})"
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if file is None or Path(f.filename) == file]
    advice = SYMPY_ADVICE.get(_one_line(exc))
    return (f"{text} (line {frames[-1].lineno})" if frames else text) + (
        f"; {advice}" if advice else "")


# --- explaining a result ----------------------------------------------------------------------

EXPRESSION_CHARS = 160
SHOWN_DIGITS = 15  # the counterexample's values are printed to this many significant digits


def _short(expr: sp.Basic) -> str:
    text = sp.sstr(expr)
    return text if len(text) <= EXPRESSION_CHARS else text[:EXPRESSION_CHARS - 1] + "…"


def _point_lines(d: Derivation, point: dict) -> list[str]:
    """Sizes and indices on the first line (in the order they are drawn), values on the next."""
    try:
        sizes = [str(s) for s in _structures(d)[0]]
    except DerivationError:
        sizes = []
    first = ", ".join(f"{k} = {point[k]}" for k in sizes if k in point)
    entry = re.compile(r"^(.+)\[(\d+),(\d+)\]$")  # a matrix entry drawn: A[i,j]
    matrices: dict[str, dict] = {}
    for k, v in point.items():
        if k not in sizes and (m := entry.match(k)):
            matrices.setdefault(m.group(1), {})[int(m.group(2)), int(m.group(3))] = v
    rest = ", ".join(f"{k} = {v}" for k, v in point.items()
                     if k not in sizes and not entry.match(k))
    # each matrix on a line of its own, row by row
    shown = [f"{name} = [" + ", ".join(
        "[" + ", ".join(str(cells.get((i, j), "?")) for j in range(1 + max(c for _, c in cells)))
        + "]" for i in range(1 + max(r for r, _ in cells))) + "]"
        for name, cells in matrices.items()]
    return [line for line in (first, rest, *shown) if line]


def _sides(d: Derivation, ce: dict, before_label: str, before, after_label: str, after):
    out = [f"    {line}" for line in _point_lines(d, ce.get("point", {}))]
    out.append(f"  {before_label}: {_short(before)}")
    out.append(f"      = {ce.get('previous')}")
    out.append(f"  {after_label}: {_short(after)}")
    out.append(f"      = {ce.get('current')}")
    if ce.get("previous") == ce.get("current"):
        out.append(f"  (equal in the {SHOWN_DIGITS} digits shown; they differ in later digits, "
                   f"which the check compares)")
    return out


def explain(result: ChainResult) -> list[str]:
    """Why ``result`` is not proved, and which premises were assumed without a check, as lines
    of text; [] when it is proved and nothing was assumed unchecked."""
    d = result.derivation
    out = [f"holds under the hypothesis {h} (the numeric route draws only where it does)"
           for h in d.hypotheses]
    for s in result.steps:
        if s.status == "failed":
            ce = s.counterexample or {}
            before = d.lhs if s.index == 1 else d.steps[s.index - 2].expr
            label = "left-hand side" if s.index == 1 else f"step {s.index - 1}"
            article = "the " if s.index == 1 else ""
            out.append(f"step {s.index} ({s.rule}) failed: it differs from {article}{label} at")
            out += _sides(d, ce, label, before, f"step {s.index}", d.steps[s.index - 1].expr)
        elif s.status == "numeric":
            reason = getattr(s, "reason", "") or f"symbolic route: {s.symbolic}"
            out.append(f"step {s.index} ({s.rule}) is numeric only: {reason}")
        elif s.status == "timed out":
            out.append(f"step {s.index} ({s.rule}) timed out, nothing decided: {s.reason}")
    for p in getattr(result, "premise_checks", ()):
        if p.status == "failed":
            out.append(f"premise {p.name!r} failed: {p.detail}; at")
            ce = p.counterexample or {}
            out += [f"    {line}" for line in _point_lines(d, ce.get("point", {}))]
            out += [f"  its left side  = {ce.get('previous')}",
                    f"  its right side = {ce.get('current')}"]
        elif p.status == "assumed, unchecked":
            out.append(f"note: premise {p.name!r} is assumed, not checked numerically "
                       f"({p.detail})")
    reasons = getattr(result, "premise_reasons", {})
    for claim_id, status in result.premises.items():
        if status != "proved":
            why = reasons.get(claim_id)
            out.append(f"cites claim {claim_id!r} as a lemma, and that claim is {status}"
                       + (f": {why}" if why else ""))
    if result.status != "proved":
        out += _size_hints(d)
    return out + _same_steps(d)


def _size_hints(d: Derivation) -> list[str]:
    """Sizes declared without integer=True: drawn as whole numbers, but SymPy may not use it."""
    return [f"hint: {n} is a size (Domain dims), drawn as a whole number, but declared without "
            f"integer=True, so the symbolic route cannot use that it is whole; declare it "
            f"sp.Symbol({str(n)!r}, integer=True, positive=True)"
            for n in d.domain.dims if isinstance(n, sp.Symbol) and not n.is_integer]


def _same_steps(d: Derivation) -> list[str]:
    """Steps SymPy built into the expression before them: shown, and checked, as built."""
    out = []
    for n, (before, step) in enumerate(zip(d.expressions, d.steps, strict=False), start=1):
        if step.expr == before:
            what = "the left-hand side" if n == 1 else f"step {n - 1}"
            out.append(f"note: step {n} ({step.rule}) is the same expression as {what}: SymPy "
                       "evaluated it as it was built; to keep it as you wrote it, build it "
                       "unevaluated, with sp.Add(..., evaluate=False) or inside a block "
                       "`with sp.evaluate(False):`")
    return out


def summary(result: ChainResult) -> str:
    """The claim's verdict followed by :func:`explain`'s lines, for an assertion message."""
    head = f"claim {result.id!r} is {result.status}"
    return "\n".join([head, *(f"  {line}" for line in explain(result))])
