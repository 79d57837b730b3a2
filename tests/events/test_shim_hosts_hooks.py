"""Pi and OpenCode hooks: every recorded shim payload, and hostile ones, get a valid reply.

The shims (ovhooks/hosts/shims/) read ``hookSpecificOutput.additionalContext`` from the reply
of session-start and user-prompt-submit and ignore everything else; the reply must still be
exactly one JSON object, exit 0, within the time budget, whatever the input. These run real
processes (``python -m ovhooks``), the way the shims spawn them.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovhooks.hosts.base import EVENT_NAMES, Event
from ovhooks.hosts.opencode import adapt as adapt_opencode
from ovhooks.hosts.pi import adapt as adapt_pi
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import (
    assert_host_valid,
    crash_lines,
    hook_env,
    moved_here,
    run_inline,
    run_process,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"
HOSTS = ("pi", "opencode")


def _payloads(host: str) -> list[tuple[str, dict[str, Any]]]:
    """(hook command, payload) for each recorded payload: files are named ``<hook>-…``."""
    out = []
    for path in sorted((FIXTURES / host / "hook-payloads").glob("*.json")):
        hook = next(
            h for h in sorted(EVENT_NAMES, key=len, reverse=True) if path.stem.startswith(h)
        )
        out.append((hook, json.loads(path.read_text(encoding="utf-8"))))
    return out


PAYLOADS = [(host, hook, payload) for host in HOSTS for hook, payload in _payloads(host)]


def test_both_hosts_have_recorded_payloads_of_their_memory_hooks() -> None:
    assert {h for host, h, _p in PAYLOADS if host == "pi"} == {
        "session-start",
        "user-prompt-submit",
        "stop",
        "pre-compact",
        "session-end",
    }
    assert {h for host, h, _p in PAYLOADS if host == "opencode"} >= {
        "session-start",
        "user-prompt-submit",
        "stop",
        "session-end",
    }


@pytest.mark.parametrize(("host", "hook", "payload"), PAYLOADS, ids=lambda v: str(v)[:40])
def test_every_recorded_payload_gets_a_valid_reply(
    host: str, hook: str, payload: dict[str, Any], fake_ov: FakeOpenViking
) -> None:
    proc, _ = run_process(hook, payload, hook_env(fake_ov.url), host=host)
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 1, lines
    assert_host_valid(host, EVENT_NAMES[hook], json.loads(lines[0]))
    assert crash_lines() == []


BAD_INPUTS = {
    "empty": b"",
    "list": b"[]",
    "wrong-type": b'{"session_id": 5, "transcript_path": ["x"], "prompt": {"a": 1}, "reason": 3}',
    "truncated": b'{"session_id": "abc", "prompt": "hel',
    "binary": bytes(random.Random(11).getrandbits(8) for _ in range(300_000)),
}


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_stdin_never_breaks_the_shim_hosts(
    host: str, name: str, fake_ov: FakeOpenViking
) -> None:
    env = hook_env(fake_ov.url)
    for hook in ("session-start", "user-prompt-submit", "stop", "pre-compact", "session-end"):
        proc, _ = run_process(hook, BAD_INPUTS[name], env, host=host)
        assert proc.returncode == 0, proc.stderr.decode()
        assert_host_valid(host, EVENT_NAMES[hook], json.loads(proc.stdout))


odd = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=30),
    st.sampled_from(["\ud800", "/dev/zero", "", "x" * 5000]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=4), st.none(), max_size=2),
)


@given(data=st.data())
@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_mutated_shim_payloads(data: st.DataObject, tmp_path: Path) -> None:
    env = hook_env(None, OVHOOKS_DETACH="0", OVHOOKS_RECALL_MIN_PROMPT_CHARS="1")
    host, hook, payload = data.draw(st.sampled_from(PAYLOADS))
    mutated = moved_here(payload, tmp_path)
    for key in data.draw(st.lists(st.sampled_from(sorted(payload)), max_size=4, unique=True)):
        mutated[key] = data.draw(odd)
    reply, _err = run_inline(hook, json.dumps(mutated).encode(), env, host=host)
    assert_host_valid(host, EVENT_NAMES[hook], reply)
    assert crash_lines() == []


@pytest.mark.parametrize("host", HOSTS)
def test_odd_transcripts_never_block_or_crash_capture(
    host: str, tmp_path: Path, fake_ov: FakeOpenViking
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    env = hook_env(fake_ov.url, OVHOOKS_DETACH="0")
    base = dict(next(p for h, hook, p in PAYLOADS if h == host and hook == "stop"))
    for path in ("/dev/zero", str(fifo), str(tmp_path), str(garbage), str(tmp_path / "none")):
        for hook in ("user-prompt-submit", "stop", "session-end"):
            payload = {**base, "transcript_path": path, "prompt": "tabs or spaces?"}
            proc, seconds = run_process(hook, payload, env, host=host)
            assert proc.returncode == 0, proc.stderr.decode()
            assert_host_valid(host, EVENT_NAMES[hook], json.loads(proc.stdout))
            assert seconds < 10, (hook, path, seconds)
    assert crash_lines() == []


@pytest.mark.parametrize(
    ("reason", "source"),
    [
        ("startup", "startup"),
        ("new", "clear"),
        ("resume", "resume"),
        ("reload", "resume"),
        ("fork", "startup"),
        ("", "startup"),
        (7, "startup"),
    ],
)
def test_pi_session_start_reasons_become_sources(reason: object, source: str) -> None:
    event = Event("pi", "SessionStart", adapt_pi("SessionStart", {"reason": reason}, {}))
    assert event.source == source


def test_pi_compaction_and_shutdown_reasons() -> None:
    assert adapt_pi("PreCompact", {"reason": "manual"}, {})["trigger"] == "manual"
    assert adapt_pi("PreCompact", {}, {})["trigger"] == "auto"
    assert adapt_pi("SessionEnd", {}, {})["reason"] == "quit"
    assert adapt_pi("SessionEnd", {"reason": "new"}, {})["reason"] == "new"


def test_opencode_store_path_defaults_to_xdg_data_or_opencode_db() -> None:
    env = {"HOME": "/h"}
    assert (
        adapt_opencode("Stop", {}, env)["transcript_path"] == "/h/.local/share/opencode/opencode.db"
    )
    env["XDG_DATA_HOME"] = "/x"
    assert adapt_opencode("Stop", {}, env)["transcript_path"] == "/x/opencode/opencode.db"
    env["OPENCODE_DB"] = "/db/o.db"
    assert adapt_opencode("Stop", {"transcript_path": 5}, env)["transcript_path"] == "/db/o.db"
    assert adapt_opencode("Stop", {"transcript_path": "/given"}, env)["transcript_path"] == "/given"
    assert adapt_opencode("SessionEnd", {}, env)["reason"] == "dispose"


def test_without_host_flag_the_shim_event_names_say_which_host() -> None:
    from ovhooks.hosts.base import detect_host

    assert detect_host({"hook_event_name": "before_agent_start"}, {}) == "pi"
    assert detect_host({"hook_event_name": "session.idle"}, {"CLAUDECODE": "1"}) == "opencode"
    assert detect_host({"hook_event_name": "Stop"}, {}) == "codex"
    assert detect_host({"hook_event_name": ["x"]}, {}) == "codex"


@pytest.mark.parametrize(
    ("host", "tool", "tool_input", "denied"),
    [
        ("pi", "read", {"path": "viking://user/default/memories/a.md"}, True),
        ("pi", "find", {"pattern": "*.md", "path": "viking://user/default/"}, True),
        ("pi", "grep", {"pattern": "viking://", "path": "."}, False),
        ("pi", "bash", {"command": "ls viking://"}, False),
        ("pi", "read", "not an object", False),
        ("opencode", "read", {"filePath": "viking://user/a.md"}, True),
        ("opencode", "grep", {"pattern": "x", "include": "viking://user/*"}, True),
        ("opencode", "list", {"path": "/tmp"}, False),
        ("opencode", 7, {"filePath": "viking://user/a.md"}, False),
    ],
)
def test_the_viking_guard_reads_each_hosts_tool_names(
    host: str, tool: object, tool_input: object, denied: bool, fake_ov: FakeOpenViking
) -> None:
    payload = {"session_id": "s", "cwd": "/", "tool": tool, "input": tool_input}
    proc, _ = run_process("pre-tool-use", payload, hook_env(fake_ov.url), host=host)
    reply = json.loads(proc.stdout)
    assert_host_valid(host, "PreToolUse", reply)
    decision = reply.get("hookSpecificOutput", {}).get("permissionDecision")
    assert (decision == "deny") is denied, reply
