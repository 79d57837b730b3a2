"""The import graph of the package, read from its source with ``ast``, and its layers.

Every import is an edge: at the top of a module, inside a function (a lazy import is still a
dependency, only a later one) and under ``TYPE_CHECKING`` (a type-only import still ties one
module's meaning to the other's). ``from pkg import name`` is an edge to ``pkg.name`` when that
is a module, else to ``pkg``; ``__import__``/``import_module`` of a constant name, or of an
f-string with a constant head (hookrun's ``f"ovhooks.events.{module}"``), is an edge to every
module the head names. Importing ``a.b.c`` also runs ``a`` and ``a.b``; those implicit edges
are not counted (they would tie every package ``__init__`` to its own modules).

``tests/test_layers.py`` fails on any circle and on any import that reaches up a layer
(``LAYERS``, bottom first); docs/ARCHITECTURE.md's layer table is rendered from ``LAYERS``
(``scripts/module_index.py``). Run this to see the graph's circles and upward imports:

    python scripts/module_graph.py
"""

from __future__ import annotations

import ast
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(REPO, "ovhooks")

# Bottom first. A module may import its own layer and the layers below, never one above.
# Each pattern names a package or a module at the top of ``ovhooks`` (``"ovhooks"`` itself
# names only the root module): a folder is one concern and lies in one layer whole, so the
# table never moves a single module out of its folder (``tests/test_layers.py`` holds it so).
LAYERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "foundations",
        "settings and the state layout (paths, stored shapes), ids, files, redaction, spawning",
        (
            "ovhooks",
            "ovhooks.redact",
            "ovhooks.fsutil",
            "ovhooks.ids",
            "ovhooks.rules",  # what the memory verbs accept (limits, the memory URI rule)
            "ovhooks.model",
            "ovhooks.settings",
            "ovhooks.spawn",
        ),
    ),
    (
        "text",
        "pure text work: transcripts to turns, turns to messages (secrets out), lexical terms",
        ("ovhooks.transcripts", "ovhooks.capture", "ovhooks.lexical"),
    ),
    (
        "log",
        "the log: one scrubbed line per event, read back by status and doctor",
        ("ovhooks.log",),
    ),
    (
        "transport",
        "the one HTTP/1.1 client (connections, proxies, TLS, URLs) and its error",
        ("ovhooks.transport",),
    ),
    (
        "backend",
        "the Backend protocol: OpenViking over HTTP, the local store, the embedding service",
        ("ovhooks.backend", "ovhooks.semantic"),
    ),
    (
        "state",
        "session documents and commit decisions, project identity",
        ("ovhooks.session", "ovhooks.project"),
    ),
    (
        "write path",
        "the worker and the durable queue: capture, then send exactly once",
        ("ovhooks.worker", "ovhooks.outbox"),
    ),
    (
        "read path",
        "recall for a prompt (skill memory too), the session-start context",
        ("ovhooks.recall", "ovhooks.context"),
    ),
    (
        "events",
        "host payloads to events, one handler per hook event",
        ("ovhooks.hosts", "ovhooks.events"),
    ),
    (
        "edge",
        "entry points: the hook runner, the dry run, the commands, the viewer, the MCP server, "
        "the CLI",
        (
            "ovhooks.hookrun",
            "ovhooks.dryrun",
            "ovhooks.commands",
            "ovhooks.mcp",
            "ovhooks.ui",
            "ovhooks.cli",
            "ovhooks.__main__",
        ),
    ),
)


def modules(root: str = PACKAGE) -> dict[str, str]:
    """Dotted name -> file, for every module under ``root`` (a package directory)."""
    base = os.path.dirname(root)
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            dotted = os.path.relpath(path, base)[:-3].replace(os.sep, ".")
            found[dotted.removesuffix(".__init__")] = path
    return found


