"""Hostile inputs stay bounded in real hook processes (issue 11): odd transcript paths, giant
ids and paths, lone surrogates, and inline work that must end before the host's timeout.

A regression here shows as a hook process that hangs or crashes; ``run_process`` gives each
run a timeout, so it fails the test instead of taking the suite down.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ovhooks import hookrun
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import (
    HOOKS,
    REPO,
    assert_host_valid,
    crash_lines,
    hook_env,
    hook_floor,
    run_process,
)

SID = "7d1f7c1e-0b7e-4b9e-9a54-3f3f1b7f9a01"


def _reply(proc: Any, host: str, event: str) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 1, lines
    reply: dict[str, Any] = json.loads(lines[0])
    assert_host_valid(host, event, reply)
    return reply


@pytest.fixture
def fifo_transcript(tmp_path: Path) -> str:
    """A parent transcript and a subagent transcript that are FIFOs nobody writes to."""
    path = tmp_path / "projects" / "-w" / f"{SID}.jsonl"
    (path.parent / SID / "subagents").mkdir(parents=True)
    os.mkfifo(path)
    os.mkfifo(path.parent / SID / "subagents" / "agent-a1.jsonl")
    return str(path)


@pytest.mark.parametrize("command", ["subagent-start", "user-prompt-submit", "stop"])
def test_a_fifo_transcript_never_blocks_a_hook(
    command: str, fifo_transcript: str, fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    env = hook_env(fake_ov.url, OVHOOKS_RECALL_MIN_PROMPT_CHARS="1")
    payload = {
        "session_id": SID,
        "transcript_path": fifo_transcript,
        "cwd": str(tmp_path),
        "hook_event_name": HOOKS_BY_COMMAND[command],
        "agent_id": "a1",
        "agent_type": "Explore",
        "prompt": "which test runner does the parser use?",
    }
    proc, _seconds = run_process(command, payload, env, host="claude", timeout=15)
    _reply(proc, "claude", HOOKS_BY_COMMAND[command])


HOOKS_BY_COMMAND = {command: event for event, command in HOOKS.items()}


@pytest.mark.parametrize("field", ["cwd", "session_id", "transcript_path"])
def test_a_giant_field_is_rejected_in_linear_time(
    field: str, fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    env = hook_env(fake_ov.url)
    giant = "/a" * 2_500_000  # 5 MB: a path walk over it used to be quadratic
    for command in ("stop", "session-start", "user-prompt-submit"):
        payload = {
            "session_id": SID,
            "cwd": str(tmp_path),
            "transcript_path": str(tmp_path / "t.jsonl"),
            "prompt": "which test runner does the parser use?",
            "hook_event_name": HOOKS_BY_COMMAND[command],
            field: giant,
        }
        proc, _seconds = run_process(command, payload, env, timeout=15)
        _reply(proc, "codex", HOOKS_BY_COMMAND[command])
    assert crash_lines() == []


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_lone_surrogates_never_raise_in_any_hook(
    host: str, fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    env = hook_env(fake_ov.url, OVHOOKS_RECALL_MIN_PROMPT_CHARS="1")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("")
    for event, command in HOOKS.items():
        raw = (
            '{"session_id": "s\\ud800-1", "prompt": "tabs or spaces \\udfff?", '
            f'"cwd": "{tmp_path}/w\\udc80", "hook_event_name": "{event}", '
            f'"transcript_path": "{transcript}", "agent_id": "a\\ud801", '
            '"last_assistant_message": "x\\ud800y", "tool_name": "Read", '
            '"tool_input": {"file_path": "/x/\\ud800"}}'
        )
        proc, _ = run_process(command, raw.encode(), env, host=host)
        _reply(proc, host, event)
    assert crash_lines() == []


def test_inline_subagent_stop_does_not_wait_for_a_missing_transcript_until_the_timeout(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    env = hook_env(fake_ov.url, OVHOOKS_DETACH="0")
    payload = {
        "session_id": SID,
        "transcript_path": str(tmp_path / f"{SID}.jsonl"),
        "cwd": str(tmp_path),
        "hook_event_name": "SubagentStop",
        "agent_id": "a1",
        "agent_type": "general-purpose",
        "agent_transcript_path": str(tmp_path / "never-written.jsonl"),
    }
    floor = hook_floor(env, host="claude")
    proc, seconds = run_process("subagent-stop", payload, env, host="claude")
    _reply(proc, "claude", "SubagentStop")
    # Claude's timeout for this hook is 10 s; the detached worker alone may wait that long.
    assert seconds < min(floor) + 3.0, f"{seconds:.2f}s (do-nothing hook {min(floor):.2f}s)"


def test_every_hook_has_a_deadline_even_working_inline(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """SessionEnd commits inline with OVHOOKS_DETACH=0; a server that answers in 30 s must
    not hold it past its deadline (Codex kills it at 3 s)."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        json.dumps(
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "remember: tabs, never spaces"}],
                },
            }
        )
        + "\n"
    )
    env = hook_env(fake_ov.url, OVHOOKS_DETACH="0")
    fake_ov.delay_s = 30.0
    payload = {
        "session_id": SID,
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    proc, seconds = run_process("session-end", payload, env, timeout=40)
    _reply(proc, "codex", "SessionEnd")
    assert seconds < _registered_timeouts()["SessionEnd"], f"{seconds:.2f}s"


def _registered_timeouts() -> dict[str, float]:
    """The shortest timeout either shipped hooks file gives each event."""
    shortest: dict[str, float] = {}
    for name in ("hooks.json", "hooks.claude.json"):
        doc = json.loads((REPO / name).read_text())
        for event, groups in doc["hooks"].items():
            for group in groups:
                for handler in group["hooks"]:
                    seconds = float(handler["timeout"])
                    shortest[event] = min(shortest.get(event, seconds), seconds)
    return shortest


def test_every_event_has_a_deadline_a_second_inside_the_host_timeout() -> None:
    fixed = getattr(hookrun, "HOST_TIMEOUT_DEADLINES_S", {})
    bounded = set(hookrun._DEADLINE_EVENTS) | set(fixed)
    assert bounded == set(HOOKS)
    timeouts = _registered_timeouts()
    for event, seconds in fixed.items():
        assert seconds <= timeouts[event] - 1.0, event


def test_the_inline_deadline_can_be_raised_for_debugging(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """OVHOOKS_HOOK_DEADLINE_S gives an inline (OVHOOKS_DETACH=0) hook a longer budget."""
    from ovhooks.hookrun import _arm_deadline
    from ovhooks.settings.config import load_settings

    nan = load_settings({"OVHOOKS_HOOK_DEADLINE_S": "nan", "HOME": str(tmp_path)})
    disarm = _arm_deadline("SessionEnd", nan, 0.0)
    disarm()
    import signal

    started = __import__("time").monotonic()
    sixty = load_settings({"OVHOOKS_HOOK_DEADLINE_S": "60", "HOME": str(tmp_path)})
    disarm = _arm_deadline("SessionEnd", sixty, started)
    try:
        remaining, _interval = signal.getitimer(signal.ITIMER_REAL)
    finally:
        disarm()
    assert 50 < remaining <= 60


def _open_pipe_hook(command: str, data: bytes, env: dict[str, str]) -> tuple[bytes, float, int]:
    """A hook whose host writes ``data`` and never closes stdin: (stdout, seconds, rc)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ovhooks", command, "--host", "codex"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        cwd=str(REPO),
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(data)
        proc.stdin.flush()
        out = proc.stdout.read()
        seconds = time.monotonic() - start
        return out, seconds, proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.stdin.close()
        proc.wait()


def test_a_pipe_left_open_is_answered_once_the_event_is_whole(tmp_path: Path) -> None:
    # A host that never closes stdin: the hook used to wait for it until it was killed.
    env = hook_env()
    event = {"session_id": SID, "cwd": str(tmp_path), "prompt": "hello there"}
    floor = min(hook_floor(env))
    out, seconds, rc = _open_pipe_hook("user-prompt-submit", json.dumps(event).encode(), env)
    assert rc == 0 and json.loads(out) == {}
    assert seconds < floor + hookrun.STDIN_WAIT_S  # the quiet gap, not the whole wait
    # half an event and then nothing: the wait ends, and the hook answers as for no event
    out, seconds, rc = _open_pipe_hook("user-prompt-submit", b'{"session_id": "s', env)
    assert rc == 0 and json.loads(out) == {}
    assert seconds < floor + hookrun.STDIN_WAIT_S + 2.0


def test_endless_stdin_is_cut_off_in_bounded_memory(tmp_path: Path) -> None:
    # /dev/zero as the event: the hook grew 0.7 GB a second and never answered.
    env = hook_env()
    script = (
        "import resource, subprocess, sys\n"
        "zero = open('/dev/zero', 'rb')\n"
        "p = subprocess.run([sys.executable, '-m', 'ovhooks', 'stop', '--host', 'codex'],"
        " stdin=zero, capture_output=True, timeout=20)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(p.returncode, p.stdout.decode().strip(), peak)\n"
    )
    run = [sys.executable, "-c", script]
    proc = subprocess.run(run, check=False, capture_output=True, env=env, cwd=str(REPO), timeout=60)
    rc, reply, peak_kib = proc.stdout.decode().split()
    assert rc == "0" and json.loads(reply) == {}
    assert int(peak_kib) < 200 * 1024  # the 16 MiB cap and the interpreter, not gigabytes


def test_a_config_file_the_size_of_a_log_is_ignored_quickly(tmp_path: Path) -> None:
    # A 1 GB config took every hook 13-19 s and 2.1 GB before its deadline began.
    big = tmp_path / "config.toml"
    with open(big, "wb") as fh:
        fh.truncate(1 << 30)
    env = hook_env(OVHOOKS_CONFIG=str(big))
    floor = min(hook_floor(env))
    proc, seconds = run_process("user-prompt-submit", {"session_id": SID, "prompt": "hi"}, env)
    assert _reply(proc, "codex", "UserPromptSubmit") == {}
    assert seconds < floor + 1.0
    from ovhooks.settings.config import load_settings

    settings = load_settings({**env, "HOME": str(tmp_path)})
    assert any("larger than 1 MiB" in w for w in settings.warnings)


def test_a_late_start_still_reads_what_the_host_wrote(monkeypatch: pytest.MonkeyPatch) -> None:
    # A loaded machine may reach the read after the wait is over: what is already in the
    # pipe is the event, and it is read without waiting for more.
    read_end, write_end = os.pipe()
    event = json.dumps({"session_id": SID, "prompt": "hello"}).encode()
    os.write(write_end, event)  # the host wrote it and keeps the pipe open
    with os.fdopen(read_end, "r") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        started = time.monotonic() - hookrun.STDIN_WAIT_S - 5.0
        begun = time.monotonic()
        assert hookrun.read_stdin(started) == event
        assert time.monotonic() - begun < 0.5
    os.close(write_end)


def test_a_late_start_reads_a_large_event_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    # An event still coming when a late read begins (larger than the pipe's 64 KiB, or written
    # in pieces): a late read that took only what was already there cut it, and the hook
    # answered as for no event.
    read_end, write_end = os.pipe()
    event = json.dumps({"session_id": SID, "prompt": "x" * 300_000}).encode()

    def write() -> None:  # in pieces, as a host does that serializes while it writes
        for at in range(0, len(event), 30_000):
            os.write(write_end, event[at : at + 30_000])
            time.sleep(0.02)

    host = threading.Thread(target=write)
    # a gap this test's own scheduling cannot open (the writer is a thread here)
    monkeypatch.setattr(hookrun, "_STDIN_QUIET_S", 0.5)
    host.start()
    try:
        with os.fdopen(read_end, "r") as stdin:
            monkeypatch.setattr(sys, "stdin", stdin)
            while not select.select([read_end], [], [], 5)[0]:  # the host has begun writing
                pass
            started = time.monotonic() - hookrun.STDIN_WAIT_S - 5.0
            begun = time.monotonic()
            assert hookrun.read_stdin(started) == event
            assert time.monotonic() - begun < hookrun.STDIN_WAIT_S + 0.5
    finally:
        host.join(10)
        os.close(write_end)
