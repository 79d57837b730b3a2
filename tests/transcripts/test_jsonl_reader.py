"""Every JSONL file ovhooks reads goes through one reader, so every caller skips the same bad
lines and none blocks on a path that is not a regular file (issue 17)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ovhooks.commands.import_scan import identify
from ovhooks.log import Log, read_recent
from ovhooks.transcripts.fork import copied_uuids
from ovhooks.transcripts.reader import read_tail, read_whole, records_in

# A line the JSON parser cannot take: it raises RecursionError, not ValueError.
TOO_DEEP = b"[" * 200_000 + b"\n"
LONE_SURROGATE = b'{"text": "\\ud800 half a pair", "uuid": "u-2"}\n'


def _finishes(call: Callable[[], object], seconds: float = 10) -> object:
    """``call()``'s result; fails (instead of hanging the suite) if it blocks."""
    out: list[object] = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert out, "blocked"
    return out[0]


def test_records_skip_what_is_not_an_object() -> None:
    data = b'{"a": 1}\n[1, 2]\nnot json\n' + TOO_DEEP + b'\n  \n{"b": 2}'
    assert records_in(data) == [{"a": 1}, {"b": 2}]
    assert records_in(data, needle=b'"b"') == [{"b": 2}]
    assert records_in(LONE_SURROGATE) == [{"text": "? half a pair", "uuid": "u-2"}]


def test_read_whole_refuses_a_file_over_its_limit_and_a_fifo(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"n": 1}\n{"n": 2}\n')
    assert read_whole(str(path), 100) == [{"n": 1}, {"n": 2}]
    assert read_whole(str(path), 10) is None
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError):  # opened without blocking, then refused
        read_whole(str(fifo), 100)


def test_the_log_reader_skips_a_line_too_deep_to_parse(tmp_path: Path) -> None:
    Log(str(tmp_path), "error").error("first_failure", detail="x")
    with open(tmp_path / "logs" / "ovhooks.log", "ab") as fh:
        fh.write(TOO_DEEP)
    Log(str(tmp_path), "error").error("second_failure", detail="y")
    assert [r["event"] for r in read_recent(str(tmp_path))] == ["first_failure", "second_failure"]


def test_import_identifies_a_transcript_whose_first_line_is_too_deep(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2026-01-01T00-00-00-0193aaaa-bbbb-cccc-dddd-eeeeeeeeeeee.jsonl"
    meta = {"type": "session_meta", "payload": {"id": "sess-1", "cwd": "/w"}}
    path.write_bytes(TOO_DEEP + json.dumps(meta).encode() + b"\n")
    found = identify("codex", str(path))
    assert found is not None and (found.session_id, found.cwd) == ("sess-1", "/w")


def test_a_fork_whose_parent_path_is_a_fifo_does_not_block(tmp_path: Path) -> None:
    """The parent's id comes from the transcript; a FIFO under that name must not hang the
    worker: the parent counts as unreadable and the fallback rule applies."""
    os.mkfifo(tmp_path / "parent-1.jsonl")
    records = [
        (0, {"uuid": "p-1", "sessionId": "fork-1", "requestSessionId": "parent-1"}),
        (1, {"uuid": "f-1", "sessionId": "fork-1"}),
    ]
    copied = _finishes(lambda: copied_uuids(records, "fork-1", str(tmp_path / "fork-1.jsonl")))
    assert copied == {"p-1"}


def test_the_tail_reader_parses_what_read_whole_does(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"n": 1}\n' + TOO_DEEP + LONE_SURROGATE + b'{"n": 3}')
    assert read_tail(str(path)) == read_whole(str(path), 1 << 20)
    assert [r.get("n", r.get("uuid")) for r in read_tail(str(path))] == [1, "u-2", 3]


@given(st.binary(max_size=300))
def test_the_tail_hash_is_sha1_whichever_module_computes_it(line: bytes) -> None:
    # Cursors on disk hold this hash: the builtin SHA-1 the reader uses (to spare a hook
    # hashlib's OpenSSL load) must give what hashlib gave when they were written.
    import hashlib

    from ovhooks.transcripts.reader import _tail_hash

    assert _tail_hash(line) == hashlib.sha1(line, usedforsecurity=False).hexdigest()[:16]
