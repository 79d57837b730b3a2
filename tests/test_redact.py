"""Our own API key never appears in any output (issue 14, item 3).

A gateway that echoes the request head (headers included) in a 401/500 error, an HTML error
page or an empty answer: every hook and the commands people and agents run must show,
log and store none of the configured key. A key that cannot be sent (a pasted "…", a line
break) is a configuration error that ``status`` and ``doctor`` report, never a crash.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ovhooks.redact import REDACTED_KEY, header_value_problem, redact_known_secrets, remember_secret
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import REPO, hook_env, run_process
from tests.support.rollouts import CodexRollout, codex_payload

KEY = "ovk-user-7Q2xR9mL4pZ8vT1nB6cW3yH5"
SID = "0c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"


def test_redact_removes_registered_keys_and_header_values() -> None:
    remember_secret(KEY)
    text = (
        f"rejected: Authorization: Bearer {KEY}\r\nX-API-Key: {KEY}\r\n"
        "x-api-key: someone-elses-key-123\nProxy-Authorization: Basic dXNlcjpwYXNzd29yZA=="
    )
    out = redact_known_secrets(text)
    assert KEY not in out and "someone-elses-key-123" not in out and "dXNlcjpw" not in out
    assert out.count(REDACTED_KEY) == 4
    assert redact_known_secrets(out) == out  # idempotent


@pytest.mark.parametrize(
    ("value", "problem"),
    [("abc…def", "U+2026"), ("abc\r\ndef", "control character"), ("plain-key-123", "")],
)
def test_header_value_problem(value: str, problem: str) -> None:
    found = header_value_problem(value)
    assert (problem in found) if problem else found == ""
    assert value not in found or not problem


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ovhooks", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        timeout=60,
        check=False,
    )


def _files_text(*roots: Path) -> dict[str, str]:
    out = {}
    for root in roots:
        for path in root.rglob("*") if root.is_dir() else []:
            if path.is_file():
                out[str(path)] = path.read_bytes().decode("utf-8", "replace")
    return out


def _run_everything(env: dict[str, str], project: Path, rollout: CodexRollout) -> list[str]:
    """Every hook once (as the host runs them) and the commands; returns all their output."""
    outputs: list[str] = []
    hooks = [
        ("session-start", codex_payload("SessionStart", SID, rollout.path, project, source="new")),
        (
            "user-prompt-submit",
            codex_payload(
                "UserPromptSubmit", SID, rollout.path, project,
                prompt="which test runner does this project use for the parser?",
            ),
        ),
        ("stop", codex_payload("Stop", SID, rollout.path, project)),
        ("pre-compact", codex_payload("PreCompact", SID, rollout.path, project, trigger="auto")),
        ("session-end", codex_payload("SessionEnd", SID, rollout.path, project, reason="other")),
    ]  # fmt: skip
    for command, payload in hooks:
        proc, _ = run_process(command, payload, env)
        assert proc.returncode == 0, (command, proc.stderr)
        json.loads(proc.stdout)  # one valid reply, whatever the server did
        outputs += [bytes(proc.stdout).decode(), bytes(proc.stderr).decode()]
    for args in (
        ["status", "--json"],
        ["status"],
        ["doctor", "--json"],
        ["doctor"],
        ["search", "parser test runner", "--json"],
        ["search", "parser test runner"],
        ["flush", "--json"],
        ["flush"],
        ["remember", "the parser tests use pytest", "--json"],
        ["commit", SID, "--json"],
    ):
        done = _cli(args, env)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        outputs += [done.stdout, done.stderr]
    return outputs


@pytest.mark.parametrize("mode", ["echo401", "echo500", "echo_html", "echo_empty"])
def test_configured_key_never_shown_logged_or_stored(
    fake_ov: FakeOpenViking, tmp_path: Path, mode: str
) -> None:
    env = hook_env(fake_ov.url, OPENVIKING_API_KEY=KEY, OVHOOKS_LOG_LEVEL="debug")
    project = tmp_path / "work"
    project.mkdir()
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    rollout.user("please remember the parser tests use pytest")
    rollout.assistant("Noted: the parser tests use pytest.")
    fake_ov.mode = mode
    outputs = _run_everything(env, project, rollout)
    assert any(KEY in str(r["headers"]) for r in fake_ov.requests), "the key was sent"
    leaks = [o for o in outputs if KEY in o]
    assert not leaks, leaks[:2]
    files = _files_text(Path(env["OVHOOKS_STATE_DIR"]), Path(os.environ["HOME"]))
    leaked_files = [path for path, text in files.items() if KEY in text]
    assert not leaked_files, leaked_files


def test_a_key_that_cannot_be_sent_is_a_configuration_error(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    bad_key = "ovk-user-7Q2xR9mL4pZ8…vT1nB6cW3yH5"  # pasted with a typographic ellipsis
    env = hook_env(fake_ov.url, OPENVIKING_API_KEY=bad_key, OVHOOKS_LOG_LEVEL="debug")
    project = tmp_path / "work"
    project.mkdir()
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    rollout.user("please remember the parser tests use pytest")
    outputs = _run_everything(env, project, rollout)
    assert not [o for o in outputs if bad_key in o or "7Q2xR9mL4pZ8" in o]
    status = json.loads(_cli(["status", "--json"], env).stdout)
    warnings = " ".join(status["config_warnings"])
    assert "api_key" in warnings and "U+2026" in warnings and "HTTP header" in warnings
    doctor = _cli(["doctor", "--json"], env)
    assert "U+2026" in doctor.stdout
    files = _files_text(Path(env["OVHOOKS_STATE_DIR"]))
    assert not [p for p, text in files.items() if "7Q2xR9mL4pZ8" in text]
    assert not [p for p, text in files.items() if "hook_crashed" in text]


def test_the_key_variables_are_the_configurations() -> None:
    """``ovhooks mcp`` registers these before loading settings: the same list as config's."""
    from ovhooks.redact import KEY_VARIABLES
    from ovhooks.settings.config import _FIELDS

    assert _FIELDS["api_key"][0] == KEY_VARIABLES


