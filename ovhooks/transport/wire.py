"""One HTTP/1.1 connection: connect (direct, through a CONNECT proxy, TLS), send, read answers.

Every blocking step takes the caller's single deadline (a ``time.monotonic()`` value) and sets
the socket timeout to what is left of it first, so connect, proxy handshake, TLS handshake,
sending and every ``recv`` of the body share one budget instead of each getting a fresh one.
Bodies are read linearly: a ``Content-Length`` body lands in one preallocated buffer
(``recv_into``), chunked and close-delimited bodies in a list of chunks joined once.

Plain connections use the ``_socket`` extension directly: the ``socket`` module on top of it
(enums, ``selectors``) costs ~4 ms at every hook start and adds nothing a client needs here.
"""

from __future__ import annotations

import _socket
import os
import time

from ovhooks.transport.errors import BackendError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ovhooks.transport.proxy import Proxy

_RECV = 256 * 1024
_LINE_RECV = 16 * 1024
_MAX_HEAD = 64 * 1024


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


class Closed(Exception):  # noqa: N818 (a signal, not an error the user sees)
    """The peer closed the connection before sending a byte of the answer."""


class Connection:
    """A socket (plain or TLS) with a small read buffer, owned by one process."""

    def __init__(self, sock: _socket.socket, key: tuple[object, ...], label: str) -> None:
        self.sock = sock
        self.key = key
        self.label = label  # "host:port" for messages
        self.pid = os.getpid()
        self.buf = bytearray()
        self.used = False

    # --- lifecycle --------------------------------------------------------------------------
    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def looks_alive(self) -> bool:
        """False when an idle kept-alive connection was closed by the server (or is not ours)."""
        if self.pid != os.getpid() or self.buf:
            return False
        import select

        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return False
        # An idle connection has nothing to read: readable means EOF, a reset or stray bytes.
        return not readable

    # --- deadline-bound I/O -----------------------------------------------------------------
    def _budget(self, deadline: float, what: str) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise BackendError("timeout", f"{what}: no time left (overall deadline)")
        self.sock.settimeout(remaining)

    def send(self, data: bytes, deadline: float, what: str) -> None:
        view = memoryview(data)
        while view:
            self._budget(deadline, what)
            sent = self.sock.send(view[:_RECV])
            view = view[sent:]

    def _fill(self, deadline: float, what: str) -> bool:
        self._budget(deadline, what)
        # small reads for header and chunk-size lines: body bytes that come along are copied
        # once more, the rest of a body is received in place by read_into
        data = self.sock.recv(_LINE_RECV)
        if not data:
            return False
        self.buf += data
        return True

    def readline(self, deadline: float, what: str) -> bytes:
        """One CRLF-terminated line (without it); ``b""`` at EOF before any byte."""
        start = 0
        while True:
            end = self.buf.find(b"\n", start)
            if end >= 0:
                line = bytes(self.buf[:end])
                del self.buf[: end + 1]
                return line.rstrip(b"\r")
            if len(self.buf) > _MAX_HEAD:
                raise BackendError("bad_response", f"{what}: header line too long")
            start = len(self.buf)
            if not self._fill(deadline, what):
                if self.buf:
                    raise BackendError("bad_response", f"{what}: connection closed mid-line")
                return b""

    def read_into(self, out: bytearray, size: int, deadline: float, what: str) -> None:
        """Append exactly ``size`` bytes to ``out``, received in place (no copy after)."""
        start = len(out)
        have = min(size, len(self.buf))
        if have:
            with memoryview(self.buf) as buffered:
                out += buffered[:have]
            del self.buf[:have]
        if have == size:
            return
        out.extend(bytes(size - have))  # bytes(n) is calloc'ed: cheap until written
        with memoryview(out) as view:
            pos, end = start + have, start + size
            while pos < end:
                self._budget(deadline, what)
                got = self.sock.recv_into(view[pos:end], min(end - pos, 4 << 20))
                if not got:
                    raise BackendError(
                        "bad_response", f"{what}: answer truncated ({pos - start} of {size} bytes)"
                    )
                pos += got

    def read_to_close(self, deadline: float, what: str, cap: int) -> bytes:
        chunks = [bytes(self.buf)]
        size = len(self.buf)
        self.buf.clear()
        while True:
            self._budget(deadline, what)
            data = self.sock.recv(_RECV)
            if not data:
                return b"".join(chunks)
            size += len(data)
            if size > cap:
                raise too_large(what, size, cap)
            chunks.append(data)


def too_large(what: str, size: int, cap: int) -> BackendError:
    return BackendError(
        "too_large",
        f"{what}: the answer is larger than the {_mib(cap)} cap (at least {_mib(size)}); "
        "ask for less (a narrower query or a smaller limit)",
    )


