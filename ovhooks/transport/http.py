"""The one HTTP/1.1 transport for hooks, the worker and every human command (doctor included).

Why our own and not httpx: ``import httpx`` costs ~6x a bare interpreter start and
``http.client`` ~2.3x, against a UserPromptSubmit budget of 5x; this module costs less than
either (``docs/BENCHMARKS.md``). What it does, in order of a request:

- header values are checked before anything is sent (``config`` error naming the header, never
  its value: it may be an API key);
- the proxy comes from the environment as curl and httpx read it (``proxy.py``);
- ``https://`` uses the ``ssl`` module, imported only then, with the CAs ``tls.py`` names;
- one overall deadline (``Request.timeout_s`` from the start of the call) covers connect,
  proxy CONNECT, TLS handshake, sending, and the whole body (``wire.py``);
- answers are read linearly and capped (``too_large`` past ``max_body``);
- 307/308 to the same origin are followed; any other redirect is an ``http`` error with code
  ``REDIRECT`` that names the ``Location`` (never retried as an "empty answer");
- one connection is kept alive per client and reused while the server allows it; a request
  is sent again on a fresh connection only when the kept one turned out closed before the
  request went out, or when the request is idempotent.
"""

from __future__ import annotations

import json
import os
import time

from ovhooks.transport.errors import BackendError
from ovhooks.transport.url import origin_url, resolve, split_url
from ovhooks.transport.wire import Closed, Connection, open_connection, too_large

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from ovhooks.settings.config import Settings

    Transport = Callable[["Request"], "Response"]

__all__ = ["HttpClient", "Request", "Response", "split_url", "transport_for"]

