"""The worker's intake: what the transcript gained, queued with the cursor it advances.

Read the transcript from the session's byte cursor (``transcripts/reader.py``), turn the
records into turns, keep those not captured before (turn uids; a Claude fork's copied
turns; the host's final reply, which may not be in the file yet), build the messages
(``capture/``), then queue them and move the cursor, uids and Claude's synthetic tail in ONE
atomic write of the session document (``Outbox.enqueue``).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import ModuleType
    from typing import Any

    from ovhooks.log import Log
    from ovhooks.model import Turn
    from ovhooks.outbox.queue import Outbox
    from ovhooks.settings.config import Settings
    from ovhooks.settings.layout import Job, State
    from ovhooks.transcripts.reader import ReadResult

# How many captured turn uids a state remembers, to recognise turns seen before when a
# transcript is rewritten. Bounded so the state file stays small.
RECENT_UIDS = 4000
# How often the worker looks again for a final reply the host has not written yet.
REPLY_POLL_S = 0.05
# The ends of the last replies read from the transcript, so a Stop that arrives after its
# reply was read (its job queued behind a later one) does not add that reply again.
RECENT_REPLIES = 32
REPLY_END_CHARS = 300


def take_in(
    job: Job, state: State, outbox: Outbox, now: float, *, settings: Settings, log: Log
) -> int:
    """Queue the messages of the turns ``job``'s transcript gained; returns how many."""
    from ovhooks.capture import CaptureOptions, build_messages

    key = str(job["key"])
    path = str(job.get("transcript_path") or state.get("transcript_path") or "")
    if not path:
        return 0
    # The cursor moved in the same write that queued what it covers: whatever happened
    # to the queue since (sent, replayed, crashed), reading on from it is right.
    cursor: dict[str, Any] = dict(state.get("cursor") or {})
    from ovhooks.transcripts import transcript_reader

    reader = transcript_reader(str(state.get("host") or job.get("host")))
    if reader is None:
        log.error("transcript_reader_unknown", session=key, host=str(state.get("host")))
        return 0
    store = hasattr(reader, "read_new")  # a database read by message id (OpenCode)
    read = _read_any(reader, job, state, path, cursor, outbox, now, log)
    if read is None:
        return 0
    to_turns: Callable[[list[tuple[int, dict[str, Any]]]], list[Turn]] = reader.records_to_turns
    turns = to_turns(read.records)
    reply = str(job.get("last_assistant") or "")
    wait_s = float(job.get("wait_for_reply_s") or 0)

    def replied(seen: list[Turn]) -> bool:
        return not _reply_missing(seen, reply, state)

    answer_s = float(job.get("wait_for_answer_s") or 0)
    for there, wait, what in ((replied, wait_s if reply and not store else 0, "reply"),
                              (_answered, answer_s, "answer")):  # fmt: skip
        if wait and not there(turns):
            late = _read_until(path, cursor, to_turns, there, wait, what, key, log)
            if late is not None:
                read, turns = late
    fresh, synthetic_tail = _fresh_turns(turns, read, job, state, path)
    captured = build_messages(
        fresh, CaptureOptions.from_settings(settings), held=state.get("held") or []
    )
    messages = captured.messages
    peer = _peer(job, state)
    if peer:
        for message in messages:
            message.setdefault("peer_id", peer)
    uids = [t.uid for t in fresh]
    redacted = {k: v for k, v in captured.stats.items() if k.startswith("redacted") and v}
    if redacted:
        log.info("capture_redacted", session=key, **redacted)

    def change(doc: State) -> None:
        moved: Any = {**read.cursor, "turns": int(cursor.get("turns") or 0) + len(turns)}
        doc["cursor"] = moved
        doc["recent_uids"] = (list(doc.get("recent_uids") or []) + uids)[-RECENT_UIDS:]
        doc["held"] = captured.held
        doc["synthetic_tail"] = synthetic_tail
        _note_replies(doc, turns)
        doc["transcript_path"] = path
        doc.pop("transcript_unread_since", None)
        if job.get("cwd"):
            doc["cwd"] = str(job["cwd"])
        if peer:
            doc["peer"] = peer
        if fresh:
            doc["last_activity_at"] = now
            doc["turns_captured"] = int(doc.get("turns_captured") or 0) + len(fresh)
        doc["uncommitted"] = int(doc.get("uncommitted") or 0) + len(messages)

    # ONE atomic write: the queue entry and everything it advances.
    outbox.enqueue("append", str(state.get("ov_session_id") or key), messages, change=change)
    return len(messages)


