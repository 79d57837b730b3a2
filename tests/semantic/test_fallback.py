"""Without a usable embedding service the hook answers lexically, inside its budget: no
service at all (it is started for later prompts, this one does not wait), one that is
still loading or has a broken model, and one that never answers."""

from __future__ import annotations

import json
import os
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.semantic import MODEL_KEY, service_dir, socket_path
from tests.support.hooks import hook_env, run_process

MEMORY = "The staging database listens on port 5433."
PROMPT = "which port does the staging database listen on?"
DEADLINE_MS = 80


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    backend = LocalBackend(str(tmp_path / "data"))
    backend.write("viking://user/default/memories/preferences/staging.md", MEMORY + "\n")
    backend.close()
    out = hook_env(
        None,
        OVHOOKS_BACKEND="local",
        OVHOOKS_DATA_DIR=str(tmp_path / "data"),
        OVHOOKS_SEMANTIC="on",
        OVHOOKS_SEMANTIC_DEADLINE_MS=str(DEADLINE_MS),
    )
    out.pop("OPENVIKING_URL", None)
    return out


class FakeService:
    """A socket where the service would be: answers ``reply`` (or nothing) to every request."""

    def __init__(self, path: str, reply: dict[str, object] | None) -> None:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(8)
        self.server.settimeout(0.2)
        self.reply = reply
        self.stop = False
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            if self.reply is None:
                self.held.append(conn)  # read nothing, answer nothing
                continue
            conn.recv(65536)
            conn.sendall(json.dumps(self.reply).encode() + b"\n")
            conn.close()

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        for conn in self.held:
            conn.close()
        self.server.close()


@pytest.fixture
def fake(env: dict[str, str]) -> Iterator[object]:
    made: list[FakeService] = []

    def make(reply: dict[str, object] | None) -> FakeService:
        made.append(FakeService(socket_path(env["OVHOOKS_STATE_DIR"]), reply))
        return made[-1]

    yield make
    for service in made:
        service.close()


def _recall(env: dict[str, str], session: str) -> tuple[str, float]:
    payload = {"session_id": session, "cwd": env["HOME"], "prompt": PROMPT}
    proc, seconds = run_process("user-prompt-submit", payload, env)
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout or b"{}")
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext") or ""), seconds


def _lexical_times(env: dict[str, str], runs: int = 3) -> list[float]:
    off = {**env, "OVHOOKS_SEMANTIC": "off"}
    return [_recall(off, f"lexical-{i}")[1] for i in range(runs)]


@pytest.mark.parametrize("state", ["loading", "broken"])
def test_a_loading_or_broken_service_leaves_the_answer_to_lexical_recall(
    env: dict[str, str], fake: object, state: str
) -> None:
    fake({"ok": False, "error": state})  # type: ignore[operator]
    context, _seconds = _recall(env, f"s-{state}")
    assert "5433" in context


def test_a_service_that_never_answers_costs_at_most_its_deadline(
    env: dict[str, str], fake: object
) -> None:
    fake(None)  # type: ignore[operator]
    lexical = statistics.median(_lexical_times(env))
    times = []
    for i in range(3):
        context, seconds = _recall(env, f"hung-{i}")
        assert "5433" in context
        times.append(seconds)
    # The deadline, plus scheduling noise on a shared 2-core machine.
    assert statistics.median(times) < lexical + DEADLINE_MS / 1000 + 0.25, (times, lexical)


def test_no_service_answers_lexically_at_once_and_starts_one_for_later(
    env: dict[str, str],
) -> None:
    env = {**env, "OVHOOKS_SEMANTIC_IDLE_S": "2"}
    lexical = statistics.median(_lexical_times(env))
    context, seconds = _recall(env, "first-prompt")
    assert "5433" in context
    # It did not wait for a model (a load takes seconds): about a lexical answer's time.
    assert seconds < lexical + 0.5, (seconds, lexical)
    state = env["OVHOOKS_STATE_DIR"]
    started = os.path.join(service_dir(state), f"{MODEL_KEY}.started")
    assert os.path.exists(started)
    # The service it started leaves by itself once idle (2 s here).
    status = os.path.join(service_dir(state), f"{MODEL_KEY}.json")
    end = time.monotonic() + 120
    while time.monotonic() < end:
        try:
            with open(status, encoding="utf-8") as fh:
                if json.load(fh).get("state") == "stopped":
                    break
        except (OSError, ValueError):
            pass
        time.sleep(0.5)
    else:
        pytest.fail("the service the hook started did not exit when idle")
    assert not os.path.exists(socket_path(state))
