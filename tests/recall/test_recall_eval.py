"""scripts/recall_eval.py runs its scripted set against the fake backend and scores well."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "recall_eval.py")


def load() -> Any:
    spec = importlib.util.spec_from_file_location("recall_eval", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scripted_evaluation_on_the_fake_backend() -> None:
    module = load()
    assert len(module.PROMPTS) >= 20
    result = module.evaluate(None, verbose=False)
    assert result["prompts"] >= 20
    # 13 of 15: the fake's bag-of-words score is the only signal here, and one shared word
    # ("yaml") at the probes' level is no longer enough evidence on its own (recall/calibrate).
    assert result["hit_rate"] >= 0.85
    assert result["clean_rate"] >= 0.85
    assert result["injected_tokens_max"] <= 1200


def test_script_prints_the_summary(capsys: Any) -> None:
    assert load().main([]) == 0
    out = capsys.readouterr().out
    assert "hit rate:" in out and "injected tokens:" in out