def _read_any(
    reader: ModuleType,
    job: Job,
    state: State,
    path: str,
    cursor: dict[str, Any],
    outbox: Outbox,
    now: float,
    log: Log,
) -> ReadResult | None:
    """What the host's transcript (a file, or OpenCode's database) gained after ``cursor``;
    None when it cannot be read. A file not there yet marks the session for the sweep."""
    key = str(job["key"])
    if hasattr(reader, "read_new"):
        sid = str(state.get("host_session_id") or job.get("host_session_id") or "")
        return _read_store(reader, path, sid, cursor, key, log)
    read = _read(path, cursor, float(job.get("wait_for_transcript_s") or 0), key, log)
    if read is None and not os.path.exists(path):
        _mark_unread(outbox, path, now)
    return read


def _mark_unread(outbox: Outbox, path: str, now: float) -> None:
    """Remember that the transcript was not there, for the idle sweep to read it later."""

    def change(doc: State) -> None:
        doc.setdefault("transcript_unread_since", now)
        doc["transcript_path"] = path

    outbox.store.update(outbox.key, change)


def _note_replies(doc: State, turns: Sequence[Turn]) -> None:
    """Keep what tells a reply already read from a new one: the last turn's text if it is
    a reply, and the ends of the last replies read."""
    if turns:
        last = turns[-1]
        doc["last_assistant_text"] = _fold(last.text)[-4000:] if last.role == "assistant" else ""
    ends = [_fold(t.text)[-REPLY_END_CHARS:] for t in turns if t.role == "assistant"]
    if any(ends):
        known = list(doc.get("recent_replies") or [])
        doc["recent_replies"] = (known + [e for e in ends if e])[-RECENT_REPLIES:]


def _reply_missing(turns: Sequence[Turn], reply: str, state: State) -> bool:
    """The host's final reply is neither in what was read nor captured before."""
    return _pending(_fold(reply), turns, _captured(state), str(state.get("synthetic_tail") or ""))


def _captured(state: State) -> list[str]:
    """The folded ends of the assistant replies earlier runs read from the transcript."""
    return [str(state.get("last_assistant_text") or ""), *(state.get("recent_replies") or [])]


def _pending(
    tail: str, turns: Sequence[Turn], captured: Sequence[str], synthetic_tail: str
) -> bool:
    """Whether the folded reply ``tail`` still has to be captured: it is not in ``turns``,
    no earlier run read it (``captured``: the ends of what they read) and it was not sent on
    its own."""
    if not tail or tail == synthetic_tail:
        return False
    end = tail[-REPLY_END_CHARS:]
    if any(text.endswith(end) for text in captured if text):
        return False
    return not any(t.role == "assistant" and _fold(t.text).endswith(tail) for t in turns)


def _read_until(
    path: str,
    cursor: dict[str, Any],
    to_turns: Callable[[list[tuple[int, dict[str, Any]]]], list[Turn]],
    there: Callable[[list[Turn]], bool],
    wait_s: float,
    what: str,
    key: str,
    log: Log,
) -> tuple[ReadResult, list[Turn]] | None:
    """Read again until ``there(turns)``, for at most ``wait_s``; None: still not there (the
    first read stands; what arrives later is read by the next hook).

    Hosts write their file after Stop fires. Claude sometimes writes the turn's prompt late
    too: captured then, its reply would go (as a synthetic turn) before the prompt it
    answers. Copilot CLI writes in batches, and its Stop carries no reply at all. The worker
    is off the critical path, so a short wait buys the whole turn in the right order.
    ``what`` names it in the log (``reply``: Claude's text; ``answer``: any reply).
    """
    started = time.monotonic()
    while time.monotonic() < started + wait_s:
        time.sleep(REPLY_POLL_S)
        again = _read(path, cursor, 0, key, log)
        if again is None:
            break
        turns = to_turns(again.records)
        if there(turns):
            log.debug(f"{what}_waited", session=key, ms=round((time.monotonic() - started) * 1e3))
            return again, turns
    log.info(f"{what}_not_in_transcript", session=key, waited_s=wait_s)
    return None


def _answered(turns: Sequence[Turn]) -> bool:
    """The newest turn read is the assistant's: the file holds the answer to the prompt."""
    return bool(turns) and turns[-1].role == "assistant"


