"""No import circle inside ``ovhooks.capture`` (issue 22): every import counts, at the top of
a module, inside a function (lazy) or under ``TYPE_CHECKING``, since each is a dependency the
module cannot do without. The scrubber's parts once took ``Span``, ``_Compiled`` and ``scrub``
back from the driver; ``scrub_compiled`` and ``scrub_anchors`` now sit below all of them."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "ovhooks.capture"
ROOT = Path(__file__).resolve().parents[2] / "ovhooks" / "capture"


def _module_names() -> dict[str, Path]:
    names = {PACKAGE: ROOT / "__init__.py"}
    for path in ROOT.glob("*.py"):
        if path.name != "__init__.py":
            names[f"{PACKAGE}.{path.stem}"] = path
    return names


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The ``ovhooks.capture`` modules ``path`` imports, wherever the import statement is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in modules:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else str(node.module))
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _module_names()
    return {name: _imports(path, modules) - {name} for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One path per circle found by a depth-first walk (empty when the graph is acyclic)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the walk's path, 2 done
    path: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                walk(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)
    return found


def test_the_walk_finds_a_circle_when_there_is_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_and_type_checking_imports() -> None:
    graph = import_graph()
    # scrub imports scrub_assign at the top; scrub_tokens names Compiled only for mypy
    assert f"{PACKAGE}.scrub_assign" in graph[f"{PACKAGE}.scrub"]
    assert f"{PACKAGE}.scrub_compiled" in graph[f"{PACKAGE}.scrub_tokens"]
    # scrub_compiled imports scrub_rules inside a function
    assert f"{PACKAGE}.scrub_rules" in graph[f"{PACKAGE}.scrub_compiled"]


def test_capture_has_no_import_circle() -> None:
    assert circles(import_graph()) == []


def test_the_scrubber_parts_do_not_import_the_driver() -> None:
    graph = import_graph()
    parts = [m for m in graph if m.startswith(f"{PACKAGE}.scrub_")]
    assert len(parts) >= 8
    assert not [m for m in parts if f"{PACKAGE}.scrub" in graph[m]]
