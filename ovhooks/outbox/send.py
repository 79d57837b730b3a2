"""Sending one queued capture exactly once: the batch protocol on the session document.

Each batch is marked in flight (with the time) before it is sent and recorded as taken when
the server answers, in the queue entry itself; each message carries a mark of its own in
``turn_id``, which the server keeps live and archived. A batch found in flight is settled
first: taken (the newest mark the session holds is one of the batch's), certainly not taken
(another mark or none, and the server answered with an error or its processing window has
passed), or not yet known, which stops the drain (``InflightError``). A batch the server
refuses as malformed is split and sent a message at a time; the message refused alone is set
aside under ``outbox/dead/``.
"""

from __future__ import annotations

import os

from ovhooks.fsutil import ensure_dir, write_json_atomic
from ovhooks.outbox.box import MAX_BATCH, InflightError
from ovhooks.settings import layout
from ovhooks.transport.errors import BackendError

# What starts the ``turn_id`` of every message ovhooks sends (see ``marked``).
MARK_PREFIX = "ovh1:"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.outbox.box import Box, DrainResult
    from ovhooks.settings.layout import QueueEntry, State


def send_append(box: Box, entry: QueueEntry, backend: Backend, result: DrainResult) -> None:
    """Send what ``entry``'s blob holds beyond ``sent``, then drop the entry and its blob."""
    seq = int(entry["seq"])
    blob = str(entry.get("blob"))
    try:
        messages = box.read_blob(blob)
    except (OSError, ValueError) as exc:
        # The blob was written (fsync'd) before its entry; losing it means the disk lost
        # data. Nothing can be sent: say so and keep the queue moving.
        if box.log:
            box.log.error("outbox_blob_unreadable", session=box.key, blob=blob, error=str(exc))
        box.remove(seq)
        return
    session = str(entry["session"])
    sent = int(entry.get("sent") or 0)
    inflight = entry.get("inflight")
    if inflight:
        sent = _settle(box, entry, inflight, messages, backend)
    split_until = int(entry.get("split_until") or 0)
    while sent < len(messages):
        size = 1 if sent < split_until else MAX_BATCH
        batch = marked(blob, sent, messages[sent : sent + size])
        box.patch(
            seq, inflight={"start": sent, "count": len(batch), "at": box.clock(), "marked": True}
        )
        try:
            answer = backend.append_messages(session, batch)
        except BackendError as exc:
            if _malformed(exc):
                if len(batch) > 1:
                    split_until = sent + len(batch)
                    box.patch(seq, inflight=None, split_until=split_until)
                else:
                    _set_aside(box, entry, batch[0], sent, exc, result)
                    sent += 1
                continue
            _after_failure(box, seq, exc)
            raise
        sent += len(batch)
        _accepted(box, seq, sent, len(batch), answer.get("pending_tokens"), result)
    box.remove(seq)
    box.drop_blob(blob)


def _accepted(
    box: Box, seq: int, sent: int, count: int, tokens: object, result: DrainResult
) -> None:
    """Record a batch the server took: the entry's progress and the session's counters."""
    if isinstance(tokens, int | float):
        result.pending_tokens = int(tokens)
    result.messages_sent += count

    def accepted(e: QueueEntry, doc: State) -> None:
        e["sent"] = sent
        e["inflight"] = None
        doc["messages_sent"] = int(doc.get("messages_sent") or 0) + count
        if isinstance(tokens, int | float):
            doc["pending_tokens"] = int(tokens)

    box.update_entry(seq, accepted)


