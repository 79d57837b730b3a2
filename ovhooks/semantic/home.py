"""The embedding service's home: its folder, lock file and socket, made private and watched.

A service whose home was deleted (a temporary HOME of a CI job, a sandbox, another tool's
test) serves nobody: it checks every ``HOME_EVERY_S`` that its folder, lock and socket are
still the ones it started with, by inode, and leaves when one is not (without this check it
held ~156 MiB until its idle time ran out).
"""

from __future__ import annotations

import contextlib
import os
import socket
import time

from ovhooks.fsutil import ensure_dir

HOME_EVERY_S = 2.0


def identity(path: str) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


class Home:
    """The folder, lock file and socket the service started with, by inode: when any of
    them is gone or replaced (the folder deleted and made again), the service is an orphan
    and leaves (a new start in the new folder takes a new lock, so the old one must go)."""

    def __init__(self, folder: str, lock: str, sock: str) -> None:
        self.paths = (folder, lock, sock)
        self.marks = tuple(identity(p) for p in self.paths)
        self.checked = time.monotonic()

    def lost(self) -> str:
        """The first path that is no longer the service's own, or ``""``."""
        self.checked = time.monotonic()
        for path, mark in zip(self.paths, self.marks, strict=True):
            if identity(path) != mark:
                return path
        return ""

    def due(self) -> bool:
        return time.monotonic() - self.checked >= HOME_EVERY_S


def bind(path: str) -> socket.socket:
    folder = os.path.dirname(path)
    ensure_dir(folder)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a socket left by a service that died (we hold the lock)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        server.bind(path)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    server.listen(16)
    return server
