"""Copilot CLI, Qwen Code and Factory Droid dialects (ovhooks/hosts/copilot.py, qwen.py,
droid.py), on the payloads recorded from the real CLIs (tests/fixtures/<host>/hook-payloads),
and the hooks run in-process on them: one JSON object, the reply shape each host reads."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from ovhooks.hookrun import run_hook
from ovhooks.hosts import copilot, qwen
from ovhooks.hosts.base import Reply, detect_host, render_reply
from tests.support.hooks import hook_env

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _payload(host: str, name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((FIXTURES / host / "hook-payloads" / name).read_text())
    return doc


def _fired(host: str) -> list[list[str]]:
    fired: list[list[str]] = json.loads((FIXTURES / host / "fired.json").read_text())["fired"]
    return fired


def test_the_events_each_host_fires_headless_as_recorded() -> None:
    """What the README says each host can do headless comes from these recordings."""
    assert _fired("copilot")[0] == ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]
    # Qwen: a second UserPromptSubmit for the tool result, and no SessionEnd in -p mode
    assert _fired("qwen")[0] == ["SessionStart", "UserPromptSubmit", "UserPromptSubmit", "Stop"]
    # Droid: one exec with two prompts; no UserPromptSubmit at all
    assert _fired("droid")[0] == ["SessionStart", "Stop", "Stop", "SessionEnd"]


@pytest.mark.parametrize(
    ("environ", "host"),
    [
        ({"COPILOT_CLI": "1", "CLAUDE_PROJECT_DIR": "/w"}, "copilot"),
        ({"QWEN_CODE_CLI": "1", "CLAUDE_PROJECT_DIR": "/w"}, "qwen"),
        ({"FACTORY_PROJECT_DIR": "/w", "CLAUDE_PROJECT_DIR": "/w"}, "droid"),
        ({"CLAUDE_PROJECT_DIR": "/w"}, "claude"),
    ],
)
def test_the_host_is_known_from_its_environment(environ: dict[str, str], host: str) -> None:
    assert detect_host({}, environ) == host


def test_copilot_payloads_gain_the_fields_the_events_read() -> None:
    environ = {"COPILOT_HOME": "/c"}
    start = copilot.normalize_payload(_payload("copilot", "SessionStart-new.json"), environ)
    sid = start["session_id"]
    assert start["source"] == "startup"
    assert start["transcript_path"] == f"/c/session-state/{sid}/events.jsonl"
    stop = _payload("copilot", "Stop.json")
    assert copilot.normalize_payload(stop, environ)["transcript_path"] == stop["transcript_path"]
    resumed = copilot.normalize_payload(_payload("copilot", "SessionStart-resume.json"), environ)
    assert resumed["source"] == "resume"
    camel = copilot.normalize_payload({"sessionId": "s1", "transcriptPath": "/t"}, environ)
    assert camel["session_id"] == "s1" and camel["transcript_path"] == "/t"


def test_copilot_replies_with_a_top_level_additional_context_only() -> None:
    for event in ("SessionStart", "UserPromptSubmit"):
        out = json.loads(render_reply("copilot", event, Reply("ctx", system_message="note")))
        assert out == {"additionalContext": "ctx"}
    assert json.loads(render_reply("copilot", "Stop", Reply("ctx"))) == {}
    assert json.loads(render_reply("copilot", "UserPromptSubmit", Reply())) == {}


@pytest.mark.parametrize("host", ["qwen", "droid"])
def test_qwen_and_droid_reply_in_claude_codes_shape(host: str) -> None:
    out = json.loads(render_reply(host, "UserPromptSubmit", Reply("ctx")))
    assert out == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ctx"}
    }
    assert json.loads(render_reply(host, "Stop", Reply("ctx"))) == {}


def test_a_qwen_tool_result_continuation_is_not_a_prompt() -> None:
    log = [json.loads(line) for line in (FIXTURES / "qwen" / "hook-log.jsonl").open()]
    prompts = [e["payload"] for e in log if e["event"] == "UserPromptSubmit"]
    user, continuation = prompts[0], prompts[1]  # the recorded RUNSHELL turn
    assert qwen.normalize_payload(user, {})["prompt"] == user["submitted_prompt"]
    assert "submitted_prompt" not in continuation
    assert qwen.normalize_payload(continuation, {})["prompt"] == ""


@pytest.mark.parametrize(
    ("host", "name"),
    [
        ("copilot", "SessionStart-new.json"),
        ("copilot", "UserPromptSubmit.json"),
        ("copilot", "Stop.json"),
        ("copilot", "SessionEnd.json"),
        ("qwen", "SessionStart-startup.json"),
        ("qwen", "UserPromptSubmit.json"),
        ("qwen", "Stop.json"),
        ("droid", "SessionStart-startup.json"),
        ("droid", "Stop.json"),
        ("droid", "SessionEnd.json"),
    ],
)
def test_each_recorded_payload_gets_one_json_object(host: str, name: str, tmp_path: Path) -> None:
    payload = _payload(host, name)
    command = {
        "SessionStart": "session-start",
        "UserPromptSubmit": "user-prompt-submit",
        "Stop": "stop",
        "SessionEnd": "session-end",
    }[str(payload.get("hook_event_name"))]
    payload["cwd"] = str(tmp_path)
    payload.pop("transcript_path", None)  # the recorder's temporary folder is gone
    env = hook_env(OVHOOKS_BACKEND="local", OVHOOKS_SEMANTIC="off")
    now = time.time()
    out, _err = run_hook(
        command, ["--host", host], json.dumps(payload).encode(), env, now=now, started=now
    )
    doc = json.loads(out)
    assert isinstance(doc, dict) and "\n" not in out
    if host == "copilot":
        assert set(doc) <= {"additionalContext"}, doc
    else:
        assert set(doc) <= {"hookSpecificOutput", "systemMessage"}, doc
