"""State files: atomic, locked, corruption-tolerant, private."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

from ovhooks.dryrun import PlannedStateStore
from ovhooks.fsutil import FileLock, write_json_atomic
from ovhooks.plan import Plan
from ovhooks.state import StateStore, new_state


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
