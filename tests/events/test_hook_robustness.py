"""Every hook answers exit 0 with host-valid JSON, whatever its input and the server do.

These run real processes (``python -m ovhooks``), the way hosts run hooks.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_openviking import FakeOpenViking
from tests.support.gemini_replies import COMMANDS as GEMINI_COMMANDS
from tests.support.gemini_replies import recorded_payloads
from tests.support.hooks import HOOKS, assert_host_valid, hook_env, run_process


def _fixture_payloads(host_samples: Path, host: str) -> list[tuple[str, dict[str, Any]]]:
    if host == "gemini":  # recorded by scripts/record_gemini_fixtures.py, under ovhooks' names
        return recorded_payloads()
    out = []
    for path in sorted((host_samples / host / "hook-payloads").glob("*.json")):
        payload = json.loads(path.read_text())
        out.append((payload["hook_event_name"], payload))
    return out


@pytest.mark.parametrize("host", ["codex", "claude", "gemini"])
def test_every_fixture_payload_gets_a_valid_reply(
    host: str, host_samples: Path, fake_ov: FakeOpenViking
) -> None:
    env = hook_env(fake_ov.url)
    for event, payload in _fixture_payloads(host_samples, host):
        proc, _ = run_process(HOOKS[event], payload, env, host=host)
        assert proc.returncode == 0, proc.stderr.decode()
        lines = proc.stdout.decode().splitlines()
        assert len(lines) == 1, f"{event}: exactly one line, got {lines!r}"
        assert_host_valid(host, event, json.loads(lines[0]))


BAD_INPUTS = {
    "empty": b"",
    "list": b"[]",
    "wrong-type": b'{"session_id": 5, "transcript_path": ["x"], "prompt": {"a": 1}}',
    "truncated": b'{"session_id": "abc", "prompt": "hel',
    "binary": bytes(random.Random(7).getrandbits(8) for _ in range(1_000_000)),
    "nul": b'{"session_id": "a\\u0000b", "prompt": "x\\u0000y"}',
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_stdin_never_breaks_the_host(name: str, fake_ov: FakeOpenViking) -> None:
    env = hook_env(fake_ov.url)
    for event, command in HOOKS.items():
        proc, _ = run_process(command, BAD_INPUTS[name], env)
        assert proc.returncode == 0, proc.stderr.decode()
        assert_host_valid("codex", event, json.loads(proc.stdout))


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_stdin_never_breaks_gemini(name: str, fake_ov: FakeOpenViking) -> None:
    """Every command Gemini CLI runs answers one non-empty JSON object (an empty stdout would
    make Gemini parse stderr instead)."""
    env = hook_env(fake_ov.url)
    for command in sorted(set(GEMINI_COMMANDS.values())):
        proc, _ = run_process(command, BAD_INPUTS[name], env, host="gemini")
        assert proc.returncode == 0, proc.stderr.decode()
        lines = proc.stdout.decode().splitlines()
        assert len(lines) == 1 and lines[0].strip(), lines
        assert_host_valid("gemini", HOOKS_BY_COMMAND[command], json.loads(lines[0]))


@pytest.mark.parametrize("host", ["codex", "gemini"])
@pytest.mark.parametrize("mode", ["refuse", "error500", "html", "hang"])
def test_server_failures_never_break_the_host(
    mode: str, host: str, fake_ov: FakeOpenViking, host_samples: Path, tmp_path: Path
) -> None:
    # detached workers, as users run them: the hook itself must return at once
    env = hook_env(
        fake_ov.url,
        OVHOOKS_DETACH="1",
        OVHOOKS_RECALL_DEADLINE_S="0.5",
        OVHOOKS_SESSION_START_DEADLINE_S="0.5",
    )
    if mode == "refuse":
        fake_ov.refuse()
    else:
        fake_ov.mode = mode
    for event, payload in _fixture_payloads(host_samples, host):
        proc, seconds = run_process(HOOKS[event], payload, env, host=host)
        assert proc.returncode == 0
        assert_host_valid(host, event, json.loads(proc.stdout))
        assert seconds < 2.0, f"{host} {event} took {seconds:.2f}s with a {mode} server"


def test_unwritable_state_dir_still_answers(
    fake_ov: FakeOpenViking, tmp_path: Path, host_samples: Path
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where a directory should be")
    env = hook_env(fake_ov.url, OVHOOKS_STATE_DIR=str(blocked / "state"))
    for event, payload in _fixture_payloads(host_samples, "codex"):
        proc, _ = run_process(HOOKS[event], payload, env)
        assert proc.returncode == 0
        assert_host_valid("codex", event, json.loads(proc.stdout))


def test_corrupt_state_is_moved_aside_and_rebuilt(
    fake_ov: FakeOpenViking, host_samples: Path
) -> None:
    env = hook_env(fake_ov.url)
    payload = json.loads(
        (host_samples / "codex/hook-payloads/SessionStart-startup.json").read_text()
    )
    sessions = Path(os.environ["OVHOOKS_STATE_DIR"]) / "sessions"
    sessions.mkdir(parents=True)
    key = f"cx-{payload['session_id']}"
    (sessions / f"{key}.json").write_bytes(b'{"key": "cx-')  # truncated by a crash
    proc, _ = run_process("session-start", payload, env)
    assert proc.returncode == 0
    assert json.loads((sessions / f"{key}.json").read_text())["key"] == key
    assert list(sessions.glob(f"{key}.json.corrupt-*"))


def test_recall_deadline_and_breaker_on_a_server_that_never_answers(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """Issue 6: a hanging server costs the deadline once; then the open breaker skips recall.

    The behaviour is asserted (no request while the breaker is open); wall times only against
    the same hook run on a healthy server in between (same machine, same load), with margins
    of half the deadline, so the checks hold on a loaded 2-core machine (issue 11). The
    figures themselves are scripts/bench_hooks.py's.
    """
    deadline = 2.0
    env = hook_env(fake_ov.url, OVHOOKS_RECALL_DEADLINE_S=str(deadline))
    # The reference: the same hook, same server, answering at once (own state, own breaker).
    healthy_env = {**env, "OVHOOKS_STATE_DIR": str(tmp_path / "healthy-state")}
    payload = {
        "session_id": "hang-1",
        "cwd": str(tmp_path),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "which test runner does this project use for the parser?",
    }
    healthy: list[float] = []

    def measure_healthy() -> None:
        mode, fake_ov.mode = fake_ov.mode, "ok"
        healthy.append(run_process("user-prompt-submit", payload, healthy_env)[1])
        fake_ov.mode = mode

    measure_healthy()  # also warms the bytecode cache
    fake_ov.mode = "hang"
    proc, first = run_process("user-prompt-submit", payload, env)
    assert proc.returncode == 0
    assert_host_valid("codex", "UserPromptSubmit", json.loads(proc.stdout))
    measure_healthy()
    # Without the deadline the client would wait for its own timeout (many seconds).
    assert first < max(healthy) + deadline + 2.0, f"{first:.3f}s hanging (healthy {healthy})"
    timings = []
    for _ in range(3):
        asked = len(fake_ov.requests)
        proc, seconds = run_process("user-prompt-submit", payload, env)
        assert len(fake_ov.requests) == asked, "the open breaker must not touch the network"
        assert proc.returncode == 0
        assert_host_valid("codex", "UserPromptSubmit", json.loads(proc.stdout))
        timings.append(seconds)
        measure_healthy()
    # Waiting for the server again would cost the whole deadline on top of a healthy run.
    assert min(timings) < min(healthy) + deadline / 2, f"breaker open: {timings} vs {healthy}"


HOOKS_BY_COMMAND = {command: event for event, command in HOOKS.items()}
