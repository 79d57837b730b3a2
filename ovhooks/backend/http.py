"""A small HTTP/1.1 client for the hooks' hot path.

Why not httpx here: ``import httpx`` costs ~55 ms and ``import http.client`` ~22 ms on this
machine class, while the whole UserPromptSubmit hook has a budget of five times a bare
``python -c pass`` (about 40 ms). Hooks talk to one JSON API with small bodies, one request
per connection, so a plain socket with ``Connection: close`` is all they need. ``https://``
URLs go through ``http.client`` (TLS is a cold path for a loopback-first tool), and the
human commands may use httpx through ``HttpxTransport``; all transports share the same
``Request``/``Response`` values so ``OpenVikingBackend`` does not care which one runs.
"""

from __future__ import annotations

import socket
import time

from ovhooks.backend.errors import BackendError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    Transport = Callable[["Request"], "Response"]

_MAX_BODY = 64 * 1024 * 1024


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
        self.timeout_s = timeout_s


class Response:
    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
        self.status = status
        self.headers = dict(headers)
        self.body = body


def split_url(url: str) -> tuple[str, str, int, str]:
    """``http://h:p/path?q`` -> (scheme, host, port, path-with-query)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("http", "https"):
        raise BackendError(
            "unreachable", f"unsupported server URL {url!r} (need http:// or https://)"
        )
    hostport, slash, path = rest.partition("/")
    path = "/" + path if slash else "/"
    if hostport.startswith("["):  # IPv6 literal
        host, _, port_text = hostport[1:].partition("]")
        port_text = port_text.lstrip(":")
    else:
        host, _, port_text = hostport.partition(":")
    if "@" in host:
        raise BackendError("unreachable", "credentials in the server URL are not supported")
    try:
        port = int(port_text) if port_text else (443 if scheme == "https" else 80)
    except ValueError:
        raise BackendError("unreachable", f"bad port in server URL {url!r}") from None
    if not host:
        raise BackendError("unreachable", f"no host in server URL {url!r}")
    return scheme, host, port, path


def socket_transport(request: Request) -> Response:
    """Send one request over a fresh connection; raise ``BackendError`` on any failure."""
    scheme, host, port, path = split_url(request.url)
    if scheme == "https":
        return _https_transport(request, host, port, path)
    deadline = time.monotonic() + request.timeout_s
    try:
        sock = socket.create_connection((host, port), timeout=max(0.05, request.timeout_s))
    except TimeoutError:
        raise BackendError("timeout", f"connect to {host}:{port} timed out") from None
    except OSError as exc:
        raise BackendError(
            "unreachable", f"cannot connect to {host}:{port}: {exc.strerror or exc}"
        ) from None
    try:
        head = [f"{request.method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
        body = request.body or b""
        if request.body is not None or request.method in ("POST", "PUT", "PATCH"):
            head.append(f"Content-Length: {len(body)}")
        head.extend(f"{k}: {v}" for k, v in request.headers.items())
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        chunks: list[bytes] = []
        size = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BackendError("timeout", f"{request.method} {path} timed out")
            sock.settimeout(remaining)
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if size > _MAX_BODY:
                raise BackendError("bad_response", "response too large")
            if _complete(chunks):
                break
    except TimeoutError:
        raise BackendError("timeout", f"{request.method} {path} timed out") from None
    except OSError as exc:
        raise BackendError("unreachable", f"connection to {host}:{port} failed: {exc}") from None
    finally:
        sock.close()
    return _parse_response(b"".join(chunks))


def _complete(chunks: list[bytes]) -> bool:
    """True once a Content-Length response has fully arrived (saves waiting for close)."""
    raw = b"".join(chunks) if len(chunks) > 1 else chunks[0]
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        return False
    for line in raw[:end].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                return len(raw) - end - 4 >= int(value.strip())
            except ValueError:
                return False
    return False


def _parse_response(raw: bytes) -> Response:
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        raise BackendError("bad_response", "incomplete HTTP response")
    lines = raw[:end].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        raise BackendError("bad_response", f"not an HTTP response: {lines[0][:80]!r}")
    try:
        status = int(parts[1])
    except ValueError:
        raise BackendError("bad_response", f"bad status line {lines[0][:80]!r}") from None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = raw[end + 4 :]
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _dechunk(body)
    elif "content-length" in headers:
        try:
            length = int(headers["content-length"])
        except ValueError:
            raise BackendError("bad_response", "bad Content-Length") from None
        if len(body) < length:
            raise BackendError("bad_response", "response body truncated")
        body = body[:length]
    return Response(status, headers, body)


def _dechunk(body: bytes) -> bytes:
    out = bytearray()
    pos = 0
    while True:
        line_end = body.find(b"\r\n", pos)
        if line_end < 0:
            raise BackendError("bad_response", "truncated chunked body")
        try:
            size = int(body[pos:line_end].split(b";")[0].strip() or b"0", 16)
        except ValueError:
            raise BackendError("bad_response", "bad chunk size") from None
        if size == 0:
            return bytes(out)
        start = line_end + 2
        if start + size > len(body):
            raise BackendError("bad_response", "truncated chunked body")
        out += body[start : start + size]
        pos = start + size + 2


def _https_transport(request: Request, host: str, port: int, path: str) -> Response:
    import http.client

    conn = http.client.HTTPSConnection(host, port, timeout=max(0.05, request.timeout_s))
    try:
        conn.request(request.method, path, body=request.body, headers=request.headers)
        resp = conn.getresponse()
        body = resp.read(_MAX_BODY + 1)
        return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, body)
    except TimeoutError:
        raise BackendError("timeout", f"{request.method} {path} timed out") from None
    except (OSError, http.client.HTTPException) as exc:
        raise BackendError("unreachable", f"connection to {host}:{port} failed: {exc}") from None
    finally:
        conn.close()


class HttpxTransport:
    """The same contract on httpx, for long-running human commands (import, export, doctor).

    One pooled client serves many requests, which pays off when a command sends hundreds.
    """

    def __init__(self) -> None:
        import httpx

        self._httpx = httpx
        self._client = httpx.Client()

    def __call__(self, request: Request) -> Response:
        httpx = self._httpx
        try:
            resp = self._client.request(
                request.method,
                request.url,
                headers=request.headers,
                content=request.body,
                timeout=httpx.Timeout(request.timeout_s),
            )
        except httpx.TimeoutException:
            raise BackendError("timeout", f"{request.method} {request.url} timed out") from None
        except httpx.HTTPError as exc:
            raise BackendError("unreachable", f"request to {request.url} failed: {exc}") from None
        return Response(resp.status_code, dict(resp.headers), resp.content)

    def close(self) -> None:
        self._client.close()
