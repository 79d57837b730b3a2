"""Fault injection for real worker processes (tests only; loaded via PYTHONPATH).

``OVHOOKS_FAULT=kind:N`` makes the process SIGKILL itself right *before* its N-th operation of
``kind``: fsync, rename, unlink, lock, open, send, recv, sql (an SQL write). ``kind:N:enospc``
instead makes that operation and every later write fail with ENOSPC (a disk that filled up);
``kind:N:erofs`` with EROFS (a state dir that became read-only). ``OVHOOKS_FAULT_COUNTS=path``
writes the count of each kind at exit, so a census run tells how many crash points exist.
Nothing here is imported unless a test puts this directory on PYTHONPATH.
"""

from __future__ import annotations

import atexit
import errno
import json
import os
import signal
import socket
import sys

_spec = os.environ.get("OVHOOKS_FAULT", "")
_counts_path = os.environ.get("OVHOOKS_FAULT_COUNTS", "")
_counts: dict[str, int] = {}
_kind, _at, _effect = "", 0, "kill"
if _spec:
    pieces = _spec.split(":")
    _kind, _at = pieces[0], int(pieces[1])
    _effect = pieces[2] if len(pieces) > 2 else "kill"
_broken = [False]
_SQL_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "COMMIT")


def _tick(kind: str) -> None:
    n = _counts.get(kind, 0) + 1
    _counts[kind] = n
    if kind == _kind and n == _at:
        if _effect == "kill":
            _save()
            os.kill(os.getpid(), signal.SIGKILL)
        _broken[0] = True
    if _broken[0] and kind in ("open", "rename", "unlink", "fsync", "write"):
        code = errno.ENOSPC if _effect == "enospc" else errno.EROFS
        raise OSError(code, os.strerror(code))


def _save() -> None:
    if _counts_path:
        with open(_counts_path, "w") as fh:
            json.dump(_counts, fh)


def _wrap(owner: object, name: str, kind: str, when: object = None) -> None:
    original = getattr(owner, name)

    def wrapper(*args: object, **kwargs: object) -> object:
        if when is None or when(*args, **kwargs):  # type: ignore[operator]
            _tick(kind)
        return original(*args, **kwargs)

    setattr(owner, name, wrapper)


def _writes_file(path: object, flags: int = 0, *args: object, **kwargs: object) -> bool:
    return bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))


def _install() -> None:
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
    if _effect != "kill":
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


if _spec or _counts_path:
    _install()
    if _counts_path:
        atexit.register(_save)
    sys.modules.setdefault("ovhooks_faults_active", sys.modules[__name__])