def _read(
    path: str, cursor: dict[str, Any], wait_s: float, key: str, log: Log
) -> ReadResult | None:
    """What the transcript gained after ``cursor``; None (logged) when it cannot be read.

    ``wait_s``: how long to wait for a transcript the host has not created yet.
    """
    from ovhooks.transcripts.reader import read_new

    deadline = time.monotonic() + wait_s
    while wait_s and not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        read = read_new(path, cursor)
    except FileNotFoundError:
        # normal at a session's first hook: the host creates the file a moment later
        log.info("transcript_missing", session=key, path=path)
        return None
    except OSError as exc:
        log.error("transcript_unreadable", session=key, path=path, error=str(exc))
        return None
    if read.rewritten:
        log.info("transcript_rewritten", session=key)
    if read.bad_lines:  # skipped, once each: the cursor moves past them
        log.error("transcript_bad_lines", session=key, lines=read.bad_lines)
    return read


def _read_store(
    reader: ModuleType, path: str, session_id: str, cursor: dict[str, Any], key: str, log: Log
) -> ReadResult | None:
    """What a session kept in a store gained after ``cursor``; None (logged) when unreadable."""
    try:
        read: ReadResult = reader.read_new(path, session_id, cursor)
    except OSError as exc:
        log.error("transcript_unreadable", session=key, path=path, error=str(exc))
        return None
    if read.bad_lines:
        log.error("transcript_bad_lines", session=key, lines=read.bad_lines)
    return read


def _fresh_turns(
    turns: list[Turn], read: ReadResult, job: Job, state: State, path: str
) -> tuple[list[Turn], str]:
    """The turns not captured before, and the synthetic tail the document keeps after them."""
    seen = set(state.get("recent_uids") or [])
    if state.get("forked"):  # a Claude fork's transcript starts with its parent's turns
        from ovhooks.transcripts.fork import copied_uuids

        seen |= copied_uuids(read.records, str(state.get("host_session_id") or ""), path)
    return _reconcile_last_assistant(
        [t for t in turns if t.uid not in seen],
        str(job.get("last_assistant") or ""),
        str(state.get("synthetic_tail") or ""),
        turns,
        _captured(state),
    )


def _peer(job: Job, state: State) -> str:
    """The project peer the messages are filed under."""
    peer = str(job.get("peer") or state.get("peer") or "")
    if state.get("project_dir"):  # DirectoryAdded moved the session to another project
        peer = str(state.get("peer") or peer)
    return peer


def _reconcile_last_assistant(
    fresh: list[Turn],
    tail_text: str,
    synthetic_tail: str,
    all_turns: Sequence[Turn],
    captured: Sequence[str] = (),
) -> tuple[list[Turn], str]:
    """Capture the host's final reply exactly once, even before it reaches the transcript.

    Claude writes its transcript asynchronously: at Stop, ``last_assistant_message`` may not
    be in the file yet. We then send it as a synthetic turn and remember its text; when the
    real record shows up in a later read, the already-sent text is cut from it (its tool
    calls are kept). ``captured`` holds the ends of the assistant texts earlier runs read from
    the file, so a reply one of them already sent (SessionEnd's worker got the lock first, or
    a later Stop's job ran before this one's) is not added again.
    """
    from ovhooks.model import Turn

    out = list(fresh)
    if synthetic_tail:
        for i, turn in enumerate(out):
            if turn.role != "assistant":
                continue
            text = _fold(turn.text)
            if not text.endswith(synthetic_tail):
                continue
            if text == synthetic_tail and not turn.tools:
                out.pop(i)
            else:
                cut = _strip_tail(text, synthetic_tail)
                out[i] = Turn("assistant", cut, turn.tools, timestamp=turn.timestamp, uid=turn.uid)
            synthetic_tail = ""
            break
    tail = _fold(tail_text)
    if _pending(tail, all_turns, captured, synthetic_tail):
        import zlib

        uid = f"synthetic-{zlib.crc32(tail.encode('utf-8')):08x}"
        out.append(Turn("assistant", tail_text, uid=uid, synthetic=True))
        synthetic_tail = tail
    return out, synthetic_tail


def _strip_tail(text: str, normalized_tail: str) -> str:
    """``text`` without its trailing words equal to ``normalized_tail`` (whitespace-folded)."""
    words = text.split()
    tail_words = normalized_tail.split()
    if len(tail_words) <= len(words) and words[-len(tail_words) :] == tail_words:
        return " ".join(words[: len(words) - len(tail_words)])
    return text


def _fold(text: str) -> str:
    """Whitespace-folded and scrubbed: how assistant text is kept in the session state (at
    rest, so never with its secrets) and compared with what the transcript holds."""
    from ovhooks.capture.scrub import scrub_text

    return " ".join(scrub_text(text).split()) if text else ""
