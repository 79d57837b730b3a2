"""The shims in their hosts' real runtimes: thin, bounded, and never in the agent's way.

Each shim is rendered as ``ovhooks install`` writes it, loaded the way its host loads it
(Pi: Node + jiti; OpenCode: the Bun inside ``opencode``), and one handler is called with a
hook command that misbehaves: missing, crashing, printing garbage or too much, or hanging.
The handler must come back with no context, within the shim's bound, and never throw; with
a well-behaved hook, its context reaches the system prompt.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.support.shim_runtime import call_shim

pytestmark = [pytest.mark.hosts_e2e]

BOUND_MS = 800  # OVHOOKS_SHIM_TIMEOUT_MS for these runs
PAYLOAD = {"session_id": "ses_t", "cwd": "/", "transcript_path": "", "prompt": "tabs or spaces?"}
HOOKS = {
    "missing": None,
    "crash": "import sys; sys.exit(3)",
    "garbage": "print('not json at all')",
    "too-much": "import sys; sys.stdout.write('{' + ' ' * 3_000_000 + '}')",
    "hangs": "import time; time.sleep(30)",
    "array": "print('[1, 2]')",
}
GOOD = (
    "import json, sys; sys.stdin.read(); print(json.dumps({'hookSpecificOutput': "
    "{'additionalContext': 'RECALLED-' + sys.argv[1]}}))"
)


def _command(tmp_path: Path, name: str, source: str | None) -> str:
    if source is None:
        return str(tmp_path / "no-such-ovhooks")
    script = tmp_path / f"{name}.py"
    script.write_text(source, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def _host_bin(request: pytest.FixtureRequest, host: str) -> str:
    return str(request.getfixturevalue("pi_cli" if host == "pi" else "opencode_cli"))


EVENTS = {"pi": "before_agent_start", "opencode": "chat.message"}


@pytest.mark.parametrize("host", ["pi", "opencode"])
@pytest.mark.parametrize("name", sorted(HOOKS))
def test_a_misbehaving_hook_costs_no_more_than_the_bound_and_adds_nothing(
    host: str, name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    command = _command(tmp_path, name, HOOKS[name])
    env = {"OVHOOKS_SHIM_TIMEOUT_MS": str(BOUND_MS), "HOME": str(tmp_path)}
    result = call_shim(
        host, _host_bin(request, host), command, EVENTS[host], PAYLOAD, tmp_path, env
    )
    if host == "pi":
        assert result["returned"] is None, result  # the system prompt is left alone
    else:
        assert result["system"] == [], result
    # before_agent_start / chat.message start two hooks (session-start, then recall)
    assert result["ms"] < 2 * BOUND_MS + 1500, result


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_a_good_hooks_context_reaches_the_system_prompt(
    host: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    command = _command(tmp_path, "good", GOOD)
    result = call_shim(host, _host_bin(request, host), command, EVENTS[host], PAYLOAD, tmp_path, {})
    if host == "pi":
        system = result["returned"]["systemPrompt"]
        assert system.startswith("BASE\n\n")
    else:
        system = "\n\n".join(result["system"])
    assert "RECALLED-session-start" in system and "RECALLED-user-prompt-submit" in system


def test_the_shims_register_only_their_memory_events(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    command = _command(tmp_path, "good", GOOD)
    pi = call_shim("pi", _host_bin(request, "pi"), command, "agent_end", PAYLOAD, tmp_path, {})
    assert pi["handlers"] == [
        "agent_end",
        "before_agent_start",
        "session_before_compact",
        "session_shutdown",
        "session_start",
        "tool_call",
    ]
    oc = call_shim(
        "opencode", _host_bin(request, "opencode"), command, "session.idle", PAYLOAD, tmp_path, {}
    )
    assert oc["handlers"] == [
        "chat.message",
        "dispose",
        "event",
        "experimental.chat.system.transform",
        "experimental.session.compacting",
        "tool.execute.before",
    ]


@pytest.mark.parametrize(
    ("host", "event", "tool", "tool_input", "blocked"),
    [
        ("pi", "tool_call", "read", {"path": "viking://user/default/memories/x.md"}, True),
        ("pi", "tool_call", "ls", {"path": "viking://user/default/memories/"}, True),
        ("pi", "tool_call", "read", {"path": "/etc/hostname"}, False),
        ("pi", "tool_call", "grep", {"pattern": "viking://", "path": "src"}, False),
        ("pi", "tool_call", "bash", {"command": "cat viking://x"}, False),
        ("opencode", "tool.execute.before", "read", {"filePath": "viking://user/x.md"}, True),
        ("opencode", "tool.execute.before", "list", {"path": "viking://user/"}, True),
        ("opencode", "tool.execute.before", "grep", {"pattern": "viking://"}, False),
        ("opencode", "tool.execute.before", "read", {"filePath": "README.md"}, False),
    ],
)
def test_file_tools_aimed_at_memory_uris_are_blocked_with_the_command_to_use(
    host: str,
    event: str,
    tool: str,
    tool_input: dict[str, str],
    blocked: bool,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    ovhooks_bin: str,
) -> None:
    payload = {**PAYLOAD, "toolName": tool, "tool": tool, "input": tool_input}
    env = {"HOME": str(tmp_path), "OVHOOKS_STATE_DIR": str(tmp_path / "state")}
    result = call_shim(host, _host_bin(request, host), ovhooks_bin, event, payload, tmp_path, env)
    if host == "pi":
        returned = result["returned"] or {}
        reason = returned.get("reason", "") if returned.get("block") is True else ""
    else:
        (outcome,) = result["system"]
        reason = outcome.removeprefix("BLOCKED: ") if outcome.startswith("BLOCKED") else ""
    if blocked:
        assert "ovhooks" in reason and "viking://" in reason, result
    else:
        assert reason == "", result