def test_the_environment_key_is_known_before_any_settings() -> None:
    from ovhooks.redact import remember_environment

    key = "envkey-Lq7Vn2Tz9Wc4Rb8Xm3"
    remember_environment({"OPENVIKING_BEARER_TOKEN": key, "OTHER": "not-a-key-at-all"})
    remember_environment(None)  # nothing to read: nothing registered, no error
    assert redact_known_secrets(f"unknown tool {key}") == f"unknown tool {REDACTED_KEY}"
    assert redact_known_secrets("not-a-key-at-all") == "not-a-key-at-all"


def test_a_quoted_request_value_is_cut_and_keyless() -> None:
    from ovhooks.redact import quoted

    remember_secret(KEY)
    assert quoted("search") == "'search'"
    long = quoted("x" * 500)
    assert len(long) < 70 and long.endswith("…'")
    assert KEY not in quoted(f"viking://x/{KEY}") and REDACTED_KEY in quoted(f"v/{KEY}")
    assert quoted(42) == "'42'"


def test_a_password_in_a_url_is_never_shown() -> None:
    text = (
        "server: http://me:hunter2@127.0.0.1:1933/api down; proxy socks5://u:s3@p:1080; "
        '{"url": "https://a:b@c.example"} mail a@b.c, page https://x.org/@user, http://u@h/'
    )
    out = redact_known_secrets(text)
    assert "hunter2" not in out and ":s3@" not in out and ":b@" not in out
    assert out.count("[REDACTED:password]") == 3
    assert "a@b.c" in out and "https://x.org/@user" in out and "http://u@h/" in out
    assert redact_known_secrets(out) == out


def test_status_and_doctor_show_no_password_from_the_server_url() -> None:
    env = hook_env("http://me:hunter2pass@127.0.0.1:9")
    for args in (["status", "--offline"], ["status", "--json"], ["doctor"], ["doctor", "--json"]):
        done = _cli(args, env)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert "hunter2pass" not in done.stdout + done.stderr, args
        assert "127.0.0.1:9" in done.stdout + done.stderr, args
