"""Incremental JSONL reading: only what the file gained, rewrites detected, bad lines survived."""

from __future__ import annotations

import json
from pathlib import Path

from ovhooks.transcripts.reader import read_new, read_tail


def _write(path: Path, *records: object, raw: bytes = b"") -> None:
    with path.open("ab") as fh:
        for r in records:
            fh.write(json.dumps(r).encode() + b"\n")
        fh.write(raw)


def test_reads_only_new_complete_lines(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, {"n": 1}, {"n": 2}, raw=b'{"n": 3')  # a line still being written
    first = read_new(str(path), None)
    assert [r["n"] for _o, r in first.records] == [1, 2]
    _write(path, raw=b'}\n{"n": 4}\n')
    second = read_new(str(path), first.cursor)
    assert [r["n"] for _o, r in second.records] == [3, 4]
    assert not second.rewritten
    third = read_new(str(path), second.cursor)
    assert third.records == [] and third.cursor["offset"] == second.cursor["offset"]


def test_bad_lines_are_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, raw=b'{"n": 1}\nnot json\n[1,2]\n\n{"n": 2}\n\xff\xfe garbage\n')
    result = read_new(str(path), None)
    assert [r["n"] for _o, r in result.records] == [1, 2]
    assert result.bad_lines == 3


def test_shrunk_or_rewritten_file_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, {"n": 1}, {"n": 2})
    cursor = read_new(str(path), None).cursor
    path.write_text(json.dumps({"n": 9}) + "\n")  # shorter: rewritten by a compaction
    result = read_new(str(path), cursor)
    assert result.rewritten and [r["n"] for _o, r in result.records] == [9]
    # same length, different content: the tail hash catches it
    path.write_text(json.dumps({"n": 1}) + "\n" + json.dumps({"n": 3}) + "\n")
    cursor = read_new(str(path), None).cursor
    path.write_text(json.dumps({"n": 1}) + "\n" + json.dumps({"n": 4}) + "\n")
    assert read_new(str(path), cursor).rewritten


def test_cost_does_not_grow_with_history(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with path.open("w") as fh:
        for i in range(20000):
            fh.write(json.dumps({"n": i, "pad": "x" * 200}) + "\n")
    cursor = read_new(str(path), None).cursor
    _write(path, {"n": "new"})
    result = read_new(str(path), cursor)
    assert [r["n"] for _o, r in result.records] == ["new"]


def test_read_tail_starts_at_a_line_boundary(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, *({"n": i, "pad": "y" * 100} for i in range(100)))
    records = read_tail(str(path), 1000)
    assert records and records[-1]["n"] == 99
    assert all(isinstance(r["n"], int) for r in records)
