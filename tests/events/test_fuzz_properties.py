"""Property tests from the fuzzing of issue 11: every event of both hosts, mutated payloads and
odd transcript paths. Each hook must answer host-valid JSON, never crash, within its deadline.

The budget is fixed (``derandomize``, ``max_examples``) so scripts/test stays predictable:
hooks run in-process here, each example costs a few milliseconds.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovhooks.hosts.gemini import GEMINI_EVENTS
from tests.support.fake_openviking import FakeOpenViking
from tests.support.gemini_replies import recorded_payloads
from tests.support.hooks import (
    HOOKS,
    REPO,
    assert_host_valid,
    crash_lines,
    hook_env,
    moved_here,
    run_inline,
)

SAMPLES = REPO / "tests" / "fixtures" / "host-samples"
BUDGET = settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _payloads() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for host in ("codex", "claude"):
        for path in sorted((SAMPLES / host / "hook-payloads").glob("*.json")):
            payload = json.loads(path.read_text())
            out.append((host, str(payload["hook_event_name"]), payload))
    # DirectoryAdded exists since Claude Code 2.1.219: its sample was recorded with 2.1.330.
    added = SAMPLES.parent / "claude-2.1.330" / "directory-added.json"
    out.append(("claude", "DirectoryAdded", json.loads(added.read_text())))
    # Gemini CLI (tests/fixtures/gemini), under ovhooks' event names.
    out.extend(("gemini", event, payload) for event, payload in recorded_payloads())
    return out


PAYLOADS = _payloads()


# All ten events for both hosts: where a host has no sample of an event (Codex has no
# subagent events), the other host's sample stands in, as a misrouted payload would.
# Gemini CLI: the seven events it is configured to run.
EVENTS = sorted(
    [(host, event) for host in ("codex", "claude") for event in HOOKS]
    + [("gemini", event) for event in GEMINI_EVENTS]
)

odd_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["\ud800", "a\udfffb", "\x00", "../../etc/passwd", "/dev/zero", "~", ""]),
    st.just("/x" * 20_000),
)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | odd_text,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _mutate(payload: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    out = dict(payload)
    for key in data.draw(st.lists(st.sampled_from(sorted(payload)), max_size=4, unique=True)):
        action = data.draw(st.sampled_from(["drop", "replace", "replace"]))
        if action == "drop":
            out.pop(key, None)
        else:
            out[key] = data.draw(json_value)
    return out


@given(data=st.data())
@BUDGET
def test_mutated_payloads_of_every_event_and_host(data: st.DataObject, tmp_path: Path) -> None:
    env = hook_env(None, OVHOOKS_DETACH="0", OVHOOKS_RECALL_MIN_PROMPT_CHARS="1")
    host, event, payload = data.draw(st.sampled_from(PAYLOADS))
    mutated = _mutate(moved_here(payload, tmp_path), data)
    raw = json.dumps(mutated).encode()  # lone surrogates travel as JSON escapes, as on stdin
    reply, _err = run_inline(HOOKS[event], raw, env, host=host)
    assert_host_valid(host, event, reply)
    assert crash_lines() == []


def _odd_paths(tmp_path: Path) -> dict[str, str]:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as fh:  # 64 MB without a newline: sparse, costs no disk
        fh.truncate(64 * 1024 * 1024)
    deep = tmp_path / "deep.jsonl"
    record = {"type": "response_item", "payload": {"type": "message", "role": "user"}}
    deep.write_bytes(
        b"[" * 50_000
        + b"]" * 50_000
        + b"\n"
        + json.dumps({**record, "content": [[[[[[[["x"]]]]]]]]}).encode()
        + b"\n"
    )
    return {
        "dev-zero": "/dev/zero",
        "fifo": str(fifo),
        "folder": str(folder),
        "huge": str(huge),
        "deep": str(deep),
    }


@pytest.mark.parametrize(("host", "event"), EVENTS, ids=str)
def test_odd_transcript_paths_for_every_event(
    host: str, event: str, tmp_path: Path, fake_ov: FakeOpenViking
) -> None:
    env = hook_env(fake_ov.url, OVHOOKS_DETACH="0", OVHOOKS_RECALL_MIN_PROMPT_CHARS="1")
    base = moved_here(
        next(
            (p for h, e, p in PAYLOADS if h == host and e == event),
            next(p for _h, e, p in PAYLOADS if e == event),
        ),
        tmp_path,
    )
    for name, path in _odd_paths(tmp_path).items():
        payload = {
            **base,
            "hook_event_name": event,
            "session_id": f"odd-{name}",
            "transcript_path": path,
            "agent_transcript_path": path,
            "agent_id": "a1",
            "cwd": str(tmp_path),
        }
        started = time.monotonic()
        reply, _err = run_inline(HOOKS[event], payload, env, host=host)
        seconds = time.monotonic() - started
        assert_host_valid(host, event, reply)
        # Nothing blocks or waits for the path (an inline wait used to take the host's 10 s).
        assert seconds < 5.0, f"{event} with {name}: {seconds:.2f}s"
    assert crash_lines() == []
