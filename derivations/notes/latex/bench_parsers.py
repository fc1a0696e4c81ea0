"""Benchmark: other LaTeX readers beside ours on labelled formulas; our milliseconds per formula.

    python -m derivations.notes.latex.bench_parsers [CORPUS ...] [--repeat N]

CORPUS is a file of ``reading-examples`` records (READING.md §7 format; default: READING.md's
own examples; the labelled corpus ``tests/notes_corpus/`` once it exists).  For each formula it
runs SymPy's ``parse_latex`` (ANTLR and Lark backends), ``latex2sympy2_extended`` and our reader,
and prints per reader how many readings were *faithful*, *silently wrong* or *refused*:

- ours is judged structurally (``same_reading``), as the corpus is;
- the others return evaluated SymPy with their own names, so they are judged by value: both
  sides at three seeded random points, symbols matched by name (``z_{i}``, ``z_i`` and our
  ``z[i]`` are one name), sums written out at n = 3, each side of a relation on its own; a
  reading that cannot be evaluated so is *unclear*.

Needs the optional extra ``bench-parsers``; a reader that is not installed is reported as such.
This module is never imported by the reader itself.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
import warnings
from pathlib import Path

import sympy as sp

from derivations.notes.latex import infer, parse_expected, parse_overrides, read, same_reading
from derivations.notes.latex.examples import load, symbols_block

SPEC = Path(__file__).with_name("READING.md")


def _others():
    readers = {}
    try:
        from sympy.parsing.latex import parse_latex

        readers["sympy-antlr"] = lambda s: parse_latex(s)
        readers["sympy-lark"] = lambda s: parse_latex(s, backend="lark")
    except ImportError:
        pass
    try:
        from latex2sympy2_extended import latex2sympy

        readers["latex2sympy2_extended"] = latex2sympy
    except ImportError:
        pass
    return readers


def _name(x) -> str:
    if isinstance(x, sp.Indexed):
        return _clean(str(x.base.label)) + "_" + "".join(_clean(str(i)) for i in x.indices)
    return _clean(str(x))


def _clean(s: str) -> str:
    return re.sub(r"[{}\\ ]|mathrm|text|operatorname", "", s)


def _sides(x):
    """The expressions a reading is made of: both sides of each relation, in order."""
    name = type(x).__name__
    if name in ("Chain", "Formulas", "And"):
        return [s for a in x.args for s in _sides(a)]
    if isinstance(x, sp.core.relational.Relational) or name in ("Approx", "Define"):
        return [x.args[0], x.args[1]]
    return [x]


def _value(x, point: dict, rng_seed: int):
    """x at a point: sizes 3, symbols by name, unknown functions by a fixed smooth stand-in."""
    x = sp.sympify(x, strict=True)
    x = x.subs({s: 3 for s in x.free_symbols if s.is_integer and s.is_positive}).doit()
    atoms = list(x.atoms(sp.Indexed)) + [s for s in x.free_symbols
                                         if not isinstance(s, sp.Indexed)]
    subs = {}
    for atom in atoms:
        key = _name(atom)
        if key not in point:
            point[key] = random.Random(f"{rng_seed}:{key}").uniform(0.5, 2.0)
        subs[atom] = point[key]
    x = sp.sympify(x, strict=True).xreplace({k: sp.Float(v, 30) for k, v in subs.items()})
    for f in x.atoms(sp.core.function.AppliedUndef):
        seed = random.Random(f"{rng_seed}:{f.func}").uniform(0.5, 1.5)
        x = x.xreplace({f: sp.sin(seed * sum(f.args)) + seed})
    return complex(x.evalf(30))


def _same_by_value(got, want) -> bool | None:
    a, b = _sides(got), _sides(want)
    if len(a) != len(b):
        return False
    try:
        for seed in range(3):
            point = {}
            for x, y in zip(a, b, strict=True):
                if abs(_value(x, point, seed) - _value(y, point, seed)) > 1e-9 * (
                        1 + abs(_value(y, point, seed))):
                    return False
    except Exception:  # noqa: BLE001 - a reading that cannot be evaluated is unclear
        return None
    return True


def judge(examples, readers):
    counts = {name: {"faithful": 0, "silently wrong": 0, "refused": 0, "unclear": 0}
              for name in ["ours", *readers]}
    rows = []
    for ex in examples:
        table = infer(ex.note_formulas or [ex.latex], parse_overrides(symbols_block(ex)))
        try:
            want = None if ex.reading == "NotUnderstood" else parse_expected(ex.reading, table)
        except Exception as exc:  # noqa: BLE001 - a label we cannot read is reported, not judged
            print(f"  label not read ({exc}): {ex.title}: {ex.latex}", file=sys.stderr)
            continue
        row = [ex.latex]
        ours = read(ex.latex, table)
        verdict = ("refused" if want is not None else "faithful") if not ours.ok else (
            "faithful" if want is not None and same_reading(ours.expr, want) else
            "silently wrong")
        counts["ours"][verdict] += 1
        row.append(verdict)
        for name, parse in readers.items():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = parse(ex.latex)
                if not isinstance(got, sp.Basic):
                    raise TypeError(type(got).__name__)
            except Exception:  # noqa: BLE001 - any failure of another reader is a refusal
                verdict = "refused" if want is not None else "faithful"
            else:
                same = _same_by_value(got, want) if want is not None else False
                verdict = {True: "faithful", False: "silently wrong", None: "unclear"}[same]
            counts[name][verdict] += 1
            row.append(verdict)
        rows.append(row)
    return counts, rows


def time_ours(examples, repeat: int) -> float:
    """Milliseconds per formula for our reader (table inferred once per formula, grammar warm)."""
    tables = [infer(e.note_formulas or [e.latex], parse_overrides(symbols_block(e)))
              for e in examples]
    read(examples[0].latex, tables[0])
    start = time.process_time()
    for _ in range(repeat):
        for e, t in zip(examples, tables, strict=True):
            read(e.latex, t)
    return (time.process_time() - start) * 1000 / (repeat * len(examples))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="*", default=[str(SPEC)])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rows", action="store_true", help="print every formula's verdicts")
    args = ap.parse_args(argv)
    examples = [e for path in args.corpus for e in load(path)]
    if not examples:
        print("no reading-examples records in " + ", ".join(args.corpus), file=sys.stderr)
        return 2
    readers = _others()
    counts, rows = judge(examples, readers)
    names = list(counts)
    print(f"{len(examples)} formulas from {', '.join(args.corpus)}")
    if args.rows:
        for row in rows:
            print("  " + " | ".join(f"{v:<14}" for v in row[1:]) + " " + row[0])
    print(f"{'reader':<24}" + "".join(f"{k:>16}" for k in counts["ours"]))
    for name in names:
        print(f"{name:<24}" + "".join(f"{v:>16}" for v in counts[name].values()))
    missing = {"sympy-antlr", "sympy-lark", "latex2sympy2_extended"} - set(readers)
    if missing:
        print("not installed: " + ", ".join(sorted(missing))
              + " (pip install -e '.[bench-parsers]')")
    ms = time_ours(examples, args.repeat)
    print(f"ours: {ms:.2f} ms CPU per formula (mean over {args.repeat} passes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
