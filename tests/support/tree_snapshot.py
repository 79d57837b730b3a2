"""What a directory tree holds, for "changed nothing" checks: plain files byte for byte,
SQLite databases by their content.

A database's files are compared by what a fresh connection reads, not by their bytes:
the ``-wal`` and ``-shm`` files (and, after a checkpoint, the main file's bytes) are
SQLite's upkeep, changed by any connection that opens or closes (the last one to close
deletes an empty WAL). A write, committed or sitting in the WAL, changes what is read.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

_SQLITE_MAGIC = b"SQLite format 3\x00"
_UPKEEP = ("-wal", "-shm", "-journal")


def _database_content(path: Path) -> bytes:
    uri = f"file:{path}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as connection:
        return "\n".join(connection.iterdump()).encode()


def tree_snapshot(*roots: Path) -> dict[str, bytes]:
    """Every file under ``roots``: its bytes, or a database's dumped content."""
    out: dict[str, bytes] = {}
    for root in roots:
        if not root.exists():
            continue
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.name.endswith(_UPKEEP):
                continue
            data = path.read_bytes()
            is_database = data.startswith(_SQLITE_MAGIC)
            out[str(path)] = _database_content(path) if is_database else data
    return out
