"""The queue inside the session document: ordered, batched, resent only when certainly lost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ovhooks.log import Log, read_recent
from ovhooks.outbox.box import InflightError
from ovhooks.outbox.queue import Outbox, batches, find
from ovhooks.session.store import StateStore, new_state
from ovhooks.settings import layout
from ovhooks.transport.errors import BackendError
from tests.support.fake_openviking import FakeOpenViking
from tests.support.outbox_rig import RecordingBackend, msgs, session_box, texts


def test_order_batches_and_progress_inside_the_entry(tmp_path: Path) -> None:
    box = session_box(tmp_path)
    box.enqueue("append", "cx-a", msgs(250))
    box.enqueue("commit", "cx-a", reason="t")
    assert [len(b) for b in batches(msgs(250))] == [100, 100, 50]
    flaky = RecordingBackend(fail_after=1)
    result = box.drain(flaky)  # type: ignore[arg-type]
    assert result.error is not None and result.messages_sent == 100 and len(box) == 2
    entry = box.entries()[0]
    # the accepted batch is recorded in the entry itself (no sidecar that could outlive it)
    assert entry["sent"] == 100 and entry["inflight"] is None  # refused: not taken
    good = RecordingBackend()
    result = box.drain(good)  # type: ignore[arg-type]
    assert [len(b) for b in good.appended] == [100, 50] and good.commits == ["cx-a"]
    assert result.error is None and len(box) == 0
    assert sorted(p.name for p in (tmp_path / "outbox" / "cx-a").iterdir()) == []


def test_the_queue_and_what_it_advances_are_one_write(tmp_path: Path) -> None:
    """A capture's entry and its cursor land together, or neither does (old: two writes)."""
    box = session_box(tmp_path)

    def advance(doc: Any) -> None:
        doc["cursor"] = {"offset": 42, "turns": 3, "tail_hash": "h"}
        raise OSError(28, "No space left on device")  # the document write fails

    with pytest.raises(OSError):
        box.enqueue("append", "cx-a", msgs(3), change=advance)
    doc = box.store.load("cx-a")
    assert doc is not None and doc["cursor"]["offset"] == 0 and doc.get("queue") == []
    assert list((tmp_path / "outbox" / "cx-a").iterdir()) == []  # the blob went too
    box.enqueue("append", "cx-a", msgs(3), change=lambda d: d.update({"cursor": {"offset": 42}}))
    doc = box.store.load("cx-a")
    assert doc is not None and doc["cursor"]["offset"] == 42 and len(doc["queue"]) == 1


def test_entry_names_are_never_reused_and_orphans_are_removed(tmp_path: Path) -> None:
    """Issue 13 window 1: a leftover from a sent entry must not mark a new entry as sent."""
    box = session_box(tmp_path)
    box.enqueue("append", "cx-a", msgs(2))
    first = box.entries()[0]
    box.drain(RecordingBackend())  # type: ignore[arg-type]
    # what a kill between "entry removed" and "blob unlinked" leaves, plus a dead temp file
    folder = tmp_path / "outbox" / "cx-a"
    (folder / str(first["blob"])).write_text(json.dumps({"messages": msgs(2)}))
    (folder / "x.json.123.456.tmp").write_text("torn")
    box.enqueue("append", "cx-a", msgs(2, start=2))
    second = box.entries()[0]
    assert second["blob"] != first["blob"] and second["seq"] > first["seq"]
    recorder = RecordingBackend()
    box.drain(recorder)  # type: ignore[arg-type]
    assert texts(recorder.live) == ["m2", "m3"]
    assert list(folder.iterdir()) == []


def test_a_malformed_record_is_set_aside_and_the_rest_still_go(tmp_path: Path) -> None:
    box = session_box(tmp_path)
    messages = msgs(5)
    messages[2]["parts"][0]["text"] = "POISON"
    box.enqueue("append", "cx-a", messages)
    box.enqueue("append", "cx-a", msgs(2, start=10))
    recorder = RecordingBackend(refuse="POISON")
    result = box.drain(recorder)  # type: ignore[arg-type]
    assert result.error is None and result.dead == 1 and len(box) == 0
    assert texts(recorder.live) == ["m0", "m1", "m3", "m4", "m10", "m11"]
    dead = list((tmp_path / "outbox" / "dead" / "cx-a").iterdir())
    assert len(dead) == 1 and "POISON" in dead[0].read_text()
    doc = box.store.load("cx-a")
    assert doc is not None and doc["set_aside"] == 1


