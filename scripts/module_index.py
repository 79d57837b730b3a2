"""Write the generated parts of docs/ARCHITECTURE.md: the layer table (from
``scripts/module_graph.py``'s ``LAYERS``, top layer first) and the module index (every module of
the package with the first sentence of its docstring). ``tests/test_architecture.py`` fails
when either disagrees with the tree; run this after adding, moving or removing a module or
changing the layers.

    python scripts/module_index.py
"""

from __future__ import annotations

import ast
import os
import re
import sys
from types import ModuleType

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(REPO, "docs", "ARCHITECTURE.md")
START = "<!-- module index: scripts/module_index.py -->"
END = "<!-- end of module index -->"
LAYERS_START = "<!-- layers: scripts/module_index.py, from scripts/module_graph.py -->"
LAYERS_END = "<!-- end of layers -->"


def modules(root: str = os.path.join(REPO, "ovhooks")) -> list[tuple[str, str]]:
    """``(dotted name, first sentence of its docstring)`` for every module, sorted."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            dotted = os.path.relpath(path, REPO)[:-3].replace(os.sep, ".")
            dotted = dotted.removesuffix(".__init__")
            with open(path, encoding="utf-8") as fh:
                doc = ast.get_docstring(ast.parse(fh.read())) or ""
            paragraph = " ".join(doc.strip().split("\n\n")[0].split())
            sentence = re.split(r"(?<=\.)\s", paragraph, maxsplit=1)[0]
            out.append((dotted, sentence.replace("|", "\\|")))
    return sorted(out)


def listed(text: str) -> list[str]:
    """The module names the index in ``text`` lists."""
    if START not in text or END not in text:
        return []
    section = text.split(START, 1)[1].split(END, 1)[0]
    return re.findall(r"^\| `([\w.]+)` \|", section, flags=re.M)


def render() -> str:
    lines = [START, "", "| module | what it is |", "|---|---|"]
    lines += [f"| `{name}` | {sentence} |" for name, sentence in modules()]
    return "\n".join([*lines, "", END])


def _graph_module() -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "module_graph", os.path.join(REPO, "scripts", "module_graph.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("module_graph", module)
    spec.loader.exec_module(module)
    return module


def render_layers() -> str:
    """The layer table, top layer first: what each holds and which packages and modules."""
    lines = [LAYERS_START, "", "| layer | packages and modules | what it holds |", "|---|---|---|"]
    for name, what, patterns in reversed(_graph_module().LAYERS):
        names = ", ".join(f"`{p.removeprefix('ovhooks.')}`" for p in patterns)
        lines.append(f"| {name} | {names} | {what} |")
    return "\n".join([*lines, "", LAYERS_END])


def listed_layers(text: str) -> str:
    """The layer table section of ``text``, markers included ("" when there is none)."""
    if LAYERS_START not in text or LAYERS_END not in text:
        return ""
    return LAYERS_START + text.split(LAYERS_START, 1)[1].split(LAYERS_END, 1)[0] + LAYERS_END


def main() -> int:
    with open(DOC, encoding="utf-8") as fh:
        text = fh.read()
    if LAYERS_START in text:
        head, rest = text.split(LAYERS_START, 1)
        text = head + render_layers() + rest.split(LAYERS_END, 1)[1]
    if START in text:
        head, rest = text.split(START, 1)
        text = head + render() + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n## Module index\n\n" + render() + "\n"
    with open(DOC, "w", encoding="utf-8") as fh:
        fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
