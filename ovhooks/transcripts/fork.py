"""Turns a forked Claude Code session copied from its parent (``SessionStart`` ``source: fork``).

Claude Code 2.1.330 starts a fork's transcript with a copy of the parent's records, under the
same ``uuid``s, the fork's own ``sessionId``, and (on assistant records) the parent's id as
``requestSessionId``. The file does not exist yet when the fork's SessionStart fires, so the
copied prefix cannot be skipped by a cursor set then: the worker asks this module which uuids
of what it read are the parent's, and treats them as already captured (under the parent).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

# A parent transcript larger than this is not read whole; the fallback rule applies instead.
MAX_PARENT_BYTES = 64 << 20


def _parent_ids(records: list[tuple[int, dict[str, Any]]], own_id: str) -> list[str]:
    found: list[str] = []
    for _offset, record in records:
        parent = record.get("requestSessionId")
        if isinstance(parent, str) and parent and parent != own_id and parent not in found:
            found.append(parent)
    return found


def _uuids_in(path: str) -> set[str] | None:
    """The uuids of the records in the transcript at ``path``; None when it cannot be read
    whole (missing, too large, not a regular file)."""
    from ovhooks.transcripts.reader import read_whole

    try:
        records = read_whole(path, MAX_PARENT_BYTES, needle=b'"uuid"')
    except OSError:
        return None
    if records is None:
        return None
    return {r["uuid"] for r in records if isinstance(r.get("uuid"), str)}


def copied_uuids(
    records: Iterable[tuple[int, dict[str, Any]]], own_session_id: str, transcript_path: str
) -> set[str]:
    """The uuids among ``records`` that the fork copied from its parent(s).

    Read from the parent transcript next to this one when it is there; otherwise every record
    up to the last one that names a parent request is taken as copied.
    """
    listed = [(o, r) for o, r in records if isinstance(r, dict)]
    parents = _parent_ids(listed, own_session_id)
    if not parents:
        return set()
    folder = os.path.dirname(transcript_path)
    known: set[str] = set()
    missing = False
    for parent in parents:
        if "/" in parent or parent.startswith("."):
            missing = True
            continue
        uuids = _uuids_in(os.path.join(folder, f"{parent}.jsonl"))
        if uuids is None:
            missing = True
        else:
            known |= uuids
    own = {str(r["uuid"]) for _o, r in listed if isinstance(r.get("uuid"), str)}
    copied = own & known
    if missing:
        last = max(i for i, (_o, r) in enumerate(listed) if r.get("requestSessionId") in parents)
        copied |= {str(r["uuid"]) for _o, r in listed[: last + 1] if isinstance(r.get("uuid"), str)}
    return copied
