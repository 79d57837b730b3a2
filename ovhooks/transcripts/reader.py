"""The one JSONL reader: transcripts by byte offset (the same for every host), their tail,
and whole files (a fork's parent transcript, ovhooks' own log).

A hook reads only what the transcript gained since the last capture: the cost of a Stop does
not grow with the length of the session. The cursor remembers the byte offset after the last
complete line and a hash of that line; if the file shrank or that line changed, the
transcript was rewritten (a host compaction that rewrites the file), and the reader starts
over from the top — the caller then skips turns it has already sent by their uids.

Every read is bounded (issue 11): the path must be a regular file (a FIFO, a device such as
``/dev/zero`` or a directory is refused without blocking: opened ``O_NONBLOCK``, checked with
``fstat``), at most ``MAX_READ`` bytes are read per call (the cursor takes the rest next
time), and a line that cannot be decoded (bad UTF-8, nesting too deep for the parser) is
skipped and counted, never fatal. ``read_tail`` and ``read_whole`` apply the same rules.
"""

from __future__ import annotations

import json
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A line longer than this is not a transcript record we can use (a pasted multi-MB blob).
MAX_LINE = 8 * 1024 * 1024
# The most one call reads: a worker run captures at most this much, the next run the rest.
MAX_READ = 4 * MAX_LINE
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFileError(OSError):
    """The transcript path names a FIFO, device, socket or directory."""


def open_regular(path: str) -> int:
    """A file descriptor for ``path`` if it is a regular file; raises ``OSError`` otherwise.

    ``O_NONBLOCK`` makes opening a FIFO with no writer return at once instead of blocking
    the hook for good; the descriptor is then refused by ``fstat``.
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegularFileError(f"not a regular file: {path[:200]!r}")
    return fd


def _read_at(fd: int, offset: int, limit: int) -> bytes:
    chunks = []
    while limit > 0:
        chunk = os.pread(fd, min(limit, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        limit -= len(chunk)
    return b"".join(chunks)


def parse_line(line: bytes) -> dict[str, Any] | None:
    """One JSONL record, or None for anything that is not a JSON object we can decode."""
    try:
        doc: object = json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if not isinstance(doc, dict):
        return None
    if b"\\ud" in line or b"\\uD" in line:
        return _without_lone_surrogates(doc)
    return doc


def _without_lone_surrogates(doc: dict[str, Any]) -> dict[str, Any] | None:
    """``doc`` with lone surrogates (valid JSON escapes, invalid text) replaced by ``?``.

    They would raise ``UnicodeEncodeError`` wherever the text is written out as UTF-8.
    """
    try:
        text = json.dumps(doc, ensure_ascii=False)
        clean = json.loads(text.encode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return clean if isinstance(clean, dict) else None


class ReadResult:
    """What ``read_new`` found: (offset, record) pairs, the cursor after them, whether the
    file was rewritten since the old cursor, and how many lines could not be parsed."""

    __slots__ = ("bad_lines", "cursor", "records", "rewritten")

    def __init__(
        self, records: list[tuple[int, dict[str, Any]]], cursor: dict[str, Any], rewritten: bool
    ) -> None:
        self.records = records  # (byte offset of the line, parsed record)
        self.cursor = cursor
        self.rewritten = rewritten
        self.bad_lines = 0


def _tail_hash(line: bytes) -> str:
    # CPython's own SHA-1 module, not hashlib: hashlib loads OpenSSL, about 4 ms of every
    # process that reads a transcript (an inline Stop, the worker), the builtin ~0.6 ms.
    # The digest is the same; hashlib stays the fallback for a build without the builtin.
    try:
        from _sha1 import sha1  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # pragma: no cover (CPython always has it)
        import hashlib

        return hashlib.sha1(line, usedforsecurity=False).hexdigest()[:16]
    digest: str = sha1(line).hexdigest()
    return digest[:16]


def _skipping(
    cursor: dict[str, Any] | None, offset: int, rewritten: bool, bad: int = 0
) -> ReadResult:
    new_cursor = dict(cursor or {})
    new_cursor.update(offset=offset, tail_hash="", tail_len=0, partial=True)
    result = ReadResult([], new_cursor, rewritten)
    result.bad_lines = bad
    return result


def read_new(path: str, cursor: dict[str, Any] | None, max_bytes: int = MAX_READ) -> ReadResult:
    """Records appended to ``path`` after ``cursor``, at most ``max_bytes`` of them.

    Raises ``OSError`` if ``path`` is unreadable or not a regular file.
    """
    offset = int((cursor or {}).get("offset") or 0)
    tail_hash = str((cursor or {}).get("tail_hash") or "")
    tail_len = int((cursor or {}).get("tail_len") or 0)
    rewritten = False
    skip_partial = bool((cursor or {}).get("partial"))
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if offset > size:
            rewritten = True
        elif offset and tail_hash and tail_len:
            tail = _read_at(fd, max(0, offset - tail_len), tail_len)
            rewritten = _tail_hash(tail) != tail_hash
        if rewritten:
            offset = 0
            skip_partial = False
        data = _read_at(fd, offset, max_bytes)
    finally:
        os.close(fd)
    if skip_partial:
        # The previous read stopped inside an over-long line: drop the rest of it.
        newline = data.find(b"\n")
        if newline < 0:
            return _skipping(cursor, offset + len(data), rewritten)
        pos0 = newline + 1
    elif len(data) >= max_bytes and b"\n" not in data:
        # One line larger than a whole read: not a record we can use; skip past it.
        return _skipping(cursor, offset + len(data), rewritten, bad=1)
    else:
        pos0 = 0
    records: list[tuple[int, dict[str, Any]]] = []
    pos = pos0
    last_line = b""
    bad = 0
    consumed = pos0
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            break  # an incomplete last line: the host is still writing it
        line = data[pos : end + 1]
        consumed = end + 1
        stripped = line.strip()
        if stripped and len(line) <= MAX_LINE:
            doc = parse_line(stripped)
            if doc is None:
                bad += 1
            else:
                records.append((offset + pos, doc))
        if stripped:
            last_line = line
        pos = end + 1
    new_cursor = dict(cursor or {})
    new_cursor.pop("partial", None)
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


def records_in(data: bytes, *, needle: bytes = b"") -> list[dict[str, Any]]:
    """The JSON objects on the lines of ``data``; other lines are skipped. With ``needle``,
    only lines containing it are parsed (a cheap filter before the parser)."""
    out: list[dict[str, Any]] = []
    for line in data.split(b"\n"):
        if needle in line and line.strip():
            doc = parse_line(line)
            if doc is not None:
                out.append(doc)
    return out


def read_tail(path: str, max_bytes: int = 256 * 1024) -> list[dict[str, Any]]:
    """The records in the last ``max_bytes`` of ``path`` (for building a recall query).

    Raises ``OSError`` if ``path`` is unreadable or not a regular file.
    """
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - max_bytes)
        data = _read_at(fd, start, max_bytes)
    finally:
        os.close(fd)
    if start:
        first_newline = data.find(b"\n")
        data = data[first_newline + 1 :] if first_newline >= 0 else b""
    return records_in(data)


def read_whole(path: str, max_bytes: int, *, needle: bytes = b"") -> list[dict[str, Any]] | None:
    """Every record of ``path`` (see ``records_in``), or None when it is over ``max_bytes``.

    Raises ``OSError`` if ``path`` is unreadable or not a regular file.
    """
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            return None
        data = _read_at(fd, 0, size)
    finally:
        os.close(fd)
    return records_in(data, needle=needle)
