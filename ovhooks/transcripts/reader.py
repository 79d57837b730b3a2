"""Incremental JSONL reading by byte offset, the same for every host.

A hook reads only what the transcript gained since the last capture: the cost of a Stop does
not grow with the length of the session. The cursor remembers the byte offset after the last
complete line and a hash of that line; if the file shrank or that line changed, the
transcript was rewritten (a host compaction that rewrites the file), and the reader starts
over from the top — the caller then skips turns it has already sent by their uids.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A line longer than this is not a transcript record we can use (a pasted multi-MB blob).
MAX_LINE = 8 * 1024 * 1024


class ReadResult:
    __slots__ = ("bad_lines", "cursor", "records", "rewritten")

    def __init__(
        self, records: list[tuple[int, dict[str, Any]]], cursor: dict[str, Any], rewritten: bool
    ) -> None:
        self.records = records  # (byte offset of the line, parsed record)
        self.cursor = cursor
        self.rewritten = rewritten
        self.bad_lines = 0


def _tail_hash(line: bytes) -> str:
    import hashlib

    return hashlib.sha1(line, usedforsecurity=False).hexdigest()[:16]


def read_new(path: str, cursor: dict[str, Any] | None) -> ReadResult:
    """Records appended to ``path`` after ``cursor``; raises ``OSError`` if unreadable."""
    offset = int((cursor or {}).get("offset") or 0)
    tail_hash = str((cursor or {}).get("tail_hash") or "")
    tail_len = int((cursor or {}).get("tail_len") or 0)
    rewritten = False
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if offset > size:
            rewritten = True
        elif offset and tail_hash and tail_len:
            fh.seek(max(0, offset - tail_len))
            if _tail_hash(fh.read(tail_len)) != tail_hash:
                rewritten = True
        if rewritten:
            offset = 0
        fh.seek(offset)
        data = fh.read()
    records: list[tuple[int, dict[str, Any]]] = []
    pos = 0
    last_line = b""
    bad = 0
    consumed = 0
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            break  # an incomplete last line: the host is still writing it
        line = data[pos : end + 1]
        consumed = end + 1
        stripped = line.strip()
        if stripped and len(line) <= MAX_LINE:
            try:
                doc = json.loads(stripped)
            except ValueError:
                bad += 1
            else:
                if isinstance(doc, dict):
                    records.append((offset + pos, doc))
                else:
                    bad += 1
        if stripped:
            last_line = line
        pos = end + 1
    new_cursor = dict(cursor or {})
    if consumed:
        new_cursor["offset"] = offset + consumed
        if last_line:
            new_cursor["tail_hash"] = _tail_hash(last_line)
            new_cursor["tail_len"] = len(last_line)
    elif rewritten:
        new_cursor.update(offset=0, tail_hash="", tail_len=0)
    result = ReadResult(records, new_cursor, rewritten)
    result.bad_lines = bad
    return result


def read_tail(path: str, max_bytes: int = 256 * 1024) -> list[dict[str, Any]]:
    """The records in the last ``max_bytes`` of ``path`` (for building a recall query)."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        start = max(0, size - max_bytes)
        fh.seek(start)
        data = fh.read()
    if start:
        first_newline = data.find(b"\n")
        data = data[first_newline + 1 :] if first_newline >= 0 else b""
    out: list[dict[str, Any]] = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict):
            out.append(doc)
    return out
