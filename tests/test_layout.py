"""The house, read from the source (an import graph, not a run): the symbolic route and the
numeric route each in a room of its own that imports nothing of the other, the shared core
importing neither, and no import circle anywhere in the project.

An import inside a function counts like one at the top of a module: a route that reached the
other lazily would still see how the other reached its answer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("derivations", "numeric", "reports")
ENGINE = "derivations.engine"
ROOMS = {  # a room of the engine -> the rooms of the engine it may import besides itself
    f"{ENGINE}.core": (),
    f"{ENGINE}.symbolic": (f"{ENGINE}.core",),
    f"{ENGINE}.numeric": (f"{ENGINE}.core",),
}


def modules(root: Path, packages=PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root`` by its dotted name (a package by its own)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if "build" in parts[:-1] or "node_modules" in parts[:-1]:  # output, not source
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _owner(name: str, known: dict) -> str | None:
    """The module of the project that an imported name lives in (its package when the name is
    one of the package's attributes), or None for another distribution's."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: Path, packages=PACKAGES) -> dict[str, set[str]]:
    """Module -> the project's modules it imports, anywhere in its source."""
    known = modules(root, packages)
    graph = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package, up level - 1
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([base] if base else [])])
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                           for a in node.names]
            else:
                continue
            edges |= {o for t in targets if (o := _owner(t, known)) and o != name}
        graph[name] = edges
    return graph


def room_of(name: str) -> str | None:
    return next((room for room in ROOMS if name == room or name.startswith(room + ".")), None)


def trespasses(graph: dict[str, set[str]]) -> list[str]:
    """Each import of the engine's rooms that its room may not make: a route importing the
    other route, the judge (chain, premises, the engine's public face) or anything of the engine
    outside the core; the core importing anything of the engine outside itself."""
    found = []
    for name, targets in sorted(graph.items()):
        room = room_of(name)
        if room is None:
            continue
        for target in sorted(targets):
            if not (target == ENGINE or target.startswith(ENGINE + ".")):
                continue
            if room_of(target) not in (room, *ROOMS[room]):
                found.append(f"{name} imports {target}")
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, written
    without recursion)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


# --- the project ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def graph():
    return import_graph(ROOT)


def test_each_room_of_the_engine_is_a_package_that_says_what_it_may_use(graph):
    for room in ROOMS:
        doc = ast.get_docstring(ast.parse(modules(ROOT)[room].read_text(encoding="utf-8")))
        assert doc and "May use" in doc and "May not" in doc, room


def test_every_module_of_the_engine_lives_in_a_room_or_is_the_judge(graph):
    judge = {ENGINE, f"{ENGINE}.chain", f"{ENGINE}.premises", f"{ENGINE}.independence",
             f"{ENGINE}.trust"}
    loose = [m for m in graph if m.startswith(ENGINE) and room_of(m) is None and m not in judge]
    assert loose == []


def test_the_routes_import_nothing_of_each_other_and_the_core_neither(graph):
    assert trespasses(graph) == []


def test_no_import_circle_anywhere(graph):
    assert circles(graph) == []


# --- the checkers fail on a wrong house -------------------------------------------------------

def _house(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return import_graph(tmp_path, ("derivations",))


EMPTY_ENGINE = {
    "derivations/__init__.py": "",
    "derivations/engine/__init__.py": "",
    "derivations/engine/core/__init__.py": "",
    "derivations/engine/core/claim.py": "",
    "derivations/engine/symbolic/__init__.py": "",
    "derivations/engine/numeric/__init__.py": "",
}


@pytest.mark.parametrize("module, source, expected", [
    ("numeric/pointwise.py",  # a lazy import inside a function counts
     "def f():\n    from derivations.engine.symbolic.check import g\n",
     "derivations.engine.numeric.pointwise imports derivations.engine.symbolic.check"),
    ("symbolic/check.py", "import derivations.engine.numeric.pointwise\n",
     "derivations.engine.symbolic.check imports derivations.engine.numeric.pointwise"),
    ("core/claim.py", "from derivations.engine.symbolic import check\n",
     "derivations.engine.core.claim imports derivations.engine.symbolic.check"),
    ("numeric/pointwise.py", "from derivations.engine import verify\n",
     "derivations.engine.numeric.pointwise imports derivations.engine"),
    ("symbolic/check.py", "from ..numeric import pointwise\n",
     "derivations.engine.symbolic.check imports derivations.engine.numeric.pointwise"),
])
def test_a_trespassing_import_is_found(tmp_path, module, source, expected):
    files = {**EMPTY_ENGINE, "derivations/engine/numeric/pointwise.py": "",
             "derivations/engine/symbolic/check.py": ""}
    files[f"derivations/engine/{module}"] = source
    assert expected in trespasses(_house(tmp_path, files))


def test_imports_of_the_core_and_of_other_packages_are_allowed(tmp_path):
    files = {**EMPTY_ENGINE, "derivations/engine/numeric/pointwise.py":
             "import sympy\nfrom derivations.engine.core.claim import Derivation\n"}
    assert trespasses(_house(tmp_path, files)) == []


def test_an_import_circle_is_found_even_through_a_lazy_import(tmp_path):
    g = _house(tmp_path, {
        "derivations/__init__.py": "",
        "derivations/a.py": "from derivations import b\n",
        "derivations/b.py": "def f():\n    from derivations.c import x\n",
        "derivations/c.py": "import derivations.a\n",
        "derivations/d.py": "import derivations.a\n",
    })
    assert circles(g) == [["derivations.a", "derivations.b", "derivations.c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
