"""The recall log the hook appends to and the viewer reads."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from ovhooks.recall import journal


def entry(t: float, *items: tuple[str, float], reason: str = "ok") -> dict[str, object]:
    return journal.entry_for(
        now=t,
        host="codex",
        session="s1",
        peer="p",
        reason=reason,
        prompt_head="x" * 500,
        tokens=12,
        items=list(items),
    )


def test_lines_are_appended_and_read_back_in_order(tmp_path: Path) -> None:
    journal.append(str(tmp_path), entry(1.0, ("viking://a", 0.5)))
    journal.append(str(tmp_path), entry(2.0, reason="abstained"))
    got = journal.read(str(tmp_path))
    assert [e["t"] for e in got] == [1.0, 2.0]
    assert got[0]["items"] == [{"uri": "viking://a", "score": 0.5}]
    assert len(str(got[0]["prompt"])) == journal.PROMPT_HEAD_CHARS


def test_file_and_folder_are_private(tmp_path: Path) -> None:
    journal.append(str(tmp_path), entry(1.0))
    path = journal.journal_path(str(tmp_path))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700


def test_the_log_is_bounded_by_rotation(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    mp = pytest.MonkeyPatch()
    mp.setattr(journal, "MAX_BYTES", 2000)
    try:
        for i in range(100):
            journal.append(str(tmp_path), entry(float(i), ("viking://m", 0.1)))
    finally:
        mp.undo()
    path = journal.journal_path(str(tmp_path))
    assert os.path.getsize(path) <= 2000 and os.path.getsize(path + ".1") <= 2000
    got = journal.read(str(tmp_path))
    assert got[-1]["t"] == 99.0 and len(got) < 100
    assert [e["t"] for e in got] == sorted(e["t"] for e in got)


def test_a_torn_line_is_skipped(tmp_path: Path) -> None:
    journal.append(str(tmp_path), entry(1.0))
    with open(journal.journal_path(str(tmp_path)), "a") as fh:
        fh.write('{"t": 2, "items": [')
    journal.append(str(tmp_path), entry(3.0))
    assert [e["t"] for e in journal.read(str(tmp_path))] == [1.0]  # 3.0 shares the torn line


def test_an_unwritable_state_dir_loses_the_line_not_the_hook(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    journal.append(str(blocker), entry(1.0))  # a path under a file: no exception
    assert journal.read(str(blocker)) == []


def test_per_memory_counts_and_last_time() -> None:
    entries = [entry(1.0, ("a", 0.1), ("b", 0.2)), entry(5.0, ("a", 0.3)), entry(7.0)]
    assert journal.per_memory(json.loads(json.dumps(entries))) == {"a": (2, 5.0), "b": (1, 1.0)}


def test_a_failed_reopen_after_rotation_closes_nothing_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first descriptor is closed before the reopen; when the reopen fails, that number
    # (by then another file of this process) must be left alone.
    journal.append(str(tmp_path), entry(1.0))
    monkeypatch.setattr(journal, "MAX_BYTES", 1)
    real_open = journal._open
    opened: list[int] = []
    closed: list[int] = []
    real_close = os.close

    def open_once(path: str) -> int:
        if opened:
            raise OSError(28, "No space left on device")
        opened.append(real_open(path))
        return opened[-1]

    def recording_close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)

    monkeypatch.setattr(journal, "_open", open_once)
    monkeypatch.setattr(os, "close", recording_close)
    journal.append(str(tmp_path), entry(2.0))  # rotates, then cannot reopen: the line is lost
    monkeypatch.undo()
    assert closed == opened  # the one descriptor, closed once
    assert [e["t"] for e in journal.read(str(tmp_path))] == [1.0]
