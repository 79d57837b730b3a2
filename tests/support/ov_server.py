"""Start and stop a real OpenViking 0.5.2 server for tests, fully offline on loopback.

The server runs from a dedicated virtual environment outside the repository (1.3 GB, made by
``scripts/ci-setup.sh``), against our :class:`~tests.support.model_stub.ModelStub` for
embeddings and (in the ``full`` profile) memory extraction. Each server gets a fresh workspace
and its own ``HOME``; nothing is hard-coded to a port.

Profiles (see ``shared/spec/openviking-api.md`` §C.3):

- ``capture``: ``memory.extraction_enabled: false`` and no ``vlm``; commits complete in ~1.3 s.
- ``full``: the stub is also the VLM, so commits extract memories (task completes in ~11 s,
  because OpenViking batches memory writes for up to 10 s).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from typing import Any

import httpx

from tests.support.model_stub import ModelStub

OV_VERSION = "0.5.2"
DEFAULT_CACHE_DIR = "~/.cache/ovhooks-ci"
# A start takes ~8 s on an idle machine and went past 40 s at load 15 on 2 cores. The wait ends
# at once if the process dies, so a long deadline only costs time when the server is alive
# and still starting.
HEALTH_DEADLINE_S = 180.0
TASK_DEADLINE_S = 60.0
ENABLE_HINT = "run scripts/ci-setup.sh to enable real-server tests"

PROFILES = ("capture", "full")
AUTH_MODES = ("dev", "api_key", "trusted")


def default_ov_venv(environ: Mapping[str, str]) -> str:
    explicit = environ.get("OVHOOKS_OV_VENV")
    if explicit:
        return explicit
    home = environ.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".cache", "ovhooks-ci", f"ov-{OV_VERSION}")


def server_executable(venv: str) -> str:
    return os.path.join(venv, "bin", "openviking-server")


def venv_is_usable(venv: str) -> bool:
    return os.access(server_executable(venv), os.X_OK)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ov_conf(
    *,
    workspace: str,
    port: int,
    stub_api_base: str,
    profile: str,
    dimension: int = 384,
    auth_mode: str = "dev",
    root_api_key: str | None = None,
) -> dict[str, Any]:
    """The ov.conf document for one test server (pure: no I/O)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {PROFILES}")
    if auth_mode not in AUTH_MODES:
        raise ValueError(f"unknown auth mode {auth_mode!r}; expected one of {AUTH_MODES}")
    server: dict[str, Any] = {"host": "127.0.0.1", "port": port, "auth_mode": auth_mode}
    if auth_mode != "dev":
        if not root_api_key:
            raise ValueError(f"auth mode {auth_mode!r} needs a root_api_key")
        server["root_api_key"] = root_api_key
    conf: dict[str, Any] = {
        "storage": {"workspace": workspace},
        "embedding": {
            "dense": {
                "provider": "openai",
                "api_base": stub_api_base,
                "api_key": "dummy",
                "model": f"hash-{dimension}",
                "dimension": dimension,
                "encoding_format": "float",
            },
            "max_retries": 0,
        },
        "server": server,
        "log": {"level": "WARNING"},
    }
    if profile == "full":
        conf["vlm"] = {
            "provider": "openai",
            "api_base": stub_api_base,
            "api_key": "dummy",
            "model": "stub-llm",
            "max_retries": 0,
            "timeout": 30,
        }
    else:
        conf["memory"] = {"extraction_enabled": False}
    return conf


