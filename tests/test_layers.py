"""The package is layered without circles (issue 22): read from the source with ``ast`` by
scripts/module_graph.py, lazy and type-only imports included, no two modules import each
other through any chain, no module imports one from a higher layer, and at most ten modules
lie loose at the top of the package."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripts import load_script

REPO = Path(__file__).resolve().parents[1]
MAX_LOOSE = 10


mg = load_script("module_graph")


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    found: dict[str, set[str]] = mg.graph()
    return found


def test_no_import_circle(edges: dict[str, set[str]]) -> None:
    found = [mg.describe(edges, g) for g in mg.circles(edges)]
    assert found == [], "import circles (lazy and type-only imports count):\n" + "\n".join(found)


def test_every_module_has_a_layer(edges: dict[str, set[str]]) -> None:
    unplaced = sorted(m for m in edges if mg.layer_of(m) < 0)
    assert unplaced == [], f"place these in scripts/module_graph.py's LAYERS: {unplaced}"


def test_no_module_imports_a_higher_layer(edges: dict[str, set[str]]) -> None:
    up = mg.upward(edges)
    assert up == [], "imports that reach up a layer:\n" + "\n".join(up)


def test_every_layer_pattern_names_something(edges: dict[str, set[str]]) -> None:
    """A pattern naming no module (a package moved or renamed) would silently place nothing."""
    patterns = [p for _name, _what, group in mg.LAYERS for p in group]
    dead = [p for p in patterns if not any(m == p or m.startswith(p + ".") for m in edges)]
    assert dead == []
    assert len(patterns) == len(set(patterns)), "a pattern in two layers"


def test_every_layer_pattern_is_a_whole_folder_or_a_top_module() -> None:
    """A folder is one concern in one layer: the table names packages and the modules at the
    top of ``ovhooks``, never a module moved out of its folder into another layer."""
    patterns = [p for _name, _what, group in mg.LAYERS for p in group]
    split = [p for p in patterns if p.count(".") > 1]
    assert split == [], f"single modules moved out of their folder: {split}"


def test_at_most_ten_loose_modules_at_the_top() -> None:
    loose = mg.loose()
    assert len(loose) <= MAX_LOOSE, f"{len(loose)} loose top-level modules: {loose}"


# --- the reader itself: it sees every kind of import, and the rules can fail ---------------


def _package(root: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(root / "pkg")


def test_the_reader_sees_lazy_type_only_relative_and_dynamic_imports(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "def f():\n    from pkg.sub import b\n",  # lazy, `from pkg import module`
            "sub/__init__.py": "",
            "sub/b.py": ("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from pkg.c import Thing\n"),
            "c.py": "from . import d\nimport pkg.sub\n",  # relative; `import` of a package
            "d.py": "from pkg.e import name\n",  # a name: the edge goes to its module
            "e.py": "name = 1\n",
            "f.py": "def g(m):\n    return __import__(f'pkg.sub.{m}')\n",
        },
    )
    edges = mg.graph(root)
    assert edges["pkg.a"] == {"pkg.sub.b"}
    assert edges["pkg.sub.b"] == {"pkg.c"}
    assert edges["pkg.c"] == {"pkg.d", "pkg.sub"}
    assert edges["pkg.d"] == {"pkg.e"}
    assert edges["pkg.f"] == {"pkg.sub.b"}
    assert mg.loose(root) == ["__init__", "a", "c", "d", "e", "f"]


def test_a_circle_through_a_lazy_import_is_found_and_named(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "import pkg.b\n",
            "b.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    import pkg.c\n",
            "c.py": "def late():\n    from pkg import a\n",
            "d.py": "import pkg.a\n",  # reaches the circle, is not in it
        },
    )
    edges = mg.graph(root)
    groups = mg.circles(edges)
    assert groups == [["pkg.a", "pkg.b", "pkg.c"]]
    assert mg.describe(edges, groups[0]) == "pkg.a, pkg.b, pkg.c: pkg.a -> pkg.b -> pkg.c -> pkg.a"


def test_the_layer_rule_catches_an_upward_import(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "low.py": "def f():\n    from pkg.high import x\n",
            "high/__init__.py": "",
            "high/x.py": "import pkg.low\nimport pkg.high.paths\n",
            "high/paths.py": "",
        },
    )
    layers = (
        ("bottom", "", ("pkg", "pkg.low", "pkg.high.paths")),
        ("top", "", ("pkg.high",)),
    )
    edges = mg.graph(root)
    assert mg.layer_of("pkg.high.paths", layers) == 0  # the longest pattern wins
    assert mg.layer_of("pkg.high.x", layers) == 1
    assert mg.layer_of("pkg.lower", layers) == -1  # a pattern names a module, not a prefix
    assert mg.upward(edges, layers) == ["pkg.low (bottom) -> pkg.high.x (top)"]
