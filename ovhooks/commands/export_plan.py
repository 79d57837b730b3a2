"""Export planning: what ``ovhooks export`` still has to send, as a list of steps.

Pure: worked out from the local store's listing and the progress document, no I/O
(``export_run`` performs the steps).
"""

from __future__ import annotations

import hashlib
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

    from ovhooks.settings.config import Settings

PROGRESS_VERSION = 1
BATCH = 100  # the server's batch limit (openviking-api §A.3)


class Step:
    """One request of the export: ``append`` a batch, ``commit`` an archive, ``write`` a file."""

    __slots__ = ("content", "digest", "keep_recent", "kind", "number", "peer", "seqs", "target")

    def __init__(
        self,
        kind: str,
        target: str,
        peer: str,
        *,
        seqs: Sequence[int] = (),
        number: int = 0,
        keep_recent: int = 0,
        content: str = "",
        digest: str = "",
    ) -> None:
        self.kind = kind
        self.target = target  # session id, or the memory's local URI
        self.peer = peer
        self.seqs = list(seqs)
        self.number = number
        self.keep_recent = keep_recent
        self.content = content
        self.digest = digest

    @property
    def units(self) -> int:
        """How far this step moves the progress bar: one per message, request otherwise."""
        return len(self.seqs) if self.kind == "append" else 1


def _batches(session_id: str, peer: str, seqs: list[int]) -> list[Step]:
    return [
        Step("append", session_id, peer, seqs=seqs[i : i + BATCH])
        for i in range(0, len(seqs), BATCH)
    ]


def session_steps(
    session_id: str,
    peer: str,
    seqs: Sequence[tuple[int, int | None]],
    *,
    done_seq: int,
    done_archives: int,
) -> list[Step]:
    """What is left to send of one session, given ``(seq, archive or None)`` of its messages.

    Archives go first, in number order: their unsent messages, then a commit. A message sent
    live by an earlier export and archived locally since is not sent again; the commit then
    keeps on the server, live, the already-sent messages that follow the archive
    (``keep_recent``), so each server archive holds exactly the local archive's messages.
    """
    archives: dict[int, list[int]] = {}
    live: list[int] = []
    for seq, archive in seqs:
        if archive is None:
            live.append(seq)
        else:
            archives.setdefault(int(archive), []).append(seq)
    steps: list[Step] = []
    for number in sorted(archives):
        if number <= done_archives:
            continue
        members = archives[number]
        steps.extend(_batches(session_id, peer, [s for s in members if s > done_seq]))
        last = members[-1]
        keep = sum(1 for s, _ in seqs if last < s <= done_seq)
        steps.append(Step("commit", session_id, peer, number=number, keep_recent=keep))
    steps.extend(_batches(session_id, peer, [s for s in live if s > done_seq]))
    return steps


def content_digest(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def memory_steps(memories: Iterable[tuple[str, str, str]], done: dict[str, str]) -> list[Step]:
    """A write for each memory whose content differs from what the last export wrote."""
    steps = []
    for uri, peer, content in memories:
        digest = content_digest(content)
        if done.get(uri) != digest:
            steps.append(Step("write", uri, peer, content=content, digest=digest))
    return steps


def server_uri(uri: str, local_user: str, server_user: str) -> str:
    """The local URI under the server user's root (the local store may say ``default``)."""
    prefix = f"viking://user/{local_user}/"
    if local_user != server_user and uri.startswith(prefix):
        return f"viking://user/{server_user}/" + uri[len(prefix) :]
    return uri


def progress_key(settings: Settings, url: str) -> str:
    """One progress file per server and identity: another user's export starts afresh."""
    key_hash = hashlib.sha256(settings.api_key.encode()).hexdigest() if settings.api_key else ""
    who = "\n".join((url.rstrip("/"), settings.account, settings.user, key_hash))
    return hashlib.sha256(who.encode("utf-8")).hexdigest()[:24]


def new_progress(url: str, user: str) -> dict[str, Any]:
    return {
        "v": PROGRESS_VERSION,
        "url": url,
        "user": user,
        "server_user": "",
        "sessions": {},
        "memories": {},
        "updated_at": None,
    }


def session_progress(progress: dict[str, Any], session_id: str) -> dict[str, Any]:
    sessions: dict[str, dict[str, Any]] = progress["sessions"]
    return sessions.setdefault(session_id, {"seq": -1, "archives": 0, "sent": 0})


_MARKER = re.compile(r"\[REDACTED[^\]]*\]")


def clean_uri(uri: str, settings: object) -> str:
    """``uri`` as it may leave the machine: unchanged unless it holds a secret, whose place
    in the path is then named ``redacted``.

    The name's closing hash is set aside first: joined to the words before it, it made a
    placeholder the scrubber keeps in the text (``sk-proj-abcdefghijklmnopqrst``) look like a
    key, so the memory arrived at another URI than the one it has here."""
    from ovhooks.capture.scrub import clean_outbound
    from ovhooks.rules.memory_uri import name_digest_start

    cut = name_digest_start(uri)
    head, tail = (uri[:cut], uri[cut:]) if cut >= 0 else (uri, "")
    cleaned = clean_outbound(head, settings)
    return uri if cleaned == head else _MARKER.sub("redacted", cleaned) + tail
