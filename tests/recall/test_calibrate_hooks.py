"""Calibration through real UserPromptSubmit hook processes: measured after the reply.

With ``OVHOOKS_DETACH=1`` (the default for users) the probes run in a detached child once the
hook has answered: the first prompt is decided on words in common, and the calibration is
there for the next one.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ovhooks.recall.calibrate import PROBES
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import hook_env, run_process

PARSER_MEMORY = {
    "uri": "viking://user/default/memories/preferences/tests.md",
    "category": "preferences",
    "score": 0.9,
    "detail": "abstract",
    "text": "The user wants parser tests written with pytest parametrize.",
    "_matches": ["parser"],
}


def prompt_payload(prompt: str, tmp_path: Path, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": str(tmp_path),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


def stored_calibration(state_dir: Path, deadline_s: float = 15.0) -> dict[str, Any] | None:
    path = state_dir / "recall" / "servers.json"
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            doc = {}
        for entry in doc.values():
            if isinstance(entry, dict) and "calibration" in entry:
                return dict(entry["calibration"])
        time.sleep(0.1)
    return None


def test_probes_run_detached_and_serve_the_next_prompt(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    fake_ov.search_entries = [PARSER_MEMORY]
    state = tmp_path / "state"
    env = hook_env(fake_ov.url, OVHOOKS_DETACH="1", OVHOOKS_STATE_DIR=str(state))
    proc, _ = run_process(
        "user-prompt-submit",
        prompt_payload("how should the parser tests be written?", tmp_path, "s1"),
        env,
    )
    assert proc.returncode == 0
    reply = json.loads(proc.stdout)
    assert "pytest parametrize" in reply["hookSpecificOutput"]["additionalContext"]
    calibration = stored_calibration(state)
    assert calibration is not None, "the detached child stored no calibration"
    assert calibration["en"]["loc"] == 0.5  # every probe found the memory at the 0.5 floor
    asked = [r["body"]["query"] for r in fake_ov.requests if r["path"].endswith("/search")]
    assert sorted(q for q in asked if q in PROBES) == sorted(PROBES)
    # Calibrated now: an unrelated prompt gets nothing and costs one search, no probes.
    before = len(fake_ov.requests)
    proc, _ = run_process(
        "user-prompt-submit",
        prompt_payload("what should I cook for dinner with lentils?", tmp_path, "s2"),
        env,
    )
    assert proc.returncode == 0
    assert "hookSpecificOutput" not in json.loads(proc.stdout)
    assert len(fake_ov.requests) == before + 1
