"""OVHOOKS_USAGE_VIEW=summary: Stop's systemMessage names the memories supplied this turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.recall.usage import note_supplied, take_summary
from tests.support.hooks import run_inline
from tests.support.rollouts import CodexRollout, codex_payload
from tests.support.stores import LocalStore

MEMORY = "The user always indents Python with tabs, never spaces, in every project."


def test_summary_counts_sources_by_kind(tmp_path: Path) -> None:
    uris = [
        "viking://user/u/memories/preferences/default/tabs.md",
        "viking://user/u/peers/github-com-acme-widget/memories/entities/ci.md",
        "viking://user/u/memories/preferences/default/editor.md",
        "viking://resources/handbook/deploy.md",
    ]
    note_supplied(str(tmp_path), "cx-1", uris, 1.0)
    line = take_summary(str(tmp_path), "cx-1")
    # counted by kind, and named (README: "names the memories supplied"), three at most
    assert (
        line
        == "ovhooks: 4 memories supplied · prefs 2, project 1, docs 1: tabs, ci, editor, +1 more"
    )
    assert take_summary(str(tmp_path), "cx-1") is None  # said once per turn
    note_supplied(str(tmp_path), "cx-1", [], 2.0)
    assert take_summary(str(tmp_path), "cx-1") is None


def test_a_name_is_shown_without_its_folder_hash_or_controls(tmp_path: Path) -> None:
    uris = ["viking://user/u/memories/preferences/default/in-this-repository-i-always-07ef76.md"]
    note_supplied(str(tmp_path), "cx-2", [*uris, "viking://user/u/memories/x/a\x1b[2Jb.md"], 1.0)
    line = take_summary(str(tmp_path), "cx-2")
    assert (
        line
        == "ovhooks: 2 memories supplied · prefs 1, other 1: in-this-repository-i-always, a[2Jb"
    )


@pytest.mark.parametrize("view", ["summary", "off", None])
def test_stop_reports_the_turns_sources(tmp_path: Path, view: str | None) -> None:
    store = LocalStore(tmp_path / "data")
    LocalBackend(str(store.data_dir), user="default").write(
        "viking://user/default/memories/preferences/default/indentation.md", MEMORY
    )
    env = store.env(**({"OVHOOKS_USAGE_VIEW": view} if view else {}))
    work = tmp_path / "w"
    work.mkdir()
    r = CodexRollout(tmp_path / "r.jsonl", "s1")
    prompt = "Should I indent this Python file with tabs or spaces?"
    reply, _ = run_inline(
        "user-prompt-submit",
        codex_payload("UserPromptSubmit", "s1", r.path, work, prompt=prompt),
        env,
    )
    assert "tabs" in str(reply)
    r.user(prompt)
    r.assistant("Tabs, as you prefer.")
    stop, _ = run_inline("stop", codex_payload("Stop", "s1", r.path, work), env)
    message = str(stop.get("systemMessage") or "")
    if view == "summary":
        assert message == "ovhooks: 1 memory supplied · prefs 1: indentation"
    else:
        assert "supplied" not in message
