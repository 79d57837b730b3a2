"""Writers for host transcripts in the real record shapes (from the fixture samples)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class CodexRollout:
    """Appends Codex 0.169 rollout records to a JSONL file."""

    def __init__(self, path: Path, session_id: str = "0193-test") -> None:
        self.path = path
        self.n = 0
        self.session_id = session_id
        if not path.exists():
            self._write(
                {
                    "type": "session_meta",
                    "payload": {"session_id": session_id, "cwd": str(path.parent)},
                }
            )

    def _write(self, record: dict[str, Any]) -> None:
        self.n += 1
        record.setdefault(
            "timestamp", f"2026-11-22T06:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z"
        )
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")

    def _item(self, payload: dict[str, Any], **metadata: Any) -> None:
        self._write({"type": "response_item", "payload": payload, "metadata": metadata})

    def user(self, text: str) -> None:
        self._item(
            {
                "type": "message",
                "id": f"msg_u{self.n}",
                "role": "user",
                "content": [{"type": "input_text", "text": text}],
                "internal_chat_message_metadata_passthrough": {
                    "content_item_metadata": [{"provenance": {"type": "user"}}]
                },
            }
        )

    def environment(self) -> None:
        self._item(
            {
                "type": "message",
                "id": f"msg_env{self.n}",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>",
                    }
                ],
                "internal_chat_message_metadata_passthrough": {
                    "content_item_metadata": [{"provenance": {"type": "harness", "hook": False}}]
                },
            }
        )

    def developer(self, text: str) -> None:
        self._item(
            {
                "type": "message",
                "id": f"msg_d{self.n}",
                "role": "developer",
                "content": [{"type": "input_text", "text": text}],
            }
        )

    def assistant(self, text: str) -> None:
        self._item(
            {
                "type": "message",
                "id": f"msg_a{self.n}",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )

    def shell(self, cmd: str, output: str) -> None:
        call_id = f"call_{self.n}"
        self._item(
            {
                "type": "function_call",
                "id": f"fc_{self.n}",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": cmd}),
                "call_id": call_id,
            }
        )
        self._item(
            {
                "type": "function_call_output",
                "id": f"fco_{self.n}",
                "call_id": call_id,
                "output": output,
            }
        )

    def compaction(self, summary: str = "summary of earlier work") -> None:
        self._item(
            {
                "type": "message",
                "id": f"msg_c{self.n}",
                "role": "assistant",
                "content": [{"type": "output_text", "text": summary}],
            },
            compaction_output=True,
        )
        self._write(
            {"type": "compacted", "payload": {"message": summary, "replacement_history": []}}
        )

    def turn(self, i: int) -> None:
        self.user(f"Question number {i}: how should the parser handle nested lists?")
        self.assistant(f"Answer number {i}: recurse into each nested list and flatten it.")


def codex_payload(
    event: str, session_id: str, transcript: Path | str, cwd: Path | str, **extra: Any
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": str(transcript),
        "cwd": str(cwd),
        "hook_event_name": event,
        "model": "stub-model",
    }
    payload.update(extra)
    return payload
