"""docs/ARCHITECTURE.md is a true map: its picture of the layers and flows names only modules
that exist, each in the row of its real layer, its layer table is the one the layer test
enforces (issue 22), and its index lists every module of the package, and only those (issue
17). Modules and functions stay within their sizes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.support.scripts import load_script

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "ARCHITECTURE.md"


def test_the_module_index_matches_the_tree() -> None:
    index = load_script("module_index")
    in_tree = [name for name, _sentence in index.modules()]
    in_doc = index.listed((REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    missing = sorted(set(in_tree) - set(in_doc))
    stale = sorted(set(in_doc) - set(in_tree))
    assert not missing and not stale, (
        f"run scripts/module_index.py: missing {missing}, no longer in the tree {stale}"
    )


def test_every_module_says_what_it_is() -> None:
    empty = [name for name, sentence in load_script("module_index").modules() if not sentence]
    assert empty == [], f"modules without a docstring: {empty}"


def test_the_index_reader_sees_a_stale_entry() -> None:
    index = load_script("module_index")
    text = index.render().replace(index.END, "| `ovhooks.gone` | removed |\n" + index.END)
    assert "ovhooks.gone" in index.listed(text)
    assert index.listed("no index here") == []


# --- the picture: layers and the two flows ---------------------------------------------------


def picture(text: str) -> list[tuple[str, str]]:
    """(layer, the rest of the line) for each line of the doc's first picture under "Layers";
    a line with an empty layer cell continues the row above."""
    section = text.split("## Layers and the two flows", 1)[1]
    block = section.split("```", 2)[1]
    rows: list[tuple[str, str]] = []
    for line in block.splitlines():
        if "│" not in line or line.lstrip().startswith("layer"):
            continue
        label, rest = line.split("│", 1)
        layer = label.strip() or (rows[-1][0] if rows else "")
        rows.append((layer, rest))
    return rows


def named_modules(rest: str, modules: dict[str, str]) -> list[tuple[str, str]]:
    """(dotted name as written, the module it names) for each name in ``rest`` whose first
    part is a module or package of ovhooks: ``hosts.base.render_reply`` names
    ``ovhooks.hosts.base``; a name the module does not define names nothing (returned as "")."""
    out = []
    for word in re.findall(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", rest):
        parts = word.split(".")
        if f"ovhooks.{parts[0]}" not in modules:
            continue
        depth = max(
            n for n in range(1, len(parts) + 1) if f"ovhooks.{'.'.join(parts[:n])}" in modules
        )
        module = f"ovhooks.{'.'.join(parts[:depth])}"
        left = parts[depth:]
        if left and (len(left) > 1 or left[0] not in _top_level_names(modules[module])):
            module = ""
        out.append((word, module))
    return out


def _top_level_names(path: str) -> set[str]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


def test_the_picture_names_real_modules_each_in_its_own_layer() -> None:
    graph = load_script("module_graph")
    modules = graph.modules()
    layer_names = [name for name, _what, _patterns in graph.LAYERS]
    rows = picture(DOC.read_text(encoding="utf-8"))
    drawn = list(dict.fromkeys(layer for layer, _rest in rows))
    assert drawn == layer_names[::-1], "the picture's rows are the layers, top first"
    wrong = []
    for layer, rest in rows:
        for word, module in named_modules(rest, modules):
            real = layer_names[graph.layer_of(module)] if module else "nowhere (no such module)"
            if real != layer:
                wrong.append(f"{word}: drawn in {layer}, is in {real}")
    assert wrong == []
    named = {m for _layer, rest in rows for _w, m in named_modules(rest, modules)}
    assert len(named) >= 20, "the picture names the modules of both flows"


def test_the_picture_check_sees_a_misplaced_or_missing_module() -> None:
    graph = load_script("module_graph")
    modules = graph.modules()
    assert named_modules(" 3 events.stop ─▶ hosts.base.render_reply, capture", modules) == [
        ("events.stop", "ovhooks.events.stop"),
        ("hosts.base.render_reply", "ovhooks.hosts.base"),
        ("capture", "ovhooks.capture"),
    ]
    assert named_modules("worker.gone, hosts.base.no_such_function, Event", modules) == [
        ("worker.gone", ""),  # the package exists, the module does not
        ("hosts.base.no_such_function", ""),
    ]
    rows = picture("## Layers and the two flows\n```\n x │ a\n   │ b\n y │ c\n```\n")
    assert rows == [("x", " a"), ("x", " b"), ("y", " c")]


def test_the_layer_table_is_the_one_the_layer_test_enforces() -> None:
    index = load_script("module_index")
    in_doc = index.listed_layers(DOC.read_text(encoding="utf-8"))
    assert in_doc == index.render_layers(), "run scripts/module_index.py"


# --- size: modules under 400 lines, functions under 80 ---------------------------------------

MODULE_MAX = 400
FUNCTION_MAX = 80
# Declarative tables exempt from the limits: data, not logic, read as a list rather than
# followed as steps. None needs the exemption today: the largest tables (the settings table
# ``config._FIELDS``, the credential formats of ``capture/scrub_rules.py``, the bilingual
# word pairs of ``lexical/glossary.py``) fit inside their modules. A table that ever
# pushes its module or function over the limit is named here with why it cannot be split.
DECLARATIVE_TABLES: dict[str, str] = {}


def oversized(source: str, name: str) -> list[str]:
    """``name`` if the module is over MODULE_MAX lines, ``name:qualname`` for each function
    over FUNCTION_MAX lines (decorators included; nested functions by their dotted path)."""
    found = [name] if len(source.splitlines()) > MODULE_MAX else []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qualname = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    if (child.end_lineno or child.lineno) - first + 1 > FUNCTION_MAX:
                        found.append(f"{name}:{qualname}")
                visit(child, qualname + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def test_no_module_or_function_over_the_limits() -> None:
    found: set[str] = set()
    for path in sorted((REPO / "ovhooks").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        found.update(oversized(path.read_text(encoding="utf-8"), name))
    allowed = set(DECLARATIVE_TABLES)
    assert sorted(found - allowed) == [], "split these (modules <= 400 lines, functions <= 80)"
    assert sorted(allowed - found) == [], "within the limits now: remove from the allow-list"


def test_the_size_check_sees_long_functions_and_modules() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(FUNCTION_MAX))
    nested = f"def outer():\n    def inner():\n{body.replace('    ', '        ')}"
    assert oversized(f"def short():\n    pass\n\n@dec\ndef long():\n{body}", "m.py") == [
        "m.py:long"
    ]
    assert oversized(nested, "m.py") == ["m.py:outer", "m.py:outer.inner"]
    assert oversized("x = 1\n" * (MODULE_MAX + 1), "m.py") == ["m.py"]
    assert oversized("x = 1\n" * MODULE_MAX, "m.py") == []
