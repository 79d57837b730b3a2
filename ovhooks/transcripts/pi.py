"""Pi session JSONL entries -> Turns (Pi 0.73, ``shared/spec/hosts-more.md`` §2.5).

A Pi session file is a tree: a ``session`` header, then entries ``{type, id, parentId, ...}``
appended in time order, each pointing at its parent; the conversation the model sees is the
path from the current leaf back to the root. A user who goes back to an earlier entry (``/tree``,
a fork in place) leaves the abandoned branch in the file and appends the new one under that
entry. The latest appended entry is the leaf, so of the entries read since the last capture
only those on the path from the newest one back are turned into Turns: the branch the user
is on. Entries of an abandoned branch read in the same batch are skipped; those captured
before the user went back stay captured (memory keeps what was said).

Conversation lives in ``message`` entries: ``user`` (string or text blocks), ``assistant``
(``text`` and ``toolCall`` blocks; ``thinking`` dropped) and ``toolResult`` (attached to its
call). ``compaction``, ``branch_summary``, ``custom``/``custom_message`` (extension data, never
said by the user), model and label entries are dropped by type.
"""

from __future__ import annotations

import json

from ovhooks.model import Turn
from ovhooks.transcripts.builder import AssistantTurnBuilder, TurnCollector

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


def _texts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def current_branch(
    records: Iterable[tuple[int, dict[str, Any]]],
) -> list[tuple[int, dict[str, Any]]]:
    """The records on the path from the newest entry back through its parents, in file order.

    Only records of this batch are walked (a parent read in an earlier batch ends the walk);
    a cycle or a missing parent ends it too.
    """
    entries = [(offset, r) for offset, r in records if isinstance(r.get("id"), str)]
    if not entries:
        return []
    by_id = {str(r["id"]): (offset, r) for offset, r in entries}
    keep: set[str] = set()
    node: str | None = str(entries[-1][1]["id"])
    while node is not None and node in by_id and node not in keep:
        keep.add(node)
        parent = by_id[node][1].get("parentId")
        node = parent if isinstance(parent, str) else None
    return [(offset, r) for offset, r in entries if str(r["id"]) in keep]


def _attach_result(current: AssistantTurnBuilder | None, message: dict[str, Any]) -> None:
    call = current.by_id.get(str(message.get("toolCallId") or "")) if current else None
    if call is None:
        return  # a result whose call was captured earlier
    content = message.get("content")
    texts = _texts(content)
    call["output"] = "\n".join(texts) if texts or not content else json.dumps(content)
    call["error"] = message.get("isError") is True


def records_to_turns(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turns of the current branch, in order, from (offset, record) pairs."""
    collected = TurnCollector()
    for _offset, record in current_branch(records):
        message = record.get("message")
        if record.get("type") != "message" or not isinstance(message, dict):
            continue
        uid = f"pi-{record['id']}"
        ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        role = message.get("role")
        if role == "user":
            texts = _texts(message.get("content"))
            if any(t.strip() for t in texts):
                collected.user("\n\n".join(texts), ts, uid)
        elif role == "assistant":
            current = collected.assistant(uid, ts)
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    current.texts.append(block["text"])
                elif block.get("type") == "toolCall":
                    args = block.get("arguments")
                    current.add_call(
                        str(block.get("name") or "tool"),
                        args if isinstance(args, dict) else {"input": args},
                        str(block.get("id") or f"call-{record['id']}"),
                    )
        elif role == "toolResult":
            _attach_result(collected.current, message)
    return collected.finish()


def recent_user_texts(records: Iterable[dict[str, Any]], limit: int) -> list[str]:
    """The last ``limit`` user messages of the current branch (oldest first)."""
    pairs = ((0, r) for r in records)
    texts = [t.text for t in records_to_turns(pairs) if t.role == "user"]
    return texts[-limit:] if limit else []
