"""OpenCode's SQLite store -> turns, on rows recorded from OpenCode 1.18.33.

The store is read-only to ovhooks, read by message id after a cursor, bounded, and never
fatal: a missing, odd or foreign file is an ``OSError`` the worker logs.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from ovhooks.transcripts.opencode import read_new, records_to_turns
from tests.support.opencode_store import add_message, build_store, session_ids


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return build_store(tmp_path / "opencode" / "opencode.db")


def test_a_session_reads_as_its_turns_with_the_tool_call(store: Path) -> None:
    first = session_ids()[0]
    read = read_new(str(store), first, None)
    turns = records_to_turns(read.records)
    assert [(t.role, t.text) for t in turns] == [
        ("user", "First turn: I prefer tabs"),
        ("assistant", "STUB-REPLY #2"),
        ("user", "RUNSHELL please"),
        ("assistant", "STUB-AFTER-TOOL #4"),  # two messages (tool step, answer): one turn
    ]
    (tool,) = turns[3].tools
    assert (tool.name, tool.input, tool.output) == (
        "bash",
        {"command": "echo hello-from-shell"},
        "hello-from-shell\n",
    )
    assert all(t.uid.startswith("oc-msg_") for t in turns)


def test_the_cursor_reads_only_what_came_after(store: Path) -> None:
    sid = session_ids()[0]
    read = read_new(str(store), sid, None)
    again = read_new(str(store), sid, read.cursor)
    assert again.records == [] and again.cursor == read.cursor
    add_message(store, sid, "msg_zzzz1", {"role": "user"}, [{"type": "text", "text": "later"}])
    later = read_new(str(store), sid, read.cursor)
    assert [t.text for t in records_to_turns(later.records)] == ["later"]
    assert later.cursor["last_id"] == "msg_zzzz1"


def test_sessions_do_not_mix(store: Path) -> None:
    second = session_ids()[1]
    turns = records_to_turns(read_new(str(store), second, None).records)
    assert [t.text for t in turns] == ["A second session", "STUB-REPLY #6"]


def test_an_assistant_message_still_being_written_waits_for_the_next_read(store: Path) -> None:
    sid = session_ids()[1]
    done = read_new(str(store), sid, None)
    add_message(store, sid, "msg_zzzz1", {"role": "user"}, [{"type": "text", "text": "q"}])
    add_message(
        store,
        sid,
        "msg_zzzz2",
        {"role": "assistant", "time": {"created": 1}},
        [{"type": "text", "text": "half"}],
    )
    read = read_new(str(store), sid, done.cursor)
    assert [t.text for t in records_to_turns(read.records)] == ["q"]
    assert read.cursor["last_id"] == "msg_zzzz1"


def test_injected_and_bookkeeping_parts_are_not_captured(store: Path) -> None:
    sid = session_ids()[1]
    done = read_new(str(store), sid, None)
    add_message(
        store,
        sid,
        "msg_zzzz1",
        {"role": "user"},
        [
            {"type": "text", "text": "real words"},
            {
                "type": "text",
                "text": "<openviking-context>x</openviking-context>",
                "synthetic": True,
            },
            {"type": "text", "text": "ignored", "ignored": True},
        ],
    )
    add_message(
        store,
        sid,
        "msg_zzzz2",
        {"role": "assistant", "time": {"completed": 2}},
        [{"type": "reasoning", "text": "thinking"}, {"type": "text", "text": "answer"}],
    )
    add_message(
        store,
        sid,
        "msg_zzzz3",
        {"role": "assistant", "summary": True, "time": {"completed": 3}},
        [{"type": "text", "text": "a compaction summary"}],
    )
    turns = records_to_turns(read_new(str(store), sid, done.cursor).records)
    assert [(t.role, t.text) for t in turns] == [("user", "real words"), ("assistant", "answer")]


def test_the_store_is_never_written(store: Path) -> None:
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    read_new(str(store), session_ids()[0], None)
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before
    assert sorted(os.listdir(store.parent)) == ["opencode.db"]


def test_odd_paths_are_oserrors(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.db"
    os.mkfifo(fifo)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database" * 100)
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for path in (tmp_path / "missing.db", fifo, tmp_path, garbage, "/dev/zero", empty):
        with pytest.raises(OSError):
            read_new(str(path), "ses_x", None)


def test_malformed_rows_are_counted_not_fatal(store: Path) -> None:
    sid = session_ids()[1]
    done = read_new(str(store), sid, None)
    add_message(store, sid, "msg_zzzz1", {"role": "user"}, [{"type": "text", "text": "ok"}])
    import sqlite3

    with sqlite3.connect(store) as db:
        db.execute("UPDATE part SET data = '[1' WHERE message_id = 'msg_zzzz1'")
        db.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) "
            "VALUES ('msg_zzzz2', ?, 0, 0, 'not json')",
            (sid,),
        )
    read = read_new(str(store), sid, done.cursor)
    assert read.bad_lines == 1
    assert records_to_turns(read.records) == []
    assert read.cursor["last_id"] == "msg_zzzz2"


def test_a_real_auto_compaction_leaves_only_what_was_said(store: Path) -> None:
    """OpenCode's compaction request (a ``compaction`` part), its summary (``summary: true``)
    and its synthetic "Continue if you have next steps" prompt are not conversation."""
    third = session_ids()[2]
    turns = records_to_turns(read_new(str(store), third, None).records)
    assert [t.role for t in turns] == ["user", "assistant"]
    assert turns[0].text == "A session that compacts"
    replies = turns[1].text.split("\n\n")
    assert len(replies) == 2 and all(r.startswith("STUB-REPLY #") for r in replies)
    assert "Continue if you have next steps" not in turns[1].text
