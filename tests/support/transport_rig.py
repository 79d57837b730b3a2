"""Loopback servers for the transport tests: TLS with a throwaway CA, ``[::1]``, a CONNECT
proxy, and raw scripted servers for connection-level behaviour (keep-alive, dropped answers)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.connect_proxy import ConnectProxy
from tests.support.fake_openviking import FakeOpenViking
from tests.support.tls_ca import TestCA


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


@contextmanager
def fake_server(*, host: str = "127.0.0.1", ca: TestCA | None = None) -> Iterator[FakeOpenViking]:
    if ":" in host and not has_ipv6_loopback():
        pytest.skip("this machine has no IPv6 loopback (::1): the [::1] tests cannot run")
    server = FakeOpenViking(host=host, ssl_context=ca.server_context() if ca else None).start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def proxy(require_auth: str = "") -> Iterator[ConnectProxy]:
    server = ConnectProxy(require_auth=require_auth).start()
    try:
        yield server
    finally:
        server.stop()


def make_ca(folder: Path) -> TestCA:
    return TestCA(folder)


class ScriptedServer:
    """Accepts connections; ``script(conn, index)`` handles each in its own thread."""

    def __init__(self, script: Callable[[socket.socket, int], None]) -> None:
        self.script = script
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted = 0
        self.requests: list[bytes] = []
        self._conns: list[socket.socket] = []
        self._scripts: list[threading.Thread] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            index = self.accepted
            self.accepted += 1
            self._conns.append(conn)
            thread = threading.Thread(target=self.script, args=(conn, index), daemon=True)
            self._scripts.append(thread)
            thread.start()

    def read_request(self, conn: socket.socket) -> bytes:
        """One request (head and Content-Length body); ``b""`` when the client closed."""
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return b""
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(body) < length:
            body += conn.recv(65536)
        self.requests.append(head.split(b"\r\n", 1)[0])
        return head + b"\r\n\r\n" + body

    def running(self) -> bool:
        """Whether any of this server's threads is still alive."""
        return any(t.is_alive() for t in (self._thread, *self._scripts))

    def close(self) -> None:
        """Stop accepting and end every connection, and wait for the accepting thread.

        Closing a listening socket does not wake a thread blocked in ``accept``: left so,
        that thread outlived its test and, minutes later in a whole-suite run, accepted a
        connection meant for another server that had been given the same descriptor number
        (OpenViking's embedding request to the model stub got this server's canned answer).
        ``shutdown`` wakes it first."""
        for sock in (self.listener, *self._conns):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # not connected (any more)
        self._thread.join(5.0)
        for thread in self._scripts:
            thread.join(5.0)
        for sock in (self.listener, *self._conns):
            sock.close()


OK_JSON = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n"
    b'{"status":"ok","result":{}}'
)
