"""A dry run's throw-away copy of the state directory does not outlive the hook."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ovhooks.backend.local import LocalBackend
from tests.support.hooks import REPO, hook_env


def test_a_dry_run_prompt_leaves_no_copy_of_the_state_behind(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = LocalBackend(str(data))
    store.write(
        "viking://user/default/memories/preferences/tabs.md",
        "In this repo I always use tabs, never spaces\n",
    )
    store.close()
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = hook_env(
        OVHOOKS_BACKEND="local",
        OVHOOKS_DATA_DIR=str(data),
        OVHOOKS_SEMANTIC="off",
        TMPDIR=str(temp),
    )
    payload = {"session_id": "s1", "cwd": str(tmp_path), "prompt": "tabs or spaces here?"}
    proc = subprocess.run(
        [sys.executable, "-m", "ovhooks", "user-prompt-submit", "--host", "codex", "--dry-run"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=str(REPO),
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-500:]
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "always use tabs" in context  # recall ran, on a copy of the state
    assert list(temp.iterdir()) == []
