"""State files and the outbox: atomic, locked, corruption-tolerant, ordered, durable."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.errors import BackendError
from ovhooks.fsutil import FileLock, write_json_atomic
from ovhooks.outbox import Outbox, batches
from ovhooks.plan import Plan
from ovhooks.state import StateStore, new_state
from tests.support.fake_openviking import FakeOpenViking


def _bump(state_dir: str, n: int) -> None:
    store = StateStore(state_dir)
    for _ in range(n):
        store.update(
            "cx-s",
            lambda d: d.update(turns_captured=d["turns_captured"] + 1),
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
    store = StateStore(str(tmp_path), plan=plan)
    store.update(
        "cx-a",
        lambda d: d.update(uncommitted=3),
        create=lambda: new_state("cx-a", "codex", "a", 1.0),
    )
    overlay = store.load("cx-a")
    assert overlay is not None and overlay["uncommitted"] == 3  # visible in this process
    assert not (tmp_path / "sessions").exists()
    assert "update state cx-a: created" in plan.render()


def test_lock_excludes_and_times_out(tmp_path: Path) -> None:
    path = str(tmp_path / "l.lock")
    held = FileLock(path)
    assert held.acquire()
    assert FileLock(path, timeout_s=0.05).acquire() is False
    held.release()
    assert FileLock(path, timeout_s=0.05).acquire() is True


class _Recorder:
    name = "recorder"
    peer = ""

    def __init__(self, fail_after: int | None = None, error: BackendError | None = None) -> None:
        self.appended: list[list[dict[str, Any]]] = []
        self.commits: list[str] = []
        self.fail_after = fail_after
        self.error = error or BackendError("unreachable", "down")

    def append_messages(self, session_id, messages):
        if self.fail_after is not None and len(self.appended) >= self.fail_after:
            raise self.error
        self.appended.append(list(messages))
        return {"pending_tokens": 10 * len(self.appended)}

    def commit(self, session_id, *, keep_recent_count=0):
        self.commits.append(session_id)
        return {"status": "accepted"}


def _msgs(n: int) -> list[dict[str, Any]]:
    return [{"role": "user", "parts": [{"type": "text", "text": f"m{i}"}]} for i in range(n)]


def test_outbox_order_batches_and_partial_progress(tmp_path: Path) -> None:
    box = Outbox(str(tmp_path), "cx-a")
    box.enqueue({"op": "append", "session": "cx-a", "batches": batches(_msgs(250))})
    box.enqueue({"op": "commit", "session": "cx-a", "reason": "t"})
    assert [len(b) for b in batches(_msgs(250))] == [100, 100, 50]
    flaky = _Recorder(fail_after=1)
    result = box.drain(flaky)  # type: ignore[arg-type]
    assert result.error is not None and result.messages_sent == 100 and len(box) == 2
    entry_path = sorted((tmp_path / "outbox" / "cx-a").glob("*-append.json"))[0]
    assert [len(b) for b in json.loads(entry_path.read_text())["batches"]] == [100, 100, 50]
    # the accepted batch is recorded beside the entry, so a retry resumes after it
    progress = json.loads(Path(str(entry_path) + ".progress").read_text())
    assert progress == {"done": 1, "inflight": None}  # refused: batch 2 was not taken
    good = _Recorder()
    result = box.drain(good)  # type: ignore[arg-type]
    assert [len(b) for b in good.appended] == [100, 50] and good.commits == ["cx-a"]
    assert result.error is None and len(box) == 0
    assert not list((tmp_path / "outbox" / "cx-a").glob("*.progress"))


def test_poison_entry_goes_to_dead_letters_and_queue_moves_on(tmp_path: Path) -> None:
    box = Outbox(str(tmp_path), "cx-a")
    box.enqueue({"op": "append", "session": "cx-a", "batches": [_msgs(1)]})
    box.enqueue({"op": "append", "session": "cx-a", "batches": [_msgs(2)]})
    bad = _Recorder(fail_after=0, error=BackendError("http", "invalid", 400, "INVALID_ARGUMENT"))
    result = box.drain(bad)  # type: ignore[arg-type]
    assert result.dead == 2 and len(box) == 0
    assert len(list((tmp_path / "outbox" / "dead" / "cx-a").glob("*.json"))) == 2


@pytest.mark.parametrize("status", [401, 403, 429, 500, 503])
def test_retryable_and_auth_failures_keep_the_entry(tmp_path: Path, status: int) -> None:
    box = Outbox(str(tmp_path), "cx-a")
    box.enqueue({"op": "append", "session": "cx-a", "batches": [_msgs(1)]})
    result = box.drain(_Recorder(fail_after=0, error=BackendError("http", "x", status)))  # type: ignore[arg-type]
    assert result.error is not None and len(box) == 1


def test_atomic_write_never_leaves_a_torn_file(tmp_path: Path) -> None:
    folder = tmp_path / "atomic"
    path = str(folder / "x.json")
    write_json_atomic(path, {"a": 1})
    write_json_atomic(path, {"a": 2})
    assert json.loads(Path(path).read_text()) == {"a": 2}
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert [p.name for p in folder.iterdir()] == ["x.json"]


def test_crash_after_the_server_took_a_batch_does_not_send_it_twice(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """The only window left: the server answered, then the worker died before recording it."""
    from ovhooks.backend.openviking import OpenVikingBackend
    from ovhooks.config import load_settings

    settings = load_settings({"OPENVIKING_URL": fake_ov.url, "HOME": str(tmp_path)})
    backend = OpenVikingBackend(settings)

    class DiesAfterSending:
        name = "openviking"
        peer = ""

        def append_messages(self, session_id: str, messages: Any) -> Any:
            backend.append_messages(session_id, messages)
            raise KeyboardInterrupt  # stands in for kill -9 right after the answer

    box = Outbox(str(tmp_path), "cx-a")
    box.enqueue({"op": "append", "session": "cx-a", "batches": batches(_msgs(150))})
    with pytest.raises(KeyboardInterrupt):
        box.drain(DiesAfterSending())  # type: ignore[arg-type]
    assert len(fake_ov.messages("cx-a")) == 100
    result = box.drain(backend)
    assert result.error is None and len(box) == 0
    texts = fake_ov.texts("cx-a")
    assert texts == [f"m{i}" for i in range(100)] + [f"m{i}" for i in range(100, 150)]


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
