"""A commit's extraction task, polled on a real OpenViking 0.5.2 (stub model): it ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.openviking import OpenVikingBackend
from ovhooks.log import Log
from ovhooks.session.commit_outcome import DONE, describe, poll_pending, record
from ovhooks.session.store import StateStore, new_state
from ovhooks.settings.config import load_settings

pytestmark = pytest.mark.real_server


def test_the_real_task_is_followed_to_its_end(
    ov_server_capture: Any, ov_user: str, tmp_path: Path
) -> None:
    settings = load_settings(
        {
            "OVHOOKS_STATE_DIR": str(tmp_path / "state"),
            "OPENVIKING_URL": ov_server_capture.url,
            "OPENVIKING_USER": ov_user,
        }
    )
    backend = OpenVikingBackend(settings, "", request_timeout_s=10.0)
    sid = "cx-outcome-real"
    backend.append_messages(
        sid,
        [
            {"role": "user", "parts": [{"type": "text", "text": "I always use tabs in Go."}]},
            {"role": "assistant", "parts": [{"type": "text", "text": "Noted: tabs."}]},
        ],
    )
    answer = backend.commit(sid)
    store = StateStore(settings.state_dir)
    store.update(sid, lambda d: None, create=lambda: new_state(sid, "codex", "x", 1.0))
    record(store, sid, [answer], 2.0)
    assert (store.load(sid) or {})["last_extraction"]["status"] == "pending"
    poll_pending(
        store, lambda _peer: backend, log=Log(settings.state_dir, "silent"), deadline_s=90.0
    )
    outcome = (store.load(sid) or {})["last_extraction"]
    assert outcome["status"] in DONE, outcome
    assert describe(outcome).startswith(("extraction failed", "0 memories", "1 memory")) or (
        "memories extracted" in describe(outcome)
    )
