"""Writers for the session files of Pi, Gemini CLI, Copilot CLI, Qwen Code and Factory Droid, in
the record shapes of the recordings of the real CLIs (tests/fixtures/<host>), turn by turn.

Each writer appends what its host appends for a prompt and for the model's text reply, where the
host keeps the file, with the records around them that are not conversation (headers, model and
bookkeeping records, hook runs) so a reader that took them would be caught. Codex rollouts live
in ``rollouts.py``, Claude transcripts in ``claude_transcripts.py`` and OpenCode's store (a
database, not a file) in ``opencode_store.py``; ``writer`` picks the one of a host.
"""

from __future__ import annotations

import json
import secrets
import uuid
from pathlib import Path
from typing import Any, Protocol

from tests.support.opencode_store import OpenCodeSession


class Conversation(Protocol):
    """What the crash campaign needs of a host's transcript writer."""

    path: Path

    def prompt(self, text: str) -> None: ...

    def reply(self, text: str) -> None: ...


def _slug(cwd: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in cwd)


class _Jsonl:
    """An append-only JSONL file with a clock (one tick a record)."""

    def __init__(self, path: Path, session_id: str, cwd: str) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.n = 0
        path.parent.mkdir(parents=True, exist_ok=True)

    def stamp(self) -> str:
        self.n += 1
        return f"2026-11-28T05:{self.n // 60 % 60:02d}:{self.n % 60:02d}.{self.n % 1000:03d}Z"

    def millis(self) -> int:
        return 1795844400000 + self.n * 1000

    def write(self, record: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")


class PiSession(_Jsonl):
    """Pi 0.73 (fixtures/pi/session-branched.jsonl): a ``session`` header, then entries that
    each name their parent (``parentId``); the newest entry is the leaf of the branch."""

    def __init__(self, root: Path, session_id: str, cwd: str) -> None:
        folder = root / "pi-agent" / "sessions" / f"-{_slug(cwd)}--"
        super().__init__(folder / f"2026-11-28T05-40-00-000Z_{session_id}.jsonl", session_id, cwd)
        self.leaf: str | None = None
        self.write(
            {
                "type": "session",
                "version": 3,
                "id": session_id,
                "timestamp": self.stamp(),
                "cwd": cwd,
            }
        )
        self.entry({"type": "model_change", "provider": "stub", "modelId": "stub-model"})
        self.entry({"type": "thinking_level_change", "thinkingLevel": "off"})

    def entry(self, body: dict[str, Any]) -> None:
        entry_id = secrets.token_hex(4)
        self.write(
            {
                "type": body["type"],
                "id": entry_id,
                "parentId": self.leaf,
                "timestamp": self.stamp(),
                **body,
            }
        )
        self.leaf = entry_id

    def prompt(self, text: str) -> None:
        message = {"role": "user", "content": [{"type": "text", "text": text}]}
        self.entry({"type": "message", "message": {**message, "timestamp": self.millis()}})

    def reply(self, text: str) -> None:
        usage = {"input": 40, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 50}
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "api": "openai-completions",
            "provider": "stub",
            "model": "stub-model",
            "usage": usage,
            "stopReason": "stop",
            "timestamp": self.millis(),
        }
        self.entry({"type": "message", "message": message})


