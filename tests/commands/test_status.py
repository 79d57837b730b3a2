"""status: config sources, sessions, queue, errors; and the error boundary."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ovhooks.log import Log
from ovhooks.outbox.queue import Outbox
from ovhooks.session.store import StateStore, new_state
from tests.support.cli import ENVELOPE, NUM, OPT_STR, check_schema, run_cli, run_json
from tests.support.fake_openviking import FakeOpenViking
from tests.support.fake_openviking_api import VERSION

SECRET = "sk-live-0123456789abcdef"

STATUS_SCHEMA = {
    **ENVELOPE,
    "backend": str,
    "why_backend": str,
    "url": str,
    "state_dir": str,
    "config": [{"name": str, "source": str}],
    "config_warnings": [str],
    "server": {"reachable": bool, "version": OPT_STR, "error": OPT_STR},
    "sessions": [
        {
            "key": str,
            "host": str,
            "ov_session_id": str,
            "turns_captured": int,
            "messages_sent": int,
            "uncommitted": int,
            "commit_pending": bool,
            "commit_count": int,
            "last_activity_at": (*NUM, type(None)),
            "queued": int,
            "ended": bool,
            "last_error": OPT_STR,
        }
    ],
    "queue": {"queued": int, "sessions": dict, "dead": int},
    "recall": {"enabled": bool, "min_confidence": float},
    "recent_errors": [{"event": OPT_STR, "error": str}],
}


@pytest.fixture
def populated() -> str:
    state = os.environ["OVHOOKS_STATE_DIR"]
    store = StateStore(state)
    now = time.time()
    doc = new_state("cx-aaa", "codex", "aaa", now - 100)
    doc.update(
        {"last_activity_at": now - 60, "turns_captured": 4, "uncommitted": 8, "messages_sent": 8}
    )
    store.save(doc)
    other = new_state("cc-bbb", "claude", "bbb", now - 5000)
    other.update({"last_error": {"at": now, "error": "unreachable: down", "queued": 1}})
    store.save(other)
    Outbox(store, "cc-bbb").enqueue("commit", "cc-bbb", reason="t")
    Log(state, "error").error("drain_failed", session="cc-bbb", error="unreachable: down")
    return state


def test_status_json(fake_ov: FakeOpenViking, populated: str) -> None:
    env = {"OPENVIKING_URL": fake_ov.url, "OPENVIKING_API_KEY": SECRET}
    code, doc = run_json("status", env=env)
    assert code == 0
    check_schema(doc, STATUS_SCHEMA)
    sources = {row["name"]: row["source"] for row in doc["config"]}
    values = {row["name"]: row["value"] for row in doc["config"]}
    assert sources["url"] == "env:OPENVIKING_URL" and sources["state_dir"].startswith("env:")
    assert SECRET not in str(doc) and values["api_key"] != SECRET
    assert doc["server"]["reachable"] is True and doc["server"]["version"] == VERSION
    rows = {r["key"]: r for r in doc["sessions"]}
    assert rows["cx-aaa"]["commit_pending"] is True and rows["cx-aaa"]["turns_captured"] == 4
    assert rows["cc-bbb"]["queued"] == 1 and rows["cc-bbb"]["last_error"]
    assert doc["sessions"][0]["key"] == "cx-aaa", "most recently seen first"
    assert doc["queue"] == {"queued": 1, "sessions": {"cc-bbb": 1}, "dead": 0}
    assert doc["recent_errors"][-1]["event"] == "drain_failed"


def test_status_human_output(fake_ov: FakeOpenViking, populated: str) -> None:
    result = run_cli("status", env={"OPENVIKING_URL": fake_ov.url, "OPENVIKING_API_KEY": SECRET})
    assert result.exit_code == 0
    text = result.stdout
    assert "cx-aaa" in text and "env:OPENVIKING_URL" in text and "drain_failed" in text
    assert SECRET not in text


def test_status_offline_and_server_down(fake_ov: FakeOpenViking) -> None:
    code, doc = run_json("status", "--offline", env={"OPENVIKING_URL": fake_ov.url})
    assert code == 0 and doc["server"] is None and doc["sessions"] == []
    fake_ov.refuse()
    code, doc = run_json("status", env={"OPENVIKING_URL": fake_ov.url})
    assert code == 0 and doc["server"]["reachable"] is False and doc["server"]["error"]


def test_unexpected_error_is_one_line_with_the_log_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import ovhooks.commands.status as status_module

    def broken(*_args: object, **_kwargs: object) -> None:
        api_key = SECRET  # a local a traceback with locals would show
        raise RuntimeError(f"boom {len(api_key)}")

    monkeypatch.setattr(status_module, "build_status", broken)
    result = run_cli("status", "--offline", env={"OPENVIKING_API_KEY": SECRET})
    assert result.exit_code == 70
    assert "Traceback" not in result.stdout + result.stderr
    assert "ovhooks.log" in result.stderr and "RuntimeError" in result.stderr
    assert SECRET not in result.stdout + result.stderr
    log = Path(os.environ["OVHOOKS_STATE_DIR"]) / "logs" / "ovhooks.log"
    assert "command_crashed" in log.read_text() and SECRET not in log.read_text()
    code, doc = run_json("status", "--offline")
    assert code == 70 and doc["error"]["code"] == "internal"


def test_status_says_the_recall_minimum_in_force_on_either_backend(
    fake_ov: FakeOpenViking,
) -> None:
    env = {"OVHOOKS_BACKEND": "local", "OVHOOKS_RECALL_MIN_CONFIDENCE": "0.4"}
    code, doc = run_json("status", "--offline", env=env)
    assert code == 0
    assert doc["recall"] == {"enabled": True, "min_confidence": 0.4}
    text = run_cli("status", "--offline", env=env).stdout
    assert "recall: on, minimum confidence 0.40\n" in text
    server = {"OPENVIKING_URL": fake_ov.url, "OVHOOKS_RECALL_MIN_CONFIDENCE": "0.6"}
    text = run_cli("status", "--offline", env=server).stdout
    assert "recall: on, minimum confidence 0.60\n" in text  # a server's memories have one too
    text = run_cli("status", "--offline", env={"OPENVIKING_URL": fake_ov.url}).stdout
    assert "recall: on, minimum confidence 0.00 (every memory the decision admits" in text
    text = run_cli("status", "--offline", env={"OVHOOKS_RECALL": "0"}).stdout
    assert "recall: off (OVHOOKS_RECALL=0)" in text
