"""State files: atomic, locked, corruption-tolerant, private."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ovhooks.dryrun.plan import Plan
from ovhooks.dryrun.record import PlannedStateStore
from ovhooks.fsutil import FileLock, write_json_atomic
from ovhooks.log import Log, read_recent
from ovhooks.session.store import StateStore, new_state

if TYPE_CHECKING:
    from ovhooks.settings.layout import State


def _bump(state_dir: str, n: int) -> None:
    store = StateStore(state_dir)
    for _ in range(n):
        store.update(
            "cx-s",
            lambda d: d.update({"turns_captured": d["turns_captured"] + 1}),
            create=lambda: new_state("cx-s", "codex", "s", 0.0),
        )


def test_concurrent_read_modify_write_loses_nothing(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_bump, args=(str(tmp_path), 50)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    doc = StateStore(str(tmp_path)).load("cx-s")
    assert doc is not None and doc["turns_captured"] == 200
    assert not list((tmp_path / "sessions").glob("*.tmp"))


def test_corrupt_state_is_quarantined(tmp_path: Path) -> None:
    store = StateStore(str(tmp_path))
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "cx-a.json").write_text("{not json")
    assert store.load("cx-a") is None
    assert list((tmp_path / "sessions").glob("cx-a.json.corrupt-*"))
    doc = store.update("cx-a", lambda d: None, create=lambda: new_state("cx-a", "codex", "a", 1.0))
    loaded = store.load("cx-a")
    assert doc is not None and loaded is not None and loaded["key"] == "cx-a"


def test_a_reader_moves_nothing_aside(tmp_path: Path) -> None:
    # A campaign: the viewer's GET /session?key=K renamed a document not K's; a page view
    # (and `status`) read, the hooks that own the documents set a corrupt one aside.
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "cx-a.json").write_text('{"key": "cx-b"}')
    (tmp_path / "sessions" / "cx-c.json").write_text("{not json")
    reader = StateStore(str(tmp_path), reader=True)
    assert reader.load("cx-a") is None and reader.all() == []
    assert sorted(p.name for p in (tmp_path / "sessions").iterdir()) == ["cx-a.json", "cx-c.json"]
    assert StateStore(str(tmp_path)).load("cx-a") is None
    assert list((tmp_path / "sessions").glob("cx-a.json.corrupt-*"))


def test_dry_run_store_changes_nothing_on_disk(tmp_path: Path) -> None:
    plan = Plan()
    store = PlannedStateStore(str(tmp_path), plan)
    store.update(
        "cx-a",
        lambda d: d.update({"uncommitted": 3}),
        create=lambda: new_state("cx-a", "codex", "a", 1.0),
    )
    overlay = store.load("cx-a")
    assert overlay is not None and overlay["uncommitted"] == 3  # visible in this process
    assert not (tmp_path / "sessions").exists()
    assert "update state cx-a: created" in plan.render()


def test_dry_run_delete_hides_the_document_but_leaves_the_file(tmp_path: Path) -> None:
    real = StateStore(str(tmp_path))
    real.update("cx-b", lambda d: None, create=lambda: new_state("cx-b", "codex", "b", 1.0))
    plan = Plan()
    planned = PlannedStateStore(str(tmp_path), plan)
    assert planned.keys() == ["cx-b"]
    planned.delete("cx-b")
    assert planned.keys() == [] and planned.load("cx-b") is None
    assert real.keys() == ["cx-b"] and (tmp_path / "sessions" / "cx-b.json").exists()
    assert "delete state cx-b" in plan.render()


def test_lock_excludes_and_times_out(tmp_path: Path) -> None:
    path = str(tmp_path / "l.lock")
    held = FileLock(path)
    assert held.acquire()
    assert FileLock(path, timeout_s=0.05).acquire() is False
    held.release()
    assert FileLock(path, timeout_s=0.05).acquire() is True


def test_atomic_write_never_leaves_a_torn_file(tmp_path: Path) -> None:
    folder = tmp_path / "atomic"
    path = str(folder / "x.json")
    write_json_atomic(path, {"a": 1})
    write_json_atomic(path, {"a": 2})
    assert json.loads(Path(path).read_text()) == {"a": 2}
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert [p.name for p in folder.iterdir()] == ["x.json"]


def test_new_state_directories_are_private(tmp_path: Path) -> None:
    """The state dir holds queued conversation text: every directory ovhooks makes is 0700."""
    from ovhooks.log import Log

    root = tmp_path / "xdg" / "ovhooks"
    Log(str(root), "info").info("hello")
    StateStore(str(root)).update(
        "cx-a", lambda d: None, create=lambda: new_state("cx-a", "codex", "a", 1.0)
    )
    for directory in (tmp_path / "xdg", root, root / "logs", root / "sessions"):
        assert oct(directory.stat().st_mode & 0o777) == "0o700", directory


def _sessions(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.mark.parametrize("content", ["[1, 2]", '"text"', '{"key": "cx-other", "v": 1}', '{"v": 1}'])
def test_a_document_that_is_not_this_sessions_state_is_set_aside(
    tmp_path: Path, content: str
) -> None:
    """Valid JSON that is not the state of ``key`` (a list, another session's) is corrupt too."""
    (_sessions(tmp_path) / "cx-a.json").write_text(content)
    log_root = tmp_path / "logroot"
    store = StateStore(str(tmp_path), log=Log(str(log_root), "info"))
    assert store.load("cx-a") is None
    moved = list((tmp_path / "sessions").glob("cx-a.json.corrupt-*"))
    assert len(moved) == 1 and moved[0].read_text() == content
    assert not (tmp_path / "sessions" / "cx-a.json").exists()
    records = read_recent(str(log_root))
    assert [r["event"] for r in records] == ["state_corrupt"]
    assert records[0]["error"] == "not a state document"


def test_a_corrupt_document_that_cannot_be_moved_aside_still_reads_as_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quarantine name is taken (a non-empty directory): load still answers, no raise."""
    monkeypatch.setattr(time, "time", lambda: 1234.0)
    folder = _sessions(tmp_path)
    (folder / "cx-a.json").write_text("{torn")
    blocker = folder / "cx-a.json.corrupt-1234"
    blocker.mkdir()
    (blocker / "occupied").write_text("x")
    store = StateStore(str(tmp_path))
    assert store.load("cx-a") is None
    assert (folder / "cx-a.json").read_text() == "{torn"  # left where it was
    assert [p.name for p in blocker.iterdir()] == ["occupied"]
    # the next write replaces the unreadable document with a fresh one
    doc = store.update("cx-a", lambda d: None, create=lambda: new_state("cx-a", "codex", "a", 2.0))
    assert doc is not None and store.load("cx-a") == doc


def test_update_without_create_leaves_a_missing_state_missing(tmp_path: Path) -> None:
    store = StateStore(str(tmp_path))
    changed: list[object] = []
    assert store.update("cx-a", changed.append) is None
    assert changed == [] and store.keys() == []
    assert not (tmp_path / "sessions" / "cx-a.json").exists()


def test_delete_removes_the_document_and_tolerates_a_missing_one(tmp_path: Path) -> None:
    store = StateStore(str(tmp_path))
    store.update("cx-a", lambda d: None, create=lambda: new_state("cx-a", "codex", "a", 1.0))
    store.update("cx-b", lambda d: None, create=lambda: new_state("cx-b", "codex", "b", 1.0))
    store.delete("cx-a")
    assert store.keys() == ["cx-b"] and store.load("cx-a") is None
    store.delete("cx-a")  # already gone: no error
    store.delete("cx-never")
    assert store.keys() == ["cx-b"]


def test_keys_and_all_before_anything_was_captured(tmp_path: Path) -> None:
    store = StateStore(str(tmp_path / "fresh"))
    assert store.keys() == [] and store.all() == []


def test_all_skips_corrupt_documents_and_lists_only_state_files(tmp_path: Path) -> None:
    store = StateStore(str(tmp_path))
    for key in ("cx-b", "cx-a"):
        store.update(key, lambda d: None, create=lambda k=key: new_state(k, "codex", k, 1.0))  # type: ignore[misc]
    folder = tmp_path / "sessions"
    (folder / "cx-c.json").write_text("{not json")
    (folder / ".cx-a.notice-outage-5").write_text("")  # a notice claim, not a state
    (folder / "cx-a.json.123.tmp").write_text("torn")
    assert store.keys() == ["cx-a", "cx-b", "cx-c"]
    assert [d["key"] for d in store.all()] == ["cx-a", "cx-b"]
    assert list(folder.glob("cx-c.json.corrupt-*"))  # the corrupt one was set aside
    assert store.keys() == ["cx-a", "cx-b"]


def test_update_of_an_existing_document_changes_it_without_recreating(tmp_path: Path) -> None:
    store = StateStore(str(tmp_path))
    store.update("cx-a", lambda d: None, create=lambda: new_state("cx-a", "codex", "a", 1.0))

    def must_not_create() -> State:
        raise AssertionError("the document exists")

    doc = store.update("cx-a", lambda d: d.update({"uncommitted": 4}), create=must_not_create)
    loaded = store.load("cx-a")
    assert doc is not None and loaded is not None
    assert loaded["uncommitted"] == 4 and loaded["created_at"] == 1.0


@pytest.mark.timeout(30)  # a regression hangs: fail it soon
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_or_device_among_the_documents_is_skipped_at_once(tmp_path: Path) -> None:
    # A FIFO blocked every reader forever and a link to /dev/zero filled memory faster than
    # any deadline fires (a hook reached 1.9 GB): neither is read at all now.
    store = StateStore(str(tmp_path))
    store.update("cx-a", lambda d: None, create=lambda: new_state("cx-a", "codex", "a", 1.0))
    folder = tmp_path / "sessions"
    os.mkfifo(folder / "cx-fifo.json")
    (folder / "cx-zero.json").symlink_to("/dev/zero")
    started = time.monotonic()
    assert [d["key"] for d in StateStore(str(tmp_path), reader=True).all()] == ["cx-a"]
    assert [d["key"] for d in store.all()] == ["cx-a"]
    assert time.monotonic() - started < 5


def test_a_document_past_the_read_limit_is_refused_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ovhooks import fsutil

    path = tmp_path / "big.json"
    path.write_text(json.dumps({"text": "x" * 4000}))
    assert fsutil.read_bounded(str(path), limit=5000) == path.read_bytes()
    with pytest.raises(OSError, match="larger than 1000 bytes"):
        fsutil.read_bounded(str(path), limit=1000)
    monkeypatch.setattr(fsutil, "READ_LIMIT", 1000)
    with pytest.raises(OSError):
        fsutil.read_json(str(path))


@pytest.mark.parametrize("queue", ["x", {"seq": 1}, [1, {"seq": 2, "op": "commit"}, "y"]])
def test_a_damaged_queue_reads_as_the_entries_that_can_be_read(
    tmp_path: Path, queue: object
) -> None:
    # A string or a dict where the list belongs failed every worker of the session.
    log_root = tmp_path / "logroot"
    store = StateStore(str(tmp_path), log=Log(str(log_root), "info"))
    store.update("cx-a", lambda d: None, create=lambda: new_state("cx-a", "codex", "a", 1.0))
    path = tmp_path / "sessions" / "cx-a.json"
    doc = json.loads(path.read_text())
    doc["queue"] = queue
    path.write_text(json.dumps(doc))
    loaded = store.load("cx-a")
    readable = [e for e in queue if isinstance(e, dict)] if isinstance(queue, list) else []
    assert loaded is not None and loaded["queue"] == readable
    assert [r["event"] for r in read_recent(str(log_root))] == ["state_queue_damaged"]
    unlogged = StateStore(str(tmp_path), reader=True).load("cx-a")  # the viewer's, no log
    assert unlogged is not None and unlogged["queue"] == readable
