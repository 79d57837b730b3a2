"""Claude Code transcript records -> Turns (Claude Code 2.1.197, hosts-e2e §2.8; 2.1.330).

Re-verified on real 2.1.330 transcripts (tests/fixtures/claude-2.1.330): the new bookkeeping
records (``api-request``, ``api-request-blob``, ``atis-latch``, ``cost-state``, ``tools-used``)
are dropped by shape like the others; user and assistant records are unchanged. A fork's
transcript starts with its parent's records (same uuids): see ``transcripts/fork.py``.

Conversation lives in ``user`` and ``assistant`` records. Dropped here by record shape:
``attachment`` records (hook context, skill and agent listings), ``system`` records (compact
boundaries), queue/mode/last-prompt bookkeeping, meta user records (``isMeta``: "Continue from
where you left off."), the compaction summary (``isCompactSummary``) and transcript-only
records. An assistant reply spans several records (one per content block, sharing
``message.id``); they form one turn until the next real user prompt. ``tool_result`` blocks
come in ``user`` records but belong to the assistant's tool call, so they are attached to it,
never sent as something the user said.

Subagents (Claude Code 2.1) write their own file, ``<session>/subagents/agent-<id>.jsonl``,
whose records carry ``isSidechain: true`` and ``agentId``; those are read like any transcript.
Older builds wrote subagent records *inline* in the main transcript (``isSidechain`` without
``agentId``): they are dropped there, so a subagent's work never lands in the parent session.
"""

from __future__ import annotations

import json

from ovhooks.model import Turn
from ovhooks.transcripts.builder import AssistantTurnBuilder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        ]
        return "\n".join(t for t in texts if t)
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _inline_sidechain(record: dict[str, Any]) -> bool:
    return bool(record.get("isSidechain")) and not record.get("agentId")


def _harness_prompt(record: dict[str, Any]) -> bool:
    """A user-role record Claude Code wrote itself: 2.1.330 runs an Agent call in the
    background and, when it finishes, sends a ``<task-notification>`` as a user turn marked
    ``promptSource: "system"``, ``turnOrigin: "task_notification"`` and ``origin.kind``."""
    origin = record.get("origin")
    return (
        record.get("promptSource") == "system"
        or record.get("turnOrigin") == "task_notification"
        or (isinstance(origin, dict) and origin.get("kind") == "task-notification")
    )


def _skip_user(record: dict[str, Any]) -> bool:
    return bool(
        record.get("isMeta")
        or record.get("isCompactSummary")
        or record.get("isVisibleInTranscriptOnly")
        or _harness_prompt(record)
    )


def records_to_turns(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turns in transcript order from (offset, record) pairs."""
    turns: list[Turn] = []
    current: AssistantTurnBuilder | None = None
    # Tool calls from earlier assistant turns in this read, so a result that arrives after an
    # interleaved record still finds its call.
    calls_by_id: dict[str, dict[str, Any]] = {}

    def flush() -> None:
        nonlocal current
        if current is not None and not current.empty:
            turns.append(current.finish())
        current = None

    for offset, record in records:
        kind = record.get("type")
        message = record.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            continue
        if _inline_sidechain(record):
            continue
        uid = str(record.get("uuid") or f"cc-off-{offset}")
        ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        content = message.get("content")
        if kind == "assistant":
            if current is None:
                current = AssistantTurnBuilder(uid, ts)
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            for block in blocks:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    if block["text"].strip():
                        current.texts.append(block["text"])
                elif block.get("type") == "tool_use":
                    tool_input = block.get("input")
                    call = current.add_call(
                        str(block.get("name") or "tool"),
                        tool_input if isinstance(tool_input, dict) else {},
                        str(block.get("id") or ""),
                    )
                    calls_by_id[str(call["id"])] = call
            continue
        # a user record: a prompt, tool results, or both
        if _skip_user(record):
            continue
        if isinstance(content, str):
            flush()
            if content.strip():
                turns.append(Turn("user", content, timestamp=ts, uid=uid))
            continue
        if not isinstance(content, list):
            continue
        texts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                called = calls_by_id.get(str(block.get("tool_use_id") or ""))
                if called is not None:
                    called["output"] = _result_text(block.get("content"))
                    called["error"] = bool(block.get("is_error"))
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
        if any(t.strip() for t in texts):
            flush()
            turns.append(Turn("user", "\n\n".join(texts), timestamp=ts, uid=uid))
    flush()
    return turns


def recent_user_texts(records: Iterable[dict[str, Any]], limit: int) -> list[str]:
    """The last ``limit`` user messages (oldest first), for the recall query."""
    texts = [t.text for t in records_to_turns((0, r) for r in records) if t.role == "user"]
    return texts[-limit:] if limit else []


# --- subagents -------------------------------------------------------------------------------
# The tool that spawns a subagent: ``Agent`` in Claude Code 2.1, ``Task`` before.
AGENT_TOOLS = frozenset({"Agent", "Task"})
_ID_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def subagent_files(transcript_path: str, agent_id: str) -> tuple[str, str]:
    """(transcript, meta) paths of a subagent, next to its parent's transcript.

    ``projects/<slug>/<session>.jsonl`` -> ``projects/<slug>/<session>/subagents/agent-<id>.*``.
    Empty strings when the inputs cannot name a file safely (an id with a path separator).
    """
    if not transcript_path.endswith(".jsonl") or not agent_id:
        return "", ""
    if not set(agent_id) <= _ID_SAFE or agent_id.startswith("."):
        return "", ""
    base = transcript_path[: -len(".jsonl")] + "/subagents/agent-" + agent_id
    return base + ".jsonl", base + ".meta.json"


def subagent_task_from_own(records: Iterable[dict[str, Any]]) -> str:
    """The task a subagent was given: the first user message of its own transcript."""
    for turn in records_to_turns((0, r) for r in records):
        if turn.role == "user":
            return turn.text
    return ""


def subagent_task_from_parent(records: Iterable[dict[str, Any]], tool_use_id: str = "") -> str:
    """The ``prompt`` of the parent's Agent/Task call with ``tool_use_id``, else of the last one."""
    last = ""
    for record in records:
        message = record.get("message")
        if record.get("type") != "assistant" or not isinstance(message, dict):
            continue
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            if block.get("name") not in AGENT_TOOLS or not isinstance(block.get("input"), dict):
                continue
            prompt = block["input"].get("prompt")
            if not isinstance(prompt, str) or not prompt.strip():
                continue
            if tool_use_id and block.get("id") == tool_use_id:
                return prompt
            last = prompt
    return last
