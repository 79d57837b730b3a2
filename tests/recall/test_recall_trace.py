"""The evaluation's trace (scripts/recall_trace.py): every candidate of a prompt with the
decision recall took and the memories it shows, from a real local store written by the real
``ovhooks remember`` process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripts import load_script

harness = load_script("recall_eval")
tracing = load_script("recall_trace")


def test_a_direct_prompt_traces_to_its_memory_and_a_probe_finds_a_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = harness.isolated_env(
        str(tmp_path), {"OVHOOKS_BACKEND": "local", "OVHOOKS_SEMANTIC": "off"}
    )
    runner = harness.Runner(env)
    project = harness.project_dir(str(tmp_path), "/work/billing")
    monkeypatch.chdir(project)  # `remember` files the memory under the project it runs in
    runner.command("remember", "The billing API deploys to Fly.io and uses Postgres 16.")
    runner.command("remember", "Our office cat is called Biscuit and sleeps on the rack.")

    def shows(uri: str, text: str) -> list[str]:
        return ["deploy"] if "Fly.io" in text else ["cat"] if "Biscuit" in text else []

    traced = tracing.trace_prompt(env, project, "does the billing API deploy to Fly.io?", shows)
    assert traced["reason"] == "ok"
    first = traced["candidates"][0]
    assert first["shows"] == ["deploy"]
    assert first["decision"] == "injected"
    assert first["units"] > 0
    assert all(
        row["shows"] != ["cat"] or row["decision"] != "injected" for row in traced["candidates"]
    )

    tops = tracing.probe_tops(env, project, ["which database does billing use, Postgres?", "zzz"])
    assert tops["which database does billing use, Postgres?"] is not None
    assert tops["zzz"] is None