# --- opening connections ------------------------------------------------------------------------
def open_connection(
    scheme: str,
    host: str,
    port: int,
    proxy: Proxy | None,
    deadline: float,
    *,
    connect_timeout_s: float,
    ca_bundle: str,
    environ: Mapping[str, str],
) -> Connection:
    """Connect to ``host:port`` (through ``proxy`` when given) and, for https, do TLS."""
    label = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    target = (proxy.host, proxy.port) if proxy else (host, port)
    via = f" through the proxy {proxy.display()} (from {proxy.source})" if proxy else ""
    sock = _connect(target, deadline, connect_timeout_s, f"connect to {label}{via}")
    conn = Connection(sock, (scheme, host, port, proxy and proxy.display()), label)
    try:
        if proxy is not None and scheme == "https":
            _tunnel(conn, host, port, proxy, deadline, label)
        if scheme == "https":
            conn.sock = _handshake(conn.sock, host, deadline, ca_bundle, environ, label)
    except BaseException:
        conn.close()
        raise
    return conn


def _connect(
    target: tuple[str, int], deadline: float, connect_timeout_s: float, what: str
) -> _socket.socket:
    host = target[0]
    # An ASCII name goes to getaddrinfo as bytes: given a str, CPython first encodes it with
    # the idna codec, whose import (with stringprep) costs every hook that talks to a server
    # about 2 ms, and which leaves an ASCII name as it is (or raises a UnicodeError, not an
    # OSError, for an empty or over-long label: the resolver now says no instead).
    name: str | bytes = host.encode("ascii") if host.isascii() else host
    try:
        infos = _socket.getaddrinfo(name, target[1], 0, _socket.SOCK_STREAM)
    except OSError as exc:
        raise BackendError("unreachable", f"{what}: cannot resolve {target[0]} ({exc})") from None
    last: OSError | None = None
    for family, kind, proto, _name, address in infos:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        sock = _socket.socket(family, kind, proto)
        try:
            sock.settimeout(min(remaining, connect_timeout_s or remaining))
            sock.connect(address)
        except OSError as exc:
            sock.close()
            last = exc
            continue
        sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        return sock
    if isinstance(last, TimeoutError) or deadline - time.monotonic() <= 0:
        raise BackendError("timeout", f"{what} timed out")
    reason = (last.strerror or str(last)) if last else "no address"
    raise BackendError("unreachable", f"cannot {what}: {reason}")


def _tunnel(
    conn: Connection, host: str, port: int, proxy: Proxy, deadline: float, label: str
) -> None:
    what = f"CONNECT {label} through the proxy {proxy.display()} (from {proxy.source})"
    lines = [f"CONNECT {label} HTTP/1.1", f"Host: {label}"]
    if proxy.auth:
        lines.append(f"Proxy-Authorization: {proxy.auth}")
    try:
        conn.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"), deadline, what)
        status_line = conn.readline(deadline, what)
        while conn.readline(deadline, what):  # the proxy's headers, up to the blank line
            pass
    except TimeoutError:
        raise BackendError("timeout", f"{what} timed out") from None
    except OSError as exc:
        raise BackendError("unreachable", f"{what} failed: {exc}") from None
    parts = status_line.decode("latin-1").split(" ", 2)
    if len(parts) < 2 or parts[1] != "200":
        answer = status_line.decode("latin-1")[:80] or "connection closed"
        kind = "config" if len(parts) > 1 and parts[1] == "407" else "unreachable"
        raise BackendError(kind, f"{what}: the proxy answered {answer!r}")


def _handshake(
    raw: _socket.socket,
    host: str,
    deadline: float,
    ca_bundle: str,
    environ: Mapping[str, str],
    label: str,
) -> _socket.socket:
    import socket

    from ovhooks.transport import tls

    ctx = tls.context(ca_bundle)
    sock = socket.socket(raw.family, raw.type, raw.proto, fileno=raw.detach())
    tls_sock = ctx.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        tls_sock.close()
        raise BackendError("timeout", f"TLS handshake with {label}: no time left")
    # CPython bounds the whole handshake by the socket timeout (one deadline, not per read).
    tls_sock.settimeout(remaining)
    try:
        tls_sock.do_handshake()
    except TimeoutError:
        tls_sock.close()
        raise BackendError("timeout", f"TLS handshake with {label} timed out") from None
    except OSError as exc:
        tls_sock.close()
        import ssl

        if isinstance(exc, ssl.SSLError):
            raise tls.tls_error(exc, label, ca_bundle, environ) from None
        raise BackendError("unreachable", f"TLS handshake with {label} failed: {exc}") from None
    return tls_sock
