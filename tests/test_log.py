"""The log keeps no secret and no key, whatever a caller passes it (issue 14, items 2-3)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ovhooks.log import Log
from ovhooks.redact import remember_secret


def test_log_lines_are_scrubbed_and_keyless(tmp_path: Path) -> None:
    key = "ovk-root-Jx4Rm8Tq2Lw6Zp1Vn5Bc9"
    token = "ghp_" + "Yt6Kp1Lw8Qz3Xv7Nm2Bc5Rd9Hf4Jg0Sa1Eu2"
    remember_secret(key)
    log = Log(str(tmp_path), "debug")
    log.error(
        "send_failed",
        error=f"http (HTTP 401): rejected POST /x\r\nAuthorization: Bearer {key}\r\n",
        detail=f"the command was: git push https://{token}@github.com/org/repo.git",
    )
    text = (tmp_path / "logs" / "ovhooks.log").read_text()
    assert key not in text and token not in text and "Yt6Kp1Lw" not in text
    assert "send_failed" in text and "[REDACTED:" in text
    assert stat.S_IMODE(os.stat(tmp_path / "logs" / "ovhooks.log").st_mode) == 0o600


def test_debug_logs_each_hook_and_none_of_its_text(tmp_path: Path) -> None:
    """README, Troubleshooting: ``OVHOOKS_LOG_LEVEL=debug`` logs each hook. Every hook writes
    one ``hook_ran`` line (sizes, not text); at the default level none."""
    import json

    from tests.support.hooks import hook_env, run_process

    payloads: dict[str, dict[str, object]] = {
        "user-prompt-submit": {"session_id": "dbg", "prompt": "where do we deploy secret-ish?"},
        "pre-tool-use": {"session_id": "dbg", "tool_name": "Bash", "tool_input": {"command": "ls"}},
        "post-tool-use": {"session_id": "dbg", "tool_name": "Bash", "tool_input": {}},
        "post-compact": {"session_id": "dbg"},
    }
    log_path = Path(os.environ["OVHOOKS_STATE_DIR"]) / "logs" / "ovhooks.log"
    for level, want in (("error", 0), ("debug", 1)):
        env = hook_env(None, OVHOOKS_BACKEND="local", OVHOOKS_LOG_LEVEL=level)
        for command, payload in payloads.items():
            before = log_path.read_text().count("hook_ran") if log_path.exists() else 0
            result, _seconds = run_process(command, {**payload, "cwd": str(tmp_path)}, env)
            assert result.returncode == 0
            lines = (
                [ln for ln in log_path.read_text().splitlines() if "hook_ran" in ln]
                if log_path.exists()
                else []
            )
            assert len(lines) - before == want, (level, command)
            if want:
                record = json.loads(lines[-1])
                assert record["command"] == command and record["host"] == "codex"
                assert "deploy" not in lines[-1]