def marked(blob: str, start: int, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``batch`` (messages ``start``... of the capture kept in ``blob``), each carrying its
    mark in ``turn_id``: a field OpenViking keeps with the message, live and archived, and the
    local store in the message's metadata. The capture sets no ``turn_id`` of its own."""
    return [{**m, "turn_id": mark_of(blob, start + i)} for i, m in enumerate(batch)]


def mark_of(blob: str, index: int) -> str:
    """The mark of message ``index`` of ``blob``: blob names are never reused."""
    return f"{MARK_PREFIX}{blob.removesuffix('.json')}:{index}"


def _after_failure(box: Box, seq: int, exc: BackendError) -> None:
    """Record what a failed request means for the batch in flight."""
    if exc.kind == "unreachable" or exc.code == "BUSY":
        # never reached the server (refused, DNS), or a local store that was busy and
        # rolled the transaction back: certainly not taken
        box.patch(seq, inflight=None)
    elif exc.kind == "http" and exc.status != 504:
        # (a gateway's 504 says only that the proxy stopped waiting: the server may still
        # apply the batch, as after a client timeout)
        # the server answered: its processing of the request is over
        def answered(e: QueueEntry, _d: State) -> None:
            inflight = e.get("inflight")
            if inflight:
                inflight["answered"] = True

        box.update_entry(seq, answered)
    # a timeout or a garbled answer: the batch may still land; the mark stays


def _settle(
    box: Box,
    entry: QueueEntry,
    inflight: Any,
    messages: list[dict[str, Any]],
    backend: Backend,
) -> int:
    """Decide a batch left in flight: taken, certainly not taken, or not yet known.

    Returns how many messages of the entry are sent once it is decided; raises
    ``InflightError`` while the server may still apply it.
    """
    seq = int(entry["seq"])
    start = int(inflight.get("start") or 0)
    count = int(inflight.get("count") or 0)
    if inflight.get("marked"):
        done = applied_through(backend, str(entry["session"]), str(entry.get("blob")))
    else:  # sent by an ovhooks that did not mark its messages: the live tail is all we have
        tail = already_applied(backend, str(entry["session"]), messages[start : start + count])
        done = None if tail is None else start + count if tail else 0
    if done is not None and done > start:
        if box.log:
            box.log.info("outbox_inflight_was_applied", session=box.key, start=start)
        done = min(done, start + count)

        def taken(e: QueueEntry, doc: State) -> None:
            e["sent"] = done
            e["inflight"] = None
            doc["messages_sent"] = int(doc.get("messages_sent") or 0) + done - start

        box.update_entry(seq, taken)
        return done
    final = bool(inflight.get("answered")) or backend.name == "local"
    now = box.clock()
    at = float(inflight.get("at") or 0)
    if at > now:
        # stamped by a clock since set back: how long ago it was sent is unknown, so the
        # window starts now (the queue waited out the whole skew, a day after a day's jump)
        box.patch(seq, inflight={**inflight, "at": now})
        at = now
    waited = now - at
    if done is None or (not final and waited < box.window_s):
        raise InflightError(
            f"a batch sent {waited:.0f} s ago may still be applied by the server; "
            "it is checked again before anything else is sent",
            retry_in=max(0.0, box.window_s - waited) if done is not None else None,
        )
    box.patch(seq, inflight=None)
    return start


def applied_through(backend: Backend, session: str, blob: str) -> int | None:
    """How many messages of the capture in ``blob`` the server holds, by the marks it keeps;
    None when the server cannot say.

    One write is in flight per session at a time, so the newest marked message the session
    holds (live or archived) says it all: a mark of this capture tells how far it went (the
    batch is applied whole, or message by message on a server without the batch route); any
    other mark, or none, says nothing of the batch in flight was applied.
    """
    try:
        newest = backend.newest_mark(session, MARK_PREFIX)
    except BackendError as exc:
        return 0 if exc.not_found else None  # no session yet: nothing of it was applied
    except Exception:
        return None
    if newest is not None and not isinstance(newest, str):
        return None  # an answer of the wrong shape says nothing
    stem, _, index = (newest or "").rpartition(":")
    if stem != mark_of(blob, 0).rpartition(":")[0] or not index.isdigit():
        return 0
    return int(index) + 1


def _set_aside(
    box: Box,
    entry: QueueEntry,
    message: dict[str, Any],
    index: int,
    exc: BackendError,
    result: DrainResult,
) -> None:
    """Keep a record the server refused alone on disk, count it, and move past it."""
    seq = int(entry["seq"])
    dead = layout.dead_dir(box.state_dir, box.key)
    ensure_dir(dead)
    write_json_atomic(
        os.path.join(dead, f"{seq:06d}-{index:06d}-{entry.get('blob')}"),
        {"session": entry["session"], "error": str(exc), "message": message},
    )
    if box.log:
        box.log.error("outbox_record_set_aside", session=box.key, error=str(exc))
    result.dead += 1

    def set_aside(e: QueueEntry, doc: State) -> None:
        e["sent"] = index + 1
        e["inflight"] = None
        doc["set_aside"] = int(doc.get("set_aside") or 0) + 1

    box.update_entry(seq, set_aside)


def _message_key(message: dict[str, Any]) -> tuple[str, str]:
    parts = message.get("parts") or []
    text = " ".join(
        str(p.get("text", "")) if p.get("type") == "text" else str(p.get("tool_id") or "")
        for p in parts
        if isinstance(p, dict)
    )
    return str(message.get("role")), " ".join((text or str(message.get("content") or "")).split())


def already_applied(backend: Backend, session: str, batch: list[dict[str, Any]]) -> bool | None:
    """Whether the session's newest messages are this batch; None when the server can't say.

    One write is in flight per session at a time, so if the batch was applied it is the
    newest thing the session holds.
    """
    try:
        live = backend.session_context(session, 1_000_000).get("messages") or []
    except BackendError as exc:
        if exc.not_found:
            return False  # no session yet: nothing of it was applied
        return None
    except Exception:
        return None
    if not isinstance(live, list) or len(live) < len(batch):
        return False
    tail = [_message_key(m) for m in live[-len(batch) :] if isinstance(m, dict)]
    return tail == [_message_key(m) for m in batch]


def _malformed(exc: BackendError) -> bool:
    """A request the server will never accept as it is (a poison record)."""
    if exc.kind != "http" or exc.retryable:
        return False
    return exc.status in (400, 413, 422)