MAX_BODY = 64 * 1024 * 1024
MAX_REDIRECTS = 5
_IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
_TOKEN = frozenset("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


class Request:
    __slots__ = ("body", "headers", "method", "timeout_s", "url")

    def __init__(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | None,
        timeout_s: float,
    ) -> None:
        self.method = method
        self.url = url
        self.headers = dict(headers)
        self.body = body
        self.timeout_s = timeout_s  # the whole call, redirects included


class Response:
    """``body`` may be a ``bytearray``: a large answer is received in place, never copied."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes | bytearray) -> None:
        self.status = status
        self.headers = dict(headers)
        self.body = body


def check_headers(headers: Mapping[str, str]) -> None:
    """Refuse a header that would corrupt the request, without echoing its value."""
    for name, value in headers.items():
        if not name or not _TOKEN.issuperset(name):
            raise BackendError("config", f"header name {name!r} is not a valid HTTP field name")
        reason = ""
        if "\r" in value or "\n" in value:
            reason = "a line break (CR/LF)"
        elif not value.isascii():
            try:
                value.encode("latin-1")
            except UnicodeEncodeError:
                reason = "a character outside latin-1"
        if not reason and any((ch < " " and ch != "\t") or ch == "\x7f" for ch in value):
            reason = "a control character"
        if reason:
            raise BackendError(
                "config",
                f"the {name} header cannot be sent: its value contains {reason} "
                "(value not shown; correct the setting it comes from)",
            )


def json_body(doc: object, headers: Mapping[str, str]) -> bytes:
    """``doc`` as a UTF-8 JSON request body; a ``config`` error for text that is not valid
    Unicode (a lone surrogate: bytes that are not UTF-8, decoded from an identity variable),
    naming the header when one of ``headers`` carries it, never the value."""
    try:
        return json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        check_headers(headers)
        raise BackendError(
            "config",
            "a request holds text that is not valid Unicode (bytes that are not UTF-8, "
            "from a setting or an argument); correct it and try again",
        ) from None


def transport_for(settings: Settings, *, keep_alive: bool = True) -> HttpClient:
    """The client every part of ovhooks uses for ``settings`` (doctor checks this one)."""
    return HttpClient(
        ca_bundle=settings.ca_bundle,
        connect_timeout_s=settings.connect_timeout_s,
        keep_alive=keep_alive,
    )


class HttpClient:
    """A ``Transport``: ``client(Request) -> Response``, raising only ``BackendError``."""

    def __init__(
        self,
        *,
        ca_bundle: str = "",
        connect_timeout_s: float = 0.0,
        keep_alive: bool = True,
        max_body: int = MAX_BODY,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.ca_bundle = ca_bundle
        self.connect_timeout_s = connect_timeout_s
        self.keep_alive = keep_alive
        self.max_body = max_body
        self.environ = os.environ if environ is None else environ
        self._conn: Connection | None = None
        self.connections_opened = 0

    def fresh(self) -> HttpClient:
        """A client with the same settings and no connection: one per thread."""
        return HttpClient(
            ca_bundle=self.ca_bundle,
            connect_timeout_s=self.connect_timeout_s,
            keep_alive=self.keep_alive,
            max_body=self.max_body,
            environ=self.environ,
        )

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def route(self, url: str) -> tuple[str, str]:
        """(``direct`` or the proxy shown without credentials, where it came from)."""
        from ovhooks.transport.proxy import proxy_for

        scheme, host, port, _path = split_url(url)
        proxy = proxy_for(scheme, host, port, self.environ)
        return ("direct", "") if proxy is None else (proxy.display(), proxy.source)

    def __call__(self, request: Request) -> Response:
        deadline = time.monotonic() + request.timeout_s
        check_headers(request.headers)
        method, url = request.method.upper(), request.url
        status = 0
        for _hop in range(MAX_REDIRECTS + 1):
            resp = self._exchange(method, url, request.headers, request.body, deadline)
            status = resp.status
            if status not in (301, 302, 303, 307, 308):
                return resp
            url = self._redirect_target(method, url, resp)
        too_many = f"{method} {request.url}: more than {MAX_REDIRECTS} redirects"
        raise BackendError("http", too_many, status, "REDIRECT")

    # --- one exchange -----------------------------------------------------------------------
    def _exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | None,
        deadline: float,
    ) -> Response:
        scheme, host, port, path = split_url(url)
        proxy = None
        if any(k.lower().endswith("_proxy") for k in self.environ):
            from ovhooks.transport.proxy import proxy_for

            proxy = proxy_for(scheme, host, port, self.environ)
        what = f"{method} {path.split('?', 1)[0]}"
        target = path
        extra: list[str] = []
        if proxy is not None and scheme == "http":
            target = origin_url(scheme, host, port) + path  # absolute form (RFC 9112 §3.2.2)
            if proxy.auth:
                extra.append(f"Proxy-Authorization: {proxy.auth}")
        if not self.keep_alive:
            extra.append("Connection: close")
        payload = _encode_request(method, target, scheme, host, port, headers, body, extra)
        key = (scheme, host, port, proxy and proxy.display())
        for attempt in (1, 2):
            conn = self._take(key)
            reused = conn is not None
            if conn is None:
                conn = open_connection(
                    scheme,
                    host,
                    port,
                    proxy,
                    deadline,
                    connect_timeout_s=self.connect_timeout_s,
                    ca_bundle=self.ca_bundle,
                    environ=self.environ,
                )
                self.connections_opened += 1
            keep = False
            try:
                try:
                    conn.send(payload, deadline, what)
                except (BrokenPipeError, ConnectionResetError):
                    if reused and attempt == 1:
                        continue  # the kept connection was gone before the request went out
                    raise
                try:
                    resp, keep = read_response(conn, method, deadline, self.max_body, what)
                except (Closed, ConnectionResetError):
                    if reused and attempt == 1 and method in _IDEMPOTENT:
                        continue
                    if method in _IDEMPOTENT:
                        raise BackendError(
                            "unreachable", f"{what}: {conn.label} closed the connection unanswered"
                        ) from None
                    # The request went out whole: the server may have applied it before the
                    # connection dropped, so it is not "never reached" (callers keep its mark).
                    raise BackendError(
                        "unanswered",
                        f"{what}: {conn.label} closed the connection unanswered"
                        " (not sent again: it may be applied)",
                    ) from None
                return resp
            except TimeoutError:
                raise BackendError("timeout", f"{what} to {conn.label} timed out") from None
            except OSError as exc:
                raise BackendError(
                    "unreachable", f"{what}: connection to {conn.label} failed: {exc}"
                ) from None
            finally:
                if keep and self.keep_alive:
                    self._conn = conn
                else:
                    conn.close()
        raise AssertionError("unreachable")  # pragma: no cover (the loop returns or raises)

    def _take(self, key: tuple[object, ...]) -> Connection | None:
        conn, self._conn = self._conn, None
        if conn is None:
            return None
        if conn.key == key and conn.looks_alive():
            return conn
        if conn.pid == os.getpid():
            conn.close()
        return None

    def _redirect_target(self, method: str, url: str, resp: Response) -> str:
        location = resp.headers.get("location", "")
        shown = "".join(ch for ch in location if ch.isprintable())[:200]
        what = f"{method} {split_url(url)[3].split('?', 1)[0]}"
        if not location:
            raise BackendError(
                "http",
                f"{what}: the server redirects (HTTP {resp.status}) without a Location",
                resp.status,
                "REDIRECT",
            )
        try:
            target = resolve(url, location)
            same_origin = split_url(target)[:3] == split_url(url)[:3]
        except BackendError:
            target, same_origin = location, False
        if resp.status in (307, 308) and same_origin:
            return target
        where = "another origin: " if not same_origin else ""
        raise BackendError(
            "http",
            f"{what}: the server redirects (HTTP {resp.status}) to {where}{shown}; ovhooks "
            "follows only 307/308 on the same origin: give it the address the server answers "
            "at (OPENVIKING_URL, or OVHOOKS_EMBED_URL for an embedding endpoint)",
            resp.status,
            "REDIRECT",
        )


def _encode_request(
    method: str,
    target: str,
    scheme: str,
    host: str,
    port: int,
    headers: Mapping[str, str],
    body: bytes | None,
    extra: list[str],
) -> bytes:
    from ovhooks.transport.url import host_header

    lines = [f"{method} {target} HTTP/1.1", f"Host: {host_header(scheme, host, port)}", *extra]
    if body is not None or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body or b'')}")
    lines.extend(f"{name}: {value}" for name, value in headers.items())
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + body if body else head


def read_response(
    conn: Connection, method: str, deadline: float, cap: int, what: str
) -> tuple[Response, bool]:
    """One answer from ``conn``: (response, whether the connection may be reused)."""
    while True:
        line = conn.readline(deadline, what)
        if not line:
            raise Closed()
        parts = line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise BackendError("bad_response", f"{what}: not an HTTP answer: {line[:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        while True:
            header = conn.readline(deadline, what)
            if not header:
                break
            name, _, value = header.decode("latin-1").partition(":")
            key = name.strip().lower()
            headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        if not 100 <= status < 200:
            break
    reusable = parts[0] == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
    if method == "HEAD" or status in (204, 304):
        return Response(status, headers, b""), reusable
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return Response(status, headers, _read_chunked(conn, deadline, cap, what)), reusable
    if "content-length" in headers:
        text = headers["content-length"].split(",")[0].strip()
        if not text.isdigit():
            raise BackendError("bad_response", f"{what}: bad Content-Length {text[:20]!r}")
        length = int(text)
        if length > cap:
            raise too_large(what, length, cap)
        body = bytearray()
        conn.read_into(body, length, deadline, what)
        return Response(status, headers, body), reusable
    return Response(status, headers, conn.read_to_close(deadline, what, cap)), False


def _read_chunked(conn: Connection, deadline: float, cap: int, what: str) -> bytearray:
    body = bytearray()
    while True:
        line = conn.readline(deadline, what)
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise BackendError("bad_response", f"{what}: bad chunk size {line[:20]!r}") from None
        if size == 0:
            while conn.readline(deadline, what):  # trailer fields, up to the blank line
                pass
            return body
        if len(body) + size > cap:
            raise too_large(what, len(body) + size, cap)
        conn.read_into(body, size, deadline, what)
        conn.readline(deadline, what)  # the CRLF after the chunk
