"""docs/ARCHITECTURE.md lists every module of the package, and only those (issue 17)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def _index_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "module_index", REPO / "scripts" / "module_index.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["module_index"] = module
    spec.loader.exec_module(module)
    return module


def test_the_module_index_matches_the_tree() -> None:
    index = _index_script()
    in_tree = [name for name, _sentence in index.modules()]
    in_doc = index.listed((REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    missing = sorted(set(in_tree) - set(in_doc))
    stale = sorted(set(in_doc) - set(in_tree))
    assert not missing and not stale, (
        f"run scripts/module_index.py: missing {missing}, no longer in the tree {stale}"
    )


def test_every_module_says_what_it_is() -> None:
    empty = [name for name, sentence in _index_script().modules() if not sentence]
    assert empty == [], f"modules without a docstring: {empty}"


def test_the_index_reader_sees_a_stale_entry() -> None:
    index = _index_script()
    text = index.render().replace(index.END, "| `ovhooks.gone` | removed |\n" + index.END)
    assert "ovhooks.gone" in index.listed(text)
    assert index.listed("no index here") == []