@pytest.mark.parametrize("status", [401, 403, 429, 500, 503])
def test_retryable_and_auth_failures_keep_the_entry(tmp_path: Path, status: int) -> None:
    box = session_box(tmp_path)
    box.enqueue("append", "cx-a", msgs(1))
    result = box.drain(RecordingBackend(fail_after=0, error=BackendError("http", "x", status)))  # type: ignore[arg-type]
    assert result.error is not None and len(box) == 1


def test_a_batch_in_flight_is_not_resent_inside_the_processing_window(tmp_path: Path) -> None:
    """Issue 13 window 3: a timeout leaves the batch in flight; the server may apply it late."""
    now = [1000.0]
    box = session_box(tmp_path, clock=lambda: now[0], window=60.0)
    box.enqueue("append", "cx-a", msgs(3))
    slow = RecordingBackend(fail_after=0, error=BackendError("timeout", "read timed out"))
    assert isinstance(box.drain(slow).error, BackendError)  # type: ignore[arg-type]
    assert box.entries()[0]["inflight"] is not None
    server = RecordingBackend()
    now[0] += 30
    result = box.drain(server)  # type: ignore[arg-type]
    assert isinstance(result.error, InflightError) and server.appended == []
    # the original lands late: recognised, never sent a second time
    server.live.extend(slow.tried[0])
    now[0] += 10
    result = box.drain(server)  # type: ignore[arg-type]
    assert result.error is None and server.appended == [] and len(box) == 0


def test_a_batch_that_never_landed_is_resent_after_the_window(tmp_path: Path) -> None:
    now = [1000.0]
    box = session_box(tmp_path, clock=lambda: now[0], window=60.0)
    box.enqueue("append", "cx-a", msgs(3))
    box.drain(RecordingBackend(fail_after=0, error=BackendError("timeout", "t")))  # type: ignore[arg-type]
    server = RecordingBackend()
    now[0] += 61
    result = box.drain(server)  # type: ignore[arg-type]
    assert result.error is None and texts(server.live) == ["m0", "m1", "m2"]


def test_an_error_answer_ends_the_window_at_once(tmp_path: Path) -> None:
    """A 5xx answer means the server is done with the request: check once, then resend."""
    box = session_box(tmp_path, window=3600.0)
    box.enqueue("append", "cx-a", msgs(2))
    box.drain(RecordingBackend(fail_after=0, error=BackendError("http", "boom", 500)))  # type: ignore[arg-type]
    server = RecordingBackend()
    assert box.drain(server).error is None  # type: ignore[arg-type]
    assert texts(server.live) == ["m0", "m1"]


