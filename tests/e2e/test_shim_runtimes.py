"""The shims in their hosts' real runtimes: thin, bounded, and never in the agent's way.

Each shim is rendered as ``ovhooks install`` writes it, loaded the way its host loads it
(Pi: Node + jiti; OpenCode: the Bun inside ``opencode``), and one handler is called with a
hook command that misbehaves: missing, crashing, printing garbage or too much, or hanging.
The handler must come back with no context, within the shim's bound, and never throw; with
a well-behaved hook, its context is added to the conversation after the prompt (Pi: a
custom message; OpenCode: synthetic parts of the user message), never to the system prompt.
A hung hook is killed with everything it started, and the next hooks skip it.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest

from tests.support.shim_runtime import call_shim
from tests.support.standins import alive

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
        assert result["returned"] is None, result  # nothing added, the system prompt untouched
    assert result["added"] == [], result
    # before_agent_start / chat.message start two hooks (session-start, then recall)
    assert result["ms"] < 2 * BOUND_MS + 1500, result


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_a_good_hooks_context_follows_the_prompt_never_in_the_system_prompt(
    host: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    command = _command(tmp_path, "good", GOOD)
    result = call_shim(host, _host_bin(request, host), command, EVENTS[host], PAYLOAD, tmp_path, {})
    if host == "pi":
        returned = result["returned"]
        assert "systemPrompt" not in returned, returned
        assert returned["message"]["customType"] == "ovhooks-memory"
        assert returned["message"]["display"] is False
        assert returned["message"]["details"] == {"sessionStart": True}
        assert result["added"] == ["RECALLED-session-start\n\nRECALLED-user-prompt-submit"]
    else:
        user, start, recall = result["parts"]
        assert user["text"] == PAYLOAD["prompt"]
        assert [start["text"], recall["text"]] == result["added"]
        assert result["added"] == ["RECALLED-session-start", "RECALLED-user-prompt-submit"]
        for part in (start, recall):  # stored with the message, ordered after the prompt
            assert part["synthetic"] is True and part["messageID"] == "msg_1"
            assert part["sessionID"] == PAYLOAD["session_id"] and part["id"] > user["id"]
        assert recall["id"] > start["id"]
        assert start["metadata"] == {"ovhooks-memory": "session-start"}
        # stored hidden (title generation reads stored parts), shown to the agent's calls
        assert start["ignored"] is True and recall["ignored"] is True
        # shown to the agent's calls in a message of their own right after the user's, which
        # stays as stored (title generation counts and slices the user's messages only)
        assert result["shown"] == [[user["text"]], result["added"]]


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_the_session_start_block_is_given_once_per_session(
    host: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    command = _command(tmp_path, "good", GOOD)
    env = {"DRIVER_REPEAT": "2"}
    result = call_shim(
        host, _host_bin(request, host), command, EVENTS[host], PAYLOAD, tmp_path, env
    )
    assert result["added"][-1:] == ["RECALLED-user-prompt-submit"], result  # second prompt
    if host == "pi":  # a continued session whose branch already carries it (`pi -c`)
        given = {"type": "custom_message", "customType": "ovhooks-memory"}
        branch = [{**given, "details": {"sessionStart": True}}]
        payload = {**PAYLOAD, "branch": branch}
        again = call_shim(
            "pi", _host_bin(request, "pi"), command, EVENTS["pi"], payload, tmp_path, {}
        )
        assert again["added"] == ["RECALLED-user-prompt-submit"], again
        after_compaction = {**PAYLOAD, "branch": [*branch, {"type": "compaction"}]}
        again = call_shim(
            "pi", _host_bin(request, "pi"), command, EVENTS["pi"], after_compaction, tmp_path, {}
        )
        assert again["returned"]["message"]["details"] == {"sessionStart": True}, again
    else:
        assert result["added"][:2] == ["RECALLED-session-start", "RECALLED-user-prompt-submit"]
        assert len(result["added"]) == 3, result


HUNG = (
    "import os, subprocess, sys, time\n"
    "child = subprocess.Popen(['sleep', '60'])\n"
    "with open(sys.argv[1], 'a') as f: f.write(f'{os.getpid()} {child.pid}\\n')\n"
    "time.sleep(60)\n"
)


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_a_hung_hook_is_killed_with_its_children_and_the_next_ones_skip_it(
    host: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    script = tmp_path / "hung.py"
    script.write_text(HUNG, encoding="utf-8")
    pids = tmp_path / "pids"
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    command = f"{command} {shlex.quote(str(pids))}"  # where it notes its pids
    env = {"OVHOOKS_SHIM_TIMEOUT_MS": str(BOUND_MS), "DRIVER_REPEAT": "3"}
    result = call_shim(
        host, _host_bin(request, host), command, EVENTS[host], PAYLOAD, tmp_path, env
    )
    first, *later = result["each_ms"]
    assert BOUND_MS <= first < BOUND_MS + 1500, result  # one hang: session start, then skips
    assert all(ms < 100 for ms in later), result
    assert result["added"] == [], result
    started = pids.read_text().split()
    assert len(started) == 2, started  # one process (and its child), never started again
    time.sleep(0.3)
    assert not [p for p in started if alive(int(p))], "a hung hook outlived its bound"


@pytest.mark.parametrize(
    ("left", "skipped"),
    [("3 {self}", True), ("3", False), ("3 Thu Jan  1 00:00:07 1970", False)],
)
def test_opencode_skips_for_its_own_hang_marker_only(
    left: str, skipped: bool, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The memory server's launcher marks OpenCode's pid when it had to stop the server: the
    plugin's hooks then skip. A marker with another start (or none) is a dead OpenCode's
    whose pid came back: the hooks run, and the first clears it."""
    command = _command(tmp_path, "good", GOOD)
    runtime = tmp_path / "run"
    runtime.mkdir()
    env = {"DRIVER_MARKER": left, "XDG_RUNTIME_DIR": str(runtime)}
    result = call_shim(
        "opencode", _host_bin(request, "opencode"), command, "chat.message", PAYLOAD, tmp_path, env
    )
    assert result["added"] == (
        [] if skipped else ["RECALLED-session-start", "RECALLED-user-prompt-submit"]
    )
    (marker,) = runtime.iterdir()
    assert marker.read_text() == "0\n"  # taken by the hooks, or cleared


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
        "experimental.chat.messages.transform",
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
        (outcome,) = result["added"]
        reason = outcome.removeprefix("BLOCKED: ") if outcome.startswith("BLOCKED") else ""
    if blocked:
        assert "ovhooks" in reason and "viking://" in reason, result
    else:
        assert reason == "", result
