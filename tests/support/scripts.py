"""Loading one of the repository's ``scripts/*.py`` as a module, for the tests that check
what a script computes (the scripts folder is not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py``, executed fresh and registered as ``sys.modules[name]`` (a
    dataclass or a lazy import inside it looks itself up there)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def labelled_sets(*names: str) -> dict[str, ModuleType]:
    """The labelled sets' loader scripts by set name (``scripts/recall_eval.py``'s ``SETS``),
    for the tests that check a supplement against its set's memories."""
    harness = sys.modules.get("recall_eval") or load_script("recall_eval")
    return {name: load_script(harness.SETS[name]) for name in names}