def test_crash_after_the_server_took_a_batch_does_not_send_it_twice(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """The server answered, then the worker died before recording it."""
    from ovhooks.backend.openviking import OpenVikingBackend
    from ovhooks.settings.config import load_settings

    settings = load_settings({"OPENVIKING_URL": fake_ov.url, "HOME": str(tmp_path)})
    backend = OpenVikingBackend(settings)

    class DiesAfterSending:
        name = "openviking"
        peer = ""

        def append_messages(self, session_id: str, messages: Any) -> Any:
            backend.append_messages(session_id, messages)
            raise KeyboardInterrupt  # stands in for kill -9 right after the answer

    box = session_box(tmp_path)
    box.enqueue("append", "cx-a", msgs(150))
    with pytest.raises(KeyboardInterrupt):
        box.drain(DiesAfterSending())  # type: ignore[arg-type]
    assert len(fake_ov.messages("cx-a")) == 100
    result = box.drain(backend)
    assert result.error is None and len(box) == 0
    assert fake_ov.texts("cx-a") == [f"m{i}" for i in range(150)]


def test_a_batch_applied_but_never_answered_is_not_sent_twice(
    fake_ov: FakeOpenViking, tmp_path: Path
) -> None:
    """The server applies a batch, then the connection drops before its answer: the batch
    stays in flight (it may be applied), and the next drain finds it by its marks instead of
    sending it again (it was taken as 'never reached' and stored twice)."""
    from ovhooks.backend.openviking import OpenVikingBackend
    from ovhooks.settings.config import load_settings

    settings = load_settings({"OPENVIKING_URL": fake_ov.url, "HOME": str(tmp_path)})
    box = session_box(tmp_path, window=3600.0)
    box.enqueue("append", "cx-a", msgs(3))
    fake_ov.mode = "applied_unanswered"
    result = box.drain(OpenVikingBackend(settings))
    assert isinstance(result.error, BackendError) and result.error.kind == "unanswered"
    assert box.entries()[0]["inflight"] is not None
    fake_ov.mode = "ok"
    result = box.drain(OpenVikingBackend(settings))
    assert result.error is None and len(box) == 0
    assert texts(fake_ov.messages("cx-a")) == ["m0", "m1", "m2"]


def test_entries_an_older_version_queued_as_files_are_adopted(tmp_path: Path) -> None:
    box = session_box(tmp_path)
    folder = tmp_path / "outbox" / "cx-a"
    folder.mkdir(parents=True)
    entry = {
        "op": "append",
        "session": "cx-a",
        "batches": batches(msgs(150)),
        "cursor": {"offset": 900, "turns": 4},
        "uids": ["u1"],
    }
    (folder / "0000000001-append.json").write_text(json.dumps(entry))
    (folder / "0000000001-append.json.progress").write_text('{"done": 1, "inflight": null}')
    (folder / "0000000002-commit.json").write_text('{"op": "commit", "session": "cx-a"}')
    assert layout.queued_sessions(str(tmp_path), StateStore(str(tmp_path)).all()) == ["cx-a"]
    recorder = RecordingBackend()
    assert box.drain(recorder).error is None  # type: ignore[arg-type]
    assert texts(recorder.archived) == [f"m{i}" for i in range(100, 150)]
    assert recorder.commits == ["cx-a"]
    doc = box.store.load("cx-a")
    assert doc is not None and doc["cursor"]["offset"] == 900 and "u1" in doc["recent_uids"]
    assert list(folder.iterdir()) == []


def test_find_names_an_entry_by_its_number(tmp_path: Path) -> None:
    box = session_box(tmp_path)
    box.enqueue("append", "cx-a", msgs(1))
    box.enqueue("commit", "cx-a", reason="t")
    doc = box.store.load("cx-a")
    assert doc is not None
    first, second = doc["queue"]
    assert find(doc, int(second["seq"])) is second and find(doc, int(first["seq"])) is first
    assert find(doc, int(second["seq"]) + 1) is None  # sent and removed, or never queued
    assert find(new_state("cx-b", "codex", "b", 1.0), 1) is None


@pytest.mark.parametrize("content", ["[]", '{"session": "cx-a"}', '{"messages": "m0"}'])
def test_a_blob_that_holds_no_message_list_is_refused(tmp_path: Path, content: str) -> None:
    box = session_box(tmp_path)
    folder = tmp_path / "outbox" / "cx-a"
    folder.mkdir(parents=True)
    (folder / "b.json").write_text(content)
    with pytest.raises(ValueError, match="not a queued capture"):
        box.read_blob("b.json")


def test_a_capture_with_no_messages_queues_nothing_but_still_moves_the_cursor(
    tmp_path: Path,
) -> None:
    """Turns that scrubbed down to nothing: the cursor passes them, no empty send is queued."""
    box = session_box(tmp_path)
    box.enqueue("append", "cx-a", [], change=lambda d: d.update({"cursor": {"offset": 77}}))
    doc = box.store.load("cx-a")
    assert doc is not None and doc["queue"] == [] and doc["cursor"]["offset"] == 77
    assert doc["next_seq"] == 1
    assert not (tmp_path / "outbox" / "cx-a").exists()  # no blob written


def test_enqueue_creates_the_session_document_when_there_is_none(tmp_path: Path) -> None:
    """A commit queued for a session whose document is gone (removed, or quarantined)."""
    store = StateStore(str(tmp_path))
    box = Outbox(store, "cx-z", clock=lambda: 55.0)
    box.enqueue("commit", "cx-z", reason="session_end")
    doc = store.load("cx-z")
    assert doc is not None and doc["key"] == "cx-z" and doc["created_at"] == 55.0
    assert [(e["op"], e["seq"], e["reason"]) for e in doc["queue"]] == [
        ("commit", 1, "session_end")
    ]


def test_a_failed_commit_enqueue_keeps_the_blobs_of_the_entries_before_it(tmp_path: Path) -> None:
    box = session_box(tmp_path)
    box.enqueue("append", "cx-a", msgs(2))
    blob = str(box.entries()[0]["blob"])

    def disk_full(doc: Any) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        box.enqueue("commit", "cx-a", change=disk_full)
    assert [e["op"] for e in box.entries()] == ["append"]
    assert [p.name for p in (tmp_path / "outbox" / "cx-a").iterdir()] == [blob]


def test_tidy_and_drain_of_a_session_with_no_folders_yet(tmp_path: Path) -> None:
    """Nothing captured: no outbox folder, no sessions folder; tidying finds nothing to do."""
    box = Outbox(StateStore(str(tmp_path / "fresh")), "cx-a")
    box.tidy()
    result = box.drain(RecordingBackend())  # type: ignore[arg-type]
    assert result.error is None and result.remaining == 0 and result.messages_sent == 0
    assert not (tmp_path / "fresh").exists()


def test_tidy_forgets_the_notices_of_outages_and_set_asides_that_are_over(
    tmp_path: Path,
) -> None:
    box = session_box(tmp_path)
    box.store.update(
        "cx-a", lambda d: d.update({"outage": {"since": 50, "last_failure_at": 60}, "set_aside": 2})
    )
    folder = tmp_path / "sessions"
    current = [".cx-a.notice-outage-50", ".cx-a.notice-set-aside-2"]
    over = [".cx-a.notice-outage-10", ".cx-a.notice-set-aside-1"]
    other = [".cx-b.notice-outage-10"]
    for name in current + over + other:
        (folder / name).write_text("")
    box.tidy()
    assert sorted(p.name for p in folder.glob(".*notice-*")) == sorted(current + other)
    box.store.update("cx-a", lambda d: d.update({"outage": None}))  # the outage ended
    box.tidy()
    assert sorted(p.name for p in folder.glob(".*notice-*")) == sorted([current[1], *other])


def test_changing_an_entry_that_is_no_longer_queued_changes_nothing(tmp_path: Path) -> None:
    box = session_box(tmp_path)
    box.enqueue("append", "cx-a", msgs(1))
    before = box.store.load("cx-a")
    box.patch(99, sent=5, inflight={"start": 0})
    assert box.store.load("cx-a") == before


def test_dropping_a_blob_that_is_already_gone_is_not_an_error(tmp_path: Path) -> None:
    box = session_box(tmp_path)
    box.enqueue("append", "cx-a", msgs(1))
    blob = str(box.entries()[0]["blob"])
    box.drop_blob(blob)
    box.drop_blob(blob)  # a second drainer, or a crash between remove and unlink
    assert list((tmp_path / "outbox" / "cx-a").iterdir()) == []


class _GoneSession(RecordingBackend):
    """A server that no longer has the session (deleted, or a local store that was reset)."""

    def commit(self, session_id: str, *, keep_recent_count: int = 0) -> Any:
        raise BackendError("http", "no such session", 404, "NOT_FOUND")


@pytest.mark.parametrize("observed", [True, False])
def test_a_commit_for_a_session_the_server_no_longer_has_is_dropped(
    tmp_path: Path, observed: bool
) -> None:
    log_root = tmp_path / "logroot"
    box = session_box(tmp_path, log=Log(str(log_root), "info") if observed else None)
    box.enqueue("commit", "cx-a", keep_recent_count=3)
    box.enqueue("append", "cx-a", msgs(1))
    gone: list[Any] = []
    server = _GoneSession()
    result = box.drain(server, on_commit_not_found=gone.append if observed else None)  # type: ignore[arg-type]
    # the commit is dropped without counting as one, and the queue behind it still goes
    assert result.error is None and result.commits == [] and len(box) == 0
    assert texts(server.live) == ["m0"]
    doc = box.store.load("cx-a")
    assert doc is not None and doc["commit_count"] == 0 and doc["last_commit_at"] is None
    if observed:
        assert [(e["op"], e["keep_recent_count"]) for e in gone] == [("commit", 3)]
        events = [r["event"] for r in read_recent(str(log_root), level="info")]
        assert "commit_session_gone" in events


@pytest.mark.parametrize(
    "error", [BackendError("unreachable", "refused"), BackendError("http", "busy", 503)]
)
def test_a_commit_that_fails_otherwise_stays_queued(tmp_path: Path, error: BackendError) -> None:
    class Failing(RecordingBackend):
        def commit(self, session_id: str, *, keep_recent_count: int = 0) -> Any:
            raise error

    box = session_box(tmp_path)
    box.enqueue("commit", "cx-a")
    box.enqueue("append", "cx-a", msgs(1))
    server = Failing()
    result = box.drain(server)  # type: ignore[arg-type]
    assert result.error is error and result.remaining == 2 and server.appended == []
    good = RecordingBackend()
    assert box.drain(good).error is None and good.commits == ["cx-a"]  # type: ignore[arg-type]
    doc = box.store.load("cx-a")
    assert doc is not None and doc["commit_count"] == 1