def server_environment(base: Mapping[str, str], home: str) -> dict[str, str]:
    """The server's environment: ours minus anything that would point it elsewhere."""
    env = {
        k: v
        for k, v in base.items()
        if not k.startswith(("OPENVIKING_", "OVHOOKS_")) and k.lower() not in _PROXY_VARS
    }
    env["HOME"] = home
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env["HF_HUB_OFFLINE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    return env


_PROXY_VARS = frozenset(("http_proxy", "https_proxy", "all_proxy"))


class OvServer:
    """A running OpenViking server and its model stub."""

    def __init__(
        self,
        *,
        url: str,
        process: subprocess.Popen[bytes],
        stub: ModelStub,
        base_dir: str,
        log_path: str,
        profile: str,
        auth_mode: str,
        root_api_key: str | None,
        start_seconds: float,
    ) -> None:
        self.url = url
        self.process = process
        self.stub = stub
        self.base_dir = base_dir
        self.log_path = log_path
        self.profile = profile
        self.auth_mode = auth_mode
        self.root_api_key = root_api_key
        self.start_seconds = start_seconds

    @property
    def stub_url(self) -> str:
        return self.stub.api_base

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, max_chars: int = 4000) -> str:
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as handle:
                return handle.read()[-max_chars:]
        except OSError:
            return "(no server log)"

    def stop(self, timeout_s: float = 15.0) -> None:
        """SIGTERM by PID, then SIGKILL if it has not exited (clean exit takes ~5 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.stub.stop()


def start_ov_server(
    venv: str,
    base_dir: str,
    *,
    profile: str = "capture",
    auth_mode: str = "dev",
    root_api_key: str | None = None,
    environ: Mapping[str, str] | None = None,
    health_deadline_s: float = HEALTH_DEADLINE_S,
) -> OvServer:
    """Start the stub and ``openviking-server`` under ``base_dir``; return once /health is 200."""
    started = time.monotonic()
    os.makedirs(base_dir, exist_ok=True)
    home = os.path.join(base_dir, "home")
    os.makedirs(home, exist_ok=True)
    stub = ModelStub(log_dir=os.path.join(base_dir, "stub-requests")).start()
    port = free_port()
    conf = ov_conf(
        workspace=os.path.join(base_dir, "workspace"),
        port=port,
        stub_api_base=stub.api_base,
        profile=profile,
        dimension=stub.dimension,
        auth_mode=auth_mode,
        root_api_key=root_api_key,
    )
    conf_path = os.path.join(base_dir, "ov.conf")
    with open(conf_path, "w", encoding="utf-8") as handle:
        json.dump(conf, handle, indent=1)
    log_path = os.path.join(base_dir, "server.log")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [server_executable(venv), "--config", conf_path],
            env=server_environment(environ if environ is not None else os.environ, home),
            cwd=base_dir,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = OvServer(
        url=f"http://127.0.0.1:{port}",
        process=process,
        stub=stub,
        base_dir=base_dir,
        log_path=log_path,
        profile=profile,
        auth_mode=auth_mode,
        root_api_key=root_api_key,
        start_seconds=0.0,
    )
    try:
        _wait_for_health(server, health_deadline_s)
    except BaseException:
        server.stop()
        raise
    server.start_seconds = time.monotonic() - started
    return server


def _wait_for_health(server: OvServer, deadline_s: float) -> None:
    deadline = time.monotonic() + deadline_s
    last_error = "no answer yet"
    while time.monotonic() < deadline:
        code = server.process.poll()
        if code is not None:
            raise RuntimeError(
                f"openviking-server exited with code {code} before /health answered.\n"
                f"--- {server.log_path} ---\n{server.log_tail()}"
            )
        try:
            response = httpx.get(f"{server.url}/health", timeout=2.0)
            if response.status_code == 200:
                return
            last_error = f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            last_error = repr(exc)
        time.sleep(0.25)
    raise RuntimeError(
        f"openviking-server did not answer /health within {deadline_s:.0f} s ({last_error}).\n"
        f"--- {server.log_path} ---\n{server.log_tail()}"
    )


def wait_for_task(
    client: httpx.Client, task_id: str, timeout_s: float = TASK_DEADLINE_S
) -> dict[str, Any]:
    """Poll ``GET /api/v1/tasks/{id}`` until completed or failed; return the task document.

    Extraction takes ~11 s (OpenViking's 10 s memory-write batching window), hence the long
    default deadline.
    """
    deadline = time.monotonic() + timeout_s
    task: dict[str, Any] = {}
    while time.monotonic() < deadline:
        response = client.get(f"/api/v1/tasks/{task_id}")
        response.raise_for_status()
        task = response.json()["result"]
        if task.get("status") in ("completed", "failed"):
            return task
        time.sleep(0.2)
    raise TimeoutError(f"task {task_id} not finished after {timeout_s:.0f} s: {task}")


def wait_for_session_commits(
    client: httpx.Client,
    session_id: str,
    timeout_s: float = TASK_DEADLINE_S,
    at_least: int = 1,
) -> list[dict[str, Any]]:
    """Wait until ``session_id`` has ``at_least`` commit tasks and all of them have finished.

    For tests where the commit was made by someone else (a hook) and the task id is unknown.
    With ``at_least=0`` a session without commits returns ``[]`` at once.
    """
    deadline = time.monotonic() + timeout_s
    tasks: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        response = client.get(
            "/api/v1/tasks",
            params={"task_type": "session_commit", "resource_id": session_id, "limit": 50},
        )
        response.raise_for_status()
        tasks = list(response.json()["result"] or [])
        if len(tasks) >= at_least and all(
            t.get("status") in ("completed", "failed") for t in tasks
        ):
            return tasks
        time.sleep(0.25)
    raise TimeoutError(
        f"commit tasks of {session_id} not finished after {timeout_s:.0f} s: {tasks}"
    )


def drain_queues(client: httpx.Client, timeout_s: float = 60.0) -> dict[str, Any]:
    """``POST /api/v1/system/wait``: block until OpenViking's processing queues are empty."""
    response = client.post("/api/v1/system/wait", json={}, timeout=timeout_s)
    response.raise_for_status()
    result: dict[str, Any] = response.json().get("result") or {}
    return result
