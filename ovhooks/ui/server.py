"""The viewer's HTTP server: the standard library's threading server on loopback.

Chosen by measurement (see ``docs/VIEWER.md``): Starlette with uvicorn took 0.9-1.1 s to
import on this 2-core machine under load, the standard library server with Jinja2 0.3-0.5 s,
and the viewer needs nothing the standard library lacks (a handful of routes, one JSON body
per POST, polling for live updates). Jinja2 is kept for its autoescaping: every memory, prompt
and transcript shown is untrusted text.

Every request passes ``guard.judge`` before any route runs; every answer carries
``guard.SECURITY_HEADERS``. Bodies are capped at ``limits.VIEWER_BODY_MAX_BYTES`` (HTTP 413).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from ovhooks.rules.limits import VIEWER_BODY_MAX_BYTES
from ovhooks.ui import guard

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from ovhooks.ui.guard import Secrets

    class Site(Protocol):
        """What the server asks of the viewer it serves (``routes.Viewer``): who may call and
        the answer to a request; declared here so the server never imports the routes (which
        import the server's Request and Response: no import circle, type-only ones included)."""

        secrets: Secrets
        hosts: frozenset[str]

        def dispatch(self, request: Request) -> Response: ...


MAX_BODY = VIEWER_BODY_MAX_BYTES
# How much of a refused (over-large) body is read and dropped before the answer, so the client
# reads a 413 instead of a reset connection; past it the connection is closed.
DRAIN_MAX = 8 * MAX_BODY


class Request:
    __slots__ = ("body", "headers", "method", "path", "query")

    def __init__(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: Any
    ) -> None:
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body


class Response:
    __slots__ = ("body", "content_type", "headers", "status")

    def __init__(
        self,
        status: int,
        body: bytes | str = b"",
        content_type: str = "text/html; charset=utf-8",
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.status = status
        self.body = body.encode() if isinstance(body, str) else body
        self.content_type = content_type
        self.headers = headers

    @classmethod
    def json(cls, doc: Any, status: int = 200) -> Response:
        body = json.dumps(doc, ensure_ascii=False)
        return cls(status, body, "application/json; charset=utf-8")


class Handler(BaseHTTPRequestHandler):
    server: ViewerServer
    server_version = "ovhooks-ui"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    # A connection that sends nothing for this long is closed: each holds a thread (a
    # campaign held 2,000 idle ones open, 51 MB, for as long as it liked).
    timeout = 15

    # Whether this request's body was read: an answer that leaves one unread closes the
    # connection, or its bytes would be read as the next request.
    _body_read = False

    def do_GET(self) -> None:
        self._serve("GET")

    def do_HEAD(self) -> None:
        self._serve("HEAD")

    def do_POST(self) -> None:
        self._serve("POST")

    def _refuse_method(self) -> None:
        self._body_read = False
        self._send(Response(405, "method not allowed", "text/plain; charset=utf-8"))

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse_method  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:
        return  # the URL may carry the start token: never printed

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """A request the standard library refuses before any route (a malformed or over-long
        request line, a bad header): its standard phrase only, since its own page quotes the
        request line, key and token included."""
        phrase = self.responses.get(code, ("error",))[0]
        self.close_connection = True
        self._send(Response(code, phrase.lower(), "text/plain; charset=utf-8"))

    def _serve(self, method: str) -> None:
        self._body_read = False
        viewer = self.server.viewer
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        if any(len(self.headers.get_all(name) or ()) > 1 for name in guard.SINGLE_HEADERS):
            # which one would the checks read? (the last, before: a second Host got past)
            self.close_connection = True
            self._send(Response(400, "a header given twice", "text/plain; charset=utf-8"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        verdict = guard.judge(method, headers, query.get("token", ""), viewer.secrets, viewer.hosts)
        if verdict.status == 303:
            if not viewer.secrets.spend():  # another request signed in with it just now
                self._send(Response(403, guard.SPENT, "text/plain; charset=utf-8"))
                return
            clean = parts.path + _without_token(parts.query)
            cookie = f"{guard.COOKIE}={viewer.secrets.cookie}; HttpOnly; SameSite=Strict; Path=/"
            self._send(Response(303, "", headers=(("Location", clean), ("Set-Cookie", cookie))))
            return
        if not verdict.ok:
            self._send(Response(verdict.status, verdict.reason, "text/plain; charset=utf-8"))
            return
        body: Any = None
        if method == "POST":
            if self._too_large():
                return
            body = self._json_body()
            if body is None:
                self._send(Response(400, "a JSON object body is required", "text/plain"))
                return
        request = Request(method, parts.path, query, headers, body)
        started = time.perf_counter()
        response = viewer.dispatch(request)
        # How long the page took to make, for the browser's devtools and scripts/bench_ui.py.
        took = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
        response.headers = (*response.headers, ("Server-Timing", took))
        self._send(response, head=method == "HEAD")

    def _too_large(self) -> bool:
        """Answer 413 (JSON, as the page's script reads errors) to a body over ``MAX_BODY``."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            return False  # _json_body answers 400
        if length <= MAX_BODY:
            return False
        left = length if length <= DRAIN_MAX else 0
        while left > 0:
            chunk = self.rfile.read(min(left, 65536))
            if not chunk:
                break
            left -= len(chunk)
        self.close_connection = True
        message = f"the request body is {length:,} bytes; the viewer takes at most {MAX_BODY:,}"
        answer = Response.json({"error": message}, status=413)
        answer.headers = (("Connection", "close"),)
        self._send(answer)
        return True

    def _json_body(self) -> dict[str, Any] | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            return None
        if length <= 0 or length > MAX_BODY:
            return None
        data = self.rfile.read(length)
        self._body_read = True
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError):
            return None
        return doc if isinstance(doc, dict) else None

    def _send(self, response: Response, *, head: bool = False) -> None:
        body = redacted_body(response)
        unread = self._unread_body()
        if unread:
            self.close_connection = True
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(body)))
        if unread and not any(name == "Connection" for name, _value in response.headers):
            self.send_header("Connection", "close")
        for name, value in guard.SECURITY_HEADERS + response.headers:
            self.send_header(name, _redacted_header(name, value))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _unread_body(self) -> bool:
        """The request came with a body this answer did not read (a refused POST, a PUT)."""
        headers = getattr(self, "headers", None)  # none yet when the request line was bad
        if headers is None or self._body_read:
            return False
        length = (headers.get("Content-Length") or "").strip()
        return bool(headers.get("Transfer-Encoding")) or length not in ("", "0")


def redacted_body(response: Response) -> bytes:
    """The bytes that leave: every page, JSON answer and error text without our API key (or
    any header credential), whichever route made it and whatever it quotes (a memory, an
    error, the request's own arguments). Our static files are sent as they are."""
    kind = response.content_type
    if not response.body or not kind.startswith(("text/html", "text/plain", "application/json")):
        return response.body
    from ovhooks.redact import redact_json_text, redact_known_secrets

    text = response.body.decode("utf-8", "replace")
    if kind.startswith("application/json"):
        return redact_json_text(text).encode("utf-8")
    return redact_known_secrets(text).encode("utf-8")


def _redacted_header(name: str, value: str) -> str:
    """A header we send: ``Location`` echoes the request's path and query, which may hold the
    key percent-encoded; such a target loses its query (and the key in its path)."""
    if name.lower() != "location":
        return value
    from urllib.parse import unquote

    from ovhooks.redact import redact_known_secrets

    plain = unquote(value)
    if redact_known_secrets(plain) == plain:
        return value
    return "/" + redact_known_secrets(unquote(value.split("?", 1)[0])).lstrip("/")


def _without_token(query: str) -> str:
    kept = [p for p in query.split("&") if p and not p.startswith("token=")]
    return "?" + "&".join(kept) if kept else ""


class ViewerServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], viewer: Site, family: int) -> None:
        self.address_family = family
        self.viewer = viewer
        super().__init__(address, Handler)


def bind(viewer: Site, host: str, port: int) -> list[ViewerServer]:
    """Servers on ``host``:``port`` (for the default 127.0.0.1, on ::1 as well when the
    machine has IPv6, on the same port). Port 0 picks a free one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    first = ViewerServer((host, port), viewer, family)
    servers = [first]
    if host == "127.0.0.1":
        try:
            servers.append(ViewerServer(("::1", first.server_address[1]), viewer, socket.AF_INET6))
        except OSError:
            pass  # no IPv6 loopback here
    return servers


def serve(servers: list[ViewerServer]) -> None:
    """Serve until interrupted (every server but the first in a thread of its own)."""
    for extra in servers[1:]:
        threading.Thread(target=extra.serve_forever, daemon=True).start()
    try:
        servers[0].serve_forever()
    finally:
        for server in servers:
            server.server_close()
