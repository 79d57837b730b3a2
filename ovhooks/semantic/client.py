"""The hook's side of the embedding service: ``_socket`` and ``json``, nothing heavier
(``socket`` itself imports ``selectors`` and ``array``: 3-4 ms of a hook's start).

Every call has a deadline and answers ``None`` (with a reason) rather than raise: recall
then goes on lexically. ``start`` launches the service detached when none answers, at most
once a minute, so the first prompt never waits for a model to load.
"""

from __future__ import annotations

import _socket
import json
import os
import sys
import time

from ovhooks.fsutil import ensure_dir
from ovhooks.semantic import MODEL_KEY, PROTOCOL, service_dir, socket_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.settings.config import Settings

# A start is not tried again for this long (the model loads in ~1 s, several under load).
START_BACKOFF_S = 60.0
_MAX_ANSWER = 4 * 1024 * 1024


class Pending:
    """A request sent; its answer read later (the hook does its lexical search meanwhile)."""

    __slots__ = ("reason", "sock")

    def __init__(self, sock: _socket.socket | None, reason: str = "") -> None:
        self.sock = sock
        self.reason = reason

    def answer(self, timeout_s: float) -> dict[str, Any] | None:
        """The service's answer, or ``None`` (``reason`` says why) past ``timeout_s``."""
        sock = self.sock
        if sock is None:
            return None
        self.sock = None
        chunks: list[bytes] = []
        size = 0
        end = time.monotonic() + max(0.0, timeout_s)
        try:
            while True:
                left = end - time.monotonic()
                if left <= 0:
                    self.reason = "timeout"
                    return None
                sock.settimeout(left)
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if chunk.endswith(b"\n") or size > _MAX_ANSWER:
                    break
        except TimeoutError:
            self.reason = "timeout"
            return None
        except OSError as exc:
            self.reason = f"io:{exc.errno}"
            return None
        finally:
            sock.close()
        try:
            doc = json.loads(b"".join(chunks))
        except (ValueError, RecursionError):
            self.reason = "bad_answer"
            return None
        if not isinstance(doc, dict):
            self.reason = "bad_answer"
            return None
        if not doc.get("ok"):
            self.reason = str(doc.get("error") or "refused")
            return None
        return doc


def send(state_dir: str, request: dict[str, Any], timeout_s: float = 0.05) -> Pending:
    """Connect and send ``request`` (protocol and model added); never raises."""
    body = dict(request, v=PROTOCOL, model=MODEL_KEY)
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(max(0.001, timeout_s))
        sock.connect(socket_path(state_dir))
        sock.sendall(data)
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return Pending(None, "absent")
    except OSError as exc:
        sock.close()
        return Pending(None, f"io:{exc.errno}")
    return Pending(sock)


def request(
    state_dir: str, body: dict[str, Any], timeout_s: float
) -> tuple[dict[str, Any] | None, str]:
    """Send and wait: ``(answer, "")`` or ``(None, reason)``."""
    pending = send(state_dir, body, timeout_s)
    answer = pending.answer(timeout_s)
    return answer, pending.reason


def start(
    state_dir: str, *, idle_s: float, db: str = "", now: float | None = None, force: bool = False
) -> bool:
    """Launch the service detached unless a start was tried within ``START_BACKOFF_S``.

    The service itself takes a lock, so two racing starts leave one service. Returns whether
    a start was launched.
    """
    folder = service_dir(state_dir)
    stamp = os.path.join(folder, f"{MODEL_KEY}.started")
    now = time.time() if now is None else now
    try:
        if not force and 0 <= now - os.stat(stamp).st_mtime < START_BACKOFF_S:
            return False
    except OSError:
        pass
    try:
        ensure_dir(folder)
        fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(fd)
        os.utime(stamp, (now, now))
    except OSError:
        return False
    argv = [sys.executable, "-m", "ovhooks", "_embedd", "--state-dir", state_dir]
    argv += ["--idle", f"{idle_s:g}"]
    if db:
        argv += ["--db", db]
    env = dict(os.environ)
    # One BLAS thread: a prompt's encoding is a few small matrix products, and two cores
    # are shared with the host, the agent and its tools.
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"

    def launch() -> None:
        os.execve(sys.executable, argv, env)

    from ovhooks.spawn import run_detached

    try:
        pid = run_detached(launch)
    except OSError:
        return False
    try:
        os.waitpid(pid, 0)  # the intermediate child exits at once; do not leave a zombie
    except OSError:
        pass
    return True


def nudge(state_dir: str, db: str, *, idle_s: float, force: bool = False) -> str:
    """Tell the service that ``db`` has new rows to embed, starting it when none answers.
    What happened: ``asked``, ``started``, or why neither."""
    answer, reason = request(state_dir, {"op": "index", "db": db}, 0.5)
    if answer is not None:
        return "asked"
    if reason in ("absent", "version") and start(state_dir, idle_s=idle_s, db=db, force=force):
        return "started"
    return reason


def ping(state_dir: str, timeout_s: float = 0.5) -> tuple[dict[str, Any] | None, str]:
    """The service's own status (state, model, pending, RSS), or why it did not answer."""
    return request(state_dir, {"op": "ping"}, timeout_s)


def nudge_store(settings: Settings) -> str:
    """``nudge`` for the local store the settings choose (write paths: the worker after its
    jobs, ``remember``, ``import``); nothing for OpenViking or with semantics off."""
    if not settings.semantic or settings.backend != "local":
        return "off"
    db = os.path.join(settings.data_dir, "memory.db")
    if not os.path.isfile(db):
        return "no_store"
    return nudge(settings.state_dir, db, idle_s=settings.semantic_idle_s)
