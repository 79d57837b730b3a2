"""A small forward proxy on loopback: CONNECT tunnels (https) and absolute-form requests (http).

It records what clients asked for (``seen``: ``"CONNECT host:port"`` or ``"GET http://..."``)
and the ``Proxy-Authorization`` values, and can require credentials (``require_auth``: a
``Basic ...`` value; anything else gets a 407). After the first request line the connection
is relayed byte for byte to the upstream it named.
"""

from __future__ import annotations

import socket
import threading
from typing import Any


class ConnectProxy:
    def __init__(self, require_auth: str = "") -> None:
        self.require_auth = require_auth
        self.seen: list[str] = []
        self.auth_seen: list[str] = []
        self.lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._closing = False
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ConnectProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting; ``shutdown`` wakes the accepting thread (a bare ``close`` leaves it
        blocked, and it may later accept on whatever socket reuses the descriptor number)."""
        self._closing = True
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        if self._thread.is_alive():
            self._thread.join(5.0)
        self._listener.close()

    def _serve(self) -> None:
        while not self._closing:
            try:
                client, _addr = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def _handle(self, client: socket.socket) -> None:
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                data = client.recv(65536)
                if not data:
                    return
                head += data
            head_part, _, rest = head.partition(b"\r\n\r\n")
            lines = head_part.decode("latin-1").split("\r\n")
            method, target, version = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            with self.lock:
                self.seen.append(f"{method} {target}")
                self.auth_seen.append(headers.get("proxy-authorization", ""))
            if self.require_auth and headers.get("proxy-authorization") != self.require_auth:
                client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
                return
            if method == "CONNECT":
                host, _, port = target.rpartition(":")
                upstream = socket.create_connection((host.strip("[]"), int(port)))
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    upstream.sendall(rest)
            else:
                upstream = self._absolute_form(client, method, target, version, lines, rest)
            self._relay(client, upstream)
        except (OSError, ValueError):
            client.close()

    @staticmethod
    def _absolute_form(
        client: socket.socket, method: str, target: str, version: str, lines: list[str], rest: bytes
    ) -> socket.socket:
        after_scheme = target.split("://", 1)[1]
        hostport, _, path = after_scheme.partition("/")
        host, _, port = hostport.rpartition(":")
        upstream = socket.create_connection((host.strip("[]"), int(port or 80)))
        kept = [ln for ln in lines[1:] if not ln.lower().startswith("proxy-authorization:")]
        first = f"{method} /{path} {version}"
        upstream.sendall(("\r\n".join([first, *kept]) + "\r\n\r\n").encode("latin-1") + rest)
        return upstream

    @staticmethod
    def _relay(client: socket.socket, upstream: socket.socket) -> None:
        def pump(src: socket.socket, dst: socket.socket) -> None:
            try:
                while True:
                    data = src.recv(65536)
                    if not data:
                        break
                    dst.sendall(data)
            except OSError:
                pass
            for sock in (src, dst):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        other = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        other.start()
        pump(client, upstream)
        other.join(5)
        client.close()
        upstream.close()


def start_proxy(**kwargs: Any) -> ConnectProxy:
    return ConnectProxy(**kwargs).start()
