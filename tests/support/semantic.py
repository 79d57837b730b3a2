"""The real embedding service for tests: started as a child process (so a test can end it
by its pid), on a state dir and store the test owns."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ovhooks.semantic import client

SERVICE_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def local_user_env(root: Path, **overrides: str) -> dict[str, str]:
    """A fresh user of the local store with recall by meaning on: HOME, state and data dirs
    under ``root``, an empty config, none of the machine's ovhooks or host settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OVHOOKS_", "OPENVIKING_", "CODEX_", "CLAUDE_", "XDG_"))
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    (root / "config.toml").touch()
    env.update(
        HOME=str(root / "home"),
        OVHOOKS_STATE_DIR=str(root / "state"),
        OVHOOKS_DATA_DIR=str(root / "data"),
        OVHOOKS_CONFIG=str(root / "config.toml"),
        OPENVIKING_CLI_CONFIG_FILE=str(root / "ovcli.conf"),
        OVHOOKS_BACKEND="local",
        OVHOOKS_DETACH="0",
        OVHOOKS_SEMANTIC="on",
        # Correctness here, not speed (a loaded CI box): the budget has its own tests.
        OVHOOKS_SEMANTIC_DEADLINE_MS="5000",
    )
    env.update(overrides)
    return env


def start_service(
    state_dir: str,
    *,
    db: str = "",
    idle_s: float = 120.0,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "ovhooks", "_embedd", "--state-dir", state_dir]
    argv += ["--idle", str(idle_s)] + (["--db", db] if db else [])
    child_env = {**(env or os.environ), **SERVICE_ENV}
    return subprocess.Popen(argv, env=child_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_until(check: Callable[[], Any], timeout_s: float, what: str) -> Any:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def ping(state_dir: str) -> dict[str, Any] | None:
    answer, _reason = client.ping(state_dir, 5.0)
    return answer


def wait_warm_and_indexed(state_dir: str, db: str, timeout_s: float = 240.0) -> dict[str, Any]:
    """Until the model is loaded and every row of ``db`` has its vector."""

    def ready() -> dict[str, Any] | None:
        client.request(state_dir, {"op": "index", "db": db}, 5.0)
        doc = ping(state_dir)
        if not doc or doc.get("state") != "warm":
            return None
        store = (doc.get("stores") or {}).get(os.path.abspath(db)) or {}
        return doc if store.get("pending") == 0 and store.get("rows", 0) >= 0 else None

    doc: dict[str, Any] = wait_until(ready, timeout_s, "a warm, fully indexed service")
    return doc


def stop_service(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def hold_off_starts(state_dir: str) -> None:
    """A fresh start stamp: hooks in this state dir do not launch a service for a minute
    (``client.START_BACKOFF_S``), so a test with semantics on and no service stays so."""
    from ovhooks.semantic import MODEL_KEY, service_dir

    folder = service_dir(state_dir)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    with open(os.path.join(folder, f"{MODEL_KEY}.started"), "w", encoding="utf-8"):
        pass


def stop_running(state_dir: str) -> None:
    """Ask the service of ``state_dir`` to exit, if one runs: what a test's hooks started
    (as a user's would) must not outlive the test."""
    client.request(state_dir, {"op": "stop"}, 5.0)


def read_line(sock: socket.socket) -> bytes:
    """What the peer sent up to its newline (the service's protocol: one JSON line)."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


class CannedService:
    """A stand-in for the embedding service on ``path``: every connection gets ``reply``
    (and the request it sent is kept in ``requests``), until ``close``."""

    def __init__(self, path: str, reply: dict[str, Any]) -> None:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(4)
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                data = read_line(conn)
                try:
                    self.requests.append(json.loads(data))
                except ValueError:
                    pass
                conn.sendall(json.dumps(self.reply).encode() + b"\n")

    def close(self) -> None:
        # shutdown wakes the blocked accept; a bare close would leave the thread to accept,
        # later, on whatever socket is given the same descriptor number.
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.thread.join(5.0)
        self.listener.close()
