"""The rig itself: the real host CLIs talk to our stubs and run our hooks (no ovhooks here).

If these fail, the ovhooks stories in this folder cannot pass either, whatever ovhooks does:
a host upgrade changed its wire format or its hook plumbing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import host_stubs, hosts
from tests.support.host_stubs import MessagesStub, ResponsesStub

pytestmark = pytest.mark.hosts_e2e


@pytest.fixture
def hook_script(tmp_path: Path) -> str:
    path = tmp_path / "log_hook.py"
    path.write_text(hosts.LOGGING_HOOK_SOURCE, encoding="utf-8")
    return str(path)


@pytest.fixture
def responses_stub(tmp_path: Path) -> Iterator[ResponsesStub]:
    with ResponsesStub(log_dir=str(tmp_path / "stub-requests")) as stub:
        yield stub


@pytest.fixture
def messages_stub(tmp_path: Path) -> Iterator[MessagesStub]:
    with MessagesStub(log_dir=str(tmp_path / "stub-requests")) as stub:
        yield stub


def events_of(log_path: str) -> list[str]:
    return [str(entry["event"]) for entry in hosts.read_hook_log(log_path)]


def test_codex_runs_hooks_and_their_context_reaches_the_model(
    codex_cli: str, tmp_path: Path, hook_script: str, responses_stub: ResponsesStub
):
    log_path = str(tmp_path / "hooks.jsonl")
    codex = hosts.CodexHost(
        codex_cli,
        str(tmp_path / "codex"),
        responses_stub,
        hook_commands=hosts.logging_hook_commands(
            hook_script, "codex", log_path, hosts.CODEX_EVENTS
        ),
        base_env=os.environ,
    )
    codex.exec("hello first turn").check()
    codex.exec("second turn RUNSHELL please", resume=True).check()
    codex.exec(
        "third turn after compaction", resume=True, config=["model_auto_compact_token_limit=20"]
    ).check()

    events = events_of(log_path)
    assert events[:4] == ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"], events
    for expected in ("PreToolUse", "PostToolUse", "PreCompact", "PostCompact"):
        assert expected in events, events
    assert len(codex.session_ids()) == 1, "resume must continue the same Codex session"

    turns = responses_stub.turn_requests()
    kinds = [responses_stub.replies[r.number] for r in turns]
    assert kinds.count("shell") == 1 and "tool_result" in kinds and "compaction" in kinds, kinds
    first = turns[0].body
    developer = host_stubs.codex_developer_texts(first)
    assert "OVH-MARKER-SS-codex-startup" in developer
    assert "OVH-MARKER-UPS-codex" in developer
    assert host_stubs.codex_user_texts(first)[-1] == "hello first turn"
    last = turns[-1].body
    assert "OVH-MARKER-SS-codex-compact" in host_stubs.codex_developer_texts(last)
    post_tool = next(
        e["payload"] for e in hosts.read_hook_log(log_path) if e["event"] == "PostToolUse"
    )
    assert isinstance(post_tool, dict)
    assert host_stubs.SHELL_OUTPUT in str(post_tool["tool_response"])


def test_claude_runs_hooks_subagents_and_compaction_against_the_stub(
    claude_cli: str, tmp_path: Path, hook_script: str, messages_stub: MessagesStub
):
    log_path = str(tmp_path / "hooks.jsonl")
    claude = hosts.ClaudeHost(
        claude_cli,
        str(tmp_path / "claude"),
        messages_stub,
        hook_commands=hosts.logging_hook_commands(
            hook_script, "claude", log_path, hosts.CLAUDE_EVENTS
        ),
        base_env=os.environ,
    )
    claude.prompt("hello first turn").check()
    claude.prompt("second turn RUNAGENT please", continue_session=True).check()
    claude.prompt("/compact", continue_session=True).check()

    events = events_of(log_path)
    assert events[:4] == ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"], events
    for expected in ("SubagentStart", "SubagentStop", "PreCompact", "PostCompact"):
        assert expected in events, events
    assert len(claude.session_ids()) == 1, "--continue must keep the same Claude session"

    turns = messages_stub.turn_requests()
    kinds = [messages_stub.replies[r.number] for r in turns]
    assert {"agent", "subagent", "tool_result", "compaction"} <= set(kinds), kinds
    first_system = "\n".join(host_stubs.claude_system_texts(turns[0].body))
    assert "SessionStart hook additional context: OVH-MARKER-SS-claude-startup" in first_system
    assert "UserPromptSubmit hook additional context: OVH-MARKER-UPS-claude" in first_system
    subagent_request = next(r for r in turns if messages_stub.replies[r.number] == "subagent")
    assert "OVH-MARKER-SUBSTART-claude" in "\n".join(
        host_stubs.claude_system_texts(subagent_request.body)
    )
