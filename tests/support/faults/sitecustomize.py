"""Fault injection for real worker processes (tests only).

Loaded by a process started with this directory on PYTHONPATH and ``OVHOOKS_FAULT`` set, or
armed with ``install`` in a forked child. ``kind:N`` makes the process SIGKILL itself right
*before* its N-th operation of ``kind``: fsync, rename, unlink, lock, open (for writing), send,
recv, sql (an SQL write or commit); ``applied:N`` right *after* the store applied and answered
its N-th append (either backend), before the worker records the answer. ``kind:N:enospc``
instead makes that operation and every later write fail with ENOSPC (a disk that filled up);
``kind:N:erofs`` with EROFS (a state dir that became read-only). A census
(``OVHOOKS_FAULT_COUNTS=path``) writes how many operations of each kind the process
performed, so a test knows how many crash points exist.
"""

from __future__ import annotations

import atexit
import errno
import json
import os
import signal
import socket

_counts: dict[str, int] = {}
_cfg: dict[str, str | int] = {"kind": "", "at": 0, "effect": "kill", "counts": ""}
_broken = [False]
_SQL_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "COMMIT")
_FAILING = ("open", "rename", "unlink", "fsync", "write")


def install(spec: str, counts_path: str = "") -> None:
    """Arm the fault ``spec`` (``kind:N[:effect]``) and/or the census in this process."""
    _cfg["counts"] = counts_path
    if spec:
        pieces = spec.split(":")
        _cfg.update(kind=pieces[0], at=int(pieces[1]), effect=pieces[2] if pieces[2:] else "kill")
    _patch()


def finish() -> None:
    """Write the census (a forked child leaves with ``os._exit``, which skips atexit)."""
    if _cfg["counts"]:
        with open(str(_cfg["counts"]), "w") as fh:
            json.dump(_counts, fh)


def _tick(kind: str) -> None:
    n = _counts.get(kind, 0) + 1
    _counts[kind] = n
    if kind == _cfg["kind"] and n == _cfg["at"]:
        if _cfg["effect"] == "kill":
            finish()
            os.kill(os.getpid(), signal.SIGKILL)
        _broken[0] = True
    if _broken[0] and kind in _FAILING:
        code = errno.ENOSPC if _cfg["effect"] == "enospc" else errno.EROFS
        raise OSError(code, os.strerror(code))


def _wrap(owner: object, name: str, kind: str, when: object = None) -> None:
    original = getattr(owner, name)

    def wrapper(*args: object, **kwargs: object) -> object:
        if when is None or when(*args, **kwargs):  # type: ignore[operator]
            _tick(kind)
        return original(*args, **kwargs)

    setattr(owner, name, wrapper)


def _writes_file(path: object, flags: int = 0, *args: object, **kwargs: object) -> bool:
    return bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))


def _patch_raw_sockets() -> None:
    """Sockets made with ``_socket.socket`` directly (a transport that skips ``socket``)."""
    import _socket

    base = _socket.socket

    class CountingSocket(base):  # type: ignore[misc,valid-type]
        def send(self, *args: object) -> int:
            _tick("send")
            return int(super().send(*args))

        def sendall(self, *args: object) -> None:
            _tick("send")
            super().sendall(*args)

        def recv(self, *args: object) -> bytes:
            _tick("recv")
            return bytes(super().recv(*args))

        def recv_into(self, *args: object) -> int:
            _tick("recv")
            return int(super().recv_into(*args))

    _socket.socket = CountingSocket  # type: ignore[misc]


def _patch() -> None:
    import fcntl
    import sqlite3

    _wrap(os, "fsync", "fsync")
    _wrap(os, "replace", "rename")
    _wrap(os, "rename", "rename")
    _wrap(os, "unlink", "unlink")
    _wrap(os, "open", "open", _writes_file)
    _wrap(fcntl, "flock", "lock")
    _wrap(socket.socket, "sendall", "send")
    _wrap(socket.socket, "send", "send")
    _wrap(socket.socket, "recv", "recv")
    _wrap(socket.socket, "recv_into", "recv")
    _patch_raw_sockets()
    if _cfg["effect"] != "kill":
        original_write = os.write

        def write(fd: int, data: bytes) -> int:
            if fd > 2:
                _tick("write")
            return original_write(fd, data)

        os.write = write  # type: ignore[assignment]

    class CountingConnection(sqlite3.Connection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if sql.lstrip().split(" ", 1)[0].upper() in _SQL_WRITES:
                _tick("sql")
            return super().execute(sql, *args)  # type: ignore[arg-type]

        def executemany(self, sql: str, *args: object) -> sqlite3.Cursor:
            _tick("sql")
            return super().executemany(sql, *args)  # type: ignore[arg-type]

        def commit(self) -> None:
            _tick("sql")
            super().commit()

    original_connect = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        kwargs.setdefault("factory", CountingConnection)
        return original_connect(*args, **kwargs)  # type: ignore[call-overload,no-any-return]

    sqlite3.connect = connect  # type: ignore[assignment]
    # The local store calls the C module's own ``connect`` (``import _sqlite3 as sqlite3``,
    # backend/local/schema.py): patched there too, or its writes are never counted.
    import _sqlite3

    original_c_connect = _sqlite3.connect

    def c_connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        kwargs.setdefault("factory", CountingConnection)
        return original_c_connect(*args, **kwargs)  # type: ignore[call-overload,no-any-return]

    _sqlite3.connect = c_connect  # type: ignore[assignment]
    if _cfg["kind"] == "applied":
        _patch_appends()


def _patch_appends() -> None:
    from ovhooks.backend.local import LocalBackend
    from ovhooks.backend.openviking import OpenVikingBackend

    for owner in (LocalBackend, OpenVikingBackend):
        original = owner.append_messages

        def append(self: object, *args: object, _original: object = original) -> object:
            answer = _original(self, *args)  # type: ignore[operator]
            _tick("applied")  # the answer is in hand: the kill loses it
            return answer

        owner.append_messages = append  # type: ignore[method-assign,assignment]


if os.environ.get("OVHOOKS_FAULT") or os.environ.get("OVHOOKS_FAULT_COUNTS"):
    install(os.environ.get("OVHOOKS_FAULT", ""), os.environ.get("OVHOOKS_FAULT_COUNTS", ""))
    atexit.register(finish)