class GeminiChat(_Jsonl):
    """Gemini CLI 0.61 (fixtures/gemini/session-transcript.jsonl): a header, the history list
    (``$set.messages``: the session context), then each message as its own record, each
    followed by a ``$set`` of ``lastUpdated``."""

    def __init__(self, root: Path, session_id: str, cwd: str) -> None:
        chats = root / "tmp" / "work" / "chats"
        super().__init__(
            chats / f"session-2026-11-28T05-40-{session_id[:8]}.jsonl", session_id, cwd
        )
        start = self.stamp()
        self.write(
            {
                "sessionId": session_id,
                "projectHash": "35d3c711",
                "startTime": start,
                "lastUpdated": start,
                "kind": "main",
            }
        )
        context = "<session_context>\nThis is the Gemini CLI.\n</session_context>"
        self.write(
            {
                "$set": {
                    "messages": [
                        {
                            "id": uuid.uuid4().hex,
                            "timestamp": start,
                            "type": "user",
                            "content": [{"text": context}],
                        }
                    ]
                }
            }
        )

    def message(self, record: dict[str, Any]) -> None:
        when = self.stamp()
        self.write({"id": str(uuid.uuid4()), "timestamp": when, **record})
        self.write({"$set": {"lastUpdated": when}})

    def prompt(self, text: str) -> None:
        self.message(
            {"type": "user", "content": [{"text": text}], "displayContent": [{"text": text}]}
        )

    def reply(self, text: str) -> None:
        tokens = {"input": 40, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": 50}
        self.message(
            {
                "type": "gemini",
                "content": text,
                "thoughts": [],
                "tokens": tokens,
                "model": "gemini-2.5-flash",
            }
        )


class CopilotEvents(_Jsonl):
    """Copilot CLI 1.0.102 (fixtures/copilot/session-1.jsonl):
    ``session-state/<id>/events.jsonl``, one event a line, each naming the one before it. The
    prompt's ``transformedContent`` (what the model got) holds the prompt again."""

    def __init__(self, root: Path, session_id: str, cwd: str) -> None:
        super().__init__(root / "session-state" / session_id / "events.jsonl", session_id, cwd)
        self.last: str | None = None
        self.turn = 0
        self.event(
            "session.start",
            {
                "sessionId": session_id,
                "version": 1,
                "producer": "copilot-agent",
                "copilotVersion": "1.0.102",
                "selectedModel": "stub-model",
                "context": {"cwd": cwd},
            },
        )

    def event(self, kind: str, data: dict[str, Any]) -> None:
        event_id = str(uuid.uuid4())
        self.write(
            {
                "type": kind,
                "data": data,
                "id": event_id,
                "timestamp": self.stamp(),
                "parentId": self.last,
            }
        )
        self.last = event_id

    def prompt(self, text: str) -> None:
        transformed = f"<current_datetime>{self.stamp()}</current_datetime>\n\n{text}"
        self.event(
            "user.message",
            {
                "content": text,
                "transformedContent": transformed,
                "messageId": str(uuid.uuid4()),
                "turnId": str(self.turn),
            },
        )

    def reply(self, text: str) -> None:
        turn = str(self.turn)
        self.turn += 1
        self.event("assistant.turn_start", {"turnId": turn})
        self.event(
            "assistant.message",
            {
                "messageId": str(uuid.uuid4()),
                "model": "stub-model",
                "content": text,
                "toolRequests": [],
                "turnId": turn,
            },
        )
        self.event("assistant.turn_end", {"turnId": turn})


class QwenChat(_Jsonl):
    """Qwen Code 0.24.4 (fixtures/qwen/session-1.jsonl): ``projects/<cwd slug>/chats/<id>.jsonl``,
    records chained by ``parentUuid``, Gemini-style ``parts``, telemetry as ``system``."""

    def __init__(self, root: Path, session_id: str, cwd: str) -> None:
        path = root / "projects" / _slug(cwd) / "chats" / f"{session_id}.jsonl"
        super().__init__(path, session_id, cwd)
        self.last: str | None = None

    def record(self, kind: str, provenance: str, **body: Any) -> None:
        record_id = str(uuid.uuid4())
        self.write(
            {
                "uuid": record_id,
                "parentUuid": self.last,
                "sessionId": self.session_id,
                "timestamp": self.stamp(),
                "type": kind,
                "provenance": provenance,
                "cwd": self.cwd,
                "version": "0.24.4",
                **body,
            }
        )
        self.last = record_id

    def prompt(self, text: str) -> None:
        self.record("user", "real_user", message={"role": "user", "parts": [{"text": text}]})
        snapshot = {"type": "attribution-snapshot", "version": 1, "surface": "cli"}
        self.record(
            "system", "system", subtype="attribution_snapshot", systemPayload={"snapshot": snapshot}
        )

    def reply(self, text: str) -> None:
        self.record(
            "assistant",
            "assistant_output",
            model="stub-model",
            message={"role": "model", "parts": [{"text": text}]},
        )


class DroidSession(_Jsonl):
    """Factory Droid 0.225.2 (fixtures/droid/session-1.jsonl):
    ``sessions/<cwd slug>/<id>.jsonl``: a ``session_start`` header titled with the first
    prompt, Anthropic-block messages chained by ``parentId``, a hook run after each turn
    (``visibility: user_only``) and its ``agent_turn_outcome``."""

    def __init__(self, root: Path, session_id: str, cwd: str) -> None:
        super().__init__(root / "sessions" / _slug(cwd) / f"{session_id}.jsonl", session_id, cwd)
        self.last: str | None = None
        self.turn_id = ""

    def message(self, message: dict[str, Any], *, chain: bool = True) -> str:
        message_id = str(uuid.uuid4())
        self.write(
            {
                "type": "message",
                "id": message_id,
                "parentId": self.last,
                "timestamp": self.stamp(),
                "message": message,
            }
        )
        if chain:
            self.last = message_id
        return message_id

    def prompt(self, text: str) -> None:
        if self.n == 0:
            self.write(
                {
                    "type": "session_start",
                    "id": self.session_id,
                    "title": text,
                    "owner": "unknown",
                    "version": 2,
                    "cwd": self.cwd,
                }
            )
        content = [{"type": "text", "text": text}]
        self.turn_id = self.message({"role": "user", "content": content, "interactionMode": "auto"})

    def reply(self, text: str) -> None:
        self.message(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "modelId": "custom:Stub-0",
                "reasoningEffort": "none",
            }
        )
        hook = {
            "role": "user",
            "content": [],
            "visibility": "user_only",
            "hookEventName": "Stop",
            "hookStatus": "completed",
            "hookResults": [{"exitCode": 0, "stdout": "{}\n"}],
        }
        self.message(hook, chain=False)
        self.write(
            {
                "type": "agent_turn_outcome",
                "turnId": self.turn_id,
                "reason": "completed",
                "resultKind": "text",
            }
        )


# host -> (its writer, the folder under a scenario's root the host keeps its sessions in)
WRITERS: dict[str, tuple[Any, str]] = {
    "pi": (PiSession, "pi"),
    "opencode": (OpenCodeSession, "opencode"),
    "gemini": (GeminiChat, "gemini"),
    "copilot": (CopilotEvents, "copilot-home"),
    "qwen": (QwenChat, "qwen"),
    "droid": (DroidSession, "factory"),
}


def writer(host: str, root: Path, session_id: str, cwd: str) -> Conversation:
    """``host``'s session writer, keeping its files under ``root``."""
    cls, folder = WRITERS[host]
    made: Conversation = cls(root / folder, session_id, cwd)
    return made
