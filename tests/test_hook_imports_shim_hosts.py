"""Pi and OpenCode hooks import only what their event needs, like Codex's and Claude's
(``tests/test_hook_imports.py``): every recorded shim payload runs as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ovhooks.hosts.base import EVENT_NAMES
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import calibrate_server, hook_env
from tests.test_hook_imports import DRIVER, FORBIDDEN, MEMORIES, RECALLED

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _cases() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for host in ("pi", "opencode"):
        for path in sorted((FIXTURES / host / "hook-payloads").glob("*.json")):
            hook = next(
                h for h in sorted(EVENT_NAMES, key=len, reverse=True) if path.stem.startswith(h)
            )
            out.append((host, hook, json.loads(path.read_text(encoding="utf-8"))))
    return out


@pytest.fixture(scope="module")
def server() -> Any:
    fake = FakeOpenViking().start()
    fake.search_entries = [RECALLED]
    fake.files[f"{MEMORIES}/profile.md"] = "The user works on ovhooks, a Python hook runner."
    yield fake
    fake.stop()


@pytest.mark.parametrize(("host", "hook", "payload"), _cases(), ids=lambda v: str(v)[:30])
def test_shim_host_hook_loads_no_heavy_module(
    host: str, hook: str, payload: dict[str, Any], server: FakeOpenViking, tmp_path: Path
) -> None:
    listing = tmp_path / "modules.json"
    payload = {**payload, "cwd": str(tmp_path), "prompt": "hello first turn"}
    payload["transcript_path"] = str(tmp_path / ("t.jsonl" if host == "pi" else "opencode.db"))
    calibrate_server(server.url)  # a user's steady state: recall reads the server's scores
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, str(listing), hook, "--host", host],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=hook_env(server.url, OVHOOKS_DETACH="1"),
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-500:]
    loaded = json.loads(listing.read_text())
    heavy = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert heavy == [], f"{host} {hook} loaded {heavy}"
    if hook in ("session-start", "user-prompt-submit"):
        reply = json.loads(proc.stdout)
        assert reply["hookSpecificOutput"]["additionalContext"], f"{host} {hook}: {reply}"
