"""An in-memory OpenViking look-alike on a real loopback socket, for fast core tests.

It speaks the 0.5.2 shapes ovhooks relies on (tests/support/fake_openviking_api.py; the
contract tests run against both it and the real server) and records every request, so tests
can assert on what was sent. ``mode`` switches failure behaviour at run time: ``ok``,
``error500``, ``html``, ``hang`` (``hang_s``, never answered nor applied), ``slow`` (each
request sleeps ``delay_s`` first, then is applied and answered: with a client timeout
shorter than that, a write applied late), ``refuse`` (stop listening), ``trickle`` (the
answer's bytes one at a time, ``trickle_s`` apart), ``big`` (every JSON answer padded to
``big_bytes``; chunked when ``chunked`` is set).
``writes_only`` limits ``hang``/``slow`` to writes (reads answer at once); ``fail_rate``
answers that share of requests with a 500, from a seeded generator.
``redirect_status`` makes every route outside ``/moved`` answer
with that status and a ``Location`` of ``redirect_base`` (default: this server) + ``/moved``
+ the path. The server can listen on ``[::1]`` (``host``) and speak TLS (``ssl_context``).
A ``Host`` header that is not a valid host (an IPv6 literal without brackets) gets a 400,
as RFC 9110 §7.2 asks of servers.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from tests.support.fake_openviking_api import FakeOpenVikingApi


class FakeOpenViking(FakeOpenVikingApi):
    def __init__(self, host: str = "127.0.0.1", ssl_context: Any = None) -> None:
        self.host = host
        self.ssl_context = ssl_context
        self.trickle_s = 0.05
        self.big_bytes = 40 * 1024 * 1024
        self.chunked = False
        self.redirect_status = 0
        self.redirect_base = ""
        self._big_cache: dict[tuple[bytes, int], bytes] = {}
        self._init_data()
        self.requests: list[dict[str, Any]] = []
        self.mode = "ok"
        self.delay_s = 0.0
        self.hang_s = 30.0
        self.writes_only = False
        self.fail_rate = 0.0
        self.rng = random.Random(13)
        self.lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0
        self.connections: list[socket.socket] = []  # every accepted connection, in order

    # --- lifecycle --------------------------------------------------------------------------
    def start(self) -> Self:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # The handler writes an answer in several small sends; with Nagle on, each one
            # after the first waits for the client's delayed ACK on a kept-alive connection
            # (~40 ms a request), which real servers do not make clients wait.
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:
                return

            def setup(self) -> None:
                if fake.ssl_context is not None:
                    # the handshake runs here, in the connection's thread, not in accept()
                    self.request = fake.ssl_context.wrap_socket(self.request, server_side=True)
                super().setup()
                with fake.lock:
                    fake.connections.append(self.connection)

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                fake._dispatch(self, raw)

            do_GET = do_POST = do_DELETE = _handle  # noqa: N815

        class Server(ThreadingHTTPServer):
            address_family = socket.AF_INET6 if ":" in fake.host else socket.AF_INET

            def handle_error(self, request: Any, client_address: Any) -> None:
                return  # a client that rejects our certificate is part of the tests

        self._server = Server((self.host, self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def refuse(self) -> None:
        """Stop listening (connection refused) but keep the data, like a server that died:
        open (kept-alive) connections are cut too."""
        self.stop()
        with self.lock:
            for conn in self.connections:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def restart(self) -> None:
        self.start()

    @property
    def url(self) -> str:
        scheme = "https" if self.ssl_context is not None else "http"
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.ssl_context is not None and self.host == "127.0.0.1":
            host = "localhost"  # the name the test certificate is issued for
        return f"{scheme}://{host}:{self.port}"

    # --- helpers for tests ------------------------------------------------------------------
    def writes(self) -> list[dict[str, Any]]:
        return [
            r for r in self.requests if r["method"] != "GET" and "/search/" not in str(r["path"])
        ]

    # --- the API ----------------------------------------------------------------------------
    def _dispatch(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        split = urlsplit(handler.path)
        path = split.path
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
        with self.lock:
            self.requests.append(
                {
                    "method": handler.command,
                    "path": path,
                    "query": query,
                    "body": body,
                    "headers": dict(handler.headers.items()),
                    "at": time.time(),
                }
            )
            mode, delay = self.mode, self.delay_s
            if self.writes_only and handler.command == "GET":
                mode, delay = "ok", 0.0
            if mode == "ok" and self.fail_rate and self.rng.random() < self.fail_rate:
                mode = "error500"
        if not _valid_host(handler.headers.get("Host", "")):
            self._send(handler, 400, {"status": "error", "error": {"code": "BAD_HOST"}})
            return
        if self.redirect_status and not path.startswith("/moved/"):
            target = (self.redirect_base or self.url) + "/moved" + split.path
            target += f"?{split.query}" if split.query else ""
            handler.send_response(self.redirect_status)
            handler.send_header("Location", target)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        path = path.removeprefix("/moved")
        if mode == "hang":
            time.sleep(self.hang_s)
            return
        if mode == "gateway504":  # a proxy gives up on a backend that never applied it
            time.sleep(self.hang_s)
            self._send(handler, 504, {"status": "error", "error": {"code": "GATEWAY_TIMEOUT"}})
            return
        if delay:
            time.sleep(delay)
        if mode.startswith("echo"):
            self._echo(handler, mode)
            return
        if mode == "error500":
            self._send(
                handler, 500, {"status": "error", "error": {"code": "INTERNAL", "message": "boom"}}
            )
            return
        if mode == "html":
            payload = b"<html><body>502 Bad Gateway</body></html>"
            handler.send_response(502)
            handler.send_header("Content-Type", "text/html")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        with self.lock:
            self.caller = self._identity(handler)
            status, doc = self._route(handler.command, path, query, body)
        if mode == "applied_unanswered" and handler.command != "GET":
            # applied, then the connection drops before any answer (a crash, a proxy's cut)
            handler.close_connection = True
            return
        payload = json.dumps(doc).encode()
        if mode == "big" and payload.endswith(b"}"):
            payload = self._padded(payload)
        if mode == "trickle":
            self._trickle(handler, status, payload)
        elif self.chunked:
            self._send_chunked(handler, status, payload)
        else:
            self._send(handler, status, doc, payload)

    def _identity(self, handler: BaseHTTPRequestHandler) -> str:
        """The calling user: dev mode honours ``X-OpenViking-User``."""
        return handler.headers.get("X-OpenViking-User") or "default"

    @staticmethod
    def _echo(handler: BaseHTTPRequestHandler, mode: str) -> None:
        """A gateway that echoes the request head in its error (modes ``echo401``,
        ``echo500``, ``echo_html``, ``echo_empty``): headers, API key included."""
        head = f"{handler.command} {handler.path}\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in handler.headers.items()
        )
        status = 401 if mode == "echo401" else 500
        if mode == "echo_html":
            payload = f"<html><body><h1>502</h1><pre>{head}</pre></body></html>".encode()
            ctype = "text/html"
        elif mode == "echo_empty":
            payload, ctype = b"", "application/json"
        else:
            error = {"code": "UNAUTHENTICATED", "message": f"rejected request:\n{head}"}
            payload, ctype = (
                json.dumps({"status": "error", "error": error}).encode(),
                "application/json",
            )
        handler.send_response(status)
        handler.send_header("Content-Type", ctype)
        handler.send_header("Content-Length", str(len(payload)))
        handler.send_header("X-Echo-Authorization", handler.headers.get("Authorization", ""))
        handler.end_headers()
        handler.wfile.write(payload)

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler, status: int, doc: Any, payload: bytes | None = None
    ) -> None:
        payload = json.dumps(doc).encode() if payload is None else payload
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _padded(self, payload: bytes) -> bytes:
        """The answer padded to ``big_bytes`` (built once per answer, so timing the client
        measures the client, not this server building 40 MiB)."""
        key = (payload, self.big_bytes)
        if key not in self._big_cache:
            pad = b"x" * max(0, self.big_bytes - len(payload))
            self._big_cache[key] = b"".join((payload[:-1], b', "padding": "', pad, b'"}'))
        return self._big_cache[key]

    def _send_chunked(self, handler: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        key = (payload, -1)
        if key not in self._big_cache:
            step = 64 * 1024
            pieces = [payload[i : i + step] for i in range(0, len(payload), step)]
            framed = [b"%x\r\n%s\r\n" % (len(p), p) for p in pieces]
            self._big_cache[key] = b"".join([*framed, b"0\r\n\r\n"])
        handler.wfile.write(self._big_cache[key])

    def _trickle(self, handler: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.flush()
        try:
            for byte in payload:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                time.sleep(self.trickle_s)
        except OSError:
            return  # the client gave up, as it should


def _valid_host(value: str) -> bool:
    """``name``, ``name:port``, ``IPv4:port`` or ``[IPv6]:port`` (RFC 9110 §7.2)."""
    if value.startswith("["):
        inside, close, rest = value[1:].partition("]")
        return bool(close and inside) and (not rest or (rest[1:].isdigit() and rest[0] == ":"))
    name, _, port = value.partition(":")
    return bool(name) and ":" not in port and (not port or port.isdigit())
