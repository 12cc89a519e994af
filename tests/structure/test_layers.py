"""The layers import one way: engine -> wire -> SDK / referee -> tournaments -> CLI -> web.

Read with ``ast`` from the source (nothing is imported), so a new import that runs back up
a layer, or a cycle between two files of one package, fails here with the file and line.
docs/architecture.md draws the same picture.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PACKAGES = {
    # package -> (its folder, the first-party packages it may import)
    "spite_engine": (ROOT / "engine" / "spite_engine", set()),
    "spite": (ROOT / "wire" / "spite", set()),
    "spite_wire": (ROOT / "wire" / "spite_wire", {"spite_engine", "spite"}),
    "spite_sdk": (ROOT / "sdk" / "python" / "spite_sdk", {"spite_engine", "spite", "spite_wire"}),
    "referee": (ROOT / "referee", {"spite_engine", "spite", "spite_wire"}),
    "tournaments": (ROOT / "tournaments", {"spite_engine", "spite", "spite_wire", "spite_sdk", "referee"}),
    "spite_cli": (ROOT / "spite_cli", {"spite_engine", "spite", "spite_wire", "spite_sdk", "referee", "tournaments",
                                       "spite_web", "spite_arena"}),
    "spite_web": (ROOT / "spite_web", {"spite_engine", "spite", "spite_wire", "referee", "tournaments"}),
    # the hosted ladder (issue 16) sits on the tournaments' workers and store code, the referee and the web face
    "spite_arena": (ROOT / "spite_arena", {"spite_engine", "spite", "spite_wire", "referee", "tournaments",
                                           "spite_web"}),
}


def _imports(path: Path, package: str) -> list[tuple[int, str]]:
    """(line, absolute module) for every import in ``path``, relative ones resolved."""
    tree = ast.parse(path.read_text(), str(path))
    parts = list(path.relative_to(PACKAGES[package][0]).with_suffix("").parts)
    module = [package, *parts]
    if module[-1] == "__init__":
        module.pop()
    else:
        module.pop()  # relative imports start from the containing package
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module[:len(module) - (node.level - 1)] if node.level > 1 else module
                name = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:
                    found += [(node.lineno, f"{name}.{alias.name}") for alias in node.names]
                    continue
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def _sources(package: str) -> list[Path]:
    folder = PACKAGES[package][0]
    return sorted(p for p in folder.rglob("*.py") if "_pb2" not in p.name) if folder.exists() else []


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_import_runs_back_up_a_layer(package: str) -> None:
    allowed = PACKAGES[package][1] | {package}
    wrong = []
    for path in _sources(package):
        for line, name in _imports(path, package):
            top = name.split(".")[0]
            if top in PACKAGES and top not in allowed:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not wrong, f"{package} may import only {sorted(allowed)}:\n" + "\n".join(wrong)


def test_engine_imports_nothing_but_the_standard_library() -> None:
    import sys

    wrong = []
    for path in _sources("spite_engine"):
        for line, name in _imports(path, "spite_engine"):
            top = name.split(".")[0]
            if top != "spite_engine" and top not in sys.stdlib_module_names:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not wrong, "the engine is dependency-free:\n" + "\n".join(wrong)


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_import_cycle_between_modules(package: str) -> None:
    graph: dict[str, set[str]] = {}
    folder = PACKAGES[package][0]
    for path in _sources(package):
        parts = list(path.relative_to(folder).with_suffix("").parts)
        name = ".".join([package, *parts[:-1]] + ([] if parts[-1] == "__init__" else [parts[-1]]))
        graph[name] = set()
        for _, target in _imports(path, package):
            while target and target not in graph and "." in target and not target.startswith(package + "."):
                break
            if target.startswith(package):
                graph[name].add(target)
    modules = set(graph)

    def resolve(target: str) -> str | None:
        while target:
            if target in modules:
                return target
            target = target.rpartition(".")[0]
        return None

    edges = {m: {r for t in ts if (r := resolve(t)) and r != m and not m.startswith(r + ".") and r != package}
             for m, ts in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            pytest.fail("import cycle: " + " -> ".join(cycle))
