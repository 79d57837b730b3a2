"""Forget and undo (``ui.trash``) on each store: what comes back, exactly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.backend.openviking import OpenVikingBackend
from ovhooks.settings.config import load_settings
from ovhooks.transport.errors import BackendError
from ovhooks.ui import memories, trash
from tests.support.fake_openviking import FakeOpenViking

MEMORY = "viking://user/default/memories/preferences/default/pnpm.md"


def test_on_a_server_undo_writes_the_text_back_and_nothing_else(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """OpenViking 0.5.2 reads and writes a memory's text only: the undo is one
    ``content/write`` of the text at the same URI (the server stamps it as a new write)."""
    fake_ov.files[MEMORY] = "The user prefers pnpm over npm.\n"
    settings = load_settings({**os.environ, "OPENVIKING_URL": fake_ov.url})
    backend = OpenVikingBackend(settings, "")
    done = trash.forget(backend, str(tmp_path), [MEMORY], 1000.0)
    assert done["forgotten"] == [MEMORY] and MEMORY not in fake_ov.files
    before = len(fake_ov.requests)
    assert trash.undo(backend, str(tmp_path), done["undo"], 1001.0) == [MEMORY]
    sent = [r for r in fake_ov.requests[before:] if r["method"] != "GET"]
    assert [(r["path"], r["body"]["uri"], r["body"]["content"]) for r in sent] == [
        ("/api/v1/content/write", MEMORY, "The user prefers pnpm over npm.\n")
    ]
    assert fake_ov.files[MEMORY] == "The user prefers pnpm over npm.\n"


def test_the_profile_has_no_row_and_comes_back_as_its_text(tmp_path: Path) -> None:
    store = LocalBackend(str(tmp_path / "data"))
    store.write(store.profile_uri, "Name: Ada\n")
    state = str(tmp_path / "state")
    done = trash.forget(store, state, [store.profile_uri], 1000.0)
    assert store.memory_record(store.profile_uri) is None
    assert trash.undo(store, state, done["undo"], 1001.0) == [store.profile_uri]
    assert store.read(store.profile_uri) == "Name: Ada\n"


class _Reads:
    """A store whose ``read`` answers as told (the viewer's row text, without a server)."""

    def __init__(self, answer: str | BackendError) -> None:
        self.answer = answer

    def read(self, uri: str, level: str = "full") -> str:
        if isinstance(self.answer, BackendError):
            raise self.answer
        return self.answer


def test_a_row_always_has_a_line_to_read() -> None:
    line = memories.readable_line
    assert line(_Reads("unused"), MEMORY, "  Prefers\n pnpm  ") == "Prefers pnpm"  # type: ignore[arg-type]
    assert line(_Reads("From the store"), MEMORY, "") == "From the store"  # type: ignore[arg-type]
    gone = BackendError("http", "File not found", 404, "NOT_FOUND")
    assert line(_Reads(gone), MEMORY, "") == "(text unavailable: no such memory now (forgotten?))"  # type: ignore[arg-type]
    down = BackendError("unreachable", "connection refused")
    assert line(_Reads(down), MEMORY, "") == "(text unavailable: connection refused)"  # type: ignore[arg-type]
    empty = "(text unavailable: the store holds no text for it)"
    assert line(_Reads("  \n"), MEMORY, "") == empty  # type: ignore[arg-type]


_BLOBS = ("title", "content", "abstract", "tags", "source", "scope", "terms")


def test_a_row_holding_blobs_is_forgotten_and_comes_back_byte_for_byte(tmp_path: Path) -> None:
    """A text column written as bytes by another tool failed the forget (bytes are not
    JSON) with a 500; the undo must give back the same bytes, not a decoded text."""
    import sqlite3

    from tests.support.local_memories import records

    data = str(tmp_path / "data")
    store = LocalBackend(data)
    store.write(MEMORY, "The user prefers pnpm over npm.\n")
    store.close()
    con = sqlite3.connect(f"{data}/memory.db")
    for i, column in enumerate(_BLOBS):
        con.execute(
            f"UPDATE memories SET {column} = ? WHERE uri = ?", (b"\xff\xfe" + bytes([i]), MEMORY)
        )
    con.commit()
    con.close()
    before = records(data)[MEMORY]
    state = str(tmp_path / "state")
    store = LocalBackend(data)
    done = trash.forget(store, state, [MEMORY], 1000.0)
    assert done["forgotten"] == [MEMORY] and MEMORY not in records(data)
    assert trash.undo(store, state, done["undo"], 1001.0) == [MEMORY]
    store.close()
    assert records(data)[MEMORY] == before
    assert os.listdir(trash.trash_dir(state)) == []


def test_a_trash_write_that_fails_leaves_no_copy_and_deletes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed write (the disk full at fsync) left a 0600 ``*.tmp`` holding the memory."""
    store = LocalBackend(str(tmp_path / "data"))
    store.write(MEMORY, "The user prefers pnpm over npm.\n")
    state = str(tmp_path / "state")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        trash.forget(store, state, [MEMORY], 1000.0)
    monkeypatch.undo()
    assert os.listdir(trash.trash_dir(state)) == []
    assert store.read(MEMORY) == "The user prefers pnpm over npm.\n"


class _UndoesAgain(LocalBackend):
    """A store whose restore lets a second undo of the same forget in (two tabs, a double
    click: the viewer serves requests on threads), or fails once."""

    def __init__(self, data: str, state: str, fail: bool = False) -> None:
        super().__init__(data)
        self.state = state
        self.fail = fail
        self.second: list[object] = []

    def restore_memories(self, records: list[dict[str, object]]) -> list[str]:
        if self.fail:
            self.fail = False
            raise BackendError("local", "database is locked")
        if not self.second:
            self.second.append(None)
            try:
                self.second[0] = trash.undo(self, self.state, self.undo_id, 1001.0)
            except trash.TrashError as exc:
                self.second[0] = exc
        return super().restore_memories(records)

    undo_id = ""


def test_of_two_undos_of_one_forget_one_restores_and_the_other_is_told_gone(
    tmp_path: Path,
) -> None:
    """The second undo restored too, then the first failed (500) unlinking a gone file."""
    state = str(tmp_path / "state")
    store = _UndoesAgain(str(tmp_path / "data"), state)
    store.write(MEMORY, "The user prefers pnpm over npm.\n")
    store.undo_id = trash.forget(store, state, [MEMORY], 1000.0)["undo"]
    assert trash.undo(store, state, store.undo_id, 1001.0) == [MEMORY]
    assert isinstance(store.second[0], trash.TrashError), store.second
    assert store.read(MEMORY) == "The user prefers pnpm over npm.\n"
    assert os.listdir(trash.trash_dir(state)) == []


def test_an_undo_that_fails_midway_can_be_tried_again(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    store = _UndoesAgain(str(tmp_path / "data"), state, fail=True)
    store.second.append(None)  # no re-entrant undo here
    store.write(MEMORY, "The user prefers pnpm over npm.\n")
    undo_id = trash.forget(store, state, [MEMORY], 1000.0)["undo"]
    with pytest.raises(BackendError):
        trash.undo(store, state, undo_id, 1001.0)
    assert os.listdir(trash.trash_dir(state)) == [f"{undo_id}.json"]
    assert trash.undo(store, state, undo_id, 1002.0) == [MEMORY]
    assert store.read(MEMORY) == "The user prefers pnpm over npm.\n"


def test_a_missing_memory_is_reported_and_a_repeated_one_forgotten_once(tmp_path: Path) -> None:
    """Reading a gone memory failed the whole forget; a URI named twice was reported as both
    forgotten and failed."""
    store = LocalBackend(str(tmp_path / "data"))
    store.write(MEMORY, "The user prefers pnpm over npm.\n")
    gone = MEMORY.replace("pnpm", "yarn")
    done = trash.forget(store, str(tmp_path / "state"), [MEMORY, gone, MEMORY], 1000.0)
    assert (done["forgotten"], done["failed"], done["missing"]) == ([MEMORY], [], [gone])
    assert trash.forget(store, str(tmp_path / "state"), [gone], 1001.0) == {
        "undo": None,
        "forgotten": [],
        "failed": [],
        "missing": [gone],
    }