def _absolute(module: str | None, level: int, importer: str, is_package: bool) -> str:
    if not level:
        return module or ""
    parts = importer.split(".")
    keep = len(parts) - level + (1 if is_package else 0)
    return ".".join(parts[:keep] + ([module] if module else []))


def _dynamic_targets(call: ast.Call, known: dict[str, str]) -> set[str]:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    if name not in ("__import__", "import_module") or not call.args:
        return set()
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return {arg.value} & set(known)
    if (
        isinstance(arg, ast.JoinedStr)
        and arg.values
        and isinstance(arg.values[0], ast.Constant)
        and isinstance(arg.values[0].value, str)
    ):
        head = arg.values[0].value
        return {m for m in known if m.startswith(head) and m != head.rstrip(".")}
    return set()


def imports(name: str, path: str, known: dict[str, str]) -> set[str]:
    """The modules of ``known`` that module ``name`` (file ``path``) imports, anywhere in it."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    is_package = path.endswith("__init__.py")
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target:
                    out.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, name, is_package)
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    out.add(f"{base}.{alias.name}")
                elif base in known:
                    out.add(base)
        elif isinstance(node, ast.Call):
            out |= _dynamic_targets(node, known)
    out.discard(name)
    return out


def graph(root: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules it imports, for every module under ``root``."""
    known = modules(root)
    return {name: imports(name, path, known) for name, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Each group of modules that reach one another (a strongly connected component of two
    or more), its members sorted; Tarjan's algorithm, iterative (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def describe(edges: dict[str, set[str]], group: list[str]) -> str:
    """The group's members and its shortest circle through the first of them, e.g.
    ``a, b, c: a -> b -> a``."""
    members, first = set(group), group[0]
    paths = {first: [first]}
    queue = [first]
    circle = [*group, first]
    while queue:
        node = queue.pop(0)
        if first in edges[node] and node != first:
            circle = [*paths[node], first]
            break
        for nxt in sorted(edges[node] & members):
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    return ", ".join(group) + ": " + " -> ".join(circle)


def layer_of(module: str, layers: tuple[tuple[str, str, tuple[str, ...]], ...] = LAYERS) -> int:
    """The index in ``layers`` of the module's layer (bottom is 0); -1 when none names it."""
    best, found = -1, -1
    for number, (_name, _what, patterns) in enumerate(layers):
        for pattern in patterns:
            root_only = "." not in pattern
            names = module == pattern or (not root_only and module.startswith(pattern + "."))
            if names and len(pattern) > best:
                best, found = len(pattern), number
    return found


def upward(
    edges: dict[str, set[str]], layers: tuple[tuple[str, str, tuple[str, ...]], ...] = LAYERS
) -> list[str]:
    """Every import from a module to one in a higher layer, as ``a (layer) -> b (layer)``."""
    out = []
    for module in sorted(edges):
        own = layer_of(module, layers)
        for target in sorted(edges[module]):
            theirs = layer_of(target, layers)
            if own >= 0 and theirs > own:
                out.append(f"{module} ({layers[own][0]}) -> {target} ({layers[theirs][0]})")
    return out


def loose(root: str = PACKAGE) -> list[str]:
    """The modules directly under the package directory (not in a sub-package)."""
    return sorted(f[:-3] for f in os.listdir(root) if f.endswith(".py"))


def main() -> int:
    edges = graph()
    found = circles(edges)
    print(f"{len(edges)} modules, {sum(len(v) for v in edges.values())} imports")
    print(f"circles: {len(found)}")
    for group in found:
        print("  " + describe(edges, group))
    unplaced = sorted(m for m in edges if layer_of(m) < 0)
    print(f"modules in no layer: {len(unplaced)}", *unplaced)
    up = upward(edges)
    print(f"upward imports: {len(up)}")
    for line in up:
        print("  " + line)
    print(f"loose top-level modules: {len(loose())}", *loose())
    return 1 if found or unplaced or up else 0


if __name__ == "__main__":
    sys.exit(main())
