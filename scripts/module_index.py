"""Write the module index of docs/ARCHITECTURE.md: every module of the package with the first
sentence of its docstring. ``tests/test_architecture.py`` fails when the index and the tree
disagree; run this after adding, moving or removing a module.

    python scripts/module_index.py
"""

from __future__ import annotations

import ast
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(REPO, "docs", "ARCHITECTURE.md")
START = "<!-- module index: scripts/module_index.py -->"
END = "<!-- end of module index -->"


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


def main() -> int:
    with open(DOC, encoding="utf-8") as fh:
        text = fh.read()
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
