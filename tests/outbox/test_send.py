"""Sending one queued capture: unreadable blobs, answers, batches left in flight, set-asides."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from ovhooks.log import Log, read_recent
from ovhooks.outbox.box import InflightError
from ovhooks.transport.errors import BackendError
from tests.support.outbox_rig import RecordingBackend, msgs, session_box, texts

if TYPE_CHECKING:
    from pathlib import Path

    from ovhooks.outbox.queue import Outbox


@pytest.mark.parametrize("observed", [True, False])
@pytest.mark.parametrize("damage", ["missing", "torn", "not a capture"])
def test_an_unreadable_blob_drops_its_entry_and_the_queue_moves_on(
    tmp_path: Path, damage: str, observed: bool
) -> None:
    """The disk lost a capture: nothing of it can be sent, the captures behind it still go."""
    log_root = tmp_path / "logroot"
    box = session_box(tmp_path, log=Log(str(log_root)) if observed else None)
    box.enqueue("append", "cx-a", msgs(2))
    box.enqueue("append", "cx-a", msgs(1, start=5))
    blob = tmp_path / "outbox" / "cx-a" / str(box.entries()[0]["blob"])
    if damage == "missing":
        blob.unlink()
    else:
        blob.write_text("{torn" if damage == "torn" else '["m0", "m1"]')
    server = RecordingBackend()
    result = box.drain(server)  # type: ignore[arg-type]
    assert result.error is None and len(box) == 0 and result.messages_sent == 1
    assert texts(server.live) == ["m5"]
    records = read_recent(str(log_root))
    assert [r["event"] for r in records] == (["outbox_blob_unreadable"] if observed else [])
    if observed:
        assert records[0]["blob"] == blob.name


def test_an_answer_without_a_token_count_leaves_the_known_count(tmp_path: Path) -> None:
    box = session_box(tmp_path)
    box.store.update("cx-a", lambda d: d.update({"pending_tokens": 7, "messages_sent": 4}))
    box.enqueue("append", "cx-a", msgs(3))
    result = box.drain(RecordingBackend(answer={"status": "ok"}))  # type: ignore[arg-type]
    assert result.error is None and result.messages_sent == 3 and result.pending_tokens is None
    doc = box.store.load("cx-a")
    assert doc is not None and doc["pending_tokens"] == 7 and doc["messages_sent"] == 7


def test_an_error_answer_marks_only_a_batch_still_in_flight(tmp_path: Path) -> None:
    """Another writer settled the batch during the request: no "answered" mark is invented."""
    box = session_box(tmp_path, window=3600.0)
    box.enqueue("append", "cx-a", msgs(2))
    seq = int(box.entries()[0]["seq"])

    class SettledMeanwhile(RecordingBackend):
        def append_messages(self, session_id: str, messages: list[dict[str, Any]]) -> Any:
            box.patch(seq, inflight=None)
            raise BackendError("http", "boom", 500)

    assert isinstance(box.drain(SettledMeanwhile()).error, BackendError)  # type: ignore[arg-type]
    assert box.entries()[0]["inflight"] is None and box.entries()[0]["sent"] == 0
    server = RecordingBackend()
    assert box.drain(server).error is None  # type: ignore[arg-type]
    assert texts(server.live) == ["m0", "m1"]


def _left_in_flight(
    tmp_path: Path, now: list[float], log: Log | None = None
) -> tuple[Outbox, list[dict[str, Any]]]:
    """A session outbox whose one capture (m0..m2) timed out: in flight since ``now[0]``;
    the box, and the batch as it was sent (with its marks)."""
    box = session_box(tmp_path, clock=lambda: now[0], window=60.0, log=log)
    box.enqueue("append", "cx-a", msgs(3))
    slow = RecordingBackend(fail_after=0, error=BackendError("timeout", "t"))
    box.drain(slow)  # type: ignore[arg-type]
    assert box.entries()[0]["inflight"] is not None
    return box, slow.tried[0]


def test_a_batch_found_applied_is_logged_and_recorded_as_sent(tmp_path: Path) -> None:
    now = [1000.0]
    log_root = tmp_path / "logroot"
    box, sent = _left_in_flight(tmp_path, now, Log(str(log_root), "info"))
    server = RecordingBackend()
    server.live.extend(sent)  # the timed-out request was applied after all
    result = box.drain(server)  # type: ignore[arg-type]
    assert result.error is None and server.appended == [] and len(box) == 0
    doc = box.store.load("cx-a")
    assert doc is not None and doc["messages_sent"] == 3
    records = read_recent(str(log_root), level="info")
    assert [r["start"] for r in records if r["event"] == "outbox_inflight_was_applied"] == [0]


def test_a_record_set_aside_is_logged(tmp_path: Path) -> None:
    log_root = tmp_path / "logroot"
    box = session_box(tmp_path, log=Log(str(log_root)))
    messages = msgs(3)
    messages[1]["parts"][0]["text"] = "POISON"
    box.enqueue("append", "cx-a", messages)
    server = RecordingBackend(refuse="POISON")
    result = box.drain(server)  # type: ignore[arg-type]
    assert result.dead == 1 and texts(server.live) == ["m0", "m2"]
    records = read_recent(str(log_root))
    assert [r["event"] for r in records] == ["outbox_record_set_aside"]
    assert "422" in str(records[0]["error"])


class _NoSessionYet(RecordingBackend):
    """The server has no such session: nothing of the batch in flight can have landed."""

    def newest_mark(self, session_id: str, prefix: str) -> Any:
        raise BackendError("http", "no such session", 404, "NOT_FOUND")


def test_a_session_the_server_does_not_have_means_the_batch_was_not_taken(
    tmp_path: Path,
) -> None:
    now = [1000.0]
    box, _sent = _left_in_flight(tmp_path, now)
    server = _NoSessionYet()
    now[0] += 30  # inside the window the request may still be processed
    assert isinstance(box.drain(server).error, InflightError)  # type: ignore[arg-type]
    assert server.appended == []
    now[0] += 31  # past it: certainly not taken, sent again
    assert box.drain(server).error is None  # type: ignore[arg-type]
    assert texts(server.live) == ["m0", "m1", "m2"] and len(box) == 0


class _CannotSay(RecordingBackend):
    """A server that cannot show the session: unreachable, or an answer of the wrong shape."""

    def __init__(self, failure: str) -> None:
        super().__init__()
        self.failure = failure

    def newest_mark(self, session_id: str, prefix: str) -> Any:
        if self.failure == "unreachable":
            raise BackendError("unreachable", "refused")
        return ["not", "a", "mark"]  # garbled


@pytest.mark.parametrize("failure", ["unreachable", "garbled"])
def test_when_the_server_cannot_say_the_batch_is_never_resent(tmp_path: Path, failure: str) -> None:
    """Even past the window: resending a batch that may have landed would duplicate it."""
    now = [1000.0]
    box, _sent = _left_in_flight(tmp_path, now)
    now[0] += 3600
    server = _CannotSay(failure)
    result = box.drain(server)  # type: ignore[arg-type]
    assert isinstance(result.error, InflightError) and server.appended == []
    assert result.remaining == 1 and box.entries()[0]["inflight"] is not None


def test_a_batch_applied_then_archived_by_a_commit_is_not_sent_again(tmp_path: Path) -> None:
    """The live tail no longer holds it (a commit, ours or the server's, archived it): the
    marks it carries still say it landed, so it is recorded as sent at once."""
    now = [1000.0]
    box, sent = _left_in_flight(tmp_path, now)
    server = RecordingBackend()
    server.live.extend(sent)
    server.commit("cx-a")
    server.commit("cx-a")  # a second commit archives nothing more
    result = box.drain(server)  # type: ignore[arg-type]
    assert result.error is None and server.appended == [] and len(box) == 0
    assert texts(server.archived) == ["m0", "m1", "m2"] and server.live == []


def _second_capture_in_flight(tmp_path: Path, now: list[float]) -> tuple[Outbox, RecordingBackend]:
    """A session whose first capture (m0, m1) the server holds, committed, and whose second
    (m2, m3) timed out in flight at ``now[0]``; the box and the server."""
    box = session_box(tmp_path, clock=lambda: now[0], window=60.0)
    box.enqueue("append", "cx-a", msgs(2))
    server = RecordingBackend()
    assert box.drain(server).error is None  # type: ignore[arg-type]
    box.enqueue("append", "cx-a", msgs(2, start=2))
    box.drain(RecordingBackend(fail_after=0, error=BackendError("timeout", "t")))  # type: ignore[arg-type]
    server.commit("cx-a")
    return box, server


def test_an_unmarked_newest_message_of_another_capture_means_not_applied(tmp_path: Path) -> None:
    """The newest mark the server holds is an earlier capture's: the batch in flight did not
    land, and once the window is over it is sent again (once)."""
    now = [1000.0]
    box, server = _second_capture_in_flight(tmp_path, now)
    assert isinstance(box.drain(server).error, InflightError)  # type: ignore[arg-type]
    now[0] += 61
    assert box.drain(server).error is None  # type: ignore[arg-type]
    assert texts(server.archived + server.live) == ["m0", "m1", "m2", "m3"]


def test_a_batch_stamped_by_a_clock_since_set_back_waits_one_window_not_the_skew(
    tmp_path: Path,
) -> None:
    """Sent under a clock a day ahead, the batch's stamp is in the future once the clock is
    corrected: the queue waited out the whole day. Now the window starts when that is seen."""
    now = [1000.0 + 86_400]
    box, server = _second_capture_in_flight(tmp_path, now)
    now[0] = 1000.0  # the clock corrected
    assert isinstance(box.drain(server).error, InflightError)  # type: ignore[arg-type]
    now[0] += 30
    assert isinstance(box.drain(server).error, InflightError)  # type: ignore[arg-type]
    now[0] += 31
    assert box.drain(server).error is None  # type: ignore[arg-type]
    assert texts(server.archived + server.live) == ["m0", "m1", "m2", "m3"]


def test_a_capture_applied_message_by_message_resumes_after_the_last_one_that_landed(
    tmp_path: Path,
) -> None:
    """A server without the batch route takes one message per request: a crash in between
    leaves part of the batch applied, and the marks say exactly which part."""
    now = [1000.0]
    box, sent = _left_in_flight(tmp_path, now)
    server = RecordingBackend()
    server.live.extend(sent[:2])
    server.commit("cx-a")
    assert box.drain(server).error is None  # type: ignore[arg-type]
    assert texts(server.archived + server.live) == ["m0", "m1", "m2"]
    assert [m["turn_id"] for m in server.appended[0]] == [sent[2]["turn_id"]]


class _LocalStore(RecordingBackend):
    name = "local"  # applies a batch in one SQL transaction before answering


def test_the_local_store_resends_at_once_what_it_does_not_hold(tmp_path: Path) -> None:
    now = [1000.0]
    box, _sent = _left_in_flight(tmp_path, now)
    server = _LocalStore()
    assert box.drain(server).error is None  # type: ignore[arg-type]
    assert texts(server.live) == ["m0", "m1", "m2"]


def test_the_wait_left_is_told_so_a_background_worker_can_wait_it_out(tmp_path: Path) -> None:
    now = [1000.0]
    box, _sent = _left_in_flight(tmp_path, now)
    now[0] += 20
    error = box.drain(RecordingBackend()).error  # type: ignore[arg-type]
    assert isinstance(error, InflightError) and error.retry_in == pytest.approx(40.0)


class _Crashing(RecordingBackend):
    """A backend whose mark lookup fails with something other than a BackendError."""

    def newest_mark(self, session_id: str, prefix: str) -> Any:
        raise RuntimeError("a bug in the backend")


def test_a_crashing_mark_lookup_never_resends(tmp_path: Path) -> None:
    now = [1000.0]
    box, _sent = _left_in_flight(tmp_path, now)
    now[0] += 3600
    server = _Crashing()
    result = box.drain(server)  # type: ignore[arg-type]
    assert isinstance(result.error, InflightError) and server.appended == []


def _unmarked(box: Outbox) -> None:
    """The entry in flight as an ovhooks before the marks left it (no ``marked`` flag)."""
    seq = int(box.entries()[0]["seq"])

    def unmark(entry: Any, doc: Any) -> None:
        entry["inflight"] = {k: v for k, v in entry["inflight"].items() if k != "marked"}

    box.update_entry(seq, unmark)


class _Tail(RecordingBackend):
    """Answers ``session_context`` with ``live``, or fails the way it is told."""

    def __init__(self, failure: BaseException | None = None) -> None:
        super().__init__()
        self.failure = failure

    def session_context(self, session_id: str, budget: int) -> Any:
        if self.failure is not None:
            raise self.failure
        return super().session_context(session_id, budget)


def test_an_unmarked_batch_in_the_live_tail_is_recorded_as_sent(tmp_path: Path) -> None:
    now = [1000.0]
    box, sent = _left_in_flight(tmp_path, now)
    _unmarked(box)
    server = _Tail()
    server.live.extend([{"role": "user", "parts": [{"type": "text", "text": "before"}]}, *sent])
    assert box.drain(server).error is None  # type: ignore[arg-type]
    assert server.appended == [] and len(box) == 0


@pytest.mark.parametrize(
    ("failure", "resent"),
    [
        (None, True),  # the tail is another capture's: not applied, resent after the window
        (BackendError("http", "no such session", 404, "NOT_FOUND"), True),
        (BackendError("unreachable", "refused"), False),  # cannot say: never resent
        (RuntimeError("a bug"), False),
    ],
)
def test_an_unmarked_batch_is_judged_by_the_live_tail(
    tmp_path: Path, failure: BaseException | None, resent: bool
) -> None:
    now = [1000.0]
    box, _sent = _left_in_flight(tmp_path, now)
    _unmarked(box)
    server = _Tail(failure)
    server.live.append({"role": "user", "content": "someone else's words"})
    now[0] += 61
    result = box.drain(server)  # type: ignore[arg-type]
    if resent:
        assert result.error is None and len(server.appended) == 1
    else:
        assert isinstance(result.error, InflightError) and server.appended == []
