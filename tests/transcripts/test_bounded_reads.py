"""Every transcript read is bounded, whatever the path names and whatever a line holds (issue 11).

Cases that hang or exhaust memory on an unbounded reader run in a child process with a time
and memory limit, so a regression fails the test instead of taking the suite down.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ovhooks.transcripts.reader import read_new, read_tail
from tests.support.hooks import REPO

CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from ovhooks.transcripts.reader import read_new, read_tail
reader = read_new if sys.argv[2] == "new" else read_tail
try:
    reader(sys.argv[1], None) if sys.argv[2] == "new" else reader(sys.argv[1])
except OSError as exc:
    print("refused", type(exc).__name__)
else:
    print("read")
"""


def _read_in_child(path: str, which: str) -> str:
    completed = subprocess.run(
        [sys.executable, "-c", CHILD, path, which],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return completed.stdout.strip()


@pytest.fixture
def fifo(tmp_path: Path) -> str:
    path = str(tmp_path / "transcript.fifo")
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("which", ["new", "tail"])
def test_a_fifo_with_no_writer_is_refused_at_once(fifo: str, which: str) -> None:
    assert _read_in_child(fifo, which) == "refused NotRegularFileError"


@pytest.mark.parametrize("which", ["new", "tail"])
def test_a_device_is_refused_not_read_without_end(which: str) -> None:
    assert _read_in_child("/dev/zero", which) == "refused NotRegularFileError"


@pytest.mark.parametrize("reader", [read_new, read_tail])
def test_a_directory_is_refused(tmp_path: Path, reader: object) -> None:
    with pytest.raises(OSError):
        read_new(str(tmp_path), None) if reader is read_new else read_tail(str(tmp_path))


def _lines(count: int, start: int = 0) -> bytes:
    return b"".join(
        json.dumps({"n": i, "text": "x" * 80}).encode() + b"\n" for i in range(start, start + count)
    )


def test_each_read_is_capped_and_the_cursor_takes_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_lines(200))
    seen: list[int] = []
    cursor = None
    for _ in range(100):
        result = read_new(str(path), cursor, max_bytes=1000)
        assert len(result.records) <= 10
        seen.extend(int(doc["n"]) for _offset, doc in result.records)
        if result.cursor == cursor:
            break
        cursor = result.cursor
    assert seen == list(range(200))


def test_a_line_longer_than_a_whole_read_is_skipped_and_reading_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    giant = json.dumps({"n": -1, "text": "y" * 5000}).encode() + b"\n"
    path.write_bytes(_lines(2) + giant + _lines(3, start=2))
    seen: list[int] = []
    cursor = None
    bad = 0
    for _ in range(50):
        result = read_new(str(path), cursor, max_bytes=1024)
        seen.extend(int(doc["n"]) for _offset, doc in result.records)
        bad += result.bad_lines
        if result.cursor == cursor:
            break
        cursor = result.cursor
    assert seen == [0, 1, 2, 3, 4]
    assert bad == 1


@pytest.mark.parametrize(
    "bad_line",
    [
        b"[" * 5000 + b"]" * 5000,  # deeper than the parser's recursion limit
        b'{"deep": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"text": "\xff\xfe not utf-8"}',
        b'{"text": "cut in the middle',
    ],
    ids=["nested-5000", "nested-100000", "bad-utf8", "truncated"],
)
def test_one_undecodable_line_is_skipped_and_capture_goes_on(
    tmp_path: Path, bad_line: bytes
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_lines(2) + bad_line + b"\n" + _lines(2, start=2))
    result = read_new(str(path), None)
    assert [doc["n"] for _offset, doc in result.records] == [0, 1, 2, 3]
    assert result.bad_lines == 1
    assert result.cursor["offset"] == path.stat().st_size
    assert [doc["n"] for doc in read_tail(str(path))] == [0, 1, 2, 3]


def test_lone_surrogates_in_a_line_never_reach_the_writers(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b'{"n": 0, "text": "a\\ud800b", "nested": [{"t": "\\udfff"}]}\n'
        b'{"n": 1, "text": "pair \\ud83d\\ude00 kept"}\n'
    )
    records = [doc for _offset, doc in read_new(str(path), None).records]
    for doc in records:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")  # raises on a lone surrogate
    assert records[0]["text"] == "a?b" and records[0]["nested"] == [{"t": "?"}]
    assert records[1]["text"] == "pair \U0001f600 kept"
